"""The rewards of a step in every env (``env_config["reward"]``), from one player's view.

``REWARD_DOCS`` says what each gives; ``CurlingEnv``'s docs list them from it. A new reward is
a line there and a branch in ``game_reward`` (``SINGLE_AGENT_ONLY`` if it needs more than the
points and the result), with its test in ``tests/test_env_rewards.py``.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from rllib_curling.errors import ConfigError
from rllib_curling.game import Result

#: Each reward's name and what it gives (the env's docs list them so).
REWARD_DOCS = {
    "score": "the points of an end from our side (``SCORE s``) on the step during which the end "
    "finished; 0 otherwise. The episode return is our total minus theirs.",
    "win": "+1 for a win, −1 for a loss, 0 for a draw, on the last step.",
    "win_score": "+1 / −1 / 0 for a win / loss / draw on the last step, plus ``score_weight`` "
    "(0.1) times the points of each end (our side) on the step it finished: winning is what "
    "counts, and the points tell the agent sooner how its ends went.",
    "shaped": "``score`` plus ``shaping_scale · (Φ(s') − Φ(s))`` where Φ is the end's score if "
    "it ended now (our side, in points) at our turns, and 0 at the game's end. This "
    "potential-based term keeps the optimal policy and tells the agent sooner what a throw "
    "did. Single-agent only (``CurlingEnv`` adds the term).",
    "ends": "+1 for each end we won, −1 for each end we lost (0 for a blank end), on the step "
    "it finished: what counts is taking ends, not their points.",
}
#: The reward names, in the order the docs list them.
REWARDS = tuple(REWARD_DOCS)
#: Rewards only ``CurlingEnv`` gives (they need its own state, not only points and the result).
SINGLE_AGENT_ONLY = ("shaped",)
#: The rewards of the multi-agent and league envs.
MULTI_AGENT_REWARDS = tuple(name for name in REWARDS if name not in SINGLE_AGENT_ONLY)


def reward_docs() -> str:
    """``REWARD_DOCS`` as a Markdown list (the env's docstring)."""
    items = (f'- ``"{name}"``: {text}' for name, text in REWARD_DOCS.items())
    return "\n".join(textwrap.fill(item, 96, subsequent_indent="  ") for item in items)


def check_reward(kind: str) -> str:
    """``kind`` if it is a reward name (``REWARDS``), else a ``ConfigError`` listing them."""
    if kind not in REWARDS:
        raise ConfigError(f"reward must be one of {REWARDS}, got {kind!r}")
    return kind


def game_reward(
    kind: str, end_points: Sequence[int], result: str | None, game_over: bool, score_weight: float
) -> float:
    """The reward ``kind`` of one step (``shaped``: its ``score`` part). ``end_points``: the
    player's signed points of the ends finished in the step.

    Raises ``ConfigError`` for a name not in ``REWARDS``."""
    check_reward(kind)
    if kind == "ends":
        return float(sum((p > 0) - (p < 0) for p in end_points))
    # the result as +1 / 0 / -1 (a draw, and no result yet, 0)
    outcome = 2.0 * Result(result).points - 1.0 if game_over and result else 0.0
    if kind == "win":
        return outcome
    points = float(sum(end_points))
    if kind == "win_score":
        return outcome + score_weight * points
    return points
