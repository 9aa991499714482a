"""The Digital Curling watch page in a real headless browser (Debian's Chromium through
``playwright``; its own browser downloads are never used): opened on a DC4 server before a
1-end match of two level-2 DC bots, it follows the match to its end and draws every stone in
play where the final state puts it, with the score (a screenshot goes to
``test-artifacts/dc-watch.png``); and the records of such a match replayed on it, in Chinese,
stepped from the first state."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dc_watch_helpers import start_match
from web_helpers import shoot

from rllib_curling.server.dc4.config import DC4ServerConfig
from rllib_curling.server.dc4.runner import DC4Handle
from rllib_curling.server.dc_watch.http import WatchHandle
from rllib_curling.server.dc_watch.page import WatchPage
from rllib_curling.server.dc_watch.replay import read_dc_games
from rllib_curling.server.records import read_records

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]
pytest_plugins = ("browser_fixtures",)  # browser, page


@pytest.fixture
def dc4(tmp_path: Path) -> Iterator[DC4Handle]:
    handle = DC4Handle(DC4ServerConfig(port=0, seed=5, log_dir=str(tmp_path), ping_interval=0.5))
    yield handle
    handle.stop()


def test_dc_watch_page__draws_a_live_dc4_match_to_its_score(
    page: Any, dc4: DC4Handle, tmp_path: Path
) -> None:
    page.goto(dc4.url + "/?lang=en")
    page.wait_for_function("window.dcWatch && window.dcWatch.state().mode === 'live'")
    match_id, threads, _ = start_match(dc4)
    page.wait_for_function(
        "(() => { const s = window.dcWatch.state(); return s.state && s.state.winner_team; })()",
        timeout=90_000,
    )
    for thread in threads:
        thread.join(60)
    view = page.evaluate("window.dcWatch.state()")
    (game,) = [r for r in read_records(next(tmp_path.glob("*.jsonl"))) if r["type"] == "dc4_game"]
    assert view["matchId"] == match_id and view["state"]["score"] == game["score"]
    data = view["state"]["stone_coordinate"]["data"]
    points = [(p["x"], p["y"]) for t in ("team0", "team1") for p in data[t]]
    in_play = [xy for xy in points if xy != (0, 0)]
    assert in_play and len(view["stones"]) == len(in_play)
    width = page.evaluate("document.getElementById('house').width")
    scale = width / 4.75
    for stone in view["stones"]:  # drawn to scale at the DC point mapped to the drawing frame
        x, y = stone["x"] - 4.75 / 2, 43.892 - stone["y"]
        assert min(abs(x - a) + abs(y - b) for a, b in in_play) < 1e-9
        assert abs(stone["px"] - stone["x"] * scale) < 1e-6
    rows = view["scoreboard"].split("\n")
    assert rows[1].split("\t") == ["alpha", *map(str, game["score"]["team0"][:1]),
                                   str(sum(game["score"]["team0"]))]  # fmt: skip
    assert rows[2].split("\t")[0] == "beta"
    totals = [sum(game["score"][t]) for t in ("team0", "team1")]
    assert view["status"].startswith(f"Final: alpha {totals[0]} – {totals[1]} beta")
    shoot(page, "dc-watch.png")
    page.goto("about:blank")  # the stream closes before the server stops


def test_dc_watch_page__replays_dc_records_step_by_step(
    page: Any, dc4: DC4Handle, tmp_path: Path
) -> None:
    _, threads, _ = start_match(dc4)
    for thread in threads:
        thread.join(60)
    dc4.stop()
    (game,) = read_dc_games(next(tmp_path.glob("*.jsonl")))
    with WatchHandle(WatchPage("replay", lambda: [game], title="dc4.jsonl")) as handle:
        page.goto(handle.url + "?lang=zh-CN")
        page.wait_for_function("window.dcWatch && window.dcWatch.state().states === 17")
        final = page.evaluate("window.dcWatch.state()")
        assert final["shown"] == 16 and final["status"].startswith("终局：alpha ")
        assert final["state"]["score"] == game["states"][-1]["score"]
        page.click("#first")
        assert page.evaluate("window.dcWatch.state()")["stones"] == []
        page.click("#step")
        one = page.evaluate("window.dcWatch.state()")
        assert one["shown"] == 1 and len(one["stones"]) <= 1
        assert one["status"].startswith("第 1 局") and "轮到 beta" in one["status"]
        page.goto("about:blank")
