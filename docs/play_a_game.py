"""Play a whole game against the shipped agent on the page, as a course student would: start
``curling server --http-port 0 --agent builtin``, open the address it prints in Debian's
headless Chromium whose language is Chinese (the page follows it), take a seat against
``builtin``, and play every stone of a default game (4 ends) by driving the page as a person
does: aim by clicking on the house (a draw there; now and then a takeout: the click on the
other side's stone nearest the button, v raised), throw, and while the stone runs past
mid-sheet sweep by holding the button, or by a distance, or decline, or let the moment pass;
answer a centre-line choice if one comes; read the result at the end.

On the way it checks what the student sees and prints what it finds: English words left on the
page (visible text, titles, labels, options), the font note (a machine without a Chinese font),
every wait with the words the panel shows meanwhile, a control offered when the seat does not
wait for it, and the result's words. Screenshots go to ``--out`` (default
``test-artifacts/game-<lang>/``). It exits 1 if it found something to fix.

    python docs/play_a_game.py                 (about 15 minutes on 2 busy cores; needs
    python docs/play_a_game.py --ends 1         `apt-get install chromium fonts-noto-cjk`,
    python docs/play_a_game.py --lang en        playwright and the rl extra; from the root)
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PLAY = "window.curlingPlay.state()"
VIEW = "window.curlingView.state()"
#: Latin words a Chinese page may show: the platform's names and units, the agent's name.
LATIN_OK = {"Player", "AI", "builtin", "m", "s", "rad", "v", "h", "w", "jsonl", "English"}
#: The page's controls (curlingPlay.state()) and what the seat waits for when it shows them.
CONTROLS = {"throwControls": "throw", "sweepControls": "sweep", "centerlineControls": "centerline"}
#: Every text a person reads: the visible text, and titles, labels and options.
TEXTS = """() => {
  const seen = [];
  const visible = (el) => el.offsetParent !== null || el === document.body;
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const el = n.parentElement;
    if (el && visible(el) && !el.closest("[lang=en]") && n.textContent.trim()) {
      seen.push([el.id || el.tagName, n.textContent.trim()]);
    }
  }
  for (const el of document.querySelectorAll("[title], [aria-label]")) {
    if (!visible(el) || el.closest("[lang=en]")) continue;
    for (const a of ["title", "aria-label"]) {
      if (el.getAttribute(a)) seen.push([`${el.id}@${a}`, el.getAttribute(a)]);
    }
  }
  for (const o of document.querySelectorAll("select option")) seen.push(["option", o.text]);
  for (const i of document.querySelectorAll("input:not([type]), input[type=text]")) {
    if (visible(i)) seen.push([`${i.id}@value`, i.value]);
  }
  seen.push(["title", document.title]);
  return seen;
}"""


class Student:
    """The page of one seat, and what was noticed on it."""

    def __init__(self, page: Any, lang: str, out: Path) -> None:
        self.page, self.lang, self.out = page, lang, out
        self.found: dict[str, str] = {}  # what to fix: a key (to say it once) -> what was seen
        self.waits: list[tuple[float, str, list[str]]] = []  # seconds, for what, panel words
        self.swept: list[tuple[int, str, float]] = []  # throw, how, metres asked

    def note(self, key: str, text: str) -> None:
        if key not in self.found:
            self.found[key] = text
            print(f"  !! {text}", flush=True)

    def look(self) -> None:
        """English left on a Chinese page; the font note."""
        if self.lang != "zh-CN":
            return
        if self.page.evaluate("document.documentElement.lang") != "zh-CN":
            self.note("lang", "the page is not in Chinese in a Chinese browser")
        for where, text in self.page.evaluate(TEXTS):
            words = [w for w in re.findall(r"[A-Za-z]+", text) if w not in LATIN_OK]
            if words:
                self.note(f"en:{where}:{text}", f"English on the page ({where}): {text!r}")
        if self.page.evaluate(VIEW)["fontNote"]:
            self.note("font", "the page says this machine has no Chinese font (#font-note)")

    def wait_for_turn(self, timeout: float = 600.0) -> dict[str, Any]:
        """Until the page offers something (or the game is over); the panel's words meanwhile.
        Flags a control offered for something the seat does not wait for."""
        start = time.monotonic()
        words: list[str] = []
        asked = None  # when the seat began to wait (the server asks), the page not offering yet
        while time.monotonic() - start < timeout:
            state = self.page.evaluate(PLAY)
            seat = state["seat"] or {}
            if seat.get("waiting") and asked is None:
                asked = time.monotonic()
            status = state["status"]
            if status and (not words or words[-1] != status):
                words.append(status)
            offered = [k for k in CONTROLS if state[k]]
            for k in offered:
                if seat.get("waiting") != CONTROLS[k]:
                    self.note(f"offered:{k}", f"{k} shown while the seat waits for "
                              f"{seat.get('waiting')!r}")  # fmt: skip
            if offered or seat.get("over"):
                what = offered[0] if offered else "over"
                late = time.monotonic() - asked if asked is not None else 0.0
                if late > 2.0:  # the page showed the last throws first (it says so)
                    print(f"  ({what} offered {late:.1f} s after the seat waited for it)")
                self.waits.append((time.monotonic() - start, what, words))
                return state
            if not status.strip():
                self.note("silent", "the panel shows no words while the person waits")
            time.sleep(0.1)
        raise TimeoutError(f"nothing offered in {timeout} s; the panel said {words}")

    def click_at(self, x: float, y: float) -> None:
        """A click on the house at (x, y) metres."""
        a, b, width, height = self.page.evaluate(
            "([x, y]) => { const v = window.curlingView.current().views.house;"
            " const c = document.getElementById('house');"
            " return [...v.px(x, y), c.width, c.height]; }",
            [x, y],
        )  # canvas pixels, and the canvas's size: its box on the screen may be scaled
        box = self.page.locator("#house").bounding_box()
        x_px, y_px = box["x"] + a * box["width"] / width, box["y"] + b * box["height"] / height
        self.page.mouse.click(x_px, y_px)

    def throw(self, k: int) -> None:
        """Aim (a draw to a point of the house, or a takeout of their nearest stone) and throw."""
        geo = self.page.evaluate("window.curlingView.current().geo")
        tx, ty = geo["tee"]
        view = self.page.evaluate(VIEW)
        me = self.page.evaluate(PLAY)["seat"]["player"]
        theirs = [(s["x"], s["y"]) for s in view["stones"] if s["seat"] != me]
        theirs = [p for p in theirs if abs(p[1] - ty) < 2.5]
        takeout = k % 3 == 2 and theirs
        if takeout:
            x, y = min(theirs, key=lambda p: (p[0] - tx) ** 2 + (p[1] - ty) ** 2)
        else:
            spots = [(0, 0), (-0.6, 0.3), (0.5, -0.4), (0.0, 1.3), (-0.3, -0.8), (0.8, 0.6)]
            dx, dy = spots[k % len(spots)]
            x, y = tx + dx, ty + dy
        self.page.fill("#play-v", "")
        self.click_at(x, y)
        self.page.wait_for_function("document.getElementById('play-v').value !== ''")
        if takeout:
            v = float(self.page.input_value("#play-v"))
            self.page.fill("#play-v", f"{v + 1.2:.2f}")
        self.page.wait_for_timeout(300)  # the dashed path drawn, as a person looks at it
        if k == 0:
            self.page.wait_for_function(f"{PLAY}.preview > 0 && {PLAY}.aim !== null")
            self.page.screenshot(path=str(self.out / "aim.png"))
        self.page.click("#play-go")

    def sweep(self, k: int) -> None:
        """Sweep as a student might: hold the button, or a distance, or no, or let it pass."""
        how = ["hold", "distance", "no", "pass"][k % 4]
        if k == 0:
            self.page.screenshot(path=str(self.out / "sweep.png"))
        if how == "hold":
            self.page.hover("#play-hold")
            self.page.mouse.down()
            self.page.wait_for_timeout(700)
            self.page.mouse.up()
            self.swept.append((k, how, 1.4))
        elif how == "distance":
            self.page.fill("#play-distance", "3")
            self.page.click("#play-sweep-go")
            self.swept.append((k, how, 3.0))
        elif how == "no":
            self.page.click("#play-no-sweep")
        self.page.wait_for_function(f"!{PLAY}.sweepControls", timeout=30_000)


def echo(lines: Any) -> None:
    for line in lines:
        print("  " + line.rstrip(), flush=True)


def start_server(ends: int, log_dir: Path) -> tuple[subprocess.Popen[str], str]:
    """``curling server --http-port 0 --agent builtin``: the process and the play address."""
    command = [sys.executable, "-m", "rllib_curling.cli.curling", "server", "--tcp-port", "0",
               "--http-port", "0", "--agent", "builtin", "--ends", str(ends), "--log-dir",
               str(log_dir)]  # fmt: skip
    print("$ curling " + " ".join(command[4:]), flush=True)
    server = subprocess.Popen(command, cwd=ROOT, stderr=subprocess.PIPE, text=True)
    assert server.stderr is not None
    for line in server.stderr:
        print("  " + line.rstrip(), flush=True)
        found = re.search(r"play in the browser at (\S+)", line)
        if found:
            threading.Thread(target=echo, args=(server.stderr,)).start()  # one line a game
            return server, found.group(1)
    raise RuntimeError(f"curling server ended: {server.wait()}")


def play(page: Any, url: str, student: Student) -> None:
    page.goto(url)
    page.wait_for_function(f"{PLAY}.panel")
    student.look()
    page.screenshot(path=str(student.out / "start.png"))
    assert page.input_value("#play-opponent") == "builtin"
    page.fill("#play-name", "学生" if student.lang == "zh-CN" else "student")
    page.click("#play-start")
    k = 0
    while True:
        state = student.wait_for_turn()
        student.look()
        if state["seat"]["over"]:
            break
        if state["throwControls"]:
            print(f"throw {k + 1}: after {student.waits[-1][0]:.1f} s: {student.waits[-1][2]}")
            student.throw(k)
            k += 1
            page.wait_for_function(f"!{PLAY}.throwControls")
        elif state["sweepControls"]:
            student.sweep(k - 1)
        else:
            print(f"centre-line choice: {state['status']}")
            page.screenshot(path=str(student.out / "centerline.png"))
            page.click("#play-keep")
            page.wait_for_function(f"!{PLAY}.centerlineControls")
    page.wait_for_function(f"{VIEW}.finished && !{VIEW}.animating", timeout=60_000)
    page.wait_for_timeout(1000)
    student.look()
    page.screenshot(path=str(student.out / "over.png"))
    print(f"the panel: {page.inner_text('#play-status')}")
    print(f"the status: {page.evaluate(VIEW)['status']}")


def main() -> int:
    from playwright.sync_api import sync_playwright

    sys.path.insert(0, str(ROOT / "tests"))
    from web_helpers import CHROMIUM

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lang", default="zh-CN", help="the browser's language (default: zh-CN)")
    parser.add_argument("--ends", type=int, default=4, help="ends of the game (default: 4)")
    parser.add_argument("--out", type=Path, help="screenshots (default: test-artifacts/game-LANG)")
    args = parser.parse_args()
    out = args.out or ROOT / "test-artifacts" / f"game-{args.lang}"
    out.mkdir(parents=True, exist_ok=True)
    fonts = subprocess.run(["fc-list", ":lang=zh"], capture_output=True, text=True).stdout
    print(f"fonts with Chinese on this machine: {len(fonts.splitlines())}")
    log_dir = out / "records"
    log_dir.mkdir(exist_ok=True)
    for old in log_dir.glob("*.jsonl"):
        old.unlink()
    began = time.monotonic()
    server, url = start_server(args.ends, log_dir)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            viewport = {"width": 1280, "height": 1000}
            context = browser.new_context(locale=args.lang, viewport=viewport)
            page = context.new_page()
            page.on("pageerror", lambda exc: print(f"  !! error in the page: {exc}"))
            student = Student(page, args.lang, out)
            play(page, url, student)
            page.goto("about:blank")
            browser.close()
    finally:
        server.terminate()
        server.wait(30)
    minutes = (time.monotonic() - began) / 60
    (path,) = log_dir.glob("*.jsonl")
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    (game,) = [r for r in records if r["type"] == "game"]
    start = next(r for r in records if r["type"] == "game_start")
    me = start["kinds"].index("person")
    thrown = [r for r in records if r["type"] == "shot" and r["thrower"] == me]
    swept = [r for r in thrown if r.get("sweep", 0) > 0]
    longest = max(student.waits, key=lambda w: w[0])
    metres = ", ".join(f"{r['sweep']:.1f} m" for r in swept)
    print(f"\n{minutes:.1f} min; {len(thrown)} throws, {len(swept)} swept ({metres}); "
          f"game: {start['players']} {game['totals']} {game['reason']}")  # fmt: skip
    print(f"longest wait: {longest[0]:.1f} s for {longest[1]}, the panel said {longest[2]}")
    print(f"asked to sweep: {student.swept}")
    for text in student.found.values():
        print(f"to fix: {text}")
    return 1 if student.found else 0


if __name__ == "__main__":
    sys.exit(main())
