"""The ladder of built-in opponents, levels 0–8 (protocol.md §2, keys ``:0`` … ``:8``).

This module is the one place that says which levels exist (``LEVELS``) and how a level is
checked (``check_level``): the server, the env and the commands all use it.

| level | class (module)          | what it does                                                |
|-------|-------------------------|-------------------------------------------------------------|
| 0     | DumbBot (simple)        | the platform's "dumb robot": every stone stops short of the |
|       |                         | hog line                                                    |
| 1     | RandomBot (simple)      | random throws over useful ranges (speed, offset, spin)      |
| 2     | ButtonBot (simple)      | draws to the button with a random curl                      |
| 3     | RulesBot (scripted)     | takes out the opponent's shot stone, else draws to the button |
| 4     | RulesBot (scripted)     | rules: guards, draws around guards, open-path checks,       |
|       |                         | raises, guarding its shot stone; searches its last stone    |
| 5     | SearchBot (search)      | tries every basic shot template (noise off), heuristic     |
| 6     | SearchBot (search)      | ~250 generated draws, guards and hits (noise off)           |
| 7     | SearchBot (search)      | as 6, then its best 3 against the opponent's best reply     |
| 8     | SearchBot (search)      | ~600 candidates, best 12 re-judged under noise, best 6      |
|       |                         | against the opponent's best reply; values = chance to win   |
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rllib_curling.bots.base import Bot
from rllib_curling.bots.scripted import RulesBot
from rllib_curling.bots.search import SearchBot
from rllib_curling.bots.simple import ButtonBot, DumbBot, RandomBot
from rllib_curling.errors import ConfigError

#: The built-in levels; 0 is the platform's debug robot, 8 the strongest.
LEVELS: tuple[int, ...] = tuple(range(9))
MAX_LEVEL = LEVELS[-1]
#: The ladder a curriculum or a league climbs by default: level 2 (the first bot that aims) and up.
LADDER: tuple[int, ...] = LEVELS[2:]


def is_level(value: Any) -> bool:
    """True for an int (not a bool) that is one of ``LEVELS``."""
    return isinstance(value, int) and not isinstance(value, bool) and value in LEVELS


def check_level(value: Any, what: str = "bot level") -> int:
    """``value`` as a level; ``ConfigError`` (a ``ValueError``) naming the valid levels else."""
    if isinstance(value, np.integer):
        value = int(value)
    if not is_level(value):
        raise ConfigError(f"{what} must be one of {list(LEVELS)}, got {value!r}")
    return int(value)


def make_bot(level: int) -> Bot:
    """The built-in bot of ``level`` (0–8); ``ConfigError`` (a ``ValueError``) listing the valid
    levels otherwise."""
    level = check_level(level)
    if level <= 2:
        return (DumbBot, RandomBot, ButtonBot)[level]()
    if level <= 4:
        return RulesBot(level)
    return SearchBot(level)
