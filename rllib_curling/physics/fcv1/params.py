"""The fcv1 ice's physics constants (UEC Digital Curling, DC3 and DC4): every number the fcv1
kernels use that is not a fact of the sheet (those are in :mod:`rllib_curling.dc_sheet`).

Sources: ``shared/spec/digital_curling.md`` §2 and ``shared/calibration/dc3/README.md`` (which
name the DC3 source lines), and Box2D v2.4.1's documented settings (``b2_common.h``,
``b2_settings.h``) for the contact solver that DC3 runs its stones on.

Free flight (applied to every moving stone before each Box2D step; v the speed before it):

==========================  ==================================================================
speed                       ``v += a(v) dt``, ``a(v) = -G (DECEL_A / (v + DECEL_B) + DECEL_C)``;
                            a new speed <= 0 stops the stone (velocity 0)
curl                        the velocity turns by ``sign(w) CURL_K v**CURL_POW dt`` radians
                            (positive w, counter-clockwise, turns the path toward -x)
spin                        ``|w| -= SPIN_DECAY / max(v, SPIN_V_MIN) dt``, not below 0
==========================  ==================================================================
"""

from __future__ import annotations

import numpy as np

from rllib_curling import dc_sheet

DT = 0.001  # s per step (DC3 simulator_fcv1_factory.hpp: seconds_per_frame)
G = 9.80665  # m/s^2
DECEL_A = 0.00200985
DECEL_B = 0.06385782
DECEL_C = 0.00626286
CURL_K = 0.00820
CURL_POW = -0.8
SPIN_DECAY = 0.025
SPIN_V_MIN = 0.001

#: ``b2World::Step(dt, 8, 3)``: velocity and position iterations of the contact solver.
VELOCITY_ITERATIONS = 8
POSITION_ITERATIONS = 3
#: Stone-stone contact: restitution 1 with threshold 0, friction 0.2 (sqrt(0.2 * 0.2) mixed).
RESTITUTION = 1.0
RESTITUTION_THRESHOLD = 0.0
CONTACT_FRICTION = 0.2
#: Box2D's position correction: Baumgarte factor, linear slop, largest correction per
#: iteration; a solve counts as done when no contact overlaps more than 3 slops.
BAUMGARTE = 0.2
LINEAR_SLOP = 0.005
MAX_LINEAR_CORRECTION = 0.2
#: Box2D's fat bounding boxes grow each shape's box by this margin; a contact exists (and
#: enters a body's contact list, newest first) while two fat boxes overlap.
AABB_MARGIN = 0.1
#: The stop test: every stone's squared speed <= FLT_EPSILON and w <= FLT_EPSILON (DC3 compares
#: w itself, not |w|: a clockwise stone counts as stopped once its speed is 0).
STOP_EPS = float(np.finfo(np.float32).eps)
#: Safety cap on the steps of one shot (a 5 m/s stone stops in about 42 s).
MAX_STEPS = 120_000
#: Frames of trajectories: every this many steps (0.1 s), as DC3's server records them.
FRAME_STEPS = 100

RADIUS = dc_sheet.STONE_RADIUS
MASS = dc_sheet.STONE_MASS
INV_MASS = 1.0 / MASS
#: A solid disc: I = m r^2 / 2 about its centre.
INV_INERTIA = 1.0 / (0.5 * MASS * RADIUS * RADIUS)

#: Statuses of a stone after a shot (``status`` arrays of :mod:`.engine`).
EMPTY, IN_PLAY, OUT_SIDE, OUT_BACK, OUT_HOG = 0, 1, 2, 3, 4
STATUS_NAMES = ("empty", "in_play", "out_side", "out_back", "out_hog")


def decel(v: float) -> float:
    """a(v) of the fcv1 ice, m/s^2 (negative), for a stone moving at ``v`` m/s."""
    return -G * (DECEL_A / (v + DECEL_B) + DECEL_C)
