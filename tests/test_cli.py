"""``cli.dispatch``, shared by ``curling`` and ``rllib``: help prints in any console code page."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

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
