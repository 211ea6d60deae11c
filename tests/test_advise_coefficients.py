"""simcore advise under a chosen coefficient: the verdict's comparisons, the draws, the recipe."""

import json

import numpy as np
import pandas as pd
import pytest

import simcore
from simcore.advisor.anchored import simulated_differences
from simcore.advisor.recipe import recipe
from simcore.advisor.risk.posterior import simulate_risk
from simcore.advisor.scoring import score_differences
from simcore.advisor.settings import AuditRule, Draws
from simcore.advisor.verdict import comparison_intervals
from simcore.cli import main
from simcore.model.generative import adjacent_confusion
from simcore.model.weighted import pair_table_score, scoring_of

VALUES = np.arange(1.0, 6.0)
"""A 1-5 rating scale."""

SCORINGS = [
    ("observed", "nominal", "linear"),
    ("observed", "nominal", "quadratic"),
    ("cohen_kappa", "nominal", "identity"),
    ("cohen_kappa", "nominal", "quadratic"),
    ("gwet_ac2", "nominal", "linear"),
    ("gwet_ac1", "nominal", "identity"),
    ("krippendorff_alpha", "nominal", "identity"),
    ("krippendorff_alpha", "ordinal", "identity"),
    ("krippendorff_alpha", "interval", "identity"),
    ("krippendorff_alpha", "ratio", "identity"),
]


def scoring(coefficient, level="nominal", weights="identity", values=VALUES):
    """The :class:`~simcore.model.weighted.Scoring` of a coefficient on the label values."""
    return scoring_of(coefficient, values, level, weights)


def rating_matrix(seed=4, n_items=120, n_humans=4, coverage=0.3):
    """Human codes ``(n, K)`` (-1 missing; the primary labels all) and two judges ``(n, 2)``."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 5, n_items)
    rows = [adjacent_confusion(0.7, 5, 0.8)] * n_humans
    rows += [adjacent_confusion(0.75, 5, 0.8), adjacent_confusion(0.5, 5, 0.5)]
    labels = np.stack(
        [[rng.choice(5, p=confusion[t]) for t in truth] for confusion in rows], axis=1
    )
    keep = rng.random((n_items, n_humans)) < coverage
    keep[:, 0] = True
    return np.where(keep, labels[:, :n_humans], -1), labels[:, n_humans:]


def oracle_difference(humans, judge, k, spec):
    """``S(T_j) - S(T_k)`` from pair tables built by loops and scored by the NumPy oracle."""
    tables = np.zeros((2, 5, 5), dtype=np.int64)
    for i in range(humans.shape[0]):
        if humans[i, k] < 0:
            continue
        for r in range(humans.shape[1]):
            if r != k and humans[i, r] >= 0:
                tables[0, judge[i], humans[i, r]] += 1
                tables[1, humans[i, k], humans[i, r]] += 1
    if tables[0].sum() == 0:
        return np.nan, 0
    coefficient, level, weights = spec
    scores = [pair_table_score(t, coefficient, VALUES, level, weights) for t in tables]
    scores = [0.0 if np.isnan(s) else s for s in scores]  # an undefined score counts 0
    return scores[0] - scores[1], int(tables[0].sum())


@pytest.mark.parametrize("spec", SCORINGS, ids=lambda s: "-".join(s))
def test_the_verdicts_comparisons_are_the_oracles_score_differences(spec):
    humans, judges = rating_matrix()
    rows = comparison_intervals(humans, judges, 0.05, scoring=scoring(*spec))
    for j in range(judges.shape[1]):
        for k in range(humans.shape[1]):
            expected, pairs = oracle_difference(humans, judges[:, j], k, spec)
            assert rows[j][k]["d"] == pytest.approx(expected, abs=1e-10)
            assert rows[j][k]["pairs"] == pairs
            assert np.isfinite(rows[j][k]["se"]) and rows[j][k]["se"] > 0


def test_observed_agreement_through_the_tables_is_the_papers_comparison():
    humans, judges = rating_matrix()
    plain = comparison_intervals(humans, judges, 0.05)
    for weighting_code in ("nominal", "weighted"):
        spec = scoring("observed")
        if weighting_code == "weighted":  # identity weights through the weighted code
            spec = spec._replace(weighting=(1, np.eye(5), np.arange(5)))
        tabled = comparison_intervals(humans, judges, 0.05, scoring=spec)
        for plain_rows, tabled_rows in zip(plain, tabled, strict=True):
            for a, b in zip(plain_rows, tabled_rows, strict=True):
                assert a.keys() == b.keys()
                for key in a:
                    assert a[key] == pytest.approx(b[key], abs=1e-12, nan_ok=True)


def test_the_jackknife_se_is_the_delete_one_item_spread_by_brute_force():
    humans, judges = rating_matrix(n_items=40)
    spec = ("cohen_kappa", "nominal", "quadratic")
    row = comparison_intervals(humans, judges, 0.05, scoring=scoring(*spec))[0][1]
    items = np.flatnonzero((humans[:, 1] >= 0) & ((humans >= 0).sum(axis=1) >= 2))
    leave_outs = np.array(
        [
            oracle_difference(np.delete(humans, i, 0), np.delete(judges[:, 0], i), 1, spec)[0]
            for i in items
        ]
    )
    n = len(items)
    expected = np.sqrt((n - 1) / n * ((leave_outs - leave_outs.mean()) ** 2).sum())
    assert row["items"] == n
    assert row["se"] == pytest.approx(expected, rel=1e-9)


def simulated_labels(seed=2, n_trials=6, n_items=50, n_raters=5):
    """Random codes ``(T, n, K + 1)`` and masks ``(T, n, K)`` (the primary everywhere)."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 5, (n_trials, n_items, n_raters)).astype(np.int16)
    mask = rng.random((n_trials, n_items, n_raters - 1)) < 0.4
    mask[:, :, 0] = True
    return labels, mask


def test_the_draws_numpy_differences_equal_the_kernel_for_observed_agreement():
    labels, mask = simulated_labels()
    kernel = simulated_differences(labels, mask, 4, 5)
    tabled = score_differences(labels, mask, 4, scoring("observed"))
    np.testing.assert_allclose(tabled[0], kernel[0], atol=1e-12)
    np.testing.assert_array_equal(tabled[1], kernel[1])


@pytest.mark.parametrize("spec", SCORINGS[2:], ids=lambda s: "-".join(s))
def test_the_draws_differences_equal_the_oracle_trial_by_trial(spec):
    labels, mask = simulated_labels()
    d, pairs = score_differences(labels, mask, 4, scoring(*spec))
    shared = score_differences(labels, mask[:1], 4, scoring(*spec))  # one mask for all
    for t in range(labels.shape[0]):
        humans = np.where(mask[t], labels[t, :, :4], -1)
        for k in range(4):
            expected, expected_pairs = oracle_difference(humans, labels[t, :, 4], k, spec)
            assert d[t, k] == pytest.approx(expected, abs=1e-10, nan_ok=True)
            assert pairs[t, k] == expected_pairs
        humans_first = np.where(mask[0], labels[t, :, :4], -1)
        assert shared[0][t, 0] == pytest.approx(
            oracle_difference(humans_first, labels[t, :, 4], 0, spec)[0], abs=1e-10
        )


def channel_model():
    """Three humans and a judge with adjacent errors on a 1-5 scale, and a sparse mask."""
    confusions = np.stack([adjacent_confusion(0.7, 5, 0.8)] * 3 + [adjacent_confusion(0.6, 5, 0.7)])
    prevalence = np.full(5, 0.2)
    available = np.ones((200, 3), dtype=bool)
    available[40:, 1:] = np.random.default_rng(0).random((160, 2)) < 0.2
    return confusions, prevalence, available


def test_the_risk_through_the_tables_decides_every_draw_as_the_kernel_does():
    confusions, prevalence, available = channel_model()
    plain = simulate_risk(confusions, prevalence, available, 0, draws=Draws(trials=200, seed=3))
    tabled = simulate_risk(
        confusions,
        prevalence,
        available,
        0,
        rule=AuditRule(scoring=scoring("observed")),
        draws=Draws(trials=200, seed=3),
    )
    assert plain == tabled
    assert 0 < plain[0] < plain[1]  # the judge sits near the bar: some draws flip


def test_a_weighted_risk_is_zero_on_a_dense_matrix_and_moves_with_the_coefficient():
    confusions, prevalence, available = channel_model()
    dense = np.ones_like(available)
    kappa = scoring("cohen_kappa", weights="quadratic")
    assert simulate_risk(
        confusions, prevalence, dense, 0, rule=AuditRule(scoring=kappa), draws=Draws(trials=50)
    ) == (0, 50)
    wrong, trials = simulate_risk(
        confusions, prevalence, available, 0, rule=AuditRule(scoring=kappa), draws=Draws(trials=300)
    )
    assert 0 <= wrong <= trials == 300


def test_the_recipe_under_observed_agreement_through_the_delta_method_is_the_mixture():
    confusions, prevalence, available = channel_model()
    plain = recipe(confusions, prevalence, available, 0, 0.05)
    delta = recipe(confusions, prevalence, available, 0, 0.05, scoring=scoring("observed"))
    assert delta[0] == pytest.approx(plain[0], abs=1e-9)
    assert delta[1] == pytest.approx(plain[1], rel=1e-6)
    assert delta[2] == plain[2]  # the held-out humans tie here: any of them binds
    kappa = recipe(
        confusions,
        prevalence,
        available,
        0,
        0.05,
        scoring=scoring("cohen_kappa", "nominal", "quadratic"),
    )
    assert np.isfinite(kappa[0]) and kappa[1] > 0


def long_frame(seed=7):
    """A sparse 1-5 rating matrix with two judges as a long DataFrame."""
    return ratings_frame(*rating_matrix(seed, n_items=150, coverage=0.15))


def ratings_frame(humans, judges):
    """The long ``item, rater, label`` frame of codes 0-4 as ratings 1-5, judges close, far."""
    rows = [
        (f"i{i:03d}", f"h{k}", int(humans[i, k]) + 1)
        for i in range(humans.shape[0])
        for k in range(humans.shape[1])
        if humans[i, k] >= 0
    ]
    rows += [
        (f"i{i:03d}", name, int(judges[i, j]) + 1)
        for i in range(judges.shape[0])
        for j, name in enumerate(("close", "far"))
    ]
    return pd.DataFrame(rows, columns=["item", "rater", "label"])


def test_advise_reports_the_coefficient_in_python_json_and_markdown(tmp_path, capsys):
    frame = long_frame()
    advice = simcore.advise(
        frame, judges="close,far", coefficient="cohen_kappa", weights="quadratic", trials=40
    )
    assert advice.coefficient == "cohen_kappa (quadratic)"
    assert advice.to_dict()["coefficient"] == "cohen_kappa (quadratic)"
    assert "scored by cohen_kappa (quadratic)" in advice.to_markdown()
    assert "jackknife" in advice.to_markdown()
    plain = simcore.advise(frame, judges="close,far", trials=40)
    assert plain.to_dict()["coefficient"] == "observed"
    changed = [
        a["d"] != b["d"]
        for a, b in zip(
            advice.verdicts[0]["comparisons"], plain.verdicts[0]["comparisons"], strict=True
        )
    ]
    assert any(changed)
    path = tmp_path / "ratings.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "out"
    code = main(
        ["advise", str(path), "--judges", "close,far", "--coefficient", "krippendorff_alpha"]
        + ["--level", "ordinal", "--trials", "40", "--out", str(out), "--json"]
    )
    assert code == 0
    document = json.loads(capsys.readouterr().out)
    assert document["groups"]["all"]["coefficient"] == "krippendorff_alpha (ordinal)"


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--coefficient", "cohen_kappa", "--level", "ordinal"], "--level: ordinal is"),
        (["--weights", "linear", "--rule", "alt_test"], "--weights: under alt_test"),
        (["--level", "ordinal", "--rule", "alt_test"], "--level: belongs to the point rule"),
        (["--rule", "alt_test", "--scale", "weighted"], "give --weights linear or quadratic"),
        (["--scale", "weighted", "--weights", "linear"], "--scale: belongs to alt_test"),
        (["--coefficient", "krippendorff_alpha", "--weights", "linear"], "use level"),
    ],
)
def test_a_coefficient_the_rule_cannot_take_is_refused_before_any_work(
    tmp_path, capsys, flags, message
):
    path = tmp_path / "ratings.csv"
    long_frame().to_csv(path, index=False)
    out = tmp_path / "out"
    assert main(["advise", str(path), "--judges", "close,far", "--out", str(out), *flags]) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_text_labels_without_an_order_are_refused_naming_the_file(tmp_path, capsys):
    frame = long_frame()
    frame["label"] = frame["label"].map(dict(zip(range(1, 6), "abcde", strict=True)))
    path = tmp_path / "ratings.csv"
    frame.to_csv(path, index=False)
    args = ["advise", str(path), "--judges", "close,far", "--out", str(tmp_path / "out")]
    assert main([*args, "--coefficient", "gwet_ac2", "--weights", "linear"]) == 2
    error = capsys.readouterr().err
    assert "ratings.csv: labels:" in error and "--label-order" in error
    assert main([*args, "--weights", "linear", "--label-order", "a,b,c,d,e", "--trials", "30"]) == 0


def test_the_tables_memory_is_counted_before_any_fit(monkeypatch):
    import simcore.realdata.allocation as allocation
    from simcore.api.audit import check_simulation_fits, load_matrix
    from simcore.realdata.annotation import DataError

    matrix = load_matrix(long_frame(), judges="close,far")
    per_draw = 8 * matrix.n_items * (matrix.n_humans + 2) * len(matrix.labels)
    monkeypatch.setattr(allocation, "available_bytes", lambda: 100 * per_draw)
    check_simulation_fits(matrix, 300)  # observed agreement: 16 bytes a cell of a batch
    with pytest.raises(DataError, match="trials: batches of 100 simulated matrices"):
        check_simulation_fits(matrix, 300, tabled=True)  # 3 x 100 draws of one-hot labels
