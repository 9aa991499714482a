"""The benchmark scripts run and print their figures (the figures themselves are not checked:
targets are met in benchmarks, not in timed tests)."""

from __future__ import annotations

import json

import pytest

from rllib_curling.cli.curling import main as curling_main

pytestmark = [pytest.mark.timeout(300), pytest.mark.usefixtures("no_leftover_servers")]


def test_bench_env__prints_every_path(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["bench", "env", "--games", "1", "--repeats", "1", "--envs", "2", "--json"]
    assert curling_main(args) == 0
    result = json.loads(capsys.readouterr().out)
    for key in ("tcp_steps_per_s", "vector_steps_per_s", "direct_steps_per_s"):
        assert result[key] > 0, result
    assert result["vector_envs"] == 2
    ratio = result["vector_steps_per_s"] / result["direct_steps_per_s"]
    assert result["vector_over_direct"] == ratio
