"""The official ``dc4client`` (PyPI, MIT), 1.0.7 and 1.0.4, plays a whole match against ``curling
server --protocol dc4``, unchanged: every shot accepted, every state read in the spelling of its
version, the final scores equal to our records.

dc4client pins old aiohttp/pydantic/requests, so each version lives in a venv of its own: set
``DC4CLIENT_PYTHON`` (1.0.7) and ``DC4CLIENT_104_PYTHON`` (1.0.4) to those venvs' pythons
(``.ci/run`` makes both). Without one, its case is skipped and says so.

What differs between the two (read in their sources): 1.0.4's ``StateSchema`` requires
``shot_number`` and reads ``mix_doubles_settings``, 1.0.7's requires ``team_shot_number`` and reads
``mixed_doubles_settings`` (our states carry both, ``dc4_state.LEGACY_SPELLINGS``); 1.0.4 names
the game mode ``mix_doubles``, 1.0.7 ``mixed_doubles``; 1.0.7's ``last_move`` may carry
``actual_*`` values; 1.0.4's ``get_score()`` reads fields no server sends (``score.team0``/
``team1`` are read directly here).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from server_helpers import send_stop_signal

from rllib_curling.server.records import read_records

#: (version, the environment variable naming its venv's python).
VERSIONS = (("1.0.7", "DC4CLIENT_PYTHON"), ("1.0.4", "DC4CLIENT_104_PYTHON"))
pytestmark = pytest.mark.timeout(180)


def client_python(version: str, variable: str) -> str:
    """The python of the venv with ``dc4client==version``, or skip saying how to get one."""
    python = os.environ.get(variable)
    if not python:
        pytest.skip(
            f"{variable} is not set (the python of a venv with dc4client=={version}, which "
            "pins aiohttp/pydantic versions of its own; .ci/run makes one)"
        )
    return python


CREATE = """
import asyncio, sys
from dc4client import (ClientDataModel, MatchMakerClient, PhysicalSimulatorModel,
                       TournamentModel)
host, port = sys.argv[1], int(sys.argv[2])
match = ClientDataModel(
    tournament=TournamentModel(tournament_name="ci"),
    simulator=PhysicalSimulatorModel(simulator_name="fcv1"), applied_rule="fgz_rule",
    time_limit=120, extra_end_time_limit=60, standard_end_count=1, match_name="ci")
print(asyncio.run(MatchMakerClient(host, port, "alice", "pw").create_match(match)))
"""

# A team that throws a draw whenever a new state says it is its turn, until a winner is set.
TEAM = """
import asyncio, importlib.metadata, json, logging, math, sys
from dc4client import DCClient, MatchNameModel, PlayerModel, TeamModel
host, port, match_id, team, user = sys.argv[1], int(sys.argv[2]), *sys.argv[3:6]

async def main():
    client = DCClient(match_id=match_id, username=user, password="pw",
                      match_team_name=MatchNameModel(team), log_level=logging.DEBUG,
                      auto_save_log=False)
    client.set_server_address(host, port)
    players = {f"player{k}": PlayerModel(max_velocity=4.0, shot_std_dev=0.0076,
                                         angle_std_dev=0.0018, player_name=f"{user}{k}")
               for k in range(1, 5)}
    side = await client.send_team_info(TeamModel(use_default_config=False, team_name=user,
                                                 match_team_name=MatchNameModel(team), **players))
    shots, seen, state, spelled = 0, set(), None, True
    async for state in client.receive_state_data():
        # this version's spelling of the team's shot number (1.0.4: shot_number), read right
        team_shot = getattr(state, "team_shot_number", getattr(state, "shot_number", None))
        spelled &= team_shot == state.total_shot_number // 2
        client.state_data = state  # what the getters read
        team0, team1 = client.get_stone_coordinates()
        spelled &= len(team0) == len(team1) == 8 and client.get_end_number() == state.end_number
        if state.winner_team is not None:
            break
        key = (state.end_number, state.total_shot_number)
        if state.next_shot_team == side and key not in seen:
            seen.add(key)
            # draws into the house: cw (the client's ω > 0) aimed left, ccw aimed right
            spin = 1 if shots % 2 == 0 else -1
            await client.send_shot_info(translational_velocity=2.37,
                                        shot_angle=math.pi / 2 + spin * 0.021,
                                        angular_velocity=spin * math.pi / 2)
            shots += 1
    errors = [e["message"] for e in client.memory_handler.buffer if e["level"] == "ERROR"]
    print(json.dumps({"version": importlib.metadata.version("dc4client"), "spelled": spelled,
                      "side": str(getattr(side, "value", side)), "shots": shots,
                      "winner": state.winner_team, "end": state.end_number,
                      "score": {"team0": state.score.team0, "team1": state.score.team1},
                      "errors": errors}))

asyncio.run(main())
"""


def run_dc4client(python: str, script: Path, *args: str, timeout: float = 120) -> str:
    done = subprocess.run(
        [python, str(script), *args], capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip().splitlines()[-1]


@pytest.mark.slow  # a few seconds warm; a fresh checkout compiles the fcv1 kernels first (~30 s)
@pytest.mark.parametrize(("version", "variable"), VERSIONS, ids=[v for v, _ in VERSIONS])
def test_dc4client__plays_a_whole_match_and_the_scores_match_our_records(
    tmp_path: Path, version: str, variable: str
) -> None:
    python = client_python(version, variable)
    (tmp_path / "create.py").write_text(CREATE)
    (tmp_path / "team.py").write_text(TEAM)
    logs = tmp_path / "records"
    teams: list[subprocess.Popen[str]] = []
    server = subprocess.Popen(
        [sys.executable, "-m", "rllib_curling", "server", "--protocol", "dc4", "--http-port",
         "0", "--announce", "--seed", "11", "--log-dir", str(logs)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert server.stdout is not None
        line = server.stdout.readline().split()
        assert line[:2] == ["LISTENING", "127.0.0.1"], line
        host, port = line[1], line[2]
        match_id = run_dc4client(python, tmp_path / "create.py", host, port)
        teams[:] = [
            subprocess.Popen(
                [
                    python,
                    str(tmp_path / "team.py"),
                    host,
                    port,
                    match_id,
                    team,
                    user,
                ],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )  # fmt: skip
            for team, user in (("team0", "alice"), ("team1", "bob"))
        ]
        results: list[dict[str, Any]] = []
        for proc in teams:
            out, err = proc.communicate(timeout=150)
            assert proc.returncode == 0, err[-2000:]
            results.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        for proc in teams:
            if proc.poll() is None:
                proc.kill()  # by its PID
                proc.wait()
        send_stop_signal(server, signal.SIGINT)
        server.wait(timeout=20)

    (path,) = logs.glob("curling-server-*.jsonl")
    records = read_records(path)
    (game,) = [r for r in records if r["type"] == "dc4_game"]
    shots = [r for r in records if r["type"] == "dc4_shot"]
    assert [r["version"] for r in results] == [version, version]
    assert all(r["spelled"] for r in results), results
    assert [r["side"] for r in results] == ["team0", "team1"]
    assert all(r["errors"] == [] for r in results), results  # no refused call
    assert sum(r["shots"] for r in results) == len(shots) >= 16
    assert len(shots) % 16 == 0 and all(s["thrown"] is not None for s in shots)
    assert game["reason"] == "score" and game["winner"] in ("team0", "team1")
    for result in results:
        assert result["winner"] == game["winner"]
        assert result["score"] == game["score"]
