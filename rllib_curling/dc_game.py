"""Digital Curling's game: state and engine for DC3/DC4 games (ends, hammer, extra ends, clocks).

The platform's game is ``game.py``; this is DC's parallel room, on ``dc_rules``. Pure: no I/O,
no wall clock; the physics comes in as a callable (``Simulator``), so this module never imports
one (the fcv1 ice plugs in from above).

Teams: 0 and 1, as DC names them ("team0", "team1"). Team 0 throws first in end 0, so team 1 has
the hammer. In each end, rows ``k`` of the position are stones in throwing order: even rows belong
to ``first_team``, odd rows to the hammer (``dc_rules.to_teams`` gives DC's per-team lists).

Life of a game::

    state = DCGame.init(DCGameConfig(standard_end_count=8))
    while not state.is_terminal:
        state = DCGame.charge_time(state, seconds_thought)  # may end it: a loss on time
        if not state.is_terminal:
            state = DCGame.step(state, shot, simulate).state

Shots are numbered 0–16 per end as DC4 reports them: after stone 15 settles,
``DCTransition.end_state`` is the end's final state (shot 16, the stones as they lie, the score
updated, nobody to throw) and ``DCTransition.state`` the next end's shot 0, or after the deciding
end the final state itself (terminal, ``winner`` set).

Decisions where the sources are silent or differ are in ``docs/digital_curling.md`` ("DC rules").
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from rllib_curling import dc_rules, dc_sheet
from rllib_curling.dc_rules import Rule
from rllib_curling.errors import ConfigError, RuleError, refuse_unknown_keys

Team = int
Score = tuple[int, int]
Clock = tuple[float, float]
#: ``simulate(state, shot) -> position (16, 2)``: throw stone ``state.shot`` from
#: ``state.position`` with the team's ``shot`` (its noise included) and return where every stone
#: stopped, the thrown one in row ``state.shot`` (the rules remove what is out of play).
Simulator = Callable[["DCGameState", Any], np.ndarray]

#: Thinking time per team and standard end: DC3's 219 s for 10 ends.
TIME_PER_END = 21.9
#: Thinking time per team for an extra end (DC3's 21.9 s).
EXTRA_END_TIME = 21.9
#: DC3 plays extra ends while tied up to end index EXTRA_END_MAX - 1; still tied then: a draw.
EXTRA_END_MAX = 255
#: The extra-end clock: "per_end" (DC3: reset to the limit at every extra end's start) or
#: "shared" (DC4's server: one budget for all extra ends).
EXTRA_END_CLOCKS = ("per_end", "shared")
#: Why a game ended (``DCGameState.reason``).
REASONS = ("score", "time", "concede", "draw")


def _check_seconds(name: str, value: object) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool):
        if math.isfinite(value) and value > 0:
            return float(value)
    raise ConfigError(f"{name} must be a positive number of seconds, got {value!r}")


@dataclass(frozen=True)
class DCGameConfig:
    """A DC game's settings (DC4's ``POST /matches`` body, DC3's game setting).

    | field                | meaning                                                          |
    |----------------------|------------------------------------------------------------------|
    | standard_end_count   | ends before extra ends: 10 (DC3's default), 8, any positive int  |
    | rule                 | guard rule, one of ``dc_rules.RULES`` ("fgz": DC3's five-rock)   |
    | time_limit           | seconds per team for the standard ends; None: TIME_PER_END each  |
    | extra_end_time_limit | seconds per team for extra ends (EXTRA_END_TIME)                 |
    | extra_end_clock      | "per_end" (DC3) or "shared" (DC4's server), see EXTRA_END_CLOCKS |
    """

    standard_end_count: int = 10
    rule: Rule = "fgz"
    time_limit: float | None = None
    extra_end_time_limit: float = EXTRA_END_TIME
    extra_end_clock: Literal["per_end", "shared"] = "per_end"

    def __post_init__(self) -> None:
        ends = self.standard_end_count
        if not isinstance(ends, int) or isinstance(ends, bool) or ends < 1:
            raise ConfigError(f"standard_end_count must be a positive int, got {ends!r}")
        dc_rules.check_rule(self.rule)
        if self.time_limit is not None:
            _check_seconds("time_limit", self.time_limit)
        _check_seconds("extra_end_time_limit", self.extra_end_time_limit)
        if self.extra_end_clock not in EXTRA_END_CLOCKS:
            raise ConfigError(
                f"extra_end_clock must be one of {list(EXTRA_END_CLOCKS)}, "
                f"got {self.extra_end_clock!r}"
            )

    @property
    def standard_time(self) -> float:
        """Seconds per team for the standard ends: ``time_limit``, or TIME_PER_END per end."""
        if self.time_limit is not None:
            return float(self.time_limit)
        return round(TIME_PER_END * self.standard_end_count, 6)

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> DCGameConfig:
        """The config from a mapping; ``ConfigError`` naming an unknown key and the valid ones."""
        names = [f.name for f in dataclasses.fields(cls)]
        refuse_unknown_keys(values, names, "DC game config")
        return cls(**values)


def first_team_after(first_team: Team, end_score: Score) -> Team:
    """The team throwing first in the next end: the one that scored; after a blank end, the same."""
    if end_score[0] > 0:
        return 0
    if end_score[1] > 0:
        return 1
    return first_team


def _empty_position() -> np.ndarray:
    return np.zeros((dc_sheet.SHOTS_PER_END, 2), dtype=np.float64)


@dataclass(frozen=True, eq=False)
class DCGameState:
    """Immutable state of a DC game (``DCGame.init`` builds the first; ``dataclasses.replace``).

    | field           | meaning                                                            |
    |-----------------|--------------------------------------------------------------------|
    | config          | DCGameConfig                                                       |
    | remaining       | (team0, team1) seconds left for the standard ends                  |
    | extra_remaining | (team0, team1) seconds left for the (current) extra end            |
    | position        | (16, 2) float64, read-only, rows in this end's throwing order      |
    | shot            | next stone 0..15; 16 = the end is finished (its final stones)      |
    | end             | end index from 0; >= standard_end_count: an extra end              |
    | first_team      | team throwing the even rows (first) this end; the other has hammer |
    | end_scores      | ((team0, team1), ...) of every finished end, extra ends included   |
    | winner          | 0 or 1 once the game is won, else None (also after a draw)         |
    | reason          | None while playing, else one of REASONS                            |
    """

    config: DCGameConfig
    remaining: Clock
    extra_remaining: Clock
    position: np.ndarray = field(default_factory=_empty_position)
    shot: int = 0
    end: int = 0
    first_team: Team = 0
    end_scores: tuple[Score, ...] = ()
    winner: Team | None = None
    reason: str | None = None

    def __post_init__(self) -> None:
        pos = np.array(dc_rules.as_positions(self.position), dtype=np.float64, copy=True)
        if pos.shape != (dc_sheet.SHOTS_PER_END, 2):
            raise RuleError(f"position must have shape (16, 2), got {pos.shape}")
        pos.flags.writeable = False
        object.__setattr__(self, "position", pos)
        object.__setattr__(self, "end_scores", tuple((int(a), int(b)) for a, b in self.end_scores))
        for name in ("remaining", "extra_remaining"):
            a, b = getattr(self, name)
            object.__setattr__(self, name, (float(a), float(b)))
        if not 0 <= self.shot <= dc_sheet.SHOTS_PER_END:
            raise RuleError(f"shot must be in 0..16, got {self.shot}")
        if self.first_team not in (0, 1):
            raise RuleError(f"first_team must be 0 or 1, got {self.first_team}")
        finished = self.end + (self.shot == dc_sheet.SHOTS_PER_END)
        if self.end < 0 or len(self.end_scores) != finished:
            raise RuleError(
                f"end {self.end} at shot {self.shot} needs {finished} end scores, "
                f"got {len(self.end_scores)}"
            )
        if self.reason not in (None, *REASONS) or self.winner not in (None, 0, 1):
            raise RuleError(f"bad result: winner {self.winner!r}, reason {self.reason!r}")
        if (self.winner is None) != (self.reason in (None, "draw")):
            raise RuleError(f"reason {self.reason!r} does not fit winner {self.winner!r}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DCGameState):
            return NotImplemented
        return self._key() == other._key() and np.array_equal(self.position, other.position)

    def __hash__(self) -> int:
        return hash((self._key(), self.position.tobytes()))

    def _key(self) -> tuple[Any, ...]:
        return tuple(
            getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "position"
        )

    @property
    def is_terminal(self) -> bool:
        """True once the game is decided (by score, time, concession) or drawn."""
        return self.reason is not None

    @property
    def end_finished(self) -> bool:
        """True at shot 16: the end's stones have all been thrown and the end is scored."""
        return self.shot == dc_sheet.SHOTS_PER_END

    @property
    def is_extra_end(self) -> bool:
        return self.end >= self.config.standard_end_count

    @property
    def hammer_team(self) -> Team:
        """The team throwing the last stone of this end."""
        return 1 - self.first_team

    @property
    def next_team(self) -> Team | None:
        """The team to throw stone ``shot``; None at shot 16 or once the game is over (DC4's
        ``next_shot_team`` null)."""
        if self.is_terminal or self.end_finished:
            return None
        return self.first_team if self.shot % 2 == 0 else 1 - self.first_team

    @property
    def team_shot(self) -> int:
        """DC4's ``team_shot_number``: ``shot // 2`` (8 at shot 16)."""
        return self.shot // 2

    @property
    def totals(self) -> Score:
        """Points (team0, team1) over the finished ends, extra ends included."""
        return (sum(s[0] for s in self.end_scores), sum(s[1] for s in self.end_scores))

    def score_lists(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Per-team scores as DC4 reports them: one slot per standard end (0 if not played yet)
        and one extra-end slot at ``[standard_end_count]`` (all extra ends' points)."""
        n = self.config.standard_end_count
        lists = []
        for team in (0, 1):
            points = [s[team] for s in self.end_scores]
            standard = points[:n] + [0] * (n - len(points[:n]))
            lists.append((*standard, sum(points[n:])))
        return lists[0], lists[1]

    def time_left(self, team: Team) -> float:
        """Seconds ``team`` has left on the clock running now (the extra-end one in extra ends)."""
        return (self.extra_remaining if self.is_extra_end else self.remaining)[team]

    def team_stones(self) -> tuple[np.ndarray, np.ndarray]:
        """``(team0 (8, 2), team1 (8, 2))``: this end's stones as DC reports them."""
        return dc_rules.to_teams(self.position, self.first_team)


@dataclass(frozen=True, eq=False)
class DCTransition:
    """The outcome of one throw.

    | field       | meaning                                                                  |
    |-------------|--------------------------------------------------------------------------|
    | state       | after the throw, rules applied; after stone 15 the next end's shot 0, or |
    |             | the final state when the game is over                                    |
    | before      | the state the stone was thrown from                                      |
    | foul        | the guard rule was broken: position restored, the thrown stone removed   |
    | thrown_rest | (x, y) where the thrown stone lies in ``state``/``end_state``, or None   |
    | end_score   | (team0, team1) when this throw finished an end, else None                |
    | end_state   | the finished end (shot 16, its final stones) when it did, else None      |
    """

    state: DCGameState
    before: DCGameState
    foul: bool = False
    thrown_rest: tuple[float, float] | None = None
    end_score: Score | None = None
    end_state: DCGameState | None = None

    @property
    def thrower(self) -> Team:
        team = self.before.next_team
        assert team is not None  # a transition is made from a throwable state
        return team


class DCGame:
    """The engine: ``init``, ``step`` (simulator + rules), ``settle`` (rules only), the clock
    (``charge_time``) and ``concede``."""

    @staticmethod
    def init(config: DCGameConfig | None = None) -> DCGameState:
        """Empty sheet, shot 0 of end 0, team 0 throwing first, both clocks full."""
        config = config if config is not None else DCGameConfig()
        full, extra = config.standard_time, config.extra_end_time_limit
        return DCGameState(config=config, remaining=(full, full), extra_remaining=(extra, extra))

    @staticmethod
    def step(state: DCGameState, shot: Any, simulate: Simulator) -> DCTransition:
        """Throw stone ``state.shot`` with ``shot`` through ``simulate``, then ``settle``."""
        _check_throwable(state)
        return DCGame.settle(state, simulate(state, shot))

    @staticmethod
    def settle(state: DCGameState, after_position: np.ndarray) -> DCTransition:
        """Apply the rules to ``after_position`` (every stone stopped after stone ``state.shot``
        was thrown) and advance: out-of-play removal, the guard rule, and after stone 15 the
        end's score and the next end (or the game's end)."""
        _check_throwable(state)
        shot = state.shot
        position, foul = dc_rules.resolve_shot(
            state.position, after_position, shot, state.config.rule
        )
        rest_x, rest_y = position[shot].tolist()
        end_score = end_state = None
        if shot + 1 == dc_sheet.SHOTS_PER_END:
            new, end_state, end_score = _finish_end(state, position)
        else:
            new = dataclasses.replace(state, position=position, shot=shot + 1)
        return DCTransition(
            state=new,
            before=state,
            foul=foul,
            thrown_rest=(rest_x, rest_y) if rest_x != 0.0 or rest_y != 0.0 else None,
            end_score=end_score,
            end_state=end_state,
        )

    @staticmethod
    def charge_time(state: DCGameState, seconds: float) -> DCGameState:
        """Charge ``seconds`` of thinking to the team to move, on the clock that runs now (the
        extra-end clock in extra ends). Running past zero loses the game on time (the clock
        then shows 0); using exactly all of it does not (DC4's server)."""
        team = state.next_team
        if team is None:
            raise RuleError("no team to move: the game is over or the end finished (shot 16)")
        if not math.isfinite(seconds) or seconds < 0:
            raise RuleError(f"seconds must be finite and >= 0, got {seconds!r}")
        name = "extra_remaining" if state.is_extra_end else "remaining"
        clock = list(getattr(state, name))
        clock[team] -= seconds
        changes: dict[str, Any] = {}
        if clock[team] < 0:
            clock[team] = 0.0
            changes = {"winner": 1 - team, "reason": "time"}
        changes[name] = (clock[0], clock[1])
        return dataclasses.replace(state, **changes)

    @staticmethod
    def concede(state: DCGameState, team: Team | None = None) -> DCGameState:
        """``team`` (default: the team to move) concedes: the other team wins."""
        if state.is_terminal:
            raise RuleError(f"the game is over ({state.reason}); nobody can concede")
        team = state.next_team if team is None else team
        if team not in (0, 1):
            raise RuleError(f"team must be 0 or 1, got {team!r}")
        return dataclasses.replace(state, winner=1 - team, reason="concede")


def _check_throwable(state: DCGameState) -> None:
    if state.is_terminal:
        raise RuleError(f"the game is over ({state.reason}, totals {state.totals}); no more shots")
    if state.end_finished:
        raise RuleError("end finished (shot 16); throw from the next end's state")


def _finish_end(last: DCGameState, position: np.ndarray) -> tuple[DCGameState, DCGameState, Score]:
    """Score the end whose stone 15 was thrown from ``last`` and stopped at ``position``.

    Returns (next state, end state at shot 16, (team0, team1)); the next state is the end state
    when the game is over.
    """
    even, odd = dc_rules.score_end(position)
    score = (even, odd) if last.first_team == 0 else (odd, even)
    scores = (*last.end_scores, score)
    played, config = last.end + 1, last.config
    t0, t1 = sum(s[0] for s in scores), sum(s[1] for s in scores)
    result: dict[str, Any] = {}
    if played >= config.standard_end_count:
        if t0 != t1:
            result = {"winner": 0 if t0 > t1 else 1, "reason": "score"}
        elif played >= EXTRA_END_MAX:
            result = {"reason": "draw"}
    end_state = dataclasses.replace(
        last, position=position, shot=dc_sheet.SHOTS_PER_END, end_scores=scores, **result
    )
    if end_state.is_terminal:
        return end_state, end_state, score
    extra = last.extra_remaining
    if played >= config.standard_end_count and config.extra_end_clock == "per_end":
        extra = (config.extra_end_time_limit, config.extra_end_time_limit)
    following = dataclasses.replace(
        end_state,
        position=_empty_position(),
        shot=0,
        end=played,
        first_team=first_team_after(last.first_team, score),
        extra_remaining=extra,
    )
    return following, end_state, score
