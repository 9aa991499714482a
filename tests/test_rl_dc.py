"""The DC env under RLlib: the masked actor-critic (``rl.dc_models``), the config ``rllib train``
builds for ``curling_dc``, and one PPO iteration of ``tune_configs/ppo_dc.yaml`` (slow)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from rllib_curling.cli import rllib as rllib_cli
from rllib_curling.dc_env import DCCurlingEnv
from rllib_curling.errors import ConfigError
from rllib_curling.rl.algorithm_configs import dc_algorithm_config
from rllib_curling.rl.dc_models import DCMaskedActorCritic, dc_module_spec

ROOT = Path(__file__).resolve().parents[1]
STOP_1 = '{"training_iteration": 1}'


def test_dc_masked_actor_critic__gives_illegal_shots_no_probability() -> None:
    from ray.rllib.core.columns import Columns

    env = DCCurlingEnv(ends=1, opponent=0)
    module = DCMaskedActorCritic(observation_space=env.observation_space,
                                 action_space=env.action_space,
                                 model_config={"hidden": [16]})  # fmt: skip
    obs, _ = env.reset(seed=0)
    mask = obs["action_mask"].copy()
    mask[:10] = 0.0
    batch = {k: torch.from_numpy(np.stack([v, v])) for k, v in
             {"observations": obs["observations"], "action_mask": mask}.items()}  # fmt: skip
    out = module.forward_inference({Columns.OBS: batch})
    probs = torch.softmax(out[Columns.ACTION_DIST_INPUTS], dim=-1)
    assert probs.shape == (2, env.action_space.n)
    assert float(probs[:, mask == 0].sum()) == 0.0
    assert float(probs[:, mask == 1].sum()) == pytest.approx(2.0, rel=1e-5)
    values = module.compute_values({Columns.OBS: batch})
    assert values.shape == (2,)


def test_dc_module_spec__masked_module_for_shots_default_for_throw() -> None:
    spec = dc_module_spec("shots", hidden=[32, 32])
    assert spec is not None and spec.module_class is DCMaskedActorCritic
    assert spec.model_config == {"hidden": [32, 32], "end_scores": True}
    assert dc_module_spec("shots", end_scores=False).model_config["end_scores"] is False
    assert dc_module_spec("throw") is None
    with pytest.raises(ConfigError, match="hidden must be a non-empty list of positive ints"):
        dc_module_spec("shots", hidden=[])
    with pytest.raises(ConfigError, match="end_scores must be true or false"):
        dc_module_spec("shots", end_scores="yes")


def test_dc_masked_actor_critic__end_score_head_is_optional_and_shares_the_encoder() -> None:
    from ray.rllib.core.columns import Columns

    from rllib_curling.dc_env.config import DCEnvConfig
    from rllib_curling.dc_env.spaces import action_space, observation_space
    from rllib_curling.win_odds import N_SCORES

    spaces = {"observation_space": observation_space("shots"),
              "action_space": action_space(DCEnvConfig())}  # fmt: skip
    module = DCMaskedActorCritic(**spaces, model_config={"hidden": [8]})
    obs = {k: torch.as_tensor(v[None]) for k, v in spaces["observation_space"].sample().items()}
    assert module.has_end_scores
    assert module.compute_end_scores({Columns.OBS: obs}).shape == (1, N_SCORES)
    without = DCMaskedActorCritic(**spaces, model_config={"hidden": [8], "end_scores": False})
    assert not without.has_end_scores
    assert len(without.state_dict()) == len(module.state_dict()) - 2  # the head's weight, bias
    with pytest.raises(ValueError, match="no end-score head"):
        without.compute_end_scores({Columns.OBS: obs})


def test_dc_algorithm_config__ppo_on_curling_dc_with_the_masked_module() -> None:
    config = dc_algorithm_config("ppo", env_config={"ends": 2, "opponent": 1})
    assert config.env == "curling_dc" and config.env_config == {"ends": 2, "opponent": 1}
    assert config._rl_module_spec.module_class is DCMaskedActorCritic
    throw = dc_algorithm_config("PPO", env_config={"action": "throw"})
    assert throw._rl_module_spec is None
    with pytest.raises(ConfigError, match="curling_dc trains with PPO, IMPALA, BC; got 'DQN'"):
        dc_algorithm_config("DQN")
    with pytest.raises(ConfigError, match="unknown DC env_config key 'oponent'"):
        dc_algorithm_config("PPO", env_config={"oponent": 1})


def dc_rows(count: int) -> list[dict]:
    """``count`` rows as ``curling dataset --ice dc`` writes them (its RLlib columns), from the
    DC env's own observations; the k-th row's action is its k-th legal shot."""
    env = DCCurlingEnv(ends=1, opponent=0)
    obs, _ = env.reset(seed=0)
    rows = []
    for k in range(count):
        action = int(np.flatnonzero(obs["action_mask"])[k])
        new_obs, reward, terminated, truncated, _ = env.step(action)
        rows.append({"eps_id": "dc-0-0-0", "obs": obs, "actions": action, "rewards": reward,
                     "new_obs": new_obs, "terminateds": terminated, "truncateds": truncated,
                     "result": float(k % 2), "end_points": float(k - 2)})  # fmt: skip
        obs = new_obs
    return rows


def test_dc_algorithm_config__bc_clones_the_dc_datasets_dict_observations() -> None:
    """BC's stock offline pre-learner maps the DC dataset's dict ``obs`` column into the batch
    ``DCMaskedActorCritic`` reads; the learner's loss is the teacher's shot plus the value plus
    the end-score head's cross-entropy on the end's score."""
    from ray.rllib.core.columns import Columns
    from ray.rllib.offline.offline_prelearner import OfflinePreLearner
    from ray.rllib.utils import unflatten_dict

    from rllib_curling.rl.dc_learner import DCBCLearner

    config = dc_algorithm_config("BC", env_config={"ends": 1}, model_config={"hidden": [16]})
    assert config.num_env_runners == 0 and config.learner_class is DCBCLearner
    assert config._rl_module_spec.module_class is DCMaskedActorCritic
    rows = dc_rows(4)
    data = {key: np.array([row[key] for row in rows],
                          dtype=object if key in ("obs", "new_obs") else None)
            for key in rows[0]}  # fmt: skip  # a columnar batch, as Ray Data gives it
    env_spaces = (config.observation_space, config.action_space)
    spaces = {"__env__": env_spaces, "default_policy": env_spaces}
    spec = config.get_multi_rl_module_spec(spaces=spaces, inference_only=False)
    prelearner = OfflinePreLearner(config=config, spaces=env_spaces, module_spec=spec)
    batch = unflatten_dict(prelearner(data))["default_policy"]
    obs = batch[Columns.OBS]
    assert set(obs) == {"observations", "action_mask"}
    masks = np.stack([row["obs"]["action_mask"] for row in rows])
    np.testing.assert_array_equal(obs["action_mask"].numpy(), masks)
    assert batch[Columns.ACTIONS].tolist() == [row["actions"] for row in rows]
    learner = config.build_learner(env=None, spaces=spaces)
    learner.build()
    module = learner.module["default_policy"]
    fwd = module.forward_train(batch)
    loss = learner.compute_loss_for_module(module_id="default_policy", config=config,
                                           batch=batch, fwd_out=fwd)  # fmt: skip
    logp = torch.log_softmax(fwd[Columns.ACTION_DIST_INPUTS], dim=-1)
    hard = -logp[torch.arange(4), batch[Columns.ACTIONS]].mean()
    value = module.compute_values(batch)
    vf = 0.5 * ((value - (2.0 * batch["result"] - 1.0)) ** 2).mean()
    end_logp = torch.log_softmax(module.compute_end_scores(batch), dim=-1)  # (4, 17)
    scores = torch.tensor([-2, -1, 0, 1]) + 8  # the rows' end_points as indices of -8 … +8
    end = -end_logp[torch.arange(4), scores].mean()
    torch.testing.assert_close(loss, hard + vf + end)
    with pytest.raises(ConfigError, match="BC on curling_dc needs action='shots', got 'throw'"):
        dc_algorithm_config("BC", env_config={"action": "throw"})


def test_rllib_train__bad_dc_env_config_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["train", "--run", "PPO", "--env", "curling_dc",
            "--config", json.dumps({"env_config": {"opponent": 9}})]  # fmt: skip
    assert rllib_cli.main(args) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("rllib train: ") and "\n" not in err
    assert "env_config: opponent must be a built-in level [0, 1, 2, 3, 4, 5, 6, 7, 8]" in err
    assert err.endswith("got 9")


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_rllib_train__ppo_dc_yaml_trains_one_iteration(ray_session: None, tmp_path: Path) -> None:
    args = ["train", "-f", str(ROOT / "tune_configs" / "ppo_dc.yaml"),
            "--stop", '{"training_iteration": 1}', "--storage-path", str(tmp_path)]  # fmt: skip
    assert rllib_cli.main(args) == 0
    result = json.loads(next(tmp_path.glob("curling-ppo-dc/*/result.json")).read_text()
                        .splitlines()[-1])  # fmt: skip
    assert result["num_env_steps_sampled_lifetime"] >= 1024
    learner = result["learners"]["default_policy"]
    assert np.isfinite(learner["policy_loss"]) and np.isfinite(learner["vf_loss"])
    assert list(tmp_path.glob("curling-ppo-dc/*/checkpoint_*"))


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_bc_dc_yaml__clones_a_dc_dataset_into_a_dc_agent_and_ppo_starts_from_it(
    ray_session: None, tmp_path: Path
) -> None:
    """A tiny DC dataset → ``tune_configs/bc_dc.yaml`` one iteration → ``curling export`` →
    ``load_dc_agent`` throws a legal shot; PPO on ``curling_dc`` starts with BC's weights."""
    from rllib_curling.agent.dc_player import load_dc_agent
    from rllib_curling.cli.curling import main as curling_main
    from rllib_curling.dc_env.spaces import dc_layout
    from rllib_curling.dc_game import DCGame, DCGameConfig
    from rllib_curling.offline.dc_dataset import DCDatasetConfig, generate_dc
    from rllib_curling.rl.checkpoints import find_checkpoint, load_module, start_module_from

    data = tmp_path / "dc"
    generate_dc(data, DCDatasetConfig(teacher=5, opponents=(4,), games=2, ends=1,
                                      games_per_shard=2))  # fmt: skip
    config = json.dumps({"input_": str(data), "dataset_num_iters_per_learner": 2,
                         "train_batch_size_per_learner": 16})  # fmt: skip
    args = ["train", "-f", str(ROOT / "tune_configs" / "bc_dc.yaml"), "--stop", STOP_1,
            "--config", config, "--storage-path", str(tmp_path)]  # fmt: skip
    assert rllib_cli.main(args) == 0
    run = tmp_path / "curling-bc-dc"
    learner = json.loads(next(run.glob("*/result.json")).read_text().splitlines()[-1])
    assert np.isfinite(learner["learners"]["default_policy"]["policy_loss"])

    assert curling_main(["export", str(run), str(tmp_path / "agent")]) == 0
    agent = load_dc_agent(tmp_path / "agent")
    state = DCGame.init(DCGameConfig(standard_end_count=1))
    assert dc_layout().legal(state.position)[agent.action(state)]

    ppo = dc_algorithm_config("PPO", env_config={"ends": 1}, num_env_runners=0)
    algo = ppo.build_algo()
    try:
        start_module_from(algo, find_checkpoint(run))
        bc_state = load_module(run).state_dict()
        ppo_state = algo.learner_group._learner.module["default_policy"].state_dict()
        assert set(bc_state) == set(ppo_state)
        for key, value in bc_state.items():
            torch.testing.assert_close(ppo_state[key], value)
    finally:
        algo.stop()


def test_dc_mirror_half__reflects_observation_mask_and_shot_of_half_the_rows() -> None:
    from ray.rllib.core.columns import Columns

    from rllib_curling.dc_env.spaces import X_COLUMNS, dc_layout, mirror_observation
    from rllib_curling.rl.dc_learner import mirror_half

    rows = dc_rows(8)
    obs = np.stack([row["obs"]["observations"] for row in rows])
    masks = np.stack([row["obs"]["action_mask"] for row in rows])
    actions = np.array([row["actions"] for row in rows])
    batch = {Columns.OBS: {"observations": torch.tensor(obs), "action_mask": torch.tensor(masks)},
             Columns.ACTIONS: torch.tensor(actions)}  # fmt: skip
    flipped = mirror_half(batch, torch.Generator().manual_seed(1)).tolist()
    assert 0 < sum(flipped) < 8  # some rows, not all
    out = batch[Columns.OBS]["observations"].numpy()
    layout = dc_layout()
    for i in range(8):
        if flipped[i]:
            want = mirror_observation({"observations": obs[i], "action_mask": masks[i]})
            np.testing.assert_array_equal(out[i], want["observations"])
            np.testing.assert_array_equal(batch[Columns.OBS]["action_mask"][i], want["action_mask"])
            assert batch[Columns.ACTIONS][i] == layout.mirror[actions[i]]
            assert want["action_mask"][layout.mirror[actions[i]]] == 1.0  # still legal
        else:
            np.testing.assert_array_equal(out[i], obs[i])
            assert batch[Columns.ACTIONS][i] == actions[i]
    assert any(np.any(obs[i][X_COLUMNS] != 0) for i in range(8) if flipped[i])  # x was negated
