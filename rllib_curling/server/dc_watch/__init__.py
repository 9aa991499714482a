"""The Digital Curling watch page: a DC game's sheet, stones, scoreboard, turn and clocks in a
browser, live from a DC4 server or replayed from DC records. The parallel room of the platform's
page (``server.web``): it borrows that page's drawing (``sheet.js``, fed the DC sheet's
dimensions from ``dc_sheet`` as JSON), words (``i18n.js``) and style, and reads DC4's state JSON,
the format DC4's viewer stream already sends.

| module       | what it holds                                                               |
|--------------|-----------------------------------------------------------------------------|
| ``page``     | ``WatchPage``: the routes (page, files, sheet, matches or games) sans-I/O,  |
|              | ``sheet_geometry`` (the DC sheet in the drawing's frame)                    |
| ``feed``     | ``dc4_state`` (DC4's state of a ``DCGameState``), ``StateFeed`` (a game's   |
|              | states as SSE for the page: the DC3 server's games)                         |
| ``replay``   | ``read_dc_games``: a DC records file → its games as DC4 states               |
| ``http``     | ``WatchServer`` (GET only, asyncio; with feeds their streams too),          |
|              | ``WatchHandle`` (``curling replay``)                                         |
| ``static/``  | ``watch.html``, ``watch.js`` (the page: list, stream or steps, drawing)     |

Routes (``page``): ``GET /`` or ``/watch`` the page, ``/watch/static/<file>``,
``/watch/api/info``, ``/watch/api/sheet``, ``/watch/api/matches`` (live: the matches' summaries;
replay: the games with their states). Live, the page follows a match on DC4's
``/matches/<id>/viewer`` stream, or a DC3 game on ``/watch/api/stream/<id>``.
"""

from __future__ import annotations

from rllib_curling.server.dc_watch.page import WatchPage, sheet_geometry

__all__ = ["WatchPage", "sheet_geometry"]
