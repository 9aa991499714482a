"""``curling calibrate``: the engine against the package's tables, and against any table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rllib_curling.cli.curling import main

DATA = Path(__file__).resolve().parents[1] / "rllib_curling" / "data"


def test_calibrate__default_report_meets_every_target(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["calibrate", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    for name, limit in report["targets"].items():
        assert report["figures"][name] <= limit, name
    assert report["figures"]["collision_rows"] == 28


def test_calibrate__a_users_collision_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = (DATA / "official_collisions.csv").read_text().splitlines()
    mine = tmp_path / "mine.csv"
    mine.write_text("\n".join(lines[:4]) + "\n")  # header + 3 rows
    assert main(["calibrate", str(mine), "--json", "--details"]) == 0
    table = json.loads(capsys.readouterr().out)[str(mine)]
    assert table["kind"] == "collisions" and table["figures"]["collision_rows"] == 3
    assert len(table["collisions"]) == 3 and table["figures"]["collision_target_median"] < 0.2


def test_calibrate__a_landing_table_and_its_text_report(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["calibrate", str(DATA / "official_landing.csv")]) == 0
    out = capsys.readouterr().out
    assert "(landing)" in out and "landing_rms" in out


def test_calibrate__an_unknown_table_is_one_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n")
    assert main(["calibrate", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("curling calibrate:") and "not a landing" in err


def test_calibrate__a_bad_collision_row_names_file_line_and_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = (DATA / "official_collisions.csv").read_text().splitlines()
    bad = tmp_path / "bad.csv"
    bad.write_text(lines[0] + "\n" + lines[1].replace("3.4", "fast", 1) + "\n")
    assert main(["calibrate", str(bad)]) == 2
    assert "line 2: v = 'fast' is not a number" in capsys.readouterr().err
