"""Our DC bots as clients of Digital Curling's servers (DC3: JSON lines over TCP; DC4: HTTP +
server-sent events with basic auth), on the standard library only.

- ``DC3Client(host, port, name=…).play(choose)``: one game on a DC3 team port.
- ``DC4Client(host, port, user=…, password=…, name=…)``: ``create_match(request)``,
  ``join(match_id, team)``, ``play(match_id, choose)``.
- ``choose(state: dc_game.DCGameState) -> (vx, vy, rotation)``: a DC bot's ``choose``
  (``dc_bots.make_dc_bot(level).choose``); rotation +1 counter-clockwise, −1 clockwise.
- ``state_from_dc3`` / ``state_from_dc4``: a ``DCGameState`` rebuilt from a message's state.

Both ``play`` calls return a ``DCResult`` (the final scores as the server reported them).
"""

from rllib_curling.dc_client.dc3 import DC3Client
from rllib_curling.dc_client.dc4 import DC4Client, DC4Refusal
from rllib_curling.dc_client.result import Chooser, DCResult
from rllib_curling.dc_client.state import state_from_dc3, state_from_dc4

__all__ = [
    "Chooser",
    "DC3Client",
    "DC4Client",
    "DC4Refusal",
    "DCResult",
    "state_from_dc3",
    "state_from_dc4",
]
