"""``CurlingEnvConfig``: the env's typed, validated configuration, and the server-assignment rule.

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
"""

from __future__ import annotations

import dataclasses
import threading
from dataclasses import dataclass, field
from typing import Any

from rllib_curling.errors import ConfigError

ACTIONS = ("continuous", "discrete")
REWARDS = ("score", "win", "shaped")
MAX_LEVEL = 8


@dataclass(frozen=True)
class CurlingEnvConfig:
    """Options of ``CurlingEnv`` (also the keys of RLlib's ``env_config``)."""

    server: Any = "auto"
    opponent: int | str = 2
    ends: int = 4
    key: str = "localtest"
    seed: int | None = None
    action: str = "continuous"
    reward: str = "score"
    sweep: bool = False
    turn_timeout: float = 120.0
    name: str = "rllib-curling"
    envs_per_worker: int = 1
    host: str = "127.0.0.1"
    log_dir: str | None = None
    shaping_scale: float = 0.5
    servers: tuple[str, ...] = field(default=(), repr=False)

    def __post_init__(self) -> None:
        if self.action not in ACTIONS:
            raise ConfigError(f"action must be one of {ACTIONS}, got {self.action!r}")
        if self.reward not in REWARDS:
            raise ConfigError(f"reward must be one of {REWARDS}, got {self.reward!r}")
        if self.opponent != "external" and (
            isinstance(self.opponent, bool)
            or not isinstance(self.opponent, int)
            or not 0 <= self.opponent <= MAX_LEVEL
        ):
            raise ConfigError(
                f"opponent must be a built-in level 0..{MAX_LEVEL} or 'external', "
                f"got {self.opponent!r}"
            )
        if not isinstance(self.ends, int) or (self.ends < 1 and self.ends != -1):
            raise ConfigError(f"ends must be a positive int or -1 (unlimited), got {self.ends!r}")
        if self.turn_timeout <= 0:
            raise ConfigError(f"turn_timeout must be > 0 seconds, got {self.turn_timeout!r}")
        if self.envs_per_worker < 1:
            raise ConfigError(f"envs_per_worker must be >= 1, got {self.envs_per_worker!r}")
        if ":" in self.key:
            raise ConfigError(
                f"key {self.key!r} must not contain ':' (the opponent level is added by the env)"
            )
        _parse_server(self.server)

    @classmethod
    def from_dict(cls, values: dict[str, Any] | None) -> CurlingEnvConfig:
        values = dict(values or {})
        values.pop("num_envs", None)  # added by RLlib's vector entry point
        valid = [f.name for f in dataclasses.fields(cls) if f.name != "servers"]
        unknown = sorted(set(values) - set(valid))
        if unknown:
            raise ConfigError(f"unknown env_config key(s) {unknown}; valid keys: {valid}")
        if isinstance(values.get("server"), list):
            values["server"] = tuple(values["server"])
        return cls(**values)

    @property
    def connect_key(self) -> str:
        """The CONNECTKEY: ``key`` plus ``:level`` for a built-in opponent."""
        return self.key if self.opponent == "external" else f"{self.key}:{self.opponent}"


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


def _parse_server(server: Any) -> list[tuple[str, int]] | None:
    """None for ``"auto"``, else the list of addresses."""
    if server == "auto":
        return None
    if isinstance(server, list | tuple):
        if not server:
            raise ConfigError("server list is empty")
        return [_parse_address(e) for e in server]
    return [_parse_address(server)]


class ServerAssigner:
    """Hands out entries of a server list per the rule in the module docstring."""

    _lock = threading.Lock()
    _taken: dict[tuple[tuple[str, int], ...], set[int]] = {}

    @classmethod
    def acquire(cls, config: CurlingEnvConfig, worker_index: int) -> tuple[tuple[str, int], Any]:
        """Return ((host, port), token) for this env instance; pass the token to ``release``."""
        entries = _parse_server(config.server)
        assert entries is not None, "auto servers are not assigned from a list"
        if len(entries) == 1:
            return entries[0], None
        key = tuple(entries)
        base = max(worker_index - 1, 0) * config.envs_per_worker
        with cls._lock:
            taken = cls._taken.setdefault(key, set())
            k = 0
            while base + k in taken:
                k += 1
            index = base + k
            if index >= len(entries):
                raise ConfigError(
                    f"server list has {len(entries)} entries but this env instance needs entry "
                    f"{index} (worker_index={worker_index}, envs_per_worker="
                    f"{config.envs_per_worker}, {k} already open here); list more servers"
                )
            taken.add(index)
        return entries[index], (key, index)

    @classmethod
    def release(cls, token: Any) -> None:
        if token is None:
            return
        key, index = token
        with cls._lock:
            cls._taken.get(key, set()).discard(index)
