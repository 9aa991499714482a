"""Reading typed fields out of parsed JSON, collecting pydantic-style issues (refusals.py).

One reader serves both protocols: DC4's request bodies (a refusal answers 422 with every issue,
as DC4's FastAPI server does) and DC3's messages (``dc3.decode`` turns the issues into one
``ProtocolError``). Usage::

    root = Node.root(obj, ("body",))
    speed = root["translational_velocity"].number()
    player3 = root["player3"]            # a child; nothing is recorded until it is read
    if player3.present: ...
    root.done()                          # raises InvalidFields with every issue, in order

A failed read records an issue and returns a placeholder (0, "", False), so a caller reads every
field first and calls ``done()`` before building anything. Children of a value that is not an
object record one issue (at that value) and read as placeholders without more issues.

Lax like pydantic's defaults: a number may come as a numeric string, an integer as ``10.0``, a
boolean as ``0``/``1``/``"true"``/``"no"``…; a string must be a string. Unlike pydantic, numbers
must be finite (JSON has no NaN; Python's ``json`` reads ``NaN`` and ``Infinity`` anyway).
"""

from __future__ import annotations

import math
from typing import Final, cast

from rllib_curling.dc_protocol.refusals import FieldIssue, InvalidFields, JsonObject, JsonValue, Loc


class _Sentinel:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


#: A key that is not there.
MISSING: Final = _Sentinel("MISSING")
#: A child of a value that is not an object: already reported, reads as placeholders.
_SILENT: Final = _Sentinel("SILENT")

_TRUE = frozenset({"1", "on", "t", "true", "y", "yes"})
_FALSE = frozenset({"0", "off", "f", "false", "n", "no"})


def quoted_choices(choices: tuple[str, ...]) -> str:
    """``'a', 'b' or 'c'`` (pydantic's wording of an enum)."""
    quoted = [f"'{c}'" for c in choices]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + f" or {quoted[-1]}"


class Node:
    """One value of a parsed JSON document, its location, and the issues list it shares."""

    def __init__(
        self, value: object, loc: Loc, issues: list[FieldIssue], parent: object = None
    ) -> None:
        self.value = value
        self.loc = loc
        self.issues = issues
        self._parent = parent  # the object a missing key is missing from
        self._reported = False

    @classmethod
    def root(cls, value: object, loc: Loc = ()) -> Node:
        return cls(value, loc, [])

    @property
    def present(self) -> bool:
        """The key is there and not null (a silent child counts as absent)."""
        return self.value is not MISSING and self.value is not None and self.value is not _SILENT

    def done(self) -> None:
        """Raise ``InvalidFields`` with every issue recorded so far (in the shared list)."""
        if self.issues:
            raise InvalidFields(self.issues)

    def fail(self, type_: str, msg: str) -> None:
        """Record an issue at this value (unless it is a silent child)."""
        if self.value is _SILENT or self._reported:
            return
        self._reported = True
        if self.value is MISSING:
            self.issues.append(
                FieldIssue("missing", self.loc, "Field required", _json(self._parent))
            )
        else:
            self.issues.append(FieldIssue(type_, self.loc, msg, _json(self.value)))

    def __getitem__(self, key: str) -> Node:
        if isinstance(self.value, dict):
            return Node(self.value.get(key, MISSING), (*self.loc, key), self.issues, self.value)
        self.fail("model_attributes_type", "Input should be a valid dictionary or object")
        return Node(_SILENT, (*self.loc, key), self.issues)

    def is_object(self) -> bool:
        """Whether the value is an object; records an issue when it is not."""
        if isinstance(self.value, dict):
            return True
        self.fail("model_attributes_type", "Input should be a valid dictionary or object")
        return False

    def json_object(self) -> JsonObject:
        """The object itself, as JSON data (an issue and ``{}`` when it is not an object)."""
        if self.is_object():
            return cast(JsonObject, self.value)
        return {}

    def items(self, length: int | None = None) -> list[Node]:
        """The elements of a list (``length``: exactly that many, else an issue)."""
        if not isinstance(self.value, list):
            self.fail("list_type", "Input should be a valid list")
            return [Node(_SILENT, (*self.loc, k), self.issues) for k in range(length or 0)]
        if length is not None and len(self.value) != length:
            self.fail(
                "list_length", f"List should have exactly {length} items, not {len(self.value)}"
            )
        return [Node(v, (*self.loc, k), self.issues) for k, v in enumerate(self.value)]

    def number(self) -> float:
        """A finite float (an int, a float or a numeric string; not a boolean)."""
        value = self.value
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            self.fail("float_type", "Input should be a valid number")
            return 0.0
        if isinstance(value, str):
            try:
                value = float(value.strip())
            except ValueError:
                self.fail(
                    "float_parsing",
                    "Input should be a valid number, unable to parse string as a number",
                )
                return 0.0
        number = float(value)
        if not math.isfinite(number):
            self.fail("finite_number", "Input should be a finite number")
            return 0.0
        return number

    def integer(self, lo: int | None = None, hi: int | None = None) -> int:
        """An int (``10``, ``10.0``, ``"10"``), within ``[lo, hi]`` when given."""
        value = self.value
        result: int | None = None
        if isinstance(value, int) and not isinstance(value, bool):
            result = value
        elif isinstance(value, float) and math.isfinite(value):
            if value.is_integer():
                result = int(value)
            else:
                self.fail(
                    "int_from_float",
                    "Input should be a valid integer, got a number with a fractional part",
                )
                return lo or 0
        elif isinstance(value, str):
            text = value.strip()
            if text.lstrip("+-").isdigit():
                result = int(text)
            else:
                self.fail(
                    "int_parsing",
                    "Input should be a valid integer, unable to parse string as an integer",
                )
                return lo or 0
        if result is None:
            self.fail("int_type", "Input should be a valid integer")
            return lo or 0
        if lo is not None and result < lo:
            self.fail("greater_than_equal", f"Input should be greater than or equal to {lo}")
            return lo  # a placeholder within range
        if hi is not None and result > hi:
            self.fail("less_than_equal", f"Input should be less than or equal to {hi}")
            return hi
        return result

    def boolean(self) -> bool:
        value = self.value
        if isinstance(value, bool):
            return value
        if isinstance(value, int | float) and value in (0, 1):
            return bool(value)
        if isinstance(value, str):
            text = value.strip().lower()
            if text in _TRUE or text in _FALSE:
                return text in _TRUE
            self.fail("bool_parsing", "Input should be a valid boolean, unable to interpret input")
            return False
        self.fail("bool_type", "Input should be a valid boolean")
        return False

    def text(self) -> str:
        if isinstance(self.value, str):
            return self.value
        self.fail("string_type", "Input should be a valid string")
        return ""

    def choice(self, choices: tuple[str, ...]) -> str:
        """One of ``choices`` (an enum of strings)."""
        if isinstance(self.value, str) and self.value in choices:
            return self.value
        self.fail("enum", f"Input should be {quoted_choices(choices)}")
        return choices[0]

    def maybe_number(self) -> float | None:
        return self.number() if self.present else None

    def maybe_integer(self, lo: int | None = None, hi: int | None = None) -> int | None:
        return self.integer(lo, hi) if self.present else None

    def maybe_text(self) -> str | None:
        return self.text() if self.present else None

    def maybe_choice(self, choices: tuple[str, ...]) -> str | None:
        return self.choice(choices) if self.present else None


def _json(value: object) -> JsonValue:
    """``value`` when it is JSON data (it is, out of json.loads), else its repr."""
    if value is None or isinstance(value, bool | int | float | str | list | dict):
        return value  # json.loads gives JSON data (the containers hold JSON values)
    return repr(value)
