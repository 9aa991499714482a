"""Helpers of the DC watch page tests: a 1-end DC4 match of two level-2 DC bots (``dc_client``)
on a DC4 server, in threads."""

from __future__ import annotations

import threading
from typing import Any

from rllib_curling.dc_bots.levels import make_dc_bot
from rllib_curling.dc_client import DC4Client
from rllib_curling.dc_client.dc4 import match_request
from rllib_curling.server.dc4.runner import DC4Handle


def start_match(handle: DC4Handle) -> tuple[str, list[threading.Thread], dict[str, Any]]:
    """Create and join a 1-end match (teams "alpha", "beta"); play it in two threads."""
    assert handle.server is not None and handle.server.address is not None
    host, port = handle.server.address
    alpha = DC4Client(host, port, user="a", name="alpha", timeout=60)
    beta = DC4Client(host, port, user="b", name="beta", timeout=60)
    match_id = alpha.create_match(match_request(1))
    alpha.join(match_id, "team0")
    beta.join(match_id, "team1")
    results: dict[str, Any] = {}

    def play(client: DC4Client) -> None:
        results[client.name] = client.play(match_id, make_dc_bot(2).choose)

    threads = [threading.Thread(target=play, args=(c,), daemon=True) for c in (alpha, beta)]
    for thread in threads:
        thread.start()
    return match_id, threads, results
