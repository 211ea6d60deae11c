"""Sizes bounded before the work (issue 46): a gzip bomb, thousands of labels, a huge
``--boot``, a billion-cell sweep and absurd ``workers`` are refused quickly with one line
(exit 2 on the command line, ``ValueError``/``TypeError`` in Python), never a MemoryError,
a traceback or hours of work."""

import gzip
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import simcore
from simcore.cli import main
from simcore.realdata import files
from simcore.realdata.allocation import WORK_LIMIT, available_bytes

ROOT = Path(__file__).resolve().parents[1]
ADDRESS_LIMIT = 4 * 2**30
"""The address-space limit the subprocess tests run under (RLIMIT_AS)."""


def limited():
    """``preexec_fn``: cap the child's address space at :data:`ADDRESS_LIMIT`."""
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_LIMIT, ADDRESS_LIMIT))


def run_limited(*argv, timeout=60):
    """Run ``python -m simcore ARGV`` under the address limit; return (status, stderr).

    ``timeout`` only guards against a hang; speed is measured in ``make bench``.
    """
    done = subprocess.run(
        [sys.executable, "-m", "simcore", *map(str, argv)],
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=limited,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    return done.returncode, done.stderr


def one_line_refusal(status, err):
    """Assert exit 2, one line, no traceback nor MemoryError; return the line."""
    assert "Traceback" not in err and "MemoryError" not in err, err
    assert status == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def gzip_bomb(path, gib=4):
    """Write a ~4 MB gzip whose members expand to ``gib`` GiB: a header, then zeros."""
    member = gzip.compress(b"0" * 2**24, compresslevel=9, mtime=0)
    with path.open("wb") as stream:
        stream.write(gzip.compress(b"item,rater,label\n", mtime=0))
        for _ in range(gib * 64):  # 64 members of 16 MiB make a GiB
            stream.write(member)
    return path


def many_labels(path, n_labels, raters=("j1", "j2", "j3"), n_items=None):
    """Write a long CSV in which nearly every label is distinct (``n_labels`` of them)."""
    n_items = n_labels if n_items is None else n_items
    rows = ["item,rater,label"]
    for item in range(n_items):
        for shift, rater in enumerate(raters):
            rows.append(f"i{item},{rater},L{(item * (shift + 1)) % n_labels}")
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_a_gzip_bomb_is_refused_under_a_4_gb_address_limit(tmp_path):
    bomb = gzip_bomb(tmp_path / "bomb.csv.gz")
    assert bomb.stat().st_size < 8 * 2**20
    status, err = run_limited("inspect", bomb)
    line = one_line_refusal(status, err)
    assert str(bomb) in line and "read limit" in line


def test_a_12000_label_matrix_is_refused_under_a_4_gb_address_limit(tmp_path):
    data = many_labels(tmp_path / "labels.csv", 12_000)
    status, err = run_limited("wellposed", data)
    line = one_line_refusal(status, err)
    assert f"{data}: labels:" in line and "12,000 x 12,000 labels" in line


def test_reading_stops_at_the_limit_as_the_text_grows(tmp_path):
    bomb = gzip_bomb(tmp_path / "bomb.csv.gz", gib=1)
    with pytest.raises(files.ReadLimitExceeded, match="passes the read limit of"):
        with files.open_text(bomb, limit=2**20) as handle:
            handle.read()
    plain = tmp_path / "plain.csv"
    plain.write_text("item,rater,label\n" + "i,r,1\n" * 1000)
    with pytest.raises(files.ReadLimitExceeded, match="the file's 6,017 bytes of text"):
        files.open_text(plain, limit=1000)
    with files.open_text(plain, limit=10_000) as handle:
        assert handle.read().count("\n") == 1001


def test_the_read_limit_follows_the_memory_available():
    assert files.read_limit() == max(2**20, available_bytes() // files.TEXT_EXPANSION)


def test_agreement_over_20000_labels_is_refused_before_the_work():
    rows = [
        (f"i{i}", rater, f"L{(i * k) % 20_000}")
        for i in range(20_000)
        for k, rater in enumerate(("a", "b", "c"), start=1)
    ]
    import pandas as pd

    frame = pd.DataFrame(rows, columns=["item", "rater", "label"])
    with pytest.raises(ValueError, match=r"labels: .*20,000 distinct labels"):
        simcore.agreement(frame)


def test_a_huge_boot_is_refused_up_front(tmp_path, capsys):
    data = many_labels(tmp_path / "small.csv", 3, raters=("h1", "h2", "h3"), n_items=50)
    for argv in (
        ("inspect", data, "--agreement", "krippendorff_alpha", "--boot", 10**10),
        ("ceiling", data, "--boot", 10**10),
        ("ceiling", data, "--boot", 10**7),  # fits in memory, but hours of work
        ("wellposed", data, "--boot", 10**10),
    ):
        status = main([str(part) for part in argv])
        line = one_line_refusal(status, capsys.readouterr().err)
        assert f"{data}: boot:" in line and "lower --boot" in line


def test_a_matrix_with_many_labels_that_fits_still_runs(tmp_path):
    data = many_labels(tmp_path / "labels.csv", 300, n_items=300)
    result = simcore.agreement(data, raters="j1,j2,j3", boot=20)
    assert result.to_dict()["items"] == 300


def test_work_beyond_the_bound_is_refused_naming_the_bound():
    from simcore.realdata.allocation import check_work
    from simcore.realdata.annotation import DataError

    check_work(WORK_LIMIT, "x.csv: boot", "this", "lower it", "it")
    with pytest.raises(DataError, match=r"x.csv: boot: this take about 2.0e\+11"):
        check_work(WORK_LIMIT + 1, "x.csv: boot", "this", "lower it", "it")


def billion_cells(tmp_path):
    scenario = yaml.safe_load((ROOT / "scenarios" / "fig2.yaml").read_text())
    scenario.pop("published", None)
    scenario.pop("output", None)
    scenario["trials"] = 10
    scenario["sweep"] = {
        "p_judge": [round(0.5 + 0.0004 * i, 4) for i in range(1000)],
        "rho": [round(0.001 * (i + 1), 4) for i in range(1000)],
        "epsilon": [round(0.0001 * (i + 1), 5) for i in range(1000)],
    }
    path = tmp_path / "billion.yaml"
    path.write_text(yaml.safe_dump(scenario))
    return path


@pytest.mark.parametrize("command", ["validate", "run"])
def test_a_billion_cell_sweep_is_refused_before_the_work(tmp_path, capsys, command):
    path = billion_cells(tmp_path)
    status = main([command, str(path), *(["--out", str(tmp_path / "s.zarr")] * (command == "run"))])
    line = one_line_refusal(status, capsys.readouterr().err)
    assert "sweep: 1,000,000,000 cells need about" in line
    assert not (tmp_path / "s.zarr").exists()


def test_cross_field_checks_of_a_long_sweep_read_a_bounded_sample(tmp_path):
    from simcore.studies.synthetic.config import CROSS_CHECK_CELLS, cells_to_check

    scenario = simcore.load_scenario(billion_cells(tmp_path))
    cells = list(cells_to_check(scenario))
    assert 3000 <= len(cells) <= CROSS_CHECK_CELLS
    indices = {cell.index for cell in cells}
    assert {(999, 999, 999), (0, 0, 0), (500, 500, 500)} <= indices
    assert all(
        any(index[axis] == value for index in indices) for axis in range(3) for value in range(1000)
    )


@pytest.mark.parametrize("workers", [0, 100_000])
def test_workers_out_of_bounds_are_refused(tmp_path, capsys, workers):
    scenario = ROOT / "scenarios" / "fig2.yaml"
    status = main(["run", str(scenario), "--workers", str(workers), "--out", str(tmp_path / "s")])
    line = one_line_refusal(status, capsys.readouterr().err)
    assert "--workers: must be an integer from 1 to " in line and f"(got {workers})" in line
    with pytest.raises(ValueError, match=rf"workers: must be an integer .* \(got {workers}\)"):
        simcore.run(scenario, workers=workers)
    with pytest.raises(ValueError, match=rf"threads: must be an integer .* \(got {workers}\)"):
        simcore.run(scenario, threads=workers)
    with pytest.raises(TypeError, match="workers: must be an integer"):
        simcore.run(scenario, workers=2.5)


def test_the_stream_itself_stops_at_the_limit(tmp_path, monkeypatch):
    bomb = gzip_bomb(tmp_path / "bomb.csv.gz", gib=1)
    monkeypatch.setattr(files, "_check_inflated_size", lambda path, limit: None)
    handle = files.open_text(bomb, limit=2**20)
    with handle, pytest.raises(files.ReadLimitExceeded, match=r"the text read \("):
        handle.read()
