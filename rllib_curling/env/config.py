"""``CurlingEnvConfig``: the env's typed, validated configuration.

RLlib hands the env a dict (an ``EnvContext`` with ``worker_index``); Gymnasium passes keyword
arguments. Both become this frozen dataclass at ``__init__``, so an unknown key fails at once with
the list of valid keys.

**Which server an env instance uses** (``server``):

- ``"auto"`` (default): the env starts a private ``curling server`` child process on a free
  loopback port (the OS picks it) and stops it on ``close()``. Every env instance, in any env
  runner, gets its own server: nothing to set up.
- ``"host:port"`` (or ``port``): every env instance connects to that one server (fine for one env,
  or for a server that seats many pairs — the platform's server seats one pair).
- a list of ports / ``"host:port"`` strings: env instance number ``i`` takes entry ``i`` where
  ``i = max(worker_index - 1, 0) * envs_per_worker + k`` and ``k`` counts the env instances of that
  same list already open in this process (0, 1, …; freed on ``close()``). So with
  ``num_env_runners=2, num_envs_per_env_runner=2`` give 4 entries and ``envs_per_worker=2``.
  RLlib numbers evaluation env runners from 1 as well, so give evaluation its own list:
  ``config.evaluation(evaluation_config={"env_config": {"server": [...other ports...]}})``.

**How long the env waits for its server** (``reply_timeout``): a private server whose other seat
is a built-in bot (or, in self-play, the env itself) only ever waits for a bot's decision and the
engine, so it answers within a second or two; silence longer than ``server_timeout`` (default
``SERVER_TIMEOUT_S``) means it hangs (stopped, deadlocked): the env kills it, ``step()`` or
``reset()`` raises ``ConnectionLostError`` and the next ``reset()`` starts a new one. Anywhere
else (a server from the config, or ``opponent="external"``) someone may think for a whole turn,
so the env waits ``client_timeout`` (``turn_timeout`` plus a margin) and never kills a server it
did not start.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

from rllib_curling.bots.levels import LEVELS, is_level
from rllib_curling.errors import ConfigError

ACTIONS = ("continuous", "discrete")
REWARDS = ("score", "win", "shaped")
#: The client waits this much longer than the turn timeout for the server's next message.
CLIENT_TIMEOUT_MARGIN_S = 30.0
#: Default ``server_timeout``: about 20 times the longest silence of a healthy private server
#: (measurements/RESULTS.md, "How long a private server is silent").
SERVER_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class CurlingEnvConfig:
    """Options of ``CurlingEnv`` (also the keys of RLlib's ``env_config``).

    ``server_timeout`` (seconds, > 0): how long a private server (``server="auto"``) with a
    built-in opponent may stay silent before the env calls it hung and kills it (module
    docstring); ``turn_timeout`` bounds the waits on every other server.

    ``http_port``: a private server serves no web page (None, the default: no port, no cost);
    0 = it shows its games on a free port, else on that port (``CurlingEnv.watch_url``).
    """

    server: Any = "auto"
    opponent: int | str = 2
    ends: int = 4
    key: str = "localtest"
    seed: int | None = None
    action: str = "continuous"
    reward: str = "score"
    sweep: bool = False
    turn_timeout: float = 120.0
    server_timeout: float = SERVER_TIMEOUT_S
    name: str = "rllib-curling"
    envs_per_worker: int = 1
    host: str = "127.0.0.1"
    log_dir: str | None = None
    shaping_scale: float = 0.5
    http_port: int | None = None

    def __post_init__(self) -> None:
        if self.action not in ACTIONS:
            raise ConfigError(f"action must be one of {ACTIONS}, got {self.action!r}")
        if self.reward not in REWARDS:
            raise ConfigError(f"reward must be one of {REWARDS}, got {self.reward!r}")
        if self.opponent != "external" and not is_level(self.opponent):
            raise ConfigError(
                f"opponent must be a built-in level {list(LEVELS)} or 'external', "
                f"got {self.opponent!r}"
            )
        if not isinstance(self.ends, int) or (self.ends < 1 and self.ends != -1):
            raise ConfigError(f"ends must be a positive int or -1 (unlimited), got {self.ends!r}")
        if self.turn_timeout <= 0:
            raise ConfigError(f"turn_timeout must be > 0 seconds, got {self.turn_timeout!r}")
        if not _positive_seconds(self.server_timeout):
            raise ConfigError(
                f"server_timeout must be a finite number of seconds > 0, "
                f"got {self.server_timeout!r}"
            )
        if self.envs_per_worker < 1:
            raise ConfigError(f"envs_per_worker must be >= 1, got {self.envs_per_worker!r}")
        if ":" in self.key:
            raise ConfigError(
                f"key {self.key!r} must not contain ':' (the opponent level is added by the env)"
            )
        parse_server(self.server)
        port = self.http_port
        if port is not None and (isinstance(port, bool) or not isinstance(port, int)
                                 or not 0 <= port < 65536):  # fmt: skip
            raise ConfigError(f"http_port must be None or a port 0..65535, got {port!r}")

    @classmethod
    def from_dict(cls, values: dict[str, Any] | None) -> CurlingEnvConfig:
        values = dict(values or {})
        values.pop("num_envs", None)  # added by RLlib's vector entry point
        valid = [f.name for f in dataclasses.fields(cls)]
        unknown = sorted(set(values) - set(valid))
        if unknown:
            raise ConfigError(f"unknown env_config key(s) {unknown}; valid keys: {valid}")
        if isinstance(values.get("server"), list):
            values["server"] = tuple(values["server"])
        return cls(**values)

    @property
    def client_timeout(self) -> float:
        """Seconds the env's clients wait for the server: the turn timeout plus a margin."""
        return self.turn_timeout + CLIENT_TIMEOUT_MARGIN_S

    def reply_timeout(self, *, self_play: bool = False) -> float:
        """Seconds the env's clients wait for the server's next message (module docstring):
        ``server_timeout`` on a private server whose other seat is a bot or, with
        ``self_play``, the env itself; ``client_timeout`` elsewhere."""
        if self.server == "auto" and (self_play or self.opponent != "external"):
            return self.server_timeout
        return self.client_timeout

    @property
    def private_sweep_window_ms(self) -> int:
        """How long a private server waits for SWEEP after MOTIONINFO: only an env that sweeps
        makes it wait (its client answers at once)."""
        return 2000 if self.sweep else 0

    @property
    def sweep_reply(self) -> bool:
        """Whether the env's clients answer every MOTIONINFO (``SWEEP 0`` when not sweeping):
        yes, except on a private server that does not wait for sweeps."""
        return self.server != "auto" or self.private_sweep_window_ms > 0

    @property
    def connect_key(self) -> str:
        """The CONNECTKEY: ``key`` plus ``:level`` for a built-in opponent."""
        return self.key if self.opponent == "external" else f"{self.key}:{self.opponent}"


def _positive_seconds(value: Any) -> bool:
    """A real number (not a bool), finite and > 0."""
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and value > 0
    )


def _parse_address(entry: Any, default_host: str = "127.0.0.1") -> tuple[str, int]:
    if isinstance(entry, int) and not isinstance(entry, bool):
        host, port = default_host, entry
    elif isinstance(entry, str) and entry.rsplit(":", 1)[-1].isdigit():
        host, _, port_text = entry.rpartition(":")
        host, port = (host or default_host), int(port_text)
    else:
        raise ConfigError(
            f"server entry {entry!r} is not a port or 'host:port' "
            "(server may be 'auto', 'host:port', or a list of those)"
        )
    if not 0 < port < 65536:
        raise ConfigError(f"server port {port} is out of range 1..65535")
    return host, port


def parse_server(server: Any) -> list[tuple[str, int]] | None:
    """None for ``"auto"``, else the list of addresses."""
    if server == "auto":
        return None
    if isinstance(server, list | tuple):
        if not server:
            raise ConfigError("server list is empty")
        return [_parse_address(e) for e in server]
    return [_parse_address(server)]
