"""``simcore card --check``: whether a judge's TPR or TNR moved on a new population.

A card's Se/Sp pair was measured on one population. Before it corrects a failure rate on
another, a small labelled sample of the new population is compared with the card, rate by
rate (TPR on human-FAIL rows, TNR on human-PASS rows):

* :func:`two_proportion_test` tests ``H0: p_card == p_new`` two-sided: the pooled
  two-proportion z test, or Fisher's exact test when an expected cell of the 2 x 2 table
  (card/new by hit/miss) is below 5;
* :func:`drop_power` states the power of that test against a drop of 0.15 (normal
  approximation for two proportions with the card's ``n`` and the new ``n``), and
  :func:`rows_needed` the new rows that would give 80% power;
* :func:`transport_check` gives the verdict: the card may be used (neither rate moved and
  both checks had the power), may not be used (a rate moved, p < alpha), or the check is
  underpowered (nothing moved, but a drop of 0.15 could have been missed).

Each rate is tested at ``alpha`` (0.05): under no shift each test raises a false alarm about
5% of the time, and the verdict (two tests) about ``1 - 0.95^2 = 9.75%`` of the time.
"""

import math
from statistics import NormalDist
from typing import NamedTuple

from scipy import stats

STANDARD_NORMAL = NormalDist()
"""Phi and its inverse (pure Python: the power search calls them many times)."""

DEFAULT_DROP = 0.15
"""The drop of TPR or TNR the check's power is stated for."""

DEFAULT_ALPHA = 0.05
"""Two-sided level of each rate's test."""

TARGET_POWER = 0.8
"""Power below which a check is called underpowered."""

FISHER_BELOW = 5.0
"""Fisher's exact test replaces the z test when an expected cell count is below this."""

MAX_ROWS = 10**6
"""Largest new-sample size :func:`rows_needed` searches."""


def two_proportion_test(hits_card, n_card, hits_new, n_new):
    """Return ``(p_value, method)`` of ``H0: p_card == p_new``, two-sided.

    Notes
    -----
    With ``p_hat = (x1 + x2) / (n1 + n2)`` the pooled z statistic is
    ``z = (x1/n1 - x2/n2) / sqrt(p_hat (1 - p_hat) (1/n1 + 1/n2))`` and
    ``p = 2 (1 - Phi(|z|))``. When an expected count ``n_i p_hat`` or ``n_i (1 - p_hat)`` is
    below :data:`FISHER_BELOW`, Fisher's exact test (:func:`scipy.stats.fisher_exact`,
    two-sided) is used instead. ``p = 1`` (method ``"none"``) when either sample is empty.
    """
    if n_card == 0 or n_new == 0:
        return 1.0, "none"
    pooled = (hits_card + hits_new) / (n_card + n_new)
    expected = min(n * share for n in (n_card, n_new) for share in (pooled, 1.0 - pooled))
    if expected < FISHER_BELOW:
        table = [[hits_card, n_card - hits_card], [hits_new, n_new - hits_new]]
        return float(stats.fisher_exact(table).pvalue), "Fisher exact"
    spread = math.sqrt(pooled * (1.0 - pooled) * (1.0 / n_card + 1.0 / n_new))
    z = (hits_card / n_card - hits_new / n_new) / spread
    return math.erfc(abs(z) / math.sqrt(2.0)), "two-proportion z"


def drop_power(rate_card, n_card, n_new, drop=DEFAULT_DROP, alpha=DEFAULT_ALPHA):
    """Return the power of the two-proportion z test to detect ``rate_card`` falling by ``drop``.

    Notes
    -----
    Normal approximation for two proportions (Fleiss, Levin and Paik 2003, §4.2): with
    ``p1 = rate_card``, ``p2 = max(p1 - drop, 0)``, ``d = p1 - p2``,
    ``p_bar = (n1 p1 + n2 p2) / (n1 + n2)``, ``s0 = sqrt(p_bar (1 - p_bar) (1/n1 + 1/n2))``
    (the spread under H0) and ``s1 = sqrt(p1 (1 - p1)/n1 + p2 (1 - p2)/n2)`` (under the
    drop), ``power = Phi((d - z s0) / s1) + Phi((-d - z s0) / s1)`` with
    ``z = Phi^-1(1 - alpha/2)``. 0 when either sample is empty or ``s1 == 0``.
    """
    if n_card <= 0 or n_new <= 0 or not math.isfinite(rate_card):
        return 0.0
    p1, p2 = rate_card, max(rate_card - drop, 0.0)
    spread_h1 = math.sqrt(p1 * (1 - p1) / n_card + p2 * (1 - p2) / n_new)
    if spread_h1 == 0.0:
        return 0.0
    pooled = (n_card * p1 + n_new * p2) / (n_card + n_new)
    spread_h0 = math.sqrt(pooled * (1 - pooled) * (1 / n_card + 1 / n_new))
    z = STANDARD_NORMAL.inv_cdf(1.0 - alpha / 2.0)
    d = p1 - p2
    return STANDARD_NORMAL.cdf((d - z * spread_h0) / spread_h1) + STANDARD_NORMAL.cdf(
        (-d - z * spread_h0) / spread_h1
    )


def rows_needed(rate_card, n_card, drop=DEFAULT_DROP, alpha=DEFAULT_ALPHA, power=TARGET_POWER):
    """Return the fewest new rows giving ``power`` by :func:`drop_power`, or None.

    None when even :data:`MAX_ROWS` new rows fall short (the card's own ``n_card`` is then
    too small for the check to reach ``power``). Power rises with the new rows, so the
    answer is found by doubling then bisection.
    """
    if drop_power(rate_card, n_card, MAX_ROWS, drop, alpha) < power:
        return None
    low, high = 0, 1
    while drop_power(rate_card, n_card, high, drop, alpha) < power:
        low, high = high, 2 * high
    while high - low > 1:
        middle = (low + high) // 2
        if drop_power(rate_card, n_card, middle, drop, alpha) < power:
            low = middle
        else:
            high = middle
    return min(high, MAX_ROWS)


class RateCheck(NamedTuple):
    """One rate of the card checked on the new sample.

    Attributes
    ----------
    name, rows : str
        ``"TPR"`` / ``"TNR"`` and the rows it is measured on (``"FAIL"`` / ``"PASS"``).
    hits_card, n_card, hits_new, n_new : int
        The rate's hits and rows on the card and on the new sample.
    p_value : float
        Of :func:`two_proportion_test`; ``method`` names the test.
    method : str
        ``"two-proportion z"``, ``"Fisher exact"`` or ``"none"``.
    power : float
        :func:`drop_power` for a drop of ``drop`` at ``alpha``.
    needed : int or None
        :func:`rows_needed` for 80% power.
    """

    name: str
    rows: str
    hits_card: int
    n_card: int
    hits_new: int
    n_new: int
    p_value: float
    method: str
    power: float
    needed: int | None


def check_rate(name, rows, card_counts, new_counts, drop=DEFAULT_DROP, alpha=DEFAULT_ALPHA):
    """Return the :class:`RateCheck` of one rate: ``card_counts``/``new_counts`` are (hits, n)."""
    (hits_card, n_card), (hits_new, n_new) = card_counts, new_counts
    rate_card = hits_card / n_card if n_card else math.nan
    p_value, method = two_proportion_test(hits_card, n_card, hits_new, n_new)
    return RateCheck(
        name,
        rows,
        hits_card,
        n_card,
        hits_new,
        n_new,
        p_value,
        method,
        drop_power(rate_card, n_card, n_new, drop, alpha),
        rows_needed(rate_card, n_card, drop, alpha) if n_card else None,
    )


class TransportVerdict(NamedTuple):
    """The verdict of a transport check: ``"usable"``, ``"moved"`` or ``"underpowered"``."""

    verdict: str
    checks: tuple
    lines: tuple


def _power_sentence(check, drop, alpha):
    """Return the power statement of one rate's check."""
    sentence = (
        f"with {check.n_new} new {check.rows} rows (card: {check.n_card}) this check detects a "
        f"{check.name} drop of {drop:g} at alpha {alpha:g} with {100 * check.power:.0f}% power"
    )
    if check.power >= TARGET_POWER:
        return sentence
    if check.needed is None:
        return sentence + (
            f"; {100 * TARGET_POWER:.0f}% is out of reach with the card's {check.n_card} "
            f"{check.rows} rows, however many new rows: re-measure the card on more rows"
        )
    return sentence + (
        f"; about {check.needed} new {check.rows} rows would give {100 * TARGET_POWER:.0f}%"
    )


def _rate_line(check, alpha):
    """Return one rate's comparison line: card vs new rate, the test and its p-value."""

    def rate(hits, n):
        return f"{hits / n:.3f} ({hits}/{n})" if n else f"undefined (0/{n})"

    moved = check.p_value < alpha
    return (
        f"{check.name}: card {rate(check.hits_card, check.n_card)}, new "
        f"{rate(check.hits_new, check.n_new)}; {check.method} p = {check.p_value:.4f}"
        + (" -> MOVED" if moved else "")
    )


def transport_check(card_counts, new_counts, drop=DEFAULT_DROP, alpha=DEFAULT_ALPHA):
    """Return the :class:`TransportVerdict` of a card's counts against a new sample's.

    Parameters
    ----------
    card_counts, new_counts : tuple of int
        ``(caught, missed, flagged, cleared)`` of the card and of the new sample (same
        judge, criterion and FAIL definition; unparseable answers counted as errors).
    drop : float, optional
        The drop of TPR and TNR the power is stated for.
    alpha : float, optional
        Two-sided level of each rate's test.

    Returns
    -------
    TransportVerdict
        ``"moved"`` when either rate's test rejects at ``alpha``; else ``"underpowered"``
        when either check's power for ``drop`` is below 80%; else ``"usable"``. ``lines``
        gives each rate's comparison and power statement, then the verdict.
    """
    caught, missed, flagged, cleared = card_counts
    new_caught, new_missed, new_flagged, new_cleared = new_counts
    checks = (
        check_rate(
            "TPR",
            "FAIL",
            (caught, caught + missed),
            (new_caught, new_caught + new_missed),
            drop,
            alpha,
        ),
        check_rate(
            "TNR",
            "PASS",
            (cleared, flagged + cleared),
            (new_cleared, new_flagged + new_cleared),
            drop,
            alpha,
        ),
    )
    lines = []
    for check in checks:
        lines += [_rate_line(check, alpha), "  " + _power_sentence(check, drop, alpha)]
    moved = [check.name for check in checks if check.p_value < alpha]
    weak = [check.name for check in checks if check.power < TARGET_POWER]
    if moved:
        verdict = "moved"
        text = f"the card may NOT be used on this population: {' and '.join(moved)} moved"
    elif weak:
        verdict = "underpowered"
        text = (
            f"check underpowered: nothing moved, but a {drop:g} drop of {' and '.join(weak)} "
            f"could have been missed (power < {100 * TARGET_POWER:.0f}%); label more rows"
        )
    else:
        verdict = "usable"
        text = (
            "the card may be used on this population: neither rate moved, and each check "
            f"had at least {100 * TARGET_POWER:.0f}% power for a {drop:g} drop"
        )
    return TransportVerdict(verdict, checks, tuple([*lines, f"verdict: {text}"]))
