"""HTTP Basic authentication as DC4 uses it on every call but the viewer's stream (RFC 7617;
DC4's server: FastAPI's ``HTTPBasic`` and ``src/authentication/basic_authentication.py``).

- ``build_authorization(user, password)``: the ``Authorization`` header's value for a client.
- ``parse_authorization(value)``: the ``Credentials`` in a received header, or ``Unauthorized``
  (401, ``WWW-Authenticate: Basic``) with FastAPI's details: ``NOT_AUTHENTICATED`` when there is
  no header or another scheme, ``INVALID_CREDENTIALS`` when the token is not base64 of
  ``user:password``.
- ``authenticate(credentials, passwords)``: the user name, or 401 ``INVALID_USERNAME`` /
  ``INVALID_PASSWORD`` as DC4's server answers (a comparison in constant time).
  ``INVALID_MATCH_DATA`` is the server's answer to a user bound to no side of the match.

User names and passwords are UTF-8 (aiohttp, which dc4client uses, sends Latin-1 by default:
the same bytes for ASCII). A user name may not contain ``:``.
"""

from __future__ import annotations

import base64
import binascii
import hmac
from collections.abc import Mapping
from dataclasses import dataclass

from rllib_curling.dc_protocol.refusals import (
    INVALID_CREDENTIALS,
    INVALID_MATCH_DATA,
    INVALID_PASSWORD,
    INVALID_USERNAME,
    NOT_AUTHENTICATED,
    WWW_AUTHENTICATE,
    Unauthorized,
)

__all__ = [
    "INVALID_CREDENTIALS", "INVALID_MATCH_DATA", "INVALID_PASSWORD", "INVALID_USERNAME",
    "NOT_AUTHENTICATED", "SCHEME", "WWW_AUTHENTICATE", "Credentials", "Unauthorized",
    "authenticate", "build_authorization", "parse_authorization",
]  # fmt: skip

SCHEME = "Basic"


@dataclass(frozen=True)
class Credentials:
    username: str
    password: str

    def __repr__(self) -> str:  # keep passwords out of logs
        return f"Credentials(username={self.username!r}, password=***)"


def build_authorization(username: str, password: str) -> str:
    """``Basic <base64 of user:password>``."""
    if ":" in username:
        raise ValueError(f"user name {username!r} contains ':'; not allowed in basic auth")
    token = base64.b64encode(f"{username}:{password}".encode()).decode("ascii")
    return f"{SCHEME} {token}"


def parse_authorization(value: str | None) -> Credentials:
    """The credentials of an ``Authorization`` header value (None: no header)."""
    scheme, _, token = (value or "").strip().partition(" ")
    if scheme.lower() != SCHEME.lower():
        raise Unauthorized(NOT_AUTHENTICATED)
    try:
        raw = base64.b64decode(token.strip(), validate=True)
        text = raw.decode("utf-8")
    except (binascii.Error, UnicodeDecodeError) as err:
        raise Unauthorized(INVALID_CREDENTIALS) from err
    username, colon, password = text.partition(":")
    if not colon:
        raise Unauthorized(INVALID_CREDENTIALS)
    return Credentials(username, password)


def authenticate(credentials: Credentials, passwords: Mapping[str, str]) -> str:
    """The user name when ``passwords[user]`` is the password, else DC4's 401."""
    expected = passwords.get(credentials.username)
    if expected is None:
        raise Unauthorized(INVALID_USERNAME)
    if not hmac.compare_digest(expected.encode(), credentials.password.encode()):
        raise Unauthorized(INVALID_PASSWORD)
    return credentials.username
