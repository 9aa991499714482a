"""The match plays every kind of seat through one interface (``players.Player``).

Two seats of a kind the match has never heard of (``ScriptedPlayer``: a ``Player`` subclass
defined here) play whole games on the controlled stand-in physics of ``server_helpers``: what
they answer reaches the records (sweeps, explanations, lost turns) exactly as for the seats
the server makes (clients, bots, people).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rllib_curling.game import GameState, Transition
from rllib_curling.server.config import ServerConfig
from rllib_curling.server.match import Match
from rllib_curling.server.players import Choice, Player
from rllib_curling.server.records import GameRecorder

pytestmark = pytest.mark.timeout(60)
pytest_plugins = ("server_fixtures",)  # fixtures: fake_engine


class ScriptedPlayer(Player):
    """Throws a draw (or nothing: ``lose_turns``), sweeps ``sweep`` metres, explains itself when
    ``explain`` is set, and notes what the match asked of it."""

    def __init__(
        self, name: str, seat: int, *, sweep: float = 0.0, explain: bool = False,
        lose_turns: bool = False,
    ) -> None:  # fmt: skip
        self._name, self.seat = name, seat
        self.sweep_distance, self.explain, self.lose_turns = sweep, explain, lose_turns
        self.games: list[str] = []
        self.sent: list[str] = []
        self.closed_by_match = False

    @property
    def name(self) -> str:
        return self._name

    @property
    def kind(self) -> str:
        return "scripted"

    def start_game(self, game_id: str) -> None:
        self.games.append(game_id)

    def send_bytes(self, data: bytes) -> None:
        self.sent.append(data.decode().split(" ")[0])

    async def choose(self, state: GameState, *, timeout: float, rng: np.random.Generator) -> Choice:
        if self.lose_turns:
            self.missed_turns += 1
            return Choice(state, None)
        explanation = {"shot": state.shot} if self.explain else None
        return Choice(state, (3.0, 0.1 * self.seat, 1.0), explanation=explanation)

    async def sweep(self, mid: np.ndarray, window: float, path: np.ndarray | None = None) -> float:
        return self.sweep_distance

    async def centerline_choice(self, transition: Transition, timeout: float) -> str:
        return "KEEP"

    async def close(self, *, empties: bool = True) -> None:
        self.closed_by_match = True


def _play(players: list[Player], tmp_path: Path, **config: Any) -> list[dict[str, Any]]:
    recorder = GameRecorder(tmp_path)
    match = Match(
        players, config=ServerConfig(ends=1, seed=7, **config), recorder=recorder,
        match_index=0, seed=7,
    )  # fmt: skip
    asyncio.run(match.run())
    assert recorder.path is not None
    return [json.loads(line) for line in recorder.path.read_text().splitlines()]


def test_match__plays_any_player_through_the_player_interface(
    fake_engine: None, tmp_path: Path
) -> None:
    sweeper = ScriptedPlayer("sweeper", 0, sweep=1.5)
    explainer = ScriptedPlayer("explainer", 1, explain=True)
    records = _play([sweeper, explainer], tmp_path, games=2)
    shots = [r for r in records if r["type"] == "shot"]
    games = [r for r in records if r["type"] == "game"]
    assert [g["reason"] for g in games] == ["finished", "finished"]
    assert len(shots) == 32
    by_sweeper = [s for s in shots if s["players"][s["thrower"]] == "sweeper"]
    by_explainer = [s for s in shots if s["players"][s["thrower"]] == "explainer"]
    assert {s["sweep"] for s in by_sweeper} == {1.5}
    assert {s["sweep"] for s in by_explainer} == {0.0}
    assert all(s["explain"] == {"shot": s["shot"]} for s in by_explainer)
    assert not any("explain" in s for s in by_sweeper)
    assert sweeper.games == explainer.games == [g["game_id"] for g in games]
    assert sweeper.sent.count("GO") == 0  # GO is the client's own business (RemotePlayer)
    assert sweeper.sent.count("NEWGAME") == 2
    assert sweeper.closed_by_match and explainer.closed_by_match


def test_match__a_player_losing_turns_forfeits_through_the_interface(
    fake_engine: None, tmp_path: Path
) -> None:
    silent = ScriptedPlayer("silent", 0, lose_turns=True)
    other = ScriptedPlayer("other", 1)
    records = _play([silent, other], tmp_path, games=1, forfeit_after=2)
    (game,) = [r for r in records if r["type"] == "game"]
    assert (game["reason"], game["lost_seat"], game["results"]) == ("forfeit", 0, ["LOSE", "WIN"])
    assert silent.missed_turns == 2
