"""The platform's numbers that both ends of the wire agree on (protocol.md §1, §4).

The server (``server.config``), the client (``client``), the env and the commands read them from
here, so a port or a timeout is written once.

| name                       | value | what it is                                                 |
|----------------------------|-------|------------------------------------------------------------|
| ``DEFAULT_TCP_PORT``       | 7788  | the stand-alone server's ``TcpPort`` (``conf/config.ini``) |
| ``DEFAULT_HTTP_PORT``      | 9007  | its ``HttpPort``: the page that shows the games            |
| ``TURN_TIMEOUT_S``         | 120 s | from GO to BESTSHOT; then the stone is lost                |
| ``SWEEP_WINDOW_S``         | 1 s   | the server waits this long for SWEEP after MOTIONINFO      |
| ``CLIENT_TIMEOUT_MARGIN_S``| 30 s  | a client waits this much longer than a turn for a message  |
| ``CLIENT_TIMEOUT_S``       | 150 s | so a client's default wait is a turn plus the margin       |
"""

from __future__ import annotations

DEFAULT_TCP_PORT = 7788
DEFAULT_HTTP_PORT = 9007
#: Seconds from GO to BESTSHOT; then the stone is lost (``ServerConfig.turn_timeout``'s default).
TURN_TIMEOUT_S = 120.0
#: Seconds to wait for SWEEP after MOTIONINFO (``ServerConfig.sweep_window``'s default).
SWEEP_WINDOW_S = 1.0
#: The client waits this much longer than the turn timeout for the server's next message.
CLIENT_TIMEOUT_MARGIN_S = 30.0
#: A client's default wait for the server's next message.
CLIENT_TIMEOUT_S = TURN_TIMEOUT_S + CLIENT_TIMEOUT_MARGIN_S
