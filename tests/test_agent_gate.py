"""A generation's gate (``agent.gate``): slices played apart come out as one match, the verdict
keeps a new agent only at the threshold, and a gate resumes only with its own settings. The
players are built-in levels (what the gate plays does not matter to how it counts)."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest

from rllib_curling.agent.gate import (
    VERDICT_FILE,
    GateConfig,
    Verdict,
    play_gate,
    play_shard,
    verdict_of,
)
from rllib_curling.bots.levels import make_bot
from rllib_curling.bots.matches import GameResult, MatchResult, play_match
from rllib_curling.errors import ConfigError

NEW, OLD = functools.partial(make_bot, 3), functools.partial(make_bot, 2)


def _write_slices(out: Path, config: GateConfig) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps(config.__dict__))
    for shard in range(config.shards):
        data = play_shard(NEW, OLD, config, shard)
        (out / f"shard-{shard:05d}.json").write_text(json.dumps(data))


def test_play_shard__slices_make_the_match_played_in_one_go(tmp_path: Path) -> None:
    config = GateConfig(games=5, games_per_shard=2, ends=1, seed=7)
    _write_slices(tmp_path, config)
    verdict = verdict_of(tmp_path, config)
    whole = play_match(NEW(), OLD(), 5, ends=1, seed=7)
    assert verdict.match.points == whole.points and verdict.match.a_seats == (0, 1, 0, 1, 0)
    assert verdict.match.win_rate == whole.win_rate and verdict.match.n == 5


def _match(points: list[tuple[int, int]]) -> MatchResult:
    games = tuple(GameResult(("new", "old"), (p,), 16) for p in points)
    return MatchResult("new", "old", 1, 0, games, (0,) * len(points))


def test_verdict__kept_from_the_threshold_on_draws_half() -> None:
    # 10 games: 5 wins and 1 draw = 55 %: kept; 5 wins and 5 losses = 50 %: not
    just = _match([(1, 0)] * 5 + [(0, 0)] + [(0, 1)] * 4)
    assert just.win_rate == pytest.approx(0.55) and Verdict(just, 0.55).kept
    even = _match([(1, 0)] * 5 + [(0, 1)] * 5)
    assert not Verdict(even, 0.55).kept
    assert "not kept (under 55 %)" in Verdict(even, 0.55).line()
    assert Verdict(just, 0.55).as_dict()["wins"] == 5


def test_play_gate__resumes_from_the_slices_written(tmp_path: Path) -> None:
    config = GateConfig(games=4, games_per_shard=2, ends=1)
    _write_slices(tmp_path, config)

    def no_games() -> None:
        raise AssertionError("a finished gate plays no game")

    verdict = play_gate(tmp_path, no_games, no_games, config)  # type: ignore[arg-type]
    summary = json.loads((tmp_path / VERDICT_FILE).read_text())
    assert summary["games"] == 4 and summary["kept"] == verdict.kept
    with pytest.raises(ConfigError, match="other settings \\(games differ\\)"):
        play_gate(tmp_path, NEW, OLD, GateConfig(games=6, games_per_shard=2, ends=1))


def test_gate_config__refuses_no_games() -> None:
    with pytest.raises(ConfigError, match="at least one game"):
        GateConfig(games=0)
