"""Tests of rllib_curling.dc_seats: our DC bots take a side on our DC3 and DC4 servers (our
``dc_client`` over loopback), play whole games against a client, and the client's result, the
bot's and the server's records agree; ``curling server --protocol dc3|dc4 --opponent``'s errors."""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rllib_curling.cli.commands.server import dc_bots
from rllib_curling.cli.curling import build_parser, main
from rllib_curling.dc_bots.levels import make_dc_bot
from rllib_curling.dc_client import DC3Client, DC4Client, DCResult
from rllib_curling.dc_client.dc4 import match_request
from rllib_curling.dc_protocol import dc4
from rllib_curling.dc_protocol.refusals import Conflict
from rllib_curling.dc_seats import DC3Seats, DC4Seats, bot_name, loopback
from rllib_curling.errors import ConfigError, ConnectionLostError
from rllib_curling.server.dc3.config import DC3ServerConfig
from rllib_curling.server.dc3.runner import DC3Handle
from rllib_curling.server.dc4.config import DC4ServerConfig
from rllib_curling.server.dc4.match import DC4Match
from rllib_curling.server.dc4.runner import DC4Handle
from rllib_curling.server.records import GameRecorder, read_records

pytestmark = pytest.mark.timeout(120)


def records_of(log_dir: Path) -> list[dict[str, Any]]:
    (path,) = log_dir.glob("curling-server-*.jsonl")
    return read_records(path)


def agree(result: DCResult, game: dict[str, Any]) -> None:
    """A client's result is the game the server recorded."""
    assert result.winner == game["winner"]
    assert result.totals == tuple(game["totals"])


def test_dc3_seats__a_client_plays_a_whole_game_against_the_seated_bot_and_all_agree(
    tmp_path: Path,
) -> None:
    results: list[tuple[int, int, DCResult]] = []
    seats = DC3Seats({1: 3}, on_result=lambda *r: results.append(r))
    config = DC3ServerConfig(ports=(0, 0), ends=2, seed=5, log_dir=str(tmp_path))
    with DC3Handle(config, on_listening=seats.attach) as handle:
        client = DC3Client("127.0.0.1", handle.ports[0], name="visitor", timeout=60)
        ours = client.play(make_dc_bot(2).choose)
        seats.close()  # the bot's game is over too

    records = records_of(tmp_path)
    (game,) = [r for r in records if r["type"] == "dc3_game"]
    teams = {r["team"]: r["name"] for r in records if r["type"] == "dc3_team"}
    shots = [r for r in records if r["type"] == "dc3_shot"]
    assert teams == {"team0": "visitor", "team1": bot_name(3)}
    assert client.names == ("visitor", bot_name(3))
    (team, level, theirs) = results[0]
    assert (team, level, theirs.team, ours.team) == (1, 3, "team1", "team0")
    assert ours.shots == theirs.shots == 8 * 2 and len(shots) == 32
    assert {s["team"] for s in shots} == {"team0", "team1"}
    assert ours.scores == theirs.scores and ours.winner == theirs.winner
    agree(ours, game)
    assert seats.results == [(3, theirs)]


def test_dc3_seats__bots_on_both_sides_play_every_game_headless(tmp_path: Path) -> None:
    seats = DC3Seats({0: 1, 1: 2})
    config = DC3ServerConfig(ports=(0, 0), ends=1, games=2, seed=2, log_dir=str(tmp_path))
    with DC3Handle(config, on_listening=seats.attach) as handle:
        server = handle.server
        assert server is not None
        for _ in range(600):  # up to 60 s
            if server.finished.is_set():
                break
            threading.Event().wait(0.1)
        assert server.finished.is_set()
        seats.close()
    games = [r for r in records_of(tmp_path) if r["type"] == "dc3_game"]
    assert len(games) == 2 and len(seats.results) == 4
    for game, pair in zip(games, (seats.results[0:2], seats.results[2:4]), strict=True):
        for _, result in pair:
            agree(result, game)
        assert {result.team for _, result in pair} == {"team0", "team1"}


def test_dc4_seats__a_client_plays_a_whole_match_against_the_seated_bot_and_all_agree(
    tmp_path: Path,
) -> None:
    seats = DC4Seats({1: 2})
    # a users file: the bot authenticates with the password dc_seats made for it
    config = DC4ServerConfig(port=0, users={"alice": "pw"}, seed=4, log_dir=str(tmp_path))
    with DC4Handle(config, on_listening=seats.attach) as handle:
        port = int(handle.url.rsplit(":", 1)[1])
        client = DC4Client("127.0.0.1", port, user="alice", password="pw", name="alice",
                           timeout=60)  # fmt: skip
        match_id = client.create_match(match_request(ends=1, name="alice"))
        side = client.join(match_id, "team1")  # reserved for the bot: alice gets team0
        ours = client.play(match_id, make_dc_bot(3).choose)
        seats.close()  # the bot's game is over too

    records = records_of(tmp_path)
    (game,) = [r for r in records if r["type"] == "dc4_game"]
    users = {r["team"]: r["user"] for r in records if r["type"] == "dc4_team"}
    shots = [r for r in records if r["type"] == "dc4_shot"]
    assert side == "team0" and users == {"team0": "alice", "team1": DC4Seats.user(1, 2)}
    ((level, theirs),) = seats.results
    assert (level, theirs.team) == (2, "team1")
    assert ours.shots + theirs.shots == len(shots) >= 16
    assert all(s["thrown"] is not None for s in shots)
    assert ours.scores == theirs.scores == game["score"]
    agree(ours, game)
    agree(theirs, game)


def test_dc4_match_reserve__other_users_get_the_other_side_and_a_third_is_refused() -> None:
    request = match_request(ends=1)
    match = DC4Match("m", request, np.random.default_rng(0), GameRecorder(None))
    match.reserve(0, "bot")
    team = dc4.TeamConfig("t", *(dc4.PlayerConfig(f"p{k}") for k in range(4)))
    assert match.join("alice", "team0", team) == "team1"
    with pytest.raises(Conflict):
        match.join("carol", "team0", team)
    assert match.join("bot", "team1", team) == "team0"  # the reserved side, whatever it asks
    with pytest.raises(ValueError, match="taken"):
        match.reserve(1, "bot")


def test_dc_seats__bad_levels_and_teams_fail_in_one_line() -> None:
    with pytest.raises(ConfigError, match=r"must be one of \[0, 1, 2, 3, 4, 5, 6, 7, 8\], got 9"):
        DC3Seats({1: 9})
    with pytest.raises(ConfigError, match="team must be 0 or 1"):
        DC4Seats({2: 3})
    with pytest.raises(ConfigError, match="at least one bot"):
        DC3Seats({})
    assert loopback("0.0.0.0") == "127.0.0.1" and loopback("::") == "::1"
    assert loopback("10.0.0.2") == "10.0.0.2"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--protocol", "dc3", "--opponent", "9"],
            "--opponent (our DC bot's level) must be one of",
        ),
        (["--protocol", "dc4", "--opponent", "3,4"], "--opponent N,M (bots on both sides) is for"),
        (["--opponent", "3,4"], "--opponent N,M (bots on both sides) is for --protocol dc3"),
        (["--protocol", "dc3", "--bot-first"], "--bot-first seats the --opponent N"),
        (["--protocol", "dc3", "--opponent", "2,x"], "--opponent takes a level N, or N,M"),
    ],
)
def test_curling_server_opponent__dc_errors_are_one_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        code = main(["server", *argv])
    except SystemExit as exc:  # argparse's type error
        code = exc.code  # type: ignore[assignment]
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert message in err[-1]


def streams_open(handle: DC4Handle, match_id: str, team: int) -> None:
    """Wait until ``team`` reads the match's stream."""
    assert handle.server is not None
    for _ in range(300):
        if handle.server.matches[match_id].streams[team]:
            return
        threading.Event().wait(0.1)
    raise AssertionError(f"team{team} never opened its stream")


def test_dc4_seats__a_bot_waiting_when_the_server_stops_ends_quietly(
    caplog: pytest.LogCaptureFixture,
) -> None:
    seats = DC4Seats({1: 0})
    handle = DC4Handle(DC4ServerConfig(port=0, seed=1), on_listening=seats.attach)
    port = int(handle.url.rsplit(":", 1)[1])
    match_id = DC4Client("127.0.0.1", port, user="alice").create_match(match_request(ends=1))
    streams_open(handle, match_id, 1)  # the bot waits for a second side that never comes
    with caplog.at_level(logging.WARNING, logger="rllib_curling.dc_seats"):
        handle.stop()
        seats.close()
    assert seats.results == []
    assert [r for r in caplog.records if r.name == "rllib_curling.dc_seats"] == []


def test_dc4_client__a_stream_the_server_cuts_is_one_clear_error() -> None:
    handle = DC4Handle(DC4ServerConfig(port=0, seed=1))
    port = int(handle.url.rsplit(":", 1)[1])
    client = DC4Client("127.0.0.1", port, user="alice", timeout=30)
    match_id = client.create_match(match_request(ends=1))
    client.join(match_id, "team0")
    failures: list[Exception] = []

    def wait() -> None:
        try:
            client.play(match_id, make_dc_bot(0).choose)
        except Exception as exc:
            failures.append(exc)

    waiting = threading.Thread(target=wait)
    waiting.start()
    streams_open(handle, match_id, 0)
    handle.stop()
    waiting.join(30)
    # not http.client's IncompleteRead from the cut chunked stream
    assert len(failures) == 1 and isinstance(failures[0], ConnectionLostError), failures
    assert "closed the stream before the game ended" in str(failures[0])


@pytest.mark.parametrize(
    ("argv", "bots"),
    [
        (["--opponent", "5"], {1: 5}),
        (["--opponent", "5", "--bot-first"], {0: 5}),
        (["--opponent", "3,6"], {0: 3, 1: 6}),
        ([], {}),
    ],
)
def test_curling_server_opponent__dc_sides_as_the_platform_seats_its_ai(
    argv: list[str], bots: dict[int, int]
) -> None:
    args = build_parser().parse_args(["server", "--protocol", "dc3", *argv])
    assert dc_bots(args, "dc3") == bots


def test_curling_server_help__says_dc_servers_seat_our_bots(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["server", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "--opponent N seats our DC bot of level N (0-8)" in out
    assert "--opponent N,M: bots take both teams" in out
