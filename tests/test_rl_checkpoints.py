"""find_checkpoint: every way a user names a checkpoint (README, "Using it")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agent_helpers import saved_module

from rllib_curling.errors import ConfigError
from rllib_curling.rl.checkpoints import MODULE_DIR, find_checkpoint


def _checkpoint(path: Path) -> Path:
    (path / MODULE_DIR).mkdir(parents=True)
    return path


def _trial(path: Path, n_checkpoints: int, win_rates: list[float], returns: list[float]) -> Path:
    path.mkdir(parents=True)
    for k in range(n_checkpoints):
        _checkpoint(path / f"checkpoint_{k:06d}")
    with open(path / "result.json", "w", encoding="utf-8") as fh:
        for w, r in zip(win_rates, returns, strict=True):
            row = {"env_runners": {"win_rate": w, "episode_return_mean": r}}
            fh.write(json.dumps(row) + "\n")
    return path


@pytest.fixture
def experiment(tmp_path: Path) -> Path:
    """results/curling-ppo with three trials; the second's last win rate is the best."""
    exp = tmp_path / "results" / "curling-ppo"
    _trial(exp / "PPO_curling_a_00000", 3, [0.9, 0.2], [5.0, -1.0])  # best once, not at the end
    _trial(exp / "PPO_curling_a_00001", 12, [0.1, 0.6], [-3.0, 2.0])
    _trial(exp / "PPO_curling_a_00002", 2, [0.6], [1.0])  # same win rate, lower return
    (exp / "basic-variant-state.json").write_text("{}")
    return exp


def test_experiment_dir__newest_checkpoint_of_the_best_trial(experiment: Path) -> None:
    # checkpoint_000011 sorts after checkpoint_000002: names are zero-padded
    expected = experiment / "PPO_curling_a_00001" / "checkpoint_000011"
    assert find_checkpoint(experiment) == expected


def test_trial_dir__without_evaluations_its_newest_checkpoint(experiment: Path) -> None:
    trial = experiment / "PPO_curling_a_00000"
    assert find_checkpoint(trial) == trial / "checkpoint_000002"


def test_checkpoint_and_module_dirs__as_they_are(experiment: Path) -> None:
    ckpt = experiment / "PPO_curling_a_00000" / "checkpoint_000001"
    assert find_checkpoint(ckpt) == ckpt
    module = _checkpoint(experiment / "saved") / MODULE_DIR / "default_policy"
    module.mkdir()
    (module / "class_and_ctor_args.pkl").write_bytes(b"")
    assert find_checkpoint(module) == module


def test_find_checkpoint__relative_and_home_paths(
    experiment: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = experiment / "PPO_curling_a_00001" / "checkpoint_000011"
    monkeypatch.chdir(tmp_path)
    assert find_checkpoint("results/curling-ppo") == expected
    assert find_checkpoint(Path("results") / "curling-ppo") == expected
    monkeypatch.setenv("HOME", str(tmp_path))
    assert find_checkpoint("~/results/curling-ppo") == expected

    class TuneCheckpoint:  # anything with .path, as ray.tune.Checkpoint
        path = "results/curling-ppo/PPO_curling_a_00000"

    assert find_checkpoint(TuneCheckpoint()).name == "checkpoint_000002"


def test_missing_or_empty__says_what_it_found(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no checkpoint directory at"):
        find_checkpoint(tmp_path / "nope")
    (tmp_path / "empty" / "PPO_curling_0").mkdir(parents=True)
    with pytest.raises(FileNotFoundError, match="holds no RLlib checkpoint"):
        find_checkpoint(tmp_path / "empty")


def test_agent_folder__same_policy_and_value_as_the_checkpoint(tmp_path: Path) -> None:
    import numpy as np

    from rllib_curling import observation
    from rllib_curling.agent.policy import load_policy
    from rllib_curling.rl.checkpoints import AGENT_FILE, export_agent

    source = saved_module(tmp_path / "module")
    out = export_agent(source, tmp_path / "agent", search={"k": 4, "value_weight": 0.25},
                       card="# card\n")  # fmt: skip
    assert sorted(p.name for p in out.iterdir()) == ["MODEL_CARD.md", AGENT_FILE, "weights.pt"]
    assert find_checkpoint(out) == out.resolve()
    a, b = load_policy(source), load_policy(out)
    obs = np.random.default_rng(0).uniform(-1, 1, (8, observation.OBS_SIZE)).astype(np.float32)
    np.testing.assert_array_equal(a(obs), b(obs))
    np.testing.assert_allclose(a.values(obs), b.values(obs), rtol=0, atol=1e-6)
    assert a.agent_info is None and b.agent_info["search"] == {"k": 4, "value_weight": 0.25}
    info = json.loads((out / AGENT_FILE).read_text())
    assert info["module"] == "CurlingActorCritic" and info["action"] == "discrete"
    assert info["model_config"]["hiddens"] == [32]


def test_agent_folder__of_another_format_is_refused(tmp_path: Path) -> None:
    from rllib_curling.agent.policy import load_policy
    from rllib_curling.rl.checkpoints import AGENT_FILE, export_agent

    out = export_agent(saved_module(tmp_path / "module"), tmp_path / "agent")
    info = json.loads((out / AGENT_FILE).read_text())
    (out / AGENT_FILE).write_text(json.dumps({**info, "format": 99}))
    with pytest.raises(ValueError, match="agent format 99"):
        load_policy(out)


def test_builtin__the_shipped_agent_loads_and_searches_by_default() -> None:
    import numpy as np

    from rllib_curling import observation
    from rllib_curling.agent.player import PolicyPlayer
    from rllib_curling.agent.policy import load_policy
    from rllib_curling.rl.checkpoints import BUILTIN_DIR, CARD_FILE, WEIGHTS_FILE

    assert find_checkpoint("builtin") == BUILTIN_DIR
    assert (BUILTIN_DIR / WEIGHTS_FILE).stat().st_size <= 5_000_000
    assert "curling dataset" in (BUILTIN_DIR / CARD_FILE).read_text(encoding="utf-8")
    policy = load_policy("builtin")
    assert policy.has_values
    obs = np.zeros((2, observation.OBS_SIZE), np.float32)
    assert policy(obs).shape == (2,)
    player = PolicyPlayer.from_checkpoint("builtin")
    assert player.search is not None and player.search.k == policy.search_defaults.k >= 1
    assert PolicyPlayer.from_checkpoint("builtin", search=0).search is None  # --no-search


def test_builtin_dc__the_shipped_dc_agent_searches_with_its_end_score_head() -> None:
    from rllib_curling.agent.dc_player import AgentDCBot, load_dc_agent
    from rllib_curling.agent.dc_search import DCValueSearch
    from rllib_curling.agent.policy import load_policy
    from rllib_curling.rl.checkpoints import BUILTIN_DC_DIR, CARD_FILE, DC_ICE, WEIGHTS_FILE

    assert find_checkpoint("builtin-dc") == BUILTIN_DC_DIR
    assert (BUILTIN_DC_DIR / WEIGHTS_FILE).stat().st_size <= 5_000_000
    assert "curling dataset" in (BUILTIN_DC_DIR / CARD_FILE).read_text(encoding="utf-8")
    policy = load_policy("builtin-dc", ice=DC_ICE)
    assert policy.has_end_scores and policy.search_defaults.value_weight > 0.0
    agent = load_dc_agent("builtin-dc")
    assert isinstance(agent, DCValueSearch)
    assert agent.value_weight == policy.search_defaults.value_weight
    assert isinstance(load_dc_agent("builtin-dc", value_weight=0.0), AgentDCBot)  # --no-search
    with pytest.raises(ConfigError, match="Digital Curling's ice"):
        load_policy("builtin-dc")  # the platform's commands refuse it in one line


def test_curling_export__writes_an_agent_folder_or_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    from rllib_curling.cli import curling
    from rllib_curling.rl.checkpoints import agent_info

    source = saved_module(tmp_path / "module")
    card = tmp_path / "card.md"
    card.write_text("# mine\n", encoding="utf-8")
    argv = ["export", str(source), str(tmp_path / "agent"), "--search", "4", "--value-weight",
            "0.2", "--card", str(card), "--effort", "top_k=32, samples=48"]  # fmt: skip
    assert curling.main(argv) == 0
    assert "MB (from" in capsys.readouterr().out
    assert agent_info(tmp_path / "agent")["search"] == {
        "k": 4, "value_weight": 0.2, "effort": {"top_k": 32, "samples": 48}
    }  # fmt: skip
    with pytest.raises(SystemExit):
        curling.main(["export", str(source), str(tmp_path / "bad"), "--effort", "depth=2"])
    err = capsys.readouterr().err
    assert "'depth=2': give FIELD=N with FIELD one of top_k, samples, reply" in err
    assert (tmp_path / "agent" / "MODEL_CARD.md").read_text(encoding="utf-8") == "# mine\n"
    assert curling.main(["export", str(tmp_path / "nope"), str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("curling export: no checkpoint directory") and err.count("\n") == 1


def test_curling_export__the_default_card_names_the_checkpoint_relative_to_the_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rllib_curling.cli import curling

    saved_module(tmp_path / "results" / "module")
    monkeypatch.chdir(tmp_path)
    assert curling.main(["export", "results/module", "agent"]) == 0
    card = (tmp_path / "agent" / "MODEL_CARD.md").read_text(encoding="utf-8")
    assert str(tmp_path) not in card
    assert f"`{Path('results', 'module')}" in card


def test_experiment_dir__trials_without_games_pick_the_newest(tmp_path: Path) -> None:
    exp = tmp_path / "results" / "curling-bc"
    import os

    for k, name in enumerate(("BC_curling_f00d_0", "BC_curling_0bad_0")):  # names are random ids
        trial = exp / name
        checkpoint = _checkpoint(trial / "checkpoint_000000")
        os.utime(checkpoint, (1000.0 + k, 1000.0 + k))  # the second is the newer
        (trial / "result.json").write_text(json.dumps({"training_iteration": 1}) + "\n")
    assert find_checkpoint(exp).parent.name == "BC_curling_0bad_0"


def _evaluated_trial(
    path: Path, saved_at: list[int], evaluations: dict[int, float], interval: int = 5
) -> Path:
    """A trial dir whose checkpoints were written at iterations ``saved_at`` (their
    ``algorithm_state.pkl`` says so, as RLlib writes it) and whose results have RLlib's
    evaluation every ``interval`` iterations, with the win rates ``evaluations``; the row after
    each evaluation repeats it, as RLlib's do."""
    import pickle

    path.mkdir(parents=True)
    for k, iteration in enumerate(saved_at):
        checkpoint = _checkpoint(path / f"checkpoint_{k:06d}")
        with open(checkpoint / "algorithm_state.pkl", "wb") as fh:
            pickle.dump({"training_iteration": iteration, "curling": {}}, fh)
    with open(path / "result.json", "w", encoding="utf-8") as fh:
        for iteration in range(1, max(saved_at) + 1):
            row: dict = {"training_iteration": iteration, "env_runners": {"win_rate": 0.5},
                         "config": {"evaluation_interval": interval}}  # fmt: skip
            played = evaluations.get(iteration, evaluations.get(iteration - 1))
            if played is not None:
                row["evaluation"] = {"env_runners": {"win_rate": played}}
            fh.write(json.dumps(row) + "\n")
    return path


def test_trial_dir__an_evaluated_run_gives_its_best_evaluated_checkpoint(tmp_path: Path) -> None:
    # saved every 5 iterations and at the end (23, not evaluated); the greedy games peaked at 10
    trial = _evaluated_trial(tmp_path / "PPO_curling_e_00000", [5, 10, 15, 20, 23],
                             {5: 0.25, 10: 0.75, 15: 0.5, 20: 0.625})  # fmt: skip
    assert find_checkpoint(trial) == trial / "checkpoint_000001"
    assert find_checkpoint(tmp_path) == trial / "checkpoint_000001"  # an experiment dir too


def test_trial_dir__a_tie_between_evaluations_gives_the_newer(tmp_path: Path) -> None:
    trial = _evaluated_trial(tmp_path / "t", [5, 10, 15], {5: 0.75, 10: 0.75, 15: 0.5})
    assert find_checkpoint(trial) == trial / "checkpoint_000001"


def test_trial_dir__a_checkpoint_after_an_evaluation_is_not_judged_by_its_games(
    tmp_path: Path,
) -> None:
    # the run ended at 11, one iteration after its best evaluation: 11's row repeats 10's
    # games, but the network of 11 did not play them
    trial = _evaluated_trial(tmp_path / "t", [5, 10, 11], {5: 0.25, 10: 0.75})
    assert find_checkpoint(trial) == trial / "checkpoint_000001"


def test_trial_dir__evaluations_at_no_checkpoint_give_the_newest(tmp_path: Path) -> None:
    # evaluated every 3 iterations, saved at 5 and 10: nothing to rank the checkpoints by
    trial = _evaluated_trial(tmp_path / "t", [5, 10], {3: 1.0, 6: 0.0, 9: 0.5}, interval=3)
    assert find_checkpoint(trial) == trial / "checkpoint_000001"


def test_module_at__reads_a_found_module_directory_without_finding_it_again(
    tmp_path: Path,
) -> None:
    from rllib_curling.rl.checkpoints import (
        agent_info,
        agent_info_at,
        export_agent,
        load_module_at,
        module_checkpoint_dir,
    )

    source = saved_module(tmp_path / "module")
    agent = export_agent(source, tmp_path / "agent", search={"k": 2})
    assert agent_info_at(module_checkpoint_dir(source)) is None  # an RLlib module directory
    assert agent_info_at(agent) == agent_info(agent) and agent_info_at(agent)["search"] == {"k": 2}
    for path in (source, agent):
        module = load_module_at(path, agent_info_at(path))
        assert type(module).__name__ == "CurlingActorCritic"
