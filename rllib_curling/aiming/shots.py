"""The shot set: every shot a strong player considers, in one fixed layout (``action="shots"``).

Level 8's search throws draws to a grid of points, guards, and hits on every stone in play at
several weights, contact offsets and curls. The shot set is that list with a fixed index for
every shot, so that a network can output one logit per shot and a search's choice is exactly
one action. Shots at a stone that is not in play are illegal (``legal_shots``: the action mask).

| block    | actions                          | the shot                                         |
|----------|----------------------------------|--------------------------------------------------|
| ``DRAWS``| ``2 × len(DRAW_POINTS)``,        | a draw that rests at ``DRAW_POINTS[p]`` (a grid  |
|          | spin-major (``+w`` first)        | of ``DRAW_STEP`` m over the house and the guard  |
|          |                                  | zone), nothing in the way                        |
| ``HITS`` | ``16 × 2 × len(HIT_WEIGHTS) ×``  | stone slot ``k`` (throwing order), curl, weight, |
|          | ``len(HIT_OFFSETS)``, slot-major | contact offset: the path runs ``offset`` m beside |
|          |                                  | the stone's centre (+x side positive) at speed   |
|          |                                  | ``weight`` (0: tap weight, a draw ``TAP_DEPTH``  |
|          |                                  | behind it)                                       |
| ``AWAY`` | 1 (the last)                     | the throw-away (``THROW_AWAY``): stops short of  |
|          |                                  | the far hog line, touches nothing                |

``N_SHOTS`` actions in all. Curls are ``±SPIN`` (``+`` curls toward +x). The layout is
mirror-symmetric: ``MIRROR[a]`` is the shot that mirrors ``a`` (x → −x about the centre line,
curl and offset flipped), so a position's mirror image maps its best shot to the mirror's.

``shot_features()`` describes each action to a network (``SHOT_FEATURES`` columns) and
``SHOT_STONE[a]`` names the stone a hit aims at (−1 for draws and the throw-away): the pointer
a network reads that stone's embedding with. ``shot_throws(position, tables)`` gives every
action's throw ``(v, h, w, sweep)`` for a position, ``shot_throw`` one.
"""

from __future__ import annotations

import numpy as np

from rllib_curling import rules, sheet
from rllib_curling.aiming.tables import ShotTables, aim_h, draw_speeds
from rllib_curling.aiming.templates import TAP_DEPTH, Throw

TX, TY = sheet.TEE
#: Spacing (m) of the draw grid, both across and along the sheet.
DRAW_STEP = 0.25
#: Draw points: the house (centres within ``HOUSE_REACH`` m of the tee) and the guard zone in
#: front of it (``|x - tee| <= GUARD_HALF_WIDTH``, up to ``GUARD_Y_MAX``, short of the hog line).
HOUSE_REACH = 1.85
GUARD_HALF_WIDTH = 1.0
GUARD_Y_MAX = TY + 5.25
SPIN = float(np.pi / 2)
SPINS = (SPIN, -SPIN)
#: Hit weights (m/s): 0.0 is tap weight (a draw that would stop ``TAP_DEPTH`` behind the stone);
#: the rest are speeds (level 8's: a soft hit, a takeout, a firm peel).
HIT_WEIGHTS = (0.0, 3.8, 4.6, 5.6)
#: Contact offsets (m): where the path passes the stone's centre (+x side positive).
HIT_OFFSETS = (-0.2, -0.1, 0.0, 0.1, 0.2)
#: The throw-away: a light straight throw that stops short of the far hog line.
THROW_AWAY: Throw = (1.5, 0.0, 0.0, 0.0)
N_SLOTS = sheet.STONES_PER_END


def _draw_points() -> np.ndarray:
    """(P, 2) the draw grid: rows of ``DRAW_STEP`` from the back of the house toward the hog
    line, each row left to right (symmetric about the centre line)."""
    steps = np.arange(-20, 21) * DRAW_STEP
    dx, dy = np.meshgrid(steps, steps)  # row-major: dy outer, dx inner
    dx, dy = dx.ravel(), dy.ravel()
    house = np.hypot(dx, dy) < HOUSE_REACH
    guard = (dy >= HOUSE_REACH) & (np.abs(dx) <= GUARD_HALF_WIDTH + 1e-9)
    guard &= TY + dy <= GUARD_Y_MAX + 1e-9
    keep = house | guard
    return np.round(np.stack([TX + dx[keep], TY + dy[keep]], axis=1), 6)


DRAW_POINTS = _draw_points()
N_DRAWS = len(SPINS) * len(DRAW_POINTS)
HITS_PER_STONE = len(SPINS) * len(HIT_WEIGHTS) * len(HIT_OFFSETS)
N_HITS = N_SLOTS * HITS_PER_STONE
DRAWS = slice(0, N_DRAWS)
HITS = slice(N_DRAWS, N_DRAWS + N_HITS)
AWAY = N_DRAWS + N_HITS
N_SHOTS = AWAY + 1


def _hit_grid() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(N_HITS,) slot, spin, weight and offset of each hit, in the layout's order."""
    slot, spin, weight, offset = np.meshgrid(
        np.arange(N_SLOTS), SPINS, HIT_WEIGHTS, HIT_OFFSETS, indexing="ij"
    )
    return slot.ravel(), spin.ravel(), weight.ravel(), offset.ravel()


_HIT_SLOT, _HIT_SPIN, _HIT_WEIGHT, _HIT_OFFSET = _hit_grid()
#: (N_SHOTS,) the stone slot a hit aims at; −1 for draws and the throw-away.
SHOT_STONE = np.concatenate([np.full(N_DRAWS, -1), _HIT_SLOT, [-1]]).astype(np.int64)
#: (N_SHOTS,) each action's curl (rad/s; 0 for the throw-away).
SHOT_SPIN = np.concatenate([np.repeat(SPINS, len(DRAW_POINTS)), _HIT_SPIN, [0.0]])

#: Columns of ``shot_features()``.
SHOT_FEATURES = (
    "draw", "hit", "away", "spin", "draw_x", "draw_y", "tap", "weight", "offset",
)  # fmt: skip


def shot_features() -> np.ndarray:
    """(N_SHOTS, len(SHOT_FEATURES)) float32: what each action is, in the observation's scales.

    | column   | meaning                                                          |
    |----------|------------------------------------------------------------------|
    | draw, hit, away | one-hot kind                                              |
    | spin     | +1 / −1 curl (0: the throw-away)                                  |
    | draw_x   | draws: (x − 2.375) / 2.375 of the point (0 otherwise)             |
    | draw_y   | draws: (y − tee) / 5.645 of the point (0 otherwise)               |
    | tap      | hits: 1 at tap weight                                            |
    | weight   | hits: speed / ``sheet.V_MAX`` (0 at tap weight)                   |
    | offset   | hits: contact offset / 0.2 (+x side positive)                     |
    """
    out = np.zeros((N_SHOTS, len(SHOT_FEATURES)), np.float32)
    points = np.tile(DRAW_POINTS, (len(SPINS), 1))
    out[DRAWS, 0] = 1.0
    out[HITS, 1] = 1.0
    out[AWAY, 2] = 1.0
    out[:, 3] = np.sign(SHOT_SPIN)
    out[DRAWS, 4] = (points[:, 0] - sheet.CENTRE_X) / sheet.CENTRE_X
    out[DRAWS, 5] = (points[:, 1] - TY) / (sheet.PLAY_Y_MAX - TY)
    out[HITS, 6] = _HIT_WEIGHT == 0.0
    out[HITS, 7] = _HIT_WEIGHT / sheet.V_MAX
    out[HITS, 8] = _HIT_OFFSET / max(HIT_OFFSETS)
    return out


def _mirror() -> np.ndarray:
    """(N_SHOTS,) the index of each action's mirror image (x → −x, curl and offset flipped)."""
    out = np.arange(N_SHOTS)
    key = {
        (round(float(x - TX), 6), round(float(y), 6), s): i
        for s, spin in enumerate(SPINS)
        for i, (x, y) in enumerate(DRAW_POINTS, start=s * len(DRAW_POINTS))
    }
    for s in range(len(SPINS)):
        for i, (x, y) in enumerate(DRAW_POINTS, start=s * len(DRAW_POINTS)):
            out[i] = key[(round(float(TX - x), 6), round(float(y), 6), 1 - s)]
    flip = {o: j for j, o in enumerate(HIT_OFFSETS)}
    shape = (N_SLOTS, len(SPINS), len(HIT_WEIGHTS), len(HIT_OFFSETS))
    hits = np.arange(N_HITS).reshape(shape)
    mirrored = hits[:, ::-1, :, [flip[-o] for o in HIT_OFFSETS]]
    out[HITS] = N_DRAWS + mirrored.ravel()
    return out


MIRROR = _mirror()


def legal_shots(position: np.ndarray) -> np.ndarray:
    """(N_SHOTS,) bool, or (B, N_SHOTS) for positions (B, 16, 2): the action mask. Draws and the
    throw-away are always legal; a hit only at a stone in play."""
    live = rules.in_play(np.asarray(position, dtype=np.float64))  # (..., 16)
    lead = live.shape[:-1]
    hits = np.repeat(live, HITS_PER_STONE, axis=-1)
    always = np.ones((*lead, N_DRAWS), bool)
    return np.concatenate([always, hits, np.ones((*lead, 1), bool)], axis=-1)


def aim_hits(
    tables: ShotTables,
    stones: np.ndarray,
    spins: tuple[float, ...],
    weights: tuple[float, ...],
    offsets: tuple[float, ...],
) -> np.ndarray:
    """(spins, weights, offsets, S, 4) the hits on each of ``stones`` (S, 2): every spin, weight
    (0.0 = tap weight) and contact offset, aimed with the free-path tables (elementwise, so a
    stone's hits do not depend on the other stones given)."""
    stones = np.asarray(stones, dtype=np.float64).reshape(-1, 2)
    v = np.empty((len(spins), len(weights), len(offsets), len(stones)))
    w = np.empty_like(v)
    for i, spin in enumerate(spins):
        w[i] = spin
        for j, weight in enumerate(weights):
            tap = weight == 0.0
            v[i, j] = draw_speeds(tables, stones[:, 1] - TAP_DEPTH, spin) if tap else weight
    x = stones[:, 0] + np.asarray(offsets, dtype=np.float64)[:, None]  # (O, S)
    y = np.broadcast_to(stones[:, 1], v.shape)
    h = aim_h(tables, np.broadcast_to(x, v.shape), y, v, w)
    return np.stack([v, h, w, 0 * v], axis=-1)


def draw_throws(tables: ShotTables) -> np.ndarray:
    """(N_DRAWS, 4) the draws' throws (they do not depend on the position)."""
    out = []
    xs, ys = DRAW_POINTS[:, 0], DRAW_POINTS[:, 1]
    for w in SPINS:
        v = draw_speeds(tables, ys, w)
        out.append(np.stack([v, aim_h(tables, xs, ys, v, w), np.full_like(v, w), 0 * v], 1))
    return np.concatenate(out)


_DRAW_CACHE: dict[int, tuple[ShotTables, np.ndarray]] = {}


def _draws(tables: ShotTables) -> np.ndarray:
    """(N_DRAWS, 4) the draws' throws on ``tables``, computed once per tables."""
    cached = _DRAW_CACHE.get(id(tables))
    if cached is None or cached[0] is not tables:
        cached = _DRAW_CACHE[id(tables)] = (tables, draw_throws(tables))
    return cached[1]


def shot_throws(position: np.ndarray, tables: ShotTables) -> np.ndarray:
    """(N_SHOTS, 4) every action's throw ``(v, h, w, sweep)`` for ``position`` (16, 2). A hit at a
    stone not in play is the throw-away (illegal anyway: ``legal_shots``)."""
    draws = _draws(tables)
    position = np.asarray(position, dtype=np.float64).reshape(N_SLOTS, 2)
    hits = aim_hits(tables, position, SPINS, HIT_WEIGHTS, HIT_OFFSETS)  # (s, w, o, 16, 4)
    hits = np.moveaxis(hits, 3, 0).reshape(N_HITS, 4)  # slot-major, as the layout
    live = np.repeat(rules.in_play(position), HITS_PER_STONE)
    hits[~live] = THROW_AWAY
    return np.concatenate([draws, hits, np.array([THROW_AWAY])])


def throws_of(indices: np.ndarray, position: np.ndarray, tables: ShotTables) -> np.ndarray:
    """(K, 4) the throws of actions ``indices`` (K,) for ``position`` (16, 2): the rows of
    ``shot_throws`` they name, aiming only the hits at the stones they name (a search that looks
    at a few actions need not aim all 1,229)."""
    indices = np.asarray(indices, dtype=np.int64).reshape(-1)
    if indices.size and (indices.min() < 0 or indices.max() >= N_SHOTS):
        raise IndexError(f"shots must be in 0..{N_SHOTS - 1}, got {indices.tolist()}")
    position = np.asarray(position, dtype=np.float64).reshape(N_SLOTS, 2)
    out = np.tile(np.array(THROW_AWAY, dtype=np.float64), (len(indices), 1))
    drawn = indices < N_DRAWS
    out[drawn] = _draws(tables)[indices[drawn]]
    hit = (indices >= N_DRAWS) & (indices < N_DRAWS + N_HITS)
    if hit.any():
        k = indices[hit] - N_DRAWS
        slots, which = np.unique(k // HITS_PER_STONE, return_inverse=True)
        aimed = aim_hits(tables, position[slots], SPINS, HIT_WEIGHTS, HIT_OFFSETS)
        aimed = np.moveaxis(aimed, 3, 0).reshape(len(slots), HITS_PER_STONE, 4)
        throws = aimed[which, k % HITS_PER_STONE]
        live = rules.in_play(position[slots])[which]
        throws[~live] = THROW_AWAY
        out[hit] = throws
    return out


def shot_throw(index: int, position: np.ndarray, tables: ShotTables) -> Throw:
    """The throw of action ``index`` for ``position`` (16, 2)."""
    if not 0 <= index < N_SHOTS:
        raise IndexError(f"shot {index} is not in 0..{N_SHOTS - 1}")
    v, h, w, sweep = throws_of(np.array([index]), position, tables)[0].tolist()
    return v, h, w, sweep


def describe_shot(index: int) -> str:
    """A short name of action ``index``: ``"draw (2.38, 4.88) w+"``, ``"hit stone 3 tap +0.1 w-"``
    (stone 3 in throwing order, tap weight, 0.1 m to its +x side)."""
    if not 0 <= index < N_SHOTS:
        raise IndexError(f"shot {index} is not in 0..{N_SHOTS - 1}")
    curl = "w+" if SHOT_SPIN[index] > 0 else "w-"
    if index < N_DRAWS:
        x, y = DRAW_POINTS[index % len(DRAW_POINTS)]
        return f"draw ({x:.2f}, {y:.2f}) {curl}"
    if index == AWAY:
        return "throw away"
    j = index - N_DRAWS
    weight, offset = _HIT_WEIGHT[j], _HIT_OFFSET[j]
    speed = "tap" if weight == 0.0 else f"{weight:.1f}"
    return f"hit stone {_HIT_SLOT[j]} {speed} {offset:+.1f} {curl}"
