"""Ice models: every parameter of the simulator's physics, named, with its source.

Sources quoted below:

- *notes*: the public reverse-engineering notes of the platform's Unity build
  (``WildPickledPepper/curling``, ``docs/unity_reverse/00``, ``01``, ``02``, ``04``), read to
  learn the model's structure; no code or text of theirs is in this package.
- *physics.md*: ``shared/spec/physics.md`` of this project.
- *fit*: ``measurements/fit_platform_ice.py``, fitted to ``rllib_curling/data/official_*.csv``
  (the calibration tables, noise off).

A model is a frozen dataclass, so it can be hashed: the engine caches the friction lookup table
(:func:`rllib_curling.physics.band.build_table`) per model. Add a new ice (for example UEC
Digital Curling's "fcv1") as another instance in :data:`ICE_MODELS`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: One running-band term: (kind "dry"|"wet", quadrant "BW"|"BA"|"FW"|"FA", radial position
#: -1 inner edge / 0 centre / +1 outer edge of the band, force weight, torque weight).
#: Quadrants are defined in :mod:`rllib_curling.physics.band`.
BandTerm = tuple[str, str, int, float, float]

#: The platform's dry/wet split of the band, per speed regime (notes 01, the three branches
#: of its friction step). Order: SLOW (< regime_slow), MID, FAST (>= regime_fast).
PLATFORM_BAND_TERMS: tuple[tuple[BandTerm, ...], ...] = (
    # slow: melt water dragged to one back quadrant; the rest of the ring is dry.
    (("dry", "BA", 0, 1.0, 1.0), ("dry", "FW", 0, 1.0, 1.0), ("dry", "FA", 0, 1.0, 1.0),
     ("wet", "BW", 0, 1.0, 1.0)),
    # mid: every quadrant half dry, half wet, on the band's inner and outer edges; the
    # platform weighs the wet torque fully (k r) but the wet force by k / 2.
    (("dry", "BW", 1, 0.5, 0.5), ("dry", "BA", 1, 0.5, 0.5),
     ("dry", "FW", -1, 0.5, 0.5), ("dry", "FA", -1, 0.5, 0.5),
     ("wet", "BW", -1, 0.5, 1.0), ("wet", "BA", -1, 0.5, 1.0),
     ("wet", "FW", 1, 0.5, 1.0), ("wet", "FA", 1, 0.5, 1.0)),
    # fast: back half dry, front half wet.
    (("dry", "BW", 0, 1.0, 1.0), ("dry", "BA", 0, 1.0, 1.0),
     ("wet", "FW", 0, 1.0, 1.0), ("wet", "FA", 0, 1.0, 1.0)),
)  # fmt: skip


@dataclass(frozen=True)
class IceModel:
    """Parameters of one ice. Units: metres, seconds, kilograms, radians; frame of sheet.py."""

    name: str
    # --- time ---------------------------------------------------------------------------------
    dt: float = 0.01  # s per tick: Unity Fixed_Timestep (notes 00)
    max_ticks: int = 12_000  # safety cap (120 s); a 6 m/s throw stops in < 40 s
    # --- friction coefficient (model units, notes 01; physics.md) -------------------------------
    mu: float = 0.0010  # nominal dry friction
    mu_noise: float = 0.0002  # +- uniform noise drawn every tick (notes 01)
    mu_swept: float = 0.0006  # while swept: 0.0010 * (1 - 0.4) (notes 01); PLATFORM: fit
    dry_accel: float = 100.0  # m/s^2 of dry deceleration per unit mu over the whole ring (notes 01)
    # --- running band (notes 01: R, DR, K, FAI, mass 19, J = 19 * 0.145^2) ---------------------
    band_radius: float = 0.125
    band_width: float = 0.006
    wet_k: float = 0.2
    wet_phi: float = 2.0
    mass: float = 19.0
    inertia: float = 0.399475
    spin_gain: float = 2.0  # spin update: 20 * steptime vs 10 * steptime for velocity (notes 01)
    band_terms: tuple[tuple[BandTerm, ...], ...] = PLATFORM_BAND_TERMS
    regime_fast: float = 1.5  # m/s (notes 01, physics.md)
    regime_slow: float = 1.0  # m/s
    reverse_flow_quirk: bool = True  # atan-based element direction (see band.py; notes 01)
    lateral_gain: float = 1.0  # scale of the lateral (curl) force; free, see fit
    torque_gain: float = 1.0  # scale of the spin change; free, see fit
    angular_damping: float = 0.05  # 1/s, Unity Rigidbody.angularDrag of the stones (notes 00)
    stop_speed: float = 0.01  # m/s: a stone this slow stops, spin with it (notes 01)
    #: Spin near zero: the platform's friction step replaces |w| <= spin_zero by +spin_floor
    #: (notes 01, Newfrictionstep), so a "straight" throw (w = 0) curls slightly toward +x.
    spin_zero: float = 1e-6
    spin_floor: float = 0.01
    # --- MOTIONINFO trigger and sweeping (notes 02) -------------------------------------------
    #: The thrown stone's collider (r = 0.1409) first overlaps the Midline trigger box (centre
    #: 21.3342, half width 0.0735) when its centre reaches this y ...
    midsheet_trigger_y: float = 21.548575
    #: ... and the server reports the state this many ticks later (the calibration table's
    #: MOTIONINFO y averages 21.52, i.e. one tick past the overlap).
    midsheet_delay_ticks: int = 1
    #: Sweeping lasts while y > max(sweep_origin_y - d, sweep_end_y): the Sweep component
    #: compares with the Midline's centre and the far hog line (notes 02).
    sweep_origin_y: float = 21.3342
    sweep_end_y: float = 10.3442
    #: Ticks from MOTIONINFO until the friction drops (the platform applies SWEEP when the
    #: client's message arrives; our server applies it at once, the model delays it).
    sweep_delay_ticks: int = 0
    # --- stone-stone contact (notes 00/04, physics.md) ----------------------------------------
    #: The platform's PhysX hull has r = 0.1409; we use the rules' 0.145 so that no two stones
    #: ever rest closer than 2 * STONE_RADIUS (no overlap as the rules see it).
    collider_radius: float = 0.145
    restitution: float = 1.0  # Bouncy material (notes 00)
    bounce_threshold: float = 0.05  # m/s: slower impacts do not bounce (PhysicsManager, notes 00)
    contact_friction: float = 0.36  # 0.6 * 0.6: Bouncy on Bouncy, combine Multiply (notes 00)
    contact_inertia_factor: float = 0.5  # I = f m r^2 for the rigid body (solid cylinder)
    # --- motion after a contact: PhysX rigid body on the Ice material (notes 00/01) -----------
    #: After its first contact a stone (and any stone it sets moving) no longer uses the band
    #: model (notes 01: FixedUpdate skips the friction step once mCollision is set): PhysX moves
    #: it with Coulomb friction Bouncy 0.6 * Ice 0.02 (Multiply; notes 00) under g = 9.81, no
    #: curl ...
    contact_mu: float = 0.012
    gravity: float = 9.81
    #: ... and its patch friction (PhysicsManager frictionType 0 = patch, notes 00/04) bounds the
    #: friction of each of a patch's two anchors by mu * N, so a sliding stone decelerates at
    #: up to 2 mu g. The recorded collisions confirm the factor: fitting the sliding deceleration
    #: alone to official_collisions.csv puts it at 2.00 (least median error of the struck stone)
    #: to 2.08 (least RMS, pulled by the v = 4 repeats, which spread 0.55 m) times 0.012 * 9.81,
    #: for head-on and glancing hits alike at impact speeds 0.8-1.4 m/s; with 1 anchor the struck
    #: stone slides 2.0x too far (measurements/RESULTS.md, "Collisions").
    contact_friction_anchors: int = 2
    max_contact_spin: float = 3.14  # rad/s: PhysicsManager defaultMaxAngularSpeed (notes 00)

    def replace(self, **changes: Any) -> IceModel:
        """A copy with some parameters changed (``dataclasses.replace``)."""
        from dataclasses import replace

        return replace(self, **changes)


#: The course platform's ice. The four numbers below came from measurements/fit_platform_ice.py
#: run on rllib_curling/data/official_landing.csv and official_midsheet.csv plus the official
#: free draws (calibration.OFFICIAL_FREE_DRAWS), noise off, with the spin floor; the nominal
#: values were 1.0, 1.0, 0.2 and 0.0006. Figures reached (curling calibrate): landing RMS
#: 0.029 m over the 120 no-sweep rows (0.017 m without the 24 w = 0 rows: the table's smooth fit
#: has no drift at w = 0, the platform's recorded w = 0 throws drift +4.9 cm, as the spin floor
#: does), 0.073 m over the 27 sweep rows; MOTIONINFO speed within 0.1 %, spin within 0.7 %, x
#: within 0.001 m; the v = 3 free draw 1.2 cm from the official mean. Sweeping on the platform
#: barely lengthens a throw (the tables show <= 0.15 m for 12 m of sweeping), hence mu_swept
#: close to mu.
PLATFORM = IceModel(
    name="platform",
    lateral_gain=0.9834,
    torque_gain=0.96987,
    wet_k=0.19995,
    mu_swept=0.0009794,
)

ICE_MODELS: dict[str, IceModel] = {"platform": PLATFORM}
