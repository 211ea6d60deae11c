"""One rule for every printed rate: the precision its counts carry, never ``± 0.0``.

A rate estimated from ``events`` of ``trials`` binomial draws prints as ``r ± se`` (the
binomial standard error ``sqrt(r (1 - r) / trials)``) only when both the events and the
non-events number at least :data:`FEW_EVENTS`; the normal approximation behind ``± se`` is
then fair. With fewer, the SE says too little (``0.0 ± 0.0`` for none of 2,000) and the
rate prints with its exact (Clopper-Pearson) 95% interval instead:

- no event: the exact one-sided 95% upper bound, ``< u`` with ``u = 1 - alpha^(1/trials)``
  (about ``3 / trials``, the rule of three);
- every trial an event: ``> l`` with ``l = alpha^(1/trials)``;
- otherwise ``r [l, u]``, ``l = B(alpha/2; x, n - x + 1)``, ``u = B(1 - alpha/2; x + 1,
  n - x)``, ``B`` the beta quantile.

Digits follow the interval: enough decimals that the interval's width shows two significant
figures (at least ``digits``), so ``0.05% [0.00, 0.28]`` rather than ``0.1 [0.0, 0.3]``.
Printing only: the numbers in ``--json`` stay full precision, and carry the interval where a
command adds it (:func:`rate_interval`).
"""

import math

FEW_EVENTS = 10
"""Below this many events (or non-events) a rate prints with its exact 95% interval."""

LEVEL = 0.95
"""The exact interval's two-sided level."""


def rate_interval(events, trials, level=LEVEL):
    """Return the Clopper-Pearson interval ``(low, high)`` of ``events`` of ``trials``.

    ``low = B(alpha/2; x, n - x + 1)`` (0 when ``x = 0``), ``high = B(1 - alpha/2; x + 1,
    n - x)`` (1 when ``x = n``), ``alpha = 1 - level``, ``B`` the beta quantile.

    Parameters
    ----------
    events, trials : int
        The count and the number of draws (``0 <= events <= trials``, ``trials >= 1``).
    level : float
        Two-sided confidence.

    Returns
    -------
    tuple of float
    """
    from scipy import stats

    events, trials = _checked(events, trials)
    alpha = 1 - level
    low, high = 0.0, 1.0
    if events > 0:
        low = float(stats.beta.ppf(alpha / 2, events, trials - events + 1))
    if events < trials:
        high = float(stats.beta.ppf(1 - alpha / 2, events + 1, trials - events))
    return low, high


def rate_text(events, trials, percent=True, digits=1, unit=""):
    """Return a rate of ``events`` in ``trials`` as text, with the precision its counts carry.

    Parameters
    ----------
    events, trials : int
        The count and the number of draws; ``trials = 0`` gives ``n/a``.
    percent : bool
        Print in percent (the number times 100).
    digits : int
        The fewest decimals of ``r ± se`` (more where the SE's first significant figure
        needs them: ``0.010 ± 0.003`` for 10 of 100,000 in percent, never ``± 0.0``), and
        the fewest decimals of an interval.
    unit : str
        Appended to the rate, e.g. ``"%"`` (not to the interval's limits).

    Returns
    -------
    str
        ``r ± se`` with at least :data:`FEW_EVENTS` events and non-events; otherwise ``< u``
        (no event), ``> l`` (every draw an event) or ``r [l, u]`` (the exact 95% interval).

    Examples
    --------
    >>> rate_text(0, 2000, unit="%")
    '< 0.15%'
    >>> rate_text(1, 2000, unit="%")
    '0.05% [0.00, 0.28]'
    >>> rate_text(660, 2000)
    '33.0 ± 1.1'
    """
    if trials == 0:
        return "n/a"
    events, trials = _checked(events, trials)
    scale = 100.0 if percent else 1.0
    rate = events / trials
    if min(events, trials - events) >= FEW_EVENTS:
        se = math.sqrt(rate * (1 - rate) / trials)
        places = max(digits, _places(scale * se) - 1)  # the SE's first figure shows
        return f"{scale * rate:.{places}f}{unit} ± {scale * se:.{places}f}"
    if events in (0, trials):  # one-sided: 1 - alpha^(1/n) from the nearer end
        bound = 1 - (1 - LEVEL) ** (1 / trials)
        places = max(digits, _places(scale * bound))
        if events == 0:
            return f"< {scale * bound:.{places}f}{unit}"
        return f"> {scale * (1 - bound):.{places}f}{unit}"
    low, high = rate_interval(events, trials)
    places = max(digits, _places(scale * (high - low)))
    return f"{scale * rate:.{places}f}{unit} [{scale * low:.{places}f}, {scale * high:.{places}f}]"


def share_text(rate, se, trials, percent=True, digits=1, unit=""):
    """Return :func:`rate_text` of a rate known as a share of ``trials`` draws.

    ``events = round(rate * trials)``; ``se`` is printed where :func:`rate_text` prints one
    (the caller's SE, e.g. a posterior-predictive one, rather than the binomial formula).
    NaN gives ``n/a``.
    """
    if trials is None or trials <= 0 or rate is None or math.isnan(rate):
        return "n/a"
    events = int(round(rate * trials))
    if min(events, trials - events) >= FEW_EVENTS:
        scale = 100.0 if percent else 1.0
        places = max(digits, _places(scale * se) - 1)  # the SE's first figure shows
        return f"{scale * rate:.{places}f}{unit} ± {scale * se:.{places}f}"
    return rate_text(events, trials, percent=percent, digits=digits, unit=unit)


def _places(width):
    """Decimals that show ``width`` with two significant figures (0 for width >= 10)."""
    if width <= 0 or not math.isfinite(width):
        return 0
    return max(0, 1 - math.floor(math.log10(width)))


def _checked(events, trials):
    """Return ``(events, trials)`` as ints, refusing counts outside ``0 <= x <= n``."""
    events, trials = int(events), int(trials)
    if trials < 1 or not 0 <= events <= trials:
        raise ValueError(f"a rate needs 0 <= events <= trials >= 1 (got {events} of {trials})")
    return events, trials
