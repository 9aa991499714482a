"""Tests of the curling server over TCP: whole games, seats, legacy clients, our own client.

Every server binds 127.0.0.1 on a port chosen by the OS and is stopped by its test. Physics and
bots are the real ones.
"""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

import pytest
from server_helpers import RawClient, Transcript, check_game_order, play_pair, wait_until

from rllib_curling.client import CurlingClient

pytestmark = pytest.mark.timeout(60)
pytest_plugins = ("server_fixtures",)  # fixtures: fake_engine, start_server


def test_server__builds_the_bots_tables_before_it_announces_its_ports(start_server: Any) -> None:
    # A client's reply clock runs from its connect (an env kills a private server silent for
    # server_timeout); the bots' warm-up, seconds under load or Wine, belongs to the start.
    from rllib_curling.aiming.tables import shot_tables

    shot_tables.cache_clear()
    start_server()
    assert shot_tables.cache_info().currsize == 1


def test_raw_client__plays_a_4_end_game_against_bot_3(start_server: Any) -> None:
    server = start_server(ends=4)
    client = RawClient(server.address[1], "localtest:3")
    t = client.play()
    client.close()
    assert t.seat == 0 and t.closed_by_empties
    check_game_order(t)
    assert t.gos == 8 * 4  # 8 stones per end, 4 ends
    assert len(t.scores) == 4 and len(t.totals) == 1 and len(t.results) == 1
    assert all(s[2] == 4 for s in t.setstates)
    mine, theirs = t.totals[0]
    assert sum(s for s in t.scores if s > 0) == mine
    assert -sum(s for s in t.scores if s < 0) == theirs
    assert t.results[0] == ("WIN" if mine > theirs else "LOSE" if mine < theirs else "DRAW")
    assert t.setstates[0] == [0, 0, 4, 0]  # Player1 throws first in end 1
    assert t.keywords()[-5:] == [""] * 5


def test_two_raw_clients__play_each_other(start_server: Any) -> None:
    server = start_server(ends=2)
    p1, p2 = play_pair(server.address[1])
    assert (p1.seat, p2.seat) == (0, 1)
    for t in (p1, p2):
        check_game_order(t)
        assert t.closed_by_empties and t.gos == 16
    assert p1.totals == p2.totals and p1.scores == [-s for s in p2.scores]
    flip = {"WIN": "LOSE", "LOSE": "WIN", "DRAW": "DRAW"}
    assert p2.results == [flip[p1.results[0]]]
    assert len(p1.positions) == len(p2.positions)  # POSITION goes to both


@pytest.mark.slow
def test_legacy_client__without_connectkey_is_seated_and_plays(start_server: Any) -> None:
    server = start_server(ends=1, opponent=2)
    start = time.monotonic()
    client = RawClient(server.address[1], key=None)
    t = client.play()
    client.close()
    assert t.messages[0] == "NAME Player1 " and t.messages[1] == "CONNECTNAME Player1 "
    assert time.monotonic() - start > 0.9  # seated after the legacy wait
    check_game_order(t)
    assert len(t.results) == 1 and t.closed_by_empties


def test_games__seats_swap_and_are_announced_so_the_hammer_alternates(start_server: Any) -> None:
    server = start_server(ends=1, games=3)
    client = RawClient(server.address[1], "k:2")
    t = client.play()
    client.close()
    check_game_order(t)
    kws = t.keywords()
    assert kws.count("NEWGAME") == 3 and kws.count("ISREADY") == 1
    starts = [s for s in t.setstates if s[0] == 0]
    assert [s[3] for s in starts] == [0, 0, 0]  # every game: Player1 throws first in end 1
    names = [m for m in t.messages if m.startswith("CONNECTNAME")]
    assert names == [f"CONNECTNAME Player{n} " for n in (1, 2, 1)]  # ... and the seats swap
    gos = [i for i, k in enumerate(kws) if k == "GO"]
    games = [i for i, k in enumerate(kws) if k == "NEWGAME"]
    first_go = [min(g for g in gos if g > start) for start in games]
    first_setstate = [kws.index("SETSTATE", start) for start in games]
    # we throw stone 0 in games 1 and 3, stone 1 (after the bot's) in game 2
    assert [t.messages[i - 1].split(" ")[1] for i in first_go] == ["0", "1", "0"]
    assert all(s < g for s, g in zip(first_setstate, first_go, strict=True))
    assert len(t.results) == 3 and t.closed_by_empties


def test_two_servers__on_two_ports_play_at_once(start_server: Any) -> None:
    servers = [start_server(ends=1, seed=s) for s in (1, 2)]
    assert servers[0].address[1] != servers[1].address[1]
    out: list[Transcript] = [Transcript(), Transcript()]

    def run(i: int) -> None:
        c = RawClient(servers[i].address[1], "k:2")
        out[i] = c.play()
        c.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(40)
    for t in out:
        assert len(t.results) == 1 and t.closed_by_empties


def test_same_seed__replays_the_same_game(start_server: Any) -> None:
    def one_game(seed: int) -> list[list[float]]:
        server = start_server(ends=1, seed=seed)
        c = RawClient(server.address[1], "k:2")
        t = c.play(throw=lambda t: f"BESTSHOT 3.05 {0.1 * (t.gos % 3)} 1.2")
        c.close()
        return t.positions

    first = one_game(7)
    assert one_game(7) == first
    assert one_game(8) != first


@pytest.mark.slow
def test_third_connection__gets_error_and_is_closed(start_server: Any) -> None:
    server = start_server(ends=1)
    port = server.address[1]
    a, b = RawClient(port, "k"), RawClient(port, "k")
    assert a.recv_msg() == "NAME Player1 " and b.recv_msg() == "NAME Player2 "
    c = RawClient(port, "k")
    msg = c.recv_msg()
    assert msg is not None and msg.startswith("Error")
    assert c.recv_msg() is None  # closed
    for x in (a, b, c):
        x.close()


@pytest.mark.slow
def test_keys__wrong_key_or_level_is_refused(start_server: Any) -> None:
    server = start_server(ends=1, keys=("secret",))
    port = server.address[1]
    for key in ("wrong", "wrong:2", "secret:9", None):
        c = RawClient(port, key)
        msg = c.recv_msg()
        assert msg is not None and msg.startswith("Error"), (key, msg)
        c.close()
    c = RawClient(port, "secret:2")
    assert c.recv_msg() == "NAME Player1 "
    c.close()


def test_turn_timeout__loses_the_stone_and_the_game_goes_on(start_server: Any) -> None:
    server = start_server(ends=1, turn_timeout=0.3)
    silent = {"done": False}

    def on_message(client: RawClient, msg: str) -> bool:
        if msg == "GO" and not silent["done"]:  # ignore the first GO
            silent["done"] = True
            client.t.gos += 1
            return True
        return False

    c = RawClient(server.address[1], "k:2")
    t = c.play(on_message=on_message)
    c.close()
    assert t.gos == 8 and len(t.results) == 1
    after_first = t.positions[1]  # POSITION after stone 0 (the lost one)
    assert after_first[0:2] == [0.0, 0.0]


def test_unlimited_ends__setstate_total_is_minus_one(start_server: Any) -> None:
    server = start_server(ends=-1)
    c = RawClient(server.address[1], "k:2")

    def stop_after_two_ends(client: RawClient, msg: str) -> bool:
        if msg.startswith("SETSTATE") and msg.split(" ")[2] == "2":
            client.sock.close()
            raise EOFError
        return False

    with pytest.raises((EOFError, OSError)):
        c.play(on_message=stop_after_two_ends)
    assert c.t.setstates and all(s[2] == -1 for s in c.t.setstates)
    assert len(c.t.scores) == 2


def test_compat_gap__spaces_out_messages(start_server: Any) -> None:
    server = start_server(ends=1, compat_gap=0.05)
    sock = socket.create_connection(server.address, timeout=10)
    sock.sendall(b"CONNECTKEY:k:2")
    chunks = []
    for _ in range(3):
        chunks.append((time.monotonic(), sock.recv(1024)))
    sock.close()
    assert [c[1] for c in chunks] == [b"NAME Player1 \0", b"CONNECTNAME Player1 \0", b"ISREADY \0"]
    assert chunks[2][0] - chunks[1][0] > 0.035


def test_our_client__plays_a_game_with_wait_turn_and_throw(start_server: Any) -> None:
    server = start_server(ends=2, games=2)
    client = CurlingClient(*server.address, key="localtest:2", name="ours", timeout=30)
    assert client.connect() == 0
    results, totals, throws = [], [], 0
    while True:
        event = client.wait_turn()
        if event == "go":
            throws += 1
            client.throw(3.0, 0.2, 1.0)
        elif event == "gameover":
            results.append(client.result)
            totals.append(client.totals)
            mine, theirs = client.totals
            assert sum(s for s in client.end_scores if s > 0) == mine
            assert -sum(s for s in client.end_scores if s < 0) == theirs
        else:
            break
    assert event == "closed" and throws == 2 * 2 * 8 and len(results) == 2
    for (mine, theirs), result in zip(totals, results, strict=True):
        assert result == ("WIN" if mine > theirs else "LOSE" if mine < theirs else "DRAW")


@pytest.mark.parametrize("leaves_as", ["Player1", "Player2"])
def test_endless_match__a_client_leaving_after_its_last_game_loses_no_phantom_game(
    start_server: Any, tmp_path: Any, caplog: pytest.LogCaptureFixture, leaves_as: str
) -> None:
    # games=0: the next game starts at once after GAMEOVER; a client done then (rllib
    # evaluate against `curling server --games 0`) left between games, it did not lose one.
    import logging

    from web_helpers import records_of

    from rllib_curling.server.console import CONSOLE

    caplog.set_level(logging.INFO, logger=CONSOLE.name)
    server = start_server(ends=1, games=0, log_dir=str(tmp_path))
    games = 1 if leaves_as == "Player2" else 2  # seats swap each game: Player2 in game 2
    client = RawClient(server.address[1], "localtest:1")
    t = client.play(stop_after_games=games)
    if leaves_as == "Player2":  # in game 2: it leaves once the bot threw stone 0
        while (msg := client.recv_msg()) is not None and msg.strip() != "GO":
            pass
    client.close()

    def game_records() -> list[dict[str, Any]]:
        return [r for r in records_of(tmp_path) if r["type"] == "game"]

    assert wait_until(lambda: len(game_records()) == games + 1)
    *played, left = game_records()
    assert [g["reason"] for g in played] == ["finished"] * games
    assert left["reason"] == "left" and left["lost_seat"] is None
    lines = [r.getMessage() for r in caplog.records if r.name == CONSOLE.name]
    assert len([line for line in lines if line.startswith("game ")]) == games
    assert len(t.results) == games
