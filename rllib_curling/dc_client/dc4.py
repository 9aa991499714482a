"""``DC4Client``: a team on a DC4 server over HTTP (``http.client``): create a match or join
one, store the team's config with basic auth, read the match's SSE stream and post our shots,
until a state names the winner. ``dc_protocol.dc4`` / ``dc4_state`` / ``sse`` are the data."""

from __future__ import annotations

import http.client
import json
import math
from typing import Any
from urllib.parse import urlencode

from rllib_curling.dc_client.result import Chooser, DCResult
from rllib_curling.dc_client.state import state_from_dc4
from rllib_curling.dc_protocol import dc4
from rllib_curling.dc_protocol.basic_auth import build_authorization
from rllib_curling.dc_protocol.dc4_state import EVENT_LATEST_STATE_UPDATE, State
from rllib_curling.dc_protocol.sse import Event, EventParser
from rllib_curling.dc_rules import Rule
from rllib_curling.dc_sheet import RELEASE_OMEGA
from rllib_curling.errors import ConnectionLostError, PeerTimeoutError, ProtocolError

#: DC4's ``applied_rule`` → ``dc_rules``' rule.
RULES: dict[str, Rule] = {
    "fgz_rule": "fgz",
    "no_tick_rule": "no_tick",
    "modified_fgz_rule": "modified_fgz",
}


class DC4Refusal(ProtocolError):
    """The server answered a call with an error status (its ``detail`` in the message)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def release_of(choice: tuple[float, float, float]) -> dc4.Release:
    """DC4's throw of a bot's ``(vx, vy, rotation)``: |ω| = DC's release spin, ccw for > 0."""
    vx, vy, rotation = choice
    omega = RELEASE_OMEGA if rotation > 0 else -RELEASE_OMEGA
    return dc4.Release(float(vx), float(vy), omega)


class DC4Client:
    """One user's team on the DC4 server at ``host:port``. ``timeout``: seconds to wait for an
    answer or for the stream (the server pings it every 10–30 s)."""

    def __init__(
        self,
        host: str,
        port: int,
        *,
        user: str,
        password: str = "",
        name: str = "rllib-curling",
        timeout: float = 600.0,
    ) -> None:
        self.host, self.port, self.name = host, int(port), name
        self.timeout = float(timeout)
        self._auth = build_authorization(user, password)
        self.team: str | None = None

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    def _connection(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)

    def call(self, method: str, path: str, body: object = None) -> Any:
        """One call; its JSON answer, ``DC4Refusal`` for an error status."""
        conn = self._connection()
        headers = {"Authorization": self._auth, "Content-Type": "application/json"}
        data = None if body is None else json.dumps(body).encode()
        try:
            conn.request(method, path, body=data, headers=headers)
            response = conn.getresponse()
            text = response.read()
        except TimeoutError:
            raise PeerTimeoutError(
                f"the DC4 server at {self.address} did not answer {method} {path} in "
                f"{self.timeout:g} s",
                self.timeout,
            ) from None
        except OSError as exc:
            raise ConnectionLostError(
                f"cannot reach the DC4 server at {self.address}: {exc.strerror or exc}"
            ) from None
        finally:
            conn.close()
        try:
            answer = json.loads(text) if text else None
        except ValueError:
            answer = text.decode("utf-8", "replace")
        if response.status != 200:
            detail = answer.get("detail", answer) if isinstance(answer, dict) else answer
            raise DC4Refusal(
                f"{method} {path.split('?')[0]}: {response.status} {json.dumps(detail)}",
                response.status,
            )
        return answer

    def create_match(self, request: dc4.MatchRequest) -> str:
        """``POST /matches``: the new match's id."""
        match_id = self.call("POST", dc4.PATH_MATCHES, request.to_json())
        if not isinstance(match_id, str):
            raise ProtocolError(f"POST /matches answered {match_id!r}; expected the match id")
        return match_id

    def join(self, match_id: str, team: str) -> str:
        """``POST /store-team-config`` for ``team`` (``"team0"`` / ``"team1"``) with DC's
        default players; the side the server gave us."""
        p1, p2, p3, p4 = (dc4.PlayerConfig(f"{self.name}-{k}") for k in range(1, 5))
        config = dc4.TeamConfig(self.name, p1, p2, p3, p4, match_team_name=team)
        query = urlencode({"match_id": match_id, "expected_match_team_name": team})
        side = self.call("POST", f"{dc4.PATH_TEAM_CONFIG}?{query}", config.to_json())
        if side not in ("team0", "team1"):
            raise ProtocolError(f"store-team-config answered {side!r}; expected team0 or team1")
        self.team = side
        return str(side)

    def shoot(self, match_id: str, choice: tuple[float, float, float]) -> None:
        """``POST /shots`` with the bot's throw."""
        info = release_of(choice).as_request()
        self.call("POST", f"{dc4.PATH_SHOTS}?{urlencode({'match_id': match_id})}", info.to_json())

    def play(self, match_id: str, choose: Chooser, rule: Rule = "fgz") -> DCResult:
        """Read the match's stream and post our shots until a state names the winner (call
        ``join`` first). ``rule``: the match's guard rule, for the bot (the state omits it)."""
        if self.team is None:
            raise ValueError("join the match before playing it")
        conn = self._connection()
        shots, answered = 0, None
        try:
            try:
                path = dc4.PATH_STREAM.format(match_id=match_id)
                conn.request("GET", path, headers={"Authorization": self._auth})
                response = conn.getresponse()
            except OSError as exc:
                raise ConnectionLostError(
                    f"cannot open the DC4 stream at {self.address}: {exc}"
                ) from None
            if response.status != 200:
                text = response.read().decode("utf-8", "replace")
                raise DC4Refusal(f"GET stream: {response.status} {text}", response.status)
            parser = EventParser()
            while True:
                try:
                    data = response.read1(65536)
                except TimeoutError:
                    raise PeerTimeoutError(
                        f"the DC4 stream at {self.address} was silent for {self.timeout:g} s",
                        self.timeout,
                    ) from None
                except (OSError, http.client.HTTPException):  # IncompleteRead: a chunk cut
                    data = b""
                if not data:
                    raise ConnectionLostError(
                        f"the DC4 server at {self.address} closed the stream before the game ended"
                    )
                for item in parser.feed(data):
                    if isinstance(item, ProtocolError):
                        raise item
                    if not isinstance(item, Event) or item.event != EVENT_LATEST_STATE_UPDATE:
                        continue  # pings, and the replay of the end's earlier states
                    state = State.from_event(item)
                    if state.winner_team is not None:
                        return self._result(state, shots)
                    key = (state.end_number, state.total_shot_number)
                    if state.next_shot_team == self.team and key != answered:
                        self.shoot(match_id, choose(state_from_dc4(state, rule)))
                        shots, answered = shots + 1, key
        finally:
            conn.close()

    def _result(self, state: State, shots: int) -> DCResult:
        assert self.team is not None
        totals = (sum(state.score[0]), sum(state.score[1]))
        ahead = 0 if totals[0] > totals[1] else 1 if totals[1] > totals[0] else None
        winner = state.winner_team
        return DCResult(
            team=self.team,
            scores={"team0": list(state.score[0]), "team1": list(state.score[1])},
            extra=(None, None),
            winner=winner,
            reason="score" if ahead is not None and winner == f"team{ahead}" else "time",
            shots=shots,
        )


def match_request(
    ends: int = 8,
    rule: str = "fgz_rule",
    time_limit: float | None = None,
    extra_end_time_limit: float = 21.9,
    name: str = "rllib-curling",
) -> dc4.MatchRequest:
    """A standard match on fcv1: ``time_limit`` None gives DC's 21.9 s per end and team."""
    limit = round(21.9 * ends, 6) if time_limit is None else float(time_limit)
    if not math.isfinite(limit) or limit <= 0:
        raise ValueError(f"time limit {limit!r}; allowed: a positive number of seconds")
    return dc4.MatchRequest(
        "standard", "rllib-curling", "fcv1", rule, limit, extra_end_time_limit, ends, name
    )
