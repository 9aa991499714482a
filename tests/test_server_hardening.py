"""No single client can lock the server or make it leak (issue "Hardening").

Each test runs ``curling server`` as a child process (stopped by its PID), attacks it from
loopback, checks that real games beside the attack finish, and that the server's file
descriptors and memory come back to where they were.
"""

from __future__ import annotations

import contextlib
import json
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest
from server_helpers import RawClient, play_pair, process_memory_mb, wait_until

from rllib_curling.errors import ConfigError
from rllib_curling.server.config import ServerConfig
from rllib_curling.server.records import read_records

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]
pytest_plugins = ("server_fixtures",)


def fd_count(pid: int) -> int:
    """Open file descriptors of process ``pid`` (on Windows, its handles)."""
    process = psutil.Process(pid)
    return process.num_handles() if sys.platform == "win32" else process.num_fds()


def recv_all(sock: socket.socket, timeout: float = 10.0) -> list[str]:
    """Every message until EOF (stripped of NUL only)."""
    sock.settimeout(timeout)
    data = bytearray()
    while chunk := sock.recv(4096):
        data += chunk
    return [m for m in data.decode("utf-8", "replace").split("\0")]


def closed_by_server(sock: socket.socket, timeout: float) -> bool:
    """Read until the server closes ``sock`` (EOF, or a reset when the test kept writing to
    it); False if it is still open after ``timeout`` s."""
    sock.settimeout(timeout)
    try:
        while sock.recv(4096):
            pass
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False
    return True


def bot_game(port: int, key: str = "k:2") -> list[str]:
    client = RawClient(port, key)
    try:
        return client.play().results
    finally:
        client.close()


@contextlib.contextmanager
def dripping(
    socks: list[socket.socket], byte: bytes, also: Callable[[], object] | None = None
) -> Iterator[None]:
    """While the block runs, a thread sends ``byte`` on each of ``socks`` every 0.2 s (a key
    or a request head that never ends: slowloris) and calls ``also`` as often."""
    stop = threading.Event()

    def drip() -> None:
        while not stop.is_set():
            for s in socks:
                try:
                    s.send(byte)
                except OSError:
                    pass
            if also is not None:
                also()
            stop.wait(0.2)

    thread = threading.Thread(target=drip)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def baseline(pid: int, port: int, key: str = "k:2") -> tuple[int, float]:
    """Warm the server up (engine compiled, bot tables built) and return (fds, RSS MB)."""
    assert bot_game(port, key) and bot_game(port, key)
    time.sleep(0.5)
    return fd_count(pid), process_memory_mb(pid)[0]


def assert_back_to(pid: int, fds: int, rss_mb: float, slack_mb: float = 20.0) -> None:
    assert wait_until(lambda: fd_count(pid) <= fds, 15.0), f"fds {fd_count(pid)} > {fds}"
    rss = process_memory_mb(pid)[0]
    assert rss <= rss_mb + slack_mb, f"RSS {rss:.0f} MB after the attack, {rss_mb:.0f} before"


def test_idle_slow_and_half_open_clients__bot_games_go_on(start_server_process: Any) -> None:
    proc, port = start_server_process("--ends", "1", "--ready-timeout", "2")
    fds, rss = baseline(proc.pid, port)
    idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(4)]
    hostile = list(idle)  # idle: connect, send nothing (seated as legacy clients, never ready)
    for _ in range(3):  # half-open: a key, then the write side shut, never reading
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"CONNECTKEY:k")
        s.shutdown(socket.SHUT_WR)
        hostile.append(s)
    slow = [socket.create_connection(("127.0.0.1", port)) for _ in range(3)]
    hostile += slow
    try:
        with dripping(slow, b"C"):  # one byte of a never-finished key every 0.2 s
            _bot_and_lobby_games_beside(port, hostile)
    finally:
        for s in hostile:
            s.close()
    assert_back_to(proc.pid, fds, rss)


def _bot_and_lobby_games_beside(port: int, hostile: list[socket.socket]) -> None:
    """Bot games, then a lobby game, while ``hostile`` clients hold lobby seats for a while."""
    started = time.monotonic()
    for level in ("k:1", "k:2", "k:3"):  # bot games at once, whatever the lobby holds
        assert bot_game(port, level) in (["WIN"], ["LOSE"], ["DRAW"])
    assert time.monotonic() - started < 30
    # the lobby frees itself: each hostile client is seated (the silent and the slow ones as
    # 2020-era clients after the legacy wait), then dropped after the ready timeout, or refused
    # when no seat frees in time; the server closes every one, however long the bot games took.
    # All of them, not only the idle: one still seated would take seat 0 from "a" below.
    for s in hostile:
        assert closed_by_server(s, timeout=20.0)
    ta, tb = play_pair(port, ("a", "b"))
    assert len(ta.results) == 1 and len(tb.results) == 1


def test_silent_lobby_seat__gets_an_error_and_is_closed(start_server_process: Any) -> None:
    proc, port = start_server_process("--ready-timeout", "1")
    s = socket.create_connection(("127.0.0.1", port))  # a legacy client that never answers
    started = time.monotonic()
    msgs = recv_all(s)
    s.close()
    assert [m for m in msgs if m] == [
        "NAME Player1 ", "CONNECTNAME Player1 ", "ISREADY ",
        "Error no READYOK within 1 s of ISREADY ",
    ]  # fmt: skip
    assert time.monotonic() - started < 1.0 + 1.0 + 2.0  # legacy wait + ready timeout + linger


def test_leavers_of_the_seat_queue__are_closed(start_server_process: Any) -> None:
    proc, port = start_server_process("--ends", "1", "--turn-timeout", "60")
    fds, rss = baseline(proc.pid, port)
    for _ in range(100):  # seated in the lobby, waiting for a partner: they leave
        c = RawClient(port, "k")
        assert wait_until(lambda c=c: (c.recv_msg() or "").startswith("CONNECTNAME"), 5.0)
        c.close()
    assert wait_until(lambda: fd_count(proc.pid) <= fds, 15.0), (fd_count(proc.pid), fds)
    # A two-client match that holds the lobby (the seats answer ISREADY, then never throw).
    holders = [RawClient(port, "k", name=n) for n in ("x", "y")]
    for h in holders:
        assert wait_until(lambda h=h: _answer_isready(h), 5.0)
    held = fd_count(proc.pid)
    for _ in range(100):  # they wait for a seat, and leave meanwhile
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"CONNECTKEY:k")
        s.close()
    for _ in range(50):  # they leave before saying anything
        socket.create_connection(("127.0.0.1", port)).close()
    assert wait_until(lambda: fd_count(proc.pid) <= held, 15.0), (fd_count(proc.pid), held)
    for h in holders:
        h.close()
    assert_back_to(proc.pid, fds, rss)


def _answer_isready(client: RawClient) -> bool:
    msg = client.recv_msg()
    if msg is not None and msg.strip() == "ISREADY":
        client.send("READYOK")
        client.send(f"NAME {client.name}")
        return True
    return False


def test_wrong_keys__are_throttled_and_the_right_key_still_works(
    start_server_process: Any,
) -> None:
    proc, port = start_server_process("--ends", "1", "--key", "secret")
    fds, rss = baseline(proc.pid, port, "secret:2")
    answered: list[float] = []
    lock = threading.Lock()
    stop = time.monotonic() + 3.0

    def guess(n: int) -> None:
        while time.monotonic() < stop:
            try:
                s = socket.create_connection(("127.0.0.1", port), timeout=10)
                s.sendall(f"CONNECTKEY:guess{n}".encode())
                msgs = recv_all(s)
                s.close()
            except OSError:
                continue
            if any("wrong key" in m for m in msgs):
                with lock:
                    answered.append(time.monotonic())

    threads = [threading.Thread(target=guess, args=(n,)) for n in range(20)]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    rate = len(answered) / (time.monotonic() - started)
    assert len(answered) <= 10, f"{len(answered)} wrong keys checked in 3 s ({rate:.1f}/s)"
    client = RawClient(port, "secret:2")  # the throttle never locks the right key out
    assert client.play().results
    client.close()
    assert_back_to(proc.pid, fds, rss)


def test_forfeit__a_seat_that_never_throws_loses_the_game(
    start_server_process: Any, tmp_path: Path
) -> None:
    proc, port = start_server_process(
        "--ends", "4", "--turn-timeout", "0.3", "--forfeit-after", "2", "--log-dir", str(tmp_path)
    )
    client = RawClient(port, "k:2")
    started = time.monotonic()
    t = client.play(throw=lambda _t: "EXPMODE 1")  # answers every GO with something else
    client.close()
    assert time.monotonic() - started < 10
    assert t.gos == 2 and t.results == ["LOSE"]
    errors = [m for m in t.messages if m.startswith("Error")]
    assert errors == ["Error Player1 forfeited: no BESTSHOT in 2 turns in a row "]
    assert t.closed_by_empties
    proc.terminate(), proc.wait(10)
    (path,) = tmp_path.glob("*.jsonl")
    (game,) = [r for r in read_records(path) if r["type"] == "game"]
    assert game["reason"] == "forfeit" and game["results"] == ["LOSE", "WIN"]


def test_rejected_bestshot__gets_an_error_and_the_turn_goes_on(start_server_process: Any) -> None:
    proc, port = start_server_process("--ends", "1")
    client = RawClient(port, "k:2")
    bad = iter(["BESTSHOT nan 0 0", "BESTSHOT 3 inf 0", "BESTSHOT 3 0"] * 8)

    def on_go(c: RawClient, msg: str) -> bool:
        if msg != "GO":
            return False
        c.t.gos += 1
        c.send(next(bad), nul=True)
        reply = c.recv_msg()
        assert reply is not None and reply.startswith("Error ") and "BESTSHOT" in reply, reply
        c.t.messages.append(reply)
        c.send("BESTSHOT 3.0 0.0 0.0", nul=True)  # within the same turn
        return True

    t = client.play(on_message=on_go)
    client.close()
    assert t.gos == 8 and len(t.results) == 1
    thrown = sum(1 for p in t.positions[-1][0::2] if p)  # our stones (we throw first) in play
    assert thrown > 0, "the retried throws were thrown"


def test_team_names__the_first_one_stays(start_server_process: Any, tmp_path: Path) -> None:
    proc, port = start_server_process("--ends", "1", "--log-dir", str(tmp_path))

    def rename(c: RawClient, msg: str) -> bool:
        if msg == "GO":  # mid-game: try to take the other team's name
            c.send("NAME alpha", nul=True)
        return False

    play_pair(port, ("alpha", "beta"), on_message=(None, rename))
    proc.terminate(), proc.wait(10)
    (path,) = tmp_path.glob("*.jsonl")
    players = {tuple(r["players"]) for r in read_records(path) if "players" in r}
    assert players == {("alpha", "beta")}


def test_two_seats_with_one_name__records_say_which_is_which(
    start_server_process: Any, tmp_path: Path
) -> None:
    proc, port = start_server_process("--ends", "1", "--log-dir", str(tmp_path))
    play_pair(port, ("same", "same"))
    proc.terminate(), proc.wait(10)
    (path,) = tmp_path.glob("*.jsonl")
    (game,) = [r for r in read_records(path) if r["type"] == "game"]
    assert game["players"] == ["same (Player1)", "same (Player2)"]


def test_records__a_killed_server_keeps_every_finished_shot(
    start_server_process: Any, tmp_path: Path
) -> None:
    proc, port = start_server_process("--ends", "1", "--log-dir", str(tmp_path))
    client = RawClient(port, "k:1")
    gos = 0

    def three_then_stall(c: RawClient, msg: str) -> bool:
        nonlocal gos
        if msg == "GO":
            gos += 1
            if gos <= 3:
                c.send("BESTSHOT 3.0 0.0 0.0", nul=True)
            else:  # our 4th turn: the server is killed mid-game
                proc.kill()  # SIGKILL; on Windows TerminateProcess
            return True
        return False

    client.play(on_message=three_then_stall)
    client.close()
    proc.wait(10)
    (path,) = tmp_path.glob("*.jsonl")
    lines = path.read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    shots = [r for r in records if r["type"] == "shot"]
    assert [r["type"] for r in records[:2]] == ["run", "game_start"]
    assert len(shots) == 6  # ours and the bot's, up to the stalled turn


def test_max_matches__bot_games_side_by_side_then_busy(start_server_process: Any) -> None:
    proc, port = start_server_process("--ends", "1", "--max-matches", "2", "--turn-timeout", "60")
    holders = [RawClient(port, f"k:{n}") for n in (1, 2)]
    for h in holders:  # two bot matches at once: each gets its GO
        h.t.gos = 0
        assert wait_until(lambda h=h: _read_until(h, "GO"), 10.0)
    third = socket.create_connection(("127.0.0.1", port))
    third.sendall(b"CONNECTKEY:k:3")
    msgs = recv_all(third)
    third.close()
    assert any(m.startswith("Error server busy: 2 matches") for m in msgs), msgs
    for h in holders:
        h.close()
    assert bot_game(port, "k:3")  # room again


def test_max_matches__default_is_16_or_one_per_port() -> None:
    assert ServerConfig().max_matches == 16
    assert ServerConfig(ports=40).max_matches == 40
    assert ServerConfig(ports=40, max_matches=3).max_matches == 3


def _read_until(client: RawClient, keyword: str) -> bool:
    msg = client.recv_msg()
    if msg is not None and msg.strip() == "ISREADY":
        client.send("READYOK")
    return msg is not None and msg.strip() == keyword


@pytest.mark.parametrize(
    ("key", "value"), [("forfeit_after", -1), ("forfeit_after", 1.5), ("max_matches", 0)]
)
def test_config__bad_limits_are_refused(key: str, value: Any) -> None:
    with pytest.raises(ConfigError, match=key):
        ServerConfig(**{key: value})


def test_key_throttle__delays_double_and_are_forgotten(monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    from rllib_curling.server import throttle

    now = [0.0]
    slept: list[float] = []

    async def record_sleep(seconds: float) -> None:
        slept.append(seconds)

    monkeypatch.setattr(throttle.asyncio, "sleep", record_sleep)
    guard = throttle.KeyThrottle(clock=lambda: now[0])

    async def guesses() -> None:
        for _ in range(6):
            assert await guard.check("10.0.0.1", False) is False
        assert await guard.check("10.0.0.1", True) is True  # a right key waits alike
        assert await guard.check("10.0.0.2", True) is True  # another address does not

    asyncio.run(guesses())
    assert slept == [0.25, 0.5, 1.0, 2.0, 2.0, 2.0]
    now[0] += throttle.FORGET_S + 1
    assert guard.delay("10.0.0.1") == 0.0


def test_page_seats__idle_slow_and_hostile_http_clients_and_a_persons_game_goes_on(
    start_server_process: Any,
) -> None:
    from web_helpers import get_json, http

    proc, port = start_server_process("--http-port", "0", "--key", "k", "--ends", "1")
    assert proc.stdout is not None
    web = proc.stdout.readline().split()[1]
    fds, rss = baseline(proc.pid, port, key="k:2")
    idle = [socket.create_connection(("127.0.0.1", int(web.split(":")[2].strip("/"))))
            for _ in range(5)]  # fmt: skip
    slow = [socket.create_connection(idle[0].getpeername()) for _ in range(3)]

    def guesses() -> None:  # bad keys, guessed seat tokens
        http(web + "api/play", "POST", b'{"key": "guess", "opponent": "1"}')
        http(web + "api/seats/guessed/throw", "POST", b'{"v": 3, "h": 0, "w": 0}')

    try:
        with dripping(slow, b"G", also=guesses):  # and a request head that never ends
            started = time.monotonic()
            status, _, body = http(web + "api/play", "POST", b'{"key": "k", "opponent": "1"}')
            assert status == 200, body
            token = json.loads(body)["seat"]
            thrown = 0
            while not (state := get_json(f"{web}api/seats/{token}"))["over"]:
                if state["waiting"] == "throw":
                    throw = json.dumps({"v": 3.0, "h": 0.05 * thrown, "w": 1.57}).encode()
                    assert http(f"{web}api/seats/{token}/throw", "POST", throw)[0] == 200
                    thrown += 1
                time.sleep(0.02)
            assert thrown == 8 and time.monotonic() - started < 30
    finally:
        for s in idle + slow:
            s.close()
    assert_back_to(proc.pid, fds, rss)
