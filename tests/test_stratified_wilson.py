"""Stratified PPI's MOVER-Wilson interval (``strat-wilson``): by hand, its refusals, and its
coverage where a stratum's FAILs are rare and the Wald interval falls short."""

import math

import numpy as np
import pytest

from simcore.calibration import JudgeProfile
from simcore.calibration.statistics import corrected_failure_rate, stratified_ppi

Z95 = 1.959963984540054


def wilson(successes, rows, z=Z95):
    """The Wilson score interval, from its textbook form."""
    p = successes / rows
    centre = (p + z * z / (2 * rows)) / (1 + z * z / rows)
    half = z / (1 + z * z / rows) * math.sqrt(p * (1 - p) / rows + z * z / (4 * rows * rows))
    return centre - half, centre + half


def test_the_wilson_interval_by_hand():
    # The case of test_ppi's by-hand check: q 0.3 (30 of 100), p1 = 6/10, p0 = 2/20.
    l1, u1 = wilson(6, 10)
    l0, u0 = wilson(2, 20)
    shares = Z95**2 * 0.5**2 * 0.3 * 0.7 / 100
    low = 0.25 - math.sqrt((0.3 * (0.6 - l1)) ** 2 + (0.7 * (0.1 - l0)) ** 2 + shares)
    high = 0.25 + math.sqrt((0.3 * (u1 - 0.6)) ** 2 + (0.7 * (u0 - 0.1)) ** 2 + shares)
    estimate, got_low, got_high = stratified_ppi(30, 100, 6, 2, 4, 18, interval="wilson")
    assert (estimate, got_low, got_high) == pytest.approx((0.25, low, high), abs=1e-12)
    wald = stratified_ppi(30, 100, 6, 2, 4, 18)
    assert wald[0] == estimate  # the same estimate; only the interval differs
    assert high - 0.25 > 0.25 - low  # asymmetric: p0 = 0.1 is near 0


def test_no_misses_still_gives_an_upper_limit_above_the_estimate():
    # p0 = 0 of 40: Wald's PASS stratum term is 0; Wilson's upper limit is 3.84 / 43.84.
    _, wald_low, wald_high = stratified_ppi(0, 100, 0, 0, 0, 40)
    assert (wald_low, wald_high) == (0.0, 0.0)
    estimate, low, high = stratified_ppi(0, 100, 0, 0, 0, 40, interval="wilson")
    assert (estimate, low) == (0.0, 0.0)
    assert high == pytest.approx(Z95**2 / (40 + Z95**2), abs=1e-12)


def test_the_method_refuses_as_strat_ppi_does():
    # Production has judge-FAIL rows but the calibration set none: PPV cannot be estimated.
    wald = corrected_failure_rate(10, 100, 0, 3, 0, 27, method="strat-ppi")
    mover = corrected_failure_rate(10, 100, 0, 3, 0, 27, method="strat-wilson")
    assert not bool(wald.corrected) and not bool(mover.corrected)
    assert mover.refusal == wald.refusal and "PPV" in mover.refusal
    with pytest.raises(ValueError, match="interval must be one of wald, wilson"):
        stratified_ppi(30, 100, 6, 2, 4, 18, interval="score")


def coverage(se, sp, theta, n_production, n1, n0, interval, trials, seed):
    rng = np.random.default_rng(seed)
    q, p1, p0 = JudgeProfile(se, sp, theta).strata
    fails = rng.binomial(n_production, q, trials)
    caught = rng.binomial(n1, p1, trials)
    missed = rng.binomial(n0, p0, trials)
    _, low, high = stratified_ppi(
        fails, n_production, caught, missed, n1 - caught, n0 - missed, interval=interval
    )
    return float(np.mean((low <= theta) & (theta <= high)))


@pytest.mark.parametrize(
    "judge", [(0.7, 0.95, 0.1, 19, 54), (0.8, 0.8, 0.15, 63, 63), (0.6, 0.9, 0.1, 40, 60)]
)
def test_the_wilson_interval_covers_where_the_wald_one_falls_short(judge):
    # Neyman-like splits with 1.5-3 expected misses in the judge-PASS stratum.
    se, sp, theta, n1, n0 = judge
    trials = 20_000
    floor = 0.95 - 3 * math.sqrt(0.95 * 0.05 / trials)
    wald = coverage(se, sp, theta, 100_000, n1, n0, "wald", trials, 7)
    mover = coverage(se, sp, theta, 100_000, n1, n0, "wilson", trials, 7)
    assert wald < floor < mover, (wald, mover)
