"""Game state and the game engine: ends, hammer, match score (protocol.md §3 "One game", §5).

Pure: ``Game.step`` = physics + ``Game.settle`` (the rules); no I/O, no hidden state.

Seats: 0 = Player1, 1 = Player2 (as in ``SETSTATE ... next``). Player1 throws first in end 0.
In each end, rows ``k`` of the position are stones in throwing order; even rows belong to the
seat ``first_seat`` (throws first, no hammer), odd rows to ``1 - first_seat`` (the hammer).

Life of a game::

    state = Game.init(GameConfig(ends=4))
    while not state.is_terminal:
        t = Game.step(state, (3.0, 0.0, 0.0), rng)   # t.state: next shot, or the next end
        state = t.state                                # (t.reset_state on a RESET choice)

After stone 15 settles the end is scored: ``Transition.end_score`` is ``(p1, p2)``,
``Transition.end_state`` is the finished end as the server reports it (the last stones, shot 16,
``SETSTATE 16 e T next``), and ``Transition.state`` starts the next end (stones cleared, shot 0)
or, after the last end, *is* ``end_state`` (terminal).

Decisions where the sources are silent:

- **Hammer**: the team that scored throws first next end. Blank end: ``blank_end="swap"``
  (default, the course template) swaps the order, ``"keep"`` keeps it. Unlimited mode (``ends=-1``)
  keeps end 0's order (Player1 first) in every end and never finishes.
- **``next`` at shot 16** (protocol.md §6 gap): the seat that throws first in the next end (by the
  rule above, also after the last end).
- **Free guard zone vs centre line**: see ``rules``; the restore wins, no centre-line choice.
"""

from __future__ import annotations

import dataclasses
import enum
import math
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from rllib_curling import rules, sheet
from rllib_curling.errors import ConfigError, RuleError

Seat = int
Score = tuple[int, int]


class Result(str, enum.Enum):
    """A game's result for one player, the word ``GAMEOVER`` sends (a ``str``: ``Result.WIN ==
    "WIN"``, and ``Result("DRAW")`` reads the word back).

    ``points`` is the result as a score: 1 for a win, 0.5 for a draw, 0 for a loss. Every
    win rate of the package (matches, ratings, evaluation, the league, training metrics) is the
    mean of these points: :func:`score_rate`.
    """

    WIN = "WIN"
    DRAW = "DRAW"
    LOSE = "LOSE"

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)

    @property
    def points(self) -> float:
        """1 for a win, 0.5 for a draw, 0 for a loss."""
        return _POINTS[self]


_POINTS = {Result.WIN: 1.0, Result.DRAW: 0.5, Result.LOSE: 0.0}


def result_of(mine: float, theirs: float) -> Result:
    """The result for the player with ``mine`` points against ``theirs`` (totals of a game)."""
    return Result.WIN if mine > theirs else Result.LOSE if mine < theirs else Result.DRAW


def result_for(team: int, winner: int | None) -> Result:
    """The result for ``team`` (0 or 1) of a game that ``winner`` won (None: a draw), as DC's
    states and match results name it."""
    return Result.DRAW if winner is None else Result.WIN if winner == team else Result.LOSE


def score_rate(wins: int, draws: int, games: int) -> float:
    """The win rate with draws counted half: ``(wins + draws / 2) / games``.

    No games, no rate: ``games == 0`` gives NaN (not 0, which would read as "lost them all");
    a caller that shows it prints ``-`` or ``nan``, and JSON writers get NaN as Python writes it.
    """
    return (wins + 0.5 * draws) / games if games else math.nan


#: Ends of a game unless told otherwise: the course's 四局制 (every config, flag and record).
DEFAULT_ENDS = 4
#: Who throws first after a 0-0 end: "swap" the order (course template) or "keep" it.
BLANK_END_CHOICES = ("swap", "keep")


@dataclass(frozen=True)
class GameConfig:
    """``ends``: number of ends (4 四局制, 8, any positive int) or -1 (无限局制, never ends).

    ``blank_end``: who throws first after a 0-0 end: ``"swap"`` (course template) or ``"keep"``.
    """

    ends: int = DEFAULT_ENDS
    blank_end: Literal["swap", "keep"] = "swap"

    def __post_init__(self) -> None:
        check_ends(self.ends)
        if self.blank_end not in BLANK_END_CHOICES:
            raise ConfigError(
                f"blank_end must be one of {BLANK_END_CHOICES}, got {self.blank_end!r}"
            )

    @property
    def unlimited(self) -> bool:
        return self.ends == -1


def check_ends(ends: Any) -> int:
    """``ends`` if it is a number of ends a game can have: a positive int, or -1 (unlimited);
    ``ConfigError`` (a ``ValueError``) saying so otherwise (a bool is not a number of ends)."""
    ok = isinstance(ends, int) and not isinstance(ends, bool)
    if not ok or (ends != -1 and ends < 1):
        raise ConfigError(f"ends must be a positive int or -1 (unlimited), got {ends!r}")
    return int(ends)


def first_seat_after(first_seat: Seat, end_score: Score, config: GameConfig) -> Seat:
    """Seat that throws first in the end after one led by ``first_seat`` scored ``(p1, p2)``."""
    if config.unlimited:
        return 0
    p1, p2 = end_score
    if p1 > 0:
        return 0
    if p2 > 0:
        return 1
    return 1 - first_seat if config.blank_end == "swap" else first_seat


def _empty_position() -> np.ndarray:
    return np.zeros((sheet.STONES_PER_END, 2), dtype=np.float64)


@dataclass(frozen=True, eq=False)
class GameState:
    """Immutable state of a game; build new ones with ``dataclasses.replace``.

    | field        | meaning                                                                  |
    |--------------|--------------------------------------------------------------------------|
    | position     | (16, 2) float64, read-only; rows in this end's throwing order, (0,0) = none |
    | shot         | next stone 0..15; 16 = the end is finished (its last stones are shown)   |
    | end          | end index from 0                                                         |
    | first_seat   | seat throwing the even stones this end (0 = Player1, 1 = Player2)        |
    | end_scores   | ((p1, p2), ...) of every finished end                                    |
    | config       | GameConfig                                                               |
    """

    position: np.ndarray = field(default_factory=_empty_position)
    shot: int = 0
    end: int = 0
    first_seat: Seat = 0
    end_scores: tuple[Score, ...] = ()
    config: GameConfig = field(default_factory=GameConfig)

    def __post_init__(self) -> None:
        pos = np.array(rules.as_position(self.position), dtype=np.float64, copy=True)
        pos.flags.writeable = False
        object.__setattr__(self, "position", pos)
        scores = tuple((int(a), int(b)) for a, b in self.end_scores)
        object.__setattr__(self, "end_scores", scores)
        if not 0 <= self.shot <= sheet.STONES_PER_END:
            raise RuleError(f"shot must be in 0..16, got {self.shot}")
        if self.first_seat not in (0, 1):
            raise RuleError(f"first_seat must be 0 or 1, got {self.first_seat}")
        finished = self.end + (self.shot == sheet.STONES_PER_END)
        if self.end < 0 or len(scores) != finished:
            raise RuleError(
                f"end {self.end} at shot {self.shot} needs {finished} end scores, got {len(scores)}"
            )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameState):
            return NotImplemented
        return self._key() == other._key() and np.array_equal(self.position, other.position)

    def __hash__(self) -> int:
        return hash((self._key(), self.position.tobytes()))

    def _successor(
        self, position: np.ndarray, shot: int, end_scores: tuple[Score, ...] | None = None
    ) -> GameState:
        """``dataclasses.replace(self, position=..., shot=..., end_scores=...)`` for the engine's
        own results, without the copy and the checks: ``position`` is a fresh, finite ``(16, 2)``
        float64 array that nothing else holds (it is made read-only here), ``shot`` 1..16, and
        ``end_scores`` one more end when ``shot`` is 16."""
        new = object.__new__(GameState)
        for name in _STATE_FIELDS:
            object.__setattr__(new, name, getattr(self, name))
        position.flags.writeable = False
        object.__setattr__(new, "position", position)
        object.__setattr__(new, "shot", shot)
        if end_scores is not None:
            object.__setattr__(new, "end_scores", end_scores)
        return new

    def _key(self) -> tuple[Any, ...]:
        return (self.shot, self.end, self.first_seat, self.end_scores, self.config)

    @property
    def end_finished(self) -> bool:
        """True at shot 16: all stones of this end have stopped and the end is scored."""
        return self.shot == sheet.STONES_PER_END

    @property
    def next_seat(self) -> Seat:
        """Seat to throw stone ``shot``; at shot 16 the seat that throws first next end."""
        if self.end_finished:
            return first_seat_after(self.first_seat, self.end_scores[-1], self.config)
        return self.first_seat if self.shot % 2 == 0 else 1 - self.first_seat

    @property
    def hammer_seat(self) -> Seat:
        """Seat that throws the last stone of this end."""
        return 1 - self.first_seat

    def seat_parity(self, seat: Seat) -> int:
        """Row parity of ``seat``'s stones in this end (0 = even rows)."""
        return 0 if seat == self.first_seat else 1

    @property
    def totals(self) -> Score:
        """Match score ``(p1, p2)`` over the finished ends."""
        return (sum(s[0] for s in self.end_scores), sum(s[1] for s in self.end_scores))

    @property
    def is_terminal(self) -> bool:
        """True once the last end is scored (never in unlimited mode)."""
        return not self.config.unlimited and len(self.end_scores) >= self.config.ends

    def result_for(self, seat: Seat) -> Result:
        """GAMEOVER word for ``seat`` from the totals (the standing, if the game is not over)."""
        mine, theirs = self.totals if seat == 0 else self.totals[::-1]
        return result_of(mine, theirs)

    def setstate_fields(self) -> tuple[int, int, int, int]:
        """``(shot, end, total, next)`` exactly as ``SETSTATE`` sends them."""
        return (self.shot, self.end, self.config.ends, self.next_seat)


@dataclass(frozen=True, eq=False)
class Transition:
    """The outcome of one throw.

    | field                 | meaning                                                        |
    |-----------------------|----------------------------------------------------------------|
    | state                 | after the throw, rules applied (KEEP on a centre-line foul); the |
    |                       | next end's start after stone 15, or the terminal state          |
    | before                | the state the stone was thrown from                             |
    | thrown_rest           | (x, y) of the thrown stone in ``state`` / ``end_state``, or None |
    | mid                   | (5,) [x, y, vx, vy, spin] at mid-sheet from physics, or None     |
    | end_score             | (p1, p2) when this throw finished an end, else None             |
    | end_state             | the finished end (shot 16, last stones) when it did, else None  |
    | fgz_restored          | the free guard zone rule restored the position                   |
    | centre_line_violation | the centre-line rule was broken (the fouled seat chooses)        |
    | reset_state           | the state if the fouled seat answers RESET, else None           |
    | fouled_seat           | seat protected by an FGZ restore or a centre-line foul, or None |
    """

    state: GameState
    before: GameState
    thrown_rest: tuple[float, float] | None = None
    mid: np.ndarray | None = None
    end_score: Score | None = None
    end_state: GameState | None = None
    fgz_restored: bool = False
    centre_line_violation: bool = False
    reset_state: GameState | None = None
    fouled_seat: Seat | None = None

    @property
    def thrower_seat(self) -> Seat:
        return self.before.next_seat

    def resolve(self, choice: str = "KEEP") -> GameState:
        """State after the fouled seat's ``CENTERLINE_CHOICE`` (``"RESET"`` or ``"KEEP"``)."""
        if choice not in ("RESET", "KEEP"):
            raise RuleError(f"centre-line choice must be RESET or KEEP, got {choice!r}")
        if choice == "RESET" and self.reset_state is not None:
            return self.reset_state
        return self.state


#: The fields of a GameState, for ``GameState._successor``.
_STATE_FIELDS = tuple(f.name for f in dataclasses.fields(GameState))


class Game:
    """The engine: ``init``, ``step`` (physics + rules), ``settle`` (rules only)."""

    @staticmethod
    def init(config: GameConfig | None = None) -> GameState:
        """Empty sheet, shot 0 of end 0, Player1 throwing first."""
        return GameState(config=config if config is not None else GameConfig())

    @staticmethod
    def is_terminal(state: GameState) -> bool:
        return state.is_terminal

    @staticmethod
    def step(
        state: GameState,
        throw: Any,
        rng: np.random.Generator | None = None,
        *,
        noise: bool = True,
        model: Any = None,
    ) -> Transition:
        """Throw stone ``state.shot`` with ``throw`` = (v, h, w) or (v, h, w, sweep), then settle.

        ``model`` is a physics ice model (None: the physics default). Raises ``RuleError`` on a
        terminal or finished-end state, ``InvalidThrowError`` on a bad throw.
        """
        _check_throwable(state)
        from rllib_curling import physics  # physics is heavy (numba); import on first throw

        kwargs: dict[str, Any] = {"noise": noise}
        if model is not None:
            kwargs["model"] = model
        result = physics.simulate(state.position, state.shot, throw, rng, **kwargs)
        return Game.settle(state, result.position, mid=result.mid)

    @staticmethod
    def settle(
        state: GameState, after_position: np.ndarray, *, mid: np.ndarray | None = None
    ) -> Transition:
        """Apply the rules to ``after_position`` (all stones stopped after throwing stone
        ``state.shot``) and advance: out-of-play removal, free guard zone restore, centre-line
        detection, and after stone 15 the end's score and the next end (or the game's end).
        """
        _check_throwable(state)
        shot = state.shot
        positions, fgz, centre = rules.resolve_shot(state.position, after_position, shot)
        rest_x, rest_y = positions[shot].tolist()
        fouled = 1 - state.next_seat if (fgz or centre) else None
        end_score = end_state = reset = None
        if shot + 1 == sheet.STONES_PER_END:
            kept, end_state, end_score = _finish_end(state, positions)
        else:
            kept = state._successor(positions, shot + 1)
        if centre:
            restored = rules.restored_position(state.position, shot)
            reset = dataclasses.replace(kept, position=restored)
        return Transition(
            state=kept,
            before=state,
            thrown_rest=(rest_x, rest_y) if rest_x != 0.0 or rest_y != 0.0 else None,
            mid=mid,
            end_score=end_score,
            end_state=end_state,
            fgz_restored=bool(fgz),
            centre_line_violation=bool(centre),
            reset_state=reset,
            fouled_seat=fouled,
        )


def _check_throwable(state: GameState) -> None:
    if state.is_terminal:
        raise RuleError(f"the game is over (totals {state.totals}); no more throws")
    if state.end_finished:
        raise RuleError("end finished (shot 16); throw from the next end's state")


def _finish_end(last: GameState, position: np.ndarray) -> tuple[GameState, GameState, Score]:
    """Score the end whose last stone was thrown from ``last`` and stopped at ``position``.

    Returns (next state, end state at shot 16, (p1, p2)); next state = end state after the last end.
    """
    even, odd = rules.score_end(position)
    score = (even, odd) if last.first_seat == 0 else (odd, even)
    end_state = last._successor(position, sheet.STONES_PER_END, (*last.end_scores, score))
    if end_state.is_terminal:
        return end_state, end_state, score
    following = GameState(
        shot=0,
        end=last.end + 1,
        first_seat=end_state.next_seat,
        end_scores=end_state.end_scores,
        config=last.config,
    )
    return following, end_state, score
