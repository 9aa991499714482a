"""Seats for people on the page (``server.people`` through ``web.desk``), at the HTTP level: a
whole game thrown and swept through the seat endpoints, recorded as any game, the running stone
reported in real time (its path the engine's, cut at the far hog line) and sweeps taken only
while it runs from mid-sheet to the hog line; a foul against the seat in its state (the
position as it lies) until it chooses; bad calls refused with a clear error while the
game goes on; the play line on the console. And ``RunningStone`` and ``PersonPlayer.sweep`` on
their own: the path's cut, the window's timing."""

from __future__ import annotations

import asyncio
import json
import math
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from server_helpers import RawClient, Transcript
from web_helpers import get_json, http, records_of, slow_bot_game

from rllib_curling import physics, sheet
from rllib_curling.server.people import PATH_STRIDE, PersonPlayer, RunningStone
from rllib_curling.server.web.desk import SeatRefused
from rllib_curling.server.web.events import TICK_S

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
    assert not seat["in_lobby"]  # against a level: its game starts, no lobby to wait in
    token, thrown, runs = seat["seat"], [], []
    while True:
        state = wait_for(web, token, {"throw", "sweep"})
        if state["over"]:
            break
        if state["waiting"] == "throw":
            # Two draws run past mid-sheet (swept, then not); the others stop short of it.
            v = 2.9 + 0.01 * len(thrown) if len(thrown) < 2 else 1.2
            throw = {"v": v, "h": -0.2, "w": 1.0}
            status, after = post(f"{web}api/seats/{token}/throw", throw)
            assert status == 200, after
            thrown.append(throw)
            if v > 2:  # the stone runs: too early to sweep, said in one line
                status, reply = post(f"{web}api/seats/{token}/sweep", {"distance": 1.0})
                assert status == 409 and "reaches mid-sheet in" in reply["error"], reply
        else:  # the stone is past mid-sheet and short of the hog line, in real time
            run = state["running"]
            assert len(state["mid"]) == 5 and run["index"] == 2 * len(runs)
            assert run["opens"] <= run["elapsed"] < run["closes"]
            assert state["seconds_left"] == pytest.approx(run["closes"] - run["elapsed"], abs=0.1)
            runs.append(run)
            distance = 0.0 if len(runs) > 1 else 2.5
            assert post(f"{web}api/seats/{token}/sweep", {"distance": distance})[0] == 200
    assert len(thrown) == 8 and len(runs) == 2
    records = records_of(tmp_path)
    (start,) = [r for r in records if r["type"] == "game_start"]
    assert start["players"][0] == "Ann" and start["kinds"] == ["person", "bot:2"]
    shots = [r for r in records if r["type"] == "shot" and r["thrower"] == 0]
    assert [s["throw_sent"] for s in shots] == [[t["v"], t["h"], t["w"]] for t in thrown]
    assert [s["sweep"] for s in shots][:1] == [2.5] and all(s["sweep"] == 0 for s in shots[1:])
    # The path the page was given is the engine's unswept path of the stone, up to the hog line.
    for run, shot in zip(runs, shots, strict=False):
        full = physics.simulate(
            np.array(shot["before"]), shot["shot"], shot["throw"][:3], seed=shot["seed"],
            trajectory_stride=PATH_STRIDE,
        ).trajectory[:, shot["shot"]]  # fmt: skip
        expected = RunningStone.of(full, PATH_STRIDE * TICK_S)
        np.testing.assert_allclose(run["path"], expected.path, atol=1e-3)
        assert run["stone"] == shot["shot"] and run["path"][-1][1] >= sheet.FAR_HOG_Y
    (game,) = [r for r in records if r["type"] == "game"]
    assert game["reason"] == "finished" and game["shots"] == 16
    assert get_json(f"{web}api/seats/{token}")["over"]


def _draw_path(v: float) -> np.ndarray:
    """The thrown stone's path of a draw of speed ``v`` on an empty sheet, a point every
    ``PATH_STRIDE`` ticks (as the match gives it to a person's seat)."""
    result = physics.simulate(np.zeros((16, 2)), 0, (v, 0.0, 1.57), seed=3,
                              trajectory_stride=PATH_STRIDE)  # fmt: skip
    assert result.trajectory is not None
    return result.trajectory[:, 0]


def test_running_stone__path_stops_at_the_far_hog_line_and_the_window_spans_mid_sheet_to_it() -> (
    None
):
    dt = PATH_STRIDE * TICK_S
    for v in (3.0, 6.0):  # a draw and a takeout: the page never sees where either stops
        full = _draw_path(v)
        run = RunningStone.of(full, dt)
        n = len(run.path)
        np.testing.assert_array_equal(run.path, full[:n])
        assert run.path[-1, 1] >= sheet.FAR_HOG_Y > full[n, 1] and len(full) > n + 10
        assert np.all(run.path[:, 1] >= sheet.FAR_HOG_Y)
        first_past_mid = int(np.argmax(full[:, 1] <= sheet.MIDSHEET_Y))
        assert run.opens == pytest.approx(first_past_mid * dt)
        assert run.closes == pytest.approx((n - 1) * dt)
        assert 2.0 < run.opens < run.closes < 15.0
    # A stone that stops between mid-sheet and the hog line: its path goes to its rest (it is
    # removed from play, but the path never shows the (0, 0) of a stone out of play).
    full = _draw_path(1.6)
    short = RunningStone.of(full, dt)
    assert full[-1].tolist() == [0.0, 0.0]  # removed from play once it stopped
    np.testing.assert_array_equal(short.path, full[:-1])
    assert sheet.FAR_HOG_Y < short.path[-1, 1] < sheet.MIDSHEET_Y
    assert short.opens < short.closes == pytest.approx((len(full) - 2) * dt)


def test_person_sweep__waits_in_real_time_from_mid_sheet_to_the_hog_line() -> None:
    # A made-up stone, fast (0.5 m a point): past mid-sheet at point 3, the hog line at 25.
    path = np.column_stack([np.full(40, 2.4), 23.0 - 0.5 * np.arange(40)])
    mid = np.array([2.4, 21.5, 0.0, -10.0, 1.0])
    run = RunningStone.of(path, PATH_STRIDE * TICK_S)
    assert run.opens == pytest.approx(0.15) and run.closes == pytest.approx(1.25)

    async def unanswered() -> None:
        person = PersonPlayer("Ann", 0, "token")
        person.next_shot = (4, 4)
        loop = asyncio.get_running_loop()
        start = loop.time()
        sweep = asyncio.create_task(person.sweep(mid, 1.0, path))
        await asyncio.sleep(0.05)
        state = person.running_state()
        assert state is not None and person.waiting is None and person.deadline is None
        assert state["index"] == 4 and state["stone"] == 4 and 0 < state["elapsed"] < 0.15
        with pytest.raises(SeatRefused, match=r"reaches mid-sheet in 0\.\d s: sweep then"):
            person.answer("sweep", 1.0)  # before mid-sheet
        while person.waiting != "sweep":
            await asyncio.sleep(0.01)
        opened = loop.time() - start
        assert person.deadline is not None
        assert person.deadline - start == pytest.approx(run.closes, abs=0.05)
        assert await sweep == 0.0  # nothing sent: no sweep, once the stone passed the hog line
        closed = loop.time() - start
        assert run.opens <= opened < run.opens + 0.2  # never before mid-sheet
        # asyncio runs a timer up to one tick of the clock early (15.6 ms on Windows)
        early = time.get_clock_info("monotonic").resolution
        assert run.closes <= closed + 0.01 + early < run.closes + 0.3
        assert person.running_state() is None and person.waiting is None

    async def answered() -> float:
        person = PersonPlayer("Ann", 0, "token")
        sweep = asyncio.create_task(person.sweep(mid, 1.0, path))
        while person.waiting != "sweep":
            await asyncio.sleep(0.01)
        person.answer("sweep", 2.5)
        with pytest.raises(SeatRefused, match="waits for nothing"):
            person.answer("sweep", 1.0)  # once a stone
        return await sweep

    asyncio.run(unanswered())
    assert asyncio.run(answered()) == 2.5


@pytest.mark.slow
def test_person__bad_calls_are_refused_and_the_game_goes_on(server: Any, tmp_path: Path) -> None:
    web = server.web_url
    status, reply = open_seat(web, key="wrong")
    assert status == 403 and reply["code"] == "wrongKey"  # the page says it in its language
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
    status, reply = post(f"{web}api/seats/{token}/sweep", {"distance": 1.0})
    assert status == 409 and "waits for throw, not a sweep" in reply["error"]  # not running
    assert post(f"{web}api/seats/{token}/throw", {"v": 3.0, "h": 0, "w": 0})[0] == 200
    status, reply = post(f"{web}api/seats/{token}/throw", {"v": 3.0, "h": 0, "w": 0})
    assert status == 409 and "waits for" in reply["error"]  # out of turn: the stone runs

    def flood(_: int) -> int:
        return post(f"{web}api/seats/{token}/throw", {"v": 3.0, "h": 0, "w": 0})[0]

    with ThreadPoolExecutor(max_workers=30) as pool:  # all at once: a slow (Wine) client floods too
        codes = list(pool.map(flood, range(30)))
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
    while not wait_for(web, token, {"throw"})["over"]:
        throw = {"v": 1.2, "h": 0.1, "w": -1.57}  # short of mid-sheet: no sweep to wait for
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


def test_person__a_foul_against_it_is_in_its_state_until_it_chooses(
    start_server: Any, fake_engine: None, tmp_path: Path
) -> None:
    # The person draws a centre guard; the client's draw lands on it and ticks it off the line
    # (the fake engine: ``server_helpers._fake_simulate``): the person answers RESET.
    server = start_server(http_port=0, ends=1, keys=(KEY,), log_dir=str(tmp_path),
                          centerline_timeout=30.0)  # fmt: skip
    web = server.web_url
    status, seat = open_seat(web, opponent="lobby")
    assert status == 200
    token = seat["seat"]
    guard = {"v": 2.22, "h": 0.0244, "w": 0.0}  # stops on the centre line at y = 8.0
    client = RawClient(server.address[1], KEY, name="ticker")
    box: dict[str, Transcript] = {}
    ticks = lambda t: "BESTSHOT 2.22 0.0244 0" if t.gos == 1 else "BESTSHOT 0.5 0 0"  # noqa: E731
    thread = threading.Thread(
        target=lambda: box.setdefault("t", client.play(ticks, stop_after_games=1))
    )
    thread.start()
    try:
        assert wait_for(web, token, {"throw"})["foul"] is None
        assert post(f"{web}api/seats/{token}/throw", guard)[0] == 200
        state = wait_for(web, token, {"centerline"})
        foul = state["foul"]
        assert foul["index"] == 1 and foul["first_seat"] == 0  # the client's shot, stone 1
        assert foul["position"][0] == pytest.approx([2.725, 8.0], abs=1e-3)  # ticked off
        assert foul["position"][1] == pytest.approx([2.375, 8.0], abs=1e-3)
        assert post(f"{web}api/seats/{token}/centerline", {"choice": "RESET"})[0] == 200
        while not (state := wait_for(web, token, {"throw"}))["over"]:
            assert state["foul"] is None  # answered: gone
            assert post(f"{web}api/seats/{token}/throw", {"v": 0.5, "h": 0, "w": 0})[0] == 200
        thread.join(30)
    finally:
        client.close()
    shots = [r for r in records_of(tmp_path) if r["type"] == "shot"]
    assert shots[1]["centerline_choice"] == "RESET" and shots[1]["centre_line_violation"]
    assert shots[1]["position"][0] == pytest.approx([2.375, 8.0], abs=1e-3)  # restored


def test_refusals__every_named_refusal_is_said_in_both_languages() -> None:
    import re

    from rllib_curling.server import people

    codes = set(
        re.findall(
            r'SeatRefused\(\s*\d+,\s*"[^"]*",\s*"(\w+)"',
            Path(people.__file__).read_text(encoding="utf-8"),
        )
    )
    assert codes == {"attempts", "wrongKey", "lobbyFull", "busy"}
    i18n = (Path(people.__file__).parent / "web" / "static" / "i18n.js").read_text(encoding="utf-8")
    for code in codes:
        assert i18n.count(f'"server.{code}":') == 2, code  # English and Chinese
