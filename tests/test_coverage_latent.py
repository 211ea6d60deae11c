"""``kind: coverage-latent``: the gold column against the latent truth, counted per cell.

The protocol's guarantees (resume, extension, workers, show and plot) are checked for every
kind in test_studies.py; here: the majority's 2 x 2 table on a hand-built panel, the cube's
denominators (one interval per trial on two labels, one per label on five) and the sums a
label scale has no use for, and the scenario's checks, reported together.
"""

import numpy as np
import pytest

import simcore
from simcore.studies import ScenarioError, study_for
from simcore.studies.coverage_latent.cells import majority_counts


def test_the_majority_table_leaves_ties_out():
    humans = np.array([[0, 0, 1], [0, 1, 1], [0, 1, -1], [1, 1, 1], [0, 0, 0], [1, 0, -1]])
    judge = np.array([0, 0, 1, 1, 1, 0])
    # item 0: FAIL, caught; 1: PASS, flagged; 2 and 5: ties; 3: PASS, cleared; 4: FAIL, missed
    assert majority_counts(humans, judge) == (1, 1, 1, 1)


def scenario(trials):
    return {
        "name": "latent_probe",
        "kind": "coverage-latent",
        "production": 400,
        "boot": 20,
        "trials": trials,
        "seed": 11,
        "sweep": {
            "n_humans": [3],
            "p_human": [0.9],
            "errors": ["independent"],
            "n_labels": [2, 5],
            "n_cal": [200],
        },
    }


def test_coverage_counts_one_interval_per_trial_on_two_labels_and_one_per_label_on_five():
    cube = simcore.run(scenario(3))
    trials = cube["n_trials"]
    binary, scale = cube.sel(n_labels=2), cube.sel(n_labels=5)
    np.testing.assert_array_equal(binary["coverage"], binary["n_covered"] / binary["n_trials"])
    np.testing.assert_array_equal(scale["coverage"], scale["n_covered"] / (5 * scale["n_trials"]))
    assert (binary["n_covered"] <= binary["n_trials"]).all()
    assert (scale["n_covered"] <= 5 * scale["n_trials"]).all()
    assert (cube["n_defined"] <= trials).all() and (cube["n_refused"] <= trials).all()
    for name in ("sum_tpr_error", "sum_tnr_error_sq", "tpr_bias"):
        assert np.isnan(scale[name]).all() and np.isfinite(binary[name]).all(), name
    for name in ("sum_diagonal_error", "diagonal_bias"):
        assert np.isnan(binary[name]).all() and np.isfinite(scale[name]).all(), name


def test_every_problem_of_a_scenario_is_reported_at_once():
    raw = {
        **scenario(3),
        "boot": 5,
        "colour": "red",
        "sweep": {"n_humans": [1], "errors": ["correlated"], "n_labels": [3], "n_cal": [200]},
        "output": {"csv": "x.csv"},
    }
    with pytest.raises(ScenarioError) as raised:
        study_for("coverage-latent").parse(raw, "probe.yaml")
    text = str(raised.value)
    for expected in (
        "probe.yaml: colour: unknown key",
        "sweep.n_humans: must be >= 2",
        "sweep.p_human: must be a non-empty list",
        "sweep.errors: must be one of independent, shared",
        "sweep.n_labels: the prevalences are declared for 2 and 5 labels (got 3)",
        "boot: must be >= 10",
        "output.csv: a coverage-latent scenario writes its table as Markdown",
    ):
        assert expected in text, expected
