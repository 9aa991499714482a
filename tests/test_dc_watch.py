"""The Digital Curling watch page over HTTP (``server.dc_watch``): the DC4 server serves the page,
its files and the DC sheet from ``dc_sheet``; its match list and the viewer stream follow a real
1-end match of two level-2 DC bots; the DC3 server's ``http_port`` serves the same page with
a stream per game; a DC records file becomes the states the page replays, and
``WatchServer`` serves them."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from dc_watch_helpers import start_match
from web_helpers import SSEClient, get_json, http

from rllib_curling import dc_sheet
from rllib_curling.dc_bots.levels import make_dc_bot
from rllib_curling.dc_client import DC3Client
from rllib_curling.dc_rules import to_teams
from rllib_curling.server.dc3.config import DC3ServerConfig
from rllib_curling.server.dc3.runner import DC3Handle
from rllib_curling.server.dc4.config import DC4ServerConfig
from rllib_curling.server.dc4.runner import DC4Handle
from rllib_curling.server.dc_watch.http import WatchHandle
from rllib_curling.server.dc_watch.page import WatchPage
from rllib_curling.server.dc_watch.replay import games_of, read_dc_games
from rllib_curling.server.records import read_records

pytestmark = [pytest.mark.timeout(180)]


@pytest.fixture
def dc4(tmp_path: Path) -> Iterator[DC4Handle]:
    handle = DC4Handle(DC4ServerConfig(port=0, seed=5, log_dir=str(tmp_path), ping_interval=0.5))
    yield handle
    handle.stop()


def test_dc4_watch__serves_the_page_its_files_and_the_dc_sheet(dc4: DC4Handle) -> None:
    status, headers, body = http(dc4.url + "/")
    assert status == 200 and headers["content-type"].startswith("text/html")
    assert b"/watch/static/watch.js" in body and b"/watch/static/sheet.js" in body
    for name in ("watch.js", "sheet.js", "game.js", "i18n.js", "style.css"):
        assert http(f"{dc4.url}/watch/static/{name}")[0] == 200, name
    assert http(dc4.url + "/watch/static/app.js")[0] == 404  # the platform page's app is not here
    geo = get_json(dc4.url + "/watch/api/sheet")
    far = dc_sheet.BACK_BOARD_Y
    assert geo["frame"] == {"x0": dc_sheet.SIDE_X, "y0": far}
    assert geo["tee"] == [dc_sheet.SIDE_X, far - dc_sheet.TEE_Y]
    assert geo["hog_line_y"] == far - dc_sheet.HOG_Y and geo["width"] == dc_sheet.SHEET_WIDTH
    assert geo["house_score_radius"] == dc_sheet.HOUSE_SCORE_RADIUS
    assert get_json(dc4.url + "/watch/api/info") == {
        "mode": "live", "title": "DC4", "stream": "/matches/{match_id}/viewer", "first": None,
    }  # fmt: skip
    assert get_json(dc4.url + "/watch/api/matches") == []


def test_dc4_watch__the_list_and_the_viewer_stream_follow_a_match(
    dc4: DC4Handle, tmp_path: Path
) -> None:
    match_id, threads, results = start_match(dc4)
    viewer = SSEClient(f"{dc4.url}/matches/{match_id}/viewer")  # open during the match
    try:
        assert viewer.content_type.startswith("text/event-stream")
        deadline = time.monotonic() + 60
        while not any(d.get("winner_team") for _, _, d in viewer.events):
            assert time.monotonic() < deadline, "no state with the winner in 60 s"
            seen, viewer.events = viewer.events, []  # read_until stops at a type seen before
            viewer.read_until("latest_state_update", timeout=60)
            viewer.events = seen + viewer.events
        for thread in threads:
            thread.join(60)
    finally:
        viewer.close()
    shots = {d["total_shot_number"] for _, _, d in viewer.events}
    assert {1, 16} <= shots  # states after shots arrived on the stream
    (summary,) = get_json(dc4.url + "/watch/api/matches")
    assert summary["id"] == match_id and summary["teams"] == ["alpha", "beta"]
    assert summary["over"] and summary["ends"] == 1
    (game,) = [r for r in read_records(next(tmp_path.glob("*.jsonl"))) if r["type"] == "dc4_game"]
    assert summary["winner"] == game["winner"]
    final = next(d for _, _, d in viewer.events if d.get("winner_team"))
    assert final["score"] == game["score"] and final["winner_team"] == game["winner"]
    assert results["alpha"].scores == game["score"]


def test_read_dc_games__a_dc4_record_becomes_the_states_shot_by_shot(
    dc4: DC4Handle, tmp_path: Path
) -> None:
    match_id, threads, _ = start_match(dc4)
    for thread in threads:
        thread.join(60)
    dc4.stop()
    path = next(tmp_path.glob("*.jsonl"))
    records = read_records(path)
    shots = [r for r in records if r["type"] == "dc4_shot"]
    (game_record,) = [r for r in records if r["type"] == "dc4_game"]
    (game,) = read_dc_games(path)
    assert game["id"] == match_id and game["teams"] == ["alpha", "beta"]
    states = game["states"]
    assert len(states) == len(shots) + 1 == 17
    assert all(p == {"x": 0.0, "y": 0.0} for t in ("team0", "team1")
               for p in states[0]["stone_coordinate"]["data"][t])  # fmt: skip
    assert [s["total_shot_number"] for s in states] == list(range(17))
    last = shots[-1]
    first = 0 if (last["team"] == "team0") == (last["shot"] % 2 == 0) else 1
    t0, t1 = to_teams(np.asarray(last["position"]), first)
    final = states[-1]
    for team, rows in (("team0", t0), ("team1", t1)):
        assert [[p["x"], p["y"]] for p in final["stone_coordinate"]["data"][team]] == rows.tolist()
    assert final["score"] == game_record["score"] and final["winner_team"] == game_record["winner"]
    assert final["next_shot_team"] is None and states[5]["next_shot_team"] in ("team0", "team1")
    assert games_of([r for r in records if not r["type"].startswith("dc4")]) == []


def test_watch_server__replays_dc_records_over_http(tmp_path: Path) -> None:
    record = {"type": "dc3_match", "game_id": "g1", "game": {"setting": {
        "max_end": 1, "thinking_time": {"team0": 10.0, "team1": 10.0},
        "extra_end_thinking_time": {"team0": 5.0, "team1": 5.0}}}}  # fmt: skip
    shot = {"type": "dc3_shot", "game_id": "g1", "end": 0, "shot": 0, "team": "team0",
            "thrown": [0.1, 2.3, 1.0], "seconds": 2.5, "end_score": None,
            "position": [[0.2, 38.0]] + [[0.0, 0.0]] * 15}  # fmt: skip
    games = games_of([record, {"type": "dc3_team", "game_id": "g1", "team": "team0",
                               "name": "red"}, shot])  # fmt: skip
    with WatchHandle(WatchPage("replay", lambda: games, title="x.jsonl", first="g1")) as handle:
        (game,) = get_json(handle.url + "watch/api/matches")
        assert get_json(handle.url + "watch/api/info")["mode"] == "replay"
        assert http(handle.url + "watch/api/nothing")[0] == 404
        assert http(handle.url + "watch/api/info", method="POST")[0] == 405
    after = game["states"][-1]
    assert game["teams"] == ["red", None] and after["next_shot_team"] == "team1"
    assert after["stone_coordinate"]["data"]["team0"][0] == {"x": 0.2, "y": 38.0}
    assert after["first_team_remaining_time"] == 7.5 and after["second_team_remaining_time"] == 10


def test_dc3_watch__http_port_serves_the_page_and_each_game_s_stream(tmp_path: Path) -> None:
    config = DC3ServerConfig(ports=(0, 0), seed=7, log_dir=str(tmp_path), ends=1,
                             thinking_time=60.0, http_port=0, games=0)  # fmt: skip
    with DC3Handle(config) as handle:
        assert handle.server is not None and handle.server.watch is not None
        url = handle.server.watch.url
        assert http(url)[0] == 200
        assert get_json(url + "watch/api/info")["stream"] == "/watch/api/stream/{match_id}"
        (waiting,) = get_json(url + "watch/api/matches")
        assert not waiting["started"] and http(url + "watch/api/stream/nope")[0] == 404
        stream = SSEClient(url + f"watch/api/stream/{waiting['id']}")  # before the game
        threads = [
            threading.Thread(target=lambda p=p, n=n: DC3Client("127.0.0.1", p, name=n,
                             timeout=60).play(make_dc_bot(2).choose), daemon=True)
            for p, n in zip(handle.ports, ("red", "yellow"), strict=True)
        ]  # fmt: skip
        for thread in threads:
            thread.start()
        try:
            deadline = time.monotonic() + 60
            while not any(d.get("winner_team") for _, _, d in stream.events):
                assert time.monotonic() < deadline, "no state with the winner in 60 s"
                seen, stream.events = stream.events, []
                stream.read_until("latest_state_update", timeout=60)
                stream.events = seen + stream.events
        finally:
            stream.close()
        for thread in threads:
            thread.join(60)
        summary, following = get_json(url + "watch/api/matches")  # games=0: the next one waits
    assert not following["started"]
    (game,) = [r for r in read_records(next(tmp_path.glob("*.jsonl"))) if r["type"] == "dc3_game"]
    assert summary["teams"] == ["red", "yellow"] and summary["over"]
    assert summary["winner"] == game["winner"]
    states = [d for _, _, d in stream.events]
    assert [s["total_shot_number"] for s in states] == list(range(17))  # the end's last too
    final = states[-1]
    assert final["winner_team"] == game["winner"]
    assert [final["score"][t][0] for t in ("team0", "team1")] == game["end_scores"][0]
    shots = [r for r in read_records(next(tmp_path.glob("*.jsonl"))) if r["type"] == "dc3_shot"]
    in_play = [p for t in ("team0", "team1") for p in final["stone_coordinate"]["data"][t]
               if p != {"x": 0.0, "y": 0.0}]  # fmt: skip
    assert len(in_play) == sum(xy != [0.0, 0.0] for xy in shots[-1]["position"])
