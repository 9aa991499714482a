"""``cli.dispatch``, shared by ``curling`` and ``rllib``: help prints in any console code page."""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rllib_curling.cli import CommandError, UsageError, dispatch
from rllib_curling.cli.options import (
    SearchOptions,
    level_list,
    level_range,
    load_player,
)
from rllib_curling.cli.players import opponent_list

pytestmark = pytest.mark.timeout(120)

#: (arguments after ``python``, a line of the help that holds non-ASCII text).
HELPS = [
    (["-m", "rllib_curling", "--help"], "Digital curling (数字冰壶): engine"),
    (["-m", "rllib_curling", "server", "--help"], "Headless digital-curling (数字冰壶) server"),
    (["-m", "rllib_curling", "simulate", "--help"], "release offset from centre, m (±2.23)"),
    (["-c", "import sys; from rllib_curling.cli.rllib import main; sys.exit(main())", "--help"],
     "Train and evaluate RLlib agents (rllib-curling)."),
]  # fmt: skip


@pytest.mark.parametrize("io_encoding", ["cp1252", "cp1252:surrogateescape", "gbk", "utf-8"])
@pytest.mark.parametrize("args, line", HELPS, ids=["curling", "server", "simulate", "rllib"])
def test_dispatch__help_prints_in_any_console_code_page(
    io_encoding: str, args: list[str], line: str
) -> None:
    """A Windows console that is piped encodes with its code page (cp1252 in the West, GBK in
    China), as PYTHONIOENCODING makes Python do here; with surrogateescape errors as Windows'
    Python under Wine has them."""
    encoding = io_encoding.split(":")[0]
    env = dict(os.environ, PYTHONIOENCODING=io_encoding)
    run = subprocess.run([sys.executable, *args], capture_output=True, env=env, timeout=60)
    assert run.returncode == 0, run.stderr.decode(encoding, "replace")[-2000:]
    out = run.stdout.decode(encoding)
    # What the code page lacks prints as "?"; the rest, the Chinese under GBK too, as it is.
    expected = line.encode(encoding, "replace").decode(encoding)
    assert expected in " ".join(out.split()), out
    assert ("数字冰壶" in out) == (encoding != "cp1252" and "数字冰壶" in line)


def _parser(error: Exception) -> argparse.ArgumentParser:
    """``demo go``: a command that raises ``error``."""
    parser = argparse.ArgumentParser(prog="demo")
    sub = parser.add_subparsers(dest="command")

    def run(args: argparse.Namespace) -> int:
        raise error

    sub.add_parser("go").set_defaults(func=run)
    return parser


@pytest.mark.parametrize(
    ("error", "code"), [(UsageError("--a and --b exclude each other"), 2), (CommandError("x"), 1)]
)
def test_dispatch__command_error_is_one_line_and_its_exit_code(
    error: CommandError, code: int, capsys: pytest.CaptureFixture[str]
) -> None:
    assert dispatch(_parser(error), ["go"]) == code
    assert capsys.readouterr().err == f"demo go: {error}\n"


def test_dispatch__other_exceptions_are_not_swallowed() -> None:
    with pytest.raises(ZeroDivisionError):
        dispatch(_parser(ZeroDivisionError()), ["go"])


def test_simulate__bad_flags_raise_usage_error_through_dispatch(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from rllib_curling.cli.curling import main

    assert main(["simulate", "--slot", "16", "--v", "3"]) == 2
    assert capsys.readouterr().err == "curling simulate: --slot must be 0-15, got 16\n"


def test_simulate__out_of_range_throw_is_noted_and_echoed_as_thrown(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from rllib_curling.cli.curling import main

    assert main(["simulate", "--v", "9", "--h", "-5", "--no-noise", "--json"]) == 0
    out, err = capsys.readouterr()
    assert err == (
        "curling simulate: --v 9 is outside 0..6, thrown as 6; "
        "--h -5 is outside -2.23..2.23, thrown as -2.23\n"
    )
    assert json.loads(out)[0]["throw"] == {"v": 6.0, "h": -2.23, "w": 0.0, "sweep": 0.0}


def test_simulate__clamped_rows_of_a_file_are_counted_and_the_first_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from rllib_curling.cli.curling import main

    throws = tmp_path / "throws.csv"
    throws.write_text("v,h,w\n3,0,0\n3,0,20\n7,0,0\n")
    assert main(["simulate", "--throws", str(throws), "--no-noise"]) == 0
    assert capsys.readouterr().err == (
        "curling simulate: 2 of 3 throws clamped to the platform's limits "
        "(throw 2: w 20 is outside -15.7..15.7, thrown as 15.7)\n"
    )


def test_simulate__a_throw_within_the_limits_prints_no_note(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from rllib_curling.cli.curling import main

    assert main(["simulate", "--v", "3", "--no-noise"]) == 0
    assert capsys.readouterr().err == ""


def test_level_range__is_the_bots_levels() -> None:
    assert level_range() == "0-8"


def test_level_list__parses_and_checks_each_level() -> None:
    parse = level_list("opponent")
    assert parse("2") == (2,) and parse(" 2, 4,8 ") == (2, 4, 8)
    with pytest.raises(argparse.ArgumentTypeError, match=r"opponent must be one of \[0, 1"):
        parse("2,9")
    with pytest.raises(argparse.ArgumentTypeError, match="levels like 2 or 2,4,6: 'two'"):
        parse("two")


def test_opponent_list__levels_self_and_agents_in_order(tmp_path: Path) -> None:
    parse = opponent_list("opponent")
    assert parse("self,builtin,6") == ("self", "builtin", 6)
    assert parse(f" 8 ,{tmp_path}, policy:builtin") == (8, str(tmp_path), "policy:builtin")
    with pytest.raises(argparse.ArgumentTypeError, match=r"opponent must be one of \[0, 1"):
        parse("self,9")
    with pytest.raises(argparse.ArgumentTypeError, match="opponent 'nope': no checkpoint dir"):
        parse("self,nope")
    with pytest.raises(argparse.ArgumentTypeError, match="like self,builtin,6,8"):
        parse(",")


def test_improve_and_dataset__take_the_same_league() -> None:
    from rllib_curling.cli.curling import build_parser

    parser = build_parser()
    improve = parser.parse_args(["improve", "builtin", "out", "--opponents", "self,builtin,6"])
    dataset = parser.parse_args(["dataset", "out", "--opponents", "self,builtin,6"])
    assert improve.opponents == dataset.opponents == ("self", "builtin", 6)
    assert parser.parse_args(["improve", "builtin", "out"]).opponents == ("self", 6, 8)


@pytest.mark.parametrize(
    "argv",
    [
        ["dataset", "out", "--opponents", "4,9"],
        ["dataset", "out", "--opponents", "self,no-such-agent"],
        ["improve", "builtin", "out", "--opponents", "4,x"],
        ["match", "1", "0", "--ends", "0"],
        ["ladder", "--games", "0"],
    ],
)
def test_shared_options__bad_values_are_argparse_errors(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    from rllib_curling.cli.curling import main

    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert f"curling {argv[0]}: error: argument {argv[-2]}: " in capsys.readouterr().err


def test_load_player__a_folder_without_a_checkpoint_is_a_usage_error(tmp_path: Path) -> None:
    pytest.importorskip("ray", reason="needs the rl extra")
    with pytest.raises(UsageError, match=str(tmp_path)):
        load_player(str(tmp_path), "default_policy", SearchOptions())


def test_play__a_folder_without_a_checkpoint_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("ray", reason="needs the rl extra")
    from rllib_curling.cli.curling import main

    assert main(["play", "--checkpoint", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("curling play: ") and err.count("\n") == 1


def _help_texts() -> list[tuple[str, str]]:
    """(command, text) for every description and argument help of both programs."""
    from rllib_curling.cli import curling, rllib

    texts = []
    for program in (curling, rllib):
        parser = program.build_parser()
        (sub,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        for name, command in sub.choices.items():
            where = f"{parser.prog} {name}"
            names = {str(a.metavar) for a in command._actions if a.metavar}  # e.g. RUN_DIR
            drop = re.compile("|".join(rf"\b{re.escape(n)}\b" for n in names) or "$^")
            texts.append((where, drop.sub("", command.description or "")))
            texts += [(f"{where} {a.dest}", drop.sub("", a.help or "")) for a in command._actions]
    return texts


#: What a developer's note looks like in a help text: reST literals, the package's module paths,
#: its constants and classes.
DEV_NOTE = re.compile(
    r"``|rllib_curling|\b(?:rl|bots|agent|env|server|offline|physics|aiming|cli)\.(?!(?:md|json|pt|csv|yaml|ini|png)\b)[a-z_]+\b"
    r"|\b[A-Z]+_[A-Z_]+\b(?!\.)|\bCurling[A-Z]\w+"
)


@pytest.mark.parametrize(("where", "text"), _help_texts(), ids=lambda x: str(x)[:40])
def test_help__every_command_reads_as_help_not_as_developer_notes(where: str, text: str) -> None:
    assert not DEV_NOTE.search(text), f"{where}: {DEV_NOTE.search(text)}"
