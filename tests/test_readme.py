"""README's main command, as written: from a checkout's root, with relative paths, the default
config; only shortened (two teacher games, one training iteration a stage, two games per
opponent).
Slow."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


def main_command() -> list[str]:
    """The ``&&``-separated parts of README's first command block (the main job)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("## The two commands", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    return [part.strip() for part in block.strip().split("&&")]


def _as_here(command: str) -> list[str]:
    """The README's ``.venv/bin/X`` run with this interpreter's environment (its ``bin``, or
    ``Scripts`` on Windows, where X is ``X.exe``)."""
    scripts, prefix = Path(sys.executable).parent, ".venv/bin/"
    return [
        shutil.which(arg[len(prefix) :], path=str(scripts)) or arg
        if arg.startswith(prefix) else arg
        for arg in shlex.split(command)
    ]  # fmt: skip


def test_readme__main_command_trains_and_evaluates_from_the_root(
    tmp_path: Path, no_leftover_servers: None
) -> None:
    parts = [p for p in main_command() if ".venv/bin/" in p and " install " not in p]
    dataset, *trains, export, evaluate = parts
    assert " dataset data/" in dataset  # relative paths
    assert trains and all("--storage-path results" in train for train in trains)
    assert " export results/" in export and " evaluate agents/" in evaluate
    shutil.copytree(ROOT / "tune_configs", tmp_path / "tune_configs")  # the root's layout

    def run(command: list[str]) -> subprocess.CompletedProcess:
        done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-3000:] + done.stdout[-3000:]
        return done

    run(_as_here(re.sub(r"--games \d+", "--games 2", dataset)))
    for train in trains:  # each stage from the one before (ppo_shots.yaml starts from BC's)
        trained = run([*_as_here(train), "--stop", '{"training_iteration": 1}'])
        assert "best checkpoint:" in trained.stdout  # the progress table's end
        assert "Configuration for experiment" not in trained.stdout  # no config dump by default
        assert "Checkpoint successfully created" not in trained.stdout + trained.stderr
    # TensorBoard (README: `tensorboard --logdir results`) finds each trial's event file there.
    assert list((tmp_path / "results").glob("*/*/events.out.tfevents.*"))
    run(_as_here(export))
    out = run(_as_here(re.sub(r"--episodes \d+", "--episodes 2", evaluate)))
    rows = re.findall(r"^level (\d) +2 ", out.stdout, re.M)
    opponents = re.search(r"--opponent ([\d,]+)", evaluate)
    assert opponents is not None and rows == opponents.group(1).split(",")


def _command_blocks(name: str) -> list[str]:
    """The command blocks of a README's "two commands" section: the main job, the tests."""
    text = (ROOT / name).read_text(encoding="utf-8")
    section = text.split("## The two commands" if name == "README.md" else "## 两条命令", 1)[1]
    return [block.split("```", 1)[0].strip() for block in section.split("```bash")[1:3]]


def test_readme_zh_cn__gives_the_same_two_commands() -> None:
    # one source: the Chinese README must not drift from the English one's commands
    english = _command_blocks("README.md")
    assert len(english) == 2 and english == _command_blocks("README.zh-CN.md")
