"""``DC4Server``: DC4's HTTP API on asyncio (no framework, as the page's ``web.http``), a thin
shell around ``dc_protocol`` (requests, refusals, SSE, basic auth) and ``DC4Match``.

| call                                            | answer                                       |
|-------------------------------------------------|----------------------------------------------|
| ``POST /matches``                               | the new match's id (a JSON string)           |
| ``POST /store-team-config?match_id=&expected_`` | ``"team0"`` / ``"team1"``                    |
| ``match_team_name=``                            |                                              |
| ``GET /matches/{id}/stream``                    | SSE: the states (``DC4Match``), ``: ping``   |
|                                                 | after ``ping_interval`` s of silence         |
| ``GET /matches/{id}/viewer``                    | the same for spectators, without auth        |
| ``POST /shots?match_id=``                       | ``null``                                     |
| ``POST /matches/{id}/end-setup``                | 400: mixed doubles is not played here        |

Every call but the viewer's needs basic auth: any user and password when the server has no
users file (loopback only, ``DC4ServerConfig``), else a user of the file. Refusals answer as
DC4's FastAPI server: 401 with ``WWW-Authenticate: Basic``, 422 with pydantic-style details
(malformed JSON: ``json_invalid``), 400 / 404 / 409 with ``{"detail": "…"}``; each gets one
log line (``rllib_curling.server.dc4``, warning) naming the call, the user and the detail, and
the match goes on. Answers close their connection; streams are chunked and stay open (after
the game too, pinging) until the client leaves or the server stops.

``on_created`` callbacks hear of each new match (on the loop's thread, before its id is
answered) and ``add_user`` admits a user besides the users file: how ``dc_seats`` seats our
bots.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import secrets
import uuid
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

import numpy as np

from rllib_curling.dc_protocol import dc4, sse
from rllib_curling.dc_protocol.basic_auth import authenticate, parse_authorization
from rllib_curling.dc_protocol.refusals import (
    MATCH_NOT_FOUND,
    BadRequest,
    FieldIssue,
    HttpRefusal,
    InvalidFields,
    NotFound,
)
from rllib_curling.server.dc4.config import DC4ServerConfig
from rllib_curling.server.dc4.match import DC4Match
from rllib_curling.server.dc_watch.http import encode_answer
from rllib_curling.server.dc_watch.page import WatchPage
from rllib_curling.server.http_request import UnreadableRequest, read_request, response_head
from rllib_curling.server.listen import listen
from rllib_curling.server.records import RECORD_VERSION, GameRecorder

log = logging.getLogger("rllib_curling.server.dc4")

REQUEST_TIMEOUT_S = 10.0
_MATCH_PATH = re.compile(r"^/matches/([^/]+)/(stream|viewer|end-setup)$")


class _Plain(HttpRefusal):
    """A refusal of the HTTP layer itself (404 / 405 / 413 with FastAPI's detail)."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self._status = status

    @property
    def status(self) -> int:
        return self._status


class DC4Server:
    """Serves DC4's API on ``config.host:config.port`` (module docstring); ``address`` once
    started. ``matches``: the matches by id (the loop's thread only); ``on_created``: called
    with each new match before its id is answered."""

    def __init__(self, config: DC4ServerConfig) -> None:
        self.config = config
        self.seed = config.seed if config.seed is not None else secrets.randbits(63)
        self.recorder = GameRecorder(config.log_dir)
        self.matches: dict[str, DC4Match] = {}
        self.page = WatchPage("live", self.summaries, title="DC4", stream=dc4.PATH_VIEWER)
        self.address: tuple[str, int] | None = None
        self._server: asyncio.base_events.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.stopping = False  # set when stop() begins: clients' failures are expected then
        self.on_created: list[Callable[[DC4Match], None]] = []
        self._users = None if config.users is None else dict(config.users)

    def add_user(self, user: str, password: str) -> None:
        """Admit ``user`` with ``password`` too (with a users file; without one, anyone is)."""
        if self._users is not None:
            self._users[user] = password

    @property
    def url(self) -> str:
        assert self.address is not None, "not started"
        host = self.address[0]
        return f"http://{f'[{host}]' if ':' in host else host}:{self.address[1]}"

    async def start(self) -> tuple[str, int]:
        """Bind and listen; ``ServerStartError`` when the port is taken."""
        host, port = self.config.host, self.config.port
        self._server, self.address = await listen(
            self._on_connect, host, port, what="HTTP port", option="--http-port"
        )
        self.recorder.write({
            "type": "run", "version": RECORD_VERSION, "protocol": "dc4",
            "run_id": self.recorder.run_id, "seed": self.seed, "address": list(self.address),
        })  # fmt: skip
        return self.address

    async def stop(self) -> None:
        """Stop listening, end every stream and timer, close the records."""
        self.stopping = True
        if self._server is not None:
            self._server.close()
        for match in self.matches.values():
            match.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self.recorder.close()

    # -- one connection ------------------------------------------------------------------------

    async def _on_connect(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        method = path = "?"
        user: str | None = None
        try:
            try:
                request = await asyncio.wait_for(read_request(reader), REQUEST_TIMEOUT_S)
            except UnreadableRequest as exc:
                raise _Plain(exc.status, str(exc)) from None
            method, headers, body = request.method, request.headers, request.body
            split = urlsplit(request.target)
            path, query = unquote(split.path), dict(parse_qsl(split.query))
            page = self.page.answer(path) if method == "GET" else None
            if page is not None:  # the watch page, without auth as the viewer stream
                writer.write(encode_answer(page))
                await asyncio.wait_for(writer.drain(), REQUEST_TIMEOUT_S)
                return
            if method == "GET" and _MATCH_PATH.match(path) and path.endswith("/viewer"):
                await self._stream(writer, self._match(_path_id(path)), None)
                return
            user = self._user(headers.get("authorization"))
            result = self._route(method, path, query, body, user)
            if isinstance(result, _Stream):
                await self._stream(writer, result.match, result.team)
                return
            _respond(writer, 200, result)
            await asyncio.wait_for(writer.drain(), REQUEST_TIMEOUT_S)
        except HttpRefusal as exc:
            log.warning("DC4 %s %s (user %r): %d %s", method, path, user, exc.status, exc)
            _respond(writer, exc.status, exc.body(), exc.headers)
        except (TimeoutError, asyncio.IncompleteReadError, ConnectionError):
            pass
        except asyncio.CancelledError:
            pass  # the server stops
        except Exception:
            log.exception("DC4 %s %s (user %r) failed", method, path, user)
            _respond(writer, 500, {"detail": "Internal Server Error"})
        finally:
            self._tasks.discard(task)
            try:
                writer.close()
            except Exception:
                pass

    def summaries(self) -> list[dict[str, Any]]:
        """The matches for the watch page, oldest first (``DC4Match.summary``)."""
        return [match.summary() for match in self.matches.values()]

    def _user(self, authorization: str | None) -> str:
        credentials = parse_authorization(authorization)
        if self._users is None:
            return credentials.username
        return authenticate(credentials, self._users)

    def _match(self, match_id: str) -> DC4Match:
        match = self.matches.get(match_id)
        if match is None:
            raise NotFound(MATCH_NOT_FOUND)
        return match

    def _route(self, method: str, path: str, query: dict[str, str], body: bytes, user: str) -> Any:
        if path == dc4.PATH_MATCHES and method == "POST":
            return self._create(dc4.MatchRequest.parse(_json(body)), user)
        if path == dc4.PATH_TEAM_CONFIG and method == "POST":
            match_id, wanted = dc4.parse_team_config_query(query)
            team_config = dc4.TeamConfig.parse(_json(body))
            return self._match(match_id).join(user, wanted, team_config)
        if path == dc4.PATH_SHOTS and method == "POST":
            match_id = dc4.parse_shot_query(query)
            info = dc4.ShotInfo.parse(_json(body))
            self._match(match_id).shoot(user, info)
            return None
        found = _MATCH_PATH.match(path)
        if found and found.group(2) == "stream" and method == "GET":
            match = self._match(_path_id(path))
            return _Stream(match, match.team_of(user))
        if found and found.group(2) == "end-setup" and method == "POST":
            self._match(_path_id(path))
            raise BadRequest("End setup is for mixed doubles, which this server does not play.")
        known = path in (dc4.PATH_MATCHES, dc4.PATH_TEAM_CONFIG, dc4.PATH_SHOTS) or found
        raise _Plain(405, "Method Not Allowed") if known else _Plain(404, "Not Found")

    def _create(self, request: dc4.MatchRequest, user: str) -> str:
        match_id = str(uuid.uuid4())
        rng = np.random.default_rng([self.seed, len(self.matches)])
        match = self.matches[match_id] = DC4Match(match_id, request, rng, self.recorder)
        for callback in self.on_created:
            callback(match)
        log.info("DC4 match %s created by %r: %r, %d ends, %s", match_id, user,
                 request.match_name, request.standard_end_count, request.applied_rule)  # fmt: skip
        return match_id

    async def _stream(
        self, writer: asyncio.StreamWriter, match: DC4Match, team: int | None
    ) -> None:
        head = [("Content-Type", sse.CONTENT_TYPE)]
        head += [(name, value) for name, value in sse.STREAM_HEADERS if name != "Connection"]
        head += [("Transfer-Encoding", "chunked"), ("Connection", "close")]
        writer.write(response_head(200, head))
        queue = match.subscribe(team)
        try:
            while True:
                try:
                    data = await asyncio.wait_for(queue.get(), self.config.ping_interval)
                except TimeoutError:
                    data = sse.PING
                writer.write(b"%x\r\n%s\r\n" % (len(data), data))
                await writer.drain()
        finally:
            match.unsubscribe(queue, team)


class _Stream:
    """``_route``'s answer for a team's stream."""

    def __init__(self, match: DC4Match, team: int) -> None:
        self.match, self.team = match, team


def _path_id(path: str) -> str:
    text = path.split("/")[2]
    try:
        return str(uuid.UUID(text))
    except ValueError:
        issue = FieldIssue("uuid_parsing", ("path", "match_id"), "Input should be a valid UUID",
                           text)  # fmt: skip
        raise InvalidFields([issue]) from None


def _json(body: bytes) -> object:
    """A body as JSON, or FastAPI's 422 (``missing`` when empty, ``json_invalid``)."""
    if not body.strip():
        raise InvalidFields([FieldIssue("missing", ("body",), "Field required", None)])
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise _MalformedJson(exc) from None


class _MalformedJson(InvalidFields):
    """FastAPI's 422 ``json_invalid`` (at the error's character), logged with the error."""

    def __init__(self, exc: ValueError) -> None:
        where = getattr(exc, "pos", 0)
        super().__init__([FieldIssue("json_invalid", ("body", where), "JSON decode error", {})])
        self.why = f"malformed JSON ({exc})"

    def __str__(self) -> str:
        return self.why


def _respond(
    writer: asyncio.StreamWriter, status: int, body: Any, headers: tuple[tuple[str, str], ...] = ()
) -> None:
    data = json.dumps(body, ensure_ascii=False, allow_nan=False).encode()
    head = [("Content-Type", "application/json"), ("Content-Length", str(len(data))),
            ("Connection", "close"), *headers]  # fmt: skip
    writer.write(response_head(status, head) + data)
