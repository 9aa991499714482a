"""The package's one exception tree. Messages say what was received and what is allowed."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class CurlingError(Exception):
    """Base class of every error raised by rllib_curling."""


class InvalidThrowError(CurlingError, ValueError):
    """A throw or a position has a non-finite value or the wrong shape."""


class RuleError(CurlingError, ValueError):
    """A game operation that the rules do not allow (e.g. stepping a finished game)."""


class ProtocolError(CurlingError, ValueError):
    """A message that does not follow protocol.md. ``keyword``: the message's keyword when it
    was recognised (e.g. ``"BESTSHOT"`` for a BESTSHOT with bad numbers), else None."""

    def __init__(self, message: str, keyword: str | None = None) -> None:
        super().__init__(message)
        self.keyword = keyword


class ConfigError(CurlingError, ValueError):
    """An unknown or invalid configuration key or value."""


class ConnectionLostError(CurlingError, ConnectionError):
    """The peer (server or client) went away or stopped answering."""


class ServerStartError(CurlingError, RuntimeError):
    """A server could not be started (for example, its port is in use)."""


class PeerTimeoutError(ConnectionLostError):
    """The peer sent nothing for ``seconds``: unlike a closed connection, it may be alive but
    hung (the env kills its private server then)."""

    def __init__(self, message: str, seconds: float) -> None:
        super().__init__(message)
        self.seconds = seconds

    def __reduce__(self) -> tuple[type, tuple[str, float]]:  # pickles across Ray workers
        return type(self), (str(self), self.seconds)


class InvalidActionError(CurlingError, ValueError):
    """An env action that does not fit the action space (wrong shape or type, NaN, out of range)."""


def did_you_mean(key: object, valid: Iterable[object]) -> str:
    """`` (did you mean 'x'?)`` with the valid key closest to ``key``, or "" when none is close."""
    close = difflib.get_close_matches(str(key), [str(v) for v in valid], n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def refuse_unknown_keys(
    given: Iterable[object], valid: Iterable[object], what: str = "", where: str = ""
) -> None:
    """``ConfigError`` when a key of ``given`` is not in ``valid``: the unknown key(s), the
    closest valid one for a single key, and the valid keys. ``what`` names the mapping
    (``"env_config"``), ``where`` what it is part of (a file and an entry)."""
    known = list(valid)
    unknown = sorted((key for key in given if key not in known), key=str)
    if not unknown:
        return
    name = f"{what} " if what else ""
    if len(unknown) == 1:
        found = f"unknown {name}key {unknown[0]!r}{did_you_mean(unknown[0], known)}"
    else:
        found = f"unknown {name}keys {unknown}"
    head = f"{where}: " if where else ""
    raise ConfigError(f"{head}{found}; valid keys: {sorted(map(str, known))}")


def shown(text: str, limit: int = 120) -> str:
    """``text`` quoted for an error message (``repr``), cut after ``limit`` characters."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f"… ({len(text)} chars)"
