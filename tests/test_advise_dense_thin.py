"""advise's risk now on a dense matrix (exactly 0, not simulated) and on thin comparisons."""

import math

import numpy as np
import pytest

import simcore
from experiments.advise_crowd_calibration import (
    StudyOptions,
    knife_edge_accuracy,
    run_study,
)
from simcore.advisor import dense as dense_module
from simcore.advisor.anchored import (
    Shrinkage,
    misplacement,
    shrinkage,
    shrinks,
    simulated_differences,
)
from simcore.advisor.interval_risk import normal_approximation_risk
from simcore.advisor.risk.draws import draw_matrices
from simcore.advisor.risk.posterior import Channels, model_changes, posterior_risk
from simcore.advisor.settings import Draws
from simcore.model.generative import symmetric_confusion
from simcore.realdata.shapes import draw_matrix, draw_shape, long_frame, shape_mask

RULE = {"rule": "point", "epsilon": 0.05, "tau": 0.5, "min_pairs": 0, "trials": 100, "seed": 1}


# --------------------------------------------------------------------------- dense


@pytest.fixture(scope="module")
def dense_advice():
    humans, judges = draw_shape("dense_panel", seed=4, judge_accuracies=(0.7, 0.9))
    return simcore.advise(
        long_frame(humans, judges), humans=list(humans), judges=list(judges), trials=50, seed=0
    )


def test_a_dense_matrix_has_risk_exactly_0_and_nothing_is_simulated(monkeypatch):
    humans, judges = draw_shape("dense_panel", seed=4, judge_accuracies=(0.7, 0.9))

    def no_simulation(*args, **kwargs):
        raise AssertionError("a dense matrix's risk must not be simulated")

    monkeypatch.setattr(dense_module, "judge_risk", no_simulation)
    frame = long_frame(humans, judges)
    advice = simcore.advise(frame, humans=list(humans), judges=list(judges), trials=50, seed=0)
    for name in judges:
        assert advice.risk_now[name] == (0.0, 0.0)
        assert advice.curves[name].trials == [0]
        assert advice.curves[name].needed(0.05) == (0, 0)


def test_a_dense_matrix_says_why_in_the_summary_the_report_and_the_json(dense_advice):
    from simcore.advisor.report.files import summary

    document = dense_advice.to_dict()
    for name in ("judge0", "judge1"):
        entry = document["risk_now"][name]
        assert (entry["risk"], entry["se"], entry["basis"], entry["trials"]) == (
            0.0,
            0.0,
            "dense",
            0,
        )
        assert "dense" in entry["reason"]
    text = summary(dense_advice)
    assert text.count("risk of a wrong verdict 0% (dense: every human labels every item") == 2
    assert "poorly" not in text and "model uncertainty" not in text
    report = dense_advice.to_markdown()
    assert "-0.0%" not in report
    assert "no bearing on the risk" in report and "fit some rater pairs poorly" not in report
    assert all(row["interval_risk"] == 0.0 for row in dense_advice.verdicts)


def test_a_sparse_matrix_says_its_risk_now_is_simulated():
    humans, judges = draw_matrix(160, 4, 1, 3, 0.45, seed=11)
    advice = simcore.advise(
        long_frame(humans, judges), humans=list(humans), judges=list(judges), trials=30, seed=5
    )
    entry = advice.to_dict()["risk_now"]["judge0"]
    assert entry["basis"] == "simulated" and entry["trials"] >= 30
    assert (entry["risk"], entry["se"]) == advice.risk_now["judge0"] and entry["se"] > 0


def test_the_interval_risk_never_prints_minus_zero():
    # the Poisson-binomial sum of these passes rounds to 1 + 2.2e-16
    sure = {"d": 0.1, "se": 0.0, "items": 40}
    rows = [sure] * 4 + [{"d": d, "se": 0.05, "items": 40} for d in (-0.2, -0.2, -0.13)]
    risk = normal_approximation_risk(rows, "accept", 0.05)
    assert risk == 0.0 and f"{100 * risk:.1f}%" == "0.0%"


# --------------------------------------------------------------------------- thin


def crowd_models(offsets, human_accuracy=0.85):
    """Channels of a crowd's 150 humans at ``human_accuracy`` and a judge near the knife edge."""
    knife = knife_edge_accuracy(human_accuracy, 0.05)
    models = []
    for offset in offsets:
        accuracies = [human_accuracy] * 150 + [knife + offset]
        confusions = np.stack([symmetric_confusion(p, 2) for p in accuracies])
        models.append(Channels(confusions, np.array([0.5, 0.5])))
    return models


def observed_comparisons(models, mask, seed):
    """One matrix's observed ``d_k`` under ``mask``, drawn from the first model."""
    sequence = np.random.SeedSequence([seed, 99])
    labels, codes = draw_matrices(models[:1], 1, mask.shape[1], 0, mask.shape[0], sequence, 0, 1)
    d, _ = simulated_differences(labels, mask[None], mask.shape[1], codes)
    return d[0]


def test_a_knife_edge_verdict_on_thin_comparisons_has_a_risk_near_one_half():
    """The refits put the judge evenly on both sides of the bar: the dense verdict is a coin.

    Each of the crowd's 150 comparisons rests on about 8 items; the dense ones all sit on the
    side of the bar the judge's accuracy puts them, so whatever the sparse verdict, it
    differs from the dense one in about half the refits. Band: 0.5 +- 0.15 (the refits'
    dense omega is not exactly symmetric) plus 3 Monte Carlo SEs.
    """
    mask = shape_mask("crowd", seed=5)
    models = crowd_models(np.linspace(-0.04, 0.04, 8))
    anchor = observed_comparisons(crowd_models([0.0]), mask, seed=5)
    draws = Draws(trials=300, seed=3, per_model=10)
    wrong, trials = posterior_risk(models, mask, 0, draws=draws, anchor=anchor)
    risk = wrong / trials
    se = math.sqrt(0.25 / trials)
    assert abs(risk - 0.5) < 0.15 + 3 * se, risk


def test_thin_comparisons_lean_on_the_model_and_full_ones_on_the_data():
    mask = shape_mask("crowd", seed=2)
    models = crowd_models(np.linspace(-0.02, 0.02, 10))
    sequence = np.random.SeedSequence([7])
    labels, codes = draw_matrices(models, 10, 150, 0, mask.shape[0], sequence, 0, 100)
    anchor = observed_comparisons(models, mask, seed=2)
    thin = shrinkage(labels, None, mask, codes, anchor)
    assert np.median(thin.weight_dense) < 0.3
    assert (thin.weight_proposal == 1.0).all()  # no proposal: the sparse side is the data
    wide = np.ones_like(mask)
    wide[:, 100:] = False  # 100 humans on every item: comparisons on 400 items, 99 others
    full = shrinkage(
        labels[..., list(range(100)) + [150]], None, wide[:, :100], codes, anchor[:100]
    )
    assert np.median(full.weight_dense) > 0.5


def test_only_a_crowds_number_of_comparisons_is_weighed_against_the_model():
    assert not shrinks(np.zeros(19)) and shrinks(np.zeros(20))
    assert not shrinks(np.r_[np.zeros(19), np.nan])  # an empty comparison is not observed
    # a panel's verdict keeps the full anchoring: the draws' expected changes, no weights
    mask = shape_mask("sparse_panel", seed=1)
    confusions = np.stack([symmetric_confusion(p, 2) for p in [0.85] * 6 + [0.8]])
    model = Channels(confusions, np.array([0.5, 0.5]))
    centre = model_changes([model], mask, 0, mask[None], Draws(per_model=10), 0, np.zeros(6))
    assert isinstance(centre, tuple) and not isinstance(centre, Shrinkage)


def test_the_misplacement_is_the_excess_of_the_residuals_over_the_draws_spread():
    anchor = np.array([0.3, -0.1, np.nan, 0.0])
    mean = np.array([0.0, 0.1, 0.0, 0.0])
    variance = np.array([0.01, 0.04, 0.02, 0.0])
    weights = np.array([100.0, 25.0])
    expected = (weights @ np.array([0.09, 0.04]) - 2) / weights.sum()
    assert misplacement(anchor, mean, variance) == pytest.approx(expected)
    assert misplacement(np.zeros(3), np.zeros(3), np.ones(3)) == 0.0  # never below 0


# --------------------------------------------------------------------------- calibrated


def calibration_z(cases):
    predicted = np.array([case["predicted"] for case in cases])
    wrong = np.array([case["wrong"] for case in cases], dtype=float)
    spread = math.sqrt(float((predicted * (1 - predicted)).sum()))
    return float(wrong.sum() - predicted.sum()), spread


def test_a_small_crowd_study_is_calibrated_in_the_large():
    """Six cases on a crowd and a sparse panel: realised wrong within 3 SEs (+1) of predicted."""
    cases = run_study(StudyOptions(trials=100, n_boot=10, risk_se=0.05), replicates=1, workers=1)
    assert len(cases) == 6
    gap, spread = calibration_z(cases)
    assert abs(gap) <= 3 * spread + 1, (gap, spread)


@pytest.mark.slow
def test_the_crowd_study_keeps_every_full_bin_within_two_ses():
    from experiments.advise_calibration_report import score_cases

    cases = run_study(StudyOptions(), replicates=20, workers=2)
    scores = score_cases(cases)
    assert scores.bins_within_2se, [
        (row.n, row.mean_predicted, row.realised) for row in scores.bins
    ]
    gap, spread = calibration_z(cases)
    assert abs(gap) <= 3 * spread, (gap, spread)
