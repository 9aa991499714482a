"""Tests of rllib_curling.bots.matches and the ``curling match`` / ``curling ladder`` commands."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from rllib_curling.bots import Bot, make_bot
from rllib_curling.bots.matches import MatchResult, play_game, play_match, run_ladder
from rllib_curling.cli import curling as cli
from rllib_curling.cli.commands.ladder import parse_levels
from rllib_curling.game import GameConfig, GameState


class Recorder(Bot):
    """Wraps a bot and records (end, shot, seat, first_seat) of every throw it makes."""

    def __init__(self, inner: Bot, name: str) -> None:
        self.inner, self.name, self.level = inner, name, inner.level
        self.seen: list[tuple[int, int, int, int]] = []

    def choose(self, state: GameState, rng: np.random.Generator) -> tuple[float, ...]:
        self.seen.append((state.end, state.shot, state.next_seat, state.first_seat))
        return self.inner.choose(state, rng)


def test_play_game__seat0_throws_first_and_totals_add_up() -> None:
    a, b = Recorder(make_bot(2), "a"), Recorder(make_bot(0), "b")
    result = play_game((a, b), GameConfig(ends=2), np.random.default_rng(0))
    assert result.players == ("a", "b")
    assert result.shots == 32 == len(a.seen) + len(b.seen)
    assert a.seen[0] == (0, 0, 0, 0)  # Player1 throws stone 0 of end 1
    assert {seat for _, _, seat, _ in a.seen} == {0}
    assert len(result.end_scores) == 2
    assert result.totals == tuple(map(sum, zip(*result.end_scores, strict=True)))
    assert result.totals[1] == 0 and result.totals[0] > 0  # the dumb robot never scores
    assert result.result_for(0) == "WIN" and result.result_for(1) == "LOSE"


def test_play_game__is_a_function_of_the_seed() -> None:
    players = (make_bot(1), make_bot(3))
    one = play_game(players, GameConfig(ends=1), np.random.default_rng(5))
    two = play_game(players, GameConfig(ends=1), np.random.default_rng(5))
    assert one == two


def test_play_game__unlimited_needs_max_ends() -> None:
    players = (make_bot(0), make_bot(2))
    with pytest.raises(ValueError, match="max_ends"):
        play_game(players, GameConfig(ends=-1), np.random.default_rng(0))
    result = play_game(players, GameConfig(ends=-1), np.random.default_rng(0), max_ends=2)
    assert len(result.end_scores) == 2 and result.totals[0] == 0


def test_play_match__hammer_alternates_and_bookkeeping() -> None:
    a, b = Recorder(make_bot(2), "a"), Recorder(make_bot(1), "b")
    match = play_match(a, b, games=4, ends=1, seed=3)
    assert match.a_seats == (0, 1, 0, 1)
    for game, seat in zip(match.games, match.a_seats, strict=True):
        assert game.players[seat] == "a"
    # a throws stone 0 (no hammer) in games 0 and 2, stone 1 (first of the hammer) in 1 and 3
    firsts = [shot for _, shot, _, _ in a.seen if shot <= 1]
    assert firsts == [0, 1, 0, 1]
    assert match.wins + match.draws + match.losses == match.n == 4
    points = np.array(match.points, dtype=float)
    assert match.mean_points == pytest.approx(tuple(points.mean(axis=0)))
    assert match.mean_diff == pytest.approx(float((points[:, 0] - points[:, 1]).mean()))
    assert match.win_rate == pytest.approx((match.wins + 0.5 * match.draws) / 4)
    d = match.as_dict()
    assert d["wins"] == match.wins and d["games"] == 4 and len(d["points"]) == 4


def test_match_result__draws_count_half() -> None:
    game = play_game((make_bot(0), make_bot(0)), GameConfig(ends=1), np.random.default_rng(0))
    match = MatchResult(a="x", b="y", ends=1, seed=0, games=(game, game), a_seats=(0, 1))
    assert (match.wins, match.draws, match.losses) == (0, 2, 0)
    assert match.win_rate == 0.5 and match.mean_diff == 0.0


def test_match_result__no_games_has_no_win_rate() -> None:
    match = MatchResult(a="x", b="y", ends=1, seed=0, games=(), a_seats=())
    assert (match.wins, match.draws, match.losses) == (0, 0, 0)
    assert math.isnan(match.win_rate) and math.isnan(match.stderr)


def test_strength__each_low_level_beats_the_one_below() -> None:
    # enough games with a fixed seed to tell the levels apart; the full ladder (curling ladder,
    # 40 games per pair and all levels) is in measurements/RESULTS.md
    assert play_match(make_bot(2), make_bot(1), games=4, ends=4, seed=11).win_rate >= 0.75
    assert play_match(make_bot(3), make_bot(2), games=10, ends=4, seed=11).win_rate >= 0.6
    assert play_match(make_bot(4), make_bot(3), games=20, ends=4, seed=11).win_rate >= 0.6


def test_run_ladder__rows_and_progress() -> None:
    seen = []
    rows = run_ladder([1, 2], games=2, ends=1, seed=0, progress=lambda *a: seen.append(a))
    assert [r.level for r in rows] == [1, 2]
    assert all(r.result.n == 2 for r in rows)
    assert sum(1 for s in seen if s[3] is not None) == 2
    assert rows[0].as_dict()["below"] == 0


def test_cli_match__bots(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["match", "2", "1", "--games", "4"]) == 0
    out = capsys.readouterr().out
    assert "bot:2" in out and "won" in out and "drawn" in out and "lost" in out
    assert out.count("game ") == 4


def test_cli_match__json(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["match", "bot:1", "bot:0", "--games", "2", "--ends", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["a"] == "bot:1" and data["games"] == 2
    assert data["wins"] + data["draws"] + data["losses"] == 2


def test_cli_ladder__small(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["ladder", "--levels", "1-2", "--games", "2", "--ends", "1"]) == 0
    captured = capsys.readouterr()
    assert "1 vs 0" in captured.out and "2 vs 1" in captured.out
    assert "level 2 vs 1" in captured.err


def test_parse_levels__ranges_and_lists() -> None:
    assert parse_levels("1-8") == list(range(1, 9))
    assert parse_levels("3,5-6") == [3, 5, 6]
    for bad in ("0", "9", "a", "2-x"):
        with pytest.raises(ValueError):
            parse_levels(bad)


def _cli_match_against_a_client(tcp_first: bool) -> tuple[int, list[int], list[int]]:
    """``curling match`` between level 0 and a client of ours that draws every stone: the exit
    code, the client's seat in each game, and the shot number of its first stone per game."""
    import socket
    import threading
    import time

    from rllib_curling.client import CurlingClient
    from rllib_curling.errors import ConnectionLostError

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    players = [f"tcp:127.0.0.1:{port}", "bot:0"]
    argv = ["match", *(players if tcp_first else players[::-1]), "--games", "2", "--ends", "1",
            "--json"]  # fmt: skip
    rc: list[int] = []
    thread = threading.Thread(target=lambda: rc.append(cli.main(argv)), daemon=True)
    thread.start()
    client = CurlingClient("127.0.0.1", port, timeout=30)
    for _ in range(100):
        try:
            client.connect()
            break
        except ConnectionLostError:
            time.sleep(0.1)  # the command's server is not listening yet
    seats, first_stones = [], []
    while (event := client.wait_turn()) != "closed":
        if event == "go":
            if client.state is not None and client.state[0] <= 1:
                first_stones.append(client.state[0])
            client.throw(3.0, 0.0, 0.0)  # a draw; the dumb robot never scores
        elif event == "gameover":
            seats.append(client.seat)
    client.close()
    thread.join(30)
    return (rc or [-1])[0], seats, first_stones


def test_cli_match__external_ai_over_tcp(capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, _ = _cli_match_against_a_client(tcp_first=True)
    assert rc == 0
    data = json.loads(capsys.readouterr().out)
    assert data["games"] == 2 and data["wins"] == 2 and data["mean_points_b"] == 0


def test_cli_match__a_bot_named_first_is_player1_in_game_1(
    capsys: pytest.CaptureFixture[str],
) -> None:
    rc, seats, first_stones = _cli_match_against_a_client(tcp_first=False)
    assert rc == 0
    assert seats[0] == 1  # the external AI is Player2 in game 1: the bot (A) is Player1
    assert first_stones == [1, 0]  # it throws second in game 1, first in game 2
    data = json.loads(capsys.readouterr().out)
    assert data["games"] == 2 and data["losses"] == 2  # counted from A's (the robot's) view


def test_match_summary__draws_count_half_and_no_games_has_no_rate() -> None:
    from rllib_curling.cli.commands.match import summary

    assert "win rate 62.5 %" in summary("a", 2, 1, 1, 3.0, 2.0)
    assert "win rate -," in summary("a", 0, 0, 0, math.nan, math.nan)
