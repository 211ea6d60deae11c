"""The PPI twins against direct NumPy evaluation of the team's formulas, and the method kernel.

The reference below is written from the formulas of simcore/calibration/ppi.py's docstrings
(vectorised over a grid of counts), independently of the scalar numba code; the twins are also
checked against simcore.calibration.ppi itself.
"""

import itertools

import numpy as np
import pytest

from simcore.engine import interval_twins as twins
from simcore.engine.ppi_twins import (
    ppi_bounds,
    ppi_plus_plus_bounds,
    ppi_plus_plus_lambda,
    stratified_ppi_bounds,
)

Z95 = 1.959963984540054


def _grid():
    """Every (x, N, caught, missed, flagged, cleared) over small counts, and some large ones."""
    small = (0, 1, 3)
    rows = [
        (x, n_production, *cells)
        for n_production in (0, 1, 7)
        for x in sorted({0, n_production // 2, n_production})
        for cells in itertools.product(small, repeat=4)
    ]
    rows += [(130, 1000, 34, 6, 8, 72), (4, 100000, 90, 10, 40, 260), (9000, 10000, 1, 0, 0, 1)]
    return np.array(rows, dtype=np.float64).T


def _reference(method, x, big_n, caught, missed, flagged, cleared, z=Z95):
    """Return (refused, estimate, low, high) arrays straight from the formulas file."""
    n = caught + missed + flagged + cleared
    with np.errstate(divide="ignore", invalid="ignore"):
        q = x / big_n
        if method == "ppi":
            refused = (big_n == 0) | (n < 2)
            estimate = q + (missed - flagged) / n
            var_r = (missed + flagged) / n - ((missed - flagged) / n) ** 2
            se = np.sqrt(q * (1 - q) / big_n + var_r / n)
        elif method == "ppi++":
            refused = (big_n == 0) | (n < 2)
            cov_n = caught / n - (caught + missed) / n * ((caught + flagged) / n)
            pooled, ones = n + big_n, caught + flagged + x
            var_pool = (ones - ones**2 / pooled) / (pooled - 1)
            lam = np.clip(cov_n / ((1 + n / big_n) * var_pool), 0, 1)
            lam = np.where(var_pool == 0, 0.0, lam)
            estimate = lam * q + (caught * (1 - lam) + missed - lam * flagged) / n
            values = np.stack([1 - lam, np.ones_like(lam), -lam, np.zeros_like(lam)])
            weights = np.stack([caught, missed, flagged, cleared]) / n
            var_r = (weights * values**2).sum(0) - ((weights * values).sum(0)) ** 2
            se = np.sqrt(lam**2 * q * (1 - q) / big_n + var_r / n)
        else:
            w1, w0 = q, 1 - q
            n1, n0 = caught + flagged, missed + cleared
            refused = (big_n == 0) | (n == 0) | ((w1 > 0) & (n1 == 0)) | ((w0 > 0) & (n0 == 0))
            p1 = np.where(n1 > 0, caught / n1, 0.0)
            p0 = np.where(n0 > 0, missed / n0, 0.0)
            estimate = w1 * p1 + w0 * p0
            term1 = np.where(n1 > 0, w1**2 * p1 * (1 - p1) / n1, 0.0)
            term0 = np.where(n0 > 0, w0**2 * p0 * (1 - p0) / n0, 0.0)
            se = np.sqrt(term1 + term0 + (p1 - p0) ** 2 * q * (1 - q) / big_n)
    return refused, estimate, estimate - z * se, estimate + z * se


@pytest.mark.parametrize(
    ("method", "twin"),
    [("ppi", ppi_bounds), ("ppi++", ppi_plus_plus_bounds), ("strat-ppi", stratified_ppi_bounds)],
)
def test_the_twins_match_the_formulas_on_a_grid_of_counts_including_refusals(method, twin):
    grid = _grid()
    refused, estimate, low, high = _reference(method, *grid)
    assert refused.any() and (~refused).any()
    for i in range(grid.shape[1]):
        got = twin(*grid[:, i], Z95)
        assert got[0] == bool(refused[i]), (method, grid[:, i])
        if refused[i]:
            assert np.isnan(got[1:]).all()
        else:
            np.testing.assert_allclose(got[1:], (estimate[i], low[i], high[i]), rtol=0, atol=1e-12)


def test_ppi_plus_plus_lambda_is_zero_where_every_prediction_is_equal_and_clipped():
    assert ppi_plus_plus_lambda(0.0, 50.0, 0.0, 3.0, 0.0, 7.0) == 0.0  # the judge never fails
    assert ppi_plus_plus_lambda(50.0, 50.0, 3.0, 0.0, 7.0, 0.0) == 0.0  # it always fails
    assert ppi_plus_plus_lambda(10.0, 50.0, 0.0, 5.0, 5.0, 0.0) == 0.0  # anti-correlated
    # A perfect judge: cov_n = var_n (ddof 0), so lambda = var_n / ((1 + n/N) var_pool) <= 1.
    lam = ppi_plus_plus_lambda(100.0, 1000.0, 10.0, 0.0, 0.0, 90.0)
    assert 0.9 < lam <= 1.0


@pytest.mark.parametrize(
    "args", [(0.15, 0.8, 0.8, 100, 1000), (0.05, 0.65, 0.65, 25, 100000), (0.5, 0.95, 0.7, 3, 10)]
)
def test_the_method_kernel_keeps_the_naive_and_lr_results_bit_for_bit(args):
    keys = np.random.SeedSequence(5).generate_state(2000, np.uint64)
    covered_naive, covered_lr, width_naive, width_lr, refused = twins.coverage_trials(
        keys, *args, Z95, 0.15
    )
    m_refused, m_covered, m_width, m_theta = twins.method_coverage_trials(keys, *args, Z95, 0.15)
    assert twins.INTERVAL_METHODS == ("naive", "lr", "ppi", "ppi++", "strat-ppi")
    kept = ~refused
    assert (m_refused[:, 0] == refused).all() and (m_refused[:, 1] == refused).all()
    assert (m_covered[kept, 0] == covered_naive[kept]).all()
    assert (m_covered[kept, 1] == covered_lr[kept]).all()
    assert (m_width[kept, 0] == width_naive[kept]).all()
    assert (m_width[kept, 1] == width_lr[kept]).all()
    assert not m_covered[m_refused].any() and (m_width[m_refused] == 0).all()
    assert not m_theta[m_refused].any()


@pytest.mark.parametrize(
    ("twin", "vectorised"),
    [
        (ppi_bounds, "ppi_mean"),
        (ppi_plus_plus_bounds, "ppi_plus_plus"),
        (stratified_ppi_bounds, "stratified_ppi"),
    ],
)
def test_the_twins_give_the_numpy_estimators_numbers(twin, vectorised):
    from simcore.calibration import ppi

    counts = _grid()
    x, big_n, caught, missed, flagged, cleared = counts
    n = caught + missed + flagged + cleared
    usable = (big_n > 0) & (n >= 2) & (x <= big_n)
    counts = counts[:, usable]
    estimate, low, high = getattr(ppi, vectorised)(*counts, confidence=0.95)[:3]
    compared = 0
    for column in range(counts.shape[1]):
        refused, twin_estimate, twin_low, twin_high = twin(*counts[:, column], Z95)
        if refused:
            continue
        compared += 1
        expected = (estimate[column], low[column], high[column])
        assert np.allclose(
            (twin_estimate, twin_low, twin_high), expected, atol=1e-12, equal_nan=True
        )
    assert compared > 100
