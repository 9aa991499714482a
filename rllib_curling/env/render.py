"""Pictures of a position: a text table (``ansi``) and an RGB image of the house (``rgb_array``).

matplotlib is imported lazily, only for ``rgb_array``.
"""

from __future__ import annotations

import numpy as np

from rllib_curling import rules, sheet

MY_COLOUR = "#d62728"  # red
THEIR_COLOUR = "#e6c229"  # yellow


def ansi(
    position: np.ndarray,
    state: tuple[int, int, int, int] | None,
    totals: tuple[int, int],
    my_parity: int,
) -> str:
    """A text table of the stones in play, nearest to the tee first."""
    pos = np.asarray(position).reshape(sheet.STONES_PER_END, 2)
    lines = []
    if state is not None:
        shot, end, total, _ = state
        ends = "unlimited" if total == -1 else str(total)
        lines.append(f"end {end + 1}/{ends}  shot {shot}  score me {totals[0]} - {totals[1]} them")
    lines.append(" k  team    x       y     dist  house")
    on = np.flatnonzero(np.any(pos != 0.0, axis=1))
    dist = rules.distance_to_tee(pos)
    for k in on[np.argsort(dist[on])]:
        team = "me  " if k % 2 == my_parity else "them"
        mark = "*" if rules.in_house(pos[k]) else ""
        lines.append(f"{k:2d}  {team}  {pos[k, 0]:6.3f}  {pos[k, 1]:6.3f}  {dist[k]:5.2f}  {mark}")
    if not len(on):
        lines.append("   (no stones in play)")
    return "\n".join(lines) + "\n"


def rgb_array(position: np.ndarray, my_parity: int, size_px: int = 400) -> np.ndarray:
    """An image (H, W, 3) uint8 of the house end of the sheet, our stones red, theirs yellow."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    pos = np.asarray(position).reshape(sheet.STONES_PER_END, 2)
    fig = Figure(figsize=(4, 5.2), dpi=size_px / 4)
    canvas = FigureCanvasAgg(fig)
    ax = fig.add_axes((0, 0, 1, 1))
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
        colour = MY_COLOUR if k % 2 == my_parity else THEIR_COLOUR
        ax.add_patch(_circle(pos[k], sheet.STONE_RADIUS, colour, edge="black"))
    canvas.draw()
    image = np.asarray(canvas.buffer_rgba())[..., :3].copy()
    return image


def _circle(centre: object, radius: float, colour: str, edge: str | None = None) -> object:
    from matplotlib.patches import Circle

    return Circle(centre, radius, facecolor=colour, edgecolor=edge or colour, lw=0.8)


def _rect(corner: tuple[float, float], w: float, h: float, colour: str) -> object:
    from matplotlib.patches import Rectangle

    return Rectangle(corner, w, h, facecolor=colour, edgecolor="none")
