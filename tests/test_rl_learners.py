"""``CurlingBCLearner``: behaviour cloning with soft targets and a value head trained on results
(``rl.learners``); the loss is checked against the formulas of its docstring."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
import torch
from ray.rllib.algorithms.bc import BCConfig
from ray.rllib.core.columns import Columns

from rllib_curling import observation
from rllib_curling.errors import ConfigError
from rllib_curling.rl.learners import CurlingBCLearner, OfflineLossConfig
from rllib_curling.rl.models import module_spec

OBS_SPACE = gym.spaces.Box(-4.0, 4.0, (observation.OBS_SIZE,), np.float32)
ACT_SPACE = gym.spaces.Discrete(65)


def learner_and_batch(**settings: float) -> tuple[CurlingBCLearner, dict, dict]:
    config = (
        BCConfig()
        .environment(observation_space=OBS_SPACE, action_space=ACT_SPACE)
        .rl_module(rl_module_spec=module_spec("bc", hiddens=[32]))
        .learners(learner_class=CurlingBCLearner, learner_config_dict=settings)
    )
    spaces = {"__env__": (OBS_SPACE, ACT_SPACE), "default_policy": (OBS_SPACE, ACT_SPACE)}
    learner = config.build_learner(env=None, spaces=spaces)
    learner.build()
    gen = torch.Generator().manual_seed(0)
    batch = {  # B = 6 rows as the offline pipeline gives them
        Columns.OBS: torch.rand(6, observation.OBS_SIZE, generator=gen),
        Columns.ACTIONS: torch.tensor([0, 5, 64, 3, 3, 10]),
        "action_values": torch.rand(6, 65, generator=gen),
        "result": torch.tensor([1.0, 0.0, 0.5, 1.0, 0.0, 1.0]),
    }
    return learner, batch, {"config": config}


def test_loss__cloning_soft_targets_and_value_on_results() -> None:
    learner, batch, extra = learner_and_batch(soft_targets=0.25, soft_temperature=0.1,
                                              value_coeff=2.0)  # fmt: skip
    module = learner.module["default_policy"]
    fwd = module.forward_train(batch)
    loss = learner.compute_loss_for_module(
        module_id="default_policy", config=extra["config"], batch=batch, fwd_out=fwd
    )
    logp = torch.log_softmax(fwd[Columns.ACTION_DIST_INPUTS], dim=-1)  # (6, 65)
    hard = -logp[torch.arange(6), batch[Columns.ACTIONS]].mean()
    soft = -(torch.softmax(batch["action_values"] / 0.1, -1) * logp).sum(-1).mean()
    value = module.compute_values(batch)
    vf = 0.5 * ((value - (2 * batch["result"] - 1)) ** 2).mean()
    torch.testing.assert_close(loss, 0.75 * hard + 0.25 * soft + 2.0 * vf)


def test_loss__defaults_are_cloning_plus_the_value() -> None:
    learner, batch, extra = learner_and_batch()
    module = learner.module["default_policy"]
    fwd = module.forward_train(batch)
    loss = learner.compute_loss_for_module(
        module_id="default_policy", config=extra["config"], batch=batch, fwd_out=fwd
    )
    logp = torch.log_softmax(fwd[Columns.ACTION_DIST_INPUTS], dim=-1)
    hard = -logp[torch.arange(6), batch[Columns.ACTIONS]].mean()
    vf = 0.5 * ((module.compute_values(batch) - (2 * batch["result"] - 1)) ** 2).mean()
    torch.testing.assert_close(loss, hard + vf)


@pytest.mark.parametrize(
    ("settings", "words"),
    [
        ({"soft_targets": 1.5}, "soft_targets must be in"),
        ({"soft_temperature": 0.0}, "soft_temperature must be > 0"),
        ({"value_coeff": -1.0}, "value_coeff must be >= 0"),
        ({"end_score_coeff": -1.0}, "end_score_coeff must be >= 0"),
    ],
)
def test_settings__bad_values_are_one_line_errors(settings: dict, words: str) -> None:
    with pytest.raises(ConfigError, match=words):
        OfflineLossConfig.of({**settings, "someone_elses_key": 1})


def test_loss__end_score_term_needs_a_module_with_the_head() -> None:
    learner, batch, extra = learner_and_batch(end_score_coeff=1.0)
    module = learner.module["default_policy"]
    fwd = module.forward_train(batch)
    with pytest.raises(ConfigError, match="end_score_coeff > 0 needs an end-score head"):
        learner.compute_loss_for_module(
            module_id="default_policy", config=extra["config"], batch=batch, fwd_out=fwd
        )
