"""What ``rllib evaluate`` reports of one opponent, on either ice: ``EvaluationResult`` (games,
W/D/L, points, from the evaluated player's view) and ``table`` (one row per opponent)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rllib_curling.game import Result


@dataclass
class EvaluationResult:
    """Games of the policy against one opponent, from the policy's view."""

    opponent: int
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    points_for: int = 0
    points_against: int = 0
    hammer_games: int = 0  # games with the hammer in end 1
    lines: list[str] = field(default_factory=list)

    @property
    def win_rate(self) -> float:
        """(wins + draws / 2) / games (``game.score_rate``; ``--episodes`` is at least 1)."""
        from rllib_curling.game import score_rate

        return score_rate(self.wins, self.draws, self.games)

    def add(self, result: Result, mine: int, theirs: int, *, hammer: bool = False) -> None:
        """Count one game: ``result`` and its totals from the policy's view, and whether the
        policy had the hammer in end 1."""
        from rllib_curling.game import Result

        self.games += 1
        self.hammer_games += hammer
        self.wins += result is Result.WIN
        self.draws += result is Result.DRAW
        self.losses += result is Result.LOSE
        self.points_for += mine
        self.points_against += theirs

    def as_dict(self) -> dict[str, Any]:
        n = max(self.games, 1)
        out = {k: v for k, v in asdict(self).items() if k != "lines"}
        out.update(win_rate=self.win_rate, mean_points_for=self.points_for / n,
                   mean_points_against=self.points_against / n)  # fmt: skip
        return out


def table(results: list[EvaluationResult], what: str = "level") -> str:
    """One row per opponent (``what`` and its level): games, W/D/L, win rate (draws half),
    mean score."""
    rows = [f"{'opponent':<{len(what) + 5}}games    W    D    L  win rate  mean score"]
    for r in results:
        d = r.as_dict()
        rows.append(
            f"{what} {r.opponent:<3d} {r.games:6d} {r.wins:4d} {r.draws:4d} {r.losses:4d}"
            f"  {100 * r.win_rate:6.1f} %  {d['mean_points_for']:.2f} - "
            f"{d['mean_points_against']:.2f}"
        )
    return "\n".join(rows)
