"""Sheet geometry and throw limits in the protocol frame (protocol.md §4).

Frame: origin at the far-end left corner of the sheet, x to the thrower's right, y toward the
thrower, metres. A throw travels toward decreasing y. Positions use ``(0, 0)`` for a stone that
is not in play (not yet thrown, or removed), exactly as POSITION messages do.

Position arrays everywhere in the package have shape ``(16, 2)`` (or ``(N, 16, 2)`` in batches):
row ``k`` is stone ``k`` of the current end in throwing order; even rows belong to the team that
throws first in this end, odd rows to the team with the hammer.
"""

from __future__ import annotations

SHEET_WIDTH = 4.75
SHEET_LENGTH = 44.5

CENTRE_X = 2.375
TEE_X = 2.375
TEE_Y = 4.88
TEE = (TEE_X, TEE_Y)

STONE_RADIUS = 0.145
HOUSE_RADIUS = 1.83  # radius used by course code for drawing
RING_RADII = (0.15, 0.61, 1.22, 1.87)
#: A stone is in the house when its centre is within this distance of the tee (1.87 + 0.145).
HOUSE_SCORE_RADIUS = 2.015

#: Release point of a throw: x = RELEASE_X + h (note the platform's -0.024 m bias), y = RELEASE_Y.
RELEASE_X = 2.3506
RELEASE_Y = 32.48
#: MOTIONINFO is reported, and sweeping may start, when the thrown stone crosses this line.
MIDSHEET_Y = 21.5
#: Sweeping ends at the far hog line.
FAR_HOG_Y = 10.34

#: In play after all stones stop: PLAY_X_MIN < x < PLAY_X_MAX and PLAY_Y_MIN < y < PLAY_Y_MAX.
PLAY_X_MIN = 0.145
PLAY_X_MAX = 4.605
PLAY_Y_MIN = 2.865  # fully past the back line (removed at once, even while moving)
PLAY_Y_MAX = 10.525  # short of the far hog line (removed after all stones stop)

#: Free guard zone: FGZ_Y_MIN < y < FGZ_Y_MAX and distance from the tee >= HOUSE_SCORE_RADIUS.
FGZ_Y_MIN = 5.025
FGZ_Y_MAX = 10.525
#: Free guard zone and centre-line rules protect guards during shots 0..RULE_LAST_SHOT of an end.
RULE_LAST_SHOT = 4
#: A protected centre guard must move more than this (metres) to count as moved (``rules``).
MOVE_TOLERANCE = 1e-3
#: Slack for the rules' inclusive boundaries (``>= 2.015``, ``<= 0.145``), so that values written
#: as e.g. ``2.375 + 0.145`` sit on the inclusive side despite float rounding (``rules``).
BOUNDARY_EPS = 1e-9

#: Throw limits (the platform clamps to these ranges).
V_MAX = 6.0
H_MAX = 2.23
W_MAX = 15.7
#: Sweeping distance limit (m after the mid-sheet line); the sweep window ends at the far hog
#: line, about 11 m on, anyway.
SWEEP_MAX = 12.0

STONES_PER_END = 16
STONES_PER_TEAM = 8
