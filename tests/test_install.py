"""The core install (no extras) is enough for the server, the engine, the bots and `curling bench
server`, and pulls neither Ray, torch, Gymnasium nor matplotlib. Builds a fresh venv from the
project's files."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


def _script(env_dir: Path, name: str) -> str:
    """A venv's program ``name``: in ``bin``, or ``Scripts`` as ``name.exe`` on Windows."""
    scripts = env_dir / ("Scripts" if sys.platform == "win32" else "bin")
    found = shutil.which(name, path=str(scripts))
    assert found, f"no {name} in {scripts}"
    return found


@pytest.fixture(scope="module")
def core_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    env_dir = tmp_path_factory.mktemp("core-venv")
    venv.EnvBuilder(with_pip=True).create(env_dir)
    pip = [_script(env_dir, "python"), "-m", "pip", "install", "-q"]
    subprocess.run(
        [*pip, "-c", str(ROOT / "constraints.txt"), str(ROOT)],
        check=True, capture_output=True, text=True, timeout=800,
    )  # fmt: skip
    return env_dir


def test_core_install__pulls_no_rl_or_plotting_packages(core_venv: Path) -> None:
    out = subprocess.run(
        [_script(core_venv, "python"), "-m", "pip", "list", "--format", "json"],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    installed = {p["name"].lower() for p in json.loads(out.stdout)}
    assert {"numpy", "numba", "psutil", "rllib-curling"} <= installed
    assert not installed & {"ray", "torch", "gymnasium", "matplotlib", "pyyaml"}


def test_core_install__simulates_and_plays_bot_games(core_venv: Path) -> None:
    curling = _script(core_venv, "curling")
    sim = subprocess.run(
        [curling, "simulate", "--v", "3", "--no-noise", "--json"],
        check=True, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    (shot,) = json.loads(sim.stdout)
    assert abs(shot["y"] - 4.88) < 0.2
    match = subprocess.run(
        [curling, "match", "3", "2", "--games", "2", "--ends", "1", "--json"],
        check=True, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert json.loads(match.stdout)["games"] == 2


def test_core_install__benchmarks_the_server(core_venv: Path) -> None:
    bench = subprocess.run(
        [_script(core_venv, "curling"), "bench", "server", "--games", "1", "--ends", "1",
         "--repeats", "1", "--json"],
        check=True, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    figures = json.loads(bench.stdout)
    assert figures["shots"] == 16 and figures["server_cpu_us_per_shot"] >= 0  # psutil's reading


def test_core_install__server_plays_a_game_with_a_client(core_venv: Path) -> None:
    from server_helpers import RawClient
    from web_helpers import get_json, http

    server = subprocess.Popen(
        [_script(core_venv, "curling"), "server", "--tcp-port", "0", "--announce",
         "--ends", "1", "--seed", "1", "--http-port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        assert server.stdout is not None
        _, host, port = server.stdout.readline().split()
        _, web = server.stdout.readline().split()  # the page, from the installed package data
        for asset in ("", "static/app.js", "static/game.js", "static/sheet.js", "static/style.css"):
            assert http(web + asset)[0] == 200, asset
        client = RawClient(int(port), "localtest:3")
        t = client.play()
        client.close()
        assert len(t.results) == 1 and t.closed_by_empties and host == "127.0.0.1"
        assert get_json(web + "api/games")[0]["status"] == "finished"
    finally:
        server.terminate()
        server.wait(20)
