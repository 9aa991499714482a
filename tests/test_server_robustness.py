"""The server survives bad clients: garbage, bad BESTSHOTs, floods, vanishing and silent seats.

After each abuse the other seat's game goes on (or ends cleanly with GAMEOVER WIN and the 5 empty
messages) and a new pair can play on the same server.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from server_helpers import RawClient, Transcript, check_game_order, process_memory_mb

from rllib_curling.server import records

pytestmark = pytest.mark.timeout(60)
pytest_plugins = ("server_fixtures",)  # fake_engine, start_server, start_server_process

GARBAGE = [
    os.urandom(200),
    b"HELLO WORLD",
    b"BESTSHOT",
    b"BESTSHOT 3.0 0.0",
    b"BESTSHOT 3.0 0.0 0.0 1.0",
    b"BESTSHOT nan 0 0",
    b"BESTSHOT 3.0 inf 0",
    b"BESTSHOT 3.0 0 -inf",
    b"BESTSHOT abc 0 0",
    b"SWEEP",
    b"CENTERLINE_CHOICE MAYBE",
    b"RESETPOSITION 1 2 3",
    b"RESETSTATE 3 0 4 0",  # not in debug mode
    b"CONNECTKEY:again",
    b"READYOK",
    b"EXPMODE 1",
    b"\0\0\0",
    "NAME 冰壶队 \xff".encode(),
]


def assert_new_pair_can_play(port: int) -> None:
    client = RawClient(port, "k:2")
    t = client.play()
    client.close()
    assert len(t.results) == 1 and t.closed_by_empties


def send_framed(client: RawClient, data: bytes) -> None:
    """One junk message, NUL-terminated: without a terminator, bursts that the server reads
    together would merge with the next (valid) message, which is the client's problem."""
    client.sock.sendall(data.replace(b"\0", b"") + b"\0" if data.strip(b"\0") else data)


def test_garbage_and_bad_bestshots__are_ignored(start_server: Any) -> None:
    server = start_server(ends=1)
    port = server.address[1]

    def nasty(client: RawClient, msg: str) -> bool:
        if msg == "GO":
            for junk in GARBAGE:
                send_framed(client, junk)
            client.t.gos += 1
            # huge finite numbers are clamped by physics
            shot = "BESTSHOT 1e300 -1e300 1e300" if client.t.gos == 1 else "BESTSHOT 3 0 0"
            client.send(shot, nul=True)
            return True
        if msg == "ISREADY":
            for junk in GARBAGE[:5]:
                send_framed(client, junk)
            client.sock.sendall(os.urandom(300).replace(b"\0", b"") + b"\0")
        return False

    client = RawClient(port, "k:2")
    t = client.play(on_message=nasty)
    client.close()
    check_game_order(t)
    assert t.gos == 8 and len(t.results) == 1 and t.closed_by_empties
    assert_new_pair_can_play(port)


def test_bestshot_out_of_turn__is_ignored(start_server: Any) -> None:
    server = start_server(ends=1)
    port = server.address[1]
    a = RawClient(port, "k", name="a")
    assert a.wait_for_seat() == 0  # arrival order decides the seats: a is Player1
    b = RawClient(port, "k", name="b")
    stop = threading.Event()

    def spam() -> None:  # Player2 throws out of turn all the time (even while the server closes)
        while not stop.is_set():
            try:
                b.send("BESTSHOT 5.5 0 0", nul=True)
            except OSError:
                return
            time.sleep(0.002)

    out: dict[str, Transcript] = {}
    thread = threading.Thread(target=lambda: out.setdefault("b", b.play()))
    spammer = threading.Thread(target=spam)
    thread.start(), spammer.start()
    ta = a.play()
    stop.set()
    thread.join(30), spammer.join(5)
    # every stone of Player2 was thrown after its own GO: 8 GOs each, one game
    assert ta.gos == 8 and out["b"].gos == 8
    assert len(ta.results) == 1 and ta.closed_by_empties
    a.close(), b.close()
    assert_new_pair_can_play(port)


def test_flood__and_oversize_messages_keep_memory_bounded(start_server_process: Any) -> None:
    proc, port = start_server_process("--ends", "1", "--games", "1")
    assert_new_pair_can_play(port)  # warm up: engine compiled, bot tables built
    _, peak_before = process_memory_mb(proc.pid)
    flooded = {"done": False}

    def flood(client: RawClient, msg: str) -> bool:
        if msg == "GO" and not flooded["done"]:
            flooded["done"] = True
            chunk = b"x" * 65536
            for _ in range(300):  # ~20 MB without NUL: refused in 64 KiB pieces
                client.sock.sendall(chunk)
            for _ in range(50):  # many small NUL-framed junk messages
                client.sock.sendall(b"JUNK 1 2 3\0" * 2000)
            time.sleep(0.2)
        return False

    client = RawClient(port, "k:2")
    t = client.play(on_message=flood)
    client.close()
    _, peak_after = process_memory_mb(proc.pid)
    assert flooded["done"] and len(t.results) == 1 and t.closed_by_empties
    grown = peak_after - peak_before
    assert grown < 20, f"server peak RSS grew by {grown:.0f} MB during a 25 MB flood"
    assert_new_pair_can_play(port)


def test_vanishing_client__other_seat_wins_and_seats_free_again(
    start_server: Any, tmp_path: Path
) -> None:
    server = start_server(ends=4, log_dir=str(tmp_path))
    port = server.address[1]
    a = RawClient(port, "k", name="stays")
    assert a.wait_for_seat() == 0  # arrival order decides the seats: a is Player1
    b = RawClient(port, "k", name="vanishes")

    def vanish(client: RawClient, msg: str) -> bool:
        if msg == "GO" and client.t.gos >= 3:
            client.sock.shutdown(socket.SHUT_RDWR)
            client.sock.close()
            raise EOFError
        return False

    raised: list[BaseException] = []

    def play_and_vanish() -> None:
        try:
            b.play(on_message=vanish)
        except BaseException as exc:  # the test asserts on it (a thread's exception only warns)
            raised.append(exc)

    thread = threading.Thread(target=play_and_vanish)
    thread.start()
    ta = a.play()
    thread.join(10)
    a.close()
    assert not thread.is_alive()
    assert [type(exc) for exc in raised] == [EOFError]  # b vanished at its third GO
    assert ta.results == ["WIN"] and ta.closed_by_empties
    assert ta.keywords()[-6:] == ["GAMEOVER"] + [""] * 5
    assert_new_pair_can_play(port)
    (log_file,) = tmp_path.glob("*.jsonl")
    games = [r for r in records.read_records(log_file) if r["type"] == "game"]
    assert games[0]["reason"] == "disconnect" and games[0]["lost_seat"] == 1
    assert games[0]["results"] == ["WIN", "LOSE"]


def test_client_vanishing_against_a_bot__frees_the_seat_at_once(start_server: Any) -> None:
    server = start_server(ends=4)
    port = server.address[1]
    c = RawClient(port, "k:2")
    while (msg := c.recv_msg()) != "GO ":
        if msg == "ISREADY ":
            c.send("READYOK")
    c.close()  # abandon the game, as the env does on reset
    assert_new_pair_can_play(port)  # seated (after waiting for the old match to end)


def test_silent_client__no_readyok_frees_the_seats(start_server: Any) -> None:
    server = start_server(ends=1, ready_timeout=0.3)
    port = server.address[1]
    a = RawClient(port, "k:2")
    msgs = []
    while (m := a.recv_msg()) is not None:
        msgs.append(m)
    assert msgs == [
        "NAME Player1 ", "CONNECTNAME Player1 ", "ISREADY ",
        "Error no READYOK within 0.3 s of ISREADY ",
    ]  # fmt: skip
    a.close()
    assert_new_pair_can_play(port)


def test_disconnect_before_seating__is_harmless(start_server: Any) -> None:
    server = start_server(ends=1)
    port = server.address[1]
    for _ in range(5):
        s = socket.create_connection(("127.0.0.1", port))
        s.close()
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(os.urandom(5000))
    s.close()
    assert_new_pair_can_play(port)
