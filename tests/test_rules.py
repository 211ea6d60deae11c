"""Decision rules side by side: alt_test, the interval verdict, rule variants, ranking."""

import numpy as np
import pytest
from scenario_files import variant
from scipy import stats

import simcore
from simcore.engine import alt_test as engine_alt_test
from simcore.engine.stats_kernels import (
    benjamini_yekutieli_rejections,
    one_sided_t_pvalue,
    student_t_cdf,
)
from simcore.model.rule import ACCEPT, INCONCLUSIVE, REJECT, decide, decide_counts
from simcore.studies.config import ScenarioError
from simcore.studies.synthetic.cell import discordant_pairs
from simcore.studies.synthetic.scenario import scenario_from_dict

# --------------------------------------------------------------------------- statistics


@pytest.mark.parametrize("df", [1, 2, 5, 29, 300])
def test_student_t_cdf_matches_scipy(df):
    for t in np.linspace(-8, 8, 41):
        assert student_t_cdf(t, df) == pytest.approx(stats.t.cdf(t, df), abs=1e-12)


def test_one_sided_t_test_matches_scipy():
    generator = np.random.default_rng(5)
    for n in (6, 10, 40, 200):
        for epsilon in (0.0, 0.1, 0.2):
            d = generator.choice([-1.0, 0.0, 1.0], size=n, p=[0.4, 0.3, 0.3])
            d[:2] = [-1.0, 1.0]  # never constant (SciPy warns on a constant sample)
            expected = stats.ttest_1samp(d, epsilon, alternative="less").pvalue
            got = one_sided_t_pvalue(n, d.sum(), (d**2).sum(), epsilon)
            assert got == pytest.approx(expected, abs=1e-10)
    # Zero variance: the documented convention.
    assert one_sided_t_pvalue(5, -5.0, 5.0, 0.1) == 0.0
    assert one_sided_t_pvalue(5, 5.0, 5.0, 0.1) == 1.0


def by_direct(pvalues, level):
    """Benjamini-Yekutieli written from its definition."""
    m = len(pvalues)
    harmonic = sum(1 / i for i in range(1, m + 1))
    ranked = np.sort(pvalues)
    passing = [k for k in range(1, m + 1) if ranked[k - 1] <= k * level / (m * harmonic)]
    return max(passing, default=0)


def test_benjamini_yekutieli_rejects_the_right_number():
    generator = np.random.default_rng(2)
    for _ in range(300):
        m = int(generator.integers(1, 9))
        pvalues = np.concatenate([generator.random(m) ** 3, [0.001, 0.02, 0.2]])[:m]
        order = np.empty(m)
        assert benjamini_yekutieli_rejections(pvalues, m, 0.05, order) == by_direct(pvalues, 0.05)
    # c(3) = 1 + 1/2 + 1/3 = 11/6: thresholds 0.05 k / (3 * 11/6) = 0.00909 k.
    assert benjamini_yekutieli_rejections(np.array([0.009, 0.018, 0.5]), 3, 0.05, np.empty(3)) == 2
    assert benjamini_yekutieli_rejections(np.array([0.0095, 0.019, 0.5]), 3, 0.05, np.empty(3)) == 0


# --------------------------------------------------------------------------- alt_test


def hand_alt_test_matrix():
    # Humans 0 and 1 label all 40 items, human 2 labels 40, human 3 only 10 (skipped at 30).
    generator = np.random.default_rng(11)
    truth = generator.integers(0, 2, 40)

    def noisy(p):
        return np.where(generator.random(40) < p, truth, 1 - truth)

    humans = np.stack([noisy(0.9), noisy(0.9), noisy(0.85), noisy(0.9)], axis=1)
    mask = np.ones((40, 4), bool)
    mask[10:, 3] = False
    judges = np.stack([noisy(0.95), noisy(0.6)], axis=1)
    labels = np.concatenate([humans, judges], axis=1).astype(np.int16)
    return labels, mask


def direct_alt_test(labels, mask, epsilon, min_items, level):
    """The alternative annotator test written out in Python, with SciPy's t-test."""
    n_items, n_humans = mask.shape
    keep = mask.sum(axis=1) >= 2
    results = []
    for judge in range(labels.shape[1] - n_humans):
        pvalues, tested = [], []
        for h in range(n_humans):
            items = [i for i in range(n_items) if keep[i] and mask[i, h]]
            if len(items) < min_items:
                continue
            d = []
            for i in items:
                others = [q for q in range(n_humans) if q != h and mask[i, q]]
                judge_score = np.mean([labels[i, n_humans + judge] == labels[i, q] for q in others])
                human_score = np.mean([labels[i, h] == labels[i, q] for q in others])
                d.append(float(human_score >= judge_score) - float(judge_score >= human_score))
            pvalues.append(stats.ttest_1samp(d, epsilon, alternative="less").pvalue)
            tested.append(h)
        results.append((np.array(pvalues), tested, by_direct(np.array(pvalues), level)))
    return results


def test_alt_test_on_a_hand_built_matrix():
    labels, mask = hand_alt_test_matrix()
    wins, tested, skipped, pvalues = engine_alt_test.alternative_annotator_test(
        labels, mask, 4, 0.1, 2, 30, 0.05, False
    )
    expected = direct_alt_test(labels, mask, 0.1, 30, 0.05)
    np.testing.assert_array_equal(skipped, [0, 0, 0, 1])  # human 3 has 10 items < 30
    assert tested == 3
    for judge, (expected_p, expected_tested, expected_wins) in enumerate(expected):
        assert expected_tested == [0, 1, 2]
        np.testing.assert_allclose(pvalues[judge, :3], expected_p, atol=1e-10)
        assert np.isnan(pvalues[judge, 3])
        assert wins[judge] == expected_wins
    # The good judge wins against every tested human (winning rate 3/3), the poor one
    # against none: the winning rate is over tested humans, not over K = 4.
    assert wins.tolist() == [3, 0]
    decisions = decide_counts(wins, tested - wins, tested, 0.5, kind="alt_test")
    assert decisions.tolist() == [ACCEPT, REJECT]


def test_alt_test_with_nobody_tested_rejects():
    assert decide_counts(np.array([0]), np.array([0]), 0, 0.5, kind="alt_test")[0] == REJECT


def test_alt_test_effective_k_shrinks_under_sparse_overlap():
    # 5% of 500 items is about 25 per secondary: under the 30-item minimum.
    base = {
        "model": {"n_items": 500, "n_humans": 4, "p_judge": 0.85},
        "design": {"kind": "bernoulli", "rho": 0.05},
        "rule": {"kind": "alt_test"},
        "trials": 200,
        "seed": 3,
        "sweep": {"rho": [0.05, 0.5]},
    }
    cube = simcore.run(base)
    effective = cube["effective_k"].values
    assert effective[0] < 2.0  # mostly the primary alone
    assert effective[1] == 4.0
    skipped = cube["skipped_rate"].sel(rho=0.05).values
    assert skipped[0] == 0 and (skipped[1:] > 0.5).all()


# --------------------------------------------------------------------------- interval


def test_interval_never_accepts_when_every_comparison_fails():
    favour = np.zeros(6, dtype=int)
    against = np.array([4, 4, 3, 2, 1, 0])
    decisions = decide_counts(favour, against, 4, 0.5, kind="interval")
    # accept needs 2 clears; reject once 3 fail (2 clears out of reach)
    assert decisions.tolist() == [REJECT, REJECT, REJECT, INCONCLUSIVE, INCONCLUSIVE, INCONCLUSIVE]
    assert decide_counts(np.array([2]), np.array([2]), 4, 0.5, kind="interval")[0] == ACCEPT
    cube = simcore.run(
        {
            "model": {"n_items": 400, "n_humans": 4, "p_human": 0.9, "p_judge": 0.55},
            "design": {"kind": "exact_m", "m": 400},
            "rule": {"kind": "interval"},
            "trials": 200,
            "seed": 2,
        }
    )
    assert int(cube["n_accept"]) == 0


def test_interval_inconclusive_rate_falls_with_m():
    cube = simcore.run(
        {
            "model": {"n_items": 800, "n_humans": 4, "margin": 0.04},
            "design": {"kind": "exact_m"},
            "rule": {"kind": "interval"},
            "reference": "population",
            "trials": 600,
            "seed": 9,
            "sweep": {"m": [25, 100, 400]},
        }
    )
    rate = cube["inconclusive_rate"].values
    se = cube["inconclusive_rate_se"].values
    assert rate[0] - rate[1] > 4 * np.hypot(se[0], se[1])
    assert rate[1] - rate[2] > 4 * np.hypot(se[1], se[2])
    # the recipe's extra items per undecided comparison are recorded (heavy-tailed: a
    # comparison whose estimate sits on the bar needs very many)
    extra = cube["mean_extra_items"].values
    assert np.isfinite(extra).all() and (extra > 0).all()


# --------------------------------------------------------------------------- variants


def test_strict_majority_and_tau_variants():
    n_pass = np.arange(5)
    assert decide(n_pass, 4, 0.5).tolist() == [REJECT, REJECT, ACCEPT, ACCEPT, ACCEPT]
    assert decide(n_pass, 4, 0.5, strict=True).tolist() == [REJECT, REJECT, REJECT, ACCEPT, ACCEPT]
    assert decide(np.arange(6), 5, 0.6).tolist() == [REJECT] * 3 + [ACCEPT] * 3
    assert decide(np.arange(6), 5, 0.6, strict=True).tolist() == [REJECT] * 4 + [ACCEPT] * 2
    assert decide(np.arange(4), 3, 0.5).tolist() == [REJECT, REJECT, ACCEPT, ACCEPT]


def test_strict_majority_removes_two_two_ties_from_accepts():
    base = {
        "model": {"n_items": 300, "n_humans": 4, "margin": -0.05},
        "design": {"kind": "exact_m", "m": 40},
        "reference": "population",
        "trials": 1500,
        "seed": 12,
        "sweep": {"strict": [False, True]},
    }
    cube = simcore.run(base)
    loose, strict = cube["false_approval_rate"].values
    se = cube["false_approval_rate_se"].values
    assert loose - strict > 4 * np.hypot(*se)
    # the difference is exactly the trials with a 2-2 split
    ties = int(cube["omega_hist"].sel(strict=False, omega=2))
    assert (
        int(cube["n_false_accept"].sel(strict=False)) - int(cube["n_false_accept"].sel(strict=True))
        == ties
    )


@pytest.mark.parametrize(
    ("changes", "fragment"),
    [
        ({"rule.kind": "alt_test", "reference": "population"}, "no population reference"),
        ({"rule.kind": "interval", "rule.coefficient": "cohen_kappa"}, "observed"),
        ({"rule.kind": "interval", "rule.inconclusive": [0.25, 0.5]}, "band belongs"),
        ({"rule.kind": "nope"}, "must be one of point, alt_test, interval"),
        ({"rule.min_items_per_human": 1}, "must be >= 2"),
    ],
)
def test_bad_rule_settings(changes, fragment):
    raw = variant({"model": {"n_items": 100}, "design": {"kind": "bernoulli", "rho": 0.5}}, changes)
    with pytest.raises(ScenarioError) as caught:
        scenario_from_dict(raw, source="r.yaml")
    assert any(fragment in p for p in caught.value.problems), caught.value.problems


# --------------------------------------------------------------------------- ranking


def test_discordant_pairs_with_ties():
    reference = np.array([0.9, 0.8, 0.7])
    scores = np.array(
        [
            [0.9, 0.8, 0.7],  # same order
            [0.7, 0.8, 0.9],  # reversed: all 3 pairs
            [0.9, 0.9, 0.7],  # a tie where the reference has an order: 1 pair
            [0.8, 0.9, 0.7],  # first two swapped: 1 pair
        ]
    )
    np.testing.assert_array_equal(discordant_pairs(scores, reference), [0, 3, 1, 1])
    tied_reference = np.array([0.8, 0.8, 0.7])
    np.testing.assert_array_equal(discordant_pairs(scores[2:3], tied_reference), [0])


def test_ranking_cells_record_top1_and_rank_errors():
    cube = simcore.run(
        {
            "model": {"n_items": 400, "n_humans": 4, "p_judge": [0.80, 0.84, 0.88, 0.92]},
            "design": {"kind": "bernoulli"},
            "trials": 400,
            "seed": 1,
            "sweep": {"rho": [0.05, 1.0]},
        }
    )
    assert cube["wrong_decision_rate"].dims == ("rho", "judge")
    np.testing.assert_allclose(cube["judge_accuracy"], [0.80, 0.84, 0.88, 0.92])
    sparse, dense = cube["top1_error"].values
    assert dense == 0.0 and sparse > 0.05  # rho = 1 is the dense matrix itself
    truth = cube["top1_error_population"].values
    assert truth[0] >= truth[1] and (cube["rank_error_population"] <= 1).all()
    assert cube.attrs["ranking_recipe_items"] > 0
