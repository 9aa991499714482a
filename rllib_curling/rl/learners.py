"""The curling Learner for teacher data (``curling dataset``): cloning with soft targets and a
value head trained on the games' results.

RLlib's BC Learner (``MARWILTorchLearner`` with ``beta = 0``) clones the teacher's action and
trains no value. ``CurlingBCLearner`` (RLlib's custom-learner idiom: a ``TorchLearner`` subclass
that overrides ``compute_loss_for_module``, set with ``config.learners(learner_class=…)``; curling
BC runs get it by default) reads two more columns of the data, which RLlib's offline pipeline
passes through into the train batch:

| term   | loss                                                          | columns           |
|--------|---------------------------------------------------------------|-------------------|
| policy | ``(1 - s) · CE(teacher's template) + s · CE(softmax(q / T))``  | ``actions``,      |
|        | (``q``: level 8's value of every template)                    | ``action_values`` |
| value  | ``value_coeff · ½ (V(obs) − (2 · result − 1))²``: the chance   | ``result``        |
|        | to win is ``(1 + V) / 2``, as the agent's search reads it      |                   |
| end    | ``end_score_coeff · CE(end-score logits, the end's score)``:   | ``end_points``    |
| score  | the end-score head (``rl.dc_models.EndScoreAPI``), the score   |                   |
|        | clipped to ``win_odds.END_SCORES``                             |                   |

The settings are ``config.learners(learner_config_dict={...})`` keys (``OfflineLossConfig``):
``soft_targets`` ``s`` (0: the teacher's action only), ``soft_temperature`` ``T`` (level 8's
values are chances to win: 0.05 makes a 5-point better shot e times likelier), ``value_coeff``
(0: no value head training) and ``end_score_coeff`` (0, the default: no end-score training; a
module without the head refuses more).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import torch
from ray.rllib.algorithms.marwil.torch.marwil_torch_learner import MARWILTorchLearner
from ray.rllib.core.columns import Columns
from ray.rllib.core.learner.learner import POLICY_LOSS_KEY, VF_LOSS_KEY
from ray.rllib.core.rl_module.apis import ValueFunctionAPI
from ray.rllib.utils.torch_utils import explained_variance

from rllib_curling.errors import ConfigError

#: The data's columns this Learner reads (``offline.dataset``'s table).
ACTION_VALUES, RESULT, END_POINTS = "action_values", "result", "end_points"
#: The metric of the end-score term.
END_SCORE_LOSS_KEY = "end_score_loss"


@dataclass(frozen=True)
class OfflineLossConfig:
    """``learner_config_dict`` keys of ``CurlingBCLearner`` (module docstring)."""

    soft_targets: float = 0.0
    soft_temperature: float = 0.05
    value_coeff: float = 1.0
    end_score_coeff: float = 0.0

    def __post_init__(self) -> None:
        if not 0.0 <= self.soft_targets <= 1.0:
            raise ConfigError(f"soft_targets must be in [0, 1], got {self.soft_targets!r}")
        if self.soft_temperature <= 0.0:
            raise ConfigError(f"soft_temperature must be > 0, got {self.soft_temperature!r}")
        if self.value_coeff < 0.0:
            raise ConfigError(f"value_coeff must be >= 0, got {self.value_coeff!r}")
        if self.end_score_coeff < 0.0:
            raise ConfigError(f"end_score_coeff must be >= 0, got {self.end_score_coeff!r}")

    @classmethod
    def of(cls, learner_config_dict: dict[str, Any]) -> OfflineLossConfig:
        """Ours out of a ``learner_config_dict`` (other keys are left to other code)."""
        return cls(**own_keys(cls, learner_config_dict))


def own_keys(settings: type, learner_config_dict: dict[str, Any]) -> dict[str, Any]:
    """The entries of ``learner_config_dict`` that are fields of the dataclass ``settings``."""
    names = {f.name for f in dataclasses.fields(settings)}
    return {k: v for k, v in learner_config_dict.items() if k in names}


class CurlingBCLearner(MARWILTorchLearner):
    """Behaviour cloning with soft targets and a value head trained on results (module doc)."""

    def compute_loss_for_module(
        self, *, module_id: str, config: Any = None, batch: dict[str, Any],
        fwd_out: dict[str, Any],
    ) -> torch.Tensor:  # fmt: skip
        settings = OfflineLossConfig.of(self.config.learner_config_dict)
        module = self.module[module_id].unwrapped()
        logits = fwd_out[Columns.ACTION_DIST_INPUTS]  # (B, n_templates)
        dist = module.get_train_action_dist_cls().from_logits(logits)
        policy_loss = -dist.logp(batch[Columns.ACTIONS]).mean()
        if settings.soft_targets > 0.0:
            values = batch[ACTION_VALUES].float()  # (B, n_templates)
            target = torch.softmax(values / settings.soft_temperature, dim=-1)
            soft = -(target * torch.log_softmax(logits, dim=-1)).sum(dim=-1).mean()
            policy_loss = (1.0 - settings.soft_targets) * policy_loss
            policy_loss = policy_loss + settings.soft_targets * soft
        metrics: dict[str, Any] = {POLICY_LOSS_KEY: policy_loss}
        total = policy_loss
        if settings.value_coeff > 0.0:
            assert isinstance(module, ValueFunctionAPI), "value_coeff > 0 needs a value head"
            predicted = module.compute_values(batch, embeddings=fwd_out.get(Columns.EMBEDDINGS))
            target = 2.0 * batch[RESULT].float().reshape(predicted.shape) - 1.0  # (B,)
            vf_loss = 0.5 * torch.mean((predicted - target) ** 2)
            total = total + settings.value_coeff * vf_loss
            metrics[VF_LOSS_KEY] = vf_loss
            metrics["vf_explained_var"] = explained_variance(target, predicted)
        if settings.end_score_coeff > 0.0:
            end_loss = end_score_loss(module, batch, fwd_out)
            total = total + settings.end_score_coeff * end_loss
            metrics[END_SCORE_LOSS_KEY] = end_loss
        self.metrics.log_dict(metrics, key=module_id, window=1)
        return total


def end_score_loss(module: Any, batch: dict[str, Any], fwd_out: dict[str, Any]) -> torch.Tensor:
    """The end-score head's cross-entropy on the batch's ``end_points`` (clipped to
    ``win_odds.END_SCORES``); ``ConfigError`` for a module without the head."""
    from rllib_curling.rl.dc_models import EndScoreAPI

    if not isinstance(module, EndScoreAPI) or not module.has_end_scores:
        raise ConfigError(f"end_score_coeff > 0 needs an end-score head; {type(module).__name__} "
                          "has none")  # fmt: skip
    logits = module.compute_end_scores(batch, embeddings=fwd_out.get(Columns.EMBEDDINGS))
    return torch.nn.functional.cross_entropy(logits, end_score_bins(batch[END_POINTS]))


def end_score_bins(points: torch.Tensor) -> torch.Tensor:
    """(B,) the ends' scores ``points`` (the ``end_points`` column) as indices in
    ``win_odds.END_SCORES``: rounded, clipped to ±``SCORE_MAX``; an end-score head's targets."""
    from rllib_curling.win_odds import SCORE_MAX

    rounded = points.float().round().long().reshape(-1)
    return rounded.clamp(-SCORE_MAX, SCORE_MAX) + SCORE_MAX
