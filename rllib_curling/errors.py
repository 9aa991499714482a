"""The package's one exception tree. Messages say what was received and what is allowed."""

from __future__ import annotations


class CurlingError(Exception):
    """Base class of every error raised by rllib_curling."""


class InvalidThrowError(CurlingError, ValueError):
    """A throw or a position has a non-finite value or the wrong shape."""


class RuleError(CurlingError, ValueError):
    """A game operation that the rules do not allow (e.g. stepping a finished game)."""


class ProtocolError(CurlingError, ValueError):
    """A message that does not follow protocol.md."""


class ConfigError(CurlingError, ValueError):
    """An unknown or invalid configuration key or value."""


class ConnectionLostError(CurlingError, ConnectionError):
    """The peer (server or client) went away or stopped answering."""


class ServerStartError(CurlingError, RuntimeError):
    """A server could not be started (for example, its port is in use)."""
