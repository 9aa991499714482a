"""The one grammar of a player's name on the command line (``rllib_curling.cli.players``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rllib_curling.cli.curling import main
from rllib_curling.cli.players import Agent, Level, Remote, forms, parse_player


@pytest.mark.parametrize(
    ("text", "player"),
    [
        ("3", Level(3)),
        ("bot:0", Level(0)),
        ("tcp:localhost:7788", Remote("localhost", 7788)),
        ("builtin", Agent("builtin")),
        ("policy:builtin", Agent("builtin", search=False)),
    ],
)
def test_parse_player__every_form_and_its_name_back(text: str, player: object) -> None:
    assert parse_player(text) == player
    assert str(parse_player(text)) in (text, f"bot:{text}")


def test_parse_player__a_directory_is_an_agent_with_or_without_its_search(tmp_path: Path) -> None:
    assert parse_player(str(tmp_path)) == Agent(str(tmp_path))
    assert parse_player(f"policy:{tmp_path}") == Agent(str(tmp_path), search=False)
    with pytest.raises(
        ValueError, match=re.escape(f"no checkpoint directory at {tmp_path / 'nope'}")
    ):
        parse_player(f"policy:{tmp_path / 'nope'}")


@pytest.mark.parametrize("bad", ["9", "-1", "bot:x", "tcp:host", "tcp:host:99999", "policy:", ""])
def test_parse_player__malformed_names_say_every_form(bad: str) -> None:
    with pytest.raises(ValueError, match="a player is a bot level .*tcp:HOST:PORT or an agent"):
        parse_player(bad)


def test_parse_player__a_command_names_only_the_kinds_it_takes() -> None:
    with pytest.raises(ValueError, match=r"^a player is tcp:HOST:PORT, got 'builtin'$"):
        parse_player("builtin", (Remote,))
    with pytest.raises(ValueError, match="got '3'"):
        parse_player("3", (Agent,))
    assert forms((Level,)).startswith("a bot level") and "tcp" not in forms((Level, Agent))


def test_match__an_agents_network_alone_plays_a_level_in_process(
    capsys: pytest.CaptureFixture[str],
) -> None:
    pytest.importorskip("ray", reason="needs the rl extra")
    assert main(["match", "policy:builtin", "1", "--games", "2", "--ends", "1", "--json"]) == 0
    out = capsys.readouterr().out
    assert '"a": "policy:builtin"' in out and '"b": "bot:1"' in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["match", "3", "no/such"], "argument B: no checkpoint directory at "),
        (["match", "builtin", "tcp:127.0.0.1:1"], "the other player is a bot level"),
        (["dataset", "out", "--teacher", "policy:builtin"], "a teacher plays with its search"),
        (["dataset", "out", "--teacher", "tcp:h:1"], "a player is a bot level"),
    ],
)
def test_commands__a_player_they_cannot_take_is_one_line_and_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own usage errors
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2 and message in err and err.strip().splitlines()[-1].startswith("curling ")
