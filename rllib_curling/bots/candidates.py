"""Candidate throws of the searching bots: draws to a grid, guards, hits on every stone, and
the shot templates. Levels 4 (its last stone) to 8 draw their candidates from here.

``SearchSpec`` says how many: the spacing of the draw grid, the guard points, the hit speeds
(``0.0`` = tap weight: a draw that would stop ``TAP_DEPTH`` behind the target), the contact
offsets and the spins; plus how the search judges them (used by ``search``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rllib_curling import rules, sheet
from rllib_curling.aiming.shots import aim_hits
from rllib_curling.aiming.tables import ShotTables, aim_h, draw_speeds
from rllib_curling.aiming.templates import BASIC_TEMPLATES, template_throw

TX, TY = sheet.TEE


@dataclass(frozen=True)
class SearchSpec:
    """How hard a search bot looks; see the module docstring for the steps."""

    templates: bool = False
    #: The candidates are the legal actions of the shot set (``aiming.shots``), in its order;
    #: the draw, guard and hit fields below are then unused.
    shots: bool = False
    draw_step: float = 0.4
    guard_xs: tuple[float, ...] = (-0.8, -0.3, 0.0, 0.3, 0.8)
    guard_ys: tuple[float, ...] = (7.2, 8.4)
    spins: tuple[float, ...] = (np.pi / 2, -np.pi / 2)
    hit_speeds: tuple[float, ...] = (0.0, 4.5)  # 0.0 = tap weight (stops TAP_DEPTH behind)
    hit_offsets: tuple[float, ...] = (-0.12, 0.0, 0.12)
    top_k: int = 0
    samples: int = 0
    simple: bool = False
    win_prob: bool = False
    reply: int = 0
    #: With ``reply``: the opponent's best ``reply_top`` answers (noise off) are judged again from
    #: ``reply_samples`` noisy throws each, and their mean decides (0: the noise-free best).
    reply_top: int = 0
    reply_samples: int = 0


def draw_candidates(tables: ShotTables, spec: SearchSpec) -> np.ndarray:
    """(N, 4) draws to a grid of house points and to guard points, with each spin of ``spec``."""
    r = np.arange(-1.8, 1.8 + 1e-9, spec.draw_step)
    gx, gy = np.meshgrid(r, r)
    keep = np.hypot(gx, gy) < 1.85
    xs = np.concatenate([TX + gx[keep], TX + np.repeat(spec.guard_xs, len(spec.guard_ys))])
    ys = np.concatenate([TY + gy[keep], np.tile(spec.guard_ys, len(spec.guard_xs))])
    out = []
    for w in spec.spins:
        v = draw_speeds(tables, ys, w)
        out.append(np.stack([v, aim_h(tables, xs, ys, v, w), np.full_like(v, w), 0 * v], 1))
    return np.concatenate(out)


def hit_candidates(tables: ShotTables, position: np.ndarray, spec: SearchSpec) -> np.ndarray:
    """(N, 4) hits on every stone in play: each speed, contact offset and spin of ``spec``.

    Rows in the order spin, speed, offset, stone (row order of ``position``)."""
    return hit_candidates_batch(tables, np.asarray(position)[None], spec)[0]


def hit_candidates_batch(
    tables: ShotTables, positions: np.ndarray, spec: SearchSpec
) -> list[np.ndarray]:
    """``hit_candidates`` of each position ``(P, 16, 2)``, aimed in one vectorised call (the
    aiming is elementwise, so every throw is the same to the last bit as one position's)."""
    positions = np.asarray(positions, dtype=np.float64)
    live = rules.in_play(positions)
    stones = positions[live]  # (S, 2), position by position
    counts = live.sum(axis=-1)
    if len(stones) == 0:
        return [np.zeros((0, 4)) for _ in counts]
    block = aim_hits(tables, stones, spec.spins, spec.hit_speeds, spec.hit_offsets)
    edges = np.concatenate([[0], np.cumsum(counts)])
    return [block[..., a:b, :].reshape(-1, 4) for a, b in zip(edges[:-1], edges[1:], strict=True)]


def template_candidates(tables: ShotTables, position: np.ndarray, parity: int) -> np.ndarray:
    """(38, 4): the throw of every basic template (``BASIC_TEMPLATES``, the first 38 of the env's
    set, in order) for this position; the later templates are the env's only."""
    count = len(BASIC_TEMPLATES)
    return np.array([template_throw(i, position, parity, tables) for i in range(count)])
