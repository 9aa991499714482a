"""``rllib train --ray-address``: a two-node Ray cluster on this machine (README, "More than one
machine").

The cluster is two raylets joined through 127.0.0.1, with token authentication (Ray 2.60's
default for clusters), its own ``--temp-dir``, and is stopped by this test by PID: never
``ray stop``, which would stop every Ray process on the host. Ray itself advertises each node
under the machine's own address (it maps 127.0.0.1 to it) and binds its ports on all
interfaces; our private curling servers bind 127.0.0.1 only.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil
import pytest

pytestmark = pytest.mark.slow

_SCRIPTS = str(Path(sys.executable).parent)  # the venv's bin (Scripts on Windows: X.exe)
RAY = shutil.which("ray", path=_SCRIPTS) or str(Path(_SCRIPTS, "ray"))
RLLIB = shutil.which("rllib", path=_SCRIPTS) or str(Path(_SCRIPTS, "rllib"))
WORKER_RESOURCE = "curling_worker_node"


def _processes() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, command line) of every process on the host (psutil)."""
    table: dict[int, tuple[int, str]] = {}
    for process in psutil.process_iter(["ppid", "cmdline"]):
        ppid, cmdline = process.info["ppid"], process.info["cmdline"]
        if ppid is not None and cmdline is not None:  # else gone meanwhile, or not ours
            table[process.pid] = (ppid, " ".join(cmdline))
    return table


def _ancestors(pid: int, table: dict[int, tuple[int, str]]) -> list[str]:
    """Command lines of ``pid``'s parent, grandparent, ... (as far as the table knows)."""
    lines = []
    while pid in table and pid > 1:
        pid = table[pid][0]
        if pid in table:
            lines.append(table[pid][1])
    return lines


def _cluster_pids(temp_dir: str) -> set[int]:
    """The cluster's processes: those naming its temp dir, and all their descendants."""
    table = _processes()
    pids = {pid for pid, (_, cmd) in table.items() if temp_dir in cmd}
    grew = True
    while grew:
        children = {pid for pid, (ppid, _) in table.items() if ppid in pids} - pids
        pids |= children
        grew = bool(children)
    return pids


def _stop(temp_dir: str) -> None:
    """Terminate the cluster's processes by PID (SIGTERM), then kill what is left (SIGKILL)."""
    for how, wait in (("terminate", 10.0), ("kill", 5.0)):
        pids = _cluster_pids(temp_dir)
        for pid in pids:
            try:
                getattr(psutil.Process(pid), how)()
            except psutil.NoSuchProcess:
                pass
        deadline = time.monotonic() + wait
        while _cluster_pids(temp_dir) and time.monotonic() < deadline:
            time.sleep(0.2)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def cluster():
    """(address, environment) of a running two-node cluster; the second node alone has one
    ``curling_worker_node`` resource."""
    # Short: Ray's unix socket paths under it must stay below 108 bytes (POSIX).
    temp_dir = tempfile.mkdtemp(prefix="rc-", dir="/tmp" if os.name == "posix" else None)
    env = dict(
        os.environ,
        RAY_AUTH_MODE="token",
        RAY_AUTH_TOKEN=secrets.token_hex(32),  # this cluster's own: ~/.ray is left alone
        RAY_USAGE_STATS_ENABLED="0",
    )
    address = f"127.0.0.1:{_free_port()}"
    common = ["--num-cpus", "1", "--disable-usage-stats"]
    try:
        subprocess.run(
            [RAY, "start", "--head", "--port", address.rsplit(":", 1)[1], "--temp-dir",
             temp_dir, "--include-dashboard", "false", *common],
            env=env, check=True, capture_output=True, timeout=180,
        )  # fmt: skip
        subprocess.run(
            [RAY, "start", "--address", address, "--resources",
             json.dumps({WORKER_RESOURCE: 1}), *common],
            env=env, check=True, capture_output=True, timeout=180,
        )  # fmt: skip
        yield address, env, temp_dir
    finally:
        _stop(temp_dir)
        left = _cluster_pids(temp_dir)
        shutil.rmtree(temp_dir, ignore_errors=True)
        assert not left, f"cluster processes left running: {sorted(left)}"


def _is_curling_server(cmd: str) -> bool:
    return "-m rllib_curling server" in cmd


def test_cluster__env_runner_and_its_server_run_on_the_second_node(cluster, tmp_path):
    address, env, temp_dir = cluster
    seen: dict[int, list[str]] = {}  # server pid -> its ancestors' command lines
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            table = _processes()
            for pid, (_, cmd) in table.items():
                if _is_curling_server(cmd) and pid not in seen:
                    seen[pid] = _ancestors(pid, table)
            time.sleep(0.1)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    config = {
        "num_env_runners": 1,
        "custom_resources_per_env_runner": {WORKER_RESOURCE: 1},
        "train_batch_size_per_learner": 256,
        "minibatch_size": 128,
        "num_epochs": 1,
    }
    try:
        run = subprocess.run(
            [RLLIB, "train", "--run", "PPO", "--env", "curling", "--ray-address", address,
             "--stop", '{"training_iteration": 1}', "--storage-path", "results",
             "--config", json.dumps(config)],
            env=env, cwd=tmp_path, capture_output=True, text=True, timeout=900,
        )  # fmt: skip
    finally:
        done.set()
        watcher.join()
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "best checkpoint: " in run.stdout
    assert list((tmp_path / "results" / "default").glob("PPO_curling_*/checkpoint_*"))

    # This cluster's servers: those under one of its raylets (other servers on the host aside).
    ours = {}
    for pid, ancestors in seen.items():
        raylets = [cmd for cmd in ancestors if "/raylet " in cmd and temp_dir in cmd]
        if raylets:
            ours[pid] = raylets[0]
    assert ours, "no private curling server was seen in the cluster while training"
    for pid, raylet in ours.items():
        assert WORKER_RESOURCE in raylet, f"server {pid} ran on the head node"
    seen = ours
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(p in _processes() for p in seen):
        time.sleep(0.2)
    alive = [p for p in seen if p in _processes()]
    assert not alive, f"private servers still running after training: {alive}"


def test_cluster__joining_without_the_token_mode_says_how_to_fix_it(cluster, tmp_path):
    address, env, _ = cluster
    env = {k: v for k, v in env.items() if k not in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN")}
    env["RAY_AUTH_MODE"] = "disabled"  # a driver without the cluster's token mode
    run = subprocess.run(
        [RLLIB, "train", "--run", "PPO", "--env", "curling", "--ray-address", address,
         "--stop", '{"training_iteration": 1}', "--storage-path", "results"],
        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 2, run.stderr[-3000:]
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run.stderr[-3000:]
    assert "RAY_AUTH_MODE=token" in lines[0]
    assert not (tmp_path / "results").exists()
