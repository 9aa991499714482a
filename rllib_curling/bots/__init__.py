"""Built-in opponents: a ladder of bots, levels 0–8, and headless games between them.

| module        | what it holds                                                            |
|---------------|--------------------------------------------------------------------------|
| ``base``      | ``Bot`` (the interface: ``choose``, ``centerline_choice``), shared helpers |
| ``levels``    | ``LEVELS``, ``check_level``, ``make_bot(level)``: the one list of levels   |
| ``simple``    | levels 0–2: dumb robot, random throws, draws to the button               |
| ``scripted``  | levels 3–4: rules of thumb aimed with the free-path tables               |
| ``candidates``| candidate throws of the searching bots (draw grid, guards, hits, templates) |
| ``evaluation``| how the search bots judge a position (expected points, chance to win)    |
| ``evaluation_kernel`` | ``evaluation.end_branches`` compiled (numba)                     |
| ``search``    | levels 5–8: batch simulation of the candidates, look-ahead               |
| ``matches``   | headless games, matches and the ladder (``curling match`` / ``ladder``)  |

Imports flow one way inside: ``matches`` → ``levels`` → ``search``/``scripted`` → ``candidates``/
``evaluation`` → ``base``/``evaluation_kernel``. The bots aim with ``rllib_curling.aiming``,
never with the env.
"""

from __future__ import annotations

from rllib_curling.bots.base import DUMB_THROW, Bot, Throw
from rllib_curling.bots.levels import LEVELS, MAX_LEVEL, check_level, is_level, make_bot

__all__ = [
    "DUMB_THROW",
    "LEVELS",
    "MAX_LEVEL",
    "Bot",
    "Throw",
    "check_level",
    "is_level",
    "make_bot",
]
