"""Shared fixtures: no test may leave a curling server process behind.

Also holds the house rule for test names: ``test_<unit>__<behaviour>`` (collection fails
otherwise, naming the tests).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

import psutil
import pytest

#: Every process this test session starts inherits it (Ray's workers too), so a session sees
#: its own servers, orphans included, and not those of other sessions on the same host.
SESSION_VARIABLE = "RLLIB_CURLING_TEST_SESSION"
os.environ[SESSION_VARIABLE] = str(os.getpid())


def server_pids() -> set[int]:
    """PIDs of `curling server` processes that this test session started (children or not):
    command lines holding ``rllib_curling server``, with this session's mark in their
    environment (psutil: Linux, Windows and macOS alike)."""
    pids = set()
    for process in psutil.process_iter(["cmdline"]):
        if "rllib_curling server" in " ".join(process.info["cmdline"] or ()) and _ours(process):
            pids.add(process.pid)
    return pids - {os.getpid()}


def _ours(process: psutil.Process) -> bool:
    try:
        return process.environ().get(SESSION_VARIABLE) == str(os.getpid())
    except psutil.Error:  # gone, or another user's
        return False


def wait_until_gone(pids: set[int], timeout: float = 10.0) -> set[int]:
    deadline = time.monotonic() + timeout
    left = set(pids)
    while left and time.monotonic() < deadline:
        left &= server_pids()
        time.sleep(0.1)
    return left


@pytest.fixture(scope="module")
def ray_session() -> Iterator[None]:
    """Ray on 2 CPUs for one test module, stopped after it. One server starts and stops first,
    so the engine's compiled code is cached before env runners start several at once; the
    curling names are registered again (an earlier module's ``ray.shutdown()`` emptied Ray's
    registry). A module that needs more asks for this one in a fixture of the same name."""
    import ray

    import rllib_curling.rl
    from rllib_curling.server.process import ServerOptions, ServerProcess

    ServerProcess(ServerOptions()).stop()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    rllib_curling.rl.registration.register()
    try:
        yield
    finally:
        ray.shutdown()


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
