"""``simcore calibrate``: the report from counts and from a CSV, and bad input."""

import numpy as np
import pytest

from simcore.calibration.statistics import corrected_failure_rate, wilson_interval
from simcore.cli import main


def run(capsys, *argv):
    """Run the command line; return (status, stdout, stderr)."""
    status = main(["calibrate", *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def write_csv(path, table):
    """Write a calibration CSV with the four cells of ``table`` as rows (shuffled order)."""
    rows = (
        [("fail", "fail")] * table[0]
        + [("FAIL ", "pass")] * table[1]
        + [("pass", "Fail")] * table[2]
        + [("pass", "pass")] * table[3]
    )
    order = np.random.default_rng(3).permutation(len(rows))
    lines = ["item,human,judge"] + [f"{i},{rows[j][0]},{rows[j][1]}" for i, j in enumerate(order)]
    path.write_text("\n".join(lines) + "\n")


def test_the_report_gives_the_rates_the_correction_and_its_intervals(capsys):
    status, out, _ = run(capsys, "--table", "34,6,8,72", "--fails", "130", "--of", "1000")
    assert status == 0
    result = corrected_failure_rate(130, 1000, 34, 6, 8, 72)
    low, high = wilson_interval(34, 40)
    assert f"0.850 [{low:.3f}, {high:.3f}]" in out
    assert f"Rogan-Gladen): {float(result.estimate):.4f}" in out
    assert f"(Lang-Reiczigel): [{float(result.lr_low):.3f}, {float(result.lr_high):.3f}]" in out
    assert f"[{float(result.naive_low):.3f}, {float(result.naive_high):.3f}]" in out
    assert "too narrow" in out
    share = round(100 * float(result.calibration_share))
    assert f"{share}% of the interval's variance comes from the calibration set" in out


def test_a_csv_gives_the_same_report_as_its_counts(tmp_path, capsys):
    table = (30, 10, 12, 68)
    write_csv(tmp_path / "calibration.csv", table)
    _, from_table, _ = run(
        capsys, "--table", ",".join(map(str, table)), "--fails", "90", "--of", "500"
    )
    status, from_csv, _ = run(
        capsys, "--csv", str(tmp_path / "calibration.csv"), "--fails", "90", "--of", "500"
    )
    assert status == 0
    assert from_csv == from_table


def test_a_weak_judge_is_not_corrected(capsys):
    status, out, _ = run(capsys, "--table", "11,9,36,44", "--fails", "300", "--of", "1000")
    assert status == 0
    assert "not corrected: Youden J = 0.1" in out
    assert "uncorrected" in out
    assert "Lang-Reiczigel" not in out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            "human,judge\nfail,maybe\n",
            "line 2: column 'judge': must be 'fail' or 'pass' (got 'maybe')",
        ),
        ("truth,judge\nfail,fail\n", "column 'human' not found"),
        ("human,judge\n", "no calibration rows"),
    ],
)
def test_bad_csv_input_names_the_file_and_exits_2(tmp_path, capsys, content, message):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    status, out, err = run(capsys, "--csv", str(path), "--fails", "1", "--of", "10")
    assert status == 2
    assert str(path) in err and message in err
    assert out == ""


@pytest.mark.parametrize(
    "argv",
    [
        ["--table", "1,2,3", "--fails", "1", "--of", "10"],
        ["--table", "1,2,3,4", "--fails", "11", "--of", "10"],
        ["--table", "1,2,3,4", "--fails", "1", "--of", "10", "--confidence", "1.5"],
    ],
)
def test_bad_counts_exit_2(capsys, argv):
    status, _, err = run(capsys, *argv)
    assert status == 2 and "simcore calibrate:" in err
