"""The rewards of a step in both envs (``env_config["reward"]``), from one player's view.

| reward        | per step                                                             |
|---------------|----------------------------------------------------------------------|
| ``score``     | the points of the ends that finished during the step (mine − theirs) |
| ``win``       | +1 / −1 when the game ends won / lost (0 for a draw), else 0         |
| ``win_score`` | ``win`` + ``score_weight`` × ``score``                               |
| ``shaped``    | ``score`` plus a house-potential term (single-agent only:            |
|               | ``CurlingEnv`` adds it on top of ``score``)                          |
"""

from __future__ import annotations

from collections.abc import Sequence

from rllib_curling.errors import ConfigError

#: The reward names (the table above), in the order the docs list them.
REWARDS = ("score", "win", "shaped", "win_score")
#: The game's result (protocol GAMEOVER, the player's view) as the ``win`` reward.
OUTCOME = {"WIN": 1.0, "LOSE": -1.0}


def check_reward(kind: str) -> str:
    """``kind`` if it is a reward name (``REWARDS``), else a ``ConfigError`` listing them."""
    if kind not in REWARDS:
        raise ConfigError(f"reward must be one of {REWARDS}, got {kind!r}")
    return kind


def game_reward(
    kind: str, end_points: Sequence[int], result: str | None, game_over: bool, score_weight: float
) -> float:
    """The ``score`` / ``win`` / ``win_score`` reward of one step (``shaped``: its ``score``
    part). ``end_points``: the player's signed points of the ends finished in the step.

    Raises ``ConfigError`` for a name not in ``REWARDS``."""
    check_reward(kind)
    outcome = OUTCOME.get(result or "", 0.0) if game_over else 0.0
    if kind == "win":
        return outcome
    points = float(sum(end_points))
    if kind == "win_score":
        return outcome + score_weight * points
    return points
