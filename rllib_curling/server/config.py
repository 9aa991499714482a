"""``ServerConfig``: the typed options of ``curling server``, and the platform's ``config.ini``.

The course platform's stand-alone server reads ``conf/config.ini``::

    [ROOT]
    HttpPort=9007
    TcpPort=7788

``read_platform_ini(path)`` returns those two ports; ``curling server --config conf/config.ini``
listens on ``TcpPort`` and serves the page that shows the games (``server.web``) on ``HttpPort``
(explicit flags win).
"""

from __future__ import annotations

import configparser
import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rllib_curling.bots.levels import LEVELS, is_level
from rllib_curling.errors import ConfigError, refuse_unknown_keys
from rllib_curling.game import BLANK_END_CHOICES, DEFAULT_ENDS, check_ends
from rllib_curling.protocol.defaults import DEFAULT_TCP_PORT, SWEEP_WINDOW_S, TURN_TIMEOUT_S

#: Matches played at once by default (at least one per port: every room can play its game).
DEFAULT_MAX_MATCHES = 16


@dataclass(frozen=True)
class ServerConfig:
    """Options of the curling server (the flags of ``curling server``, in seconds, not ms).

    | field              | meaning                                                              |
    |--------------------|----------------------------------------------------------------------|
    | host, tcp_port     | where to listen; port 0 = the OS picks one (see the handle's address) |
    | ports              | how many ports (rooms) to listen on: ``tcp_port`` and the next ones,  |
    |                    | or as many free ports with ``tcp_port`` 0; room i is a server of its  |
    |                    | own (lobby, match numbering, seed + i) in this one process           |
    | http_port          | the page that shows the games (``server.web``): None = no page (no   |
    |                    | port, no cost), 0 = a free port, else that port, on ``host``          |
    | ends               | ends per game: a positive int (4 四局制, 8) or -1 (无限局制)           |
    | games              | games per pair on the same connections; 0 = until stopped             |
    | seed               | base seed; game g of match m uses default_rng([seed, m, g]); None =   |
    |                    | a fresh random seed (logged and written to the records)              |
    | log_dir            | directory of the JSONL game records (None: no records)               |
    | turn_timeout       | seconds from GO to BESTSHOT; then the stone is lost (out of play)     |
    | compat_gap         | seconds between consecutive messages to every client                  |
    | legacy_gap         | the same for legacy clients (no CONNECTKEY: 2020-era clients that     |
    |                    | read one message per recv), whatever ``compat_gap`` says             |
    | keys               | accepted connection keys (without ``:N``); empty = any key            |
    | opponent           | built-in bot level seated against clients whose key has no ``:N``    |
    | bot_seat           | the built-in bot's seat in game 1: 1 = Player2 (the client throws     |
    |                    | first, as on the platform), 0 = Player1 (the client has the hammer)  |
    | sweep_window       | seconds to wait for SWEEP after MOTIONINFO (0 = do not wait); the     |
    |                    | wait ends as soon as the SWEEP comes (``SWEEP 0`` = no sweeping).    |
    |                    | Per connection: the first MOTIONINFO of the session waits, later ones |
    |                    | only once the client has sent a SWEEP (in time or late), so a client |
    |                    | that never sweeps waits once, not once per stone                     |
    |                    | (``RemotePlayer.sweep_window``; docs/protocol_notes.md)              |
    | blank_end          | "swap" (course template) or "keep" the order after a 0-0 end          |
    | ready_timeout      | seconds a seated client has to answer ISREADY (sent on seating) with  |
    |                    | READYOK; then it gets ``Error …`` and is closed                      |
    | legacy_wait        | seconds to wait for CONNECTKEY before seating a legacy client         |
    | centerline_timeout | seconds to wait for CENTERLINE_CHOICE (then KEEP)                     |
    | forfeit_after      | lost turns in a row (no BESTSHOT in time) that forfeit the game and   |
    |                    | end the match (the seat is closed); 0 = never                        |
    | max_matches        | matches played at once (bot games, and the one two-client match);     |
    |                    | a client beyond that waits ``SEAT_WAIT_S``, then gets ``Error …``;   |
    |                    | None = ``DEFAULT_MAX_MATCHES`` or ``ports`` if more (a game per room) |
    """

    host: str = "127.0.0.1"
    tcp_port: int = DEFAULT_TCP_PORT
    ports: int = 1
    http_port: int | None = None
    ends: int = DEFAULT_ENDS
    games: int = 1
    seed: int | None = None
    log_dir: str | None = None
    turn_timeout: float = TURN_TIMEOUT_S
    compat_gap: float = 0.0
    legacy_gap: float = 0.05
    keys: tuple[str, ...] = ()
    opponent: int | None = None
    bot_seat: int = 1
    sweep_window: float = SWEEP_WINDOW_S
    blank_end: str = "swap"
    ready_timeout: float = 15.0
    legacy_wait: float = 1.0
    centerline_timeout: float = 5.0
    forfeit_after: int = 3
    max_matches: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "keys", tuple(str(k) for k in self.keys))
        if self.max_matches is None and isinstance(self.ports, int):
            object.__setattr__(self, "max_matches", max(DEFAULT_MAX_MATCHES, self.ports))
        if not isinstance(self.tcp_port, int) or not 0 <= self.tcp_port < 65536:
            raise ConfigError(f"tcp_port must be an int in 0..65535, got {self.tcp_port!r}")
        if not isinstance(self.ports, int) or isinstance(self.ports, bool) or self.ports < 1:
            raise ConfigError(f"ports must be an int >= 1, got {self.ports!r}")
        if self.tcp_port and self.tcp_port + self.ports - 1 > 65535:
            raise ConfigError(
                f"ports {self.tcp_port}..{self.tcp_port + self.ports - 1} go beyond 65535"
            )
        if self.http_port is not None and not 0 <= self.http_port < 65536:
            raise ConfigError(f"http_port must be in 0..65535, got {self.http_port!r}")
        check_ends(self.ends)
        if not isinstance(self.games, int) or self.games < 0:
            raise ConfigError(f"games must be an int >= 0 (0 = until stopped), got {self.games!r}")
        if self.opponent is not None and not is_level(self.opponent):
            raise ConfigError(f"opponent must be a level in {list(LEVELS)}, got {self.opponent!r}")
        if self.blank_end not in BLANK_END_CHOICES:
            raise ConfigError(
                f"blank_end must be one of {BLANK_END_CHOICES}, got {self.blank_end!r}"
            )
        for name in ("turn_timeout", "ready_timeout", "centerline_timeout"):
            if not getattr(self, name) > 0:
                raise ConfigError(f"{name} must be > 0 seconds, got {getattr(self, name)!r}")
        if self.bot_seat not in (0, 1):
            raise ConfigError(f"bot_seat must be 0 (Player1) or 1 (Player2), got {self.bot_seat!r}")
        for name in ("compat_gap", "legacy_gap", "sweep_window", "legacy_wait"):
            if not getattr(self, name) >= 0:
                raise ConfigError(f"{name} must be >= 0 seconds, got {getattr(self, name)!r}")
        if not isinstance(self.forfeit_after, int) or self.forfeit_after < 0:
            raise ConfigError(
                f"forfeit_after must be an int >= 0 (0 = never), got {self.forfeit_after!r}"
            )
        if not isinstance(self.max_matches, int) or self.max_matches < 1:
            raise ConfigError(f"max_matches must be an int >= 1, got {self.max_matches!r}")
        if any(not k or ":" in k or "\0" in k for k in self.keys):
            raise ConfigError(f"keys must be non-empty and hold no ':' or NUL, got {self.keys!r}")

    @classmethod
    def from_dict(cls, values: dict[str, Any] | None) -> ServerConfig:
        """Build from a dict; an unknown key fails at once with the list of valid keys."""
        values = dict(values or {})
        refuse_unknown_keys(values, [f.name for f in dataclasses.fields(cls)], "ServerConfig")
        if "keys" in values:
            values["keys"] = tuple(values["keys"])
        return cls(**values)

    def replace(self, **changes: Any) -> ServerConfig:
        """A copy with some fields changed (validated again)."""
        return dataclasses.replace(self, **changes)

    def as_dict(self) -> dict[str, Any]:
        """Plain dict of the fields (for the records' header line)."""
        out = dataclasses.asdict(self)
        out["keys"] = ["*" * len(k) for k in self.keys]  # do not write keys into logs
        return out


def read_platform_ini(path: str | Path) -> tuple[int | None, int | None]:
    """``(TcpPort, HttpPort)`` from the platform's ``conf/config.ini`` (None where absent).

    Section and key names are matched case-insensitively; the file may be UTF-8 (with or without
    BOM) or GBK, as Windows editors save it. Raises ``ConfigError`` naming the file on any problem.
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read the server config {path}: {exc.strerror}") from None
    for encoding in ("utf-8-sig", "gbk"):
        try:
            text = raw.decode(encoding)
            break
        except UnicodeDecodeError:
            continue
    else:
        raise ConfigError(f"{path} is neither UTF-8 nor GBK text")
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text, source=str(path))
    except configparser.Error as exc:
        raise ConfigError(f"{path} is not an ini file: {exc}") from None
    section = next((s for s in parser.sections() if s.upper() == "ROOT"), None)
    if section is None:
        raise ConfigError(f"{path} has no [ROOT] section (sections: {parser.sections()})")
    return _port(parser, section, "TcpPort", path), _port(parser, section, "HttpPort", path)


def _port(parser: configparser.ConfigParser, section: str, key: str, path: Path) -> int | None:
    value = parser.get(section, key, fallback=None)  # option names are case-insensitive
    if value is None or not value.strip():
        return None
    text = value.strip()
    if not text.isdigit() or not 0 <= int(text) < 65536:
        raise ConfigError(f"{path}: [ROOT] {key} = {text!r} is not a port number 0..65535")
    return int(text)
