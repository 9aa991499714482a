"""``Desk``: what the page may ask of the server's seats for people (``server.people`` is the
server's desk; the page is handed one and never imports the game loop).

| route                                  | desk call          | answer                           |
|----------------------------------------|--------------------|----------------------------------|
| ``GET /api/play``                      | ``options()``      | the opponents a person may play, |
|                                        |                    | the longest sweep (``sweep_max``)|
| ``POST /api/play``                     | ``open(peer, …)``  | a new seat: ``{"seat": token, …}``|
| ``GET /api/seats/<token>``             | ``state(token)``   | the seat: its game, what it waits|
|                                        |                    | for, the seconds left, its stone  |
|                                        |                    | while it runs (path to the hog    |
|                                        |                    | line, seconds since the throw)    |
| ``POST /api/seats/<token>/throw``      | ``act(…)``         | ``{"v", "h", "w"}``              |
| ``POST /api/seats/<token>/sweep``      | ``act(…)``         | ``{"distance"}`` (metres, 0 = no;|
|                                        |                    | while the stone runs from mid-   |
|                                        |                    | sheet to the hog line)           |
| ``POST /api/seats/<token>/centerline`` | ``act(…)``         | ``{"choice"}``                   |
| ``POST /api/seats/<token>/resign``     | ``act(…)``         | ``{}``                           |

A seat is taken with the server's connection key and then played with its token, a secret
only the page that took it holds: a watcher without them can never throw. A refused call
raises ``SeatRefused`` (the HTTP status and a one-line reason); the game goes on.
"""

from __future__ import annotations

from typing import Any, Protocol


class SeatRefused(Exception):
    """A seat call that cannot be done: ``status`` (400, 403, 404, 409, 429, 503) and why, in
    English; ``code`` names the refusal for the page, which says it in the reader's language
    (``server.<code>`` in ``static/i18n.js``), or is None where the English is all there is."""

    def __init__(self, status: int, text: str, code: str | None = None) -> None:
        super().__init__(text)
        self.status = status
        self.code = code


class Desk(Protocol):
    """The server's seats for people, as the page's HTTP routes use them (module docstring)."""

    def options(self) -> dict[str, Any]: ...

    async def open(self, peer: str, body: dict[str, Any]) -> dict[str, Any]: ...

    def state(self, token: str) -> dict[str, Any]: ...

    def act(self, token: str, action: str, body: dict[str, Any]) -> dict[str, Any]: ...
