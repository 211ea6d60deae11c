"""The anytime-valid verdict: its terms, its capital, and its error under optional stopping."""

import math

import numpy as np
import pytest

from simcore.calibration import hedged_log_capital
from simcore.calibration.confidence_sequence import betting_log_capital
from simcore.sequential import (
    OPEN,
    SETTLED_ACCEPT,
    SETTLED_REJECT,
    SequentialSettings,
    SyntheticPanel,
    comparison_sequence,
    item_order,
    item_terms,
    judge_verdict,
    optional_stopping,
    population_margin,
)


def test_hedged_capital_equals_the_grid_capital_and_skips_gaps():
    rng = np.random.default_rng(3)
    x = rng.random(60)
    up, down = hedged_log_capital(x, 0.05, 0.45)
    grid_up, grid_down = betting_log_capital(x, 0.05, [0.45])
    # the same sums in another order: equal to the last bits only on some numpy builds
    assert np.allclose(up, grid_up[:, 0], rtol=0, atol=1e-13)
    assert np.allclose(down, grid_down[:, 0], rtol=0, atol=1e-13)
    present = rng.random(60) < 0.5
    up, down = hedged_log_capital(np.where(present, x, np.nan), 0.05, 0.45, present)
    grid_up, grid_down = betting_log_capital(x[present], 0.05, [0.45])
    assert np.allclose(up[present], grid_up[:, 0], rtol=0, atol=1e-13)
    assert np.allclose(down[present], grid_down[:, 0], rtol=0, atol=1e-13)


def test_hedged_capital_by_hand():
    # x = (1, 1), m = 0.4, alpha = 0.1: lambda_1 = sqrt(2 log 20 / (1/4 * 1 * log 2)),
    # capped at c / m = 1.25; mean_hat_1 = 1.5 / 2, sigma2_1 = (1/4 + 1/16) / 2.
    up, down = hedged_log_capital([1.0, 1.0], 0.1, 0.4)
    bet_1 = min(math.sqrt(2 * math.log(20) / (0.25 * math.log(2))), 1.25)
    sigma2_1 = (0.25 + (1 - 0.75) ** 2) / 2
    bet_2 = min(math.sqrt(2 * math.log(20) / (sigma2_1 * 2 * math.log(3))), 1.25)
    assert up[0] == pytest.approx(math.log(1 + bet_1 * 0.6), abs=1e-12)
    assert up[1] == pytest.approx(math.log(1 + bet_1 * 0.6) + math.log(1 + bet_2 * 0.6), abs=1e-12)
    cap_down = 0.5 / 0.6
    assert down[0] == pytest.approx(math.log(1 - min(bet_1, cap_down) * 0.6), abs=1e-12)


def test_hedged_capital_refuses_bad_input():
    with pytest.raises(ValueError, match="mean"):
        hedged_log_capital([0.5], 0.05, 1.0)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        hedged_log_capital([1.5], 0.05, 0.5)
    with pytest.raises(ValueError, match="shape"):
        hedged_log_capital([0.5, 0.5], 0.05, 0.5, [True])


HUMANS = np.array([[0, 0, 1], [1, 1, -1], [0, -1, -1], [1, 0, 0]])
JUDGE = np.array([0, 0, 1, 0])


def test_leave_one_out_terms_by_hand():
    # Held out human 0, eps 0.1, K - 1 = 2: item 0: others (0, 1), judge 0 agrees with one,
    # human 0 with one: D = 0, c = 2, v = 0.2 / 2; item 1: other (1), judge 0 disagrees,
    # human 1 agrees: D = -1, c = 1, v = (-1 + 0.1) / 2; item 2 has no other human;
    # item 3: others (0, 0), judge agrees with both, human with none: D = 2, v = 2.2 / 2.
    x = item_terms(HUMANS, JUDGE, 0, 0.1, "point")
    v = np.array([0.1, -0.45, np.nan, 1.1])
    assert np.allclose(x, (v + 0.9) / 2, equal_nan=True)


def test_alt_test_terms_by_hand():
    # Held out human 2: items 0 (others 0, 0: judge agrees with both, human 2 with none:
    # the judge wins, x = 1) and 3 (others 1, 0: each agrees with one: a tie, x = 1/2).
    x = item_terms(HUMANS, JUDGE, 2, 0.1, "alt_test")
    assert np.allclose(x, [1.0, np.nan, np.nan, 0.5], equal_nan=True)


def test_terms_are_frozen_at_the_look_an_item_entered():
    first = HUMANS.copy()
    second = HUMANS.copy()
    second[2, 1] = 1  # item 2 enters comparison 0 at look 2
    second[0, 2] = 0  # a label added to item 0, which entered at look 1: not read by it
    snapshots = np.stack([first, second])
    ranks = item_order(["a", "b", "c", "d"])
    values, looks, items = comparison_sequence(snapshots, JUDGE, 0, 0.1, "point", ranks)
    assert set(items[looks == 0]) == {0, 1, 3} and list(items[looks == 1]) == [2]
    at_first = item_terms(first, JUDGE, 0, 0.1, "point")
    assert values[list(items).index(0)] == at_first[0]
    assert values[list(items).index(2)] == item_terms(second, JUDGE, 0, 0.1, "point")[2]
    order_in_look = ranks[items[looks == 0]]
    assert list(order_in_look) == sorted(order_in_look)


def test_item_order_is_a_hash_order_independent_of_position():
    ranks = item_order(["x", "y", "z"])
    again = item_order(["z", "x", "y"])
    assert [ranks[0], ranks[1], ranks[2]] == [again[1], again[2], again[0]]


def _sequence(values):
    values = np.asarray(values, dtype=float)
    return values, np.zeros(values.size, dtype=int)


def test_verdict_counts_settled_comparisons():
    settings = SequentialSettings(epsilon=0.0, alpha=0.05)
    strong, weak, none = _sequence([1.0] * 40), _sequence([0.0] * 40), _sequence([])
    assert judge_verdict([strong, strong, weak], settings)["verdict"] == SETTLED_ACCEPT
    assert judge_verdict([weak, weak, strong], settings)["verdict"] == SETTLED_REJECT
    result = judge_verdict([strong, none, weak, none], settings)
    assert result["verdict"] == OPEN and result["needed"] == 2 and result["open"] == 2
    rows = result["comparisons"]
    assert rows[0]["status"] == "for" and rows[2]["status"] == "against"
    assert rows[0]["low"] > 0 and rows[2]["high"] < 0


def test_a_comparison_settles_when_its_capital_reaches_k_over_alpha():
    settings = SequentialSettings(epsilon=0.0, alpha=0.05)
    values = np.ones(30)
    result = judge_verdict([_sequence(values)] * 3, settings, with_intervals=False)
    log_up, _ = hedged_log_capital(values, 2 * 0.05 / 3, 0.5)
    first = int(np.flatnonzero(log_up >= math.log(3 / 0.05))[0])
    assert result["comparisons"][0]["settled_after_items"] == first + 1


def test_sequential_alt_test_e_values_by_hand():
    # Two humans, eps 0.2, alpha 0.05: the e-value is K+ at m0 = 0.4 after the items,
    # bets tuned at alpha (the module docstring); e-BH at K = 2: reject e >= 2 / (k q).
    settings = SequentialSettings(rule="alt_test", epsilon=0.2, alpha=0.05)
    wins, ties = _sequence([1.0] * 12), _sequence([0.5] * 12)
    result = judge_verdict([wins, ties], settings)
    bets, product, total = [], 1.0, 0.0
    mean_hat, squares = [], 0.0
    for t in range(1, 13):
        previous = (0.25 + squares) / t
        bet = min(math.sqrt(2 * math.log(2 / 0.05) / (previous * t * math.log(1 + t))), 0.5 / 0.4)
        bets.append(bet)
        product *= 1 + bet * (1.0 - 0.4)
        total += 1.0
        mean_hat.append((0.5 + total) / (t + 1))
        squares += (1.0 - mean_hat[-1]) ** 2
    first, second = result["comparisons"]
    assert first["e_value"] == pytest.approx(product, rel=1e-10)
    assert first["won"] is (product >= 2 / (1 * 0.05))
    assert second["won"] is False
    assert result["winning_rate"][0] == first["won"] / 2


SE_FACTOR = 3.0
"""Margins in Monte Carlo SEs of the optional-stopping checks."""


@pytest.mark.parametrize(
    ("n_humans", "coverage", "human_accuracy", "judge_accuracy", "n_labels"),
    [
        (3, 1.0, 0.85, 0.76, 2),  # dense, d = -0.063
        (5, 0.5, 0.85, 0.76, 2),  # sparse bernoulli, d = -0.063
        (4, 0.7, 0.8, 0.7, 3),  # three labels, d = -0.075
    ],
)
def test_optional_stopping_keeps_a_wrong_accept_below_alpha(
    n_humans, coverage, human_accuracy, judge_accuracy, n_labels
):
    settings = SequentialSettings(epsilon=0.05, alpha=0.05)
    panel = SyntheticPanel(n_humans, human_accuracy, judge_accuracy, coverage, n_labels, 20, 30)
    assert population_margin(panel) < -settings.epsilon  # the dense verdict is reject
    rates = optional_stopping(panel, settings, 1500, seed=49)
    se_alpha = math.sqrt(settings.alpha * (1 - settings.alpha) / rates.trials)
    # Stopping at the first settled accept errs at most alpha of the time ...
    assert rates.sequential_accept <= settings.alpha + SE_FACTOR * se_alpha
    # ... while reading the fixed-size rule after every look errs far more often.
    assert rates.fixed_accept > settings.alpha + SE_FACTOR * se_alpha


def test_a_clearly_better_judge_settles_accept_within_the_budget():
    settings = SequentialSettings(epsilon=0.05, alpha=0.05)
    panel = SyntheticPanel(3, 0.85, 0.95, 1.0, 2, 25, 12)  # 300 items, d = +0.07
    rates = optional_stopping(panel, settings, 1000, seed=7)
    stated = 0.9
    assert rates.sequential_accept >= stated - SE_FACTOR * rates.se(stated)
    assert rates.sequential_reject == 0.0
    assert np.median(rates.labels_to_settle) <= 3 * 300


def test_settings_refuse_bad_values():
    with pytest.raises(ValueError, match="alpha"):
        SequentialSettings(alpha=0.6)
    with pytest.raises(ValueError, match="rule"):
        SequentialSettings(rule="loo")
    with pytest.raises(ValueError, match="epsilon"):
        SequentialSettings(epsilon=1.0)
