"""The one precision rule for printed rates (simcore.printed_rates)."""

import math

import pytest
from scipy import stats

from simcore.printed_rates import FEW_EVENTS, rate_interval, rate_text, share_text


def test_no_event_prints_the_one_sided_exact_bound():
    # 1 - 0.05^(1/2000) = 0.001497: the rule of three's 3/2000 = 0.0015
    assert rate_text(0, 2000, unit="%") == "< 0.15%"
    assert rate_text(0, 100, unit="%") == "< 3.0%"
    assert rate_text(2000, 2000, unit="%") == "> 99.85%"


def test_one_and_nine_events_print_the_clopper_pearson_interval():
    for events in (1, 9):
        low, high = rate_interval(events, 2000)
        exact = stats.binomtest(events, 2000).proportion_ci(0.95, method="exact")
        assert math.isclose(low, exact.low, rel_tol=1e-9)
        assert math.isclose(high, exact.high, rel_tol=1e-9)
    assert rate_text(1, 2000, unit="%") == "0.05% [0.00, 0.28]"
    assert rate_text(9, 2000, unit="%") == "0.45% [0.21, 0.85]"
    assert rate_text(1995, 2000, unit="%") == "99.75% [99.42, 99.92]"


def test_ten_events_and_more_print_the_standard_error():
    assert FEW_EVENTS == 10
    assert rate_text(10, 2000) == "0.5 ± 0.2"
    assert rate_text(660, 2000) == "33.0 ± 1.1"
    assert "± 0.0" not in rate_text(0, 2000) + rate_text(1, 2000)


def test_a_share_keeps_its_own_se_and_falls_back_to_the_interval():
    assert share_text(0.33, 0.014, 2000, unit="%") == "33.0% ± 1.4"
    assert share_text(0.0, 0.007, 100, unit="%") == "< 3.0%"
    assert share_text(float("nan"), 0.0, 100) == "n/a"
    assert rate_text(0, 0) == "n/a"


@pytest.mark.parametrize("events, trials", [(-1, 10), (11, 10), (0, -1)])
def test_impossible_counts_are_refused(events, trials):
    with pytest.raises(ValueError, match="events <= trials"):
        rate_text(events, trials)
