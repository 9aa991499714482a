"""The benchmark scripts run and print their figures (the figures themselves are not checked:
targets are met in benchmarks, not in timed tests)."""

from __future__ import annotations

import json
import math
import os
import sys

import pytest

from rllib_curling.cli.curling import main as curling_main

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(300),
    pytest.mark.usefixtures("no_leftover_servers"),
]


def test_bench_env__prints_every_path(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["bench", "env", "--games", "1", "--repeats", "1", "--envs", "2", "--json"]
    assert curling_main(args) == 0
    result = json.loads(capsys.readouterr().out)
    for key in ("tcp_steps_per_s", "vector_steps_per_s", "direct_steps_per_s"):
        assert result[key] > 0, result
    assert result["vector_envs"] == 2
    ratio = result["vector_steps_per_s"] / result["direct_steps_per_s"]
    assert result["vector_over_direct"] == ratio


def test_bench_env_league__prints_both_ways_of_stepping(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("ray", reason="the league env steps through RLlib's vector env")
    args = ["bench", "env", "--league", "--level", "1", "--games", "1", "--repeats", "1",
            "--envs", "2", "--json"]  # fmt: skip
    assert curling_main(args) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["league_sync_steps_per_s"] > 0 and result["league_together_steps_per_s"] > 0
    assert (result["envs"], result["level"]) == (2, 1)


def test_bench_server__prints_finite_figures(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["bench", "server", "--games", "1", "--ends", "1", "--repeats", "1", "--json"]
    assert curling_main(args) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["shots"] == 16 and result["tcp_shots_per_s"] > 0, result
    # The server's CPU time is read through psutil: a number (maybe 0 for so short a run).
    assert result["server_cpu_us_per_shot"] >= 0, result
    # The load average is NaN only where the system does not tell it (Wine has no performance
    # counters for psutil's Windows emulation of it).
    load = result["load_average_1min"]
    assert load >= 0 or (sys.platform == "win32" and math.isnan(load)), result


def test_bench_processes__cpu_memory_and_server_children_of_processes() -> None:
    from rllib_curling.benchmarks import processes
    from rllib_curling.server.process import ServerOptions, ServerProcess

    me = os.getpid()
    assert processes.cpu_seconds(me) > 0 and processes.rss_bytes(me) > 10 * 2**20
    server = ServerProcess(ServerOptions())
    try:
        assert processes.server_children(me) == [server.pid]
        assert processes.rss_bytes(server.pid) > 10 * 2**20
    finally:
        server.stop()
    gone = server.pid
    assert processes.server_children(me) == []
    assert math.isnan(processes.cpu_seconds(gone)) and processes.rss_bytes(gone) == 0
    cpus = processes.allowed_cpus()
    assert cpus is None or (cpus and set(cpus) <= set(range(os.cpu_count() or 1)))


def test_bench_env_league__without_ray_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "ray" else real(name, *a)
    )
    assert curling_main(["bench", "env", "--league"]) == 2
    assert "needs Ray" in capsys.readouterr().err


def test_bench_search__meters_the_engine_and_the_network_then_lets_go(
    capsys: pytest.CaptureFixture[str],
) -> None:
    pytest.importorskip("torch", reason="needs the rl extra")
    from rllib_curling import physics

    original = physics.simulate_batch
    assert curling_main(["bench", "search", "--games", "1", "--json"]) == 0
    f = json.loads(capsys.readouterr().out)
    assert f["decisions"] == 32  # every stone of a 2-end game
    # the shipped agent's search throws hundreds of candidates and asks its value head
    assert f["throws_per_decision"] > 100 and f["network_calls_per_decision"] >= 1
    assert 0 < f["engine_share"] + f["network_share"] <= 1.0 + 1e-9
    assert physics.simulate_batch is original  # the meters are gone after the run


def test_bench_physics_fcv1__figures_of_the_fcv1_ice(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from rllib_curling.benchmarks import physics_fcv1

    figures = physics_fcv1.run(batch=40, single=5, repeats=1, seed=0)
    for key in (
        "draw_batched_shots_per_s",
        "midend_batched_shots_per_s",
        "midend_single_latency_ms",
    ):
        assert figures[key] > 0, figures
    assert 0.2 < figures["midend_share_with_contact"] <= 1.0  # the mid-end shots do hit stones
    _keep_numba_threads(monkeypatch)
    assert curling_main(["bench", "physics", "--ice", "fcv1", "--batch", "40", "--single", "5",
                         "--repeats", "1"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert out.startswith("fcv1 physics benchmark (one core, no noise, median of 1 runs)")
    assert "target >= 20,000 mid-end shots/s batched" in out


def test_bench_physics__figures_and_targets_of_the_platforms_ice(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _keep_numba_threads(monkeypatch)
    assert (
        curling_main(["bench", "physics", "--batch", "40", "--single", "5", "--repeats", "1"]) == 0
    )
    out = capsys.readouterr().out
    assert out.startswith("physics benchmark (one core, noise on, median of 1 runs)")
    assert "target >= 100,000 mid-end shots/s batched" in out and "single-shot latency" in out
    assert curling_main(["bench", "physics", "--batch", "40", "--single", "5", "--repeats", "1",
                         "--json"]) == 0  # fmt: skip
    figures = json.loads(capsys.readouterr().out)
    assert figures["midend_batched_shots_per_s"] > 0 and figures["midend_single_latency_ms"] > 0


def _keep_numba_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    """The benchmark sets NUMBA_NUM_THREADS=1 unless it is set and pins its process to one CPU:
    in the test's process (numba's threads already run, other tests follow) the setting stays
    what it is and the process is not pinned."""
    import numba

    from rllib_curling.benchmarks import physics as physics_bench

    monkeypatch.setenv("NUMBA_NUM_THREADS", str(numba.config.NUMBA_NUM_THREADS))
    monkeypatch.setattr(physics_bench, "pin_one_core", lambda: None)
