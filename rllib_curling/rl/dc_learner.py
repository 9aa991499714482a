"""The Learner of BC on Digital Curling's ice (``"curling_dc"``): the platform's
``rl.learners.CurlingBCLearner`` (the teacher's shot, the value head on the games' results, the
end-score head on the ends' scores) with DC's mirror, the parallel room of ``rl.shot_learner``'s.

With ``mirror`` (default on), a random half of every batch is reflected about the centre line
before the forward pass: the observations' x columns negated (``dc_env.spaces.X_COLUMNS``), the
masks and the teacher's shots mapped through the layout's mirror (``dc_env.spaces.dc_layout()
.mirror``: the other rotation, the opposite offset). Results and end scores do not change. DC's
ice is symmetric, so the network learns both sides from every position.

Settings: ``config.learners(learner_config_dict={...})`` keys: ``CurlingBCLearner``'s
(``OfflineLossConfig``) and ``mirror`` (``DCMirrorConfig``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
from ray.rllib.core.columns import Columns

from rllib_curling.rl.learners import CurlingBCLearner, own_keys


@dataclass(frozen=True)
class DCMirrorConfig:
    """The ``learner_config_dict`` key of ``DCBCLearner`` beside ``OfflineLossConfig``'s."""

    mirror: bool = True

    @classmethod
    def of(cls, learner_config_dict: dict[str, Any]) -> DCMirrorConfig:
        return cls(**own_keys(cls, learner_config_dict))


class DCBCLearner(CurlingBCLearner):
    """``CurlingBCLearner`` with DC's mirror (module docstring)."""

    def _uncompiled_update(self, batch: dict[str, Any], **kwargs: Any) -> Any:
        if DCMirrorConfig.of(self.config.learner_config_dict).mirror:
            for module_batch in batch.values():
                mirror_half(module_batch)
        return super()._uncompiled_update(batch, **kwargs)


def mirror_half(batch: dict[str, Any], generator: torch.Generator | None = None) -> torch.Tensor:
    """Reflect a random half of a module's train batch of the DC env's dict observations in
    place: observations, masks and the teacher's shots (module docstring). Returns which rows
    (``(B,)`` bool)."""
    from rllib_curling.dc_env.spaces import ACTION_MASK, OBSERVATIONS, X_COLUMNS, dc_layout

    obs = batch[Columns.OBS]
    actions = batch[Columns.ACTIONS]
    rows = torch.rand(len(actions), generator=generator) < 0.5  # (B,)
    if not rows.any():
        return rows
    mirror = torch.from_numpy(dc_layout().mirror).to(actions.device)  # (n,)
    columns = torch.from_numpy(X_COLUMNS).to(actions.device)
    flipped = obs[OBSERVATIONS][rows]
    flipped[:, columns] = -flipped[:, columns]
    obs[OBSERVATIONS][rows] = flipped
    obs[ACTION_MASK][rows] = obs[ACTION_MASK][rows][:, mirror]
    actions[rows] = mirror[actions[rows].long()].to(actions.dtype)
    return rows
