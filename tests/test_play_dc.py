"""``curling play --protocol dc3|dc4 --level N`` and ``dc_client``: our DC bots as clients of our
DC3 and DC4 servers (in process, on 127.0.0.1), whole 1-end games whose scores the clients
report as the servers record them; the states the clients rebuild; one-line flag errors."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rllib_curling.cli.curling import main
from rllib_curling.dc_client import state_from_dc3, state_from_dc4
from rllib_curling.dc_game import DCGameConfig, DCGameState
from rllib_curling.dc_protocol.dc4_state import State, team_stones
from rllib_curling.server.dc3.config import DC3ServerConfig
from rllib_curling.server.dc3.runner import DC3Handle
from rllib_curling.server.dc3.wire import wire_state
from rllib_curling.server.dc4.config import DC4ServerConfig
from rllib_curling.server.dc4.runner import DC4Handle
from rllib_curling.server.records import read_records

pytestmark = pytest.mark.timeout(120)

GAME_OVER = re.compile(r"^game over: (team[01]) (won|lost|drew) (\d+)-(\d+) \((\w+)\) scores (.*)$")


def records(tmp_path: Path, kind: str) -> list[dict[str, Any]]:
    (path,) = tmp_path.glob("*.jsonl")
    return [r for r in read_records(path) if r["type"] == kind]


def play_in_threads(
    *argvs: list[str] | Callable[[], list[str]], between: Callable[[], None] | None = None
) -> list[int]:
    """``curling play`` once per argv (or a function giving it when its thread starts), each in
    a thread, ``between()`` run after the first starts; their exit codes."""
    codes = [-1] * len(argvs)

    def run(k: int) -> None:
        argv = argvs[k]
        codes[k] = main(argv() if callable(argv) else argv)

    threads = [threading.Thread(target=run, args=(k,), daemon=True) for k in range(len(argvs))]
    for k, thread in enumerate(threads):
        thread.start()
        if k == 0 and between is not None:
            between()
    for thread in threads:
        thread.join(100)
    return codes


def game_over_lines(out: str) -> dict[str, re.Match[str]]:
    found = {}
    for line in out.splitlines():
        if m := GAME_OVER.match(line):
            found[m[1]] = m
    return found


@pytest.fixture
def dc3_server(tmp_path: Path) -> Iterator[DC3Handle]:
    config = DC3ServerConfig(ports=(0, 0), seed=7, log_dir=str(tmp_path), ends=1,
                             thinking_time=60.0)  # fmt: skip
    handle = DC3Handle(config)
    yield handle
    handle.stop()


@pytest.fixture
def dc4_server(tmp_path: Path) -> Iterator[DC4Handle]:
    handle = DC4Handle(DC4ServerConfig(port=0, seed=5, log_dir=str(tmp_path), ping_interval=0.5))
    yield handle
    handle.stop()


def test_play_dc3__levels_2_and_3_play_a_game_and_report_the_recorded_scores(
    dc3_server: DC3Handle, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    port0, port1 = dc3_server.ports
    argv = ["play", "--protocol", "dc3", "--timeout", "60"]
    codes = play_in_threads(
        [*argv, "-p", str(port0), "--level", "2", "--name", "two"],
        [*argv, "-p", str(port1), "--level", "3", "--name", "three"],
    )
    out = capsys.readouterr().out
    assert codes == [0, 0], out
    lines = game_over_lines(out)
    assert set(lines) == {"team0", "team1"}, out
    dc3_server.stop()
    (game,) = records(tmp_path, "dc3_game")
    assert game["teams"] == ["two", "three"] and game["reason"] == "score"
    for team, m in lines.items():
        k = int(team[-1])
        assert (int(m[3]), int(m[4])) == (game["totals"][k], game["totals"][1 - k])
        assert m[2] == ("won" if game["winner"] == team else "lost")
        assert json.loads(m[6]) == game["scores"]
    assert len(records(tmp_path, "dc3_shot")) == 16


def test_play_dc4__a_created_match_and_a_joined_one_play_and_report_the_recorded_scores(
    dc4_server: DC4Handle, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert dc4_server.server is not None and dc4_server.server.address is not None
    port = str(dc4_server.server.address[1])
    argv = ["play", "--protocol", "dc4", "--http-port", port, "--timeout", "60"]
    joined: list[str] = []

    def wait_for_the_match() -> None:
        assert dc4_server.server is not None
        deadline = time.monotonic() + 30
        while not dc4_server.server.matches and time.monotonic() < deadline:
            time.sleep(0.02)
        joined.append(next(iter(dc4_server.server.matches)))

    def second() -> list[str]:  # the joining client, once the match id is known
        # as the README runs them: both with the default --name (and so the default users)
        return [*argv, "--level", "3", "--password", "pw", "--match-id", joined[0]]

    codes = play_in_threads(
        [*argv, "--level", "2", "--ends", "1"],
        second,
        between=wait_for_the_match,
    )
    out = capsys.readouterr().out
    assert codes == [0, 0], out
    assert f"created match {joined[0]}" in out
    lines = game_over_lines(out)
    assert set(lines) == {"team0", "team1"}, out
    (game,) = records(tmp_path, "dc4_game")
    assert game["match_id"] == joined[0] and game["teams"] == ["rllib-curling"] * 2
    for team, m in lines.items():
        k = int(team[-1])
        assert (int(m[3]), int(m[4])) == (game["totals"][k], game["totals"][1 - k])
        assert m[2] == ("won" if game["winner"] == team else "lost") and m[5] == game["reason"]
        assert json.loads(m[6]) == game["score"]


def mid_game() -> DCGameState:
    position = np.zeros((16, 2))
    position[0], position[2], position[3] = (0.1, 38.0), (-0.5, 36.0), (1.2, 40.1)
    return DCGameState(
        config=DCGameConfig(standard_end_count=2),
        remaining=(30.0, 31.5),
        extra_remaining=(21.9, 21.9),
        position=position,
        shot=5,
        end=1,
        first_team=1,
        end_scores=((0, 2),),
    )


def test_state_from_dc3__rebuilds_what_the_server_sent() -> None:
    state = mid_game()
    rebuilt = state_from_dc3(wire_state(state))
    assert np.array_equal(rebuilt.position[:5], state.position[:5])
    assert (rebuilt.shot, rebuilt.end, rebuilt.first_team) == (5, 1, 1)
    assert rebuilt.end_scores == state.end_scores and rebuilt.next_team == state.next_team
    assert rebuilt.config.standard_end_count == 2 and rebuilt.remaining == state.remaining


def test_state_from_dc4__rebuilds_what_the_server_sent() -> None:
    state = mid_game()
    team0, team1 = state.team_stones()
    wire = State(
        end_number=1, total_shot_number=5, next_shot_team="team0",
        remaining_time=state.remaining, extra_end_remaining_time=state.extra_remaining,
        stones=(team_stones(team0.tolist()), team_stones(team1.tolist())),
        score=state.score_lists(),
    )  # fmt: skip
    rebuilt = state_from_dc4(wire, "no_tick")
    assert np.array_equal(rebuilt.position, state.position)
    assert (rebuilt.shot, rebuilt.end, rebuilt.first_team, rebuilt.next_team) == (5, 1, 1, 0)
    assert rebuilt.end_scores == state.end_scores and rebuilt.config.rule == "no_tick"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--protocol", "dc3", "--level", "2", "--checkpoint", "builtin"],
         "--checkpoint applies to the platform's protocol only, not --protocol dc3"),
        (["--protocol", "dc4", "--level", "2", "-k", "x"],
         "--key applies to the platform's protocol only, not --protocol dc4"),
        (["--checkpoint", "builtin", "--level", "2"],
         "--level applies to dc3 and dc4 only, not --protocol platform"),
        (["--protocol", "dc3", "--level", "2", "--value-weight", "0.5"],
         "--value-weight applies to a trained agent (--agent), not to --level"),
        (["--protocol", "dc3", "--agent", "builtin", "--search", "4"],
         "--search K is for platform agents: a DC agent searches DC level 8's candidates "
         "(--value-weight W weighs its network, --no-search plays the network alone)"),
        (["--protocol", "dc3", "--level", "2", "--match-id", "x"],
         "--match-id applies to dc4 only, not --protocol dc3"),
        (["--protocol", "dc4", "--level", "2", "-p", "10000"],
         "--port is not for --protocol dc4; its HTTP port is --http-port"),
        (["--protocol", "dc3"],
         "--protocol dc3 needs one of --level N (our DC bot) or --agent AGENT (a trained "
         "agent for DC ice)"),
        ([], "--checkpoint is required (or --protocol dc3|dc4 with --level N or --agent AGENT)"),
        (["--protocol", "dc4", "--level", "9"],
         "--level: DC bot level must be one of [0, 1, 2, 3, 4, 5, 6, 7, 8], got 9"),
        (["--protocol", "dc4", "--level", "1", "--ends", "1", "--match-id", "x"],
         "--ends sets a match this client creates; not with --match-id"),
    ],
)  # fmt: skip
def test_play__flags_that_do_not_fit_the_protocol_are_one_line_errors(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["play", *argv]) == 2
    assert capsys.readouterr().err == f"curling play: {message}\n"


def test_play__a_dc3_port_without_a_server_is_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert main(["play", "--protocol", "dc3", "--level", "0", "-p", str(port)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("curling play: cannot connect to the DC3 server") and err.count("\n") == 1
