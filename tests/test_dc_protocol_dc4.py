"""Tests of rllib_curling.dc_protocol's DC4 modules: request bodies and DC4's answers, the shot's
conversion to DC's frame, the state JSON both dc4client versions read, SSE, basic auth."""

from __future__ import annotations

import base64
import json
import math
from typing import Any

import pytest

from rllib_curling.dc_protocol import basic_auth, refusals, sse
from rllib_curling.dc_protocol.dc3_state import Shot
from rllib_curling.dc_protocol.dc4 import (
    MAX_OMEGA,
    MIN_OMEGA,
    MatchRequest,
    PlayerConfig,
    Release,
    ShotInfo,
    TeamConfig,
    parse_shot_query,
    parse_team_config_query,
)
from rllib_curling.dc_protocol.dc4_state import (
    DC4CLIENT_REQUIRED_KEYS,
    EVENT_LATEST_STATE_UPDATE,
    EVENT_STATE_UPDATE,
    LEGACY_SPELLINGS,
    NOT_IN_PLAY,
    State,
    team_stones,
)
from rllib_curling.dc_sheet import MAX_SPEED, RELEASE_OMEGA, SHOTS_PER_END, STONES_PER_TEAM
from rllib_curling.errors import ProtocolError

MATCH = MatchRequest("standard", "GAT 2026", "fcv1", "no_tick_rule", 219.5, 21.9, 8, "final")
TEAM = TeamConfig(
    "Tsinghua",
    PlayerConfig("lead"),
    PlayerConfig("second", 3.5, 0.01, 0.002),
    PlayerConfig("third"),
    PlayerConfig("skip"),
    match_team_name="team1",
)
MATCH_ID = "0192f1a4-7c1e-7b3a-9d2e-1f2a3b4c5d6e"


def _refusal(call: Any, *args: Any) -> refusals.HttpRefusal:
    with pytest.raises(refusals.HttpRefusal) as info:
        call(*args)
    assert isinstance(info.value, ProtocolError)
    return info.value


def _issues(err: refusals.HttpRefusal) -> dict[tuple[Any, ...], str]:
    body = err.body()
    assert err.status == 422 and isinstance(body["detail"], list)
    return {tuple(d["loc"]): d["type"] for d in body["detail"]}  # type: ignore[index]


# ----------------------------------------------------------------------------- requests


def test_match_request__round_trip_with_null_pattern_and_float_limits() -> None:
    body = json.loads(json.dumps(MATCH.to_json()))
    assert body["tournament"] == {"tournament_name": "GAT 2026"}
    assert body["positioned_stones_pattern"] is None
    assert MatchRequest.parse(body) == MATCH
    body["standard_end_count"] = 8.0
    assert MatchRequest.parse(body) == MATCH


def test_match_request__422_lists_every_issue_pydantic_style() -> None:
    body = MATCH.to_json() | {"game_mode": "doubles", "time_limit": "soon", "tournament": "x"}
    del body["match_name"]
    err = _refusal(MatchRequest.parse, body)
    assert _issues(err) == {
        ("body", "game_mode"): "enum",
        ("body", "tournament"): "model_attributes_type",
        ("body", "time_limit"): "float_parsing",
        ("body", "match_name"): "missing",
    }
    detail = err.body()["detail"][0]  # type: ignore[index]
    assert detail == {
        "type": "enum",
        "loc": ["body", "game_mode"],
        "msg": "Input should be 'standard' or 'mixed_doubles'",
        "input": "doubles",
    }
    assert _issues(_refusal(MatchRequest.parse, None)) == {("body",): "model_attributes_type"}


@pytest.mark.parametrize(
    ("change", "status", "detail"),
    [
        (
            {"applied_rule": "modified_fgz_rule"},
            400,
            'Standard game mode does not support "modified_fgz_rule".',
        ),
        ({"game_mode": "mixed_doubles"}, 400, 'Mixed doubles only supports "modified_fgz_rule".'),
        (
            {
                "game_mode": "mixed_doubles",
                "applied_rule": "modified_fgz_rule",
                "positioned_stones_pattern": 6,
            },
            400,
            "positioned_stones_pattern must be between 0 and 5.",
        ),
        ({"simulator": {"simulator_name": "fcv2"}}, 404, "Simulator not found."),
    ],
)
def test_match_request__rules_of_the_match_get_dc4s_answers(
    change: dict[str, Any], status: int, detail: str
) -> None:
    err = _refusal(MatchRequest.parse, MATCH.to_json() | change)
    assert (err.status, err.body()) == (status, {"detail": detail})


def test_match_request__mixed_doubles_with_null_pattern_passes() -> None:
    body = MATCH.to_json() | {"game_mode": "mixed_doubles", "applied_rule": "modified_fgz_rule"}
    assert MatchRequest.parse(body).positioned_stones_pattern is None


def test_match_request__dc4client_1_0_4s_mix_doubles_reads_as_mixed_doubles() -> None:
    body = MATCH.to_json() | {"game_mode": "mix_doubles", "applied_rule": "modified_fgz_rule"}
    assert MatchRequest.parse(body).game_mode == "mixed_doubles"
    err = _refusal(MatchRequest.parse, MATCH.to_json() | {"game_mode": "mix_doubles"})
    assert err.body() == {"detail": 'Mixed doubles only supports "modified_fgz_rule".'}


def test_team_config__round_trip_and_players_in_order() -> None:
    body = TEAM.to_json()
    assert body["match_team_name"] == "team1" and body["player2"]["max_velocity"] == 3.5
    assert TeamConfig.parse(body) == TEAM
    assert [p.player_name for p in TEAM.check("standard")] == ["lead", "second", "third", "skip"]
    assert PlayerConfig("x").max_velocity == MAX_SPEED


def test_team_config__nullable_players_and_dc4s_400s() -> None:
    pair = TeamConfig("MD", PlayerConfig("a"), PlayerConfig("b"))
    body = pair.to_json()
    assert body["player3"] is None and body["player4"] is None
    assert TeamConfig.parse(body) == pair
    assert len(pair.check("mixed_doubles")) == 2
    err = _refusal(pair.check, "standard")
    assert err.body() == {"detail": "player3 and player4 are required for standard mode."}
    err = _refusal(TEAM.check, "mixed_doubles")
    assert "player3/player4 must be omitted" in err.detail
    assert (
        TeamConfig("D", PlayerConfig("a"), PlayerConfig("b"), use_default_config=True).check(
            "standard"
        )
        == ()
    )


def test_team_config__422_on_bad_fields() -> None:
    body = TEAM.to_json() | {"use_default_config": "maybe", "player1": None}
    body["player2"] = {"max_velocity": True, "shot_std_dev": 0.1, "angle_std_dev": 0.1}
    assert _issues(_refusal(TeamConfig.parse, body)) == {
        ("body", "use_default_config"): "bool_parsing",
        ("body", "player1"): "model_attributes_type",
        ("body", "player2", "max_velocity"): "float_type",
        ("body", "player2", "player_name"): "missing",
    }


def test_queries__match_id_and_side() -> None:
    assert parse_team_config_query(
        {"match_id": MATCH_ID.upper(), "expected_match_team_name": "team0"}
    ) == (
        MATCH_ID,
        "team0",
    )
    assert parse_shot_query({"match_id": MATCH_ID}) == MATCH_ID
    assert _issues(
        _refusal(parse_team_config_query, {"match_id": "abc", "expected_match_team_name": "t"})
    ) == {
        ("query", "match_id"): "uuid_parsing",
        ("query", "expected_match_team_name"): "enum",
    }
    assert _issues(_refusal(parse_shot_query, {})) == {("query", "match_id"): "missing"}


def test_shot_info__parse_and_refusals() -> None:
    body = {"translational_velocity": 2.3, "angular_velocity": "1.5", "shot_angle": 1}
    assert ShotInfo.parse(body) == ShotInfo(2.3, 1.5, 1.0)
    bad = {"translational_velocity": float("nan"), "angular_velocity": False}
    assert _issues(_refusal(ShotInfo.parse, bad)) == {
        ("body", "translational_velocity"): "finite_number",
        ("body", "angular_velocity"): "float_type",
        ("body", "shot_angle"): "missing",
    }
    with pytest.raises(refusals.InvalidFields):
        ShotInfo(math.inf, 0.0, 0.0)


# ----------------------------------------------------------------------------- the shot's frame


def test_release__straight_shot() -> None:
    release = Release.from_request(ShotInfo(2.35, 1.0, math.pi / 2))
    assert release.vx == pytest.approx(0.0, abs=1e-12) and release.vy == pytest.approx(2.35)
    assert release.speed == pytest.approx(2.35) and release.angle == pytest.approx(math.pi / 2)


def test_release__clients_positive_spin_is_clockwise() -> None:
    cw = Release.from_request(ShotInfo(2.0, 1.0, math.pi / 2))
    ccw = Release.from_request(ShotInfo(2.0, -1.0, math.pi / 2))
    assert (cw.omega, cw.rotation) == (-1.0, "cw") and (ccw.omega, ccw.rotation) == (1.0, "ccw")
    assert cw.as_dc3() == Shot(cw.vx, cw.vy, "cw") and cw.as_dc3().omega == -RELEASE_OMEGA


@pytest.mark.parametrize(
    ("requested", "omega"),
    [(0.1, -MIN_OMEGA), (-0.1, MIN_OMEGA), (5.0, -MAX_OMEGA), (-5.0, MAX_OMEGA), (0.0, MIN_OMEGA)],
)
def test_release__spin_clamped_to_dc4s_range(requested: float, omega: float) -> None:
    assert Release.from_request(ShotInfo(2.0, requested, 1.5)).omega == pytest.approx(omega)
    assert (MIN_OMEGA, MAX_OMEGA) == pytest.approx((math.pi / 6, math.pi / 2))


def test_release__request_and_last_move_round_trips() -> None:
    release = Release(0.12, 2.4, -1.2)
    request = release.as_request()
    assert request.angular_velocity == 1.2  # the client's sign: positive = clockwise
    back = Release.from_request(request)
    assert (back.vx, back.vy, back.omega) == pytest.approx((0.12, 2.4, -1.2))
    last = release.as_last_move()
    assert last.angular_velocity == -1.2  # DC's frame: the client's sign flipped, as DC4 sends it
    assert Release.from_last_move(last).omega == -1.2


# ----------------------------------------------------------------------------- state JSON


def _state(**change: Any) -> State:
    values: dict[str, Any] = dict(
        end_number=1,
        total_shot_number=5,
        next_shot_team="team1",
        remaining_time=(200.25, 190.5),
        extra_end_remaining_time=(21.9, 21.9),
        stones=(
            team_stones([(0.1, 38.4), None, (-0.5, 36.0)]),
            team_stones([(1.0, 39.0), (0.2, 37.5)]),
        ),
        score=((1, 0, 0, 0, 0, 0, 0, 0, 0), (0,) * 9),
        last_move=Release(0.05, 2.3, 1.2).as_last_move(),
        first_team_name="A",
        second_team_name="B",
    )
    return State(**(values | change))


def test_state__has_every_key_dc4client_107_requires_and_both_spellings() -> None:
    obj = json.loads(json.dumps(_state().to_json()))
    assert set(DC4CLIENT_REQUIRED_KEYS) <= set(obj)
    for new, old in LEGACY_SPELLINGS.items():
        assert new in obj and old in obj and obj[new] == obj[old]
    assert obj["team_shot_number"] == 2 and obj["total_shot_number"] == 5
    assert obj["first_team_name"] == "A" and obj["second_team_name"] == "B"
    assert obj["first_team_remaining_time"] == 200.25 and obj["second_team_remaining_time"] == 190.5
    assert set(obj["last_move"]) == {"translational_velocity", "angular_velocity", "shot_angle"}
    assert obj["last_move"]["angular_velocity"] == 1.2
    data = obj["stone_coordinate"]["data"]
    assert [len(data["team0"]), len(data["team1"])] == [STONES_PER_TEAM] * 2
    assert data["team0"][:3] == [
        {"x": 0.1, "y": 38.4},
        {"x": 0.0, "y": 0.0},
        {"x": -0.5, "y": 36.0},
    ]
    assert data["team1"][7] == dict(zip("xy", NOT_IN_PLAY, strict=True))
    assert obj["score"] == {"team0": [1] + [0] * 8, "team1": [0] * 9}


def test_state__end_final_state_at_shot_16() -> None:
    final = _state(total_shot_number=SHOTS_PER_END, next_shot_team=None).to_json()
    assert (final["total_shot_number"], final["team_shot_number"], final["next_shot_team"]) == (
        16,
        8,
        None,
    )
    with pytest.raises(ProtocolError, match="next_shot_team 'team0' at shot 16"):
        _state(total_shot_number=SHOTS_PER_END, next_shot_team="team0")
    with pytest.raises(ProtocolError, match="total_shot_number 17"):
        _state(total_shot_number=17)
    with pytest.raises(ProtocolError, match="winner_team"):
        _state(winner_team="team2")


def test_state__parse_round_trip_and_legacy_spellings() -> None:
    state = _state(
        mixed_doubles_settings={"end_setup_team": "team1", "positioned_stones_pattern": 0}
    )
    assert State.parse(json.loads(json.dumps(state.to_json()))) == state
    legacy = state.to_json()
    del legacy["team_shot_number"], legacy["mixed_doubles_settings"]
    assert State.parse(legacy) == state
    del legacy["stone_coordinate"], legacy["score"], legacy["first_team_name"]
    minimal = State.parse(legacy)
    assert minimal.stones == (team_stones(()), team_stones(())) and minimal.first_team_name is None


def test_state__parse_refuses_missing_required_keys() -> None:
    obj = _state().to_json()
    del obj["end_number"]
    obj["total_shot_number"] = 20
    assert _issues(_refusal(State.parse, obj)) == {
        ("state", "end_number"): "missing",
        ("state", "total_shot_number"): "less_than_equal",
    }


# ----------------------------------------------------------------------------- SSE


def test_sse__state_event_framing() -> None:
    state = _state()
    wire = sse.encode_event(state.event())
    head, data = wire.split(b"\n", 1)
    assert (
        head == b"event: latest_state_update"
        and data.startswith(b"data: {")
        and data.endswith(b"}\n\n")
    )
    assert wire.count(b"\n") == 3
    assert sse.encode_event(state.event(latest=False)).startswith(b"event: state_update\n")
    assert (
        sse.encode_event(sse.Event("a\nb", "x", id="7")) == b"event: x\nid: 7\ndata: a\ndata: b\n\n"
    )
    assert sse.PING == b": ping\n\n"
    assert sse.PING_INTERVAL < sse.DC4CLIENT_READ_TIMEOUT
    with pytest.raises(ProtocolError):
        sse.encode_event(sse.Event("{}", "bad\nname"))


def _stream() -> tuple[bytes, list[sse.Item]]:
    replay, live = _state(total_shot_number=4), _state()
    items: list[sse.Item] = [
        replay.event(latest=False),
        sse.Comment("ping"),
        live.event(),
        sse.Comment("ping"),
    ]
    wire = (
        sse.encode_event(replay.event(latest=False))
        + sse.PING
        + sse.encode_event(live.event())
        + sse.PING
    )
    return wire, items


def test_sse__parser_round_trip_states_and_pings() -> None:
    wire, items = _stream()
    out = sse.EventParser().feed(wire)
    assert out == items
    events = [item for item in out if isinstance(item, sse.Event)]
    assert [e.event for e in events] == [EVENT_STATE_UPDATE, EVENT_LATEST_STATE_UPDATE]
    assert State.from_event(events[1]) == _state()


@pytest.mark.parametrize("eol", [b"\n", b"\r\n", b"\r"])
def test_sse__parser_any_split_and_line_ending(eol: bytes) -> None:
    wire, items = _stream()
    wire = b"\xef\xbb\xbf" + wire.replace(b"\n", eol)
    for step in (1, 2, 7, 64):
        parser = sse.EventParser()
        out: list[sse.Item] = []
        for k in range(0, len(wire), step):
            out += parser.feed(wire[k : k + step])
        assert out == items, (eol, step)


def test_sse__parser_details_of_the_standard() -> None:
    parser = sse.EventParser()
    assert parser.feed(b"event: x\n\n") == []  # no data: nothing dispatched
    assert parser.feed(b"data:a\ndata\ndata:  b\nid: 4\nretry: 10\nfoo: 1\n\n") == [
        sse.Event("a\n\n b", "message", "4")
    ]
    assert parser.feed(b"data: c\n\n") == [sse.Event("c", "message", "4")]  # the id persists
    assert parser.feed(b":\n") == [sse.Comment("")]
    assert parser.feed(b"event: state_update\ndata: {") == [] and parser.pending == len("data: {")


def test_sse__parser_over_long_line_dropped_then_recovers() -> None:
    parser = sse.EventParser(max_line_chars=50)
    out = parser.feed(b"event: state_update\ndata: " + b"x" * 80)
    assert len(out) == 1 and isinstance(out[0], ProtocolError)
    assert parser.feed(b"y" * 100) == [] and parser.pending == 0
    assert parser.feed(b"\n\n: ping\n\n") == [sse.Comment("ping")]


def test_sse__from_event_refuses_other_events_and_bad_json() -> None:
    with pytest.raises(ProtocolError, match="allowed"):
        State.from_event(sse.Event("{}", "message"))
    with pytest.raises(ProtocolError, match="not JSON"):
        State.from_event(sse.Event("{", EVENT_STATE_UPDATE))


# ----------------------------------------------------------------------------- basic auth


def test_basic_auth__dc4s_401_details_are_its_exact_words() -> None:
    assert basic_auth.INVALID_USERNAME == "Invalid username"
    assert basic_auth.INVALID_PASSWORD == "Invalid password"
    assert basic_auth.INVALID_MATCH_DATA == "Invalid match data"


def test_basic_auth__round_trip() -> None:
    header = basic_auth.build_authorization("team0", "pa:ss wörd")
    assert header.startswith("Basic ")
    assert base64.b64decode(header[6:]) == "team0:pa:ss wörd".encode()
    creds = basic_auth.parse_authorization(header)
    assert creds == basic_auth.Credentials("team0", "pa:ss wörd")
    assert "pa:ss" not in repr(creds)
    assert basic_auth.parse_authorization("basic   " + header[6:]).username == "team0"
    with pytest.raises(ValueError, match="':'"):
        basic_auth.build_authorization("a:b", "c")


@pytest.mark.parametrize(
    ("header", "detail"),
    [
        (None, "Not authenticated"),
        ("", "Not authenticated"),
        ("Bearer abc", "Not authenticated"),
        ("Basic not*base64", "Invalid authentication credentials"),
        ("Basic " + base64.b64encode(b"nocolon").decode(), "Invalid authentication credentials"),
        ("Basic " + base64.b64encode(b"\xff\xfe:x").decode(), "Invalid authentication credentials"),
    ],
)
def test_basic_auth__bad_headers_get_401(header: str | None, detail: str) -> None:
    err = _refusal(basic_auth.parse_authorization, header)
    assert err.status == 401 and err.body() == {"detail": detail}
    assert err.headers == (("WWW-Authenticate", "Basic"),)


def test_basic_auth__authenticate_user_and_password() -> None:
    users = {"team0": "secret"}
    good = basic_auth.parse_authorization(basic_auth.build_authorization("team0", "secret"))
    assert basic_auth.authenticate(good, users) == "team0"
    wrong_user = basic_auth.Credentials("team9", "secret")
    assert (
        _refusal(basic_auth.authenticate, wrong_user, users).detail == basic_auth.INVALID_USERNAME
    )
    wrong_password = basic_auth.Credentials("team0", "guess")
    assert (
        _refusal(basic_auth.authenticate, wrong_password, users).detail
        == basic_auth.INVALID_PASSWORD
    )
