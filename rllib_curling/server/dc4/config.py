"""``DC4ServerConfig``: the options of ``curling server --protocol dc4``, and ``read_users``.

| field         | meaning                                                                    |
|---------------|----------------------------------------------------------------------------|
| host          | address to listen on; a loopback address (default) accepts any basic-auth  |
|               | user and password, any other needs ``users``                               |
| port          | HTTP port (DC4's clients default to ``DEFAULT_PORT``); 0 = a free one      |
| users         | user name → password (``read_users``), or None: any user (loopback only)   |
| seed          | base seed of the noise (None: a random one, written to the records)        |
| log_dir       | JSONL records (``server.records.GameRecorder``); None: none               |
| ping_interval | seconds of silence after which a stream gets ``: ping``                    |
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from rllib_curling.dc_protocol.sse import DC4CLIENT_READ_TIMEOUT, PING_INTERVAL
from rllib_curling.errors import ConfigError

#: The port dc4client's examples connect to (``set_server_address("localhost", 5000)``).
DEFAULT_PORT = 5000


def is_loopback(host: str) -> bool:
    """Whether ``host`` only listens on this machine (127.0.0.0/8, ::1, ``localhost``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def read_users(path: str | Path) -> dict[str, str]:
    """``user:password`` lines (blank lines and ``#`` comments skipped); ``ConfigError`` naming
    the file and line of a bad one."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read the users file {path}: {exc}") from None
    users: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        user, colon, password = line.partition(":")
        if not colon or not user:
            raise ConfigError(f"{path}:{number}: expected user:password, got {line[:40]!r}")
        if user in users:
            raise ConfigError(f"{path}:{number}: user {user!r} appears twice")
        users[user] = password
    if not users:
        raise ConfigError(f"the users file {path} holds no user:password line")
    return users


@dataclass(frozen=True)
class DC4ServerConfig:
    """The DC4 server's options (module docstring)."""

    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    users: Mapping[str, str] | None = None
    seed: int | None = None
    log_dir: str | None = None
    ping_interval: float = PING_INTERVAL

    def __post_init__(self) -> None:
        if not isinstance(self.port, int) or not 0 <= self.port <= 65535:
            raise ConfigError(f"port must be 0..65535, got {self.port!r}")
        if not 0 < self.ping_interval < DC4CLIENT_READ_TIMEOUT:
            raise ConfigError(
                f"ping_interval must be in (0, {DC4CLIENT_READ_TIMEOUT:g}) s (dc4client drops "
                f"a silent stream after {DC4CLIENT_READ_TIMEOUT:g} s), got {self.ping_interval!r}"
            )
        if self.users is None and not is_loopback(self.host):
            raise ConfigError(
                f"--host {self.host} needs --users FILE (user:password lines): only a loopback "
                "address accepts any user"
            )
