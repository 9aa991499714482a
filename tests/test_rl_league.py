"""League self-play: the sampling and snapshot rules, the league env, and a league training run."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from rllib_curling.env.config import CurlingEnvConfig
from rllib_curling.env.league import (
    LEARNER,
    CurlingLeagueEnv,
    LeagueConfig,
    LeagueSeating,
    check_league,
    parse_opponent,
    snapshot_slot,
    split_env_config,
)
from rllib_curling.env.spaces import my_parity
from rllib_curling.errors import ConfigError
from rllib_curling.rl.callbacks import WinRates
from rllib_curling.rl.league import league_mapping_fn, pfsp_weights, snapshot_due

ROOT = Path(__file__).resolve().parents[1]
LEAGUE_YAML = ROOT / "tune_configs" / "ppo_league.yaml"


# -- the sampling rule -----------------------------------------------------------------------------


def test_pfsp_weights__hard_rule_favours_opponents_that_still_win() -> None:
    config = LeagueConfig(floor=0.0)
    weights = pfsp_weights(["level_2", "level_5", "level_8"], {"level_2": 0.9, "level_5": 0.5,
                                                               "level_8": 0.0}, config)  # fmt: skip
    assert weights["level_8"] > weights["level_5"] > weights["level_2"]
    assert weights["level_8"] == pytest.approx(1.0 / (0.01 + 0.25 + 1.0))
    assert sum(weights.values()) == pytest.approx(1.0)


def test_pfsp_weights__floor_keeps_a_solved_opponent_and_prior_stands_in_for_unseen() -> None:
    config = LeagueConfig(floor=0.1, prior=0.5)
    weights = pfsp_weights(["level_2", "main_v1"], {"level_2": 1.0}, config)
    assert weights["level_2"] == pytest.approx(0.1 / (0.1 + 0.25))
    nan = pfsp_weights(["level_2", "main_v1"], {"level_2": 1.0, "main_v1": float("nan")}, config)
    assert nan == weights


def test_pfsp_weights__variance_rule_favours_even_opponents() -> None:
    config = LeagueConfig(rule="variance", floor=0.0)
    rates = {"level_8": 0.0, "main_v1": 0.5, "level_2": 1.0}
    weights = pfsp_weights(list(rates), rates, config)
    assert weights == {"level_8": 0.0, "main_v1": 1.0, "level_2": 0.0}


def test_win_rates__window_spans_iterations_and_keeps_the_newest_games() -> None:
    rates = WinRates(window=10)
    rates.update({"level_2": 6}, {"level_2": 0.0})
    rates.update({"level_2": 6, "level_3": 4}, {"level_3": 1.0})  # no new level-2 game
    assert rates.rates() == {"level_2": 0.0, "level_3": 1.0}
    rates.update({"level_2": 14, "level_3": 4}, {"level_2": 1.0})
    assert rates.rates()["level_2"] == pytest.approx(0.8)  # 8 wins of the newest 10 games
    assert rates.games == {"level_2": 14, "level_3": 4}


# -- the snapshot rule -----------------------------------------------------------------------------


def _due(**kwargs: object) -> bool:
    args = {"iterations_since": 10, "newest_win_rate": 0.7, "newest_games": 60,
            "total_games": 500, "has_snapshot": True, "config": LeagueConfig()}  # fmt: skip
    return snapshot_due(**{**args, **kwargs})  # type: ignore[arg-type]


def test_snapshot_due__when_the_newest_snapshot_is_beaten_often_enough() -> None:
    assert _due()
    assert not _due(newest_win_rate=0.55)
    assert not _due(newest_games=49)
    assert not _due(newest_win_rate=None)
    assert not _due(iterations_since=9)
    assert not _due(config=LeagueConfig(max_snapshots=0))


def test_snapshot_due__first_snapshot_needs_only_iterations_and_games() -> None:
    assert _due(has_snapshot=False, newest_win_rate=None, newest_games=0, total_games=50)
    assert not _due(has_snapshot=False, newest_win_rate=None, total_games=49)


# -- names, config and league validation -------------------------------------------------------- --


def test_league_names__levels_snapshots_and_slots() -> None:
    assert parse_opponent("level_8") == 8 and parse_opponent("main_v12") == "main_v12"
    for bad in ("level_9", "main_v0", "main", "L2", 2):
        with pytest.raises(ConfigError, match="neither a built-in level"):
            parse_opponent(bad)
    assert [snapshot_slot(v, 3) for v in (1, 2, 3, 4)] == [
        "snapshot_0", "snapshot_1", "snapshot_2", "snapshot_0",
    ]  # fmt: skip
    assert league_mapping_fn("snapshot_1", None) == "snapshot_1"
    assert league_mapping_fn(LEARNER, None) == "main"


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        ({}, "non-empty dict"),
        ({"level_2": -1.0}, "finite number >= 0"),
        ({"level_2": float("nan")}, "finite number >= 0"),
        ({"level_2": True}, "finite number >= 0"),
        ({"level_2": 0.0}, "must not all be 0"),
        ({"level_12": 1.0}, "neither a built-in level"),
        ({"main_v1": 1.0, "main_v5": 1.0}, "share 'snapshot_0'"),
    ],
)
def test_check_league__refuses_bad_tables(weights: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        check_league(weights, max_snapshots=4)


def test_league_config__unknown_and_bad_keys_fail_at_once() -> None:
    with pytest.raises(ConfigError, match="unknown league key.*'levles'"):
        LeagueConfig.from_dict({"levles": [2]})
    with pytest.raises(ConfigError, match="rule must be one of"):
        LeagueConfig.from_dict({"rule": "easy"})
    with pytest.raises(ConfigError, match="levels must be built-in"):
        LeagueConfig.from_dict({"levels": [2, 9]})
    values, league = split_env_config({"ends": 2, "league": {"levels": [3]}})
    assert values == {"ends": 2} and league.initial_league() == {"level_3": 1.0}


# -- the env ---------------------------------------------------------------------------------------


def _play(env: CurlingLeagueEnv) -> tuple[dict, dict, bool]:
    """One game with sampled actions; (final infos, returns, learner had the hammer)."""
    obs, _ = env.reset()
    returns: dict[str, float] = {}
    hammer = None
    while True:
        mover = next(iter(obs))
        if mover == LEARNER and hammer is None:
            hammer = my_parity(env._clients[LEARNER]) == 1  # end 1: throws last = hammer
        obs, rewards, terminated, _, infos = env.step({mover: env.get_action_space(mover).sample()})
        for agent, reward in rewards.items():
            returns[agent] = returns.get(agent, 0.0) + reward
        if terminated["__all__"]:
            return infos, returns, bool(hammer)


def test_league_env__bot_and_snapshot_games_alternate_the_hammer_per_pair() -> None:
    env = CurlingLeagueEnv({"action": "discrete", "ends": 1, "seed": 5})
    try:
        assert env.possible_agents == ["main", "snapshot_0", "snapshot_1", "snapshot_2",
                                       "snapshot_3"]  # fmt: skip
        env.set_league({"level_2": 1.0})
        for game in range(4):
            infos, returns, hammer = _play(env)
            assert list(infos) == [LEARNER] and infos[LEARNER]["opponent"] == "level_2"
            assert infos[LEARNER]["result"] in ("WIN", "DRAW", "LOSE")
            assert hammer == infos[LEARNER]["hammer"] == (game % 2 == 1)
        env.set_league({"main_v6": 1.0})  # slot (6 - 1) mod 4 = 1
        for game in range(2):
            infos, returns, hammer = _play(env)
            assert sorted(infos) == ["main", "snapshot_1"]
            assert infos["snapshot_1"]["opponent"] == "main_v6"
            assert returns["main"] == -returns["snapshot_1"]  # score: zero-sum
            mine, theirs = infos[LEARNER]["score"]
            result = infos[LEARNER]["result"]
            assert result == ("WIN" if mine > theirs else "LOSE" if mine < theirs else "DRAW")
            assert hammer == infos[LEARNER]["hammer"] == (game % 2 == 1)
        with pytest.raises(ConfigError, match="share"):
            env.set_league({"main_v1": 1.0, "main_v5": 1.0})
        assert env.league == {"main_v6": 1.0}  # a refused table leaves the league as it was
    finally:
        env.close()


def test_league_seating__a_pair_per_draw_bots_by_key_snapshots_in_the_lobby() -> None:
    seating = LeagueSeating(CurlingEnvConfig(seed=1), LeagueConfig(max_snapshots=2))
    assert seating.possible_agents == ["main", "snapshot_0", "snapshot_1"]
    seating.set_league({"level_4": 1.0})
    assert seating.wants_new_session()  # nothing drawn yet
    seating.new_session()
    assert seating.open_session("k") == {"main": "k:4"}
    seating.game_started()
    assert not seating.wants_new_session() and not seating.hammer  # game 2: the bot leads
    seating.game_started()
    assert seating.wants_new_session()  # the pair is over
    seating.set_league({"main_v3": 1.0})  # slot (3 - 1) mod 2 = 0
    seating.new_session()
    assert seating.open_session("k") == {"main": "k", "snapshot_0": "k"}
    assert seating.hammer  # a new session: the learner is Player1 again


def test_league_env__keeps_rllibs_worker_index_for_a_server_list() -> None:
    from ray.rllib.env.env_context import EnvContext

    servers = ["127.0.0.1:7001", "127.0.0.1:7002"]
    env = CurlingLeagueEnv(EnvContext({"server": servers, "league": {"levels": [2]}}, 2))
    try:  # worker 2 takes the second entry (env.config's rule); no connection is made
        assert env._server.ensure() == ("127.0.0.1", 7002)
    finally:
        env.close()


def test_league_env__unknown_league_key_is_refused() -> None:
    with pytest.raises(ConfigError, match="unknown league key"):
        CurlingLeagueEnv({"league": {"size": 3}})


# -- a league training run -------------------------------------------------------------------------


@pytest.mark.slow
def test_ppo_league_yaml__trains_adds_snapshots_and_evaluates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from rllib_curling.cli import rllib as rllib_cli

    league = {"levels": [2, 3], "max_snapshots": 2, "snapshot_min_iterations": 1,
              "snapshot_min_games": 0, "snapshot_threshold": 0.0}  # fmt: skip
    overrides = {"env_config": {"ends": 1, "action": "discrete", "league": league},
                 "num_envs_per_env_runner": 2, "train_batch_size_per_learner": 128,
                 "minibatch_size": 64, "num_epochs": 1}  # fmt: skip
    args = ["train", "-f", str(LEAGUE_YAML), "--storage-path", str(tmp_path),
            "--stop", '{"training_iteration": 3}', "--config", json.dumps(overrides),
            "--ray-num-cpus", "2"]  # fmt: skip
    assert rllib_cli.main(args) == 0
    experiment = tmp_path / "curling-ppo-league"
    (trial,) = [d for d in experiment.iterdir() if d.is_dir() and (d / "result.json").is_file()]
    results = [json.loads(line) for line in (trial / "result.json").read_text().splitlines()]
    last = results[-1]["league"]
    assert results[0]["league"]["snapshots"] == 1  # the first one, after iteration 1
    assert 1 <= last["snapshots"] <= 2 and last["size"] == 2 + last["snapshots"]
    assert {"level_2", "level_3", "main_v1"} <= set(results[0]["league"]["weights"])
    modules = trial.glob("checkpoint_*/learner_group/learner/rl_module/*")
    assert {"main", "snapshot_0"} <= {p.name for p in modules if p.is_dir()}
    capsys.readouterr()
    assert rllib_cli.main(["evaluate", str(experiment), "--episodes", "2", "--opponent", "1",
                           "--ends", "1"]) == 0  # fmt: skip
    assert "level 1" in capsys.readouterr().out
    # A second league starts its learner from the first one's checkpoint (league.start_from).
    from ray.rllib.core.rl_module.rl_module import RLModule

    def main_weights(run: Path) -> dict:
        (ckpt,) = sorted(run.glob("*/checkpoint_*"))[-1:]
        module = RLModule.from_checkpoint(ckpt / "learner_group/learner/rl_module/main")
        return {k: np.asarray(v) for k, v in module.get_state().items()}

    started = {**overrides, "env_config": {**overrides["env_config"],
               "league": {**league, "start_from": str(experiment)}}}  # fmt: skip
    second = tmp_path / "second"
    args = ["train", "-f", str(LEAGUE_YAML), "--storage-path", str(second),
            "--stop", '{"training_iteration": 1}', "--config", json.dumps(started),
            "--ray-num-cpus", "2"]  # fmt: skip
    assert rllib_cli.main(args) == 0
    before, after = main_weights(experiment), main_weights(second / "curling-ppo-league")
    # One small PPO step away from the first run's learner, far from a fresh network.
    drift = max(float(np.abs(before[k] - after[k]).max()) for k in before)
    assert drift < 0.05


def test_resolve_start_from__absolute_checkpoint_or_one_line_error(tmp_path: Path) -> None:
    from rllib_curling.rl.league import resolve_start_from

    assert resolve_start_from({"ends": 1}) == {"ends": 1}
    with pytest.raises(ConfigError, match="start_from") as err:
        resolve_start_from({"league": {"start_from": str(tmp_path / "nothing")}})
    assert "\n" not in str(err.value)


@pytest.mark.slow
def test_league_runs__env_runner_steps_the_games_together(ray_session: None) -> None:
    from rllib_curling.env.vector_multi_agent import CurlingVectorMultiAgentEnv
    from rllib_curling.rl.algorithm_configs import algorithm_config
    from rllib_curling.rl.env_runners import CurlingMultiAgentEnvRunner

    env_config = {"ends": 1, "action": "discrete", "league": {"levels": [2, 3]}}
    config = algorithm_config(
        "PPO", env="curling_league", env_config=env_config, num_env_runners=0,
        num_envs_per_env_runner=2, model_config={"hiddens": [8]},
    )  # fmt: skip
    assert config.env_runner_cls is CurlingMultiAgentEnvRunner
    algo = config.build_algo()
    try:
        runner = algo.env_runner
        assert isinstance(runner.env, CurlingVectorMultiAgentEnv) and runner.env.num_envs == 2
        episodes = runner.sample(num_episodes=2)
        finished = [e for e in episodes if e.is_done]
        assert finished and all(e.get_infos()["main"][-1]["result"] for e in finished)
    finally:
        algo.stop()
