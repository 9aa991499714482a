"""Digital Curling's (UEC) two wire protocols, sans-I/O: no sockets, no asyncio, no game logic.
The platform's own protocol is :mod:`rllib_curling.protocol`; this is the parallel room for DC
(``shared/spec/digital_curling.md`` §6–§7, docs/digital_curling.md). Positions and throws are in
DC's shot frame (:mod:`rllib_curling.dc_sheet`).

| module           | what it holds                                                          |
|------------------|------------------------------------------------------------------------|
| ``dc3``          | DC3's messages (one frozen dataclass per ``cmd``), ``encode`` to one    |
|                  | JSON line, ``decode``, ``LineDecoder`` (bytes → messages)              |
| ``dc3_state``    | what DC3's messages carry: ``Shot`` / ``Concede``, ``Stones``,          |
|                  | ``GameState``, ``GameResult``, ``Trajectory``                          |
| ``dc3_settings`` | ``GameSettings``: ``is_ready``'s game (ends, clocks, simulator, players) |
| ``dc4``          | DC4's HTTP API: paths, ``MatchRequest``, ``TeamConfig``, ``ShotInfo``,   |
|                  | query parsing, ``Release`` (a shot in DC's frame: clamp, spin sign)    |
| ``dc4_state``    | ``State``: DC4's state JSON from plain values (both clients' spellings) |
| ``sse``          | server-sent events: ``encode_event``, ``PING``, ``EventParser``         |
| ``basic_auth``   | the ``Authorization`` header both ways, ``authenticate``, 401 details   |
| ``refusals``     | HTTP refusals as data (400/401/404/409/422) and DC4's detail texts     |
| ``fields``       | ``Node``: typed reads of parsed JSON with pydantic-style issues         |

Import the modules: ``from rllib_curling.dc_protocol import dc3, dc4``;
``dc3.decode(line)``, ``dc4.ShotInfo.parse(body)``.
"""

from __future__ import annotations
