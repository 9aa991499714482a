"""``DCEnvConfig``: the DC env's typed, validated configuration (RLlib's ``env_config`` of
``"curling_dc"``, or Gymnasium's keyword arguments of ``CurlingDC-v0``).

| key             | default      | meaning                                                      |
|-----------------|--------------|--------------------------------------------------------------|
| opponent        | 3            | a DC level (``dc_bots.levels.DC_LEVELS``: 0–8), a list of     |
|                 |              | levels (equally often) or ``{level: weight}``; a mixture is  |
|                 |              | drawn per pair of games, so each level is met with and       |
|                 |              | without the hammer                                           |
| ends            | 10           | standard ends (``DCGameConfig``'s default, DC3's); extra     |
|                 |              | ends follow while tied                                       |
| rule            | "fgz"        | the guard rule, one of ``dc_rules.RULES``                    |
| max_extra_ends  | 4            | extra ends before the episode is truncated (still tied)      |
| action          | "shots"      | "shots": ``Discrete`` over ``DC_SHOTS_SPEC``'s layout, with  |
|                 |              | an action mask; "throw": DC's release as a Box               |
| reward          | "win_score"  | one of ``env.rewards.MULTI_AGENT_REWARDS`` (ice-independent) |
| score_weight    | 0.1          | for "win_score": the weight of each end's points             |
| noise           | True         | DC's execution noise (``NORMAL_DIST``) on every throw        |
| seed            | None         | the first ``reset``'s seed when ``reset`` is given none      |
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from rllib_curling import dc_rules, dc_sheet
from rllib_curling.dc_bots.base import TY
from rllib_curling.dc_bots.candidates import DCSearchSpec
from rllib_curling.dc_bots.levels import DC_LEVELS
from rllib_curling.dc_game import DCGameConfig
from rllib_curling.env.config import finite_number, opponent_weights
from rllib_curling.env.rewards import MULTI_AGENT_REWARDS
from rllib_curling.errors import ConfigError, refuse_unknown_keys

ACTIONS = ("shots", "throw")

#: The shots of ``action="shots"`` (a ``dc_bots.candidates.DCShotLayout``): draws to a 0.225 m
#: grid over the house (symmetric about the centre line, the button included) and a 0.25 m grid
#: over the guard zone (x −1.5…1.5, 2–6 m in front of the tee), both
#: rotations; hits on each of the 16 stone rows at 3 weights (0.6, 1.8, 3.0 m/s at contact) and
#: 3 offsets (−0.08, 0, +0.08 m), both rotations; a throw-away.
DC_SHOTS_SPEC = DCSearchSpec(
    draw_step=0.225,
    guard_xs=tuple(float(x) for x in np.round(np.arange(-1.5, 1.5 + 1e-9, 0.25), 4)),
    guard_ys=tuple(float(y) for y in np.round(TY - np.arange(6.0, 2.0 - 1e-9, -0.25), 4)),
    hit_speeds=(0.6, 1.8, 3.0),
    hit_offsets=(-0.08, 0.0, 0.08),
)

#: ``action="throw"``: the release speed (m/s), bearing (rad from +y, toward +x) and rotation
#: (≥ 0: ccw, +1; < 0: cw, −1) bounds. Speeds stop at DC's clamp (``dc_sheet.MAX_SPEED``).
THROW_LOW = (0.5, -0.1, -1.0)
THROW_HIGH = (dc_sheet.MAX_SPEED, 0.1, 1.0)


@dataclass(frozen=True)
class DCEnvConfig:
    """Options of the DC env (module table). ``DCEnvConfig.from_dict`` refuses unknown keys."""

    opponent: Any = 3
    ends: int = DCGameConfig.standard_end_count
    rule: str = "fgz"
    max_extra_ends: int = 4
    action: str = "shots"
    reward: str = "win_score"
    score_weight: float = 0.1
    noise: bool = True
    seed: int | None = None

    def __post_init__(self) -> None:
        self.game_config  # ends and rule, checked by DCGameConfig  # noqa: B018
        opponent_weights(self.opponent, DC_LEVELS, external=False)
        extra = self.max_extra_ends
        if isinstance(extra, bool) or not isinstance(extra, int) or extra < 0:
            raise ConfigError(f"max_extra_ends must be an int >= 0, got {extra!r}")
        if self.action not in ACTIONS:
            raise ConfigError(f"action must be one of {list(ACTIONS)}, got {self.action!r}")
        if self.reward not in MULTI_AGENT_REWARDS:
            raise ConfigError(
                f"reward must be one of {list(MULTI_AGENT_REWARDS)}, got {self.reward!r}"
            )
        if not finite_number(self.score_weight) or self.score_weight < 0:
            raise ConfigError(f"score_weight must be a number >= 0, got {self.score_weight!r}")
        if not isinstance(self.noise, bool):
            raise ConfigError(f"noise must be true or false, got {self.noise!r}")
        seed = self.seed
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
            raise ConfigError(f"seed must be None or an int >= 0, got {seed!r}")

    @classmethod
    def from_dict(cls, values: Any) -> DCEnvConfig:
        """The config from a mapping (an ``EnvContext`` too); ``ConfigError`` naming an unknown
        key and the valid ones. RLlib's vector entry point's ``num_envs`` is ignored."""
        values = dict(values or {})
        values.pop("num_envs", None)
        refuse_unknown_keys(values, [f.name for f in dataclasses.fields(cls)], "DC env_config")
        if isinstance(values.get("opponent"), list):
            values["opponent"] = tuple(values["opponent"])
        return cls(**values)

    @property
    def game_config(self) -> DCGameConfig:
        """The DC game every episode plays (no clock: both sides think in process)."""
        return DCGameConfig(standard_end_count=self.ends, rule=dc_rules.check_rule(self.rule))

    @property
    def opponents(self) -> dict[int, float]:
        """``{DC level: weight}``, weights summing to 1."""
        weights = opponent_weights(self.opponent, DC_LEVELS, external=False)
        return {int(level): w for level, w in weights.items()}
