"""Agreement coefficients: hand values, references, degenerate cases, properties."""

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from simcore.engine.coefficients import (
    COEFFICIENTS,
    COHEN_KAPPA,
    GWET_AC1,
    KRIPPENDORFF_ALPHA,
    OBSERVED,
    coefficient_code,
    observed_agreement,
    score_table,
    table_score,
)

TOL = 1e-12


def both(table, coefficient):
    """Score with the numba kernel and the NumPy reference; check they agree."""
    table = np.asarray(table, dtype=np.int64)
    fast = table_score(table, coefficient)
    ref = score_table(table, coefficient)
    assert abs(fast[0] - ref[0]) <= TOL
    assert bool(fast[1]) == bool(ref[1])
    return float(fast[0]), bool(fast[1])


def table_from_columns(col_a, col_b, n_labels):
    table = np.zeros((n_labels, n_labels), dtype=np.int64)
    np.add.at(table, (col_a, col_b), 1)
    return table


def random_columns(rng, n_labels, n_pairs):
    """Two label columns; sometimes skewed or constant so degenerate cases occur."""
    kind = rng.integers(4)
    if kind == 0:  # uniform labels
        return rng.integers(n_labels, size=(2, n_pairs))
    if kind == 1:  # skewed marginals, correlated columns
        p = rng.dirichlet(np.full(n_labels, 0.3))
        col_a = rng.choice(n_labels, size=n_pairs, p=p)
        col_b = np.where(rng.random(n_pairs) < 0.7, col_a, rng.choice(n_labels, size=n_pairs, p=p))
        return np.stack([col_a, col_b])
    if kind == 2:  # one label everywhere (no variation at all)
        return np.full((2, n_pairs), rng.integers(n_labels))
    # each column constant, possibly different labels
    return np.stack(
        [np.full(n_pairs, rng.integers(n_labels)), np.full(n_pairs, rng.integers(n_labels))]
    )


def test_codes():
    assert COEFFICIENTS == ("observed", "cohen_kappa", "krippendorff_alpha", "gwet_ac1")
    assert (OBSERVED, COHEN_KAPPA, KRIPPENDORFF_ALPHA, GWET_AC1) == (0, 1, 2, 3)
    assert [coefficient_code(name) for name in COEFFICIENTS] == [0, 1, 2, 3]
    with pytest.raises(ValueError):
        coefficient_code("fleiss_kappa")
    with pytest.raises(ValueError):
        score_table(np.ones((2, 2), dtype=int), 4)
    with pytest.raises(ValueError):
        score_table(np.ones((2, 3), dtype=int), OBSERVED)
    # score_table also takes names
    assert score_table([[20, 5], [10, 15]], "cohen_kappa")[0] == pytest.approx(0.4, abs=TOL)


# ---------------------------------------------------------------- hand computations


def test_hand_two_labels():
    table = [[20, 5], [10, 15]]
    # N = 50, trace = 35 -> p_o = 0.7
    # rows (candidate) 25, 25; columns (pool) 30, 20
    p_o = 35 / 50
    # kappa: p_e = (25*30 + 25*20) / 50**2 = 1250 / 2500 = 0.5
    p_e = 0.5
    kappa = (p_o - p_e) / (1 - p_e)  # 0.2 / 0.5 = 0.4
    assert kappa == pytest.approx(0.4, abs=TOL)
    # AC1: pooled counts 55, 45 of 100 -> q = 0.55, 0.45
    # p_e = (0.55 * 0.45 + 0.45 * 0.55) / (2 - 1) = 0.495
    ac1 = (0.7 - 0.495) / (1 - 0.495)  # 0.205 / 0.505
    # alpha: n = 100, sum n_c**2 = 55**2 + 45**2 = 5050
    # D_e = (10000 - 5050) / (100 * 99) = 0.5, D_o = 0.3 -> alpha = 1 - 0.6 = 0.4
    alpha = 1 - 0.3 / (4950 / 9900)
    assert both(table, OBSERVED) == pytest.approx((0.7, False), abs=TOL)
    assert both(table, COHEN_KAPPA) == pytest.approx((kappa, False), abs=TOL)
    assert both(table, GWET_AC1) == pytest.approx((ac1, False), abs=TOL)
    assert both(table, KRIPPENDORFF_ALPHA) == pytest.approx((alpha, False), abs=TOL)
    assert ac1 == pytest.approx(0.40594059405940594, abs=TOL)


def test_hand_three_labels():
    table = [[10, 2, 3], [4, 12, 1], [2, 3, 13]]
    # N = 50, trace = 10 + 12 + 13 = 35 -> p_o = 0.7
    # rows 15, 17, 18; columns 16, 17, 17
    # kappa: p_e = (15*16 + 17*17 + 18*17) / 2500 = (240 + 289 + 306) / 2500 = 0.334
    kappa = (0.7 - 0.334) / (1 - 0.334)  # 0.366 / 0.666 = 61 / 111
    assert kappa == pytest.approx(61 / 111, abs=TOL)
    # AC1: pooled counts 31, 34, 35 of 100 -> q = 0.31, 0.34, 0.35
    # sum q (1 - q) = 0.2139 + 0.2244 + 0.2275 = 0.6658; p_e = 0.6658 / 2 = 0.3329
    ac1 = (0.7 - 0.3329) / (1 - 0.3329)  # 0.3671 / 0.6671
    # alpha: sum n_c**2 = 961 + 1156 + 1225 = 3342; D_e = (10000 - 3342) / 9900
    # alpha = 1 - 0.3 * 9900 / 6658 = 1 - 2970 / 6658 = 3688 / 6658
    alpha = 3688 / 6658
    assert both(table, OBSERVED) == pytest.approx((0.7, False), abs=TOL)
    assert both(table, COHEN_KAPPA) == pytest.approx((kappa, False), abs=TOL)
    assert both(table, GWET_AC1) == pytest.approx((ac1, False), abs=TOL)
    assert both(table, KRIPPENDORFF_ALPHA) == pytest.approx((alpha, False), abs=TOL)


def test_hand_total_disagreement():
    table = [[0, 4], [6, 0]]
    # N = 10, p_o = 0; rows 4, 6; columns 6, 4
    # kappa: p_e = (4*6 + 6*4) / 100 = 0.48 -> kappa = -0.48 / 0.52 = -12 / 13
    # AC1: pooled 10, 10 of 20 -> q = 0.5, 0.5, p_e = 0.5 -> AC1 = -0.5 / 0.5 = -1
    # alpha: sum n_c**2 = 200, D_e = (400 - 200) / 380, D_o = 1 -> alpha = 1 - 1.9 = -0.9
    assert both(table, OBSERVED) == pytest.approx((0.0, False), abs=TOL)
    assert both(table, COHEN_KAPPA) == pytest.approx((-12 / 13, False), abs=TOL)
    assert both(table, GWET_AC1) == pytest.approx((-1.0, False), abs=TOL)
    assert both(table, KRIPPENDORFF_ALPHA) == pytest.approx((-0.9, False), abs=TOL)


# ---------------------------------------------------------------- references


def test_alpha_matches_krippendorff_package():
    rng = np.random.default_rng(20240611)
    n_compared = n_degenerate = 0
    for _ in range(400):
        n_labels = int(rng.integers(2, 11))
        n_pairs = int(rng.integers(2, 201))
        col_a, col_b = random_columns(rng, n_labels, n_pairs)
        table = table_from_columns(col_a, col_b, n_labels)
        score, degenerate = both(table, KRIPPENDORFF_ALPHA)
        try:
            with np.errstate(all="ignore"):
                expected = krippendorff.alpha(
                    reliability_data=np.stack([col_a, col_b]),
                    level_of_measurement="nominal",
                    value_domain=range(n_labels),
                )
        except ValueError:
            expected = np.nan
        if np.isnan(expected):
            assert degenerate and score == 0.0
            n_degenerate += 1
        else:
            assert not degenerate
            assert abs(score - expected) <= TOL
            n_compared += 1
    assert n_compared > 200 and n_degenerate > 20


def test_alpha_small_sample_factor_single_pair():
    # N = 1: n = 2 values, n (n - 1) = 2; disagreeing pair -> D_o = 1, D_e = 2 / 2 -> 0
    assert both([[0, 1], [0, 0]], KRIPPENDORFF_ALPHA) == (0.0, False)
    expected = krippendorff.alpha(
        reliability_data=[[0], [1]], level_of_measurement="nominal", value_domain=range(2)
    )
    assert expected == pytest.approx(0.0, abs=TOL)


def kappa_from_columns(col_a, col_b, n_labels):
    p_o = np.mean(col_a == col_b)
    p_e = sum(np.mean(col_a == c) * np.mean(col_b == c) for c in range(n_labels))
    return p_o, p_e


def ac1_from_columns(col_a, col_b, n_labels):
    p_o = np.mean(col_a == col_b)
    q = [(np.mean(col_a == c) + np.mean(col_b == c)) / 2 for c in range(n_labels)]
    p_e = sum(qc * (1 - qc) for qc in q) / (n_labels - 1)
    return (p_o - p_e) / (1 - p_e)


def test_kappa_and_ac1_from_columns():
    rng = np.random.default_rng(7)
    n_degenerate = 0
    for _ in range(400):
        n_labels = int(rng.integers(2, 11))
        n_pairs = int(rng.integers(2, 201))
        col_a, col_b = random_columns(rng, n_labels, n_pairs)
        table = table_from_columns(col_a, col_b, n_labels)
        p_o, p_e = kappa_from_columns(col_a, col_b, n_labels)
        score, degenerate = both(table, COHEN_KAPPA)
        if p_e == 1.0:
            assert degenerate and score == 0.0
            n_degenerate += 1
        else:
            assert not degenerate
            assert abs(score - (p_o - p_e) / (1 - p_e)) <= TOL
        score, degenerate = both(table, GWET_AC1)
        assert not degenerate
        assert abs(score - ac1_from_columns(col_a, col_b, n_labels)) <= TOL
        assert both(table, OBSERVED) == pytest.approx((p_o, False), abs=TOL)
    assert n_degenerate > 20


# ---------------------------------------------------------------- conventions


@pytest.mark.parametrize(
    "table", [[[7, 0], [0, 0]], [[0, 0], [0, 7]], [[0, 0, 0], [0, 3, 0], [0, 0, 0]]]
)
def test_zero_denominator(table):
    assert both(table, OBSERVED) == (1.0, False)
    assert both(table, COHEN_KAPPA) == (0.0, True)
    assert both(table, KRIPPENDORFF_ALPHA) == (0.0, True)
    # AC1's chance term is 0 here (q = 1 for the one label), so AC1 = (1 - 0) / (1 - 0)
    score, degenerate = both(table, GWET_AC1)
    assert np.isfinite(score) and not degenerate
    assert score == pytest.approx(1.0, abs=TOL)


def test_each_rater_constant_but_different():
    # kappa: p_e = 0 (no shared label), p_o = 0 -> 0, not degenerate; alpha has variation
    table = [[0, 5], [0, 0]]
    assert both(table, COHEN_KAPPA) == (0.0, False)
    # alpha: n_c = 5, 5 -> D_e = (100 - 50) / 90, D_o = 1 -> 1 - 90 / 50 = -0.8
    assert both(table, KRIPPENDORFF_ALPHA) == pytest.approx((-0.8, False), abs=TOL)


@pytest.mark.parametrize("n_labels", [2, 3, 10])
def test_empty_table(n_labels):
    table = np.zeros((n_labels, n_labels), dtype=np.int64)
    for coefficient in range(len(COEFFICIENTS)):
        assert both(table, coefficient) == (0.0, False)
    assert observed_agreement(table) == 0.0


def test_observed_agreement_stack():
    stack = np.array([[[3, 1], [0, 4]], [[0, 0], [0, 0]], [[1, 1], [1, 1]]])
    np.testing.assert_allclose(observed_agreement(stack), [7 / 8, 0.0, 0.5], atol=TOL)


def random_tables(rng, count):
    tables = []
    for _ in range(count):
        n_labels = int(rng.integers(2, 11))
        kind = rng.integers(5)
        if kind == 0:
            table = np.zeros((n_labels, n_labels), dtype=np.int64)
        elif kind == 1:  # one non-zero cell: degenerate on the diagonal
            table = np.zeros((n_labels, n_labels), dtype=np.int64)
            a, b = rng.integers(n_labels, size=2)
            table[a, b] = rng.integers(1, 50)
        elif kind == 2:  # sparse
            keep = rng.random((n_labels, n_labels)) < 0.2
            table = rng.integers(0, 4, size=(n_labels, n_labels)) * keep
        else:  # dense
            table = rng.integers(0, 60, size=(n_labels, n_labels))
        tables.append(table.astype(np.int64))
    return tables


def test_numba_equals_numpy():
    rng = np.random.default_rng(3)
    tables = random_tables(rng, 400)
    flags = {c: 0 for c in range(len(COEFFICIENTS))}
    for table in tables:
        for coefficient in range(len(COEFFICIENTS)):
            fast = table_score(table, coefficient)
            ref = score_table(table, coefficient)
            assert abs(fast[0] - ref[0]) <= TOL
            assert fast[1] == bool(ref[1])
            flags[coefficient] += fast[1]
    assert flags[COHEN_KAPPA] > 10 and flags[KRIPPENDORFF_ALPHA] > 10
    assert flags[OBSERVED] == flags[GWET_AC1] == 0


def test_numpy_stack_equals_per_table():
    rng = np.random.default_rng(11)
    n_labels = 4
    stack = rng.integers(0, 5, size=(3, 5, n_labels, n_labels))
    stack[0, 0] = 0
    stack[1, 2] = 0
    stack[1, 2, 1, 1] = 9
    for coefficient in range(len(COEFFICIENTS)):
        score, degenerate = score_table(stack, coefficient)
        assert score.shape == degenerate.shape == (3, 5)
        for index in np.ndindex(3, 5):
            fast = table_score(stack[index], coefficient)
            assert abs(score[index] - fast[0]) <= TOL
            assert degenerate[index] == fast[1]


# ---------------------------------------------------------------- properties


@st.composite
def tables(draw):
    n_labels = draw(st.integers(2, 10))
    high = draw(st.sampled_from([1, 3, 50, 10_000]))
    return draw(arrays(np.int64, (n_labels, n_labels), elements=st.integers(0, high)))


@settings(max_examples=200, deadline=None, derandomize=True)
@given(tables())
def test_properties(table):
    transposed = np.ascontiguousarray(table.T)
    for coefficient in range(len(COEFFICIENTS)):
        score, degenerate = table_score(table, coefficient)
        ref_score, ref_degenerate = score_table(table, coefficient)
        assert abs(score - ref_score) <= TOL and degenerate == bool(ref_degenerate)
        assert np.isfinite(score)
        assert score <= 1.0
        if degenerate:
            assert score == 0.0
        # every coefficient is symmetric in the two raters
        assert table_score(transposed, coefficient) == (score, degenerate)
    observed, _ = table_score(table, OBSERVED)
    assert 0.0 <= observed <= 1.0
