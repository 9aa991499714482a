"""The DC servers' turn clock: it rings when the team on turn runs out, not when a move came
first, and charges a move the time since the state was published."""

from __future__ import annotations

import asyncio

from rllib_curling.dc_game import DCGame, DCGameConfig, DCGameState
from rllib_curling.server.dc_turn_clock import TurnClock


def _run(moves_first: bool) -> tuple[list[tuple[DCGameState, float]], float]:
    now = [100.0]
    game = {"state": DCGame.init(DCGameConfig(standard_end_count=1, time_limit=0.05))}
    rang: list[tuple[DCGameState, float]] = []

    async def play() -> float:
        clock = TurnClock(lambda: game["state"], lambda s, t: rang.append((s, t)), lambda: now[0])
        clock.restart()
        clock.arm()
        now[0] += 0.02
        elapsed = clock.elapsed()
        if moves_first:  # a new state is the game's before the clock rings
            game["state"] = DCGame.charge_time(game["state"], elapsed)
        now[0] += 0.2
        await asyncio.sleep(0.15)
        clock.cancel()
        return elapsed

    return rang, asyncio.run(play())


def test_turn_clock__rings_when_the_team_on_turn_runs_out() -> None:
    rang, elapsed = _run(moves_first=False)
    assert abs(elapsed - 0.02) < 1e-9
    assert len(rang) == 1
    charged, seconds = rang[0]
    assert charged.is_terminal and abs(seconds - 0.22) < 1e-9  # lost on time


def test_turn_clock__a_move_first_silences_it() -> None:
    rang, _ = _run(moves_first=True)
    assert rang == []
