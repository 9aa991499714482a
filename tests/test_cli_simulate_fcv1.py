"""``curling simulate --ice fcv1``: DC3-style case files in, DC3's outcome columns out."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np
import pytest

from rllib_curling.cli.curling import main

DATA = Path(__file__).parent / "data" / "dc3"


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["simulate", "--ice", "fcv1", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_simulate_fcv1__collision_cases_print_the_reference_columns_and_outcomes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = _run(["--throws", str(DATA / "collisions.csv")], capsys)
    assert (code, err) == (0, "")
    ours = list(csv.DictReader(io.StringIO(out)))
    with (DATA / "collisions.csv").open(newline="") as f:
        reference = list(csv.DictReader(f))
    stones = ("th", "s1", "s2", "s3")
    columns = ["case_id"] + [f"{s}_{c}" for s in stones for c in ("status", "x", "y")]
    assert list(ours[0]) == [*columns, "t_end", "steps"]
    assert all(set(columns) <= set(r) for r in reference)  # the reference's own names
    errors = []
    for mine, ref in zip(ours, reference, strict=True):
        assert mine["case_id"] == ref["case_id"]
        for s in stones:
            assert mine[f"{s}_status"] == ref[f"{s}_status"], (ref["case_id"], s)
            assert (mine[f"{s}_x"] == "") == (ref[f"{s}_x"] == "")
            if ref[f"{s}_x"]:
                dx = float(mine[f"{s}_x"]) - float(ref[f"{s}_x"])
                errors.append(np.hypot(dx, float(mine[f"{s}_y"]) - float(ref[f"{s}_y"])))
    assert np.median(errors) <= 0.05 and np.percentile(errors, 90) <= 0.20


def test_simulate_fcv1__free_throws_by_throw_id_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["--throws", str(DATA / "free_throws.csv"), "--json"], capsys)
    records = json.loads(out)
    with (DATA / "free_throws.csv").open(newline="") as f:
        reference = list(csv.DictReader(f))
    assert code == 0 and [r["case_id"] for r in records] == [r["throw_id"] for r in reference]
    assert set(records[0]) == {"case_id", "th_status", "th_x", "th_y", "t_end", "steps"}
    for mine, ref in zip(records, reference, strict=True):
        assert mine["th_status"] == ref["status"]
        if ref["x"]:
            assert np.hypot(mine["th_x"] - float(ref["x"]), mine["th_y"] - float(ref["y"])) < 0.05
        else:
            assert mine["th_x"] is None and mine["th_y"] is None


def test_simulate_fcv1__seed_adds_dc_noise_deterministically(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = tmp_path / "cases.csv"
    cases.write_text("case_id,n_placed,vx,vy,rotation\na,0,0.1,2.4,ccw\nb,,-0.1,2.4,cw\n")
    plain = _run(["--throws", str(cases)], capsys)[1]
    noisy = _run(["--throws", str(cases), "--seed", "3"], capsys)[1]
    assert noisy == _run(["--throws", str(cases), "--seed", "3"], capsys)[1]
    assert noisy != plain and plain.splitlines()[0] == "case_id,th_status,th_x,th_y,t_end,steps"


@pytest.mark.parametrize(
    "text, message",
    [
        ("id,vx,vy,rotation\n1,0,2.4,cw\n",
         ": the header lacks case_id or throw_id (it has id, vx, vy, rotation)"),
        ("case_id,vx,rotation\n1,0,cw\n", ": the header lacks vy (it has case_id, vx, rotation)"),
        ("case_id,vx,vy,rotation\n", ": no cases after the header"),
        ("case_id,vx,vy,rotation\n1,0,fast,cw\n", " line 2: column vy: 'fast' is not a number"),
        ("case_id,vx,vy,rotation\n1,0,2.4,left\n", " line 2: rotation 'left'; allowed: cw, ccw"),
        ("case_id,vx,vy,rotation\n1,0,6,cw\n", " line 2: speed 6 m/s; allowed: below 5"),
        ("case_id,n_placed,vx,vy,rotation\n1,1,0,2.4,cw\n",
         " line 2: n_placed 1 needs column s1_x0"),
        ("case_id,n_placed,vx,vy,rotation\n1,x,0,2.4,cw\n", " line 2: n_placed 'x'; allowed: 0-15"),
    ],
)  # fmt: skip
def test_simulate_fcv1__bad_case_files_are_one_line_errors(
    text: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = tmp_path / "cases.csv"
    cases.write_text(text)
    code, out, err = _run(["--throws", str(cases)], capsys)
    assert (code, out) == (2, "")
    assert err == f"curling simulate: {cases}{message}\n"


def test_simulate_fcv1__missing_file_and_platform_flags_are_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "none.csv"
    code, _, err = _run(["--throws", str(missing)], capsys)
    assert (
        code == 2 and err == f"curling simulate: cannot read {missing}: No such file or directory\n"
    )
    code, _, err = _run(["--v", "3"], capsys)
    assert (code, err) == (
        2,
        "curling simulate: --v is not used with --ice fcv1; give --throws FILE.csv\n",
    )
    code, _, err = _run([], capsys)
    assert code == 2 and "--ice fcv1 needs --throws FILE.csv" in err
    assert main(["simulate", "--ice", "ice9", "--v", "3"]) == 2
    assert (
        capsys.readouterr().err == "curling simulate: unknown --ice 'ice9'; known: platform, fcv1\n"
    )
