"""``WatchPage``: the DC watch page's routes, sans-I/O (a server shell calls ``answer``), and
``sheet_geometry``: the DC sheet (``dc_sheet``) in the frame the platform's ``sheet.js`` draws.

**Drawing frame**: ``sheet.js`` draws in the platform's protocol frame (origin at the far end's
left corner, x to the thrower's right, y toward the thrower). A DC point ``(x, y)`` of the shot
frame (hack at the origin, throwing toward +y) is drawn at ``(x + x0, y0 - y)`` with
``frame = {"x0": SIDE_X, "y0": BACK_BOARD_Y}`` (the far board at y0): the page maps DC's stones
with that, and every line of the sheet below comes from ``dc_sheet`` mapped the same way.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from typing import Any, Literal

from rllib_curling import dc_sheet as s

#: The page's own files (``dc_watch/static``) and the platform page's files it borrows: the
#: look, the languages and the drawing have one source (``server/web/static``); only the page
#: (its few lines of HTML head and its layout) and its script are DC's own.
OWN_FILES = ("watch.html", "watch.js")
BORROWED_FILES = ("sheet.js", "game.js", "i18n.js", "style.css")
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
}
PAGE_PATHS = ("/", "/watch", "/watch/")
STATIC_PREFIX = "/watch/static/"


def _far(y: float) -> float:
    return s.BACK_BOARD_Y - y


def sheet_geometry() -> dict[str, Any]:
    """The DC sheet for ``sheet.js`` (module docstring: the drawing frame), from ``dc_sheet``."""
    return {
        "width": s.SHEET_WIDTH, "length": s.BACK_BOARD_Y - s.NEAR_BOARD_Y,
        "centre_x": s.CENTRE_X + s.SIDE_X, "tee": [s.TEE_X + s.SIDE_X, _far(s.TEE_Y)],
        "rings": list(s.RING_RADII), "house_score_radius": s.HOUSE_SCORE_RADIUS,
        "stone_radius": s.STONE_RADIUS, "back_line_y": _far(s.BACK_LINE_Y),
        "hog_line_y": _far(s.HOG_Y), "midsheet_y": None,  # no sweeping in DC
        "release": [s.SIDE_X, _far(0.0)], "fgz": [_far(s.FGZ_LINE_Y), _far(s.HOG_Y)],
        "frame": {"x0": s.SIDE_X, "y0": s.BACK_BOARD_Y},
        "stones_per_team": s.STONES_PER_TEAM, "shots_per_end": s.SHOTS_PER_END,
    }  # fmt: skip


def static_file(name: str) -> bytes | None:
    """One of the page's files by name (its own or a borrowed one), else None."""
    if name in OWN_FILES:
        folder = resources.files("rllib_curling.server.dc_watch").joinpath("static")
    elif name in BORROWED_FILES:
        folder = resources.files("rllib_curling.server").joinpath("web", "static")
    else:
        return None
    return folder.joinpath(name).read_bytes()


@dataclass(frozen=True)
class Answer:
    """An answer to a GET: status, content type, body."""

    status: int
    content_type: str
    body: bytes

    @staticmethod
    def json(value: Any, status: int = 200) -> Answer:
        data = json.dumps(value, ensure_ascii=False, allow_nan=False).encode()
        return Answer(status, "application/json", data)


@dataclass(frozen=True)
class WatchPage:
    """The routes of the page (``dc_watch`` docstring). ``mode``: ``"live"`` (``matches()``
    gives the matches' summaries, the page follows ``stream`` with ``{match_id}`` filled) or
    ``"replay"`` (``matches()`` gives the games with their states). ``title``: shown in the
    header (the records file, the server). ``first``: the id the page opens first (default: the
    newest; ``?match=ID`` in the address wins)."""

    mode: Literal["live", "replay"]
    matches: Callable[[], list[dict[str, Any]]]
    title: str = ""
    stream: str | None = None
    first: str | None = None

    def info(self) -> dict[str, Any]:
        return {"mode": self.mode, "title": self.title, "stream": self.stream, "first": self.first}

    def answer(self, path: str) -> Answer | None:
        """The answer to ``GET path``, or None when the path is not the page's."""
        if path in PAGE_PATHS:
            path = STATIC_PREFIX + "watch.html"
        if path.startswith(STATIC_PREFIX):
            name = path[len(STATIC_PREFIX) :]
            data = static_file(name)
            if data is None:
                return Answer.json({"detail": "Not Found"}, 404)
            suffix = name[name.rfind(".") :]
            return Answer(200, CONTENT_TYPES[suffix], data)
        if path == "/watch/api/info":
            return Answer.json(self.info())
        if path == "/watch/api/sheet":
            return Answer.json(sheet_geometry())
        if path == "/watch/api/matches":
            return Answer.json(self.matches())
        return None
