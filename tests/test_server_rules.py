"""Rules over the wire: free guard zone, centre line, debug resets, MOTIONINFO and SWEEP.

- Free guard zone and RESETSTATE: debug mode (``:0``) lets the test set up a guard with
  RESETPOSITION between GO and BESTSHOT, then knock it out (real physics when it exists).
- Centre line: RESETPOSITION exists only in debug mode, where the fouled seat would be the dumb
  robot. So two raw clients play on a server whose physics is the controlled stand-in of
  ``server_helpers`` (a draw lands exactly where aimed and ticks a stone it lands on +0.35 m
  sideways): Player1 puts a guard on the centre line, Player2 ticks it off; Player1 gets
  CENTERLINE_VIOLATION and answers RESET, KEEP, or nothing (KEEP after the timeout).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from server_helpers import RawClient, Transcript, play_pair

from rllib_curling.server import records

pytestmark = pytest.mark.timeout(60)
pytest_plugins = ("server_fixtures",)  # fixtures: fake_engine, start_server

OUT = "BESTSHOT 0.5 0 0"  # stops short of the hog line: out of play
GUARD = (2.3506, 8.0)  # in the free guard zone, on the path of a straight throw with h = 0


def layout(**rows: tuple[float, float]) -> str:
    coords = [0.0] * 32
    for name, (x, y) in rows.items():
        k = int(name[1:])
        coords[2 * k], coords[2 * k + 1] = x, y
    return "RESETPOSITION " + " ".join(str(c) for c in coords)


def row(position: list[float], k: int) -> tuple[float, float]:
    return position[2 * k], position[2 * k + 1]


def test_free_guard_zone__knocked_out_guard_is_restored(start_server: Any) -> None:
    server = start_server(ends=1)
    seen: dict[int, list[float]] = {}

    def takeout_at_shots_2_and_6(client: RawClient, msg: str) -> bool:
        if msg != "GO":
            return False
        t = client.t
        shot = t.setstates[-1][0]
        t.gos += 1
        if shot in (2, 6):  # the robot's stone shot - 1 is a guard on our line
            client.send(layout(**{f"r{shot - 1}": GUARD}), nul=True)
            client.send("BESTSHOT 5.0 0 0", nul=True)
            seen[shot] = []
        else:
            client.send(OUT, nul=True)
        return True

    c = RawClient(server.address[1], "localtest:0")
    t = c.play(on_message=takeout_at_shots_2_and_6)
    c.close()
    after = {s[0]: p for s, p in zip(t.setstates[1:], t.positions[1:], strict=False)}
    # shot 2 (inside the free guard zone period): guard back, thrown stone removed
    assert row(after[3], 1) == pytest.approx(GUARD) and row(after[3], 2) == (0.0, 0.0)
    # shot 6 (after it): the same takeout really removes the guard
    assert row(after[7], 5) == (0.0, 0.0)
    assert len(t.results) == 1


def test_debug_resetstate__needs_the_callers_parity(start_server: Any, tmp_path: Path) -> None:
    server = start_server(ends=1, log_dir=str(tmp_path))

    def reset_state(client: RawClient, msg: str) -> bool:
        if msg != "GO":
            return False
        client.t.gos += 1
        if client.t.gos == 1:
            client.send("RESETSTATE 3 0 1 0", nul=True)  # odd shot: the robot's parity, ignored
            client.send("RESETSTATE 12 0 1 0", nul=True)  # ours: taken
        client.send(OUT, nul=True)
        return True

    c = RawClient(server.address[1], "localtest:0")
    t = c.play(on_message=reset_state)
    c.close()
    assert t.setstates[0] == [0, 0, 1, 0] and t.setstates[1] == [13, 0, 1, 1]
    assert t.gos == 2  # shots 12 and 14
    assert len(t.results) == 1
    server.stop()
    (log_file,) = tmp_path.glob("*.jsonl")
    lines = records.read_records(log_file)
    (reset,) = [r for r in lines if r["type"] == "reset"]
    (start,) = [r for r in lines if r["type"] == "game_start"]
    assert reset["game_id"] == start["game_id"] and reset["new_shot"] == 12


def centre_line_game(port: int, answer: str | None) -> tuple[Transcript, Transcript]:
    """Player1 draws a centre guard, Player2 ticks it off the line; Player1 answers ``answer``."""

    def p1(client: RawClient, msg: str) -> bool:
        if msg == "GO":
            client.t.gos += 1
            client.send("BESTSHOT 2.22 0.0244 0" if client.t.gos == 1 else OUT)
            return True
        if msg == "CENTERLINE_VIOLATION":
            if answer is not None:
                client.send(f"CENTERLINE_CHOICE {answer}")
            return True
        return False

    def p2(client: RawClient, msg: str) -> bool:
        if msg == "GO":
            client.t.gos += 1
            client.send("BESTSHOT 2.22 0.0244 0" if client.t.gos == 1 else OUT)
            return True
        return False

    return play_pair(port, ("p1", "p2"), on_message=(p1, p2))


@pytest.mark.parametrize("answer", ["RESET", "KEEP", None])
def test_centre_line__fouled_seat_chooses(
    start_server: Any, fake_engine: None, answer: str | None
) -> None:
    server = start_server(ends=1, centerline_timeout=0.3)
    ta, tb = centre_line_game(server.address[1], answer)
    assert ta.keywords().count("CENTERLINE_VIOLATION") == 1
    assert "CENTERLINE_VIOLATION" not in tb.keywords()
    i = ta.keywords().index("CENTERLINE_VIOLATION")
    assert ta.keywords()[i + 1 : i + 3] == ["POSITION", "SETSTATE"]
    after = ta.positions[2]  # POSITION after stone 1
    assert after == tb.positions[2]
    if answer == "RESET":
        assert row(after, 0) == pytest.approx((2.375, 8.0), abs=1e-3)
        assert row(after, 1) == (0.0, 0.0)
    else:  # KEEP, also by default after the timeout
        assert row(after, 0) == pytest.approx((2.725, 8.0), abs=1e-3)
        assert row(after, 1) == pytest.approx((2.375, 8.0), abs=1e-3)
    assert len(ta.results) == 1 and len(tb.results) == 1


def first_stone(port: int, sweep: float | None) -> tuple[float, float]:
    """Throw stone 0 (sweeping ``sweep`` metres, if given); where it stopped."""
    c = RawClient(port, "k:0")
    while len(c.t.positions) < 2:
        msg = c.recv_msg()
        assert msg is not None
        c._handle(msg.strip(), lambda t: "BESTSHOT 2.9 0 0", sweep)
    c.close()
    motions = c.t.motions
    assert len(motions) == 1 and motions[0][1] == pytest.approx(21.5, abs=0.3)
    assert motions[0][3] < 0  # vy: toward the house
    return row(c.t.positions[1], 0)


@pytest.mark.slow
def test_sweep__changes_the_landing_with_the_same_seed(start_server: Any) -> None:
    plain = first_stone(start_server(ends=1, seed=5, sweep_window=2.0).address[1], None)
    again = first_stone(start_server(ends=1, seed=5, sweep_window=2.0).address[1], None)
    swept = first_stone(start_server(ends=1, seed=5, sweep_window=2.0).address[1], 6.0)
    assert again == plain
    assert swept[1] < plain[1] - 0.01  # swept stones travel further (toward smaller y)


def test_sweep__default_window_keeps_the_first_sweep_of_a_session(
    start_server: Any, fake_engine: None
) -> None:
    from rllib_curling.server import ServerConfig

    server = start_server(ends=1, sweep_window=ServerConfig().sweep_window)  # the default
    c = RawClient(server.address[1], "k:0")
    t = c.play(throw=lambda t: f"BESTSHOT 3.0 {-1.5 + 0.4 * t.gos} 0", sweep=5.0)
    c.close()
    own = [row(p, 2 * k) for k, p in enumerate(t.positions[1:17:2])]
    ys = [y for _, y in own]
    assert len(t.motions) == 8
    assert ys == pytest.approx([4.88 - 1.0] * 8, abs=1e-3)  # every SWEEP 5 applied, the first too
