"""The page in a real headless browser: Debian's Chromium driven by ``playwright`` (its own
browser downloads are never used). A live game watched to its final score, ``curling replay``,
and a record file opened from the page; each compared with the game records, each leaving a
screenshot in ``test-artifacts/``. Chromium and playwright missing make these tests fail (CI
installs both: ``.ci/run``)."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from server_helpers import CTRL_C_CHILD, stop_and_reap
from web_helpers import DONE, records_of, shoot, slow_bot_game

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]
pytest_plugins = ("server_fixtures", "browser_fixtures")  # start_server; browser, page


def check_final(page: Any, records: list[dict[str, Any]]) -> dict[str, Any]:
    """The page shows the recorded game's end: score, scoreboard, every stone where it lies."""
    state = page.evaluate("window.curlingView.state()")
    (game,) = [r for r in records if r["type"] == "game"]
    shots = [r for r in records if r["type"] == "shot"]
    assert state["shots"] == len(shots) and state["totals"] == game["totals"]
    assert state["endScores"] == game["end_scores"]
    names = game["players"]
    rows = state["scoreboard"].split("\n")
    for seat in (0, 1):
        per_end = [str(s[seat]) for s in game["end_scores"]]
        assert rows[seat + 1].split("\t") == [names[seat], *per_end, str(game["totals"][seat])]
    assert state["status"].startswith(f"Final: {names[0]} {game['totals'][0]} – ")
    final = shots[-1]["position"]
    in_play = {k: xy for k, xy in enumerate(final) if xy != [0.0, 0.0]}
    drawn = {s["k"]: s for s in state["stones"]}
    assert set(drawn) == set(in_play) and in_play
    first = shots[-1]["thrower"] if shots[-1]["shot"] % 2 == 0 else 1 - shots[-1]["thrower"]
    scale = page.evaluate("document.getElementById('house').width") / 4.75
    for k, (x, y) in in_play.items():
        stone = drawn[k]
        assert (stone["x"], stone["y"]) == (x, y)
        assert stone["seat"] == (first if k % 2 == 0 else 1 - first)
        assert abs(stone["px"] - x * scale) < 1e-6  # drawn to scale on the canvas
    return state


def test_live_page__shows_a_bot_game_to_its_final_score(
    page: Any, start_server: Any, tmp_path: Path
) -> None:
    server = start_server(http_port=0, ends=2, log_dir=str(tmp_path), seed=5)
    page.goto(server.web_url + "?speed=64")
    page.wait_for_function("window.curlingView && window.curlingView.state().mode === 'live'")
    assert not page.locator("#playback").is_visible()  # nothing to play back before a game
    thread, box = slow_bot_game(server.address[1], delay=0.15)  # about 5 s of play
    page.wait_for_function(
        "window.curlingView.state().gameId !== null && !window.curlingView.state().over",
        timeout=30_000,
    )  # the page picked the game while it is played
    assert page.locator("#playback").is_visible()
    page.wait_for_function(DONE, timeout=90_000)
    thread.join(30)
    state = check_final(page, records_of(tmp_path))
    assert list(box["t"].totals[-1]) == state["totals"]
    assert page.locator("#games li").count() == 1
    shoot(page, "web-live.png")


def test_replay_page__plays_a_record_back_with_step_and_seek(
    page: Any, start_server: Any, tmp_path: Path
) -> None:
    server = start_server(ends=2, log_dir=str(tmp_path), seed=11)
    thread, _ = slow_bot_game(server.address[1], delay=0.0)
    thread.join(60)
    (record,) = tmp_path.glob("*.jsonl")
    cmd = [sys.executable, "-m", "rllib_curling", "replay", str(record), "--game", "1"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, **CTRL_C_CHILD)
    try:
        assert proc.stdout is not None
        url = re.search(r"(http://127\.0\.0\.1:\d+/)", proc.stdout.readline())
        assert url
        page.goto(url.group(1) + "?speed=64")
        page.wait_for_function(DONE, timeout=90_000)
        records = records_of(tmp_path)
        check_final(page, records)
        shoot(page, "web-replay.png")
        shots = [r for r in records if r["type"] == "shot"]
        page.click("#back")
        state = page.evaluate("window.curlingView.state()")
        assert state["shown"] == len(shots) - 1 and state["position"] == shots[-2]["position"]
        page.fill("#seek", "0")
        page.dispatch_event("#seek", "input")
        # ``stones`` are those of the last frame drawn: the sheet is redrawn at the next one.
        page.wait_for_function("window.curlingView.state().stones.length === 0", timeout=10_000)
        assert page.evaluate("window.curlingView.state()")["shown"] == 0
        page.click("#step")
        page.wait_for_function("!window.curlingView.state().animating")
        state = page.evaluate("window.curlingView.state()")
        assert state["shown"] == 1 and state["position"] == shots[0]["position"]
    finally:
        stopped = stop_and_reap(proc, signal.SIGINT)
    assert stopped.clean, stopped.stderr[-2000:]


def test_page__opens_a_record_file_itself(page: Any, start_server: Any, tmp_path: Path) -> None:
    server = start_server(http_port=0, ends=1, log_dir=str(tmp_path), seed=3)
    thread, _ = slow_bot_game(server.address[1], delay=0.0)
    thread.join(60)
    (record,) = tmp_path.glob("*.jsonl")
    page.goto(server.web_url + "?speed=64&follow=0")
    page.wait_for_function("window.curlingView && window.curlingView.state().games.length === 1")
    page.set_input_files("#file", str(record))
    page.wait_for_function("window.curlingView.state().local.length === 1")
    page.wait_for_function(DONE, timeout=90_000)
    state = check_final(page, records_of(tmp_path))
    assert state["gameId"] == f"file:{record.name}:0"
    shoot(page, "web-file.png")
