"""Seats for people on the page (``server.people`` through ``web.desk``), at the HTTP level: a
whole game thrown and swept through the seat endpoints, recorded as any game; bad calls refused
with a clear error while the game goes on; the play line on the console."""

from __future__ import annotations

import json
import math
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from server_helpers import RawClient, Transcript
from web_helpers import get_json, http, records_of, slow_bot_game

from rllib_curling import sheet

pytestmark = pytest.mark.timeout(120)
pytest_plugins = ("server_fixtures",)  # fixtures: start_server

KEY = "classkey"


@pytest.fixture
def server(start_server: Any, tmp_path: Path) -> Any:
    """A server with the page and a key, 1-end games, records in ``tmp_path``."""
    return start_server(http_port=0, seed=5, ends=1, keys=(KEY,), log_dir=str(tmp_path),
                        sweep_window=1.0)  # fmt: skip


def post(url: str, body: Any) -> tuple[int, dict[str, Any]]:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    status, _, payload = http(url, "POST", raw)
    return status, json.loads(payload)


def open_seat(web_url: str, opponent: str = "2", key: str = KEY) -> tuple[int, dict[str, Any]]:
    return post(web_url + "api/play", {"key": key, "opponent": opponent, "name": "Ann"})


def wait_for(web_url: str, token: str, waiting: set[str | None], timeout: float = 30.0) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = get_json(f"{web_url}api/seats/{token}")
        if state["waiting"] in waiting or state["over"]:
            return state
        time.sleep(0.02)
    raise AssertionError(f"seat never waited for {waiting}: {state}")


def test_person__plays_a_whole_game_throws_and_a_sweep_recorded(
    server: Any, tmp_path: Path
) -> None:
    web = server.web_url
    options = get_json(web + "api/play")
    assert options == {
        "levels": [1, 2, 3, 4, 5, 6, 7, 8], "agents": [], "lobby": True,
        "sweep_max": sheet.SWEEP_MAX,  # the page's sweep controls stop there
    }  # fmt: skip
    status, seat = open_seat(web)
    assert status == 200 and seat["player"] == 0  # the bot sits in seat 2, as for TCP clients
    token, thrown, swept = seat["seat"], [], False
    while True:
        state = wait_for(web, token, {"throw", "sweep"})
        if state["over"]:
            break
        if state["waiting"] == "throw":
            throw = {"v": 2.9 + 0.01 * len(thrown), "h": -0.2, "w": 1.0}
            status, after = post(f"{web}api/seats/{token}/throw", throw)
            assert status == 200, after
            thrown.append(throw)
        else:  # the stone crossed mid-sheet: sweep the first one, not the others
            assert len(state["mid"]) == 5 and 0 < state["seconds_left"] <= 5.0
            status, _ = post(f"{web}api/seats/{token}/sweep", {"distance": 0.0 if swept else 2.5})
            assert status == 200
            swept = True
    assert len(thrown) == 8 and swept
    records = records_of(tmp_path)
    (start,) = [r for r in records if r["type"] == "game_start"]
    assert start["players"][0] == "Ann" and start["kinds"] == ["person", "bot:2"]
    shots = [r for r in records if r["type"] == "shot" and r["thrower"] == 0]
    assert [s["throw_sent"] for s in shots] == [[t["v"], t["h"], t["w"]] for t in thrown]
    assert [s["sweep"] for s in shots][:1] == [2.5] and all(s["sweep"] == 0 for s in shots[1:])
    (game,) = [r for r in records if r["type"] == "game"]
    assert game["reason"] == "finished" and game["shots"] == 16
    assert get_json(f"{web}api/seats/{token}")["over"]


@pytest.mark.slow
def test_person__bad_calls_are_refused_and_the_game_goes_on(server: Any, tmp_path: Path) -> None:
    web = server.web_url
    assert open_seat(web, key="wrong")[0] == 403
    status, reply = open_seat(web, opponent="9")
    assert status == 400 and "no opponent '9'" in reply["error"]
    status, seat = open_seat(web)
    token = seat["seat"]
    assert post(f"{web}api/seats/not-a-token/throw", {"v": 3, "h": 0, "w": 0})[0] == 404
    wait_for(web, token, {"throw"})
    for bad in ({"v": math.nan, "h": 0, "w": 0}, {"v": "3", "h": 0, "w": 0}, {"h": 0, "w": 0}):
        status, reply = post(f"{web}api/seats/{token}/throw", bad)
        assert status == 400 and "finite number" in reply["error"], reply
    assert post(f"{web}api/seats/{token}/throw", b"{not json")[0] == 400
    assert post(f"{web}api/seats/{token}/sweep", {"distance": 1.0})[0] == 409  # not running
    assert post(f"{web}api/seats/{token}/throw", {"v": 3.0, "h": 0, "w": 0})[0] == 200
    status, reply = post(f"{web}api/seats/{token}/throw", {"v": 3.0, "h": 0, "w": 0})
    assert status == 409 and "waits for" in reply["error"]  # out of turn: the stone runs
    codes = [post(f"{web}api/seats/{token}/throw", {"v": 3.0, "h": 0, "w": 0})[0]
             for _ in range(30)]  # fmt: skip
    assert 429 in codes  # a flood is cut off; the seat still plays
    time.sleep(1.1)
    state = wait_for(web, token, {"throw"})  # the game went on: the person's next turn
    assert not state["over"]
    assert post(f"{web}api/seats/{token}/resign", {})[0] == 200
    deadline = time.monotonic() + 10
    while not (game := [r for r in records_of(tmp_path) if r["type"] == "game"]):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert game[0]["reason"] == "resign" and game[0]["results"] == ["LOSE", "WIN"]  # its own reason


def test_person__in_the_lobby_plays_the_next_tcp_client(server: Any, tmp_path: Path) -> None:
    web = server.web_url
    status, seat = open_seat(web, opponent="lobby")
    assert status == 200 and seat["in_lobby"] and seat["game_id"] is None
    thread, box = slow_bot_game(server.address[1], delay=0.0, key=KEY)  # no :N: the lobby
    token = seat["seat"]
    while not (state := wait_for(web, token, {"throw", "sweep"}))["over"]:
        if state["waiting"] == "sweep":
            assert post(f"{web}api/seats/{token}/sweep", {"distance": 0})[0] == 200
        else:
            throw = {"v": 3.0, "h": 0.1, "w": -1.57}
            assert post(f"{web}api/seats/{token}/throw", throw)[0] == 200
    thread.join(30)
    (start,) = [r for r in records_of(tmp_path) if r["type"] == "game_start"]
    assert start["players"] == ["Ann", "watched"] and start["kinds"] == ["person", "remote"]
    (game,) = [r for r in records_of(tmp_path) if r["type"] == "game"]
    assert game["reason"] == "finished" and game["shots"] == 16
    assert list(box["t"].totals[-1]) == game["totals"]


def test_person__in_the_lobby_joins_the_room_where_a_tcp_client_waits(
    start_server: Any, tmp_path: Path
) -> None:
    server = start_server(http_port=0, seed=5, ends=1, keys=(KEY,), log_dir=str(tmp_path),
                          ports=2)  # fmt: skip
    client = RawClient(server.addresses[1][1], KEY, name="room1")  # room 1's port, no :N
    assert client.wait_for_seat() == 0  # waits in room 1's lobby
    box: dict[str, Transcript] = {}
    thread = threading.Thread(target=lambda: box.setdefault("t", client.play()))
    thread.start()
    try:
        status, seat = open_seat(server.web_url, opponent="lobby")
        assert status == 200
        token = seat["seat"]
        while not wait_for(server.web_url, token, {"throw"})["over"]:
            throw = {"v": 3.0, "h": 0.1, "w": -1.57}
            assert post(f"{server.web_url}api/seats/{token}/throw", throw)[0] == 200
        thread.join(30)
    finally:
        client.close()
    assert box["t"].results and box["t"].closed_by_empties  # the client played the person
    (start,) = [r for r in records_of(tmp_path) if r["type"] == "game_start"]
    assert start["players"] == ["room1", "Ann"] and start["kinds"] == ["remote", "person"]
    assert "-r1-" in start["game_id"]  # room 1's game


def test_person__a_page_without_seats_refuses_them() -> None:
    from rllib_curling.server.web import WatchHub, WebHandle

    handle = WebHandle(WatchHub())
    try:
        status, _, body = http(handle.url + "api/play", "POST", b"{}")
        assert status == 404 and b"offers no seats" in body
    finally:
        handle.stop()
