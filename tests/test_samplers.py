"""Exact count samplers: goodness of fit against SciPy, edge cases, reproducibility."""

import numba
import numpy as np
import pytest
from scipy import stats

from simcore.engine.rng import seed_state
from simcore.engine.samplers import (
    binomial,
    hypergeometric,
    log_factorial_table,
    multinomial,
    multivariate_hypergeometric,
)

LOG_FACTORIALS = log_factorial_table(20_000)
"""Covers most cases; larger arguments exercise the lgamma fallback."""

N_DRAWS = 20_000
MIN_PVALUE = 1e-4

BINOMIAL_CASES = [
    # (trials, probability); trials * min(p, 1 - p) < 10 is inversion, else BTRS
    (5, 0.3),  # counted uniforms (at most BERNOULLI_LIMIT trials)
    (16, 0.5),
    (17, 0.5),  # inversion just past the counted-uniforms limit
    (20, 0.02),
    (30, 0.9),  # flipped inversion
    (99, 0.1),  # inversion just below the switch
    (100, 0.1),  # BTRS just at the switch
    (40, 0.5),
    (60, 0.8),  # flipped BTRS
    (500, 0.05),
    (1000, 0.5),
    (8000, 0.37),
    (100_000, 0.999),
]

HYPERGEOMETRIC_CASES = [
    # (good, bad, sample)
    (5, 7, 4),
    (30, 970, 50),
    (400, 600, 500),
    (4000, 4000, 400),
    (1, 10, 3),
    (50, 50, 90),  # support starts above 0
    (1000, 10, 995),  # mode at the upper end
    (3, 2000, 1500),
]


@numba.njit
def _new_state(key):
    state = np.empty(4, dtype=np.uint64)
    seed_state(np.uint64(key), state)
    return state


@numba.njit
def _draw_binomials(key, n_draws, trials, probability):
    state = _new_state(key)
    out = np.empty(n_draws, dtype=np.int64)
    for draw in range(n_draws):
        out[draw] = binomial(state, trials, probability, LOG_FACTORIALS)
    return out


@numba.njit
def _draw_hypergeometrics(key, n_draws, good, bad, sample):
    state = _new_state(key)
    out = np.empty(n_draws, dtype=np.int64)
    for draw in range(n_draws):
        out[draw] = hypergeometric(state, good, bad, sample, LOG_FACTORIALS)
    return out


@numba.njit
def _draw_multinomials(key, n_draws, trials, probabilities):
    state = _new_state(key)
    out = np.empty((n_draws, probabilities.shape[0]), dtype=np.int64)
    for draw in range(n_draws):
        multinomial(state, trials, probabilities, out[draw], LOG_FACTORIALS)
    return out


@numba.njit
def _draw_multivariate_hypergeometrics(key, n_draws, sizes, sample):
    state = _new_state(key)
    out = np.empty((n_draws, sizes.shape[0]), dtype=np.int64)
    for draw in range(n_draws):
        multivariate_hypergeometric(state, sizes, sample, out[draw], LOG_FACTORIALS)
    return out


def pooled_chi_square_pvalue(draws, low, pmf):
    """Chi-square p-value of ``draws`` against ``pmf`` on ``low .. low + len(pmf) - 1``.

    Neighbouring values are pooled from the left until every bin expects at least 5 draws.
    """
    assert draws.min() >= low
    assert draws.max() < low + pmf.size
    observed = np.bincount(draws - low, minlength=pmf.size).astype(float)
    expected = pmf / pmf.sum() * draws.size
    pooled_observed, pooled_expected = [], []
    bin_observed = bin_expected = 0.0
    for value_observed, value_expected in zip(observed, expected, strict=True):
        bin_observed += value_observed
        bin_expected += value_expected
        if bin_expected >= 5.0:
            pooled_observed.append(bin_observed)
            pooled_expected.append(bin_expected)
            bin_observed = bin_expected = 0.0
    pooled_observed[-1] += bin_observed
    pooled_expected[-1] += bin_expected
    assert len(pooled_expected) >= 2
    return stats.chisquare(pooled_observed, pooled_expected).pvalue


def assert_mean_close(draws, mean, variance):
    standard_error = np.sqrt(variance / draws.shape[0])
    assert np.all(np.abs(draws.mean(axis=0) - mean) <= 5.0 * standard_error + 1e-12)


# --------------------------------------------------------------------------- binomial


@pytest.mark.parametrize(("trials", "probability"), BINOMIAL_CASES)
def test_binomial_matches_scipy(trials, probability):
    draws = _draw_binomials(1234 + trials, N_DRAWS, trials, probability)
    support = np.arange(trials + 1)
    pvalue = pooled_chi_square_pvalue(draws, 0, stats.binom.pmf(support, trials, probability))
    assert pvalue > MIN_PVALUE
    assert_mean_close(draws, trials * probability, trials * probability * (1 - probability))


@pytest.mark.parametrize(
    ("trials", "probability"), [(15, 0.4), (100, 0.1), (1000, 0.5), (60, 0.8), (10**6, 0.3)]
)
def test_binomial_matches_scipy_at_high_power(trials, probability):
    # Millions of draws cost little once compiled and expose small distortions of BTRS.
    draws = _draw_binomials(777 + trials, 2_000_000, trials, probability)
    support = np.arange(trials + 1)
    pvalue = pooled_chi_square_pvalue(draws, 0, stats.binom.pmf(support, trials, probability))
    assert pvalue > MIN_PVALUE
    assert_mean_close(draws, trials * probability, trials * probability * (1 - probability))


def test_goodness_of_fit_detects_a_wrong_probability():
    draws = _draw_binomials(5, N_DRAWS, 1000, 0.5)
    support = np.arange(1001)
    assert pooled_chi_square_pvalue(draws, 0, stats.binom.pmf(support, 1000, 0.5)) > MIN_PVALUE
    assert pooled_chi_square_pvalue(draws, 0, stats.binom.pmf(support, 1000, 0.51)) < 1e-10


@pytest.mark.parametrize(
    ("trials", "probability", "expected"),
    [(10, 0.0, 0), (10, -0.5, 0), (10, 1.0, 10), (10, 1.5, 10), (0, 0.5, 0), (-3, 0.5, 0)],
)
def test_binomial_forced_answers(trials, probability, expected):
    assert np.all(_draw_binomials(3, 50, trials, probability) == expected)


@pytest.mark.parametrize(("trials", "probability"), [(1, 0.5), (7, 1e-9), (7, 1 - 1e-9)])
def test_binomial_stays_in_support(trials, probability):
    draws = _draw_binomials(8, 50_000, trials, probability)
    assert draws.min() >= 0
    assert draws.max() <= trials


def test_binomial_rejects_nan():
    with pytest.raises(ValueError, match="NaN"):
        _draw_binomials(1, 1, 10, np.nan)


# --------------------------------------------------------------------------- hypergeometric


@pytest.mark.parametrize(("good", "bad", "sample"), HYPERGEOMETRIC_CASES)
def test_hypergeometric_matches_scipy(good, bad, sample):
    draws = _draw_hypergeometrics(99 + good, N_DRAWS, good, bad, sample)
    low, high = max(0, sample - bad), min(sample, good)
    support = np.arange(low, high + 1)
    pmf = stats.hypergeom.pmf(support, good + bad, good, sample)
    assert pooled_chi_square_pvalue(draws, low, pmf) > MIN_PVALUE
    total = good + bad
    mean = sample * good / total
    variance = mean * bad / total * (total - sample) / (total - 1)
    assert_mean_close(draws, mean, variance)


@pytest.mark.parametrize(("good", "bad", "sample"), [(30, 970, 50), (4000, 4000, 400)])
def test_hypergeometric_matches_scipy_at_high_power(good, bad, sample):
    draws = _draw_hypergeometrics(555 + good, 2_000_000, good, bad, sample)
    low, high = max(0, sample - bad), min(sample, good)
    pmf = stats.hypergeom.pmf(np.arange(low, high + 1), good + bad, good, sample)
    assert pooled_chi_square_pvalue(draws, low, pmf) > MIN_PVALUE


@pytest.mark.parametrize(
    ("good", "bad", "sample", "expected"),
    [
        (6, 9, 0, 0),  # empty sample
        (6, 9, 15, 6),  # the whole population
        (0, 9, 4, 0),  # no good items
        (6, 0, 4, 4),  # no bad items
        (0, 0, 0, 0),
    ],
)
def test_hypergeometric_forced_answers(good, bad, sample, expected):
    assert np.all(_draw_hypergeometrics(4, 50, good, bad, sample) == expected)


@pytest.mark.parametrize(("good", "bad", "sample"), [(3, 4, 5), (10, 2, 11), (2, 10, 11)])
def test_hypergeometric_stays_in_support(good, bad, sample):
    draws = _draw_hypergeometrics(6, 50_000, good, bad, sample)
    low, high = max(0, sample - bad), min(sample, good)
    assert draws.min() == low
    assert draws.max() == high


@pytest.mark.parametrize(("good", "bad", "sample"), [(3, 4, 8), (-1, 4, 2), (3, -1, 2), (3, 4, -1)])
def test_hypergeometric_rejects_bad_input(good, bad, sample):
    with pytest.raises(ValueError, match="hypergeometric"):
        _draw_hypergeometrics(1, 1, good, bad, sample)


# --------------------------------------------------------------------------- multinomial


def test_multinomial_counts():
    weights = np.array([2.0, 0.0, 5.0, 3.0, 0.0, 1e-3])  # not normalised
    probabilities = weights / weights.sum()
    trials = 50
    draws = _draw_multinomials(21, N_DRAWS, trials, weights)
    assert np.all(draws.sum(axis=1) == trials)
    assert np.all(draws[:, [1, 4]] == 0)
    assert np.all(draws >= 0)
    assert_mean_close(draws, trials * probabilities, trials * probabilities * (1 - probabilities))
    # Each marginal is Binomial(trials, p_j).
    for category in (0, 2, 3):
        pmf = stats.binom.pmf(np.arange(trials + 1), trials, probabilities[category])
        assert pooled_chi_square_pvalue(draws[:, category], 0, pmf) > MIN_PVALUE
    # Counts of two categories are negatively correlated: cov = -n p_i p_j.
    covariance = np.cov(draws[:, 0], draws[:, 2])[0, 1]
    expected = -trials * probabilities[0] * probabilities[2]
    assert abs(covariance - expected) < 0.1 * abs(expected)


def test_multinomial_edge_cases():
    assert np.all(_draw_multinomials(2, 200, 30, np.array([0.3, 0.7, 0.0]))[:, 2] == 0)
    assert np.all(_draw_multinomials(2, 200, 30, np.array([0.0, 1.0, 0.0])) == [0, 30, 0])
    assert np.all(_draw_multinomials(2, 5, 0, np.array([0.5, 0.5])) == 0)
    assert np.all(_draw_multinomials(2, 5, 17, np.array([4.0])) == 17)
    with pytest.raises(ValueError, match="positive finite sum"):
        _draw_multinomials(2, 1, 5, np.array([0.0, 0.0]))
    with pytest.raises(ValueError, match="non-negative"):
        _draw_multinomials(2, 1, 5, np.array([0.5, -0.1, 0.6]))


# ---------------------------------------------------------------- multivariate hypergeometric


def test_multivariate_hypergeometric_counts():
    sizes = np.array([5, 0, 12, 3, 30], dtype=np.int64)
    total = sizes.sum()
    sample = 20
    draws = _draw_multivariate_hypergeometrics(33, N_DRAWS, sizes, sample)
    assert np.all(draws.sum(axis=1) == sample)
    assert np.all(draws >= 0)
    assert np.all(draws <= sizes)
    shares = sizes / total
    variances = sample * shares * (1 - shares) * (total - sample) / (total - 1)
    assert_mean_close(draws, sample * shares, variances)
    # Each marginal is hypergeometric with its group against the rest.
    for group in (0, 2, 4):
        low, high = max(0, sample - (total - sizes[group])), min(sample, sizes[group])
        pmf = stats.hypergeom.pmf(np.arange(low, high + 1), total, sizes[group], sample)
        assert pooled_chi_square_pvalue(draws[:, group], low, pmf) > MIN_PVALUE


def test_multivariate_hypergeometric_edge_cases():
    sizes = np.array([4, 0, 6], dtype=np.int64)
    assert np.all(_draw_multivariate_hypergeometrics(3, 20, sizes, 10) == sizes)
    assert np.all(_draw_multivariate_hypergeometrics(3, 20, sizes, 0) == 0)
    with pytest.raises(ValueError, match="exceeds the population"):
        _draw_multivariate_hypergeometrics(3, 1, sizes, 11)


# --------------------------------------------------------------------------- reproducibility


def test_same_key_same_draws_and_different_keys_differ():
    for draw in (
        lambda key: _draw_binomials(key, 500, 8000, 0.37),
        lambda key: _draw_binomials(key, 500, 20, 0.2),
        lambda key: _draw_hypergeometrics(key, 500, 400, 600, 500),
        lambda key: _draw_multinomials(key, 200, 40, np.array([0.2, 0.5, 0.3])),
        lambda key: _draw_multivariate_hypergeometrics(
            key, 200, np.array([10, 20, 30], dtype=np.int64), 25
        ),
    ):
        first = draw(11)
        assert np.array_equal(first, draw(11))
        assert not np.array_equal(first, draw(12))
