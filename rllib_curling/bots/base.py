"""The interface of the built-in opponents and the helpers the levels share.

A bot picks the throw of the seat to play next, ``state.next_seat``; it is pure (all randomness
comes from the ``numpy.random.Generator`` passed in), so the server calls it in-process::

    bot = make_bot(5)                       # rllib_curling.bots.levels
    v, h, w, sweep = bot.choose(state, rng)

Throws are ``(v, h, w, sweep)`` (architecture.md): speed m/s, release offset m, spin rad/s
(positive curls toward +x), sweep metres (the bots never sweep: 0). Positions are ``(16, 2)`` in
throwing order; the thrower owns the rows of parity ``state.seat_parity(state.next_seat)``.
"""

from __future__ import annotations

import numpy as np

from rllib_curling import physics, rules
from rllib_curling.aiming.templates import Throw
from rllib_curling.game import GameState, Transition

__all__ = ["DUMB_THROW", "Bot", "Throw", "clamped_throw", "my_parity", "signed_score"]

#: A stone stopping here (short of the far hog line) is removed: the dumb robot's throw.
DUMB_THROW: Throw = (1.5, 0.0, 0.0, 0.0)


class Bot:
    """A player that chooses from a ``GameState`` in process. The built-in opponents set
    ``level`` (their place on the ladder, ``bots.levels``); other players (an agent) leave it
    None. Subclasses set ``name`` and implement ``choose``."""

    level: int | None = None
    name: str = "bot"

    def choose(self, state: GameState, rng: np.random.Generator) -> Throw:
        """The throw ``(v, h, w, sweep)`` of stone ``state.shot`` for ``state.next_seat``."""
        raise NotImplementedError

    def centerline_choice(self, transition: Transition) -> str:
        """``"RESET"`` or ``"KEEP"`` after the opponent broke the centre-line rule against us.

        The default compares the two positions by the score they would give now (from the fouled
        seat's view) and resets on a tie: the foul removed or moved our guard, so RESET (which
        also removes the opponent's stone) is rarely worse.
        """
        if transition.reset_state is None or transition.fouled_seat is None:
            return "RESET"
        parity = transition.before.seat_parity(transition.fouled_seat)
        keep = signed_score(transition.state.position, parity)
        reset = signed_score(transition.reset_state.position, parity)
        return "KEEP" if keep > reset else "RESET"

    def __repr__(self) -> str:
        if self.level is None:
            return f"{type(self).__name__}(name={self.name!r})"
        return f"{type(self).__name__}(level={self.level})"


# --- helpers shared by the levels ----------------------------------------------------------------


def my_parity(state: GameState) -> int:
    """Row parity of the stones of the seat about to throw."""
    return state.seat_parity(state.next_seat)


def signed_score(position: np.ndarray, parity: int) -> int:
    """Points of the end if it ended now, from the view of the team owning rows ``parity``."""
    return rules.score_for(position, parity)


def clamped_throw(v: float, h: float, w: float, sweep: float = 0.0) -> Throw:
    """The throw clamped to the platform's ranges (``physics.clamp_throw``), as plain floats."""
    v, h, w, sweep = physics.clamp_throw((v, h, w, sweep)).tolist()
    return v, h, w, sweep
