"""Tests of rllib_curling.protocol: codec round-trips, tolerant decoding, stream framing."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from rllib_curling.protocol import (
    CLIENT_MESSAGES,
    SERVER_MESSAGES,
    BestShot,
    CenterlineChoice,
    CenterlineViolation,
    ClientMessage,
    ConnectKey,
    ConnectName,
    Direction,
    Empty,
    Error,
    ExpMode,
    GameOver,
    Go,
    IsReady,
    Message,
    MotionInfo,
    Name,
    NewGame,
    Position,
    ProtocolError,
    ReadyOk,
    ResetPosition,
    ResetState,
    Score,
    ServerMessage,
    SetState,
    StreamDecoder,
    Sweep,
    TeamName,
    TotalScore,
    Unknown,
    decode,
    decode_all,
    encode,
    format_float,
    split_key,
)

TO_CLIENT, TO_SERVER = Direction.TO_CLIENT, Direction.TO_SERVER
COORDS = tuple(float(k % 5) * 0.5 + 2.125 if k < 6 else 0.0 for k in range(32))

EXAMPLES: list[Message] = [
    ConnectName(0), Name(1), IsReady(), NewGame(), Position(COORDS), SetState(3, 1, 8, 1), Go(),
    MotionInfo(2.351234, 21.52, -0.012, -2.61, 0.337), Score(-2), TotalScore(3, 1),
    GameOver("DRAW"), CenterlineViolation(), Error("no seat free"),
    ConnectKey("localtest:3"), ReadyOk(), TeamName("清华 冰壶队"), BestShot(3.0, -0.125, 10.5),
    Sweep(4.5), CenterlineChoice("RESET"), ResetPosition(COORDS[::-1]), ResetState(2, 0, -1, 0),
    ExpMode(1),
    Empty(), Unknown("FROBNICATE 1 2"),
]  # fmt: skip


def direction_of(msg: Message) -> Direction:
    return TO_SERVER if isinstance(msg, ClientMessage) else TO_CLIENT


def test_examples__cover_every_message_class() -> None:
    covered = {type(m) for m in EXAMPLES}
    assert set(SERVER_MESSAGES) | set(CLIENT_MESSAGES) | {Empty, Unknown} == covered


# ----------------------------------------------------------------------------- encode / decode


@pytest.mark.parametrize("msg", EXAMPLES, ids=lambda m: type(m).__name__)
def test_codec__round_trip(msg: Message) -> None:
    data = encode(msg)
    assert decode(data.decode("utf-8").rstrip("\0"), direction_of(msg)) == msg
    # Server data is NUL-framed; a client's bare burst is one message.
    assert StreamDecoder(direction_of(msg)).feed(data) == [msg]


@pytest.mark.parametrize("msg", [m for m in EXAMPLES if not isinstance(m, ClientMessage)])
def test_encode__server_messages_single_spaced_one_nul(msg: Message) -> None:
    data = encode(msg)
    assert data.endswith(b"\0") and data.count(b"\0") == 1
    assert b"  " not in data and b"\t" not in data
    # The course template: strip, split on one space, float() the numeric tokens.
    tokens = data[:-1].decode("utf-8").strip().split(" ")
    if isinstance(msg, Position):
        assert [float(t) for t in tokens[1:]] == pytest.approx(msg.coords, abs=1e-6)
    if isinstance(msg, MotionInfo):
        values = [msg.x, msg.y, msg.vx, msg.vy, msg.w]
        assert [float(t) for t in tokens[1:]] == pytest.approx(values, abs=1e-6)


@pytest.mark.parametrize("msg", [m for m in EXAMPLES if isinstance(m, ClientMessage)])
def test_encode__client_messages_bare_unless_asked(msg: ClientMessage) -> None:
    assert b"\0" not in encode(msg)
    assert encode(msg, nul=True) == encode(msg) + b"\0"


@pytest.mark.parametrize(
    ("msg", "wire"),
    [
        (ConnectName(0), b"CONNECTNAME Player1 \0"),
        (Name(1), b"NAME Player2 \0"),
        (IsReady(), b"ISREADY \0"),
        (SetState(0, 0, 4, 0), b"SETSTATE 0 0 4 0 \0"),
        (TotalScore(3, 1), b"TOTALSCORE 3 1 \0"),
        (GameOver("WIN"), b"GAMEOVER WIN \0"),
        (Score(0), b"SCORE 0 \0"),
        (Position((0.0,) * 32), b"POSITION" + b" 0" * 32 + b" \0"),
        (Empty(), b"\0"),
        (ConnectKey("localtest"), b"CONNECTKEY:localtest"),
        (ReadyOk(), b"READYOK"),
        (TeamName("队"), "NAME 队".encode()),
        (BestShot(3.0, 0.0, -1.5), b"BESTSHOT 3 0 -1.5"),
        (CenterlineChoice("KEEP"), b"CENTERLINE_CHOICE KEEP"),
    ],
)
def test_encode__platform_tokens(msg: Message, wire: bytes) -> None:
    assert encode(msg) == wire


def test_encode__trailing_space_option() -> None:
    assert encode(ConnectName(1), trailing_space=False) == b"CONNECTNAME Player2\0"
    assert encode(Go(), trailing_space=True) == b"GO \0"
    for text in ("CONNECTNAME Player2", "CONNECTNAME Player2 ", "CONNECTNAME  Player2\t"):
        assert decode(text, TO_CLIENT) == ConnectName(1)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (3.0, "3"), (2.375, "2.375"), (-0.0, "0"), (-1e-9, "0"), (1e-5, "0.00001"),
        (0.1 + 0.2, "0.3"), (-1.5, "-1.5"), (123456789.0, "123456789"), (np.float32(4.88), "4.88"),
        (1e20, "100000000000000000000"),
    ],
)  # fmt: skip
def test_format_float__no_exponent_no_minus_zero(value: float, text: str) -> None:
    assert format_float(value) == text


@given(st.floats(min_value=-1e6, max_value=1e6, allow_nan=False))
@example(1.3046875)  # a tie: 1.304688 on the wire, half a micro away and one ulp more as a float
@settings(max_examples=200, deadline=None)
def test_codec__bestshot_floats_within_half_micro(v: float) -> None:
    got = decode(encode(BestShot(v, -v, v / 3)).decode(), TO_SERVER)
    assert isinstance(got, BestShot)
    # Six decimals round to within half a micro; reading the decimal back rounds to a float.
    bound = 5e-7 + 2 * math.ulp(v)
    assert abs(got.v - v) <= bound and abs(got.h + v) <= bound


# ----------------------------------------------------------------------------- tolerant decoding


@pytest.mark.parametrize(
    "text",
    [
        "BESTSHOT 3.0 0.1 -1.5",
        "BESTSHOT  3.   0.1  -1.5e+00",
        "BESTSHOT\t3\n0.1\r\n-1.5 ",
        "  BESTSHOT 3 .1 -15e-1  ",
        "bestshot +3.0 0.10 -1.50",
    ],
)
def test_decode__numbers_and_whitespace(text: str) -> None:
    assert decode(text, TO_SERVER) == BestShot(3.0, 0.1, -1.5)


def test_decode__numpy_str_output() -> None:
    v, h, w = np.float64(2.8), np.float32(-0.25), np.float64(1e-05)
    assert decode(f"BESTSHOT {v} {h} {w}", TO_SERVER) == BestShot(2.8, -0.25, 1e-05)
    assert decode("RESETSTATE 3. 0. 4. 1.", TO_SERVER) == ResetState(3, 0, 4, 1)


def test_decode__glued_readyok_name() -> None:
    assert decode_all("READYOKNAME team", TO_SERVER) == [ReadyOk(), TeamName("team")]
    assert decode_all("READYOK NAME 北京 队", TO_SERVER) == [ReadyOk(), TeamName("北京 队")]
    assert decode_all("READYOKREADYOK", TO_SERVER) == [ReadyOk(), ReadyOk()]
    assert decode_all("READYOK  ", TO_SERVER) == [ReadyOk()]
    with pytest.raises(ProtocolError, match="decode_all"):
        decode("READYOKNAME team", TO_SERVER)


@pytest.mark.parametrize(
    "text", ["NAME 清华大学 冰壶队", "NAME   清华大学\t冰壶队 ", "name 清华大学 冰壶队"]
)
def test_decode__chinese_team_name(text: str) -> None:
    assert decode(text, TO_SERVER) == TeamName("清华大学 冰壶队")


def test_decode__name_depends_on_direction() -> None:
    assert decode("NAME Player1 ", TO_CLIENT) == Name(0)
    assert decode("NAME Player1", TO_SERVER) == TeamName("Player1")
    with pytest.raises(ProtocolError, match="Player1 or Player2"):
        decode("NAME Player3", TO_CLIENT)


@pytest.mark.parametrize(
    "text", ["CONNECTKEY:localtest:3", "CONNECTKEY localtest:3", "CONNECTKEY: localtest:3 "]
)
def test_decode__connectkey_forms(text: str) -> None:
    msg = decode(text, TO_SERVER)
    assert msg == ConnectKey("localtest:3")
    assert isinstance(msg, ConnectKey) and (msg.base_key, msg.level) == ("localtest", 3)


@pytest.mark.parametrize(
    ("key", "parts"),
    [
        ("localtest:3", ("localtest", 3)), ("localtest:0", ("localtest", 0)),
        ("abc", ("abc", None)), ("a:b", ("a:b", None)), ("tewis_c38b-41:8", ("tewis_c38b-41", 8)),
        ("key:", ("key:", None)), ("", ("", None)),
    ],
)  # fmt: skip
def test_split_key__level_suffix(key: str, parts: tuple[str, int | None]) -> None:
    assert split_key(key) == parts


def test_decode__unknown_and_wrong_direction() -> None:
    assert decode("FOO 1 2", TO_SERVER) == Unknown("FOO 1 2")
    assert decode("GO", TO_SERVER) == Unknown("GO")
    assert decode("BESTSHOT 3 0 0", TO_CLIENT) == Unknown("BESTSHOT 3 0 0")
    assert decode("BESTSHOT3 0 0", TO_SERVER) == Unknown("BESTSHOT3 0 0")
    assert decode("  \t ", TO_SERVER) == Empty()


def test_decode__server_side_extras() -> None:
    assert decode("NEWGAME 1 2", TO_CLIENT) == NewGame()
    assert decode("CENTERLINE_VIOLATION 3", TO_CLIENT) == CenterlineViolation()
    assert decode("GAMEOVER lose", TO_CLIENT) == GameOver("LOSE")
    assert decode("Error: room full", TO_CLIENT) == Error("room full")
    assert decode("ERROR", TO_CLIENT) == Error()
    assert decode("SETSTATE 16 3 -1 1", TO_CLIENT) == SetState(16, 3, -1, 1)
    assert decode("CENTERLINE_CHOICE keep", TO_SERVER) == CenterlineChoice("KEEP")


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("BESTSHOT 3.0 0.1", "takes 3 numbers (v h w), received 2"),
        ("BESTSHOT", "received 0"),
        ("BESTSHOT 3 0 0 7", "received 4"),
        ("BESTSHOT 3 abc 0", "BESTSHOT h is 'abc', not a number"),
        ("BESTSHOT 3 0 1_0", "not a number"),
        ("BESTSHOT 3 \u0661 0", "not a number"),  # an Arabic-Indic digit: float() takes it
        ("BESTSHOT Infinity 0 0", "NaN and infinity are not allowed"),
        ("BESTSHOT [3. 0. 0.]", "not a number"),
        ("BESTSHOT nan 0 0", "NaN and infinity are not allowed"),
        ("BESTSHOT 3 -inf 0", "NaN and infinity are not allowed"),
        ("BESTSHOT 3 0 1e999", "overflows to infinity"),
        ("SWEEP", "SWEEP takes 1 number (distance), received 0"),
        ("RESETSTATE 1 2 3.5 0", "allowed: an integer"),
        ("EXPMODE x", "not a number"),
        ("CENTERLINE_CHOICE MAYBE", "RESET/KEEP, received 'MAYBE'"),
        ("RESETPOSITION 1 2 3", "takes 32 numbers"),
    ],
)
def test_decode__bad_client_arguments(text: str, fragment: str) -> None:
    with pytest.raises(ProtocolError) as info:
        decode(text, TO_SERVER)
    assert fragment in str(info.value)
    assert repr(text) in str(info.value)  # names what was received


def test_decode__bestshot_huge_finite_passes() -> None:
    assert decode("BESTSHOT 1e300 -1e300 99", TO_SERVER) == BestShot(1e300, -1e300, 99.0)
    huge = decode("BESTSHOT 1e308 1e308 1e308", TO_SERVER)  # their sum overflows; each is fine
    assert huge == BestShot(1e308, 1e308, 1e308)


@pytest.mark.parametrize(
    "text", ["POSITION 1 2", "SETSTATE 0 0 4", "SCORE", "TOTALSCORE 1", "GAMEOVER", "MOTIONINFO 1"]
)
def test_decode__bad_server_arguments(text: str) -> None:
    with pytest.raises(ProtocolError):
        decode(text, TO_CLIENT)


def test_constructors__validate() -> None:
    with pytest.raises(ProtocolError, match="finite"):
        BestShot(float("nan"), 0, 0)
    with pytest.raises(ProtocolError, match="32"):
        Position((0.0,) * 31)
    with pytest.raises(ProtocolError, match="0 or 1"):
        ConnectName(2)
    with pytest.raises(ProtocolError, match="integer"):
        SetState(1.5, 0, 4, 0)
    with pytest.raises(ProtocolError, match="WIN/LOSE/DRAW"):
        GameOver("win")
    with pytest.raises(ProtocolError, match="NUL"):
        TeamName("a\0b")
    assert SetState(np.int64(3), 0, 4, 0) == SetState(3, 0, 4, 0)
    assert type(SetState(np.int64(3), 0, 4, 0).shot) is int
    assert Sweep(np.float32(2.5)).distance == 2.5


def test_position__array_helpers() -> None:
    array = np.zeros((16, 2))
    array[3] = (2.375, 4.88)
    msg = Position.from_array(array)
    assert isinstance(msg, Position) and msg.coords[6:8] == (2.375, 4.88)
    np.testing.assert_array_equal(msg.to_array(), array)
    assert msg.to_array().shape == (16, 2) and msg.to_array().dtype == np.float64
    assert ResetPosition.from_array(array.reshape(-1)) == ResetPosition(msg.coords)
    assert hash(msg) == hash(Position(msg.coords))


# ----------------------------------------------------------------------------- StreamDecoder


def test_stream__message_split_across_feeds() -> None:
    stream = StreamDecoder(TO_CLIENT)
    data = encode(Position(COORDS))
    assert stream.feed(data[:17]) == []
    assert stream.pending == 17
    assert stream.feed(data[17:]) == [Position(COORDS)]
    assert stream.pending == 0


def test_stream__utf8_character_split_across_feeds() -> None:
    stream = StreamDecoder(TO_CLIENT)
    data = encode(Error("没有空位"))
    assert stream.feed(data[:8]) == []  # cuts the first character in two
    assert stream.feed(data[8:]) == [Error("没有空位")]
    client = StreamDecoder(TO_SERVER)
    data = encode(ReadyOk(), nul=True) + encode(TeamName("北京队"), nul=True)
    assert client.feed(data[:14]) == [ReadyOk()]
    assert client.feed(data[14:]) == [TeamName("北京队")]


def test_stream__to_client_byte_by_byte() -> None:
    stream = StreamDecoder(TO_CLIENT)
    data = b"".join(encode(m) for m in EXAMPLES if isinstance(m, ServerMessage))
    out = [m for i in range(len(data)) for m in stream.feed(data[i : i + 1])]
    assert out == [m for m in EXAMPLES if isinstance(m, ServerMessage)]


def test_stream__several_messages_in_one_feed() -> None:
    stream = StreamDecoder(TO_CLIENT)
    data = b"CONNECTNAME Player1 \0ISREADY\0POSITION" + b" 0" * 32 + b"\0SETSTATE 0 0 4 0\0GO\0"
    assert stream.feed(data) == [
        ConnectName(0), IsReady(), Position((0.0,) * 32), SetState(0, 0, 4, 0), Go()
    ]  # fmt: skip


def test_stream__five_empties_end_a_session() -> None:
    stream = StreamDecoder(TO_CLIENT)
    assert stream.feed(b"GAMEOVER WIN\0" + b"\0" * 5) == [GameOver("WIN")] + [Empty()] * 5


def test_stream__client_bursts_without_nul() -> None:
    stream = StreamDecoder(TO_SERVER)
    assert stream.feed(b"CONNECTKEY:localtest") == [ConnectKey("localtest")]
    assert stream.feed(b"READYOK") == [ReadyOk()]
    assert stream.feed("NAME 北京队".encode()) == [TeamName("北京队")]
    assert stream.feed(b"READYOKNAME x") == [ReadyOk(), TeamName("x")]
    assert stream.feed(b"BESTSHOT  3.   0.1  -1.5e+00") == [BestShot(3.0, 0.1, -1.5)]
    assert stream.feed(b"") == []
    assert stream.pending == 0


def test_stream__client_nul_framed_split_then_bare_burst() -> None:
    stream = StreamDecoder(TO_SERVER)
    assert stream.feed(b"READYOK\0NAME te") == [ReadyOk()]
    assert stream.feed(b"am\0") == [TeamName("team")]
    assert stream.feed(b"GO\0BESTSH") == [Unknown("GO")]
    assert stream.feed(b"OT 3 0 0") == [BestShot(3.0, 0.0, 0.0)]  # no NUL: buffer + burst


def test_stream__bad_message_does_not_stop_the_next() -> None:
    stream = StreamDecoder(TO_SERVER)
    out = stream.feed(b"BESTSHOT 3 nan 0\0SWEEP 2\0")
    assert isinstance(out[0], ProtocolError) and "NaN" in str(out[0])
    assert out[1:] == [Sweep(2.0)]
    out = stream.feed(b"READYOKNAME")
    assert out == [ReadyOk(), TeamName("")]


def test_stream__invalid_utf8_is_replaced() -> None:
    stream = StreamDecoder(TO_SERVER)
    assert stream.feed(b"NAME \xff\xfeteam") == [TeamName("\ufffd\ufffdteam")]


@pytest.mark.parametrize("direction", [TO_CLIENT, TO_SERVER])
def test_stream__oversize_refused_then_recovers(direction: Direction) -> None:
    stream = StreamDecoder(direction, max_message_bytes=64)
    out = stream.feed(b"GO\0" + b"X" * 100)
    assert isinstance(out[-1], ProtocolError) and "64 bytes" in str(out[-1])
    assert stream.pending == 0
    tail = encode(IsReady()) if direction is TO_CLIENT else encode(ReadyOk(), nul=True)
    out = stream.feed(b"X" * 100 + b"\0" + tail)  # rest of the long run, then a good one
    assert out == [IsReady() if direction is TO_CLIENT else ReadyOk()]
    framed = StreamDecoder(direction, max_message_bytes=64)
    out = framed.feed(b"Y" * 65 + b"\0" + tail)
    assert isinstance(out[0], ProtocolError) and out[1:] == [decode(tail[:-1].decode(), direction)]
    if direction is TO_SERVER:  # a bare burst that is too long
        assert isinstance(framed.feed(b"Z" * 65)[0], ProtocolError)
        assert framed.feed(b"READYOK") == [ReadyOk()]


def test_stream__to_client_waits_for_nul_and_flushes_at_eof() -> None:
    stream = StreamDecoder(TO_CLIENT)
    assert stream.feed(b"GAMEOVER LOSE") == []
    assert stream.flush() == [GameOver("LOSE")]
    assert stream.flush() == []


SOUP = [
    *(type(m).KEYWORD.encode() for m in EXAMPLES), *b"0123456789.-+e:_ \t\n\0\xe5\xff",
    b"nan", b"inf", b"1e999", b"READYOK", b"NAME", b"Player1", b"\0\0",
]  # fmt: skip
SOUP = [bytes([t]) if isinstance(t, int) else t for t in SOUP]


@given(
    chunks=st.lists(
        st.one_of(st.binary(max_size=60), st.lists(st.sampled_from(SOUP)).map(b"".join)),
        max_size=12,
    ),
    direction=st.sampled_from(list(Direction)),
)
@settings(max_examples=400, deadline=None)
def test_stream__random_bytes_never_raise(chunks: list[bytes], direction: Direction) -> None:
    stream = StreamDecoder(direction, max_message_bytes=100)
    items = []
    for chunk in chunks:
        items += stream.feed(chunk)
        assert stream.pending <= 100
    items += stream.flush()
    for item in items:
        assert isinstance(item, (Message, ProtocolError))
        for value in vars(item).values() if isinstance(item, Message) else ():
            assert not (isinstance(value, float) and not math.isfinite(value))


GLUABLE = ["READYOK", "SWEEP 0", "BESTSHOT 3 0 0", "SWEEP 1.5", "EXPMODE 1", "BESTSHOT 2.9 -0.1 3"]


def test_stream__a_thousand_glued_readyoks_are_a_thousand_messages() -> None:
    stream = StreamDecoder(Direction.TO_SERVER)
    items = stream.feed(b"READYOK" * 1000)  # 7 KB in one burst: no recursion, no error
    assert items == [ReadyOk()] * 1000


@given(
    parts=st.lists(st.sampled_from(GLUABLE), min_size=1, max_size=3000),
    cuts=st.lists(st.integers(min_value=0, max_value=60_000), max_size=20),
)
@settings(max_examples=60, deadline=None)
def test_stream__long_glued_client_bursts_never_raise(parts: list[str], cuts: list[int]) -> None:
    """Client messages glued without separators decode one by one; cut anywhere into bursts,
    the decoder still never raises and stays bounded."""
    data = "".join(parts).encode()
    whole = StreamDecoder(Direction.TO_SERVER).feed(data)
    if len(data) <= 65536:
        assert [m.to_text() for m in whole] == [
            decode(p, Direction.TO_SERVER).to_text() for p in parts
        ]
    stream = StreamDecoder(Direction.TO_SERVER)
    bounds = sorted({0, len(data), *(c for c in cuts if c < len(data))})
    for a, b in zip(bounds, bounds[1:], strict=False):
        for item in stream.feed(data[a:b]):
            assert isinstance(item, (Message, ProtocolError))
        assert stream.pending <= 65536


def test_position__kept_coordinate_texts_are_format_float() -> None:
    """POSITION keeps the text of coordinates it sent lately: every token still equals
    ``format_float`` of its number, -0.0 included, also after the store fills and restarts."""
    from rllib_curling.protocol import numbers

    rng = np.random.default_rng(3)
    values = np.concatenate([rng.uniform(-5, 12, 4920), rng.uniform(-1e-6, 1e-6, 200)])
    values = np.array(
        [round(v, int(d)) for v, d in zip(values, rng.integers(0, 9, values.size), strict=True)]
    )
    values[:5] = (0.0, -0.0, 1e-7, -4e-7, 2.375)
    for _ in range(3):  # the second and third rounds read the kept texts
        for chunk in values.reshape(-1, 32):
            msg = Position(tuple(chunk.tolist()))
            tokens = encode(msg).decode().rstrip("\0").split()[1:]
            assert tokens == [format_float(v) for v in chunk.tolist()]
    assert len(numbers._COORD_TEXT) <= numbers._COORD_TEXT_MAX
