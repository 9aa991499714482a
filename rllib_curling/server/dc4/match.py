"""``DC4Match``: one DC4 match on the asyncio loop: its two sides, the users bound to them, the
game (``dc_game`` on the fcv1 ice, ``dc_ice``), the clocks, the streams' states and its records.

Life of a match (``shared/spec/digital_curling.md`` §7.1):

1. ``POST /matches`` creates it (``DC4Match(...)``), shot 0 of end 0, team 0 to throw.
2. ``join``: a user takes the side it asks for if free, else the other (``store-team-config``);
   a user already bound gets its side again; a third user gets 409 ``MATCH_STARTED``. A side
   ``reserve``d for a user (a bot the server seats) is free for that user only.
3. ``subscribe``: a team's stream (or a viewer's). Once both sides are configured and both have
   a stream open, the match starts: every stream gets the current end replayed (every state but
   the last as ``state_update``, the last as ``latest_state_update``), and the clock of the team
   to throw runs from then. A stream opened later gets the same replay.
4. ``shoot``: the team on turn is charged the wall time since the last state (running past its
   clock loses, and the stone is not thrown), the stone is thrown with its player's noise, and
   the new states go to every stream as ``latest_state_update``: after stone 15 the end's final
   state (shot 16, nobody to throw), then the next end's shot 0, or only the final state with
   ``winner_team`` set.
5. A team whose clock runs out without throwing (a client that vanished) loses on time: a timer
   armed at every state ends the game when the clock of the team to throw is spent.

Refusals are ``dc_protocol.refusals`` errors with DC4's details; nothing a client sends changes
the match unless it is accepted. Records (``server.records.GameRecorder``), one line each:

| type        | fields                                                                        |
|-------------|-------------------------------------------------------------------------------|
| dc4_match   | match_id, request (the ``POST /matches`` body), standard_end_count, rule      |
| dc4_team    | match_id, team ("team0"/"team1"), team_name, user, players [{max_velocity, …}] |
| dc4_shot    | match_id, end, shot, team, request (as posted), thrown [vx, vy, rotation] (after |
|             | the noise; null: lost on time), seed (the shot's noise: ``default_rng(seed)``), |
|             | seconds (charged), before, position (rows in throwing order, after the rules),   |
|             | foul, end_score [team0, team1] or null                                          |
| dc4_game    | match_id, teams [name0, name1], end_scores [[t0, t1], …], score {team0, team1}  |
|             | (as the stream sends it), totals, winner ("team0"/"team1"/null), reason         |
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from rllib_curling.dc_game import DCGame, DCGameConfig, DCGameState
from rllib_curling.dc_ice import DEFAULT_PLAYERS, player_of, throw_stone
from rllib_curling.dc_protocol import sse
from rllib_curling.dc_protocol.dc3_state import TEAMS
from rllib_curling.dc_protocol.dc4 import MatchRequest, Release, ShotInfo, TeamConfig
from rllib_curling.dc_protocol.dc4_state import State
from rllib_curling.dc_protocol.refusals import (
    INVALID_MATCH_DATA,
    MATCH_FINISHED,
    MATCH_STARTED,
    NOT_YOUR_TURN,
    BadRequest,
    Conflict,
    Unauthorized,
)
from rllib_curling.errors import ConfigError, InvalidThrowError
from rllib_curling.physics.fcv1 import NoiseModel
from rllib_curling.server.dc_turn_clock import TurnClock
from rllib_curling.server.dc_watch.feed import dc4_state
from rllib_curling.server.records import Recorder, position_list

log = logging.getLogger("rllib_curling.server.dc4")

#: DC4's ``applied_rule`` → ``dc_rules``' rule.
RULES = {"fgz_rule": "fgz", "no_tick_rule": "no_tick", "modified_fgz_rule": "modified_fgz"}
#: 409 on a shot before both teams joined and opened their streams (DC4 has no such state:
#: its clock runs from the match's creation).
NOT_STARTED = "The match has not started: both teams must join and open their streams."


def game_config(request: MatchRequest) -> DCGameConfig:
    """The game of a match request (400 for what this server does not play)."""
    if request.game_mode != "standard":
        raise BadRequest('This server plays game_mode "standard" only (no mixed doubles).')
    try:
        return DCGameConfig(
            standard_end_count=request.standard_end_count,
            rule=RULES[request.applied_rule],  # type: ignore[arg-type]
            time_limit=request.time_limit,
            extra_end_time_limit=request.extra_end_time_limit,
            extra_end_clock="shared",
        )
    except ConfigError as exc:
        raise BadRequest(str(exc)) from None


@dataclass(frozen=True)
class Side:
    """A configured side: its ``team_name``, the bound ``user`` and four players' noise."""

    team_name: str
    user: str
    players: tuple[NoiseModel, ...]


class DC4Match:
    """One match (module docstring). ``clock``: seconds, monotonic (tests may pass their own)."""

    def __init__(
        self,
        match_id: str,
        request: MatchRequest,
        rng: np.random.Generator,
        recorder: Recorder,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.id, self.request, self.rng, self.recorder = match_id, request, rng, recorder
        self.config = game_config(request)
        self.clock = clock
        self.state = DCGame.init(self.config)
        self.sides: list[Side | None] = [None, None]
        self.reserved: dict[int, str] = {}  # team -> the only user who may take it
        self.streams = [0, 0]  # open streams per team
        self.started = False
        self.turn_clock = TurnClock(lambda: self.state, self._out_of_time, clock)
        self._last_move: ShotInfo | None = None
        self._end_states: list[tuple[DCGameState, ShotInfo | None]] = [(self.state, None)]
        self._subscribers: set[asyncio.Queue[bytes]] = set()
        recorder.write({
            "type": "dc4_match", "match_id": match_id, "request": request.to_json(),
            "standard_end_count": self.config.standard_end_count, "rule": self.config.rule,
        })  # fmt: skip

    # -- sides and users -----------------------------------------------------------------------

    def reserve(self, team: int, user: str) -> None:
        """Keep side ``team`` for ``user`` (a bot the server seats): others get the other side."""
        if self.sides[team] is not None:
            raise ValueError(f"{TEAMS[team]} of match {self.id} is taken already")
        self.reserved[team] = user

    def join(self, user: str, wanted: str, team_config: TeamConfig) -> str:
        """``store-team-config``: the side ``user`` plays ("team0"/"team1")."""
        for team, side in enumerate(self.sides):
            if side is not None and side.user == user:
                return TEAMS[team]  # a reconnect
        first = TEAMS.index(wanted)
        free = [t for t in (first, 1 - first) if self.sides[t] is None
                and self.reserved.get(t, user) == user]  # fmt: skip
        if not free:
            raise Conflict(MATCH_STARTED)
        players = team_config.check(self.request.game_mode)
        models = tuple(
            NoiseModel(p.max_velocity, p.shot_std_dev, p.angle_std_dev)
            for p in players
            if p is not None
        )
        team = free[0]
        self.sides[team] = Side(team_config.team_name, user, models or DEFAULT_PLAYERS)
        self.recorder.write({
            "type": "dc4_team", "match_id": self.id, "team": TEAMS[team],
            "team_name": team_config.team_name, "user": user,
            "players": [p.to_json() for p in players if p is not None] or None,
        })  # fmt: skip
        log.info("DC4 match %s: %r (user %r) plays %s", self.id, team_config.team_name, user,
                 TEAMS[team])  # fmt: skip
        self._maybe_start()
        return TEAMS[team]

    def team_of(self, user: str) -> int:
        """The side ``user`` is bound to, else 401 ``INVALID_MATCH_DATA``."""
        for team, side in enumerate(self.sides):
            if side is not None and side.user == user:
                return team
        raise Unauthorized(INVALID_MATCH_DATA)

    # -- streams -------------------------------------------------------------------------------

    def subscribe(self, team: int | None) -> asyncio.Queue[bytes]:
        """A stream's queue of SSE bytes (``team`` None: a viewer)."""
        queue: asyncio.Queue[bytes] = asyncio.Queue()
        self._subscribers.add(queue)
        if team is not None:
            self.streams[team] += 1
        if self.started:
            queue.put_nowait(self._replay())
        else:
            self._maybe_start()
        return queue

    def unsubscribe(self, queue: asyncio.Queue[bytes], team: int | None) -> None:
        self._subscribers.discard(queue)
        if team is not None:
            self.streams[team] -= 1

    def close(self) -> None:
        """The server stops: no more timers."""
        self.turn_clock.cancel()

    def _maybe_start(self) -> None:
        if self.started or None in self.sides or 0 in self.streams:
            return
        self.started = True
        self.turn_clock.restart()
        log.info("DC4 match %s starts: %s vs %s", self.id, *self._names())
        replay = self._replay()
        for queue in self._subscribers:
            queue.put_nowait(replay)
        self.turn_clock.arm()

    def summary(self) -> dict[str, Any]:
        """The match for the watch page's list: id, name, teams, ends, started, end, shot,
        winner."""
        state = self.state
        return {
            "id": self.id,
            "name": self.request.match_name,
            "teams": list(self._names()),
            "ends": self.config.standard_end_count,
            "started": self.started,
            "end": state.end,
            "shot": state.shot,
            "winner": None if state.winner is None else TEAMS[state.winner],
            "over": state.is_terminal,
        }

    def _names(self) -> tuple[str | None, str | None]:
        a, b = self.sides
        return (None if a is None else a.team_name, None if b is None else b.team_name)

    def wire_state(self, state: DCGameState, last_move: ShotInfo | None) -> State:
        """DC4's state JSON of ``state`` (``dc_watch.feed.dc4_state``)."""
        return dc4_state(state, self._names(), last_move)

    def _replay(self) -> bytes:
        states = self._end_states
        return b"".join(
            sse.encode_event(self.wire_state(s, move).event(latest=k == len(states) - 1))
            for k, (s, move) in enumerate(states)
        )

    def _publish(self, state: DCGameState, last_move: ShotInfo | None, *, new_end: bool) -> None:
        if new_end:
            self._end_states = []
        self._end_states.append((state, last_move))
        if self.started:
            data = sse.encode_event(self.wire_state(state, last_move).event(latest=True))
            for queue in self._subscribers:
                queue.put_nowait(data)

    # -- shots and clocks ----------------------------------------------------------------------

    def shoot(self, user: str, info: ShotInfo) -> None:
        """``POST /shots`` by ``user``: throw, or DC4's refusal (the match goes on)."""
        team = self.team_of(user)
        if self.state.is_terminal:
            raise Conflict(MATCH_FINISHED)
        if not self.started:
            raise Conflict(NOT_STARTED)
        if self.state.next_team != team:
            raise Conflict(NOT_YOUR_TURN)
        before = self.state
        seconds = self.turn_clock.elapsed()
        charged = DCGame.charge_time(before, seconds)
        if charged.is_terminal:  # over time: the stone is not thrown (DC3; see docs)
            self._time_out(charged, seconds, info)
            return
        side = self.sides[team]
        assert side is not None
        noise = side.players[player_of(charged.shot)]
        # DC4 clamps the speed to the player's max_velocity (then adds the noise), and the noisy
        # speed at 0: a negative speed throws a dead stone
        speed = min(max(info.translational_velocity, 0.0), noise.max_speed)
        release = Release.from_request(dataclasses.replace(info, translational_velocity=speed))
        seed = int(self.rng.integers(2**63))
        throw = (release.vx, release.vy, 1.0 if release.omega > 0 else -1.0)
        try:
            thrown = throw_stone(charged, throw, np.random.default_rng(seed), noise)
        except InvalidThrowError as exc:
            raise BadRequest(f"The shot cannot be thrown on the fcv1 ice: {exc}") from None
        transition = DCGame.settle(charged, thrown.position)
        vx, vy, _ = thrown.thrown
        move = Release(vx, vy, release.omega).as_last_move()
        end_state = transition.end_state
        shown = end_state if end_state is not None else transition.state
        self.recorder.write({
            "type": "dc4_shot", "match_id": self.id, "end": before.end, "shot": before.shot,
            "team": TEAMS[team], "request": info.to_json(), "thrown": list(thrown.thrown),
            "seed": seed, "seconds": seconds, "before": position_list(before.position),
            "position": position_list(shown.position), "foul": transition.foul,
            "end_score": None if transition.end_score is None else list(transition.end_score),
        })  # fmt: skip
        self.state = transition.state
        self._publish(shown, move, new_end=False)
        if end_state is not None and transition.state is not end_state:
            self._publish(transition.state, None, new_end=True)
        self._after_state()

    def _time_out(self, lost: DCGameState, seconds: float, info: ShotInfo | None) -> None:
        assert lost.winner is not None
        team = 1 - lost.winner
        log.warning("DC4 match %s: %s ran out of time (%.3f s): %s wins", self.id,
                    TEAMS[team], seconds, TEAMS[1 - team])  # fmt: skip
        self.recorder.write({
            "type": "dc4_shot", "match_id": self.id, "end": lost.end, "shot": lost.shot,
            "team": TEAMS[team], "request": None if info is None else info.to_json(),
            "thrown": None, "seed": None, "seconds": seconds,
            "before": position_list(lost.position), "position": position_list(lost.position),
            "foul": False, "end_score": None,
        })  # fmt: skip
        self.state = lost
        self._publish(lost, self._end_states[-1][1], new_end=False)
        self._after_state()

    def _after_state(self) -> None:
        self.turn_clock.restart()
        if self.state.is_terminal:
            self.turn_clock.cancel()
            self._finish()
        elif self.started:
            self.turn_clock.arm()

    def _out_of_time(self, charged: DCGameState, seconds: float) -> None:
        self._time_out(charged, seconds, None)

    def _finish(self) -> None:
        state = self.state
        winner = None if state.winner is None else TEAMS[state.winner]
        team0, team1 = state.score_lists()
        self.recorder.write({
            "type": "dc4_game", "match_id": self.id, "teams": list(self._names()),
            "end_scores": [list(s) for s in state.end_scores],
            "score": {"team0": list(team0), "team1": list(team1)},
            "totals": list(state.totals), "winner": winner, "reason": state.reason,
        })  # fmt: skip
        self.recorder.flush()
        log.info("DC4 match %s over: %s %d - %d %s, winner %s (%s)", self.id,
                 self._names()[0], *state.totals, self._names()[1], winner,
                 state.reason)  # fmt: skip
