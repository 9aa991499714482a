"""``DC3Client``: one DC3 game on a team port (``dc`` → ``dc_ok``, ``is_ready`` → ``ready_ok``,
``update`` → ``move`` on our turn, until ``game_over``), sockets and ``dc_protocol.dc3``."""

from __future__ import annotations

import socket

from rllib_curling.dc_client.result import Chooser, DCResult
from rllib_curling.dc_client.state import state_from_dc3
from rllib_curling.dc_protocol import dc3
from rllib_curling.dc_protocol.dc3_state import GameState, Shot
from rllib_curling.errors import ConnectionLostError, PeerTimeoutError, ProtocolError


def shot_of(choice: tuple[float, float, float]) -> Shot:
    """DC3's shot of a bot's ``(vx, vy, rotation)`` (rotation > 0: counter-clockwise)."""
    vx, vy, rotation = choice
    return Shot(float(vx), float(vy), "ccw" if rotation > 0 else "cw")


class DC3Client:
    """A DC3 team: ``play(choose)`` connects to ``host:port`` (one of the server's two team
    ports), plays one game and returns its ``DCResult``. ``timeout``: seconds to wait for any
    message (``PeerTimeoutError`` then)."""

    def __init__(
        self,
        host: str,
        port: int,
        *,
        name: str = "rllib-curling",
        player_order: tuple[int, ...] = (0, 1, 2, 3),
        timeout: float = 600.0,
    ) -> None:
        self.host, self.port, self.name = host, int(port), name
        self.player_order = dc3.ReadyOk(tuple(player_order)).player_order  # checked here
        self.timeout = float(timeout)
        self.team: str | None = None
        self.names: tuple[str, str] | None = None
        self._sock: socket.socket | None = None
        self._decoder = dc3.LineDecoder()
        self._pending: list[dc3.Decoded] = []

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    def connect(self) -> None:
        try:
            self._sock = socket.create_connection((self.host, self.port), timeout=self.timeout)
        except OSError as exc:
            raise ConnectionLostError(
                f"cannot connect to the DC3 server at {self.address}: {exc.strerror or exc}"
            ) from None

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def _send(self, msg: dc3.Message) -> None:
        assert self._sock is not None
        try:
            self._sock.sendall(dc3.encode(msg))
        except OSError as exc:
            raise ConnectionLostError(
                f"the DC3 server at {self.address} went away ({exc})"
            ) from None

    def _recv(self) -> dc3.Message | None:
        """The next message; None when the server closed the connection."""
        assert self._sock is not None
        while not self._pending:
            try:
                data = self._sock.recv(65536)
            except TimeoutError:
                raise PeerTimeoutError(
                    f"the DC3 server at {self.address} sent nothing for {self.timeout:g} s",
                    self.timeout,
                ) from None
            except OSError:
                data = b""
            if not data:
                self._pending.extend(self._decoder.flush())
                if not self._pending:
                    return None
                break
            self._pending.extend(self._decoder.feed(data))
        item = self._pending.pop(0)
        if isinstance(item, ProtocolError):
            raise item
        return item

    def play(self, choose: Chooser) -> DCResult:
        """Play one game with ``choose`` for our shots; the result once ``game_over`` came."""
        if self._sock is None:
            self.connect()
        last: GameState | None = None
        shots = 0
        try:
            while True:
                msg = self._recv()
                if msg is None:
                    raise ConnectionLostError(
                        f"the DC3 server at {self.address} closed the connection before game_over"
                    )
                if isinstance(msg, dc3.Dc):
                    self._send(dc3.DcOk(self.name))
                elif isinstance(msg, dc3.IsReady):
                    self.team = msg.team
                    self._send(dc3.ReadyOk(self.player_order))
                elif isinstance(msg, dc3.NewGame):
                    self.names = msg.names
                elif isinstance(msg, dc3.Update):
                    last = msg.state
                    if msg.next_team is not None and msg.next_team == self.team:
                        choice = choose(state_from_dc3(msg.state))
                        self._send(dc3.MoveMessage(shot_of(choice)))
                        shots += 1
                elif isinstance(msg, dc3.GameOver):
                    break
        finally:
            self.close()
        if last is None or self.team is None:
            raise ProtocolError("game_over before any update; the DC3 server sent no game")
        result = last.game_result
        return DCResult(
            team=self.team,
            scores={"team0": list(last.scores[0]), "team1": list(last.scores[1])},
            extra=last.extra_end_score,
            winner=None if result is None else result.winner,
            reason="unknown" if result is None else result.reason,
            shots=shots,
        )
