"""The DC agent pipeline: teacher rows on DC's ice (``offline.dc_dataset``), the layout index a
DC search reports, a DC agent folder (``"ice": "fcv1"``) played as a DC bot
(``agent.dc_player``), the refusal of an agent of the other ice, and ``curling play --protocol
dc3 --agent`` against our DC3 server."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rllib_curling import dc_win_table
from rllib_curling.agent.dc_player import AgentDCBot, load_dc_agent
from rllib_curling.agent.policy import load_policy
from rllib_curling.dc_aiming import dc_shot_tables
from rllib_curling.dc_bots.base import clamped_shot
from rllib_curling.dc_bots.levels import make_dc_bot
from rllib_curling.dc_bots.matches import play_dc_match
from rllib_curling.dc_bots.search import DC_SEARCH_SPECS, SearchDCBot
from rllib_curling.dc_env.config import DC_SHOTS_SPEC, DCEnvConfig
from rllib_curling.dc_env.spaces import (
    OBS_SIZE,
    action_space,
    dc_layout,
    observation_space,
    observe,
)
from rllib_curling.dc_game import DCGame, DCGameConfig, DCGameState
from rllib_curling.dc_ice import Fcv1Simulator
from rllib_curling.errors import ConfigError
from rllib_curling.offline.dc_dataset import DCDatasetConfig, dc_shard_rows, dc_teacher_levels
from rllib_curling.rl.checkpoints import export_agent
from rllib_curling.win_odds import END_SCORES

pytestmark = pytest.mark.timeout(300)


def busy_state(shots: int = 6) -> DCGameState:
    """A DC state with stones in play: level 3 throws ``shots`` stones, noise off."""
    bot, state = make_dc_bot(3), DCGame.init(DCGameConfig(standard_end_count=2))
    simulate = Fcv1Simulator(None)
    for _ in range(shots):
        state = DCGame.step(state, bot.choose(state, None), simulate).state
    return state


def dc_agent(
    tmp_path: Path, value_weight: float = 0.0, effort: dict[str, int] | None = None,
    **model_config: Any,
) -> Path:  # fmt: skip
    """An untrained DC module exported as an agent folder, its search's ``value_weight`` (0: the
    network alone) and ``effort``."""
    from rllib_curling.rl.dc_models import DCMaskedActorCritic

    module = DCMaskedActorCritic(observation_space=observation_space("shots"),
                                 action_space=action_space(DCEnvConfig()),
                                 model_config={"hidden": [16], **model_config})  # fmt: skip
    module.save_to_path(str(tmp_path / "module"))
    search: dict[str, Any] = {"k": 0, "value_weight": value_weight}
    if effort:
        search["effort"] = effort
    return export_agent(tmp_path / "module", tmp_path / "agent", search=search, card="# test\n")


def test_dc_shard_rows__columns_shapes_and_labels_inside_the_mask() -> None:
    config = DCDatasetConfig(teacher=min(dc_teacher_levels()), opponents=(1,), games=2, ends=1,
                             games_per_shard=2)  # fmt: skip
    rows, summary = dc_shard_rows(config, 0)
    n = dc_layout().n
    assert summary["games"] == 2 and summary["rows"] == len(rows) == 16  # 8 stones a game
    assert {r["eps_id"] for r in rows} == {"dc-0-0-0", "dc-0-1-1"}
    for row in rows:
        assert row["obs"]["observations"].shape == (OBS_SIZE,)
        assert row["obs"]["action_mask"].shape == (n,) and row["screen"].shape == (n,)
        assert row["obs"]["action_mask"][row["actions"]] == 1.0
        assert np.isfinite(row["screen"][row["actions"]])
        assert np.isnan(row["screen"][row["obs"]["action_mask"] == 0]).all()
        assert row["new_obs"]["observations"].shape == (OBS_SIZE,)
        assert row["truncateds"] is False
    last = [r for r in rows if r["terminateds"]]
    assert len(last) == 2 and all(r["result"] in (0.0, 0.5, 1.0) for r in last)
    assert all(np.sign(r["end_points"]) == np.sign(r["result"] - 0.5) for r in last)


def test_dc_dataset_config__refuses_a_teacher_that_cannot_search_the_layout() -> None:
    with pytest.raises(ConfigError, match="DC teacher"):
        DCDatasetConfig(teacher=3)
    assert DCDatasetConfig().teacher == max(dc_teacher_levels())


def test_search_dc_bot__reported_layout_index_throws_its_release() -> None:
    state = busy_state()
    teacher = SearchDCBot(5).over_layout(DC_SHOTS_SPEC)
    judgement = teacher.judge(state, np.random.default_rng(1))
    thrown = clamped_shot(dc_layout().throw(judgement.index, dc_shot_tables(), state.position))
    assert np.allclose(thrown, judgement.shot)
    assert judgement.values[judgement.index] == np.nanmax(judgement.values)  # noise-free: best


def test_export_dc_agent__says_fcv1_and_chooses_a_legal_shot(tmp_path: Path) -> None:
    import json

    folder = dc_agent(tmp_path)
    assert json.loads((folder / "agent.json").read_text())["ice"] == "fcv1"
    bot = load_dc_agent(folder)
    state = busy_state(3)
    index = bot.action(state)
    assert dc_layout().legal(state.position)[index]
    assert np.allclose(
        bot.choose(state), clamped_shot(dc_layout().throw(index, dc_shot_tables(), state.position))
    )


def test_load_dc_agent__searches_with_the_end_score_head_when_its_folder_says_so(
    tmp_path: Path,
) -> None:
    from rllib_curling.agent.dc_search import DCValueSearch

    folder = dc_agent(tmp_path, value_weight=0.7)
    agent = load_dc_agent(folder)
    assert isinstance(agent, DCValueSearch) and agent.value_weight == 0.7
    state = busy_state(5)
    policy = load_policy(folder, ice="fcv1")
    p = policy.end_scores(observe(state, state.next_team, "shots")["observations"][None])
    table = dc_win_table.load()
    totals, team = state.totals, state.next_team
    expected = p[0] @ table.after_end(totals[team] - totals[1 - team], END_SCORES,
                                      state.config.standard_end_count - state.end - 1,
                                      int(team == state.hammer_team))  # fmt: skip
    assert agent.chance(state, observe(state, team, "shots")["observations"][None]) == (
        pytest.approx(expected)
    )
    assert isinstance(load_dc_agent(folder, value_weight=0.0), AgentDCBot)  # --no-search
    assert load_dc_agent(dc_agent(tmp_path / "plain"), value_weight=0.4).value_weight == 0.4
    assert agent.spec == DC_SEARCH_SPECS[8]  # DC level 8's search unless the folder says more


def test_load_dc_agent__searches_as_hard_as_its_folders_effort_says(tmp_path: Path) -> None:
    effort = {"top_k": 16, "samples": 16, "reply": 10, "reply_top": 3, "reply_samples": 6}
    agent = load_dc_agent(dc_agent(tmp_path, value_weight=0.7, effort=effort))
    assert isinstance(agent, SearchDCBot)
    assert agent.spec == dataclasses.replace(DC_SEARCH_SPECS[8], **effort)


def test_load_dc_agent__a_network_without_the_end_score_head_searches_with_its_value(
    tmp_path: Path,
) -> None:
    folder = dc_agent(tmp_path, value_weight=1.0, end_scores=False)
    agent = load_dc_agent(folder)
    state = busy_state(5)
    obs = observe(state, state.next_team, "shots")["observations"][None]
    v = load_policy(folder, ice="fcv1").values(obs)
    assert agent.chance(state, obs) == pytest.approx(np.clip(0.5 + 0.5 * v, 0.0, 1.0))


def test_load_policy__refuses_an_agent_of_the_other_ice(tmp_path: Path) -> None:
    folder = dc_agent(tmp_path)
    with pytest.raises(ConfigError, match="Digital Curling's ice .* not for the platform's"):
        load_policy(folder)
    with pytest.raises(ConfigError, match="platform's ice, not for Digital Curling"):
        load_dc_agent("builtin")


def test_play_dc_match__an_agent_plays_a_dc_level(tmp_path: Path) -> None:
    agent = load_dc_agent(dc_agent(tmp_path))
    assert isinstance(agent, AgentDCBot)
    match = play_dc_match(agent, make_dc_bot(0), 2, DCGameConfig(standard_end_count=1), seed=3)
    assert match.a_teams == (0, 1) and len(match.games) == 2
    assert all(g.shots >= 16 for g in match.games)


def test_rllib_evaluate__a_dc_agent_plays_our_dc_levels_on_dc_ice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from rllib_curling.cli.rllib import main

    folder = str(dc_agent(tmp_path))
    argv = ["evaluate", folder, "--episodes", "2", "--opponent", "0,1", "--ends", "1"]
    assert main([*argv, "--json"]) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert report["ice"] == "fcv1" and [r["opponent"] for r in report["opponents"]] == [0, 1]
    for row in report["opponents"]:
        assert row["games"] == 2 and row["hammer_games"] == 1  # the teams alternate
        assert row["wins"] + row["draws"] + row["losses"] == 2
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "DC level 1 game 2:" in out and re.search(r"DC level 0 +2 ", out)


@pytest.mark.parametrize(
    ("flags", "says"),
    [(["--watch"], "--watch is for platform agents"),
     (["--search", "4"], "--search K is for platform agents"),
     (["--samples", "4"], "--samples is for platform agents"),
     (["--no-search", "--value-weight", "0.5"], "choose one"),
     (["--server", "127.0.0.1:7788"], "evaluated in-process")],
)  # fmt: skip
def test_rllib_evaluate__a_dc_agent_refuses_platform_options_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], says: str
) -> None:
    from rllib_curling.cli.rllib import main

    assert main(["evaluate", str(dc_agent(tmp_path)), *flags]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and says in err[0], err


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.slow
def test_curling_play_dc3_agent__plays_a_one_end_game_against_our_server(tmp_path: Path) -> None:
    folder = dc_agent(tmp_path)
    port0, port1 = free_port(), free_port()
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    server = subprocess.Popen(
        [sys.executable, "-m", "rllib_curling", "server", "--protocol", "dc3", "--host",
         "127.0.0.1", "--port0", str(port0), "--port1", str(port1), "--ends", "1",
         "--opponent", "1", "--log-dir", str(tmp_path / "logs"), "-q"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # wait for team 0's port
            try:
                socket.create_connection(("127.0.0.1", port0), timeout=1).close()
                break
            except OSError:
                time.sleep(0.5)
        out = subprocess.run(
            [sys.executable, "-m", "rllib_curling", "play", "--protocol", "dc3", "--port",
             str(port0), "--agent", str(folder), "--timeout", "60"],
            env=env, capture_output=True, text=True, timeout=240,
        )  # fmt: skip
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
    assert out.returncode == 0, out.stderr
    assert f"(agent {folder})" in out.stdout
    assert re.search(r"^game over: team0 (won|lost|drew) \d+-\d+", out.stdout, re.M), out.stdout
