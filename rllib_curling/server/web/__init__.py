"""The page that shows games: live on ``curling server --http-port``, or replayed from records.

A browser opens ``http://127.0.0.1:<HttpPort>/``: the sheet to scale, the stones in their teams'
colours with their throwing order, the thrown stone moving along its trajectory from the engine
(sweeping shown), the scoreboard (ends × teams, totals, hammer), the seats' names, the shot
number and whose turn it is, and the list of games on the server, each one watchable live or
step by step. Plain JavaScript and a canvas, served from the package (no build, no network).
In English or Chinese: the browser's language, or ``?lang=zh-CN`` / ``?lang=en``.

| module      | what it holds                                                                |
|-------------|------------------------------------------------------------------------------|
| ``events``  | records → page events (``next_seat``), trajectories (``frames``), the sheet |
| ``hub``     | ``WatchHub``: games, their events, the watchers' bounded queues              |
| ``http``    | ``WebServer``: a small asyncio HTTP/1.1 server, server-sent events           |
| ``handle``  | ``WebHandle``: the page in a background thread (replay, ``--watch``)         |
| ``feeds``   | ``TeeRecorder`` (server matches), ``BotMatchFeed``, ``ClientFeed``           |
| ``replay``  | a records file → the hub's games (``curling replay``)                        |
| ``desk``    | ``Desk``: the seats for people the server hands the page (``server.people``) |
| ``static/`` | ``index.html``, ``style.css``, ``i18n.js`` (the words in English and in      |
|             | Chinese, zh-CN), ``sheet.js`` (drawing), ``game.js`` (a game's events → what |
|             | is on the sheet), ``app.js`` (the page: streams, controls), ``play.js``      |
|             | (a person's seat, the agent's view)                                          |

The page reads games, and a slow or stalled browser never slows one (``hub``). With the server's
``Desk`` it also seats people: a seat is taken with the server's connection key and played with
its secret token, so a watcher without them never throws; the person's stone is drawn running
in real time (the seat reports it), and the page offers a sweep only while it shows that stone
between mid-sheet and the hog line. It binds where the server binds (127.0.0.1 by default).
"""

from __future__ import annotations

from rllib_curling.server.web.feeds import TeeRecorder
from rllib_curling.server.web.handle import WebHandle
from rllib_curling.server.web.http import WebServer
from rllib_curling.server.web.hub import WatchHub

__all__ = ["TeeRecorder", "WatchHub", "WebHandle", "WebServer"]
