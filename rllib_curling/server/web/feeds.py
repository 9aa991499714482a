"""Where the page's games come from, besides record files (``replay``):

| feed            | games of                                          | trajectories          |
|-----------------|---------------------------------------------------|-----------------------|
| ``TeeRecorder`` | ``curling server --http-port``: every match       | re-simulated per shot |
|                 | writes its records to the file and to the hub     | (the record's ``seed``) |
| ``BotMatchFeed``| ``curling match A B --watch`` (bots in-process)   | the shot's own ``seed`` |
| ``ClientFeed``  | ``curling play --watch``: what one seat is told   | none: positions only  |
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rllib_curling import protocol as p
from rllib_curling import sheet
from rllib_curling.game import GameState, Transition
from rllib_curling.server.records import GameRecorder, position_list
from rllib_curling.server.web.events import shot_frames
from rllib_curling.server.web.hub import WatchHub


class TeeRecorder:
    """A match's recorder that writes to the records file (when there is one) and to the hub."""

    enabled = True

    def __init__(self, records: GameRecorder, hub: WatchHub) -> None:
        self.records, self.hub = records, hub

    def write(self, record: dict[str, Any]) -> None:
        self.records.write(record)
        self.hub.write(record)

    def flush(self) -> None:
        self.records.flush()


class BotMatchFeed:
    """Records of in-process bot games (``bots.matches.play_match(on_throw=feed.on_throw)``)
    in the server's record format, each shot with its frames and its physics ``seed``.

    ``publish(record)`` takes them (``WebHandle.publish``); ``names`` are the bots of seat 0 and
    seat 1 in game 0 (they swap every game, as ``play_match`` swaps them).
    """

    def __init__(
        self, publish: Callable[[dict[str, Any]], None], names: tuple[str, str], ends: int,
        *, kinds: tuple[str, str] = ("bot", "bot"), prefix: str = "match",
    ) -> None:  # fmt: skip
        self.publish, self.names, self.kinds, self.ends = publish, names, kinds, ends
        self.prefix = prefix

    def game_id(self, g: int) -> str:
        return f"{self.prefix}-g{g}"

    def seats(self, g: int) -> tuple[list[str], list[str]]:
        """(names, kinds) by seat in game ``g``."""
        flip = g % 2 == 1
        names, kinds = list(self.names), list(self.kinds)
        return (names[::-1], kinds[::-1]) if flip else (names, kinds)

    def on_throw(self, g: int) -> Callable[..., None]:
        """Game ``g``'s ``OnThrow``: its first throw also announces the game."""

        def hook(t: Transition, after: GameState, throw: tuple[float, ...], ice: Any) -> None:
            before = t.before
            if before.end == 0 and before.shot == 0:
                names, kinds = self.seats(g)
                self.publish({
                    "type": "game_start", "game_id": self.game_id(g), "match": 0, "game": g,
                    "players": names, "kinds": kinds, "ends": self.ends, "first_seat": 0,
                })  # fmt: skip
            self.publish(self._shot(g, t, after, throw, ice))

        return hook

    def _shot(
        self, g: int, t: Transition, after: GameState, throw: tuple[float, ...], ice: Any
    ) -> dict[str, Any]:
        from rllib_curling import physics

        seed = int(physics.derive_seeds(ice, 1)[0])  # what Game.step drew from the same ice
        clamped = physics.clamp_throw(throw)
        frames, _ = shot_frames(t.before.position, t.before.shot, clamped, seed=seed)
        end_state = t.end_state
        position = (end_state if end_state is not None else after).position
        return {
            "type": "shot", "game_id": self.game_id(g), "players": self.seats(g)[0],
            "end": t.before.end, "shot": t.before.shot, "thrower": t.before.next_seat,
            "throw": clamped.tolist(), "sweep": float(clamped[3]), "seed": seed,
            "before": position_list(t.before.position), "position": position_list(position),
            "fgz_restored": t.fgz_restored, "centre_line_violation": t.centre_line_violation,
            "centerline_choice": None, "end_score": t.end_score, "scores": list(after.totals),
            "frames": frames,
        }  # fmt: skip

    def game_over(self, g: int, end_scores: Any, totals: tuple[int, int]) -> None:
        """Game ``g`` is over (``play_match``'s ``progress``)."""
        p1, p2 = totals
        results = ["WIN", "LOSE"] if p1 > p2 else ["LOSE", "WIN"] if p2 > p1 else ["DRAW"] * 2
        self.publish({
            "type": "game", "game_id": self.game_id(g), "players": self.seats(g)[0],
            "end_scores": [list(s) for s in end_scores], "totals": list(totals),
            "results": results, "reason": "finished", "lost_seat": None,
        })  # fmt: skip


class ClientFeed:
    """Records of the games one seat plays, from the protocol messages it receives (sans-I/O:
    ``CurlingClient.on_message = feed.message``), for ``curling play --watch``.

    A seat sees POSITION and SETSTATE before every stone, so each shot is known by where the
    stones were before it and after it: no throws and no trajectories (``seen`` is
    "positions": the page slides the stones). The other seat is named "opponent". This seat's
    own throws, told with ``thrown`` (and the player's ``explain``, ``curling play --explain``),
    are added to its shots' records (``throw_sent``, ``explain``).
    """

    def __init__(self, publish: Callable[[dict[str, Any]], None], name: str) -> None:
        self.publish, self.name = publish, name
        self.seat = 0
        self.games = 0
        self.position = [[0.0, 0.0]] * 16
        self._last: tuple[int, int, int, list[list[float]]] | None = None  # shot, end, next, pos
        self._score: tuple[int, int] | None = None
        self._totals = [0, 0]
        self._announced = True
        self._mine: dict[str, Any] = {}  # this seat's last throw and why, for its shot record

    @property
    def game_id(self) -> str:
        return f"play-g{self.games - 1}"

    def message(self, msg: p.Message) -> None:
        """Take one message the client received."""
        if isinstance(msg, p.ConnectName | p.Name):
            self.seat = msg.seat
        elif isinstance(msg, p.NewGame):
            self._new_game()
        elif self.games == 0:
            return
        elif isinstance(msg, p.Position):
            self.position = msg.to_array().tolist()
        elif isinstance(msg, p.Score):
            mine, theirs = max(msg.points, 0), max(-msg.points, 0)
            self._score = (mine, theirs) if self.seat == 0 else (theirs, mine)
        elif isinstance(msg, p.SetState):
            self._set_state(msg)
        elif isinstance(msg, p.GameOver):
            self._game_over(msg.result)

    def thrown(self, throw: Any, explain: dict[str, Any] | None = None) -> None:
        """This seat sent ``throw`` (v, h, w[, sweep]), for the reason ``explain``."""
        self._mine = {"throw_sent": [float(x) for x in list(throw)[:3]]}
        if explain is not None:
            self._mine["explain"] = explain

    def _new_game(self) -> None:
        self.games += 1
        self._last, self._score, self._totals = None, None, [0, 0]
        self._announced = False  # at the first SETSTATE, which says how many ends

    def _announce(self, ends: int) -> None:
        self._announced = True
        players = [self.name, "opponent"] if self.seat == 0 else ["opponent", self.name]
        kinds = ["this client", ""] if self.seat == 0 else ["", "this client"]
        self.publish({
            "type": "game_start", "game_id": self.game_id, "match": 0, "game": self.games - 1,
            "players": players, "kinds": kinds, "ends": ends, "first_seat": 0,
        })  # fmt: skip

    def _set_state(self, msg: p.SetState) -> None:
        if not self._announced:
            self._announce(msg.total)
        last = self._last
        if last is not None and last[1] == msg.end and msg.shot == last[0] + 1:
            end_score: list[int] | None = None
            if msg.shot == sheet.STONES_PER_END:
                end_score, self._score = list(self._score or (0, 0)), None
                self._totals = [a + b for a, b in zip(self._totals, end_score, strict=True)]
            self.publish({
                "type": "shot", "game_id": self.game_id, "end": msg.end, "shot": last[0],
                "thrower": last[2], "throw": None, "seen": "positions", "before": last[3],
                "position": self.position, "end_score": end_score, "scores": list(self._totals),
                "fgz_restored": False, "centre_line_violation": False,
                **(self._mine if last[2] == self.seat else {}),
            })  # fmt: skip
            if last[2] == self.seat:
                self._mine = {}
        self._last = (msg.shot, msg.end, msg.next_seat, self.position)

    def _game_over(self, result: str) -> None:
        other = {"WIN": "LOSE", "LOSE": "WIN"}.get(result, result)
        results = [result, other] if self.seat == 0 else [other, result]
        self.publish({
            "type": "game", "game_id": self.game_id, "totals": list(self._totals),
            "results": results, "reason": "finished",
        })  # fmt: skip
