"""The Learner that distils a search into the shot network (``curling dataset --action shots``).

Stock RLlib BC (new API stack) with this Learner (RLlib's custom-learner idiom: a
``TorchLearner`` subclass overriding ``compute_loss_for_module``; BC runs on ``action="shots"``
get it by default). It reads the columns of ``offline.search_labels``, which RLlib's offline
pipeline passes through into the train batch:

| term   | loss                                                        | columns               |
|--------|-------------------------------------------------------------|-----------------------|
| policy | ``h · w · CE(played) + s · CE(softmax(m / T))``             | ``actions``,          |
|        | ``+ c · CE(softmax(screen / T_c))``: the search's choice;   | ``judged``,           |
|        | its noise-averaged values ``m`` of the shots it re-judged;  | ``judged_mean``,      |
|        | its screen values of every legal shot (dense: the network   | ``judged_se``,        |
|        | learns how far each shot falls short, not only which one    | ``screen``            |
|        | won). ``s`` = ``soft_targets``, ``c`` = ``screen_targets``, |                       |
|        | ``h = 1 − s − c``; ``w`` = 1, or with ``confident_z`` > 0,  |                       |
|        | ``tie_weight`` where the choice beat its runner-up by fewer |                       |
|        | than ``confident_z`` standard errors                        |                       |
| value  | ``value_coeff · ½ (V − (2 · target − 1))²``: the search's   | ``value_target``      |
|        | value one turn on, the win table's at the end's end          |                       |
| score  | ``score_coeff · CE(end-score logits, the end's real score)`` | ``end_points``        |

With ``mirror`` (default on), a random half of every batch is reflected about the centre line
(observations, masks and shot labels through ``aiming.shots.MIRROR``): curling is symmetric, so
the network learns both sides from every position.

Settings: ``config.learners(learner_config_dict={...})`` keys (``ShotLossConfig``). One is not
a loss term: ``threads``, torch's threads in the learner's process. Ray gives an actor of one CPU
one thread; BC's local learner on a small machine is its busiest process (beside it only the
offline reader), and two threads on 2 cores make an iteration 1.25× faster (30 → 24 s).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
from ray.rllib.algorithms.marwil.torch.marwil_torch_learner import MARWILTorchLearner
from ray.rllib.core.columns import Columns
from ray.rllib.core.learner.learner import POLICY_LOSS_KEY, VF_LOSS_KEY
from ray.rllib.core.rl_module.apis import ValueFunctionAPI
from ray.rllib.utils.torch_utils import explained_variance

from rllib_curling.aiming import shots
from rllib_curling.errors import ConfigError
from rllib_curling.rl.learners import END_POINTS, end_score_bins, own_keys
from rllib_curling.rl.shot_models import ACTION_MASK, OBSERVATIONS, SCORE_LOGITS
from rllib_curling.rl.shot_network import mirror_observations

#: The columns of ``offline.search_labels`` this Learner reads (and ``rl.learners.END_POINTS``).
JUDGED, JUDGED_MEAN, JUDGED_SE = "judged", "judged_mean", "judged_se"
VALUE_TARGET, SCREEN = "value_target", "screen"


@dataclass(frozen=True)
class ShotLossConfig:
    """``learner_config_dict`` keys of ``CurlingShotLearner`` (module docstring)."""

    soft_targets: float = 0.5
    soft_temperature: float = 0.02
    screen_targets: float = 0.0
    screen_temperature: float = 0.02
    confident_z: float = 0.0
    tie_weight: float = 0.5
    value_coeff: float = 1.0
    score_coeff: float = 0.5
    mirror: bool = True
    threads: int = 0  # 0: as Ray sets them (one per CPU the process holds)

    def __post_init__(self) -> None:
        for name in ("soft_targets", "screen_targets", "tie_weight"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ConfigError(f"{name} must be in [0, 1], got {getattr(self, name)!r}")
        if self.soft_targets + self.screen_targets > 1.0:
            raise ConfigError(
                f"soft_targets + screen_targets must be at most 1, got "
                f"{self.soft_targets!r} + {self.screen_targets!r}"
            )
        for name in ("soft_temperature", "screen_temperature"):
            if getattr(self, name) <= 0.0:
                raise ConfigError(f"{name} must be > 0, got {getattr(self, name)!r}")
        for name in ("confident_z", "value_coeff", "score_coeff", "threads"):
            if getattr(self, name) < 0.0:
                raise ConfigError(f"{name} must be >= 0, got {getattr(self, name)!r}")

    @classmethod
    def of(cls, learner_config_dict: dict[str, Any]) -> ShotLossConfig:
        """Ours out of a ``learner_config_dict`` (other keys are left to other code)."""
        return cls(**own_keys(cls, learner_config_dict))


def label_weights(batch: dict[str, Any], settings: ShotLossConfig) -> torch.Tensor:
    """(B,) the weight of each row's hard label: 1, or ``tie_weight`` where the played shot's
    noisy mean beat the best other re-judged shot by fewer than ``confident_z`` standard
    errors (``confident_z`` 0: every label 1)."""
    actions = batch[Columns.ACTIONS].long()
    if settings.confident_z <= 0.0:
        return torch.ones(actions.shape, dtype=torch.float32, device=actions.device)
    judged, mean, se = batch[JUDGED].long(), batch[JUDGED_MEAN].float(), batch[JUDGED_SE].float()
    played = judged == actions.unsqueeze(-1)  # (B, K)
    best = torch.where(played, mean, torch.zeros_like(mean)).sum(-1)
    best_se = torch.where(played, se, torch.zeros_like(se)).sum(-1)
    other = torch.where(played, torch.full_like(mean, -torch.inf), mean)
    runner, at = other.max(dim=-1)
    runner_se = se.gather(-1, at.unsqueeze(-1)).squeeze(-1)
    z = (best - runner) / torch.sqrt(best_se**2 + runner_se**2).clamp(min=1e-6)
    sure = (z >= settings.confident_z) | ~played.any(-1)
    return torch.where(sure, 1.0, settings.tie_weight).float()


class CurlingShotLearner(MARWILTorchLearner):
    """Distils the search into the shot network (module docstring)."""

    def build(self) -> None:
        threads = ShotLossConfig.of(self.config.learner_config_dict).threads
        if threads:
            torch.set_num_threads(threads)
        super().build()

    def _uncompiled_update(self, batch: dict[str, Any], **kwargs: Any) -> Any:
        if ShotLossConfig.of(self.config.learner_config_dict).mirror:
            for module_batch in batch.values():
                mirror_half(module_batch)
        return super()._uncompiled_update(batch, **kwargs)

    def compute_loss_for_module(
        self, *, module_id: str, config: Any = None, batch: dict[str, Any],
        fwd_out: dict[str, Any],
    ) -> torch.Tensor:  # fmt: skip
        settings = ShotLossConfig.of(self.config.learner_config_dict)
        module = self.module[module_id].unwrapped()
        logp = torch.log_softmax(fwd_out[Columns.ACTION_DIST_INPUTS], dim=-1)  # (B, N)
        actions = batch[Columns.ACTIONS].long()
        hard = -(label_weights(batch, settings) * logp.gather(-1, actions[:, None])[:, 0]).mean()
        metrics: dict[str, Any] = {"hard_loss": hard}
        policy_loss = (1.0 - settings.soft_targets - settings.screen_targets) * hard
        if settings.soft_targets > 0.0:
            target = torch.softmax(batch[JUDGED_MEAN].float() / settings.soft_temperature, -1)
            judged_logp = logp.gather(-1, batch[JUDGED].long())  # (B, K)
            soft = -(target * judged_logp).sum(-1).mean()
            policy_loss = policy_loss + settings.soft_targets * soft
        if settings.screen_targets > 0.0:
            screen_loss = screen_cross_entropy(logp, batch[SCREEN], settings.screen_temperature)
            policy_loss = policy_loss + settings.screen_targets * screen_loss
            metrics["screen_loss"] = screen_loss
        metrics[POLICY_LOSS_KEY] = policy_loss
        total = policy_loss
        embeddings = fwd_out[Columns.EMBEDDINGS]
        if settings.value_coeff > 0.0:
            assert isinstance(module, ValueFunctionAPI), "value_coeff > 0 needs a value head"
            predicted = module.compute_values(batch, embeddings=embeddings)
            target_v = 2.0 * batch[VALUE_TARGET].float().reshape(predicted.shape) - 1.0
            vf_loss = 0.5 * torch.mean((predicted - target_v) ** 2)
            total = total + settings.value_coeff * vf_loss
            metrics[VF_LOSS_KEY] = vf_loss
            metrics["vf_explained_var"] = explained_variance(target_v, predicted)
        if settings.score_coeff > 0.0:
            bins = end_score_bins(batch[END_POINTS])
            score_loss = torch.nn.functional.cross_entropy(fwd_out[SCORE_LOGITS], bins)
            total = total + settings.score_coeff * score_loss
            metrics["score_loss"] = score_loss
        metrics["accuracy"] = (logp.argmax(-1) == actions).float().mean()
        self.metrics.log_dict(metrics, key=module_id, window=1)
        return total


def screen_cross_entropy(
    logp: torch.Tensor, screen: torch.Tensor, temperature: float
) -> torch.Tensor:
    """The mean cross-entropy of log-probabilities ``logp`` (B, N) against ``softmax(screen /
    temperature)`` over each row's legal shots (``screen`` (B, N): NaN where illegal)."""
    legal = ~torch.isnan(screen)
    z = torch.where(legal, screen.float() / temperature, torch.full_like(logp, -torch.inf))
    target = torch.softmax(z, dim=-1)
    return -torch.where(legal, target * logp, torch.zeros_like(logp)).sum(-1).mean()


_MIRROR = torch.from_numpy(shots.MIRROR)


def mirror_half(batch: dict[str, Any], generator: torch.Generator | None = None) -> None:
    """Reflect a random half of a module's train batch in place: observations, masks, the
    played shots, the re-judged shots and the screen values (``aiming.shots.MIRROR``)."""
    obs = batch[Columns.OBS]
    rows = torch.rand(len(batch[Columns.ACTIONS]), generator=generator) < 0.5
    if not rows.any():
        return
    mirror = _MIRROR.to(obs[ACTION_MASK].device)
    obs[OBSERVATIONS][rows] = mirror_observations(obs[OBSERVATIONS][rows])
    obs[ACTION_MASK][rows] = obs[ACTION_MASK][rows][:, mirror]
    batch[Columns.ACTIONS][rows] = mirror[batch[Columns.ACTIONS][rows].long()].to(
        batch[Columns.ACTIONS].dtype
    )
    if JUDGED in batch:
        batch[JUDGED][rows] = mirror[batch[JUDGED][rows].long()].to(batch[JUDGED].dtype)
    if SCREEN in batch:
        batch[SCREEN][rows] = batch[SCREEN][rows][:, mirror]
