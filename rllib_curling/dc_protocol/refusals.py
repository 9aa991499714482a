"""HTTP refusals of the DC4 API as data: the status, the JSON body and the headers an answer
carries, and the details DC4's official server writes (``DigitalCurling4-Server``, FastAPI).

Every refusal is a ``ProtocolError`` (errors.py), so wire input that fails to parse raises the
package's one exception class; an HTTP shell answers ``err.status`` with ``err.body()`` and
``err.headers``.

| class             | status | body                                        | raised by            |
|-------------------|--------|---------------------------------------------|----------------------|
| ``InvalidFields`` | 422    | ``{"detail": [issue, …]}``, pydantic-style  | ``fields.Node``      |
| ``BadRequest``    | 400    | ``{"detail": "…"}``                         | dc4's rule checks    |
| ``Unauthorized``  | 401    | ``{"detail": "…"}``, ``WWW-Authenticate``   | ``basic_auth``       |
| ``NotFound``      | 404    | ``{"detail": "…"}``                         | unknown simulator    |
| ``Conflict``      | 409    | ``{"detail": "…"}``                         | a server's turn check |

A pydantic-style issue is ``{"type", "loc", "msg", "input"}``: ``loc`` starts with ``"body"`` or
``"query"``, then the keys and list indices down to the value; ``msg`` says what is allowed and
``input`` is what came (for a missing key: the object it is missing from).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, TypeAlias

from rllib_curling.errors import ProtocolError

#: A JSON value as ``json.loads`` returns it.
JsonValue: TypeAlias = "None | bool | int | float | str | list[JsonValue] | dict[str, JsonValue]"
JsonObject: TypeAlias = "dict[str, JsonValue]"
Loc: TypeAlias = tuple[str | int, ...]

# The details DC4's official server answers (read in src/authentication, src/routers/match.py).
#: 401 when the basic-auth user is unknown.
INVALID_USERNAME = "Invalid username"
#: 401 when the basic-auth password is wrong.
INVALID_PASSWORD = "Invalid password"
#: 401 when the user is bound to no side of the match (stream, shots of a stranger).
INVALID_MATCH_DATA = "Invalid match data"
#: 401 from FastAPI's HTTPBasic: no ``Authorization`` header, or not the Basic scheme.
NOT_AUTHENTICATED = "Not authenticated"
#: 401 from FastAPI's HTTPBasic: Basic, but not base64 of ``user:password``.
INVALID_CREDENTIALS = "Invalid authentication credentials"
#: 409 on a shot of the team not on turn.
NOT_YOUR_TURN = "Not your turn."
#: 409 on a shot after the game.
MATCH_FINISHED = "Match already finished."
#: 409 on store-team-config by a third user once both sides are taken.
MATCH_STARTED = "This match has already started."
#: 409 on a mixed-doubles shot before the end's setup.
END_SETUP_REQUIRED = "End setup required."
#: 404 on a match id the server does not know.
MATCH_NOT_FOUND = "Match or state not found."
#: 404 on ``simulator.simulator_name`` other than the known simulators.
SIMULATOR_NOT_FOUND = "Simulator not found."

#: The header every 401 carries.
WWW_AUTHENTICATE = ("WWW-Authenticate", "Basic")


@dataclass(frozen=True)
class FieldIssue:
    """One pydantic-style validation issue (see the module docstring)."""

    type: str
    loc: Loc
    msg: str
    input: JsonValue

    def to_json(self) -> JsonObject:
        return {"type": self.type, "loc": list(self.loc), "msg": self.msg, "input": self.input}

    def describe(self) -> str:
        """``body.player1.max_velocity: Input should be a valid number (got 'fast')``."""
        where = ".".join(str(part) for part in self.loc) or "(top level)"
        got = _show(self.input)
        return (
            f"{where}: {self.msg} (got {got})" if self.type != "missing" else f"{where}: {self.msg}"
        )


def _show(value: object, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + f"… ({len(text)} chars)"


class HttpRefusal(ProtocolError):
    """A refused request: ``status``, the JSON ``body()`` and ``headers`` of the answer."""

    STATUS: ClassVar[int] = 400

    def __init__(self, detail: str, headers: Sequence[tuple[str, str]] = ()) -> None:
        super().__init__(detail)
        self.detail = detail
        self.headers: tuple[tuple[str, str], ...] = tuple(headers)

    @property
    def status(self) -> int:
        return self.STATUS

    def body(self) -> JsonObject:
        return {"detail": self.detail}


class BadRequest(HttpRefusal):
    """400: the body parsed but breaks a rule of the match (``'Standard game mode …'``)."""

    STATUS: ClassVar[int] = 400


class Unauthorized(HttpRefusal):
    """401 with ``WWW-Authenticate: Basic`` (details: the ``INVALID_*`` constants)."""

    STATUS: ClassVar[int] = 401

    def __init__(self, detail: str) -> None:
        super().__init__(detail, headers=(WWW_AUTHENTICATE,))


class NotFound(HttpRefusal):
    """404: an unknown match or simulator."""

    STATUS: ClassVar[int] = 404


class Conflict(HttpRefusal):
    """409: not this team's turn, the game is over, the match has started."""

    STATUS: ClassVar[int] = 409


class InvalidFields(HttpRefusal):
    """422: the body or the query does not have the fields' types (``issues``, in order)."""

    STATUS: ClassVar[int] = 422

    def __init__(self, issues: Sequence[FieldIssue]) -> None:
        self.issues: tuple[FieldIssue, ...] = tuple(issues)
        super().__init__("; ".join(issue.describe() for issue in self.issues))

    def body(self) -> JsonObject:
        return {"detail": [issue.to_json() for issue in self.issues]}
