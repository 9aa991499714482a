"""Take the README's screenshots of playing on the page (a person on the page of a real server,
in Debian's headless Chromium): ``docs/play.png`` against level 3 (four stones in, aiming the
next one), ``docs/play-agent.png`` against the shipped agent (its view after its first stones),
and the moment the sweep is offered, the person's stone running on the house view toward the
agent's first stone: ``docs/play-sweep.png`` (English, README.md) and
``docs/play-sweep.zh-CN.png`` (a browser whose language is Chinese, README.zh-CN.md).

    python docs/make_play_screenshots.py   (needs `apt-get install chromium fonts-noto-cjk`,
                                            playwright and the rl extra)
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLAY = "window.curlingPlay.state()"
VIEW = "window.curlingView.state()"


def play(page: object, url: str, opponent: str, throws: int, out: Path) -> None:
    """Take a seat against ``opponent``, throw ``throws`` stones, aim one more, screenshot."""
    page.goto(f"{url}&opponent={opponent}&speed=8")  # type: ignore[attr-defined]
    page.wait_for_function(f"{PLAY}.panel")  # type: ignore[attr-defined]
    page.fill("#play-name", "课程样例")  # type: ignore[attr-defined]
    page.click("#play-start")  # type: ignore[attr-defined]
    house = page.locator("#house").bounding_box()  # type: ignore[attr-defined]
    for k in range(throws + 1):
        page.wait_for_function(f"{PLAY}.throwControls", timeout=120_000)  # type: ignore
        page.fill("#play-v", "")  # type: ignore[attr-defined]
        x = house["x"] + house["width"] * (0.40 + 0.04 * (k % 3))
        page.mouse.click(x, house["y"] + house["height"] * (0.2 + 0.03 * k))  # type: ignore
        page.wait_for_function("document.getElementById('play-v').value !== ''")  # type: ignore
        if k == throws:
            break
        page.click("#play-go")  # type: ignore[attr-defined]
        # The stone runs in real time: the sweep is offered once it is past mid-sheet.
        page.wait_for_function(f"{PLAY}.sweepControls", timeout=30_000)  # type: ignore
        page.click("#play-no-sweep")  # type: ignore[attr-defined]
    page.wait_for_function(f"{PLAY}.preview > 0")  # type: ignore[attr-defined]
    page.wait_for_timeout(1500)  # type: ignore[attr-defined]  # the last shot drawn at rest
    page.screenshot(path=str(out))  # type: ignore[attr-defined]
    resign(page)
    print(f"wrote {out}")


def sweep(page: object, url: str, out: Path) -> None:
    """Against the agent: aim at the button, throw, and screenshot the sweep prompt when the
    stone runs into the house's view (down to the house view's bottom)."""
    page.goto(f"{url}&opponent=builtin")  # type: ignore[attr-defined]
    page.wait_for_function(f"{PLAY}.panel")  # type: ignore[attr-defined]
    page.fill("#play-name", "课程样例")  # type: ignore[attr-defined]
    page.click("#play-start")  # type: ignore[attr-defined]
    page.wait_for_function(f"{PLAY}.throwControls", timeout=120_000)  # type: ignore
    house = page.locator("#house").bounding_box()  # type: ignore[attr-defined]
    page.mouse.click(house["x"] + house["width"] * 0.52, house["y"] + house["height"] * 0.36)  # type: ignore
    page.wait_for_function(f"{PLAY}.preview > 0")  # type: ignore[attr-defined]
    page.click("#play-go")  # type: ignore[attr-defined]
    # The house comes into the view that follows the stone some 3 m before the hog line.
    near = f"{PLAY}.sweepControls && {VIEW}.own && {VIEW}.own.y < 13.8"
    page.wait_for_function(near, timeout=30_000, polling="raf")  # type: ignore[attr-defined]
    width = page.viewport_size["width"]  # type: ignore[attr-defined]
    clip = {"x": 0, "y": 0, "width": width, "height": house["y"] + house["height"] + 12}
    page.screenshot(path=str(out), clip=clip)  # type: ignore[attr-defined]
    assert page.evaluate(f"{PLAY}.sweepControls"), "the prompt was gone: take it again"  # type: ignore
    page.click("#play-no-sweep")  # type: ignore[attr-defined]
    resign(page)
    print(f"wrote {out}")


def resign(page: object) -> None:
    """Resign (two clicks: the first asks) and wait for the game to end."""
    page.click("#play-resign")  # type: ignore[attr-defined]
    page.click("#play-resign")  # type: ignore[attr-defined]
    page.wait_for_function(f"{PLAY}.seat.over", timeout=30_000)  # type: ignore[attr-defined]


def main() -> None:
    from playwright.sync_api import sync_playwright

    sys.path.insert(0, str(ROOT / "tests"))
    from web_helpers import CHROMIUM

    from rllib_curling.cli.commands.server import agent_factories
    from rllib_curling.server import start_server_thread
    from rllib_curling.server.config import ServerConfig

    config = ServerConfig(tcp_port=0, http_port=0, seed=2026, ends=2, bot_seat=0)
    server = start_server_thread(config, agents=agent_factories(["builtin"]))
    try:
        url = f"{server.web_url}?key={server.play_key}"
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            page = browser.new_context(viewport={"width": 1280, "height": 1000}).new_page()
            play(page, url, "3", 4, ROOT / "docs" / "play.png")
            page = browser.new_context(viewport={"width": 1280, "height": 1000}).new_page()
            play(page, url, "builtin", 3, ROOT / "docs" / "play-agent.png")
            for lang, name in [("en-US", "play-sweep.png"), ("zh-CN", "play-sweep.zh-CN.png")]:
                context = browser.new_context(locale=lang, viewport={"width": 1024, "height": 860})
                sweep(context.new_page(), url, ROOT / "docs" / name)
            browser.close()
    finally:
        server.stop()


if __name__ == "__main__":
    main()
