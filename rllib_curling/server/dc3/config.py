"""``DC3ServerConfig``: the options of ``curling server --protocol dc3``.

| field                   | meaning                                                          |
|-------------------------|------------------------------------------------------------------|
| host                    | address to listen on (both ports)                                |
| ports                   | (team 0's port, team 1's port): DC3's sample config's            |
|                         | ``DEFAULT_PORTS``; 0 = a free one                                |
| ends                    | regular ends (``is_ready``'s ``max_end``); extra ends while tied |
| thinking_time           | seconds per team for the regular ends; None: ``dc_game``'s       |
|                         | ``TIME_PER_END`` per end (DC3's 219 s for 10 ends)               |
| extra_end_thinking_time | seconds per team for each extra end (DC3: reset every extra end) |
| games                   | games to serve one after another, then stop; 0 = until stopped   |
|                         | (DC3's server serves one)                                        |
| seed                    | base seed of the noise (None: a random one, written to the       |
|                         | records)                                                         |
| log_dir                 | JSONL records (``server.records.GameRecorder``); None: none      |
| dc_ok_timeout           | seconds a client has to answer ``dc`` (DC3's ``timeout_dc_ok``)  |
| http_port               | the watch page's port (``server.dc_watch``) on ``host``; None:   |
|                         | no page (the default); 0 = a free one                            |
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from rllib_curling.dc_game import EXTRA_END_TIME, DCGameConfig
from rllib_curling.errors import ConfigError

#: The ports of DC3's sample config (team 0's, team 1's).
DEFAULT_PORTS = (10000, 10001)
#: Seconds a client has to answer ``dc`` with ``dc_ok``.
DC_OK_TIMEOUT = 10.0


@dataclass(frozen=True)
class DC3ServerConfig:
    """The DC3 server's options (module docstring)."""

    host: str = "127.0.0.1"
    ports: tuple[int, int] = DEFAULT_PORTS
    ends: int = DCGameConfig.standard_end_count
    thinking_time: float | None = None
    extra_end_thinking_time: float = EXTRA_END_TIME
    games: int = 1
    seed: int | None = None
    log_dir: str | None = None
    dc_ok_timeout: float = DC_OK_TIMEOUT
    http_port: int | None = None

    def __post_init__(self) -> None:
        if len(self.ports) != 2:
            raise ConfigError(f"ports must be two (team 0's, team 1's), got {self.ports!r}")
        for port in self.ports:
            if not isinstance(port, int) or not 0 <= port <= 65535:
                raise ConfigError(f"port must be 0..65535, got {port!r}")
        hp = self.http_port
        if hp is not None and (not isinstance(hp, int) or not 0 <= hp <= 65535):
            raise ConfigError(f"http_port must be 0..65535 or None, got {hp!r}")
        if hp and hp in self.ports:
            raise ConfigError(f"the page's port {hp} is also a team's port; choose another")
        if self.ports[0] == self.ports[1] and self.ports[0] != 0:
            raise ConfigError(f"team 0 and team 1 need two ports, got {self.ports[0]} twice")
        if not isinstance(self.games, int) or self.games < 0:
            raise ConfigError(f"games must be an int >= 0 (0 = until stopped), got {self.games!r}")
        if not (math.isfinite(self.dc_ok_timeout) and self.dc_ok_timeout > 0):
            raise ConfigError(f"dc_ok_timeout must be > 0 s, got {self.dc_ok_timeout!r}")
        self.game_config()  # ends and clocks: ConfigError now, not at the first game

    def game_config(self) -> DCGameConfig:
        """The game every connection plays: DC3's five-rock rule, clocks reset per extra end."""
        return DCGameConfig(
            standard_end_count=self.ends,
            rule="fgz",
            time_limit=self.thinking_time,
            extra_end_time_limit=self.extra_end_thinking_time,
            extra_end_clock="per_end",
        )
