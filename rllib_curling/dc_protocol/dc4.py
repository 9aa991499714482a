"""DC4's HTTP API as data (``DigitalCurling4-Server`` ``src/routers/match.py``,
``src/models/dc_models.py``; ``dc4client`` 1.0.4 / 1.0.7): the paths, the request bodies parsed
into frozen dataclasses with the answers DC4's server gives, and a shot's conversion to DC's
shot frame. The state JSON is in dc4_state.py, the stream's framing in sse.py, basic auth in
basic_auth.py.

| call                                   | body / query (here)                        | answer   |
|----------------------------------------|--------------------------------------------|----------|
| ``POST /matches``                      | ``MatchRequest``                           | match id |
| ``POST /store-team-config?match_id=…`` | ``TeamConfig``, ``parse_team_config_query`` | team0/1  |
| ``  &expected_match_team_name=team0|1``|                                            |          |
| ``GET /matches/{id}/stream``           | —                                          | SSE      |
| ``POST /shots?match_id=…``             | ``ShotInfo``, ``parse_shot_query``         | null     |

``X.parse(obj)`` takes the body as ``json.loads`` gave it and raises ``InvalidFields`` (422,
pydantic-style details, every issue at once) or, for a body that parsed but breaks a rule of the
match, ``BadRequest`` (400) / ``NotFound`` (404) with DC4's detail text (refusals.py).
Unknown keys are ignored, as pydantic ignores them.

**Spin** (``Release``): a client's ``angular_velocity`` is positive clockwise; DC's frame
(dc_sheet.py) has ω positive counter-clockwise. ``Release.from_request`` clamps |ω| to
[``MIN_OMEGA``, ``MAX_OMEGA``] and flips the sign; a request's ω = 0 becomes +``MIN_OMEGA``
(ccw), as DC4's server does (``np.sign(0)`` flips nothing). The velocity is
(v cos θ, v sin θ): θ = π/2 is straight down the sheet.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Mapping
from dataclasses import dataclass

from rllib_curling.dc_protocol.dc3_state import TEAMS, Shot
from rllib_curling.dc_protocol.fields import Node
from rllib_curling.dc_protocol.refusals import (
    SIMULATOR_NOT_FOUND,
    BadRequest,
    FieldIssue,
    InvalidFields,
    JsonObject,
    NotFound,
)
from rllib_curling.dc_sheet import ANGLE_STD, MAX_SPEED, RELEASE_OMEGA, SPEED_STD

PATH_MATCHES = "/matches"
PATH_TEAM_CONFIG = "/store-team-config"
PATH_SHOTS = "/shots"
#: ``GET`` (basic auth): the team's SSE stream; ``/viewer`` (no auth) for spectators.
PATH_STREAM = "/matches/{match_id}/stream"
PATH_VIEWER = "/matches/{match_id}/viewer"
#: Mixed doubles only: ``POST …?request=center_guard|center_house|pp_left|pp_right``.
PATH_END_SETUP = "/matches/{match_id}/end-setup"

GAME_MODES = ("standard", "mixed_doubles")
#: dc4client 1.0.4's spelling of ``mixed_doubles`` (its ``GameMode``), read as that.
LEGACY_GAME_MODES = {"mix_doubles": "mixed_doubles"}
APPLIED_RULES = ("fgz_rule", "no_tick_rule", "modified_fgz_rule")
SIMULATORS = ("fcv1",)
#: ``positioned_stones_pattern`` of a mixed-doubles match (null reads as 0).
POSITIONED_STONES_PATTERNS = range(0, 6)
#: DC4's server clamps |ω| to [MIN_OMEGA, MAX_OMEGA]; MAX_OMEGA is DC3's fixed release spin.
MIN_OMEGA = math.pi / 6
MAX_OMEGA = RELEASE_OMEGA


@dataclass(frozen=True)
class MatchRequest:
    """``POST /matches``: the match to create (time limits in seconds, per team)."""

    game_mode: str
    tournament_name: str
    simulator_name: str
    applied_rule: str
    time_limit: float
    extra_end_time_limit: float
    standard_end_count: int
    match_name: str
    positioned_stones_pattern: int | None = None

    def to_json(self) -> JsonObject:
        return {
            "game_mode": self.game_mode,
            "tournament": {"tournament_name": self.tournament_name},
            "simulator": {"simulator_name": self.simulator_name},
            "applied_rule": self.applied_rule,
            "time_limit": self.time_limit,
            "extra_end_time_limit": self.extra_end_time_limit,
            "standard_end_count": self.standard_end_count,
            "match_name": self.match_name,
            "positioned_stones_pattern": self.positioned_stones_pattern,
        }

    @staticmethod
    def parse(obj: object) -> MatchRequest:
        body = Node.root(obj, ("body",))
        body.is_object()
        mode = body["game_mode"]
        legacy = LEGACY_GAME_MODES.get(mode.value) if isinstance(mode.value, str) else None
        request = MatchRequest(
            game_mode=legacy or mode.choice(GAME_MODES),
            tournament_name=body["tournament"]["tournament_name"].text(),
            simulator_name=body["simulator"]["simulator_name"].text(),
            applied_rule=body["applied_rule"].choice(APPLIED_RULES),
            time_limit=body["time_limit"].number(),
            extra_end_time_limit=body["extra_end_time_limit"].number(),
            standard_end_count=body["standard_end_count"].integer(),
            match_name=body["match_name"].text(),
            positioned_stones_pattern=body["positioned_stones_pattern"].maybe_integer(),
        )
        body.done()
        request.check()
        return request

    def check(self) -> None:
        """The rules DC4's server checks after the types, in its order (400 / 404)."""
        mixed = self.game_mode == "mixed_doubles"
        pattern = self.positioned_stones_pattern
        if mixed and pattern is not None and pattern not in POSITIONED_STONES_PATTERNS:
            raise BadRequest("positioned_stones_pattern must be between 0 and 5.")
        if self.simulator_name not in SIMULATORS:
            raise NotFound(SIMULATOR_NOT_FOUND)
        if mixed and self.applied_rule != "modified_fgz_rule":
            raise BadRequest('Mixed doubles only supports "modified_fgz_rule".')
        if not mixed and self.applied_rule == "modified_fgz_rule":
            raise BadRequest('Standard game mode does not support "modified_fgz_rule".')
        if self.standard_end_count < 1:  # DC4 does not check; a match needs an end
            raise BadRequest("standard_end_count must be at least 1.")


@dataclass(frozen=True)
class PlayerConfig:
    """One player's noise: the speed is clamped to ``max_velocity`` (m/s), then N(0,
    ``shot_std_dev``) m/s is added to it and N(0, ``angle_std_dev``) rad to its direction."""

    player_name: str
    max_velocity: float = MAX_SPEED
    shot_std_dev: float = SPEED_STD
    angle_std_dev: float = ANGLE_STD

    def to_json(self) -> JsonObject:
        return {
            "max_velocity": self.max_velocity,
            "shot_std_dev": self.shot_std_dev,
            "angle_std_dev": self.angle_std_dev,
            "player_name": self.player_name,
        }

    @staticmethod
    def from_node(node: Node) -> PlayerConfig | None:
        if not node.present:
            return None
        return PlayerConfig(
            max_velocity=node["max_velocity"].number(),
            shot_std_dev=node["shot_std_dev"].number(),
            angle_std_dev=node["angle_std_dev"].number(),
            player_name=node["player_name"].text(),
        )


@dataclass(frozen=True)
class TeamConfig:
    """``POST /store-team-config``: the team's name and players (``player3``/``player4`` None
    in mixed doubles). ``use_default_config``: the server ignores the players and uses its
    own. ``match_team_name``: dc4client 1.0.7 sends it; DC4's server ignores it (the query's
    ``expected_match_team_name`` picks the side)."""

    team_name: str
    player1: PlayerConfig
    player2: PlayerConfig
    player3: PlayerConfig | None = None
    player4: PlayerConfig | None = None
    use_default_config: bool = False
    match_team_name: str | None = None

    def to_json(self) -> JsonObject:
        out: JsonObject = {
            "use_default_config": self.use_default_config,
            "team_name": self.team_name,
        }
        if self.match_team_name is not None:
            out["match_team_name"] = self.match_team_name
        for k, player in enumerate(self.players(), start=1):
            out[f"player{k}"] = None if player is None else player.to_json()
        return out

    def players(self) -> tuple[PlayerConfig | None, ...]:
        return self.player1, self.player2, self.player3, self.player4

    @staticmethod
    def parse(obj: object) -> TeamConfig:
        body = Node.root(obj, ("body",))
        body.is_object()
        use_default = body["use_default_config"].boolean()  # pydantic's order: the model's
        team_name = body["team_name"].text()
        players = [PlayerConfig.from_node(body[f"player{k}"]) for k in (1, 2, 3, 4)]
        for k in (1, 2):
            if players[k - 1] is None:  # required, not nullable
                body[f"player{k}"].fail(
                    "model_attributes_type", "Input should be a valid dictionary"
                )
        config = TeamConfig(
            team_name=team_name,
            player1=players[0] or PlayerConfig(""),
            player2=players[1] or PlayerConfig(""),
            player3=players[2],
            player4=players[3],
            use_default_config=use_default,
            match_team_name=body["match_team_name"].maybe_text(),
        )
        body.done()
        return config

    def check(self, game_mode: str) -> tuple[PlayerConfig, ...]:
        """The players in throwing order for ``game_mode`` (none with ``use_default_config``),
        or DC4's 400."""
        extra = self.player3 is not None or self.player4 is not None
        mixed = game_mode == "mixed_doubles"
        if mixed and extra:
            raise BadRequest(
                "Mixed doubles uses only player1/player2; player3/player4 must be omitted."
            )
        if self.use_default_config:
            return ()  # the server's own players
        if mixed:
            return self.player1, self.player2
        if self.player3 is None or self.player4 is None:
            raise BadRequest("player3 and player4 are required for standard mode.")
        return self.player1, self.player2, self.player3, self.player4


def _query(params: Mapping[str, str], names: tuple[str, ...]) -> list[Node]:
    issues: list[FieldIssue] = []
    root = Node(dict(params), ("query",), issues)
    return [root[name] for name in names]


def _match_id(node: Node) -> str:
    text = node.text()
    if not node.present:
        return text
    try:
        return str(uuid.UUID(text.strip()))
    except ValueError:
        node.fail("uuid_parsing", "Input should be a valid UUID")
        return text


def parse_team_config_query(params: Mapping[str, str]) -> tuple[str, str]:
    """(match id, the side wanted) of ``store-team-config``'s query; 422 when wrong."""
    match_id, team = _query(params, ("match_id", "expected_match_team_name"))
    result = (_match_id(match_id), team.choice(TEAMS))
    match_id.done()
    return result


def parse_shot_query(params: Mapping[str, str]) -> str:
    """The match id of ``POST /shots``; 422 when missing or not a UUID."""
    (match_id,) = _query(params, ("match_id",))
    result = _match_id(match_id)
    match_id.done()
    return result


@dataclass(frozen=True)
class ShotInfo:
    """DC4's three numbers of a shot (``ShotInfoModel``): ``translational_velocity`` (m/s),
    ``shot_angle`` (rad, π/2 straight), ``angular_velocity`` (rad/s). In ``POST /shots`` a
    client's positive ω is clockwise; in a state's ``last_move`` DC4 writes the thrown ω in DC's
    frame (the sign flipped), see ``Release``."""

    translational_velocity: float
    angular_velocity: float
    shot_angle: float

    def __post_init__(self) -> None:
        node = Node.root(self.to_json(), ("body",))
        for key in ("translational_velocity", "angular_velocity", "shot_angle"):
            node[key].number()
        if node.issues:
            raise InvalidFields(node.issues)

    def to_json(self) -> JsonObject:
        return {
            "translational_velocity": self.translational_velocity,
            "angular_velocity": self.angular_velocity,
            "shot_angle": self.shot_angle,
        }

    @staticmethod
    def from_node(node: Node) -> ShotInfo | None:
        if not node.present:
            return None
        numbers = [
            node[k].number() for k in ("translational_velocity", "angular_velocity", "shot_angle")
        ]
        return ShotInfo(*numbers)

    @staticmethod
    def parse(obj: object) -> ShotInfo:
        body = Node.root(obj, ("body",))
        body.is_object()
        info = ShotInfo.from_node(body) if body.present else None
        body.done()
        assert info is not None
        return info


@dataclass(frozen=True)
class Release:
    """A throw in DC's shot frame: velocity (vx, vy) m/s and spin ω rad/s, positive ccw."""

    vx: float
    vy: float
    omega: float

    @property
    def speed(self) -> float:
        return math.hypot(self.vx, self.vy)

    @property
    def angle(self) -> float:
        return math.atan2(self.vy, self.vx)

    @property
    def rotation(self) -> str:
        """DC3's rotation: ``"ccw"`` for ω > 0, else ``"cw"``."""
        return "ccw" if self.omega > 0 else "cw"

    @staticmethod
    def from_request(info: ShotInfo) -> Release:
        """As DC4's server reads ``POST /shots``: clamp |ω|, flip its sign (see the module)."""
        magnitude = min(max(abs(info.angular_velocity), MIN_OMEGA), MAX_OMEGA)
        omega = (
            -math.copysign(magnitude, info.angular_velocity) if info.angular_velocity else magnitude
        )
        v, theta = info.translational_velocity, info.shot_angle
        return Release(v * math.cos(theta), v * math.sin(theta), omega)

    @staticmethod
    def from_last_move(info: ShotInfo) -> Release:
        """A state's ``last_move``: ω is already in DC's frame."""
        v, theta = info.translational_velocity, info.shot_angle
        return Release(v * math.cos(theta), v * math.sin(theta), info.angular_velocity)

    def as_request(self) -> ShotInfo:
        """The body a client posts to throw this (ω in the client's sign)."""
        return ShotInfo(self.speed, -self.omega, self.angle)

    def as_last_move(self) -> ShotInfo:
        """``last_move`` as DC4's server writes it (ω in DC's frame: the client's sign flipped)."""
        return ShotInfo(self.speed, self.omega, self.angle)

    def as_dc3(self) -> Shot:
        """DC3's move: the velocity and the spin's direction (DC3 spins at ±RELEASE_OMEGA)."""
        return Shot(self.vx, self.vy, self.rotation)
