"""Tests of rllib_curling.server.dc3 in process, with raw-socket clients: a whole game, the
example conversation of DC3's protocol documentation byte for byte, the faults (the team at fault
disconnected, the other's game ending or going on), the clocks, the records, and
``curling server --protocol dc3``'s help and one-line errors."""

from __future__ import annotations

import json
import logging
import math
import re
import socket
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rllib_curling.cli.curling import build_parser, main
from rllib_curling.dc_protocol import dc3
from rllib_curling.dc_sheet import MAX_SPEED, SPEED_STD
from rllib_curling.errors import ConfigError
from rllib_curling.server.dc3.config import DEFAULT_PORTS, DC3ServerConfig
from rllib_curling.server.dc3.runner import DC3Handle
from rllib_curling.server.records import read_records

pytestmark = pytest.mark.timeout(60)

# DC3's documentation (``doc/protocol.md``, protocol v2.0): the client's messages as a C++ client
# (nlohmann::json's dump(): compact, keys sorted) sends them, one line each.
DOC_DC_OK = b'{"cmd":"dc_ok","name":"sample ai"}\n'
DOC_READY_OK = b'{"cmd":"ready_ok","player_order":[0,1,3,2]}\n'
DOC_SHOT = b'{"cmd":"move","move":{"rotation":"ccw","type":"shot","velocity":{"x":0.1,"y":2.0}}}\n'
DOC_CONCEDE = b'{"cmd":"move","move":{"type":"concede"}}\n'


class Dc3Client:
    """A DC3 client on a raw socket: ``send`` bytes, ``recv`` one JSON line (None at EOF)."""

    def __init__(self, port: int, timeout: float = 30.0) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.buffer = b""

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def send_json(self, obj: dict[str, Any]) -> None:
        self.send(json.dumps(obj).encode() + b"\n")  # Python clients: json.dumps' spaces

    def recv(self) -> dict[str, Any] | None:
        while b"\n" not in self.buffer:
            try:
                chunk = self.sock.recv(65536)
            except ConnectionError:
                chunk = b""
            if not chunk:
                return None
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        obj = json.loads(line)
        assert isinstance(obj, dict)
        return obj

    def expect(self, cmd: str) -> dict[str, Any]:
        msg = self.recv()
        assert msg is not None and msg["cmd"] == cmd, msg
        return msg

    def handshake(self, name: str, order: tuple[int, ...] = (0, 1, 2, 3)) -> dict[str, Any]:
        """dc → dc_ok, is_ready → ready_ok; the is_ready message."""
        self.expect("dc")
        self.send_json({"cmd": "dc_ok", "name": name})
        is_ready = self.expect("is_ready")
        self.send_json({"cmd": "ready_ok", "player_order": list(order)})
        return is_ready

    def close(self) -> None:
        self.sock.close()


def start(tmp_path: Path, **options: Any) -> DC3Handle:
    options.setdefault("ends", 1)
    options.setdefault("thinking_time", 60.0)
    return DC3Handle(DC3ServerConfig(ports=(0, 0), seed=7, log_dir=str(tmp_path), **options))


@pytest.fixture
def server(tmp_path: Path) -> Iterator[DC3Handle]:
    handle = start(tmp_path)
    yield handle
    handle.stop()


def pair(handle: DC3Handle) -> tuple[Dc3Client, Dc3Client]:
    port0, port1 = handle.ports
    return Dc3Client(port0), Dc3Client(port1)


def started(handle: DC3Handle) -> tuple[Dc3Client, Dc3Client]:
    """Two clients past the handshake, after new_game and the first update."""
    a, b = pair(handle)
    a.handshake("alpha")
    b.handshake("beta")
    for c in (a, b):
        c.expect("new_game")
        c.expect("update")
    return a, b


def draw(k: int) -> dict[str, Any]:
    """A draw toward the house, curling in (alternate sides)."""
    side = 1.0 if k % 2 else -1.0
    return {"type": "shot", "velocity": {"x": 0.1 * side, "y": 2.37},
            "rotation": "ccw" if side > 0 else "cw"}  # fmt: skip


def records(tmp_path: Path) -> list[dict[str, Any]]:
    (path,) = tmp_path.glob("*.jsonl")
    return read_records(path)


def test_game__two_raw_clients_play_every_move_accepted_records_match(
    server: DC3Handle, tmp_path: Path
) -> None:
    a, b = pair(server)
    clients = {"team0": a, "team1": b}
    assert a.handshake("alpha")["team"] == "team0"
    assert b.handshake("beta", (3, 2, 1, 0))["team"] == "team1"
    for c in (a, b):
        assert c.expect("new_game")["name"] == {"team0": "alpha", "team1": "beta"}
    moves = 0
    update = a.expect("update")
    assert b.expect("update") == update
    while update["next_team"] is not None:
        state = update["state"]
        clients[update["next_team"]].send_json({"cmd": "move", "move": draw(moves)})
        moves += 1
        update = a.expect("update")
        assert b.expect("update") == update
        last = update["last_move"]
        assert last["actual_move"]["type"] == "shot"  # accepted and thrown
        assert abs(math.hypot(*last["actual_move"]["velocity"].values()) - 2.37) < 0.1
        new = update["state"]
        assert (new["end"], new["shot"]) in {
            (state["end"], state["shot"] + 1), (state["end"] + 1, 0)
        }  # fmt: skip
    for c in (a, b):
        c.expect("game_over")
        assert c.recv() is None  # the server closes after game_over
    final = update["state"]
    assert moves >= 16 and moves % 16 == 0 and final["game_result"]["reason"] == "score"
    assert final["hammer"] is None and final["shot"] == 0 and final["end"] == moves // 16
    server.stop()
    lines = records(tmp_path)
    shots = [r for r in lines if r["type"] == "dc3_shot"]
    assert len(shots) == moves and all(s["thrown"] is not None for s in shots)
    (game,) = [r for r in lines if r["type"] == "dc3_game"]
    assert game["scores"] == final["scores"]
    assert game["extra_end_score"] == final["extra_end_score"]
    assert game["winner"] == final["game_result"]["winner"] and game["fault"] is None
    winner = int(game["winner"][-1])
    assert game["totals"][winner] > game["totals"][1 - winner]
    teams = [r for r in lines if r["type"] == "dc3_team"]
    assert [t["player_order"] for t in teams] == [[0, 1, 2, 3], [3, 2, 1, 0]]


def test_doc_conversation__replayed_byte_for_byte_gets_documented_replies(
    server: DC3Handle,
) -> None:
    a, b = pair(server)
    dc = a.expect("dc")
    assert dc["version"] == {"major": 2, "minor": 0} and uuid.UUID(dc["game_id"]).version == 4
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d", dc["date_time"])
    assert b.expect("dc")["game_id"] == dc["game_id"]
    a.send(DOC_DC_OK)
    b.send(DOC_DC_OK.replace(b"sample ai", b"sample ai 2"))
    is_ready = a.expect("is_ready")
    assert is_ready["team"] == "team0" and b.expect("is_ready")["team"] == "team1"
    game = is_ready["game"]
    assert game["rule"] == "normal" and game["setting"]["max_end"] == 1
    assert game["setting"]["five_rock_rule"] is True and game["setting"]["sheet_width"] == 4.75
    assert game["setting"]["thinking_time"] == {"team0": 60.0, "team1": 60.0}
    assert game["simulator"] == {"type": "fcv1", "seconds_per_frame": 0.001}
    assert [len(game["players"][t]) for t in ("team0", "team1")] == [4, 4]
    assert game["players"]["team0"][0]["max_speed"] == MAX_SPEED
    a.send(DOC_READY_OK)
    b.send(DOC_READY_OK)
    for c in (a, b):
        assert c.expect("new_game")["name"] == {"team0": "sample ai", "team1": "sample ai 2"}
    first = a.expect("update")
    assert b.expect("update") == first
    assert first["next_team"] == "team0" and first["last_move"] is None
    state = first["state"]
    assert (state["end"], state["shot"], state["hammer"]) == (0, 0, "team1")
    assert state["scores"] == {"team0": [None], "team1": [None]}
    assert state["extra_end_score"] == {"team0": None, "team1": None}
    assert state["stones"]["team0"] == [None] * 8 and state["game_result"] is None
    a.send(DOC_SHOT)
    second = a.expect("update")
    assert b.expect("update") == second
    assert second["next_team"] == "team1" and second["state"]["shot"] == 1
    actual = second["last_move"]["actual_move"]
    assert actual["type"] == "shot" and actual["rotation"] == "ccw"
    assert abs(math.hypot(actual["velocity"]["x"], actual["velocity"]["y"]) - 2.0025) < 0.05
    assert second["last_move"]["free_guard_zone_foul"] is False
    assert second["state"]["thinking_time_remaining"]["team0"] < 60.0
    b.send(DOC_CONCEDE)
    last = a.expect("update")
    assert b.expect("update") == last
    assert last["next_team"] is None and last["state"]["hammer"] is None
    assert last["state"]["game_result"] == {"winner": "team0", "reason": "concede"}
    assert last["last_move"]["actual_move"] == {"type": "concede"}
    for c in (a, b):
        assert c.expect("game_over") == {"cmd": "game_over"}
        assert c.recv() is None
    for msg in (dc, is_ready, first, second, last):
        dc3.decode(json.dumps(msg))  # every reply is a valid DC3 message


def test_fault__malformed_json_in_the_handshake_frees_the_seat(
    server: DC3Handle, caplog: pytest.LogCaptureFixture
) -> None:
    a, b = pair(server)
    a.expect("dc")
    with caplog.at_level(logging.ERROR, "rllib_curling.server.dc3"):
        a.send(b'{"cmd": "dc_ok", "name": \n')
        assert a.recv() is None  # disconnected, as DC3 does
    assert any("team0" in r.message and "malformed JSON" in r.message for r in caplog.records)
    b.handshake("beta")
    a = Dc3Client(server.ports[0])  # the seat is free again; the other team waited
    a.handshake("alpha")
    for c in (a, b):
        assert c.expect("new_game")["name"] == {"team0": "alpha", "team1": "beta"}


@pytest.mark.parametrize(
    "bad",
    [
        b'{"cmd":"ready_ok","player_order":[0,0,1,2]}\n',  # not a permutation
        b'{"cmd":"move","move":{"type":"concede"}}\n',  # not now
        b"[1, 2]\n",  # not an object
    ],
    ids=["player_order", "move_before_the_game", "not_an_object"],
)
def test_fault__a_bad_line_in_the_handshake_disconnects_that_team(
    server: DC3Handle, bad: bytes
) -> None:
    a, _b = pair(server)
    a.expect("dc")
    a.send(DOC_DC_OK)
    a.expect("is_ready")
    a.send(bad)
    assert a.recv() is None


@pytest.mark.parametrize(
    ("team", "line", "logged"),
    [
        (1, b'{"cmd":"move","move":{"type":"concede"}}\n', "not its turn"),  # team0 is on turn
        (0, b'{"cmd":"move","move":{"type":"shot"\n', "malformed JSON"),
        (
            0,
            b'{"cmd":"move","move":{"type":"shot","velocity":{"x":0},"rotation":"cw"}}\n',
            "velocity.y",
        ),
        (0, b'{"cmd":"dc_ok","name":"again"}\n', 'unexpected command "dc_ok"'),
    ],
    ids=["move_out_of_turn", "malformed_json", "missing_field", "dc_ok_again"],
)
def test_fault__mid_game_the_team_at_fault_loses_and_the_other_gets_game_over(
    server: DC3Handle,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    team: int,
    line: bytes,
    logged: str,
) -> None:
    clients = started(server)
    culprit, other = clients[team], clients[1 - team]
    with caplog.at_level(logging.ERROR, "rllib_curling.server.dc3"):
        culprit.send(line)
        assert culprit.recv() is None  # disconnected, as DC3 does
        last = other.expect("update")
    name = f"team{team}"
    assert any(name in r.message and logged in r.message for r in caplog.records), caplog.text
    assert last["next_team"] is None
    assert last["state"]["game_result"] == {"winner": f"team{1 - team}", "reason": "time_limit"}
    assert last["state"]["thinking_time_remaining"][name] == 0.0
    other.expect("game_over")
    server.stop()
    (game,) = [r for r in records(tmp_path) if r["type"] == "dc3_game"]
    assert game["fault"]["team"] == name and game["reason"] == "time_limit"


def test_fault__no_dc_ok_in_time_disconnects(tmp_path: Path) -> None:
    handle = start(tmp_path, dc_ok_timeout=0.2)
    try:
        a = Dc3Client(handle.ports[0])
        a.expect("dc")
        assert a.recv() is None  # silent: closed after dc_ok_timeout
        a = Dc3Client(handle.ports[0])  # the seat is free again
        a.expect("dc")
    finally:
        handle.stop()


def test_fault__a_client_that_vanishes_loses_by_time(server: DC3Handle) -> None:
    a, b = started(server)
    a.send_json({"cmd": "move", "move": draw(0)})
    for c in (a, b):
        c.expect("update")
    a.close()
    last = b.expect("update")
    assert last["state"]["game_result"] == {"winner": "team1", "reason": "time_limit"}
    b.expect("game_over")


def test_clock__a_silent_team_loses_on_time(tmp_path: Path) -> None:
    handle = start(tmp_path, thinking_time=0.4)
    try:
        a, b = started(handle)
        last = b.expect("update")  # team0 never moves
        assert last["state"]["game_result"] == {"winner": "team1", "reason": "time_limit"}
        assert last["last_move"]["actual_move"] == {"type": "concede"}  # DC3's dummy move
        assert a.expect("update") == last
        for c in (a, b):
            c.expect("game_over")
    finally:
        handle.stop()


def test_shot__a_speed_out_of_range_is_clamped_as_dc3s_player_does(server: DC3Handle) -> None:
    a, b = started(server)
    a.send_json({"cmd": "move", "move": {"type": "shot", "velocity": {"x": 0.0, "y": 40.0},
                                         "rotation": "cw"}})  # fmt: skip
    update = b.expect("update")
    speed = math.hypot(*update["last_move"]["actual_move"]["velocity"].values())
    assert abs(speed - MAX_SPEED) < 6 * SPEED_STD
    assert update["next_team"] == "team1"


def test_games__the_next_game_opens_on_the_same_ports(tmp_path: Path) -> None:
    handle = start(tmp_path, games=2)
    try:
        for _ in range(2):
            a, b = started(handle)
            a.send(DOC_CONCEDE)
            for c in (a, b):
                c.expect("update")
                c.expect("game_over")
                c.close()
        assert handle.server is not None
        deadline = time.monotonic() + 10
        while not handle.server.finished.is_set() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert handle.server.played == 2 and handle.server.finished.is_set()
    finally:
        handle.stop()
    games = [r for r in records(tmp_path) if r["type"] == "dc3_game"]
    assert [g["winner"] for g in games] == ["team1", "team1"]


def test_seat__a_second_connection_on_a_taken_port_is_closed(server: DC3Handle) -> None:
    a, _b = pair(server)
    a.expect("dc")
    intruder = Dc3Client(server.ports[0])
    assert intruder.recv() is None


def test_config__checks_ports_and_ends() -> None:
    assert DC3ServerConfig().ports == DEFAULT_PORTS == (10000, 10001)
    with pytest.raises(ConfigError, match="two ports"):
        DC3ServerConfig(ports=(10000, 10000))
    with pytest.raises(ConfigError, match="standard_end_count"):
        DC3ServerConfig(ends=0)
    assert DC3ServerConfig(ends=8).game_config().standard_time == pytest.approx(8 * 21.9)


def test_cli__help_names_dc3_and_its_ports(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["server", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "dc3" in out and "--port0" in out and "--port1" in out and "10000" in out


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--port0", "9000", "--port1", "9000"], "two ports"),
        (["--tcp-port", "9000"], "--port0 and --port1"),
        (["--ends", "0"], "standard_end_count"),
        (["--thinking-time", "-1"], "time_limit"),
    ],
)
def test_cli__dc3_bad_options_say_so_in_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], says: str
) -> None:
    code = main(["server", "--protocol", "dc3", *argv])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and says in err[0]


def test_cli__dc3_flags_on_the_platform_server_say_so(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["server", "--port0", "9000"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--port0 is for --protocol dc3" in err[0]
