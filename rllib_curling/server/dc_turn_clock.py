"""``TurnClock``: the thinking-time clock of a Digital Curling game on our DC3 and DC4 servers.

The team on turn is charged the wall time since the current state was published (``restart``);
a move charges ``elapsed()`` (``dc_game.DCGame.charge_time``). If no move comes, the clock rings
when that team's time is up (``arm``): the state, charged, is handed to ``on_time_out`` (the
server records the loss and ends the game). A ring on a state that is no longer the game's (a
move came first) does nothing; a ring a little early (the event loop's clock) waits for the rest.
Both rooms keep their own wire and records; only the clock is shared.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from rllib_curling.dc_game import DCGame, DCGameState

#: The clock rings this long after a team's time is up, so a move sent at the last moment wins.
TIMEOUT_MARGIN = 0.05


class TurnClock:
    """The clock of one game. ``current()``: the game's state now; ``on_time_out(charged,
    seconds)``: the team on turn in ``charged`` ran out after ``seconds``; ``clock``: seconds,
    monotonic (tests may pass their own)."""

    def __init__(
        self,
        current: Callable[[], DCGameState],
        on_time_out: Callable[[DCGameState, float], None],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.current, self.on_time_out, self.clock = current, on_time_out, clock
        self.since = clock()
        self._timer: asyncio.TimerHandle | None = None

    def restart(self) -> None:
        """A new state is published: the team on turn thinks from now."""
        self.since = self.clock()

    def elapsed(self) -> float:
        """Seconds since the state was published (what a move is charged)."""
        return max(0.0, self.clock() - self.since)

    def arm(self) -> None:
        """Ring when the team on turn in the current state runs out (none: nothing to do)."""
        self.cancel()
        state = self.current()
        team = state.next_team
        if team is None:
            return
        delay = state.time_left(team) - (self.clock() - self.since) + TIMEOUT_MARGIN
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(max(0.0, delay), self._ring, state)

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _ring(self, state: DCGameState) -> None:
        self._timer = None
        if self.current() is not state or state.is_terminal:
            return  # a move came first
        seconds = self.clock() - self.since
        charged = DCGame.charge_time(state, seconds)
        if charged.is_terminal:
            self.on_time_out(charged, seconds)
        else:  # woke early (the loop's clock): wait for the rest
            self.arm()
