"""Shot templates: named throws ("draw button w+", "freeze opp 0 w-", ...) for a position.

A template turns a position into a throw ``(v, h, w, sweep)``, aiming with the free-path tables
(``tables.shot_tables()``). The env's discrete action set is ``TEMPLATES`` (index = action);
level 5 of the bots searches ``BASIC_TEMPLATES``, the first 38 (the set it was tuned on, which
keeps the bot ladder unchanged). Neither owns the table; both read it here.

Most templates come with both curls (``w+`` curls toward +x, ``w-`` toward −x; |w| =
``TEMPLATE_SPIN``, come-arounds ``COME_AROUND_SPIN``). Targets, each nearest the tee first
(k = 0 is the nearest): "opp k" / "own k" are the opponent's / the thrower's stones in play,
"guard k" the stones of either side in the free guard zone (``rules.in_free_guard_zone``).
Whenever a template's target does not exist it draws to the button instead (the fallback).
Sweep is always 0: the env sends a sweep only with ``sweep=True``, so a template that needed
one would land elsewhere with ``sweep=False``, and the tables know only unswept paths.

| names                                     | what it does (fallback: draw to the button)       |
|-------------------------------------------|---------------------------------------------------|
| draw button, draw 4ft front/back/left/    | draw to that point of the house (no fallback)     |
| right, draw 8ft front/left/right,         |                                                   |
| draw 12ft front                           |                                                   |
| guard centre, long guard centre,          | stop in the free guard zone (no fallback)         |
| corner guard left/right                   |                                                   |
| takeout opp 0..3                          | hit opp k at ``TAKEOUT_SPEED`` (removes it)       |
| tap opp 0..1                              | a draw-weight hit that would stop ``TAP_DEPTH``   |
|                                           | behind opp k, nudging it back                     |
| freeze opp 0..1, freeze own 0             | draw to rest touching the front of that stone     |
|                                           | (``FREEZE_GAP`` between the two)                  |
| come around guard 0..1                    | pass the guard ``COME_AROUND_MARGIN`` clear and   |
|                                           | curl in behind it, resting on the tee line        |
| raise own 0..1                            | hit own stone k among those ``RAISE_FRONT`` or    |
|                                           | more in front of the tee, weighed to push it to   |
|                                           | the button (``RAISE_RATIO``)                      |
| peel guard 0..1                           | hit guard k at ``PEEL_SPEED``, ``PEEL_OFFSET`` on |
|                                           | its centre-line side, so both stones leave play;  |
|                                           | only guards this throw may remove (free guard     |
|                                           | zone: see ``removable``)                          |
| hit and roll opp 0..1 left/right          | takeout of opp k passing ``ROLL_OFFSET`` to that  |
|                                           | side of it: the shooter rolls that way and stays  |
| throw away (one curl)                     | a light throw that stops short of the far hog     |
|                                           | line: out of play, touches nothing                |

``TEMPLATE_NAMES[i]`` is the name of template ``i``; ``template_table()`` renders the whole
index → name → meaning table (the env's docstring shows it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from rllib_curling import rules, sheet
from rllib_curling.aiming.tables import W_GRID, ShotTables

Throw = tuple[float, float, float, float]
#: A template's throw maker: (position, my_parity, tables, shot) -> throw.
Maker = Callable[[np.ndarray, int, ShotTables, int], Throw]
#: A target list: (position, my_parity, shot) -> stones (k, 2), nearest the tee first.
Targets = Callable[[np.ndarray, int, int], np.ndarray]

TEMPLATE_SPIN = float(np.pi / 2)
#: Come-arounds curl with the largest spin of the tables: the most curl behind a guard.
COME_AROUND_SPIN = float(W_GRID[-1])
TAKEOUT_SPEED = 4.5
#: A tap is thrown at the speed of a draw stopping this far (m) behind its target.
TAP_DEPTH = 1.0
#: A freeze rests this far (m, between the stones' edges) in front of its target.
FREEZE_GAP = 0.0
#: A come-around passes its guard this far (m) clear and rests on this line (the tee line).
COME_AROUND_MARGIN = 0.02
COME_AROUND_Y = sheet.TEE_Y
#: Raise targets lie at least this far (m) in front of the tee line (a straight push reaches it).
RAISE_FRONT = 1.0
#: A raised stone travels about this fraction of the shooter's remaining free travel (measured
#: noise-free with the engine on straight raises; thinner contacts push less).
RAISE_RATIO = 0.33
PEEL_SPEED = sheet.V_MAX
PEEL_OFFSET = 0.2
ROLL_OFFSET = 0.12
#: A throw-away is thrown at this fraction of the speed of a draw to the far hog line
#: (``sheet.PLAY_Y_MAX``): it stops metres short of it, out of play, before any stone.
THROW_AWAY_FRACTION = 0.85
_R = sheet.STONE_RADIUS
_TEE = np.array(sheet.TEE)


@dataclass(frozen=True)
class Template:
    """One template: a name, what it does, its spin and how to turn a position into a throw."""

    name: str
    meaning: str
    make: Maker
    w: float


# --- targets --------------------------------------------------------------------------------


def _nearest_first(position: np.ndarray, rows: range) -> np.ndarray:
    """The stones in play in ``rows`` of ``position`` (16, 2), nearest to the tee first (ties in
    row order): (k, 2). Plain Python: ``rules.tee_distance`` is ``rules.distance_to_tee`` to the
    last bit, so the order is the numpy one."""
    flat = position.ravel().tolist()
    picked = []
    for k in rows:
        x, y = flat[2 * k], flat[2 * k + 1]
        if x != 0.0 or y != 0.0:
            picked.append((rules.tee_distance(x, y), x, y))
    return _sorted_stones(picked)


def _sorted_stones(picked: list[tuple[float, float, float]]) -> np.ndarray:
    """``(distance, x, y)`` items as a (k, 2) array of x, y, by distance (stable)."""
    picked.sort(key=_first)
    return np.array([(x, y) for _, x, y in picked], dtype=np.float64).reshape(-1, 2)


def _first(item: tuple[float, ...]) -> float:
    return item[0]


def opponent_stones(position: np.ndarray, my_parity: int) -> np.ndarray:
    """Opponent stones in play, nearest to the tee first: (k, 2)."""
    return _nearest_first(position, range(1 - my_parity, sheet.STONES_PER_END, 2))


def own_stones(position: np.ndarray, my_parity: int) -> np.ndarray:
    """The thrower's stones in play, nearest to the tee first: (k, 2)."""
    return _nearest_first(position, range(my_parity, sheet.STONES_PER_END, 2))


def guards(position: np.ndarray) -> np.ndarray:
    """Stones of either side in the free guard zone, nearest to the tee first: (k, 2)."""
    return _sorted_stones([(f.distance, f.x, f.y) for f in rules.stone_facts(position) if f.in_fgz])


def removable(position: np.ndarray, shot: int) -> np.ndarray:
    """Bool (16,): stones in play that throw ``shot`` may drive out of play under the free guard
    zone rule (``rules.free_guard_zone_violation_batch``: not an opponent's free guard zone stone
    during shots 0..``sheet.RULE_LAST_SHOT``)."""
    free: np.ndarray = rules.in_play(position) & ~rules.fgz_protected(position, shot)
    return free


def earliest_shot(position: np.ndarray, my_parity: int) -> int:
    """The earliest shot number the thrower of ``my_parity`` can be at, given the stones in play
    (rows < shot): exact unless stones were removed. Used when the caller gives no shot."""
    thrown = np.flatnonzero(rules.in_play(position))
    shot = int(thrown[-1]) + 1 if len(thrown) else 0
    return shot + (shot % 2 != my_parity)


def _opp(position: np.ndarray, my_parity: int, shot: int) -> np.ndarray:
    return opponent_stones(position, my_parity)


def _own(position: np.ndarray, my_parity: int, shot: int) -> np.ndarray:
    return own_stones(position, my_parity)


def _guard(position: np.ndarray, my_parity: int, shot: int) -> np.ndarray:
    return guards(position)


def _raisable(position: np.ndarray, my_parity: int, shot: int) -> np.ndarray:
    stones = own_stones(position, my_parity)
    return stones[stones[:, 1] >= sheet.TEE_Y + RAISE_FRONT]


def _peelable(position: np.ndarray, my_parity: int, shot: int) -> np.ndarray:
    return guards(np.where(removable(position, shot)[:, None], position, 0.0))


# --- throws ---------------------------------------------------------------------------------


def _draw(x: float, y: float, w: float) -> Maker:
    def make(position: np.ndarray, my_parity: int, tables: ShotTables, shot: int) -> Throw:
        return (*tables.draw(x, y, w), 0.0)

    return make


def _targeted(targets: Targets, rank: int, w: float, at: Callable[..., Throw]) -> Maker:
    """The throw ``at(x, y, w, tables)`` on target ``rank`` of ``targets``, else the button."""

    def make(position: np.ndarray, my_parity: int, tables: ShotTables, shot: int) -> Throw:
        stones = targets(position, my_parity, shot)
        if rank >= len(stones):
            return (*tables.draw(sheet.TEE_X, sheet.TEE_Y, w), 0.0)
        return at(float(stones[rank, 0]), float(stones[rank, 1]), w, tables)

    return make


def _takeout(x: float, y: float, w: float, tables: ShotTables) -> Throw:
    return (*tables.hit(x, y, TAKEOUT_SPEED, w), 0.0)


def _tap(x: float, y: float, w: float, tables: ShotTables) -> Throw:
    return (*tables.hit(x, y, tables.draw_speed(y - TAP_DEPTH, w), w), 0.0)


def _freeze(x: float, y: float, w: float, tables: ShotTables) -> Throw:
    return (*tables.draw(x, y + 2 * _R + FREEZE_GAP, w), 0.0)


def _come_around(x: float, y: float, w: float, tables: ShotTables) -> Throw:
    v = tables.draw_speed(COME_AROUND_Y, w)
    passing = x - np.sign(w) * (2 * _R + COME_AROUND_MARGIN)  # on the side it curls away from
    return v, tables.aim(passing, y, v, w), w, 0.0


def _raise(x: float, y: float, w: float, tables: ShotTables) -> Throw:
    target = np.array([x, y])
    push = float(np.linalg.norm(target - _TEE))  # how far the target must travel
    contact = target + 2 * _R * (target - _TEE) / push  # shooter's centre at contact
    v = long_draw_speed(tables, contact[1] - push / RAISE_RATIO, w)
    return v, tables.aim(float(contact[0]), float(contact[1]), v, w), w, 0.0


def _peel(x: float, y: float, w: float, tables: ShotTables) -> Throw:
    side = 1.0 if x < sheet.CENTRE_X else -1.0  # pass on its centre-line side
    return PEEL_SPEED, tables.aim(x + side * PEEL_OFFSET, y, PEEL_SPEED, w), w, 0.0


def _roll(side: float) -> Callable[..., Throw]:
    def at(x: float, y: float, w: float, tables: ShotTables) -> Throw:
        return TAKEOUT_SPEED, tables.aim(x + side * ROLL_OFFSET, y, TAKEOUT_SPEED, w), w, 0.0

    return at


def _throw_away(position: np.ndarray, my_parity: int, tables: ShotTables, shot: int) -> Throw:
    v = THROW_AWAY_FRACTION * tables.draw_speed(sheet.PLAY_Y_MAX, TEMPLATE_SPIN)
    return v, 0.0, TEMPLATE_SPIN, 0.0


def long_draw_speed(tables: ShotTables, y_stop: float, w: float) -> float:
    """``tables.draw_speed``, extended past the back of the tables (y < 3): v² grows linearly
    with the distance travelled, extrapolated from draws to y = 3 and 4 (a raise's weight)."""
    if y_stop >= 3.0:
        return tables.draw_speed(y_stop, w)
    v3, v4 = tables.draw_speed(3.0, w), tables.draw_speed(4.0, w)
    return float(np.sqrt(v3 * v3 + (v3 * v3 - v4 * v4) * (3.0 - y_stop)))


# --- the table ------------------------------------------------------------------------------

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
_CURLS = (("w+", 1.0), ("w-", -1.0))


def _basic_templates() -> tuple[Template, ...]:
    """The 38 templates of the first release, in their order (all w+, then all w-)."""
    out: list[Template] = []
    for spin_name, sign in _CURLS:
        w = sign * TEMPLATE_SPIN
        for name, (x, y) in {**_POINTS, **_GUARDS}.items():
            label = name if name in _GUARDS else f"draw {name}"
            where = f"({x:.3f}, {y:.3f})"
            meaning = (
                f"stop in the free guard zone at {where}" if name in _GUARDS else f"draw to {where}"
            )
            out.append(Template(f"{label} {spin_name}", meaning, _draw(x, y, w), w))
        for k in range(4):
            meaning = f"hit opponent stone {k} (k-th nearest the tee) at {TAKEOUT_SPEED} m/s"
            make = _targeted(_opp, k, w, _takeout)
            out.append(Template(f"takeout opp {k} {spin_name}", meaning, make, w))
        for k in range(2):
            meaning = f"tap opponent stone {k} about {TAP_DEPTH} m back (draw weight)"
            out.append(
                Template(f"tap opp {k} {spin_name}", meaning, _targeted(_opp, k, w, _tap), w)
            )
    return tuple(out)


def _new_kinds() -> list[tuple[str, Targets, int, Callable[..., Throw], str]]:
    """The new templates, each without its curl: (name, targets, rank, throw, meaning)."""
    kinds: list[tuple[str, Targets, int, Callable[..., Throw], str]] = []
    for k in (0, 1):
        meaning = f"draw to rest touching opponent stone {k}"
        kinds.append((f"freeze opp {k}", _opp, k, _freeze, meaning))
    meaning = "draw to rest touching own stone 0 (our shot stone)"
    kinds.append(("freeze own 0", _own, 0, _freeze, meaning))
    for k in (0, 1):
        meaning = f"curl around guard {k} (either side) to rest behind it on the tee line"
        kinds.append((f"come around guard {k}", _guard, k, _come_around, meaning))
    for k in (0, 1):
        meaning = f"push own stone {k} (of those >= {RAISE_FRONT} m before the tee) to the button"
        kinds.append((f"raise own {k}", _raisable, k, _raise, meaning))
    for k in (0, 1):
        meaning = f"hit removable guard {k} at {PEEL_SPEED} m/s so that both stones leave play"
        kinds.append((f"peel guard {k}", _peelable, k, _peel, meaning))
    for k in (0, 1):
        for side, sign in (("left", -1.0), ("right", 1.0)):
            way = "-x" if sign < 0 else "+x"
            meaning = f"take out opponent stone {k}, the shooter rolling to its {side} ({way})"
            kinds.append((f"hit and roll opp {k} {side}", _opp, k, _roll(sign), meaning))
    return kinds


def _new_templates() -> tuple[Template, ...]:
    """The templates added for issue 13, each kind with both curls, then the throw-away."""
    out = []
    for name, targets, rank, at, meaning in _new_kinds():
        spin = COME_AROUND_SPIN if at is _come_around else TEMPLATE_SPIN
        for spin_name, sign in _CURLS:
            make = _targeted(targets, rank, sign * spin, at)
            out.append(Template(f"{name} {spin_name}", meaning, make, sign * spin))
    meaning = "a light throw stopping short of the far hog line: out of play, touches nothing"
    out.append(Template("throw away", meaning, _throw_away, TEMPLATE_SPIN))
    return tuple(out)


BASIC_TEMPLATES: tuple[Template, ...] = _basic_templates()
TEMPLATES: tuple[Template, ...] = BASIC_TEMPLATES + _new_templates()
TEMPLATE_NAMES: tuple[str, ...] = tuple(t.name for t in TEMPLATES)


def template_throw(
    index: int, position: np.ndarray, my_parity: int, tables: ShotTables, shot: int | None = None
) -> Throw:
    """The throw of template ``index`` for ``position`` (throwing-order rows) and the thrower
    owning the rows of ``my_parity``; ``shot`` (the number of the stone about to be thrown)
    decides which guards the free guard zone protects, ``earliest_shot`` when not given.
    ``ValueError`` for an index outside the table."""
    if not 0 <= int(index) < len(TEMPLATES):
        raise ValueError(f"template index {index!r} is not in 0..{len(TEMPLATES) - 1}")
    pos = np.asarray(position, dtype=np.float64).reshape(sheet.STONES_PER_END, 2)
    shot = earliest_shot(pos, my_parity) if shot is None else int(shot)
    return TEMPLATES[int(index)].make(pos, my_parity, tables, shot)


def template_table() -> str:
    """The templates as a Markdown table: index, name, what it does (one row per template)."""
    lines = ["| index | name | what it does |", "|---|---|---|"]
    for i, t in enumerate(TEMPLATES):
        curl = f"curl toward {'+x' if t.w > 0 else '-x'} (w = {t.w:+.3f} rad/s)"
        lines.append(f"| {i} | {t.name} | {t.meaning}; {curl} |")
    return "\n".join(lines)
