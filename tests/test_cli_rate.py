"""``curling rate``: a round robin between bots (in-process, or in a pool of processes) and
checkpoints (on a private server), its table, JSON and PNG, and its one-line errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from rllib_curling.cli.commands import rate
from rllib_curling.cli.commands.evaluate import EVAL_SEED
from rllib_curling.cli.curling import main
from rllib_curling.cli.options import SearchOptions
from rllib_curling.cli.players import parse_player

pytest_plugins = ("rl_fixtures",)  # fixtures: tiny_checkpoint


def test_rate__three_levels_print_the_table_and_draw_the_png(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    png = tmp_path / "rating.png"
    assert main(["rate", "0", "1", "bot:2", "--games", "4", "--ends", "1", "--png", str(png)]) == 0
    out, err = capsys.readouterr()
    assert "3 players, 4 games per pair" in out and "bot:0 = 0" in out
    rows = [line.split() for line in out.splitlines() if line[:4].strip() in {"1", "2", "3"}]
    assert sorted(row[1] for row in rows) == ["bot:0", "bot:1", "bot:2"]
    assert all(row[-3] == "8" for row in rows)  # games per player: 2 pairs x 4
    assert "score of the row against the column" in out and "#3" in out
    assert "bot:0 vs bot:1: game 4/4" in err and "12 games in" in err
    assert png.stat().st_size > 1000 and png.read_bytes()[:4] == b"\x89PNG"


def test_rate__json_result(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rate", "1", "0", "--games", "2", "--ends", "1", "--json", "--anchor", "0"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["seed"] == rate.RATE_SEED and result["games_per_pair"] == 2
    assert result["anchor"] == "bot:0" and not result["interrupted"]
    assert [p["a"] for p in result["pairs"]] == ["bot:1"] and len(result["pairs"][0]["scores"]) == 2
    by_name = {row["player"]: row for row in result["ratings"]}
    assert by_name["bot:0"]["rating"] == 0.0 and by_name["bot:1"]["games"] == 2
    assert by_name["bot:1"]["low"] <= by_name["bot:1"]["rating"] <= by_name["bot:1"]["high"]
    assert sum(sum(row) for row in result["score"]) == 2  # every game scores 1 in total


@pytest.mark.slow
def test_rate__a_pool_of_workers_plays_the_same_games(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["rate", "0", "1", "2", "--games", "1", "--ends", "1", "--json"]
    assert main(argv) == 0
    alone, err = capsys.readouterr()
    assert "--games 1 is odd" in err
    assert main([*argv, "--workers", "2"]) == 0
    pooled, err = capsys.readouterr()
    assert "game 1/1" not in err and "bot:1 vs bot:2: bot:1 scores" in err  # per pair, not game
    assert json.loads(pooled)["pairs"] == json.loads(alone)["pairs"]


def test_rate__adjacent_pairs_play_only_neighbours(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["rate", "0", "1", "2", "--pairs", "adjacent", "--games", "2", "--ends", "1", "--json"]
    assert main(argv) == 0
    result = json.loads(capsys.readouterr().out)
    pairs = [(p["a"], p["b"], p["seed"] - rate.RATE_SEED) for p in result["pairs"]]
    assert pairs == [("bot:0", "bot:1", 0), ("bot:1", "bot:2", 1)]
    assert all(len(p["scores"]) == 2 for p in result["pairs"])
    by_name = {row["player"]: row for row in result["ratings"]}
    assert by_name["bot:1"]["games"] == 4 and by_name["bot:2"]["games"] == 2
    assert result["games"][0][2] == 0  # 0 and 2 never met
    assert main(argv[:-1]) == 0
    assert capsys.readouterr().out.startswith("adjacent pairs: 3 players")


def test_rate__seeds_are_not_evaluation_seeds() -> None:
    assert rate.RATE_SEED > EVAL_SEED + 8  # evaluate uses EVAL_SEED + level


@pytest.mark.parametrize(
    ("players", "message"),
    [
        (["0", "9"], "a player is a bot level"),
        (["0", "no/such/checkpoint"], "no checkpoint directory at "),
        (["3"], "at least 2 players"),
        (["0", "bot:0"], "listed twice"),
        (["0", "tcp:127.0.0.1:7001", "tcp:127.0.0.1:7002"], "at most one player"),
        (["0", "1", "--anchor", "5"], "--anchor '5' is not one of"),
    ],
)
def test_rate__bad_input_is_one_line_and_exit_2(
    players: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["rate", *players]) == 2
    err = capsys.readouterr().err
    assert err.startswith("curling rate: ") and err.count("\n") == 1 and message in err


@pytest.mark.parametrize("flag", ["--games", "--ends", "--workers"])
def test_rate__counts_below_one_are_refused_by_the_shared_option_type(
    flag: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["rate", "0", "1", flag, "0"])
    assert exit_info.value.code == 2
    assert f"curling rate: error: argument {flag}: must be at least 1, got 0" in (
        capsys.readouterr().err
    )


def test_rate__missing_extras_name_the_install_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = rate.importlib.util.find_spec
    hidden = {"ray", "matplotlib"}
    monkeypatch.setattr(
        rate.importlib.util, "find_spec", lambda name: None if name in hidden else real(name)
    )
    assert main(["rate", "0", str(tmp_path)]) == 2
    assert "pip install -e '.[rl]'" in capsys.readouterr().err
    assert main(["rate", "0", "1", "--png", str(tmp_path / "r.png")]) == 2
    assert "pip install -e '.[render]'" in capsys.readouterr().err


@pytest.mark.slow
def test_rate__checkpoints_against_a_level_and_each_other(
    tiny_checkpoint: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    twin = tmp_path / "twin"
    # The same network as a second player: a copy (a symlink needs privileges on Windows).
    shutil.copytree(tiny_checkpoint, twin)
    argv = ["rate", str(tiny_checkpoint), "0", str(twin), "--games", "2", "--ends", "1", "--json"]
    assert main(argv) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["anchor"] == "bot:0"  # the first built-in level, not the first player
    assert [(p["a"], p["b"]) for p in result["pairs"]] == [
        (str(tiny_checkpoint), "bot:0"), (str(tiny_checkpoint), str(twin)), ("bot:0", str(twin))
    ]  # fmt: skip
    assert all(len(p["scores"]) == 2 for p in result["pairs"])
    assert all(row["games"] == 4 for row in result["ratings"])


def test_load_policies__policy_entrant_plays_without_search_builtin_with_it() -> None:
    entrants = [parse_player("policy:builtin"), parse_player("builtin")]
    players = rate._load_policies(entrants, "default_policy", SearchOptions())
    assert isinstance(players, dict)
    assert players["policy:builtin"].search is None  # the network alone
    assert players["builtin"].search is not None and players["builtin"].search.k == 8
    players = rate._load_policies(entrants, "default_policy", SearchOptions(search=4))
    assert players["policy:builtin"].search is None and players["builtin"].search.k == 4
