"""``DC3Game``: one DC3 game on the asyncio loop: the two teams' handshakes, the turns, the shots
on the fcv1 ice (``dc_ice``), the thinking-time clocks, faults and records. It reads decoded
messages (``dc_protocol.dc3``) and writes lines through an ``Outbox`` (the TCP shell, or a test).

Life of a game (``shared/spec/digital_curling.md`` §6; DC3's ``game.cpp``), per team:

| phase     | the server sent            | it waits for | then                                     |
|-----------|----------------------------|--------------|------------------------------------------|
| ``dc``    | ``dc`` on connection       | ``dc_ok``    | ``is_ready`` (the settings, the side)    |
| ``ready`` | ``is_ready``               | ``ready_ok`` | wait for the other team                  |
| ``wait``  | —                          | —            | both ready: ``new_game`` and the first   |
|           |                            |              | ``update`` to both                       |
| ``play``  | ``update`` (``next_team``) | ``move`` on  | the team on turn is charged the time     |
|           |                            | its turn     | since its update; the next ``update``    |
| ``over``  | ``update`` (result),       | —            | the connection closes                    |
|           | ``game_over``              |              |                                          |

**Clocks**: a team's clock runs from the update that gives it the turn to its ``move``; running
past it loses (reason ``time_limit``; the stone is not thrown), and a timer ends the game when a
silent team's clock is spent, as DC3's input deadline does.

**Faults** (DC3's server logs an error and stops): malformed JSON, an unknown or unexpected
``cmd`` (a ``move`` out of turn, a second ``dc_ok``), invalid fields (``player_order`` not a
permutation of 0–3), no ``dc_ok`` within ``dc_ok_timeout``, or a connection that closes before
the game is over. The team at fault is disconnected with one error line in the log
(``rllib_curling.server.dc3``) naming it and what it sent. Before ``new_game`` its seat is free
again (the other team waits); during the game it loses at once on time (it can no longer move),
and the other team gets the final ``update`` and ``game_over``. A shot's speed above the
player's ``max_speed`` is clamped, as DC3's players do (not a fault).

**Watching**: a ``viewer`` (the watch page's ``StateFeed``, with ``--http-port``) is shown
every state the teams get in an ``update``, and each end's final state (the stones as they lie,
scored) that DC3's updates skip.

Records (``server.records.GameRecorder``), one line each:

| type      | fields                                                                          |
|-----------|---------------------------------------------------------------------------------|
| dc3_match | game_id, date_time, game (``is_ready``'s settings)                              |
| dc3_team  | game_id, team ("team0"/"team1"), name (``dc_ok``), player_order                 |
| dc3_shot  | game_id, end, shot, team, move (as received; null: lost on time), thrown [vx, vy, |
|           | rotation] (after the clamp and the noise; null: none), seed (the shot's noise:   |
|           | ``default_rng(seed)``), seconds (charged), before, position (rows in throwing    |
|           | order, after the rules), foul, end_score [team0, team1] or null                  |
| dc3_game  | game_id, teams [name0, name1], end_scores [[t0, t1], …], scores {team0, team1}   |
|           | and extra_end_score {team0, team1} (as the last update sends them), totals,     |
|           | winner ("team0"/"team1"/null), reason (DC3's: score, concede, time_limit, draw), |
|           | fault (null, or {team, why}: the team disconnected for a fault)                 |
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import math
import time
from collections.abc import Callable
from typing import Protocol

import numpy as np

from rllib_curling.dc_game import DCGame, DCGameConfig, DCGameState
from rllib_curling.dc_ice import DEFAULT_PLAYERS, player_of, throw_stone
from rllib_curling.dc_protocol import dc3
from rllib_curling.dc_protocol.dc3_state import TEAMS, Concede, GameState, Move, Shot
from rllib_curling.errors import InvalidThrowError, ProtocolError
from rllib_curling.physics.fcv1 import clamp_speed
from rllib_curling.server.dc3.wire import settings_of, wire_state
from rllib_curling.server.dc_turn_clock import TurnClock
from rllib_curling.server.records import Recorder, position_list

log = logging.getLogger("rllib_curling.server.dc3")

#: What each phase waits for.
EXPECTED = {"dc": dc3.DcOk.CMD, "ready": dc3.ReadyOk.CMD, "play": dc3.MoveMessage.CMD}


class Viewer(Protocol):
    """Who watches the game (the watch page's ``dc_watch.feed.StateFeed``): every state shown,
    an end's final one (the stones as they lie, scored) before the next end's first."""

    def show(self, state: DCGameState, names: tuple[str | None, str | None]) -> None: ...


class Outbox(Protocol):
    """Where a game writes: ``send(team, line)`` queues one encoded line for a team's
    connection; ``close(team)`` closes it once what was queued is written."""

    def send(self, team: int, data: bytes) -> None: ...

    def close(self, team: int) -> None: ...


class DC3Game:
    """One game (module docstring). ``clock``: seconds, monotonic (tests may pass their own)."""

    def __init__(
        self,
        game_id: str,
        date_time: str,
        config: DCGameConfig,
        rng: np.random.Generator,
        recorder: Recorder,
        outbox: Outbox,
        *,
        dc_ok_timeout: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
        viewer: Viewer | None = None,
    ) -> None:
        self.id, self.date_time, self.config = game_id, date_time, config
        self.rng, self.recorder, self.outbox, self.clock = rng, recorder, outbox, clock
        self.dc_ok_timeout, self.viewer = dc_ok_timeout, viewer
        self.settings = settings_of(config)
        self.state = DCGame.init(config)
        self.phases: list[str | None] = [None, None]  # None: no connection
        self.names = ["", ""]
        self.orders: list[tuple[int, ...]] = [(), ()]
        self.started = False
        self.fault: dict[str, str] | None = None
        self.turn_clock = TurnClock(lambda: self.state, self._out_of_time, clock)
        self._timers: list[asyncio.TimerHandle | None] = [None, None]  # each team's dc_ok
        recorder.write({
            "type": "dc3_match", "game_id": game_id, "date_time": date_time,
            "game": self.settings.to_json(),
        })  # fmt: skip

    @property
    def is_over(self) -> bool:
        return self.state.is_terminal

    def seat_free(self, team: int) -> bool:
        """Whether a connection on ``team``'s port may play (no one holds it, not started)."""
        return self.phases[team] is None and not self.started

    # -- connections ---------------------------------------------------------------------------

    def connect(self, team: int) -> None:
        """A client connected on ``team``'s port: ``dc``, and the ``dc_ok`` deadline."""
        self.phases[team] = "dc"
        self._send(team, dc3.Dc(self.id, self.date_time))
        loop = asyncio.get_running_loop()
        self._timers[team] = loop.call_later(self.dc_ok_timeout, self._dc_ok_late, team)
        log.info("DC3 game %s: %s connected", self.id, TEAMS[team])

    def disconnected(self, team: int) -> None:
        """``team``'s connection closed (by the client or after ``close``)."""
        if self.phases[team] in (None, "over", "gone"):
            return
        self._fault(team, "disconnected before the game was over", close=False)

    def receive(self, team: int, item: dc3.Message | ProtocolError) -> None:
        """A line from ``team``'s client, decoded (or the error decoding it)."""
        phase = self.phases[team]
        if phase in (None, "gone"):
            return
        if phase == "over":
            log.warning("DC3 game %s: the game is over; %s's message is ignored: %s",
                        self.id, TEAMS[team], item)  # fmt: skip
            return
        if isinstance(item, ProtocolError):
            self._fault(team, f"sent {item}")
            return
        expected = EXPECTED.get(phase) if phase != "play" or self._on_turn(team) else None
        if item.CMD != expected:
            want = f'expected "{expected}"' if expected else "nothing expected: not its turn"
            self._fault(team, f'unexpected command "{item.CMD}" ({want})')
        elif isinstance(item, dc3.DcOk):
            self._dc_ok(team, item)
        elif isinstance(item, dc3.ReadyOk):
            self._ready_ok(team, item)
        elif isinstance(item, dc3.MoveMessage):
            self._move(team, item.move)

    def close(self) -> None:
        """The server stops: no more timers."""
        for timer in self._timers:
            if timer is not None:
                timer.cancel()
        self.turn_clock.cancel()

    # -- handshake -----------------------------------------------------------------------------

    def _dc_ok(self, team: int, msg: dc3.DcOk) -> None:
        self._cancel(team)
        self.names[team] = msg.name
        self.phases[team] = "ready"
        self._send(team, dc3.IsReady(TEAMS[team], self.settings))
        log.info("DC3 game %s: %s is %r", self.id, TEAMS[team], msg.name)

    def _ready_ok(self, team: int, msg: dc3.ReadyOk) -> None:
        self.orders[team] = msg.player_order
        self.phases[team] = "wait"
        if self.phases != ["wait", "wait"]:
            return
        self.started = True
        for t in (0, 1):
            self.recorder.write({
                "type": "dc3_team", "game_id": self.id, "team": TEAMS[t],
                "name": self.names[t], "player_order": list(self.orders[t]),
            })  # fmt: skip
        log.info("DC3 game %s starts: %r vs %r", self.id, *self.names)
        names = (self.names[0], self.names[1])
        for t in (0, 1):
            self.phases[t] = "play"
            self._send(t, dc3.NewGame(names))
        self._publish(None)

    def _dc_ok_late(self, team: int) -> None:
        self._timers[team] = None
        if self.phases[team] == "dc":
            self._fault(team, f"no dc_ok within {self.dc_ok_timeout:g} s")

    # -- turns ---------------------------------------------------------------------------------

    def _on_turn(self, team: int) -> bool:
        return self.started and not self.is_over and self.state.next_team == team

    def _move(self, team: int, move: Move) -> None:
        before = self.state
        seconds = self.turn_clock.elapsed()
        charged = DCGame.charge_time(before, seconds)
        if charged.is_terminal:  # over time: the move is not played (DC3's ApplyMove)
            self._lose_on_time(charged, seconds, move)
            return
        if isinstance(move, Concede):
            self.state = DCGame.concede(charged, team)
            self._record_shot(before, team, move, None, None, seconds, self.state, False, None)
            log.info("DC3 game %s: %s concedes", self.id, TEAMS[team])
            self._publish(dc3.LastMove(move))
            return
        noise = DEFAULT_PLAYERS[self.orders[team][player_of(charged.shot)]]
        vx, vy = move.vx, move.vy
        speed = math.hypot(vx, vy)
        if speed > noise.max_speed:  # DC3's player clamps the speed (then adds the noise)
            log.info("DC3 game %s: %s's speed %.4g m/s clamped to %g", self.id, TEAMS[team],
                     speed, noise.max_speed)  # fmt: skip
            vx, vy = clamp_speed((vx, vy), noise.max_speed).tolist()
        seed = int(self.rng.integers(2**63))
        rotation = 1.0 if move.rotation == "ccw" else -1.0
        try:
            thrown = throw_stone(charged, (vx, vy, rotation), np.random.default_rng(seed), noise)
        except InvalidThrowError as exc:
            self._fault(team, f"sent a shot the fcv1 ice cannot throw: {exc}")
            return
        transition = DCGame.settle(charged, thrown.position)
        end_state = transition.end_state
        shown = end_state if end_state is not None else transition.state
        self._record_shot(
            before, team, move, thrown.thrown, seed, seconds, shown, transition.foul,
            transition.end_score,
        )  # fmt: skip
        if end_state is not None and transition.state is not end_state:
            self._show(end_state)  # DC3's update skips it: the page shows the end's last stones
        self.state = transition.state
        tx, ty, _ = thrown.thrown
        self._publish(dc3.LastMove(Shot(tx, ty, move.rotation), transition.foul))

    def _lose_on_time(self, lost: DCGameState, seconds: float, move: Move | None) -> None:
        assert lost.winner is not None
        team = 1 - lost.winner
        log.warning("DC3 game %s: %s ran out of time (%.3f s): %s wins", self.id, TEAMS[team],
                    seconds, TEAMS[1 - team])  # fmt: skip
        self._record_shot(self.state, team, move, None, None, seconds, lost, False, None)
        self.state = lost
        self._publish(dc3.LastMove(Concede()))  # DC3 applies a dummy concede on time-out

    def _record_shot(
        self,
        before: DCGameState,
        team: int,
        move: Move | None,
        thrown: tuple[float, float, float] | None,
        seed: int | None,
        seconds: float,
        after: DCGameState,
        foul: bool,
        end_score: tuple[int, int] | None,
    ) -> None:
        self.recorder.write({
            "type": "dc3_shot", "game_id": self.id, "end": before.end, "shot": before.shot,
            "team": TEAMS[team], "move": None if move is None else move.to_json(),
            "thrown": None if thrown is None else list(thrown), "seed": seed,
            "seconds": seconds, "before": position_list(before.position),
            "position": position_list(after.position), "foul": foul,
            "end_score": None if end_score is None else list(end_score),
        })  # fmt: skip

    def _publish(self, last_move: dc3.LastMove | None) -> None:
        """The update to both (the team on turn's clock runs from now), or the final update and
        ``game_over``."""
        state = self.state
        self._show(state)
        nxt = state.next_team
        update = dc3.Update(None if nxt is None else TEAMS[nxt], wire_state(state), last_move)
        for t in (0, 1):
            self._send(t, update)
        self.turn_clock.restart()
        if state.is_terminal:
            self._finish(update.state)
        else:
            self.turn_clock.arm()

    def _show(self, state: DCGameState) -> None:
        if self.viewer is not None:
            self.viewer.show(state, (self.names[0] or None, self.names[1] or None))

    def _out_of_time(self, charged: DCGameState, seconds: float) -> None:
        self._lose_on_time(charged, seconds, None)

    # -- faults and the end --------------------------------------------------------------------

    def _fault(self, team: int, why: str, *, close: bool = True) -> None:
        name = self.names[team] or "(no name yet)"
        log.error("DC3 game %s: %s %r %s; disconnecting it", self.id, TEAMS[team], name, why)
        self._cancel(team)
        if close:
            self.outbox.close(team)
        if not self.started:
            self.phases[team] = None  # the seat is free again; the other team waits
            self.names[team], self.orders[team] = "", ()
            return
        self.phases[team] = "gone"
        if self.is_over:
            return
        self.fault = {"team": TEAMS[team], "why": why}
        state = self.state
        extra = state.is_extra_end
        spent = list(state.extra_remaining if extra else state.remaining)
        spent[team] = 0.0
        clock = (spent[0], spent[1])
        lost = dataclasses.replace(
            state,
            winner=1 - team,
            reason="time",
            remaining=state.remaining if extra else clock,
            extra_remaining=clock if extra else state.extra_remaining,
        )
        self._record_shot(state, team, None, None, None, 0.0, lost, False, None)
        self.state = lost
        self._publish(dc3.LastMove(Concede()))

    def _finish(self, shown: GameState) -> None:
        self.turn_clock.cancel()
        state = self.state
        result = shown.game_result
        assert result is not None
        for t in (0, 1):
            if self.phases[t] not in (None, "gone"):
                self._send(t, dc3.GameOver())
                self.outbox.close(t)
            self.phases[t] = "over"
        self.recorder.write({
            "type": "dc3_game", "game_id": self.id, "teams": list(self.names),
            "end_scores": [list(s) for s in state.end_scores],
            "scores": dict(zip(TEAMS, (list(s) for s in shown.scores), strict=True)),
            "extra_end_score": dict(zip(TEAMS, shown.extra_end_score, strict=True)),
            "totals": list(state.totals), "winner": result.winner, "reason": result.reason,
            "fault": self.fault,
        })  # fmt: skip
        self.recorder.flush()
        log.info("DC3 game %s over: %r %d - %d %r, winner %s (%s)", self.id, self.names[0],
                 *state.totals, self.names[1], result.winner, result.reason)  # fmt: skip

    def _send(self, team: int, msg: dc3.Message) -> None:
        if self.phases[team] not in (None, "gone"):
            self.outbox.send(team, dc3.encode(msg))

    def _cancel(self, index: int) -> None:
        timer = self._timers[index]
        if timer is not None:
            timer.cancel()
            self._timers[index] = None
