"""Shot templates: named throws ("draw button w+", "takeout opp 0 w-", ...) for a position.

A template turns a position into a throw ``(v, h, w, sweep)``, aiming with the free-path tables
(``tables.shot_tables()``). The env's discrete action set is this table (index = action), and
level 5 of the bots searches it; neither owns it, both read it here.

Each template comes with both curls (``w+`` curls toward +x, ``w-`` toward −x; |w| =
``TEMPLATE_SPIN``). "opp k" is the k-th nearest opponent stone in play to the tee (0 = nearest);
when it does not exist the template draws to the button instead.

| names                                          | what it does                                  |
|------------------------------------------------|-----------------------------------------------|
| draw button, draw 4ft front/back/left/right,   | draw to that point of the house               |
| draw 8ft front/left/right, draw 12ft front     |                                               |
| guard centre, long guard centre,               | stop in the free guard zone                   |
| corner guard left/right                        |                                               |
| takeout opp 0..3                               | hit opp k at ``TAKEOUT_SPEED`` (removes it,   |
|                                                | usually)                                      |
| tap opp 0..1                                   | a draw-weight hit that would stop             |
|                                                | ``TAP_DEPTH`` behind opp k, nudging it back   |

``TEMPLATE_NAMES[i]`` is the name of template ``i``; ``template_table()`` renders the whole
index → name → meaning table (the env's docstring shows it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from rllib_curling import sheet
from rllib_curling.aiming.tables import ShotTables

Throw = tuple[float, float, float, float]

TEMPLATE_SPIN = float(np.pi / 2)
TAKEOUT_SPEED = 4.5
#: A tap is thrown at the speed of a draw stopping this far (m) behind its target.
TAP_DEPTH = 1.0


@dataclass(frozen=True)
class Template:
    """One template: a name, what it does, and how to turn a position into a throw."""

    name: str
    meaning: str
    make: Callable[[np.ndarray, int, ShotTables], Throw]


def _draw(x: float, y: float, w: float) -> Callable[[np.ndarray, int, ShotTables], Throw]:
    def make(position: np.ndarray, my_parity: int, tables: ShotTables) -> Throw:
        return (*tables.draw(x, y, w), 0.0)

    return make


def opponent_stones(position: np.ndarray, my_parity: int) -> np.ndarray:
    """Opponent stones in play, nearest to the tee first: (k, 2)."""
    rows = np.arange(sheet.STONES_PER_END) % 2 != my_parity
    on = np.any(position != 0.0, axis=1)
    stones = position[rows & on]
    order = np.argsort(np.hypot(stones[:, 0] - sheet.TEE_X, stones[:, 1] - sheet.TEE_Y))
    return stones[order]


def _hit(rank: int, w: float, tap: bool) -> Callable[[np.ndarray, int, ShotTables], Throw]:
    def make(position: np.ndarray, my_parity: int, tables: ShotTables) -> Throw:
        targets = opponent_stones(position, my_parity)
        if rank >= len(targets):
            return (*tables.draw(sheet.TEE_X, sheet.TEE_Y, w), 0.0)
        x, y = targets[rank]
        v = tables.draw_speed(y - TAP_DEPTH, w) if tap else TAKEOUT_SPEED
        return (*tables.hit(float(x), float(y), v, w), 0.0)

    return make


_POINTS = {
    "button": (sheet.TEE_X, sheet.TEE_Y),
    "4ft front": (sheet.TEE_X, sheet.TEE_Y + 0.6),
    "4ft back": (sheet.TEE_X, sheet.TEE_Y - 0.6),
    "4ft left": (sheet.TEE_X - 0.6, sheet.TEE_Y),
    "4ft right": (sheet.TEE_X + 0.6, sheet.TEE_Y),
    "8ft front": (sheet.TEE_X, sheet.TEE_Y + 1.2),
    "8ft left": (sheet.TEE_X - 1.2, sheet.TEE_Y),
    "8ft right": (sheet.TEE_X + 1.2, sheet.TEE_Y),
    "12ft front": (sheet.TEE_X, sheet.TEE_Y + 1.75),
}
_GUARDS = {
    "guard centre": (sheet.TEE_X, 7.6),
    "long guard centre": (sheet.TEE_X, 9.2),
    "corner guard left": (sheet.TEE_X - 0.85, 7.4),
    "corner guard right": (sheet.TEE_X + 0.85, 7.4),
}


def _build_templates() -> tuple[Template, ...]:
    out: list[Template] = []
    for spin_name, w in (("w+", TEMPLATE_SPIN), ("w-", -TEMPLATE_SPIN)):
        for name, (x, y) in {**_POINTS, **_GUARDS}.items():
            label = name if name in _GUARDS else f"draw {name}"
            where = f"({x:.3f}, {y:.3f})"
            meaning = (
                f"stop in the free guard zone at {where}"
                if name in _GUARDS
                else (f"draw to {where}")
            )
            out.append(Template(f"{label} {spin_name}", meaning, _draw(x, y, w)))
        for k in range(4):
            meaning = f"hit opponent stone {k} (k-th nearest the tee) at {TAKEOUT_SPEED} m/s"
            out.append(Template(f"takeout opp {k} {spin_name}", meaning, _hit(k, w, tap=False)))
        for k in range(2):
            meaning = f"tap opponent stone {k} about {TAP_DEPTH} m back (draw weight)"
            out.append(Template(f"tap opp {k} {spin_name}", meaning, _hit(k, w, tap=True)))
    return tuple(out)


TEMPLATES: tuple[Template, ...] = _build_templates()
TEMPLATE_NAMES: tuple[str, ...] = tuple(t.name for t in TEMPLATES)


def template_throw(index: int, position: np.ndarray, my_parity: int, tables: ShotTables) -> Throw:
    """The throw of template ``index`` for ``position`` (throwing-order rows) and the thrower
    owning the rows of ``my_parity``; ``ValueError`` for an index outside the table."""
    if not 0 <= int(index) < len(TEMPLATES):
        raise ValueError(f"template index {index!r} is not in 0..{len(TEMPLATES) - 1}")
    pos = np.asarray(position, dtype=np.float64).reshape(sheet.STONES_PER_END, 2)
    return TEMPLATES[int(index)].make(pos, my_parity, tables)


def template_table() -> str:
    """The templates as a Markdown table: index, name, what it does (one row per template)."""
    lines = ["| index | name | what it does |", "|---|---|---|"]
    spin = f"curl toward {{}} (w = {{}}{TEMPLATE_SPIN:.3f} rad/s)"
    for i, t in enumerate(TEMPLATES):
        curl = spin.format("+x", "+") if t.name.endswith("w+") else spin.format("-x", "-")
        lines.append(f"| {i} | {t.name} | {t.meaning}; {curl} |")
    return "\n".join(lines)
