"""``curling server --protocol dc4``: UEC Digital Curling 4's HTTP server (what
``DigitalCurling4-Server`` serves and ``dc4client`` speaks), beside the platform's TCP server:
a parallel room that shares only the records' file format (``server.records``).

| module     | what it holds                                                                  |
|------------|--------------------------------------------------------------------------------|
| ``config`` | ``DC4ServerConfig`` (host, port, users, seed, records), ``read_users``         |
| ``http``   | ``DC4Server``: the HTTP/1.1 shell, basic auth, refusals, SSE streams           |
| ``match``  | ``DC4Match``: sides, streams, shots on the fcv1 ice, clocks, records           |
| ``runner`` | ``run_dc4_server`` (blocking), ``DC4Handle`` (a server in a thread)            |

The game is ``dc_game`` with ``dc_ice`` (the fcv1 ice, DC's noise per player), the wire is
``dc_protocol`` (sans-I/O). docs/digital_curling.md, "DC4 server", says what differs from UEC's
server.
"""
