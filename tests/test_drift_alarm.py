"""The drift alarm of a judge's TPR and TNR: the mixture e-process and the card's interval by
hand, the false-alarm bound and a planted TPR drop by simulation, and the refusals."""

import math

import numpy as np
import pytest
from scipy.stats import beta

from simcore.calibration.drift_alarm import (
    alarm_simulation,
    card_null_interval,
    drift_alarm,
    mixture_e_process,
)


def log_beta(a, b):
    return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)


# --------------------------------------------------------------------------- by hand


def test_e_process_on_a_tiny_case_is_the_formula():
    # s = 3 of n = 5, null [0.2, 0.4]: the null likelihood peaks at clip(0.6) = 0.4.
    got = mixture_e_process([0, 1, 3], [0, 2, 5], 0.2, 0.4)
    mixture = log_beta(0.5 + 3, 0.5 + 2) - log_beta(0.5, 0.5)
    expected_last = mixture - (3 * math.log(0.4) + 2 * math.log(0.6))
    # s = 1 of n = 2: s / n = 0.5 is clipped to 0.4 as well.
    expected_middle = log_beta(1.5, 1.5) - log_beta(0.5, 0.5) - math.log(0.4) - math.log(0.6)
    np.testing.assert_allclose(got, [0.0, expected_middle, expected_last], rtol=1e-12)
    # Inside the null the maximiser is s / n itself: 1 of 4 with null [0.1, 0.5].
    inside = mixture_e_process([1], [4], 0.1, 0.5, prior=(2.0, 3.0))[0]
    direct = log_beta(3, 6) - log_beta(2, 3) - math.log(0.25) - 3 * math.log(0.75)
    assert inside == pytest.approx(direct, rel=1e-12)


def test_point_null_gives_the_plain_mixture_likelihood_ratio():
    # The beta-binomial mixture, as the product of sequential predictive probabilities.
    outcomes = [1, 1, 0, 1, 0, 0, 0, 1, 1, 1]
    a, b, p0 = 0.5, 0.5, 0.3
    ratio, successes = 1.0, 0
    expected = []
    for i, y in enumerate(outcomes):
        predictive = (a + successes) / (a + b + i)
        ratio *= (predictive if y else 1 - predictive) / (p0 if y else 1 - p0)
        successes += y
        expected.append(math.log(ratio))
    got = mixture_e_process(np.cumsum(outcomes), np.arange(1, 11), p0, p0)
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_the_null_supremum_is_attained_at_the_clipped_rate():
    s, n = np.array([0, 4, 5, 23]), np.array([3, 10, 12, 30])  # rates 0, 0.4, 0.42, 0.77
    low, high = 0.35, 0.7
    grid = np.linspace(low, high, 20001)[:, None]
    log_null = s * np.log(grid) + (n - s) * np.log1p(-grid)
    mixture = np.array(
        [log_beta(0.5 + k, 0.5 + m - k) - log_beta(0.5, 0.5) for k, m in zip(s, n, strict=True)]
    )
    brute_force = mixture - log_null.max(axis=0)
    got = mixture_e_process(s, n, low, high)
    np.testing.assert_allclose(got, brute_force, rtol=0, atol=1e-6)
    assert np.all(got <= brute_force + 1e-12)


def test_card_interval_is_clopper_pearson_with_closed_form_edges():
    # s = 0 and s = n have closed forms: 1 - (alpha/2)^(1/n) and (alpha/2)^(1/n).
    assert card_null_interval(0, 10, 0.05) == pytest.approx((0.0, 1 - 0.025**0.1), rel=1e-12)
    assert card_null_interval(10, 10, 0.05) == pytest.approx((0.025**0.1, 1.0), rel=1e-12)
    low, high = card_null_interval(68, 80, 0.0125)
    assert low == pytest.approx(beta.ppf(0.00625, 68, 13), rel=1e-12)
    assert high == pytest.approx(beta.ppf(1 - 0.00625, 69, 12), rel=1e-12)
    assert card_null_interval(0, 0, 0.05) == (0.0, 1.0)


def test_drift_alarm_splits_alpha_in_four_and_latches():
    alpha = 0.08  # threshold log(4 / 0.08) = log 50
    tp, fail = [0, 2, 4, 6, 8], [0, 10, 20, 30, 40]  # TPR 0.2 against a card of 90 of 100
    tn, passes = [5, 10, 15, 20, 25], [5, 10, 15, 20, 25]  # TNR 1 against a card of 180 of 200
    result = drift_alarm(90, 100, 180, 200, tp, fail, tn, passes, alpha)
    assert result.tpr_null == card_null_interval(90, 100, 0.02)
    assert result.tnr_null == card_null_interval(180, 200, 0.02)
    np.testing.assert_array_equal(result.tpr_log_e, mixture_e_process(tp, fail, *result.tpr_null))
    crossed = result.tpr_log_e >= math.log(50)
    assert result.tpr_first_alarm == int(np.argmax(crossed)) and crossed.any()
    np.testing.assert_array_equal(result.tpr_alarm, np.arange(5) >= result.tpr_first_alarm)
    np.testing.assert_array_equal(
        result.tnr_alarm, np.logical_or.accumulate(result.tnr_log_e >= math.log(50))
    )
    # An e-value that falls back under the threshold keeps the alarm on.
    tp_back, fail_back = [0, 0, 0, 200], [0, 10, 10, 230]  # 0 of 10, then 200 of 220
    latched = drift_alarm(90, 100, 180, 200, tp_back, fail_back, tn[:4], passes[:4], alpha)
    assert latched.tpr_log_e[1] >= math.log(50) > latched.tpr_log_e[3]
    assert latched.tpr_alarm.tolist() == [False, True, True, True]
    assert latched.tpr_first_alarm == 1 and latched.tnr_first_alarm == -1


# --------------------------------------------------------------------------- by simulation


def test_ville_bound_for_the_e_process_under_a_point_null():
    rng = np.random.default_rng(np.random.SeedSequence(21))
    level, trials, steps, p0 = 0.2, 2000, 500, 0.8
    hits = 0
    for _ in range(trials):
        outcomes = rng.random(steps) < p0
        log_e = mixture_e_process(np.cumsum(outcomes), np.arange(1, steps + 1), p0, p0)
        hits += bool(log_e.max() >= math.log(1 / level))
    share = hits / trials
    assert share <= level + 3 * math.sqrt(level * (1 - level) / trials)
    assert share > 0.02  # not vacuous: the e-process does reach 1/level sometimes


def test_no_drift_false_alarms_stay_under_alpha_over_the_horizon():
    alpha, trials = 0.05, 2000
    result = alarm_simulation(0.85, 0.9, 0.2, 400, 20, 30, alpha, trials, seed=31)
    assert result.alarm_share <= alpha + 3 * math.sqrt(alpha * (1 - alpha) / trials)
    assert result.detection_share == result.alarm_share  # drop_at = 0: every alarm counts


def test_a_planted_tpr_drop_is_detected_in_most_trials():
    # TPR 0.85 -> 0.70 from look 10 of 60, 30 audits a look, a card of 1000 rows at theta 0.5
    # (about 500 human-FAIL rows). Measured with 400 trials: detected in 0.855, median
    # delay 25 looks. With a card of 400 rows at theta 0.2 (80 FAIL rows) it is 0.05: the
    # card's interval, not the audits, limits the power there.
    trials = 400
    result = alarm_simulation(
        0.85, 0.9, 0.5, 1000, 30, 60, 0.05, trials, seed=11, drop=0.15, drop_at=10
    )
    assert result.detection_share >= 0.855 - 3 * math.sqrt(0.855 * 0.145 / trials)
    assert 0 < result.median_delay < 50
    no_drop = alarm_simulation(0.85, 0.9, 0.5, 1000, 30, 60, 0.05, 200, seed=11)
    assert no_drop.alarm_share <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / 200)


# --------------------------------------------------------------------------- refusals


@pytest.mark.parametrize("alpha", [0, 1, -0.5, 2.0, float("nan"), None])
def test_alpha_outside_the_unit_interval_is_refused(alpha):
    with pytest.raises(ValueError, match=r"^alpha must lie strictly between 0 and 1 \(got"):
        card_null_interval(3, 10, alpha)
    with pytest.raises(ValueError, match=r"^alpha must lie strictly between 0 and 1 \(got"):
        drift_alarm(8, 10, 9, 10, [1], [1], [1], [1], alpha)


@pytest.mark.parametrize(
    ("successes", "trials", "message"),
    [
        ([1, 0], [2, 2], r"^successes must be non-decreasing \(got \[1\. 0\.\]\)"),
        ([0, 1], [3, 2], r"^trials must be non-decreasing \(got \[3\. 2\.\]\)"),
        ([3], [2], r"^successes exceeds trials \(got 3\.0 > 2\.0\)"),
        ([0, 3], [2, 3], r"^successes grows faster than trials"),
        ([-1], [2], r"^successes must be finite and non-negative \(got -1\.0\)"),
        ([1, 2], [2], r"^successes and trials must have one length \(got 2, 1\)"),
    ],
)
def test_inconsistent_counts_are_refused(successes, trials, message):
    with pytest.raises(ValueError, match=message) as caught:
        mixture_e_process(successes, trials, 0.2, 0.4)
    assert "\n" not in str(caught.value)


def test_other_bad_arguments_are_refused():
    with pytest.raises(ValueError, match=r"^null_low, null_high must satisfy 0 <= low <= high"):
        mixture_e_process([1], [2], 0.6, 0.4)
    with pytest.raises(ValueError, match=r"^prior must be two positive numbers \(got \(0, 1\)\)"):
        mixture_e_process([1], [2], 0.2, 0.4, prior=(0, 1))
    with pytest.raises(ValueError, match=r"^successes exceeds trials \(got 11\.0 > 10\.0\)"):
        card_null_interval(11, 10, 0.05)
    with pytest.raises(ValueError, match=r"^drop must lie in \[0, se = 0\.85\] \(got 0\.9\)"):
        alarm_simulation(0.85, 0.9, 0.2, 100, 10, 5, 0.05, 10, 1, drop=0.9)
    with pytest.raises(ValueError, match=r"^drop_at must be an integer in \[0, looks\) \(got 5\)"):
        alarm_simulation(0.85, 0.9, 0.2, 100, 10, 5, 0.05, 10, 1, drop=0.1, drop_at=5)
    with pytest.raises(ValueError, match=r"^n_card must be a positive integer \(got 0\)"):
        alarm_simulation(0.85, 0.9, 0.2, 0, 10, 5, 0.05, 10, 1)
