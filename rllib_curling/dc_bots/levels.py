"""The ladder of built-in opponents on Digital Curling's ice, DC levels 0–8 (the same intent as
the platform's levels of the same number, ``bots.levels``).

| level | class (module)          | what it does                                                 |
|-------|-------------------------|--------------------------------------------------------------|
| 0     | DumbDCBot (simple)      | every stone stops short of the hog line                      |
| 1     | RandomDCBot (simple)    | random release speed, bearing and rotation                   |
| 2     | ButtonDCBot (simple)    | draws to the button with a random rotation                   |
| 3     | RulesDCBot (scripted)   | takes out the opponent's shot stone, else draws to the       |
|       |                         | button                                                       |
| 4     | RulesDCBot (scripted)   | rules: centre guard without the hammer, side draws with it,  |
|       |                         | guards its shot stone, open-path checks; searches its last   |
|       |                         | stone (noise off)                                            |
| 5     | SearchDCBot (search)    | ~135 draws and guards, 4 hits a stone, noise off, end score  |
| 6     | SearchDCBot (search)    | ~295 draws and guards, 18 hits a stone; best 8 re-judged     |
|       |                         | under DC's noise (8 throws each)                             |
| 7     | SearchDCBot (search)    | as 6, then its best 3 against the opponent's best reply      |
| 8     | SearchDCBot (search)    | ~380 draws and guards, 40 hits a stone; best 12 re-judged    |
|       |                         | under noise (10 throws each), best 6 against the opponent's  |
|       |                         | best reply; values on the end's last two stones = chance to  |
|       |                         | win (``dc_win_table``), the end's score before               |
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rllib_curling.dc_bots.base import DCBot
from rllib_curling.dc_bots.scripted import RulesDCBot
from rllib_curling.dc_bots.search import SearchDCBot
from rllib_curling.dc_bots.simple import ButtonDCBot, DumbDCBot, RandomDCBot
from rllib_curling.errors import ConfigError

#: The DC levels; 0 is the dumb robot, 8 the strongest.
DC_LEVELS: tuple[int, ...] = tuple(range(9))


def check_dc_level(value: Any, what: str = "DC bot level") -> int:
    """``value`` as a DC level; ``ConfigError`` (a ``ValueError``) naming the valid levels else."""
    if isinstance(value, np.integer):
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or value not in DC_LEVELS:
        raise ConfigError(f"{what} must be one of {list(DC_LEVELS)}, got {value!r}")
    return int(value)


def make_dc_bot(level: int) -> DCBot:
    """The built-in DC bot of ``level`` (0–8); ``ConfigError`` listing the valid levels else."""
    level = check_dc_level(level)
    if level <= 2:
        return (DumbDCBot, RandomDCBot, ButtonDCBot)[level]()
    if level <= 4:
        return RulesDCBot(level)
    return SearchDCBot(level)
