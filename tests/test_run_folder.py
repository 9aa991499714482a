"""A resumable run's folder: its settings are written once and checked on every resume."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rllib_curling import run_folder
from rllib_curling.errors import ConfigError


def test_claim__writes_the_settings_then_accepts_the_same_ones(tmp_path: Path) -> None:
    out = tmp_path / "run"
    run_folder.claim(out, "config.json", {"games": 10, "seed": 1}, "a dataset made")
    assert json.loads((out / "config.json").read_text()) == {"games": 10, "seed": 1}
    run_folder.claim(out, "config.json", {"games": 10, "seed": 1}, "a dataset made")  # resumes


def test_claim__other_settings_are_refused_naming_what_differs(tmp_path: Path) -> None:
    run_folder.claim(tmp_path, "config.json", {"games": 10, "seed": 1}, "a gate played")
    with pytest.raises(
        ConfigError, match=r"holds a gate played with other settings \(games differ\)"
    ):
        run_folder.claim(tmp_path, "config.json", {"games": 20, "seed": 1}, "a gate played")
    assert json.loads((tmp_path / "config.json").read_text())["games"] == 10  # nothing lost


def test_write_json__leaves_no_partial_file(tmp_path: Path) -> None:
    path = tmp_path / "verdict.json"
    run_folder.write_json(path, {"kept": True})
    assert json.loads(path.read_text()) == {"kept": True}
    assert [p.name for p in tmp_path.iterdir()] == ["verdict.json"]
