"""``dc4_state``: DC4's state of a ``DCGameState`` (what DC4's streams send, and what the watch
page reads), and ``StateFeed``: one game's states for the page's watchers, for a server whose own
protocol has no viewer stream (DC3).

A feed keeps the current end's states (a watcher that comes in gets them, then each new one), as
DC4's viewer stream does: SSE events ``state_update`` (the end so far) and
``latest_state_update`` (the newest), each carrying DC4's state JSON. A watcher's queue is
unbounded but holds at most one game's states (a few kB each).
"""

from __future__ import annotations

import asyncio
from typing import Any

from rllib_curling.dc_game import DCGameState
from rllib_curling.dc_protocol import sse
from rllib_curling.dc_protocol.dc3_state import TEAMS
from rllib_curling.dc_protocol.dc4 import ShotInfo
from rllib_curling.dc_protocol.dc4_state import State, team_stones


def dc4_state(
    state: DCGameState, names: tuple[str | None, str | None], last_move: ShotInfo | None = None
) -> State:
    """DC4's state of ``state`` (the teams' ``names``; None: not configured yet)."""
    team0, team1 = state.team_stones()
    nxt, winner = state.next_team, state.winner
    return State(
        end_number=state.end,
        total_shot_number=state.shot,
        next_shot_team=None if nxt is None else TEAMS[nxt],
        remaining_time=state.remaining,
        extra_end_remaining_time=state.extra_remaining,
        stones=(team_stones(team0.tolist()), team_stones(team1.tolist())),
        score=state.score_lists(),
        winner_team=None if winner is None else TEAMS[winner],
        last_move=last_move,
        first_team_name=names[0],
        second_team_name=names[1],
    )


class StateFeed:
    """One game's states for watchers (module docstring); the loop's thread only."""

    def __init__(self, game_id: str, ends: int) -> None:
        self.id, self.ends = game_id, ends
        self.names: tuple[str | None, str | None] = (None, None)
        self.last: DCGameState | None = None
        self._end: list[State] = []
        self._queues: set[asyncio.Queue[bytes]] = set()

    def show(self, state: DCGameState, names: tuple[str | None, str | None]) -> None:
        """A new state of the game: to every watcher, and kept while its end goes on."""
        self.names, self.last = names, state
        wire = dc4_state(state, names)
        if self._end and self._end[-1].end_number != wire.end_number:
            self._end = []
        self._end.append(wire)
        data = sse.encode_event(wire.event(latest=True))
        for queue in self._queues:
            queue.put_nowait(data)

    def subscribe(self) -> asyncio.Queue[bytes]:
        """A watcher's queue of SSE bytes, starting with the end so far."""
        queue: asyncio.Queue[bytes] = asyncio.Queue()
        states = self._end
        if states:
            queue.put_nowait(b"".join(
                sse.encode_event(s.event(latest=k == len(states) - 1))
                for k, s in enumerate(states)
            ))  # fmt: skip
        self._queues.add(queue)
        return queue

    def unsubscribe(self, queue: asyncio.Queue[bytes]) -> None:
        self._queues.discard(queue)

    def summary(self) -> dict[str, Any]:
        """The game for the page's list (as ``DC4Match.summary``)."""
        state = self.last
        winner = None if state is None or state.winner is None else TEAMS[state.winner]
        return {
            "id": self.id, "name": "", "teams": list(self.names), "ends": self.ends,
            "started": state is not None, "end": 0 if state is None else state.end,
            "shot": 0 if state is None else state.shot, "winner": winner,
            "over": state is not None and state.is_terminal,
        }  # fmt: skip
