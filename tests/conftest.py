"""Shared fixtures: no test may leave a curling server process behind.

Also holds the house rule for test names: ``test_<unit>__<behaviour>`` (collection fails
otherwise, naming the tests).
"""

from __future__ import annotations

import os
import subprocess
import time

import pytest

#: Every process this test session starts inherits it (Ray's workers too), so a session sees
#: its own servers, orphans included, and not those of other sessions on the same host.
SESSION_VARIABLE = "RLLIB_CURLING_TEST_SESSION"
os.environ[SESSION_VARIABLE] = str(os.getpid())
_SESSION_MARK = f"{SESSION_VARIABLE}={os.getpid()}".encode() + b"\0"


def server_pids() -> set[int]:
    """PIDs of `curling server` processes that this test session started (children or not)."""
    out = subprocess.run(
        ["pgrep", "-f", "rllib_curling server"], capture_output=True, text=True
    ).stdout
    return {int(p) for p in out.split() if _ours(int(p))} - {os.getpid()}


def _ours(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as fh:
            return _SESSION_MARK in b"\0" + fh.read()
    except OSError:
        return False


def wait_until_gone(pids: set[int], timeout: float = 10.0) -> set[int]:
    deadline = time.monotonic() + timeout
    left = set(pids)
    while left and time.monotonic() < deadline:
        left &= server_pids()
        time.sleep(0.1)
    return left


@pytest.fixture
def no_leftover_servers():
    """Fail the test if it leaves a `curling server` child process running."""
    before = server_pids()
    yield
    left = wait_until_gone(server_pids() - before)
    assert not left, f"curling server processes left running: {sorted(left)}"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Refuse test names that do not say ``test_<unit>__<behaviour>`` (design.md's convention)."""
    bad = sorted(
        {item.nodeid.split("[")[0] for item in items if "__" not in item.name.split("[")[0][5:]}
    )
    if bad:
        raise pytest.UsageError("test names must read test_<unit>__<behaviour>: " + ", ".join(bad))
