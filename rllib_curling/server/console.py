"""The human lines of the server: who waits in a lobby and why, and one line per game that ends.

They go to the logger ``rllib_curling.server.console`` at INFO, so a server used as a library
(``start_server_thread``, the tests) prints nothing; ``curling server`` shows them on stderr, one
plain line each, unless ``-q`` (or ``--announce``: a program reads that server's output):

    waiting in the lobby of port 7788: SampleAI2020 (127.0.0.1:50312) as Player1 (no
        CONNECTKEY; a second client will be its opponent, or start the server with
        --opponent N to seat built-in AI N against such clients)
    game 3 (port 7788): AlphaCurl 5 - 3 built-in AI 3 (4 ends, AlphaCurl wins)
    refused 127.0.0.1:50318: wrong key; this server needs its connection key

(each line is one line: wrapped here). Game lines are numbered per port (room) from 1, Player1
first; a game that did not finish says why (``forfeit``, ``disconnect``, ``stopped``, ``error``).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator, Sequence
from typing import Any, TextIO

#: The logger of the human lines (INFO); ``printing(stream)`` shows them.
CONSOLE = logging.getLogger("rllib_curling.server.console")


@contextlib.contextmanager
def printing(stream: TextIO) -> Iterator[None]:
    """Show the console lines on ``stream`` (plain, one line each) while the block runs."""
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(message)s"))
    level, propagate = CONSOLE.level, CONSOLE.propagate
    CONSOLE.addHandler(handler)
    CONSOLE.setLevel(logging.INFO)
    CONSOLE.propagate = False  # not a second time through the root logger's format (-v)
    try:
        yield
    finally:
        CONSOLE.removeHandler(handler)
        CONSOLE.setLevel(level)
        CONSOLE.propagate = propagate


def lobby_line(port: int, who: str, seat: int, *, legacy: bool) -> str:
    """The line of a client left waiting for an opponent in the lobby of ``port``."""
    if legacy:
        why = (
            "no CONNECTKEY; a second client will be its opponent, or start the server with "
            "--opponent N to seat built-in AI N against such clients"
        )
    else:
        why = (
            "its key has no :N; a second client will be its opponent, or connect with a key "
            "ending :1 .. :8 to play built-in AI 1 .. 8"
        )
    return f"waiting in the lobby of port {port}: {who} as Player{seat + 1} ({why})"


def refused_line(who: str, why: str) -> str:
    """The line of a client the server turned away (``who``: its address, with its team name
    when it gave one), and why."""
    return f"refused {who}: {why}"


def display_names(names: Sequence[str], kinds: Sequence[str]) -> list[str]:
    """What the game lines call the two seats: a built-in bot by its level, a client by its
    team name (``names``: the records' players; ``kinds``: ``"remote"``, ``"bot:3"``, …)."""
    return [
        f"built-in AI {kind.split(':', 1)[1]}" if kind.startswith("bot:") else name
        for name, kind in zip(names, kinds, strict=True)
    ]


def game_line(number: int, port: int, record: dict[str, Any], kinds: Sequence[str]) -> str:
    """The line of game ``number`` of ``port`` from its ``game`` record (``server.records``)."""
    one, two = display_names(record["players"], kinds)
    p1, p2 = record["totals"]
    ends = len(record["end_scores"])
    played = f"{ends} end{'s' if ends != 1 else ''}"
    results = record["results"]
    winner = one if results[0] == "WIN" else two if results[1] == "WIN" else None
    outcome = f"{winner} wins" if winner is not None else "a draw"
    reason, lost = record["reason"], record.get("lost_seat")
    loser = (one, two)[lost] if lost in (0, 1) else "a client"
    how = {
        "finished": f"{played}, {outcome}",
        "forfeit": f"{loser} forfeited after {played}, {outcome}",
        "disconnect": f"{loser} disconnected after {played}, {outcome}",
        "resign": f"{loser} resigned after {played}, {outcome}",
        "stopped": f"the server stopped after {played}",
        "error": f"ended by a server error after {played}",
    }.get(reason, f"{reason} after {played}")
    return f"game {number} (port {port}): {one} {p1} - {p2} {two} ({how})"
