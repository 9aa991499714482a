"""The game loop of one match (a pair of seats playing ``games`` games on the same connections).

Message order (protocol.md "One game"): the seats arrive ready (``ISREADY``/``READYOK`` when
they were seated, see ``curling_server``), then for each game ``NEWGAME``; before each stone
``POSITION``, ``SETSTATE`` to both and ``GO`` to the thrower; ``MOTIONINFO`` to a remote
thrower when its stone crosses mid-sheet; after stone 15 ``POSITION``,
``SCORE`` (each seat its own view), ``SETSTATE 16 …``; after the last end ``TOTALSCORE`` and
``GAMEOVER`` (each seat its own view). After the last game both seats get the 5 empty messages
and are closed.

**Every game looks like the first one**: Player1 throws first in end 1. The two connections take
turns being Player1, so the hammer alternates from game to game; before each game after the first
both seats are told their seat again (``NAME PlayerN `` then ``CONNECTNAME PlayerN ``, as when
they were seated), so clients that take their side from ``CONNECTNAME`` (the course template)
know which stones are theirs in every game.

Randomness: game ``g`` of match ``m`` draws everything from ``default_rng([seed, m, g])``: first a
seed for the bots' generator, then one physics ``seed`` per stone (``simulate(…, seed=seed)``;
twice with that seed when a SWEEP comes: the path up to mid-sheet is the same).

A lost turn (no BESTSHOT within the turn timeout) counts as a stone thrown out of play;
``forfeit_after`` lost turns in a row by one seat forfeit the game and end the match: that seat
gets ``GAMEOVER LOSE`` and ``Error …``, the other ``GAMEOVER WIN``, then both the 5 empty messages.
A seat that disconnects ends the game the same way (the other seat gets ``GAMEOVER WIN``);
a seat that leaves a later game of the match before it threw a stone there has left between
games (a client done after its last game of an endless match): that game's record says
``"left"``, nobody lost it, and the console prints no line for it.
When both seats send the same team name, the records add the seat (``"name (Player2)"``).
"""

from __future__ import annotations

import asyncio
import importlib
import logging
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from rllib_curling import protocol as p
from rllib_curling import sheet
from rllib_curling.game import Game, GameConfig, GameState, Result, Transition
from rllib_curling.server.config import ServerConfig
from rllib_curling.server.connection import SeatLost
from rllib_curling.server.players import Player
from rllib_curling.server.records import Recorder, position_list

log = logging.getLogger("rllib_curling.server")
_SEED_BOUND = 2**63


def load_physics() -> ModuleType:
    """The physics module (imported on first use: it compiles numba kernels)."""
    return importlib.import_module("rllib_curling.physics")


class Forfeit(Exception):
    """A seat lost ``forfeit_after`` turns in a row."""

    def __init__(self, seat: int, turns: int) -> None:
        super().__init__(f"Player{seat + 1} forfeited: no BESTSHOT in {turns} turns in a row")
        self.seat = seat


class Match:
    """Plays ``config.games`` games (0 = until cancelled) between two seats; see the module."""

    def __init__(
        self,
        players: list[Player],
        *,
        config: ServerConfig,
        recorder: Recorder,
        match_index: int,
        seed: int,
        game_id_prefix: str = "",
        on_game: Callable[[dict[str, Any], list[str]], None] | None = None,
    ) -> None:
        self.players, self.config, self.recorder = players, config, recorder
        self.match_index, self.seed = match_index, seed
        self.game_id_prefix = game_id_prefix
        #: Called with each ``game`` record (``records``) and the seats' kinds as it ends.
        self.on_game = on_game
        self.lost: int | None = None
        self.games_played = 0
        self._physics = load_physics()
        for player in players:
            player.watch(self._closed_callback(player), lambda: self.lost)

    def _closed_callback(self, gone: Player) -> Callable[[], None]:
        def closed() -> None:
            if self.lost is None:
                self.lost = gone.seat  # its seat in the game being played
                log.info("match %d: Player%d disconnected", self.match_index, gone.seat + 1)
            for player in self.players:
                player.wake()

        return closed

    # -- the match -----------------------------------------------------------------------------

    async def run(self) -> None:
        """Ready both seats, play the games, close the seats (also when cancelled)."""
        try:
            if not await self._ready():
                return
            game = 0
            while self.config.games == 0 or game < self.config.games:
                if self.lost is not None:
                    return
                if not await self._play_game(game):
                    return
                game += 1
        finally:
            await self._close_all()

    async def _ready(self) -> bool:
        """Remote seats come ready (``players.ready_client`` when seated); bots build tables."""
        try:
            return all([await player.ready() for player in self.players])
        except SeatLost:
            return False

    async def _close_all(self) -> None:
        for player in self.players:
            player.watch(None, None)
        await asyncio.gather(*(pl.close(empties=True) for pl in self.players))
        self.recorder.flush()

    # -- one game ------------------------------------------------------------------------------

    async def _play_game(self, game: int) -> bool:
        """Play game ``game``; False when it ended early (a seat lost)."""
        rng = np.random.default_rng([self.seed, self.match_index, game])
        bot_rng = np.random.default_rng(int(rng.integers(_SEED_BOUND)))
        config = GameConfig(ends=self.config.ends, blank_end=self.config.blank_end)  # type: ignore[arg-type]
        if game > 0:
            self._swap_seats()
        state = GameState(first_seat=0, config=config)
        game_id = f"{self.game_id_prefix}m{self.match_index}-g{game}"
        self._broadcast(p.NewGame())
        for player in self.players:
            player.start_game(game_id)
        self.recorder.write(self._game_start_record(game_id, game, state))
        threw: set[int] = set()  # the seats that threw a stone of this game
        try:
            while True:
                if self.lost is not None:
                    raise SeatLost(self.lost)
                self._send_state(state)
                thrower = state.next_seat
                transition, state, record = await self._throw(state, rng, bot_rng, game_id)
                threw.add(thrower)
                self._after_throw(transition, state, record)
                if state.is_terminal:
                    self._game_over(state)
                    self._record_game(game_id, state, "finished")
                    self.games_played += 1
                    return True
        except SeatLost as lost:
            seat = self.lost if self.lost is not None else lost.seat
            self._abandon(seat)
            if seat is None:  # a seat we cannot name: the game was lost by a disconnect
                self._record_game(game_id, state, "disconnect")
                return False
            if game > 0 and seat not in threw:  # it left after its last game: nobody lost
                self._record_game(game_id, state, "left")
                return False
            self._record_game(game_id, state, self.players[seat].left_as, lost_seat=seat)
            return False
        except Forfeit as forfeit:
            log.warning("game %s: %s", game_id, forfeit)
            self._abandon(forfeit.seat)
            loser = self.players[forfeit.seat]
            loser.send(p.GameOver("LOSE"))
            loser.send(p.Error(str(forfeit)))
            self._record_game(game_id, state, "forfeit", lost_seat=forfeit.seat)
            return False
        except asyncio.CancelledError:
            self._record_game(game_id, state, "stopped")
            raise
        except Exception:
            log.exception("game %s failed; ending the match", game_id)
            self._record_game(game_id, state, "error")
            return False

    def _swap_seats(self) -> None:
        """The other connection becomes Player1 (throws first in end 1); tell both their seat."""
        self.players = self.players[::-1]
        for seat, player in enumerate(self.players):
            player.take_seat(seat)

    def _after_throw(
        self, transition: Transition, state: GameState, record: dict[str, Any]
    ) -> None:
        """Report an end when one finished and write the shot's record."""
        if transition.end_state is not None:
            end_state = transition.end_state
            p1, p2 = transition.end_score or (0, 0)
            self._broadcast(p.Position.from_array(end_state.position))
            self.players[0].send(p.Score(p1 - p2))
            self.players[1].send(p.Score(p2 - p1))
            self._broadcast(p.SetState(*end_state.setstate_fields()))
            if record:
                record["position"] = position_list(end_state.position)
        if record:
            record["scores"] = list(state.totals)
            self.recorder.write(record)

    def _send_state(self, state: GameState) -> None:
        self._broadcast(p.Position.from_array(state.position))
        self._broadcast(p.SetState(*state.setstate_fields()))

    def _broadcast(self, msg: p.Message) -> None:
        data = p.encode(msg)
        for player in self.players:
            player.send_bytes(data)

    def _game_over(self, state: GameState) -> None:
        self._broadcast(p.TotalScore(*state.totals))
        for player in self.players:
            player.send(p.GameOver(state.result_for(player.seat)))

    def _abandon(self, lost_seat: int | None) -> None:
        for player in self.players:
            if player.seat != lost_seat and not player.closed:
                player.send(p.GameOver("WIN"))

    # -- one throw -----------------------------------------------------------------------------

    async def _throw(
        self,
        state: GameState,
        rng: np.random.Generator,
        bot_rng: np.random.Generator,
        game_id: str,
    ) -> tuple[Transition, GameState, dict[str, Any]]:
        """Get the thrower's throw, simulate it, apply the rules and any centre-line choice."""
        thrower = self.players[state.next_seat]
        choice = await thrower.choose(state, timeout=self.config.turn_timeout, rng=bot_rng)
        state, sent = choice.state, choice.throw
        limit = self.config.forfeit_after
        if sent is None and limit and thrower.missed_turns >= limit:
            raise Forfeit(thrower.seat, thrower.missed_turns)
        if self.recorder.enabled:
            for reset in choice.resets:
                self._record_reset(reset, state, game_id)
        seed = int(rng.integers(_SEED_BOUND))
        throw = self._clamp(sent)
        if throw is None:
            transition = Game.settle(state, state.position)
        else:
            throw, result = await self._simulate(state, thrower, throw, seed)
            transition = Game.settle(state, result.position, mid=result.mid)
        centerline = None
        if transition.centre_line_violation and transition.fouled_seat is not None:
            fouled = self.players[transition.fouled_seat]
            centerline = await fouled.centerline_choice(transition, self.config.centerline_timeout)
        after = transition.resolve(centerline or "KEEP")
        if not self.recorder.enabled:
            return transition, after, {}
        record = self._shot_record(state, sent, throw, seed, transition, centerline, after)
        if choice.explanation is not None:
            record["explain"] = choice.explanation
        return transition, after, {"type": "shot", "game_id": game_id, **record}

    def _clamp(self, sent: tuple[float, ...] | None) -> np.ndarray | None:
        if sent is None:
            return None
        try:
            return np.asarray(self._physics.clamp_throw(sent), dtype=np.float64)
        except (ValueError, TypeError) as exc:
            log.warning(
                "match %d: throw %r refused (%s); the stone is lost", self.match_index, sent, exc
            )
            return None

    async def _simulate(
        self, state: GameState, thrower: Player, throw: np.ndarray, seed: int
    ) -> tuple[np.ndarray, Any]:
        """Run physics; the thrower may add a SWEEP distance (``Player.sweep``: a client gets
        MOTIONINFO, a person's page the running stone, a bot sweeps in its throw).

        The unswept shot is simulated to the end at once: its path up to mid-sheet is the one
        MOTIONINFO reports, and when no SWEEP (or ``SWEEP 0``) comes it is the result; only a
        sweep makes a second run (same seed, so the same path up to mid-sheet). How long the
        thrower is waited for is its own sweep rule (``RemotePlayer.sweep_window``): the
        whole ``sweep_window`` on its first MOTIONINFO, then only if it has ever sent a SWEEP;
        a person on the page, while the stone runs from mid-sheet to the hog line in real time
        (``people.RunningStone``, from the path its ``path_stride`` asks for).
        """
        sim = self._physics.simulate
        pos, slot = state.position, state.shot
        result = sim(pos, slot, throw, seed=seed, trajectory_stride=thrower.path_stride)
        if result.mid is None:
            return throw, result
        path = None if result.trajectory is None else result.trajectory[:, slot]
        distance = await thrower.sweep(result.mid, self.config.sweep_window, path)
        if distance == 0.0:
            return throw, result
        throw = np.asarray(self._physics.clamp_throw((*throw[:3], distance)), np.float64)
        return throw, sim(pos, slot, throw, seed=seed)

    # -- records -------------------------------------------------------------------------------

    def _names(self) -> list[str]:
        names = [pl.name for pl in self.players]
        if names[0] == names[1]:  # one team's name for both seats: say which is which
            names = [f"{name} (Player{seat + 1})" for seat, name in enumerate(names)]
        return names

    def _game_start_record(self, game_id: str, game: int, state: GameState) -> dict[str, Any]:
        return {
            "type": "game_start", "game_id": game_id, "match": self.match_index, "game": game,
            "players": self._names(), "kinds": [pl.kind for pl in self.players],
            "ends": state.config.ends, "first_seat": state.first_seat,
        }  # fmt: skip

    def _record_reset(self, reset: dict[str, Any], state: GameState, game_id: str) -> None:
        record = {"type": "reset", "game_id": game_id, "end": state.end, "shot": state.shot}
        self.recorder.write({**record, **reset})

    def _shot_record(
        self,
        state: GameState,
        sent: tuple[float, ...] | None,
        throw: np.ndarray | None,
        seed: int,
        transition: Transition,
        choice: str | None,
        after: GameState,
    ) -> dict[str, Any]:
        return {
            "players": self._names(), "end": state.end, "shot": state.shot,
            "thrower": state.next_seat, "throw_sent": list(sent) if sent is not None else None,
            "throw": throw.tolist() if throw is not None else None,
            "sweep": float(throw[3]) if throw is not None and len(throw) > 3 else 0.0,
            "seed": seed, "before": position_list(state.position),
            "position": position_list(after.position),
            "fgz_restored": transition.fgz_restored,
            "centre_line_violation": transition.centre_line_violation,
            "centerline_choice": choice, "end_score": transition.end_score,
        }  # fmt: skip

    def _record_game(
        self, game_id: str, state: GameState, reason: str, lost_seat: int | None = None
    ) -> None:
        results = [state.result_for(0), state.result_for(1)]
        if lost_seat is not None:
            results[lost_seat], results[1 - lost_seat] = Result.LOSE, Result.WIN
        record = {
            "type": "game", "game_id": game_id, "players": self._names(),
            "end_scores": [list(s) for s in state.end_scores], "totals": list(state.totals),
            "results": results, "reason": reason, "lost_seat": lost_seat,
            "shots": sheet.STONES_PER_END * state.end + state.shot,
        }  # fmt: skip
        self.recorder.write(record)
        self.recorder.flush()
        log.info("game %s %s: %s %s", game_id, reason, self._names(), list(state.totals))
        if self.on_game is not None:
            try:
                self.on_game(record, [pl.kind for pl in self.players])
            except Exception:  # reporting a game never ends a match
                log.exception("game %s: reporting its end failed", game_id)
