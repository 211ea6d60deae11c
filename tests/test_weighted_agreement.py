"""Weighted agreement coefficients against the reference package and hand-made tables.

Krippendorff's alpha at all four levels equals the ``krippendorff`` package to 1e-10 on
random matrices with missing labels (two to eight raters, two to ten categories), and
Krippendorff's own worked example to the three decimals he prints; the percent agreement
and AC2 equal a loop over every ordered pair of raters of every item; Cohen's weighted
kappa equals its disagreement-weight form; AC2 with identity weights on two full raters
equals simcore's pair-table AC1, and with every label alike its denominator is undefined.
AC2, the weighted percent agreement and Cohen's weighted kappa equal irrCAC's Python port
(``irrcac``: Gwet's own definitions) to 1e-10 under every weight, with equal and unequal
steps between the values, two to eight raters, two to ten categories.
"""

import itertools

import krippendorff
import numpy as np
import pytest
from scenario_files import REPO

from simcore.engine.coefficients import coefficient_code, table_score
from simcore.model import weighted


def random_codes(generator, n_items, n_raters, n_labels, missing):
    codes = generator.integers(0, n_labels, size=(n_items, n_raters))
    lean = generator.integers(0, n_labels, size=(n_items, 1))  # raters lean to one label
    codes = np.where(generator.random(codes.shape) < 0.5, lean, codes)
    return np.where(generator.random(codes.shape) < missing, -1, codes)


def reference_alpha(codes, values, level):
    data = np.where(codes >= 0, np.asarray(values, float)[np.maximum(codes, 0)], np.nan)
    return krippendorff.alpha(
        reliability_data=data.T, level_of_measurement=level, value_domain=list(values)
    )


@pytest.mark.parametrize("level", weighted.LEVELS)
def test_alpha_equals_the_krippendorff_package(level):
    generator = np.random.default_rng(weighted.LEVELS.index(level))
    checked = 0
    for n_raters, n_labels in itertools.product([2, 3, 5, 8], [2, 3, 5, 10]):
        codes = random_codes(generator, 40, n_raters, n_labels, 0.3)
        for values in (np.arange(1, n_labels + 1), np.sort(generator.random(n_labels)) * 9 + 1):
            expected = reference_alpha(codes, values, level)
            assert weighted.krippendorff_alpha(codes, values, level) == pytest.approx(
                expected, abs=1e-10
            )
            checked += 1
    assert checked == 32


def test_alpha_reproduces_krippendorffs_worked_example():
    """Krippendorff (2011), 4 coders x 12 units, values 1-5 with missing."""
    rows = [
        "1 2 3 3 2 1 4 1 2 . . .",
        "1 2 3 3 2 2 4 1 2 5 . 3",
        ". 3 3 3 2 3 4 2 2 5 1 .",
        "1 2 3 3 2 4 4 1 2 5 1 .",
    ]
    codes = np.array([[-1 if v == "." else int(v) - 1 for v in row.split()] for row in rows]).T
    values = np.arange(1, 6)
    printed = {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849, "ratio": 0.797}
    for level, alpha in printed.items():
        assert round(weighted.krippendorff_alpha(codes, values, level), 3) == alpha


def pair_loop_agreement(codes, weight_matrix):
    """Mean over items with two labels or more of the mean weight over ordered rater pairs."""
    shares = []
    for row in codes:
        given = row[row >= 0]
        if len(given) < 2:
            continue
        pairs = [
            weight_matrix[given[i], given[j]]
            for i, j in itertools.permutations(range(len(given)), 2)
        ]
        shares.append(np.mean(pairs))
    return np.mean(shares)


@pytest.mark.parametrize("weights", weighted.WEIGHTS)
def test_percent_agreement_and_ac2_equal_the_pair_loop(weights):
    generator = np.random.default_rng(len(weights))
    for n_raters, n_labels in itertools.product([2, 4, 7], [2, 3, 6]):
        codes = random_codes(generator, 30, n_raters, n_labels, 0.4)
        values = np.arange(1, n_labels + 1)
        matrix = weighted.agreement_weights(values, weights)
        expected_pa = pair_loop_agreement(codes, matrix)
        assert weighted.percent_agreement(codes, values, weights) == pytest.approx(
            expected_pa, abs=1e-12
        )
        labelled = [row[row >= 0] for row in codes if (row >= 0).any()]
        pi = np.mean([np.bincount(row, minlength=n_labels) / len(row) for row in labelled], axis=0)
        chance = matrix.sum() * (pi * (1 - pi)).sum() / (n_labels * (n_labels - 1))
        expected = (expected_pa - chance) / (1 - chance)
        assert weighted.gwet_ac2(codes, values, weights) == pytest.approx(expected, abs=1e-12)


def test_ac2_with_identity_weights_is_the_pair_table_ac1():
    generator = np.random.default_rng(4)
    for n_labels in (2, 3, 5):
        codes = random_codes(generator, 50, 2, n_labels, 0.0)
        table = np.zeros((n_labels, n_labels))
        np.add.at(table, (codes[:, 0], codes[:, 1]), 1)
        expected, _ = table_score(table, coefficient_code("gwet_ac1"))
        values = np.arange(n_labels)
        assert weighted.gwet_ac2(codes, values) == pytest.approx(expected, abs=1e-12)
        kappa, _ = table_score(table, coefficient_code("cohen_kappa"))
        assert weighted.cohen_kappa(codes[:, 0], codes[:, 1], values) == pytest.approx(
            kappa, abs=1e-12
        )


@pytest.mark.parametrize("weights", ["linear", "quadratic"])
def test_weighted_kappa_equals_its_disagreement_form(weights):
    """kappa_w = 1 - sum v_ij o_ij / sum v_ij e_ij with disagreement weights v = 1 - W."""
    generator = np.random.default_rng(9)
    for n_labels in (3, 5, 7):
        codes = random_codes(generator, 60, 2, n_labels, 0.2)
        values = np.array([0.0, 1.0, 2.5, 3.0, 7.0, 8.0, 11.0])[:n_labels]
        both = (codes >= 0).all(axis=1)
        first, second = codes[both, 0], codes[both, 1]
        spread = values.max() - values.min()
        power = 1 if weights == "linear" else 2
        distance = (np.abs(values[:, None] - values[None, :]) / spread) ** power
        observed = np.mean([distance[a, b] for a, b in zip(first, second, strict=True)])
        chance = np.mean([distance[a, b] for a in first for b in second])
        expected = 1 - observed / chance
        got = weighted.cohen_kappa(codes[:, 0], codes[:, 1], values, weights)
        assert got == pytest.approx(expected, abs=1e-12)


def test_hand_computed_two_by_two():
    """Two raters, 10 items: 4 (0, 0), 3 (1, 1), 2 (0, 1), 1 (1, 0)."""
    codes = np.array([[0, 0]] * 4 + [[1, 1]] * 3 + [[0, 1]] * 2 + [[1, 0]])
    values = np.array([0, 1])
    # p_o = 0.7; marginals (0.6, 0.4) and (0.5, 0.5): p_e = 0.5, kappa = 0.4
    assert weighted.cohen_kappa(codes[:, 0], codes[:, 1], values) == pytest.approx(0.4)
    # pi = (0.55, 0.45): p_e = (0.2475 + 0.2475) / (L - 1) = 0.495, AC1 = 0.205 / 0.505
    assert weighted.gwet_ac2(codes, values) == pytest.approx(0.205 / 0.505)
    assert weighted.percent_agreement(codes, values) == pytest.approx(0.7)
    # alpha nominal: n = 20 values, D_o = 6 / 20, D_e = 2 * 11 * 9 / (20 * 19)
    assert weighted.krippendorff_alpha(codes, values) == pytest.approx(1 - (6 / 20) / (198 / 380))


def test_undefined_denominators_are_nan():
    same = np.zeros((6, 3), dtype=int)
    values = np.arange(1, 4)
    assert np.isnan(weighted.krippendorff_alpha(same, values, "interval"))
    assert np.isnan(weighted.cohen_kappa(same[:, 0], same[:, 1], values))
    lonely = np.full((5, 3), -1)
    lonely[:, 0] = 1
    assert np.isnan(weighted.krippendorff_alpha(lonely, values))
    assert np.isnan(weighted.percent_agreement(lonely, values))
    with pytest.raises(ValueError, match="level: must be one of"):
        weighted.krippendorff_alpha(same, values, "cardinal")


# --------------------------------------------------------------------------- irrCAC's port


def irrcac_frame(codes, values):
    import pandas as pd

    labelled = np.where(codes >= 0, np.asarray(values, float)[np.maximum(codes, 0)], np.nan)
    return pd.DataFrame(labelled)


def irrcac_estimate(frame, values, weights, method):
    # The categories are given: the port otherwise takes a missing label for one.
    from irrCAC.raw import CAC

    estimator = CAC(frame, weights=weights, categories=[float(v) for v in values], digits=15)
    return getattr(estimator, method)()["est"]


IRRCAC_PANDAS = pytest.mark.filterwarnings("ignore:Starting with pandas version 4.0")
"""The port calls ``DataFrame.all(1)``, which pandas 3 warns about; the result is unchanged."""


@IRRCAC_PANDAS
@pytest.mark.parametrize("weights", weighted.WEIGHTS)
@pytest.mark.parametrize(
    "values",
    [None, np.array([0.0, 1.0, 2.5, 3.0, 7.0, 8.0, 11.0, 12.0, 15.0, 20.0])],
    ids=["equal steps", "unequal steps"],
)
def test_ac2_and_weighted_kappa_equal_irrcacs_python_port(weights, values):
    generator = np.random.default_rng(len(weights) + (values is None))
    for n_raters, n_labels in itertools.product([2, 3, 5, 8], [2, 3, 6, 10]):
        codes = random_codes(generator, 40, n_raters, n_labels, 0.3)
        scale = np.arange(1.0, n_labels + 1) if values is None else values[:n_labels]
        frame = irrcac_frame(codes, scale)
        expected = irrcac_estimate(frame, scale, weights, "gwet")
        got = weighted.gwet_ac2(codes, scale, weights)
        assert got == pytest.approx(expected["coefficient_value"], abs=1e-10)
        assert weighted.percent_agreement(codes, scale, weights) == pytest.approx(
            expected["pa"], abs=1e-10
        )
        # Cohen's kappa is a two-rater coefficient: on the items both raters labelled,
        # the port's Conger kappa is Cohen's.
        both = (codes[:, :2] >= 0).all(axis=1)
        kappa = irrcac_estimate(frame.iloc[both, :2], scale, weights, "conger")
        got = weighted.cohen_kappa(codes[:, 0], codes[:, 1], scale, weights)
        assert got == pytest.approx(kappa["coefficient_value"], abs=1e-10)


@IRRCAC_PANDAS
def test_the_pair_tables_weighted_scores_equal_irrcacs_python_port():
    # The kernels' oracle scores a pair table as two raters' labels; the port agrees.
    generator = np.random.default_rng(12)
    values = np.arange(1.0, 6.0)
    for weights in ("linear", "quadratic"):
        table = generator.integers(0, 9, size=(5, 5))
        rows, cols = np.nonzero(table)
        counts = table[rows, cols]
        codes = np.stack([np.repeat(rows, counts), np.repeat(cols, counts)], axis=1)
        frame = irrcac_frame(codes, values)
        for coefficient, method in (("gwet_ac2", "gwet"), ("cohen_kappa", "conger")):
            expected = irrcac_estimate(frame, values, weights, method)["coefficient_value"]
            got = weighted.pair_table_score(table, coefficient, values, weights=weights)
            assert got == pytest.approx(expected, abs=1e-10)


# --------------------------------------------------------------------------- a published alpha

NEWSROOM = REPO.parent / "shared" / "data" / "judgebench" / "newsroom"


@pytest.mark.skipif(not NEWSROOM.is_dir(), reason="../shared/data/judgebench is absent")
def test_ordinal_alpha_reproduces_judge_benchs_published_human_alpha_on_newsroom():
    # JUDGE-BENCH publishes Krippendorff's alpha among Newsroom's three raters per criterion;
    # it is the ordinal level (nominal and interval differ from it by 0.006 or more).
    import pandas as pd

    import simcore

    ratings = pd.read_csv(NEWSROOM / "human_scores.csv")
    published = pd.read_csv(NEWSROOM / "published_judges.csv")
    published = published.groupby("criterion")["human_krippendorff_alpha"].first()
    assert len(published) == 4
    for criterion, rows in ratings.groupby("criterion"):
        frame = rows.rename(columns={"score": "label"})[["item", "rater", "label"]]
        result = simcore.agreement(frame, coefficient="krippendorff_alpha", level="ordinal")
        assert result.to_dict()["agreement"] == pytest.approx(published[criterion], abs=1e-9)
