"""Digital Curling's sheet and throws (UEC's DC3 and DC4), in DC's shot frame: the facts that the
fcv1 ice (``physics.fcv1``), the DC rules and the DC protocols share. The platform's sheet is
``sheet.py``; this is the parallel room for DC (``shared/spec/digital_curling.md`` §3–§5, DC3's
``doc/coordinate.md``).

**Shot frame** (what DC clients see): the hack, where every stone is released, at the origin; the
stone travels toward +y; x is lateral, the centre line at x = 0. Every end is played in this
frame (the physical end of the sheet alternates; the frame does not). Metres, seconds, radians.

**Simulation frame** (DC's simulator): origin at the sheet's centre, the two ends symmetric:
``y_sim = y_shot - SIM_Y_OFFSET``.

**Rotation**: positive ω is counter-clockwise ("ccw") and curls the path toward −x; "cw" (ω < 0)
curls toward +x.
"""

from __future__ import annotations

import math

SHEET_WIDTH = 4.75
#: Side walls: a stone touching one (|x| + STONE_RADIUS >= SIDE_X) is removed while it moves.
SIDE_X = SHEET_WIDTH / 2

STONE_RADIUS = 0.145
STONE_MASS = 19.96  # kg (DC3 simulators_simulator_fcv1.hpp)

#: The centre line; a stone touches it when |x - CENTRE_X| < STONE_RADIUS (DC4
#: ``rules/no_tick_shot.hpp``).
CENTRE_X = 0.0

TEE_X = 0.0
TEE_Y = 38.405
TEE = (TEE_X, TEE_Y)
HOUSE_RADIUS = 1.829
#: A stone scores when its centre is within this distance of the tee (house + stone).
HOUSE_SCORE_RADIUS = HOUSE_RADIUS + STONE_RADIUS
#: The house's rings for drawing, inner to outer: button, 4 ft, 8 ft, 12 ft (the house).
RING_RADII = (0.1524, 0.6096, 1.2192, HOUSE_RADIUS)

#: The far hog line: a stone whose far edge has not crossed it (y - r <= HOG_Y) once all stones
#: stopped is removed.
HOG_Y = 32.004
#: The far back line: a stone lying entirely beyond it (y - r >= BACK_LINE_Y) is removed at once.
BACK_LINE_Y = 40.234
BACK_BOARD_Y = 43.892
#: Free guard zone (DC3 ``src/apply_move.cpp`` ``IsStoneInFreeGuardZone``, DC4
#: ``rules/free_guard_zone.hpp``): a stone in play (so past the hog line) that lies entirely in
#: front of this line (y + STONE_RADIUS < FGZ_LINE_Y: the tee line) and outside the house
#: (distance from the tee >= HOUSE_SCORE_RADIUS).
FGZ_LINE_Y = TEE_Y
#: The board behind the hack: a stone reaching it (y - r <= NEAR_BOARD_Y) is removed at once.
NEAR_BOARD_Y = -1.829

#: ``y_sim = y_shot - SIM_Y_OFFSET`` (the hack is at y_sim = -21.0315; the far tee at +17.3735).
SIM_Y_OFFSET = 21.0315

#: Release: every stone leaves the hack spinning at ±π/2 rad/s (DC3 ``apply_move.cpp``).
RELEASE_OMEGA = math.pi / 2
#: The normal-distribution player (DC3's defaults, DC4's player config): the speed is clamped to
#: MAX_SPEED, then N(0, SPEED_STD) is added to it and N(0, ANGLE_STD) to its direction.
MAX_SPEED = 4.0
SPEED_STD = 0.0076
ANGLE_STD = 0.0018

STONES_PER_TEAM = 8
SHOTS_PER_END = 16
