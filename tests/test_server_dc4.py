"""Tests of rllib_curling.server.dc4 in process, with a plain HTTP client (http.client): a whole
match, DC4's refusals (and the match going on), the clock of a client that vanished, pings,
the records, the options and ``curling server --protocol dc4``'s checks."""

from __future__ import annotations

import base64
import http.client
import json
import logging
import math
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rllib_curling.cli.curling import main
from rllib_curling.dc_protocol.dc4 import MatchRequest, PlayerConfig, TeamConfig
from rllib_curling.dc_protocol.dc4_state import DC4CLIENT_REQUIRED_KEYS, LEGACY_SPELLINGS, State
from rllib_curling.dc_protocol.sse import Comment, Event, EventParser
from rllib_curling.errors import ConfigError
from rllib_curling.server.dc4.config import DC4ServerConfig, read_users
from rllib_curling.server.dc4.runner import DC4Handle
from rllib_curling.server.records import read_records

pytestmark = pytest.mark.timeout(60)

USERS = {"team0": "alice", "team1": "bob"}


def match_body(ends: int = 1, time_limit: float = 60.0) -> dict[str, Any]:
    request = MatchRequest("standard", "cup", "fcv1", "fgz_rule", time_limit, 10.0, ends, "test")
    return request.to_json()


def team_body(name: str) -> dict[str, Any]:
    players = [PlayerConfig(f"{name}{k}") for k in range(4)]
    return TeamConfig(name, *players).to_json()


def draw(angle: float = 0.0) -> dict[str, float]:
    """A draw toward the house (the client's ω: positive = clockwise)."""
    return {"translational_velocity": 2.37, "angular_velocity": math.pi / 2,
            "shot_angle": math.pi / 2 + 0.021 + angle}  # fmt: skip


def auth(user: str, password: str = "pw") -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


class Client:
    """One user's calls: ``call(method, path, body) -> (status, json, headers)``."""

    def __init__(self, handle: DC4Handle, user: str, password: str = "pw") -> None:
        assert handle.server is not None and handle.server.address is not None
        self.host, self.port = handle.server.address
        self.user, self.password = user, password

    def call(self, method: str, path: str, body: Any = None, *, raw: bytes | None = None,
             user: str | None = None) -> tuple[int, Any, http.client.HTTPMessage]:  # fmt: skip
        conn = http.client.HTTPConnection(self.host, self.port, timeout=10)
        data = raw if raw is not None else None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"}
        if user is not None or self.user:
            headers["Authorization"] = auth(user or self.user, self.password)
        conn.request(method, path, body=data, headers=headers)
        response = conn.getresponse()
        text = response.read()
        conn.close()
        return response.status, json.loads(text) if text else None, response.headers

    def stream(self, match_id: str, *, viewer: bool = False) -> Stream:
        return Stream(self, f"/matches/{match_id}/{'viewer' if viewer else 'stream'}")


class Stream:
    """An open SSE stream: ``item()`` (events and comments), ``state()`` (the next state)."""

    def __init__(self, client: Client, path: str) -> None:
        self.conn = http.client.HTTPConnection(client.host, client.port, timeout=10)
        self.conn.request("GET", path, headers={"Authorization": auth(client.user)})
        self.response = self.conn.getresponse()
        self.parser, self.items = EventParser(), deque[Any]()

    def item(self) -> Event | Comment:
        while not self.items:
            data = self.response.read1(65536)
            if not data:
                raise EOFError("the stream ended")
            self.items.extend(self.parser.feed(data))
        item = self.items.popleft()
        assert isinstance(item, Event | Comment), item
        return item

    def state(self) -> tuple[str, State, dict[str, Any]]:
        while True:
            item = self.item()
            if isinstance(item, Event):
                return item.event, State.from_event(item), json.loads(item.data)

    def close(self) -> None:
        self.conn.close()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[DC4Handle]:
    handle = DC4Handle(DC4ServerConfig(port=0, seed=5, log_dir=str(tmp_path), ping_interval=0.5))
    try:
        yield handle
    finally:
        handle.stop()


def records(tmp_path: Path, kind: str) -> list[dict[str, Any]]:
    (path,) = tmp_path.glob("curling-server-*.jsonl")
    return [r for r in read_records(path) if r["type"] == kind]


def start_match(server: DC4Handle, ends: int = 1, time_limit: float = 60.0) -> tuple[
    str, dict[str, Client], dict[str, Stream]
]:  # fmt: skip
    clients = {team: Client(server, user) for team, user in USERS.items()}
    status, match_id, _ = clients["team0"].call("POST", "/matches", match_body(ends, time_limit))
    assert status == 200 and isinstance(match_id, str)
    for team, client in clients.items():
        path = f"/store-team-config?match_id={match_id}&expected_match_team_name={team}"
        status, side, _ = client.call("POST", path, team_body(client.user))
        assert (status, side) == (200, team)
    streams = {team: client.stream(match_id) for team, client in clients.items()}
    return match_id, clients, streams


def test_dc4_server__a_whole_match_of_draws_scores_as_the_records_say(
    server: DC4Handle, tmp_path: Path
) -> None:
    match_id, clients, streams = start_match(server)
    event, state, raw = streams["team0"].state()
    assert event == "latest_state_update"  # the replay of a fresh end: one state
    assert (state.end_number, state.total_shot_number, state.next_shot_team) == (0, 0, "team0")
    assert set(DC4CLIENT_REQUIRED_KEYS) | set(LEGACY_SPELLINGS.values()) <= raw.keys()
    assert raw["first_team_name"] == "alice" and raw["second_team_name"] == "bob"
    shots, seen = 0, [state]
    while state.winner_team is None:
        if state.next_shot_team is not None:
            team = state.next_shot_team
            status, body, _ = clients[team].call(
                "POST", f"/shots?match_id={match_id}", draw(0.004 * (shots % 5))
            )
            assert (status, body) == (200, None)
            shots += 1
        event, state, raw = streams["team0"].state()
        assert event == "latest_state_update"
        assert raw["shot_number"] == raw["team_shot_number"] == state.total_shot_number // 2
        seen.append(state)
    assert shots % 16 == 0 and state.total_shot_number == 16 and state.next_shot_team is None
    assert seen[16].total_shot_number == 16  # the end's final state comes with its score
    assert seen[1].last_move is not None and seen[1].last_move.angular_velocity < 0  # DC's sign
    (game,) = records(tmp_path, "dc4_game")
    assert game["score"] == {"team0": list(state.score[0]), "team1": list(state.score[1])}
    assert game["winner"] == state.winner_team and game["reason"] == "score"
    assert len(records(tmp_path, "dc4_shot")) == shots
    _, last1, _ = streams["team1"].state()  # the other stream saw the same game
    while last1.winner_team is None:
        _, last1, _ = streams["team1"].state()
    assert last1 == state
    assert isinstance(streams["team0"].item(), Comment)  # the stream stays open, pinging


def test_dc4_server__refusals_answer_as_dc4_and_the_match_goes_on(
    server: DC4Handle, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, "rllib_curling.server.dc4")
    match_id, clients, streams = start_match(server)
    streams["team0"].state()
    shots = f"/shots?match_id={match_id}"
    status, body, _ = clients["team0"].call("POST", shots, raw=b'{"translational_velocity": ')
    assert status == 422 and body["detail"][0]["type"] == "json_invalid"
    status, body, _ = clients["team0"].call("POST", shots, {**draw(), "shot_angle": "left"})
    assert status == 422 and body["detail"][0]["loc"] == ["body", "shot_angle"]
    status, body, _ = clients["team1"].call("POST", shots, draw())
    assert (status, body) == (409, {"detail": "Not your turn."})
    status, body, _ = clients["team0"].call("POST", shots, draw(), user="carol")
    assert (status, body) == (401, {"detail": "Invalid match data"})
    third = f"/store-team-config?match_id={match_id}&expected_match_team_name=team0"
    status, body, _ = Client(server, "carol").call("POST", third, team_body("carol"))
    assert (status, body) == (409, {"detail": "This match has already started."})
    unknown = "/shots?match_id=00000000-0000-4000-8000-000000000000"
    status, body, _ = clients["team0"].call("POST", unknown, draw())
    assert (status, body) == (404, {"detail": "Match or state not found."})
    status, body, headers = Client(server, "").call("POST", shots, draw())
    assert (status, body) == (401, {"detail": "Not authenticated"})
    assert headers["WWW-Authenticate"] == "Basic"
    assert "409 Not your turn." in caplog.text and "422 malformed JSON" in caplog.text
    status, body, _ = clients["team0"].call("POST", shots, draw())  # still team0's turn
    assert (status, body) == (200, None)
    _, state, _ = streams["team0"].state()
    assert (state.total_shot_number, state.next_shot_team) == (1, "team1")
    fast = {**draw(), "translational_velocity": 12.0}  # clamped to max_velocity, as DC4 does
    assert clients["team1"].call("POST", shots, fast)[:2] == (200, None)
    _, state, _ = streams["team0"].state()
    assert state.last_move is not None and state.last_move.translational_velocity < 4.1


def test_dc4_server__a_client_that_vanishes_loses_on_time(
    server: DC4Handle, tmp_path: Path
) -> None:
    match_id, clients, streams = start_match(server, time_limit=0.6)
    streams["team0"].state()
    streams["team0"].close()  # team0 goes away and never throws
    _, state, _ = streams["team1"].state()
    while state.winner_team is None:
        _, state, _ = streams["team1"].state()
    assert state.winner_team == "team1" and state.remaining_time[0] == 0.0
    (game,) = records(tmp_path, "dc4_game")
    assert (game["winner"], game["reason"]) == ("team1", "time")
    status, body, _ = clients["team0"].call("POST", f"/shots?match_id={match_id}", draw())
    assert (status, body) == (409, {"detail": "Match already finished."})


def test_dc4_server__users_file_checks_passwords(tmp_path: Path) -> None:
    users = tmp_path / "users.txt"
    users.write_text("# the teams\nalice:pw\n\nbob:secret\n")
    config = DC4ServerConfig(port=0, users=read_users(users))
    with DC4Handle(config) as handle:
        status, body, headers = Client(handle, "alice", "wrong").call(
            "POST", "/matches", match_body()
        )
        assert (status, body) == (401, {"detail": "Invalid password"})
        assert headers["WWW-Authenticate"] == "Basic"
        status, body, _ = Client(handle, "eve").call("POST", "/matches", match_body())
        assert (status, body) == (401, {"detail": "Invalid username"})
        status, _, _ = Client(handle, "alice").call("POST", "/matches", match_body())
        assert status == 200


def test_dc4_config__another_host_needs_users(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="needs --users FILE"):
        DC4ServerConfig(host="0.0.0.0")
    DC4ServerConfig(host="::1")  # loopback: any user
    bad = tmp_path / "users.txt"
    bad.write_text("alice\n")
    with pytest.raises(ConfigError, match=r"users.txt:1: expected user:password"):
        read_users(bad)


def test_cli__dc4_on_another_host_without_users_says_so_in_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["server", "--protocol", "dc4", "--host", "0.0.0.0", "--http-port", "0"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "--users FILE" in err[0]
