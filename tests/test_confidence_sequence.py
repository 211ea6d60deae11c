"""Anytime-valid confidence sequences: the betting CS, the normal-mixture radius and the
prediction-powered CS of the FAIL share, by hand, by simulation, and their refusals."""

import math
import tracemalloc

import numpy as np
import pytest

from simcore.calibration.confidence_sequence import (
    BET_CAP,
    betting_confidence_sequence,
    betting_log_capital,
    failure_rate_sequence,
    normal_mixture_radius,
    optimal_mixture_rho,
    sequence_coverage,
)


def direct_capital(values, alpha, m):
    """K+ and K- at ``m`` after all of ``values``, written out from the paper's definitions."""
    up = down = 1.0
    squares = 0.0
    for t, x in enumerate(values, start=1):
        variance_before = (0.25 + squares) / t  # sigma2_{t-1}
        bet = math.sqrt(2 * math.log(2 / alpha) / (variance_before * t * math.log(1 + t)))
        up *= 1 + min(bet, BET_CAP / m) * (x - m)
        down *= 1 - min(bet, BET_CAP / (1 - m)) * (x - m)
        mean_hat = (0.5 + sum(values[:t])) / (t + 1)  # mu_hat_t, including x_t
        squares += (x - mean_hat) ** 2
    return up, down


def full_grid_band(values, alpha, grid_size):
    """The band from the capital on the whole grid at every t (no chunks, no pruning)."""
    grid = np.linspace(0, 1, grid_size)
    log_up, log_down = betting_log_capital(values, alpha, grid)
    threshold = math.log(2 / alpha)
    low = grid[np.argmax(log_up < threshold, axis=1)] - grid[1]
    high = grid[grid_size - 1 - np.argmax(log_down[:, ::-1] < threshold, axis=1)] + grid[1]
    return (
        np.maximum.accumulate(np.clip(low, 0, 1)),
        np.minimum.accumulate(np.clip(high, 0, 1)),
    )


# --------------------------------------------------------------------------- by hand


def test_capital_after_three_observations_is_the_direct_product():
    values = [0.2, 0.9, 0.5]
    means = [0.05, 0.3, 0.9]  # at 0.05 the cap c/m = 10 does not bind; at 0.3 and 0.9 it does
    log_up, log_down = betting_log_capital(values, 0.1, means)
    for column, m in enumerate(means):
        up, down = direct_capital(values, 0.1, m)
        assert math.exp(log_up[2, column]) == pytest.approx(up, rel=1e-12)
        assert math.exp(log_down[2, column]) == pytest.approx(down, rel=1e-12)
    # The first bet: sigma2_0 = 1/4, so lambda_1 = sqrt(2 log 20 / (0.25 log 2)) > c / 0.3.
    first_bet = math.sqrt(2 * math.log(20) / (0.25 * math.log(2)))
    assert math.exp(log_up[0, 0]) == pytest.approx(1 + first_bet * (0.2 - 0.05), rel=1e-12)
    assert math.exp(log_up[0, 1]) == pytest.approx(1 + BET_CAP / 0.3 * (0.2 - 0.3), rel=1e-12)


def test_band_is_nested_and_holds_the_running_mean():
    rng = np.random.default_rng(np.random.SeedSequence(3))
    for values in (rng.random(600) < 0.3, rng.beta(2, 5, 600), np.full(300, 0.5)):
        low, high = betting_confidence_sequence(values.astype(float), 0.05)
        running_mean = np.cumsum(values) / np.arange(1, values.size + 1)
        assert np.all(np.diff(low) >= 0) and np.all(np.diff(high) <= 0)
        assert np.all((low <= running_mean) & (running_mean <= high))
        assert low[0] == 0.0 and high[0] == 1.0  # one observation rules nothing out
        assert high[-1] - low[-1] < 0.2


def test_chunked_pruned_band_equals_the_full_grid_computation():
    rng = np.random.default_rng(np.random.SeedSequence(4))
    for values, grid_size in ((rng.random(1500) < 0.2, 1000), (rng.random(700) ** 3, 301)):
        got = betting_confidence_sequence(values.astype(float), 0.1, grid_size)
        expected = full_grid_band(values.astype(float), 0.1, grid_size)
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)


def test_all_zeros_shrink_towards_zero():
    low, high = betting_confidence_sequence(np.zeros(2000), 0.05)
    assert np.all(low == 0.0)
    assert 0.0 < high[-1] < 0.01


def test_twenty_thousand_values_stay_under_fifty_megabytes():
    values = (np.random.default_rng(np.random.SeedSequence(5)).random(20_000) < 0.4) * 1.0
    tracemalloc.start()
    low, high = betting_confidence_sequence(values, 0.05, grid_size=1000)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 50e6
    assert low.shape == high.shape == (20_000,)
    assert low[-1] < 0.4 < high[-1] and high[-1] - low[-1] < 0.05


def test_normal_mixture_radius_is_its_formula():
    alpha, rho = 0.05, 37.5
    n = np.array([1, 10, 250, 4000])
    expected = [
        math.sqrt((k / 4 + rho) * math.log((k / 4 + rho) / (rho * alpha**2))) / k for k in n
    ]
    np.testing.assert_allclose(normal_mixture_radius(n, alpha, rho=rho), expected, rtol=1e-12)
    assert normal_mixture_radius(0, alpha, rho=rho) == math.inf
    sigma, k = 2.0, 90
    direct = math.sqrt((4 * k + rho) * math.log((4 * k + rho) / (rho * alpha**2))) / k
    assert normal_mixture_radius(k, alpha, sigma, rho) == pytest.approx(direct, rel=1e-12)


def test_optimal_rho_minimises_the_radius_at_its_target():
    alpha, target = 0.01, 5000
    rho = optimal_mixture_rho(target, alpha)
    u = 1 + target / 4 / rho
    assert u - 1 - math.log(u) == pytest.approx(2 * math.log(1 / alpha), rel=1e-10)
    best = normal_mixture_radius(target, alpha, rho=rho)
    for factor in (0.8, 0.95, 1.05, 1.25):
        assert normal_mixture_radius(target, alpha, rho=rho * factor) > best
    # The default rho is the optimum at the largest count.
    assert normal_mixture_radius([100, target], alpha)[1] == pytest.approx(best, rel=1e-12)


def test_failure_rate_sequence_is_its_two_parts_added():
    rectifiers = np.array([0, 1, 0, -1, 0, 0, -1, 0, 0, 0], dtype=float)
    fails, rows, audits = [0, 30, 70], [0, 200, 400], [0, 4, 10]
    estimate, low, high = failure_rate_sequence(rectifiers, fails, rows, audits, 0.1, 0.2)
    radius = normal_mixture_radius([200, 400], 0.02, rho=optimal_mixture_rho(400, 0.02))
    q_low = np.maximum.accumulate(np.clip([30 / 200, 70 / 400] - radius, 0, 1))
    q_high = np.minimum.accumulate(np.clip([30 / 200, 70 / 400] + radius, 0, 1))
    mu_low, mu_high = betting_confidence_sequence((rectifiers + 1) / 2, 0.08)
    assert math.isnan(estimate[0]) and (low[0], high[0]) == (0.0, 1.0)
    np.testing.assert_allclose(estimate[1:], [30 / 200 + 0 / 4, 70 / 400 - 1 / 10], rtol=1e-12)
    np.testing.assert_allclose(
        low[1:], np.clip(q_low + 2 * mu_low[[3, 9]] - 1, 0, 1), rtol=0, atol=1e-15
    )
    np.testing.assert_allclose(
        high[1:], np.clip(q_high + 2 * mu_high[[3, 9]] - 1, 0, 1), rtol=0, atol=1e-15
    )
    # No audit at all: the rectifier's mean is only known to lie in [-1, 1].
    _, low_none, high_none = failure_rate_sequence([], [5], [10], [0], 0.1)
    assert (low_none[0], high_none[0]) == (0.0, 1.0)


# --------------------------------------------------------------------------- by simulation


def test_betting_band_covers_a_mean_at_every_time():
    rng = np.random.default_rng(np.random.SeedSequence(6))
    alpha, trials = 0.2, 400
    misses = 0
    for _ in range(trials):
        values = rng.binomial(2, 0.35, 400) / 2  # values in {0, 1/2, 1}, mean 0.35
        low, high = betting_confidence_sequence(values, alpha, grid_size=500)
        misses += bool(np.any((low > 0.35) | (high < 0.35)))
    share = misses / trials
    assert share <= alpha + 3 * math.sqrt(alpha * (1 - alpha) / trials)


def test_normal_mixture_boundary_is_crossed_at_most_alpha_of_the_time():
    rng = np.random.default_rng(np.random.SeedSequence(7))
    alpha, trials, steps, q = 0.2, 4000, 2000, 0.5  # q = 1/2: Bernoulli at its sub-Gaussian scale
    sums = np.cumsum(rng.random((trials, steps)) < q, axis=1)
    n = np.arange(1, steps + 1)
    radius = normal_mixture_radius(n, alpha)
    crossed = np.any(np.abs(sums / n - q) >= radius, axis=1).mean()
    assert crossed <= alpha + 3 * math.sqrt(alpha * (1 - alpha) / trials)
    assert crossed > 0.0  # the boundary is not vacuous at this alpha


def test_failure_rate_sequence_covers_at_every_look():
    result = sequence_coverage(0.2, 0.85, 0.9, 2000, 20, 50, 0.1, 400, 2024)
    # 3 SE of a share at the nominal 0.9 over 400 trials; measured about 0.985.
    assert result.anytime >= 0.9 - 3 * math.sqrt(0.9 * 0.1 / 400)
    assert result.final >= result.anytime  # covering at every look implies the last
    assert 0.0 < result.mean_half_width < 0.06


@pytest.mark.slow
def test_failure_rate_sequence_covers_at_every_look_many_trials():
    # 2000 trials at alpha 0.05 (about 10 s): the bound is 3 SE of the nominal share.
    result = sequence_coverage(0.2, 0.85, 0.9, 2000, 20, 50, 0.05, 2000, 99)
    assert result.anytime >= 0.95 - 3 * math.sqrt(0.95 * 0.05 / 2000)


# --------------------------------------------------------------------------- refusals


@pytest.mark.parametrize("alpha", [0, 1, -0.1, 1.5, float("nan"), "0.1"])
def test_alpha_outside_the_unit_interval_is_refused(alpha):
    for call in (
        lambda: betting_confidence_sequence([0.5], alpha),
        lambda: normal_mixture_radius(10, alpha),
        lambda: failure_rate_sequence([0.0], [1], [2], [1], alpha),
    ):
        with pytest.raises(ValueError, match=r"^alpha must lie strictly between 0 and 1 \(got"):
            call()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"production_rows": [10, 5]}, r"production_rows must be non-decreasing \(got 10 then 5"),
        ({"production_fails": [3, 2]}, r"production_fails must be non-decreasing \(got 3 then 2"),
        ({"audits_at_look": [2, 1]}, r"audits_at_look must be non-decreasing \(got 2 then 1"),
        ({"production_fails": [11, 12]}, r"production_fails exceeds production_rows \(got"),
        ({"rectifiers": [0.0, 2.0]}, r"rectifiers must lie in \[-1, 1\] \(got 2\.0\)"),
        ({"audits_at_look": [1, 1]}, r"audits_at_look must end at 2 rectifiers \(got 1\)"),
        ({"production_alpha_share": 1.0}, r"production_alpha_share must lie strictly"),
    ],
)
def test_bad_failure_rate_arguments_are_refused(kwargs, message):
    arguments = {
        "rectifiers": [0.0, -1.0],
        "production_fails": [3, 6],
        "production_rows": [10, 20],
        "audits_at_look": [1, 2],
        "alpha": 0.1,
    } | kwargs
    with pytest.raises(ValueError, match="^" + message) as caught:
        failure_rate_sequence(**arguments)
    assert "\n" not in str(caught.value)


def test_bad_betting_and_radius_arguments_are_refused():
    with pytest.raises(ValueError, match=r"^values must lie in \[0, 1\] \(got 1\.5\)"):
        betting_confidence_sequence([0.2, 1.5], 0.1)
    with pytest.raises(ValueError, match=r"^values must lie in \[0, 1\] \(got nan\)"):
        betting_confidence_sequence([0.2, float("nan")], 0.1)
    with pytest.raises(ValueError, match=r"^grid_size must be an integer >= 2 \(got 1\)"):
        betting_confidence_sequence([0.2], 0.1, grid_size=1)
    with pytest.raises(ValueError, match=r"^n must be finite and non-negative \(got -3\.0\)"):
        normal_mixture_radius(-3, 0.1)
    with pytest.raises(ValueError, match=r"^rho must be a finite positive number \(got 0\)"):
        normal_mixture_radius(3, 0.1, rho=0)
    with pytest.raises(ValueError, match=r"^sigma must be a finite positive number \(got -1\)"):
        optimal_mixture_rho(100, 0.1, sigma=-1)
    with pytest.raises(ValueError, match=r"^trials must be a positive integer \(got 0\)"):
        sequence_coverage(0.2, 0.85, 0.9, 100, 10, 5, 0.1, 0, 1)
    with pytest.raises(ValueError, match=r"^se must lie in \[0, 1\] \(got 1\.2\)"):
        sequence_coverage(0.2, 1.2, 0.9, 100, 10, 5, 0.1, 10, 1)
