"""What a DC client reports when its game is over, and what it asks its player."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rllib_curling.dc_game import DCGameState

#: ``choose(state) -> (vx, vy, rotation)``: the shot of the team to throw (``state.next_team``)
#: in DC's shot frame, rotation +1 counter-clockwise, −1 clockwise (``dc_bots``' ``choose``).
Chooser = Callable[[DCGameState], tuple[float, float, float]]


@dataclass(frozen=True)
class DCResult:
    """A finished game as the client saw it.

    | field   | meaning                                                                     |
    |---------|-----------------------------------------------------------------------------|
    | team    | our side, ``"team0"`` / ``"team1"``                                         |
    | scores  | per team as the server sent them: DC3 one slot per regular end (None: not   |
    |         | played); DC4 one per standard end and the extra ends' slot last             |
    | extra   | DC3's ``extra_end_score`` (None: no extra end); DC4: (None, None)            |
    | winner  | ``"team0"`` / ``"team1"``, None for a draw                                   |
    | reason  | DC3's ``game_result.reason``; DC4 (its state does not say): "score" when the |
    |         | winner has more points, else "time"                                         |
    | shots   | the shots we sent                                                           |
    """

    team: str
    scores: dict[str, list[int | None]]
    extra: tuple[int | None, int | None]
    winner: str | None
    reason: str
    shots: int

    @property
    def totals(self) -> tuple[int, int]:
        """Points (team0, team1), extra ends included."""
        out = []
        for k, name in enumerate(("team0", "team1")):
            out.append(sum(s or 0 for s in self.scores[name]) + (self.extra[k] or 0))
        return out[0], out[1]

    def line(self) -> str:
        """One line: ``team0 won 2-1 (score) scores {"team0": [...], "team1": [...]}``."""
        import json

        mine, theirs = self.totals if self.team == "team0" else self.totals[::-1]
        outcome = "drew" if self.winner is None else "won" if self.winner == self.team else "lost"
        extra = "" if self.extra == (None, None) else f" extra {list(self.extra)}"
        return (
            f"{self.team} {outcome} {mine}-{theirs} ({self.reason}) "
            f"scores {json.dumps(self.scores)}{extra}"
        )
