"""Tests of rllib_curling.dc_protocol's DC3 modules: round-trips, wire shapes, clear errors, the
line decoder on split and merged chunks."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rllib_curling.dc_protocol import dc3
from rllib_curling.dc_protocol.dc3_settings import GameSettings, fcv1_simulator, normal_dist_player
from rllib_curling.dc_protocol.dc3_state import (
    Concede,
    GameResult,
    GameState,
    Shot,
    Stone,
    StoneChange,
    Stones,
    Trajectory,
)
from rllib_curling.dc_sheet import MAX_SPEED, RELEASE_OMEGA, SPEED_STD, STONES_PER_TEAM
from rllib_curling.errors import ProtocolError

EMPTY = (None,) * STONES_PER_TEAM
STONES = Stones(
    (Stone(0.304, 38.327, 38.05), Stone(1.14, 36.85, 37.27), *EMPTY[2:]),
    (Stone(-0.034, 38.499, 38.14), *EMPTY[1:]),
)
STATE = GameState(
    end=2,
    shot=3,
    hammer="team0",
    stones=STONES,
    scores=((0, 2, None, None), (1, 0, None, None)),
    extra_end_score=(None, None),
    thinking_time_remaining=(21.897, 21.882),
)
OVER = GameState(
    end=4,
    shot=0,
    hammer=None,
    scores=((0, 2, 1, 0), (1, 0, 0, 1)),
    extra_end_score=(None, 1),
    thinking_time_remaining=(21.347, 21.335),
    game_result=GameResult("team1", "score"),
)
TRAJECTORY = Trajectory(
    seconds_per_frame=0.1,
    start=Stones((Stone(0.304, 38.327, 38.05), Stone(0.0, 0.0, 0.0), *EMPTY[2:]), EMPTY),
    finish=STONES,
    frames=(
        (StoneChange("team0", 1, Stone(0.02, 0.23, 0.157)),),
        (),
        (StoneChange("team1", 0, None),),
    ),
    finish_time=28.153,
)
SETTINGS = GameSettings(thinking_time=(219.0, 219.0), extra_end_thinking_time=(21.9, 21.9))

EXAMPLES: list[dc3.Message] = [
    dc3.Dc("0f3c2b9a-1d2e-4f5a-8b6c-7d8e9f0a1b2c", "2026-03-11T13:58:57+09:00"),
    dc3.IsReady("team1", SETTINGS),
    dc3.IsReady(
        "team0", GameSettings((2280.0, 2280.0), (270.0, 270.0), 8, simulator=None, players=None)
    ),
    dc3.NewGame(("清华 冰壶", "team B")),
    dc3.Update("team0", STATE),
    dc3.Update("team1", STATE, dc3.LastMove(Shot(0.1298, 2.4027, "ccw"), True, TRAJECTORY)),
    dc3.Update(None, OVER, dc3.LastMove(Concede())),
    dc3.GameOver(),
    dc3.DcOk("sample ai"),
    dc3.ReadyOk((0, 1, 3, 2)),
    dc3.MoveMessage(Shot(-0.1, 2.0, "cw")),
    dc3.MoveMessage(Concede()),
]


def test_examples__cover_every_message_class() -> None:
    assert {type(m) for m in EXAMPLES} == set(dc3.SERVER_MESSAGES) | set(dc3.CLIENT_MESSAGES)


@pytest.mark.parametrize("msg", EXAMPLES, ids=lambda m: type(m).__name__)
def test_codec__round_trip(msg: dc3.Message) -> None:
    data = dc3.encode(msg)
    assert data.endswith(b"\n") and data.count(b"\n") == 1
    assert dc3.decode(data) == msg
    assert dc3.decode(data.decode("utf-8").rstrip("\n") + "\r\n") == msg
    obj = json.loads(data)
    assert next(iter(obj)) == "cmd" and obj["cmd"] == msg.CMD


def test_encode__dc_matches_dc3s_wire_example() -> None:
    msg = dc3.Dc("RRRRRRRR-RRRR-4RRR-rRRR-RRRRRRRRRRRR", "2022-03-11T13:58:57+09:00")
    wire = (
        b'{"cmd":"dc","version":{"major":2,"minor":0},'
        b'"game_id":"RRRRRRRR-RRRR-4RRR-rRRR-RRRRRRRRRRRR","date_time":"2022-03-11T13:58:57+09:00"}\n'
    )
    assert dc3.encode(msg) == wire


def test_encode__move_shapes() -> None:
    shot = json.loads(dc3.encode(dc3.MoveMessage(Shot(0.1, 2.0, "ccw"))))
    assert shot == {
        "cmd": "move",
        "move": {"type": "shot", "velocity": {"x": 0.1, "y": 2.0}, "rotation": "ccw"},
    }
    concede = json.loads(dc3.encode(dc3.MoveMessage(Concede())))
    assert concede == {"cmd": "move", "move": {"type": "concede"}}


def test_encode__update_shapes() -> None:
    obj = json.loads(dc3.encode(EXAMPLES[5]))
    state = obj["state"]
    assert set(state) == {
        "end", "shot", "hammer", "stones", "scores", "extra_end_score",
        "thinking_time_remaining", "game_result",
    }  # fmt: skip
    assert state["stones"]["team0"][0] == {"position": {"x": 0.304, "y": 38.327}, "angle": 38.05}
    assert state["stones"]["team1"][1] is None and len(state["stones"]["team1"]) == 8
    assert state["thinking_time_remaining"] == {"team0": 21.897, "team1": 21.882}
    assert obj["last_move"]["free_guard_zone_foul"] is True
    frames = obj["last_move"]["trajectory"]["frames"]
    assert frames[0] == [
        {"team": "team0", "index": 1, "value": {"position": {"x": 0.02, "y": 0.23}, "angle": 0.157}}
    ]
    assert frames[2] == [{"team": "team1", "index": 0, "value": None}]
    first = json.loads(dc3.encode(EXAMPLES[4]))
    assert first["last_move"] is None and first["next_team"] == "team0"


def test_encode__is_ready_settings_with_dc_defaults() -> None:
    game = json.loads(dc3.encode(dc3.IsReady("team0", SETTINGS)))["game"]
    assert game["rule"] == "normal"
    assert game["setting"]["thinking_time"] == {"team0": 219.0, "team1": 219.0}
    assert game["simulator"] == {"type": "fcv1", "seconds_per_frame": 0.001}
    assert len(game["players"]["team1"]) == 4
    player = game["players"]["team0"][0]
    assert player == normal_dist_player() and player["max_speed"] == MAX_SPEED
    assert player["stddev_speed"] == SPEED_STD and player["seed"] is None
    assert fcv1_simulator(0.002)["seconds_per_frame"] == 0.002


def test_shot__rotation_gives_dc_spin_sign() -> None:
    assert Shot(0.0, 2.0, "ccw").omega == RELEASE_OMEGA
    assert Shot(0.0, 2.0, "cw").omega == -RELEASE_OMEGA


@pytest.mark.parametrize(
    ("vx", "vy", "rotation"), [(math.nan, 2.0, "cw"), (0.0, math.inf, "cw"), (0.0, 2.0, "left")]
)
def test_shot__refuses_non_finite_velocity_and_unknown_rotation(
    vx: float, vy: float, rotation: str
) -> None:
    with pytest.raises(ProtocolError, match="allowed"):
        Shot(vx, vy, rotation)


def test_ready_ok__refuses_repeated_or_missing_players() -> None:
    with pytest.raises(ProtocolError, match="permutation"):
        dc3.ReadyOk((0, 1, 1, 2))
    with pytest.raises(ProtocolError, match="permutation"):
        dc3.ReadyOk((0, 1, 2))


def test_encode__refuses_non_finite_values() -> None:
    msg = dc3.Update("team0", GameState(stones=Stones((Stone(math.nan, 1.0), *EMPTY[1:]))))
    with pytest.raises(ProtocolError, match="non-finite"):
        dc3.encode(msg)


def test_decode__ignores_unknown_keys_and_reads_ints_as_floats() -> None:
    line = (
        '{"cmd":"move","extra":1,'
        '"move":{"type":"shot","velocity":{"x":0,"y":2},"rotation":"cw","spin":3}}'
    )
    assert dc3.decode(line) == dc3.MoveMessage(Shot(0.0, 2.0, "cw"))


SHOT = '{"cmd":"move","move":{"type":"shot","velocity":{"x":%s,"y":2.0},"rotation":%s}}'


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ('{"cmd":"dc_ok","name":"a"', "malformed JSON"),
        ("[1, 2]", "not a JSON object"),
        ('{"name":"a"}', "unknown cmd None"),
        ('{"cmd":"hello"}', "unknown cmd 'hello'.*allowed: \\['dc', 'dc_ok'"),
        ('{"cmd":"dc_ok"}', "dc_ok message: name: Field required"),
        ('{"cmd":"dc_ok","name":7}', "name: Input should be a valid string \\(got 7\\)"),
        (SHOT % ("NaN", '"cw"'), "holds NaN; allowed: finite numbers"),
        (SHOT % ("-Infinity", '"cw"'), "holds -Infinity"),
        (SHOT % ('"fast"', '"cw"'), "move.velocity.x: Input should be a valid number"),
        (SHOT % ("0.1", '"up"'), "move.rotation: Input should be 'cw' or 'ccw' \\(got 'up'\\)"),
        ('{"cmd":"move","move":{"type":"pass"}}', "move.type: Input should be 'shot' or 'concede'"),
        ('{"cmd":"move","move":{"type":"shot"}}', "move.velocity: Field required"),
        ('{"cmd":"ready_ok","player_order":[0,1,2]}', "player_order: List should have exactly 4"),
        (
            '{"cmd":"ready_ok","player_order":[0,1,2,9]}',
            "player_order.3: Input should be less than",
        ),
        ('{"cmd":"ready_ok","player_order":[0,1,2,2]}', "permutation"),
        ('{"cmd":"is_ready","team":"team2","game":{}}', "team: Input should be 'team0' or 'team1'"),
    ],
)
def test_decode__bad_input_names_what_came_and_what_is_allowed(line: str, expected: str) -> None:
    with pytest.raises(ProtocolError, match=expected):
        dc3.decode(line)


def test_decode__update_out_of_range_shot_and_bad_stone() -> None:
    obj = json.loads(dc3.encode(EXAMPLES[4]))
    obj["state"]["shot"] = 16
    obj["state"]["stones"]["team0"][1] = {"position": {"x": 1.0}, "angle": 0.0}
    with pytest.raises(ProtocolError) as info:
        dc3.decode(json.dumps(obj))
    text = str(info.value)
    assert info.value.keyword == "update"
    assert "state.shot: Input should be less than or equal to 15 (got 16)" in text
    assert "state.stones.team0.1.position.y: Field required" in text


# ----------------------------------------------------------------------------- LineDecoder


def _wire(messages: list[dc3.Message]) -> bytes:
    return b"".join(dc3.encode(m) for m in messages)


def test_line_decoder__one_byte_at_a_time() -> None:
    decoder = dc3.LineDecoder()
    out: list[dc3.Decoded] = []
    for k, byte in enumerate(_wire(EXAMPLES)):
        out += decoder.feed(bytes([byte]))
        assert decoder.pending <= k + 1
    assert out == EXAMPLES and decoder.pending == 0


def test_line_decoder__many_lines_in_one_chunk_crlf_and_blank_lines() -> None:
    data = _wire(EXAMPLES[:3]).replace(b"\n", b"\r\n") + b"\n  \r\n" + _wire(EXAMPLES[3:])
    assert dc3.LineDecoder().feed(data) == EXAMPLES


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=4000), max_size=12))
def test_line_decoder__any_split_gives_the_same_messages(cuts: list[int]) -> None:
    data = _wire(EXAMPLES)
    points = sorted({c % (len(data) + 1) for c in cuts})
    decoder = dc3.LineDecoder()
    out: list[dc3.Decoded] = []
    for a, b in zip([0, *points], [*points, len(data)], strict=True):
        out += decoder.feed(data[a:b])
    assert out == EXAMPLES


def test_line_decoder__bad_line_becomes_an_error_and_the_stream_goes_on() -> None:
    data = dc3.encode(EXAMPLES[0]) + b'{"cmd":"nope"}\nnot json\n' + dc3.encode(EXAMPLES[-1])
    out = dc3.LineDecoder().feed(data)
    assert out[0] == EXAMPLES[0] and out[-1] == EXAMPLES[-1]
    assert [type(item) for item in out[1:3]] == [ProtocolError, ProtocolError]


def test_line_decoder__over_long_line_is_dropped_then_it_recovers() -> None:
    decoder = dc3.LineDecoder(max_line_bytes=100)
    first = decoder.feed(b'{"cmd":"dc_ok","name":"' + b"x" * 150)
    assert (
        len(first) == 1
        and isinstance(first[0], ProtocolError)
        and "longer than 100" in str(first[0])
    )
    assert decoder.feed(b"y" * 500) == [] and decoder.pending == 0
    assert decoder.feed(b'"}\n' + dc3.encode(dc3.DcOk("b"))) == [dc3.DcOk("b")]
    merged = decoder.feed(b"z" * 120 + b"\n" + dc3.encode(dc3.GameOver()))
    assert isinstance(merged[0], ProtocolError) and merged[1:] == [dc3.GameOver()]


def test_line_decoder__flush_decodes_a_last_line_without_newline() -> None:
    decoder = dc3.LineDecoder()
    assert decoder.feed(dc3.encode(dc3.GameOver()).rstrip(b"\n")) == []
    assert decoder.flush() == [dc3.GameOver()]
    assert decoder.flush() == []


def test_line_decoder__utf8_split_inside_a_character() -> None:
    data = dc3.encode(dc3.DcOk("冰壶"))
    cut = data.index("冰".encode()) + 1
    decoder = dc3.LineDecoder()
    assert decoder.feed(data[:cut]) == []
    assert decoder.feed(data[cut:]) == [dc3.DcOk("冰壶")]
