"""Helpers of the RLlib tests: checks on checkpoints and a ``curling server`` child to play on."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def assert_resumes(checkpoint: str | Path) -> None:
    """The algorithm restores from ``checkpoint`` and trains one more iteration."""
    from ray.rllib.algorithms.algorithm import Algorithm

    restored = Algorithm.from_checkpoint(checkpoint)
    try:
        before = restored.iteration
        result = restored.train()
        assert result["training_iteration"] == before + 1
    finally:
        restored.stop()


@contextmanager
def announced_server(games: int, ends: int) -> Iterator[tuple[str, str]]:
    """A ``curling server`` child on a free port for ``games`` games of ``ends`` ends, stopped
    after; yields the ``(host, port)`` it announces."""
    server = subprocess.Popen(
        [sys.executable, "-m", "rllib_curling", "server", "--tcp-port", "0", "--announce",
         "--games", str(games), "--ends", str(ends), "--exit-with-parent"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert server.stdout is not None
        _, host, port = server.stdout.readline().split()
        yield host, port
    finally:
        server.terminate()
        server.wait(30)
