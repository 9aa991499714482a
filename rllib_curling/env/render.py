"""Pictures of a position: a text table (``ansi``) and an RGB image of the house (``rgb_array``).

Both draw a :class:`View`: the stones, whose they are, and the state of the game around them
(end, shot, score, hammer, and a caption such as "end 2 scored: +1 for us"). matplotlib is
imported lazily, only for ``rgb_array``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from rllib_curling import rules, sheet

if TYPE_CHECKING:
    from matplotlib.patches import Patch

MY_COLOUR = "#d62728"  # red: the agent's stones
THEIR_COLOUR = "#e6c229"  # yellow: the opponent's


@dataclass(frozen=True)
class View:
    """What a picture shows. ``position`` (16, 2) in throwing order; ``my_parity``: the agent's
    rows (0 = even: it throws first this end); ``state``: the SETSTATE fields (shot, end,
    total, next) or None; ``totals``: (agent's, opponent's) match score; ``caption``: one line
    saying what happened (may be empty)."""

    position: np.ndarray
    my_parity: int
    state: tuple[int, int, int, int] | None
    totals: tuple[int, int]
    caption: str = ""

    def header(self) -> str:
        """``end 2/4  shot 5  score me 3 - 1 them  hammer: me``."""
        if self.state is None:
            return f"score me {self.totals[0]} - {self.totals[1]} them"
        shot, end, total, _ = self.state
        ends = "unlimited" if total == -1 else str(total)
        hammer = "me" if self.my_parity == 1 else "them"
        return (
            f"end {end + 1}/{ends}  shot {min(shot, 16)}  score me {self.totals[0]} - "
            f"{self.totals[1]} them  hammer: {hammer}"
        )


def ansi(view: View) -> str:
    """A text table of the stones in play, nearest to the tee first."""
    pos = np.asarray(view.position).reshape(sheet.STONES_PER_END, 2)
    lines = [view.header()]
    if view.caption:
        lines.append(view.caption)
    lines.append(" k  team    x       y     dist  house")
    on = np.flatnonzero(np.any(pos != 0.0, axis=1))
    dist = rules.distance_to_tee(pos)
    for k in on[np.argsort(dist[on])]:
        team = "me  " if k % 2 == view.my_parity else "them"
        mark = "*" if rules.in_house(pos[k]) else ""
        lines.append(f"{k:2d}  {team}  {pos[k, 0]:6.3f}  {pos[k, 1]:6.3f}  {dist[k]:5.2f}  {mark}")
    if not len(on):
        lines.append("   (no stones in play)")
    return "\n".join(lines) + "\n"


def rgb_array(view: View, size_px: int = 400) -> np.ndarray:
    """An image (H, W, 3) uint8 of the house end of the sheet with a legend: the agent's stones
    red, the opponent's yellow, and the end, shot, score and hammer (and the caption) above."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    pos = np.asarray(view.position).reshape(sheet.STONES_PER_END, 2)
    fig = Figure(figsize=(4, 6.0), dpi=size_px / 4)
    canvas = FigureCanvasAgg(fig)
    ax = fig.add_axes((0, 0, 1, 0.87))
    ax.set_xlim(0, sheet.SHEET_WIDTH)
    ax.set_ylim(sheet.PLAY_Y_MAX + 0.3, sheet.PLAY_Y_MIN - 0.5)  # thrower's view: house at top
    ax.set_aspect("equal")
    ax.axis("off")
    ax.add_patch(_rect((0, 0), sheet.SHEET_WIDTH, sheet.SHEET_LENGTH, "#f4f8fb"))
    for radius, colour in zip(
        sorted(sheet.RING_RADII, reverse=True),
        ("#9ecae1", "white", "#fcbba1", "white"),
        strict=True,
    ):
        ax.add_patch(_circle((sheet.TEE_X, sheet.TEE_Y), radius, colour))
    ax.axvline(sheet.CENTRE_X, color="grey", lw=0.6)
    ax.axhline(sheet.TEE_Y, color="grey", lw=0.6)
    ax.axhline(sheet.PLAY_Y_MAX, color="black", lw=1.0)
    for k in np.flatnonzero(np.any(pos != 0.0, axis=1)):
        colour = MY_COLOUR if k % 2 == view.my_parity else THEIR_COLOUR
        ax.add_patch(_circle(pos[k], sheet.STONE_RADIUS, colour, edge="black"))
    fig.text(0.5, 0.965, view.header(), ha="center", va="center", fontsize=8)
    if view.caption:
        fig.text(0.5, 0.93, view.caption, ha="center", va="center", fontsize=8, weight="bold")
    handles = [
        Line2D([], [], ls="", marker="o", mfc=c, mec="black", label=label)
        for c, label in ((MY_COLOUR, "agent (me)"), (THEIR_COLOUR, "opponent"))
    ]
    fig.legend(handles=handles, loc="center", bbox_to_anchor=(0.5, 0.895), ncol=2,
               fontsize=8, frameon=False)  # fmt: skip
    canvas.draw()
    image = np.asarray(canvas.buffer_rgba())[..., :3].copy()
    return image


def _circle(
    centre: tuple[float, float] | np.ndarray, radius: float, colour: str, edge: str | None = None
) -> Patch:
    from matplotlib.patches import Circle

    x, y = centre
    return Circle((float(x), float(y)), radius, facecolor=colour, edgecolor=edge or colour, lw=0.8)


def _rect(corner: tuple[float, float], w: float, h: float, colour: str) -> Patch:
    from matplotlib.patches import Rectangle

    return Rectangle(corner, w, h, facecolor=colour, edgecolor="none")
