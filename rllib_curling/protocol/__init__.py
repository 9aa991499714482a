"""The digital-curling (数字冰壶) protocol (protocol.md), sans-I/O: no sockets, no game logic.

| module       | what it holds                                                            |
|--------------|--------------------------------------------------------------------------|
| ``numbers``  | how numbers are written and read on the wire (``format_float``, …)      |
| ``base``     | message base classes, argument shapes, ``EMPTIES_TO_CLOSE``               |
| ``messages`` | one frozen dataclass per message of protocol.md §3, ``split_key``        |
| ``codec``    | ``encode``, ``decode``, ``decode_all``, ``StreamDecoder`` (framing)        |
| ``defaults`` | the platform's ports and timeouts (server, client and env read them)      |

Import everything from here: ``from rllib_curling import protocol as p; p.encode(p.Go())``.
"""

from __future__ import annotations

from rllib_curling.protocol.codec import *  # noqa: F403
from rllib_curling.protocol.codec import __all__  # noqa: F401
