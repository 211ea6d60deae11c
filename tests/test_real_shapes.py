"""Every data shape through every command, in bounded memory.

A matrix with thousands of labels and a crowd of sparse raters each go through ``simcore
inspect``, a ``kind: real`` run and ``simcore advise``, each in its own process, and the
process's peak resident memory is compared with a bound that grows with n, K, J and L but
not with L^2. The interpreter with numba and the dependencies loaded takes 150-300 MiB; the
bound allows 400 MiB for it. What the bound rules out is any (L, L) table: the labels shape
observes about 2,500 labels, at which Dawid-Skene's (R, L, L) float64 confusions take 2.6 GB
and the rule's former (K, J + 1, L, L) count tables 15 GB. Then advise's point verdict on a
hand-built crowd, with and without ``min_pairs``.
"""

import subprocess
import sys

import numpy as np
import pytest
import yaml

from simcore.advisor.settings import AuditRule
from simcore.advisor.verdict import verdicts
from simcore.realdata.shapes import draw_matrix, write_long_csv

MEASURED = (
    "import resource, subprocess, sys\n"
    "status = subprocess.run(sys.argv[1:]).returncode\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    "sys.exit(status)\n"
)
"""Runs a command as a child and prints the child's peak resident set in KiB."""

INTERPRETER_MIB = 400
"""Allowance for Python, numba, xarray, zarr, dask and matplotlib loaded, in MiB."""

SHAPES = {
    # n, K, J, L, density: a few thousand free-text labels; a crowd at 2 %
    "labels": dict(n_items=300, n_humans=50, n_judges=2, n_labels=20000, density=0.1),
    "crowd": dict(n_items=400, n_humans=300, n_judges=2, n_labels=5, density=0.02),
}


def bound_mib(n_items, n_humans, n_judges, n_labels, trials, density=None):
    """Peak memory allowed: interpreter, 16 B per (item, rater, trial), 128 B per (rater, label).

    Linear in n (K + J) T and in (K + J) L; no L^2 term. ``density`` is not used: the
    bound holds for a dense matrix of the same size.
    """
    raters = n_humans + n_judges
    per_trial = n_items * raters * trials * 16
    per_label = raters * n_labels * 16 * 8
    return INTERPRETER_MIB + (per_trial + per_label) / 2**20


def peak_run(arguments, cwd):
    """Run ``simcore ARGUMENTS`` in a child; return ``(status, peak MiB, stderr)``."""
    command = [sys.executable, "-c", MEASURED, sys.executable, "-m", "simcore", *arguments]
    done = subprocess.run(command, capture_output=True, text=True, cwd=cwd, timeout=900)
    peak = int(done.stdout.strip().splitlines()[-1]) / 1024
    return done.returncode, peak, done.stderr


@pytest.fixture(scope="module", params=sorted(SHAPES))
def shape(request, tmp_path_factory):
    """A shape written as a long CSV, with its rater names and size."""
    folder = tmp_path_factory.mktemp(request.param)
    size = SHAPES[request.param]
    humans, judges = draw_matrix(**size, human_accuracy=0.7, seed=11)
    data = write_long_csv(humans, judges, folder / "ratings.csv")
    return dict(folder=folder, data=data, humans=list(humans), judges=list(judges), size=size)


def names(shape):
    """The ``--humans`` and ``--judges`` options of ``shape``."""
    return ["--humans", ",".join(shape["humans"]), "--judges", ",".join(shape["judges"])]


def test_inspect_fits(shape):
    arguments = ["inspect", str(shape["data"]), *names(shape)]
    status, peak, errors = peak_run(arguments, shape["folder"])
    assert status == 0, errors
    bound = bound_mib(**shape["size"], trials=1)
    assert peak < bound, f"peak {peak:.0f} MiB over the bound {bound:.0f} MiB"


def test_real_run_fits(shape):
    scenario = dict(
        kind="real",
        data=dict(
            format="csv", path=str(shape["data"]), humans=shape["humans"], judges=shape["judges"]
        ),
        rule=dict(kind="point", min_pairs=1),
        trials=20,
        seed=3,
        sweep=dict(design=["bernoulli", "strat"], coverage=[0.05, 0.25]),
        output=dict(store=str(shape["folder"] / "run.zarr")),
    )
    path = shape["folder"] / "scenario.yaml"
    path.write_text(yaml.safe_dump(scenario))
    status, peak, errors = peak_run(["run", str(path), "--quiet"], shape["folder"])
    assert status == 0, errors
    bound = bound_mib(**shape["size"], trials=20)
    assert peak < bound, f"peak {peak:.0f} MiB over the bound {bound:.0f} MiB"


def test_advise_fits(shape):
    out = shape["folder"] / "advice"
    arguments = ["advise", str(shape["data"]), *names(shape), "--trials", "40", "--out", str(out)]
    status, peak, errors = peak_run([*arguments, "--quiet"], shape["folder"])
    assert status == 0, errors
    bound = bound_mib(**shape["size"], trials=40)
    assert peak < bound, f"peak {peak:.0f} MiB over the bound {bound:.0f} MiB"
    assert (out / "report.md").is_file()


# --------------------------------------------------------------------------- a crowd's verdict


def crowd_verdict(human_labels, judge_labels, min_pairs):
    """The point verdict of one judge at eps 0.05, tau 0.5."""
    return verdicts(
        np.array(human_labels),
        np.array(judge_labels),
        ["judge"],
        rule=AuditRule(kind="point", epsilon=0.05, min_pairs=min_pairs),
    )[0]


def test_a_crowd_without_overlap_is_accepted_by_convention_and_inconclusive_with_min_pairs():
    # four humans, each on an item of its own: every comparison is empty
    humans = [[0, -1, -1, -1], [-1, 1, -1, -1], [-1, -1, 0, -1], [-1, -1, -1, 1]]
    judge = [[1], [0], [1], [0]]  # wrong wherever there is anything to be wrong about
    convention = crowd_verdict(humans, judge, 0)
    assert (convention["decision"], convention["omega"], convention["empty"]) == ("accept", 1, 4)
    left_out = crowd_verdict(humans, judge, 1)
    assert left_out["decision"] == "inconclusive"
    assert (left_out["tested"], left_out["left_out"]) == (0, 4)


def test_min_pairs_turns_a_crowd_accept_into_the_reject_its_pairs_support():
    # humans 0 and 1 share four items the judge gets wrong; humans 2 and 3 share nothing
    humans = [[0, 0, -1, -1], [1, 1, -1, -1], [0, 0, -1, -1], [1, 1, -1, -1], [-1, -1, 0, -1]]
    humans.append([-1, -1, -1, 1])
    judge = [[1], [0], [1], [0], [0], [1]]
    convention = crowd_verdict(humans, judge, 0)
    assert (convention["decision"], convention["omega"]) == ("accept", 0.5)
    left_out = crowd_verdict(humans, judge, 1)
    assert (left_out["decision"], left_out["omega"], left_out["tested"]) == ("reject", 0.0, 2)


def test_advise_warns_when_many_comparisons_are_empty_and_min_pairs_leaves_them_out(tmp_path):
    from types import SimpleNamespace

    from simcore.advisor.report.files import sparse_comparison_lines

    humans = [[0, -1, -1, -1], [-1, 1, -1, -1], [-1, -1, 0, -1], [-1, -1, -1, 1]]
    rows = verdicts(
        np.array(humans),
        np.array([[1], [0], [1], [0]]),
        ["judge"],
        rule=AuditRule(kind="point", epsilon=0.05),
    )
    lines = sparse_comparison_lines(SimpleNamespace(rule="point", verdicts=rows, min_pairs=0))
    assert lines[0].startswith("Comparisons with no pair: 4 of 4 (100%)")
    assert lines[1].startswith("WARNING: 100% of the comparisons have no pair")
    rows = verdicts(
        np.array(humans),
        np.array([[1], [0], [1], [0]]),
        ["judge"],
        rule=AuditRule(kind="point", epsilon=0.05, min_pairs=1),
    )
    lines = sparse_comparison_lines(SimpleNamespace(rule="point", verdicts=rows, min_pairs=1))
    assert lines == [
        "Comparisons with no pair: 4 of 4 (100%); left out by min_pairs 1: 4, so omega is "
        "over 0 comparisons."
    ]


def test_advise_min_pairs_reaches_the_report(tmp_path):
    from simcore.cli import main

    humans, judges = draw_matrix(
        n_items=80, n_humans=12, n_judges=1, n_labels=3, density=0.15, seed=5
    )
    data = write_long_csv(humans, judges, tmp_path / "crowd.csv")
    out = tmp_path / "advice"
    arguments = ["advise", str(data), "--judges", "judge0", "--trials", "20", "--quiet"]
    assert main([*arguments, "--min-pairs", "40", "--out", str(out)]) == 0
    report = (out / "report.md").read_text()
    assert "left out by min_pairs 40" in report
    assert main([*arguments, "--rule", "alt_test", "--min-pairs", "1"]) == 2
