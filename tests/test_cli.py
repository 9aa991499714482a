"""``cli.dispatch``, shared by ``curling`` and ``rllib``: help prints in any console code page."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

import pytest

from rllib_curling.cli import CommandError, UsageError, dispatch

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
