"""``curling server --protocol dc3``: UEC Digital Curling 3's TCP server (what
``DigitalCurling3-Server`` serves and DC3's clients speak: one JSON object per line, one port per
team), beside the platform's TCP server and the DC4 room: a parallel room that shares only the
records' file format (``server.records``).

| module     | what it holds                                                                  |
|------------|--------------------------------------------------------------------------------|
| ``config`` | ``DC3ServerConfig`` (host, the two ports, ends, clocks, games, seed, records)  |
| ``game``   | ``DC3Game``: one game's handshake, turns, shots on the fcv1 ice, clocks,       |
|            | faults and records; it writes to the connections through an ``Outbox``         |
| ``wire``   | ``settings_of`` (``is_ready``'s game), ``wire_state`` (DC3's ``state``)      |
| ``tcp``    | ``DC3Server``: the two listeners, one connection per team, games in a row      |
| ``runner`` | ``run_dc3_server`` (blocking), ``DC3Handle`` (a server in a thread)            |

The game is ``dc_game`` with ``dc_ice`` (the fcv1 ice, DC's noise per player), the wire is
``dc_protocol.dc3`` (sans-I/O). docs/digital_curling.md, "DC3 server", says what differs from
UEC's server.
"""
