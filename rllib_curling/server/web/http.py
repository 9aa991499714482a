"""``WebServer``: a small HTTP/1.1 server on asyncio for the page (no framework, no threads).

| route                             | answer                                                     |
|-----------------------------------|------------------------------------------------------------|
| ``GET /``                         | the page (``static/index.html``)                           |
| ``GET /static/<file>``            | the page's scripts and styles (package data)               |
| ``GET /api/info``                 | ``{"mode": "live" or "replay", "title", "game"}``          |
| ``GET /api/sheet``                | the sheet's geometry (``events.sheet_geometry``)           |
| ``GET /api/games``                | the games' summaries                                       |
| ``GET /api/games/<id>``           | one game's events, as JSON                                 |
| ``GET /api/events``               | server-sent events: ``games`` (the summaries) on changes,  |
|                                   | at most every ``LIST_INTERVAL_S``                          |
| ``GET /api/games/<id>/events``    | server-sent events: the game's events after                |
|                                   | ``Last-Event-ID`` (or ``?after=N``), then live ones         |
| ``POST /api/trajectory``          | body: a ``shot`` record; answer ``{"frames", "position"}`` |
|                                   | (a record without ``seed``: the shot without noise, a     |
|                                   | preview)                                                   |
| ``GET /api/aim?x=&y=&w=[&v=]``    | the throw ``{"v", "h", "w"}`` that comes to rest at        |
|                                   | ``(x, y)`` with spin ``w`` (with ``v``: passes through it) |
| ``GET/POST /api/play``,           | seats for people (``desk``: the server's ``Desk``, when it |
| ``GET/POST /api/seats/<token>…``  | offers seats; 404 without one)                             |

Every answer but the event streams closes its connection. The event streams send a comment
every ``KEEPALIVE_S`` and end when the server stops or the watcher falls too far behind (see
``hub``). Requests are bounded: a head of at most 16 KiB within ``REQUEST_TIMEOUT_S``, a body of
at most ``http_request.MAX_BODY`` bytes.
"""

from __future__ import annotations

import asyncio
import json
import logging
from importlib import resources
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from rllib_curling.server.http_request import UnreadableRequest, read_request, response_head
from rllib_curling.server.listen import listen
from rllib_curling.server.web.desk import Desk, SeatRefused
from rllib_curling.server.web.events import sheet_geometry, shot_frames
from rllib_curling.server.web.hub import Watcher, WatchHub

log = logging.getLogger("rllib_curling.server.web")

KEEPALIVE_S = 15.0
LIST_INTERVAL_S = 0.25
REQUEST_TIMEOUT_S = 10.0
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".png": "image/png",
    ".svg": "image/svg+xml",
}


class HttpError(Exception):
    def __init__(self, status: int, text: str) -> None:
        super().__init__(text)
        self.status = status


def static_files() -> dict[str, bytes]:
    """The page's files (package data ``server/web/static``), by name."""
    folder = resources.files("rllib_curling.server.web").joinpath("static")
    return {f.name: f.read_bytes() for f in folder.iterdir() if f.is_file()}


class WebServer:
    """Serves the page for ``hub`` on ``host:port`` (0 = a free port); ``url`` once started.
    With a ``desk`` (``web.desk``) the page also offers seats to people."""

    def __init__(
        self, hub: WatchHub, host: str = "127.0.0.1", port: int = 0, *, desk: Desk | None = None
    ) -> None:
        self.hub, self.host, self.port, self.desk = hub, host, port, desk
        self.address: tuple[str, int] | None = None
        self._server: asyncio.base_events.Server | None = None
        self._streams: set[asyncio.Task[None]] = set()
        self._files = static_files()
        self._stopping = asyncio.Event()

    @property
    def url(self) -> str:
        assert self.address is not None, "not started"
        host = self.address[0]
        host = "127.0.0.1" if host in ("0.0.0.0", "") else f"[{host}]" if ":" in host else host
        return f"http://{host}:{self.address[1]}/"

    async def start(self) -> tuple[str, int]:
        """Bind and listen; raises ``ServerStartError`` (e.g. the port is in use)."""
        self._server, self.address = await listen(
            self._on_connect, self.host, self.port, what="HTTP port", option="--http-port"
        )
        log.info("watch the games at %s", self.url)
        return self.address

    async def stop(self) -> None:
        """Stop listening and end every event stream."""
        self._stopping.set()
        self.hub.close()
        if self._server is not None:
            self._server.close()
        for task in list(self._streams):
            task.cancel()
        await asyncio.gather(*self._streams, return_exceptions=True)

    # -- one connection ------------------------------------------------------------------------

    async def _on_connect(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._streams.add(task)
        try:
            try:
                request = await asyncio.wait_for(read_request(reader), REQUEST_TIMEOUT_S)
            except UnreadableRequest as exc:
                raise HttpError(exc.status, str(exc)) from None
            await self._route(request.method, request.target, request.headers, request.body, writer)
            await asyncio.wait_for(writer.drain(), REQUEST_TIMEOUT_S)
        except SeatRefused as exc:
            refusal = (
                {"error": str(exc)} if exc.code is None else {"error": str(exc), "code": exc.code}
            )
            _respond(writer, exc.status, refusal)
        except HttpError as exc:
            _respond(writer, exc.status, {"error": str(exc)})
        except (TimeoutError, asyncio.IncompleteReadError, ConnectionError):
            pass
        except asyncio.CancelledError:
            pass  # the server stops
        except Exception:
            log.exception("web request failed")
            _respond(writer, 500, {"error": "internal error (see the server's log)"})
        finally:
            self._streams.discard(task)
            try:
                writer.close()
            except Exception:
                pass

    async def _route(
        self,
        method: str,
        target: str,
        headers: dict[str, str],
        body: bytes,
        writer: asyncio.StreamWriter,
    ) -> None:
        split = urlsplit(target)
        path, query = unquote(split.path), parse_qs(split.query)
        if method == "POST" and path == "/api/trajectory":
            _respond(writer, 200, await asyncio.to_thread(_trajectory, body))
            return
        if method == "GET" and path == "/api/aim":
            _respond(writer, 200, await asyncio.to_thread(_aim, query))
            return
        if path == "/api/play" or path.startswith("/api/seats/"):
            peer = writer.get_extra_info("peername")
            await self._seat_route(method, path, body, str(peer[0]) if peer else "?", writer)
            return
        if method != "GET":
            raise HttpError(405, f"{method} is not served here")
        if path == "/" or path == "/index.html":
            _respond(writer, 200, self._files["index.html"], CONTENT_TYPES[".html"])
        elif path.startswith("/static/"):
            name = path[len("/static/") :]
            if name not in self._files:
                raise HttpError(404, f"no such file: {name}")
            suffix = name[name.rfind(".") :]
            _respond(writer, 200, self._files[name], CONTENT_TYPES.get(suffix, "text/plain"))
        elif path == "/favicon.ico":
            _respond(writer, 204, b"")
        elif path == "/api/info":
            _respond(writer, 200, self.hub.info)
        elif path == "/api/sheet":
            _respond(writer, 200, sheet_geometry())
        elif path == "/api/games":
            _respond(writer, 200, self.hub.games())
        elif path == "/api/events":
            await self._list_stream(writer)
        elif path.startswith("/api/games/") and path.endswith("/events"):
            game_id = path[len("/api/games/") : -len("/events")]
            after = headers.get("last-event-id") or (query.get("after") or ["-1"])[0]
            await self._game_stream(writer, game_id, _int(after, -1))
        elif path.startswith("/api/games/"):
            feed = self.hub.game(path[len("/api/games/") :])
            if feed is None:
                raise HttpError(404, "no such game")
            _respond(writer, 200, {"summary": feed.summary, "events": feed.events})
        else:
            raise HttpError(404, f"nothing at {path}")

    async def _seat_route(
        self, method: str, path: str, body: bytes, peer: str, writer: asyncio.StreamWriter
    ) -> None:
        """The seats for people (``web.desk``'s table)."""
        if self.desk is None:
            raise HttpError(404, "this page shows games; it offers no seats")
        if path == "/api/play":
            if method == "GET":
                _respond(writer, 200, self.desk.options())
            elif method == "POST":
                _respond(writer, 200, await self.desk.open(peer, _json_object(body)))
            else:
                raise HttpError(405, f"{method} is not served here")
            return
        token, _, action = path[len("/api/seats/") :].partition("/")
        if method == "GET" and not action:
            _respond(writer, 200, self.desk.state(token))
        elif method == "POST" and action:
            _respond(writer, 200, self.desk.act(token, action, _json_object(body)))
        else:
            raise HttpError(405, f"{method} {path} is not served here")

    # -- event streams -------------------------------------------------------------------------

    async def _list_stream(self, writer: asyncio.StreamWriter) -> None:
        _stream_head(writer)
        wake = self.hub.watch_list()
        try:
            while not self._stopping.is_set():
                games = {"type": "games", "games": self.hub.games()}
                writer.write(f"event: games\ndata: {json.dumps(games)}\n\n".encode())
                await writer.drain()
                try:
                    await asyncio.wait_for(wake.wait(), KEEPALIVE_S)
                except TimeoutError:
                    writer.write(b": keep-alive\n\n")
                    await writer.drain()
                    continue
                wake.clear()
                await asyncio.sleep(LIST_INTERVAL_S)  # changes coalesce: no event storm
        finally:
            self.hub.unwatch_list(wake)

    async def _game_stream(self, writer: asyncio.StreamWriter, game_id: str, after: int) -> None:
        watched = self.hub.watch(game_id, after)
        if watched is None:
            raise HttpError(404, "no such game")
        watcher, history = watched
        _stream_head(writer)
        try:
            writer.write(b"".join(history))
            await writer.drain()
            await self._pump(writer, watcher)
        finally:
            self.hub.unwatch(game_id, watcher)

    async def _pump(self, writer: asyncio.StreamWriter, watcher: Watcher) -> None:
        """Send what the watcher queues until it is dropped or the server stops."""
        while not watcher.dropped and not self._stopping.is_set():
            try:
                await asyncio.wait_for(watcher.wake.wait(), KEEPALIVE_S)
            except TimeoutError:
                writer.write(b": keep-alive\n\n")
                await writer.drain()
                continue
            if watcher.dropped:
                break
            writer.write(watcher.take())
            await writer.drain()


def _trajectory(body: bytes) -> dict[str, Any]:
    """Frames of one posted ``shot`` record, and the position physics gives (without ``seed``
    or ``shot_seed``: without noise, the page's preview of a throw)."""
    try:
        record = json.loads(body)
        seed, shot_seed = record.get("seed"), record.get("shot_seed")
        frames, position = shot_frames(
            record["before"], int(record["shot"]), record["throw"],
            shot_seed=shot_seed, seed=seed, noise=seed is not None or shot_seed is not None,
        )  # fmt: skip
    except (ValueError, KeyError, TypeError) as exc:
        why = f"not a shot record with before, shot, throw (and seed or shot_seed): {exc}"
        raise HttpError(400, why) from None
    return {"frames": frames, "position": position.tolist()}


def _aim(query: dict[str, list[str]]) -> dict[str, float]:
    """``GET /api/aim``: the throw to a point (``aiming.tables``: a draw, or with ``v`` a path
    through it)."""
    import math

    from rllib_curling.aiming.tables import shot_tables

    def number(name: str) -> float:
        try:
            value = float((query.get(name) or [""])[0])
        except ValueError:
            raise HttpError(400, f"{name} must be a number") from None
        if not math.isfinite(value):
            raise HttpError(400, f"{name} must be a finite number")
        return value

    x, y, w = number("x"), number("y"), number("w")
    tables = shot_tables()
    v, h, w = tables.hit(x, y, number("v"), w) if "v" in query else tables.draw(x, y, w)
    return {"v": round(v, 4), "h": round(h, 4), "w": round(w, 4)}


def _json_object(body: bytes) -> dict[str, Any]:
    """A request body that must be one JSON object (``{}`` when empty); 400 otherwise."""
    if not body:
        return {}
    try:
        value = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise HttpError(400, "the body is not JSON") from None
    if not isinstance(value, dict):
        raise HttpError(400, "the body must be a JSON object")
    return value


def _stream_head(writer: asyncio.StreamWriter) -> None:
    head = response_head(200, [("Content-Type", "text/event-stream"), ("Cache-Control", "no-store"),
                               ("Connection", "close"), ("X-Accel-Buffering", "no")])  # fmt: skip
    writer.write(head + b"retry: 1000\n\n")


def _respond(
    writer: asyncio.StreamWriter, status: int, body: Any, content_type: str | None = None
) -> None:
    if not isinstance(body, bytes):
        body = json.dumps(body, allow_nan=False).encode()
        content_type = "application/json"
    head = [("Content-Type", content_type or "text/plain"), ("Content-Length", str(len(body))),
            ("Cache-Control", "no-store"), ("Connection", "close"),
            ("X-Content-Type-Options", "nosniff")]  # fmt: skip
    writer.write(response_head(status, head) + body)


def _int(text: str, default: int) -> int:
    try:
        return int(text)
    except (TypeError, ValueError):
        return default
