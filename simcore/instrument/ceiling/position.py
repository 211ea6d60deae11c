"""Where a judge lies against the symmetric ceiling's interval, and how to read it.

A judge is placed *below*, *within* or *above* the bootstrap interval of the symmetric
ceiling ``c_k`` (:func:`judge_position`), never "at" a point value. When the interval is
wider than :data:`~simcore.instrument.ceiling.evidence.WIDE_INTERVAL` the data are thin: a
judge inside it is read as "the data cannot place it", and several judges inside it as
judges the data cannot separate from the ceiling (:func:`position_reading`,
:func:`separation_note`).
"""

import math

import numpy as np

from simcore.instrument.ceiling.evidence import WIDE_INTERVAL

NEAR_ZERO_CEILING = 0.1
"""A symmetric ceiling below this is near zero: the humans barely agree at all."""

POSITIONS = ("below", "within", "above")
"""Where a judge's score lies against the symmetric ceiling's bootstrap interval."""


def interval_width(ceilings):
    """Return the width ``high - low`` of the symmetric ceiling's interval (NaN without one)."""
    return float(ceilings.symmetric.high - ceilings.symmetric.low)


def is_wide(ceilings):
    """Return whether the symmetric ceiling's interval is missing or wider than WIDE_INTERVAL.

    Parameters
    ----------
    ceilings : simcore.instrument.ceiling.human_ceilings.Ceilings
        From :func:`~simcore.instrument.ceiling.human_ceilings`.

    Returns
    -------
    bool
        ``high - low > WIDE_INTERVAL``; False when there is no interval (``n_boot = 0``).
    """
    width = interval_width(ceilings)
    return bool(math.isfinite(width) and width > WIDE_INTERVAL)


def judge_position(judge_score, ceilings):
    """Return where ``judge_score`` lies against the symmetric ceiling: below, within, above.

    Parameters
    ----------
    judge_score : float
        The judge's agreement with the ``k``-rater consensus (same statistic as the humans).
    ceilings : Ceilings
        From :func:`~simcore.instrument.ceiling.human_ceilings`.

    Returns
    -------
    str
        ``"within"`` for ``low <= score <= high`` of the bootstrap interval (``low = high =
        value`` without an interval), ``"below"`` under it, ``"above"`` over it.

    Raises
    ------
    ValueError
        A non-finite score, or an undefined symmetric ceiling.
    """
    score = float(judge_score)
    if not np.isfinite(score):
        raise ValueError(f"judge_score must be finite (got {judge_score!r})")
    ceiling = ceilings.symmetric
    if not np.isfinite(ceiling.value):
        raise ValueError("the symmetric ceiling is undefined (no rater pair could be scored)")
    low, high = (ceiling.low, ceiling.high) if np.isfinite(ceiling.low) else (ceiling.value,) * 2
    if score < low:
        return "below"
    return "above" if score > high else "within"


def _ceiling_text(ceilings):
    """Return ``c_3 = 0.393 [0.325, 0.458]`` (no interval without one)."""
    c = ceilings.symmetric
    interval = f" [{c.low:.3f}, {c.high:.3f}]" if math.isfinite(c.low) else ""
    return f"c_{ceilings.k:.3g} = {c.value:.3f}{interval}"


def position_reading(judge_score, ceilings):
    """Return one sentence that reads ``judge_score`` against the ceiling's interval.

    Above a near-zero symmetric ceiling (below :data:`NEAR_ZERO_CEILING`) the humans barely
    agree with each other, so a judge that tracks their mean is agreeing with a shared bias
    of the aggregate (what the raters' errors have in common), not showing accuracy. Within
    an interval wider than ``WIDE_INTERVAL`` the data cannot place the judge: the reading
    says so instead of calling the judge as good as a human.
    """
    position = judge_position(judge_score, ceilings)
    ceiling = _ceiling_text(ceilings)
    if position == "above" and ceilings.symmetric.value < NEAR_ZERO_CEILING:
        return (
            f"above a near-zero ceiling ({ceiling}): the humans barely agree, so this is "
            "agreement with a shared bias of the aggregate, not accuracy"
        )
    if position == "above":
        return (
            f"above the ceiling's interval ({ceiling}): closer to the consensus than an "
            "independent human; look for a bias shared with the raters before calling it "
            "better than human"
        )
    if position == "within" and is_wide(ceilings):
        return (
            f"within a wide interval ({ceiling}, width {interval_width(ceilings):.3f} > "
            f"{WIDE_INTERVAL:g}): the data are too thin to place this judge against the "
            "ceiling (below, as good as or above one more human)"
        )
    if position == "within":
        return (
            f"within the ceiling's interval ({ceiling}): the data cannot tell it from one "
            "more independent human"
        )
    return f"below the ceiling's interval ({ceiling}): an independent human would agree more"


def separation_note(judges, ceilings):
    """Return a sentence when several judges lie within a wide interval, else ``None``.

    Parameters
    ----------
    judges : sequence
        Items with ``judge`` (name) and ``position`` attributes.
    ceilings : Ceilings
        The group's ceilings.

    Returns
    -------
    str or None
        ``"judges A, B lie within the ceiling's interval [low, high], wider than 0.2: the
        data cannot separate them from the ceiling, nor say which of them is nearer to it"``
        when at least two judges are within a wide interval.
    """
    inside = [judge.judge for judge in judges if judge.position == "within"]
    if len(inside) < 2 or not is_wide(ceilings):
        return None
    c = ceilings.symmetric
    return (
        f"judges {', '.join(inside)} lie within the ceiling's interval [{c.low:.3f}, "
        f"{c.high:.3f}], wider than {WIDE_INTERVAL:g}: the data cannot separate them from the "
        "ceiling, nor say which of them is nearer to it"
    )
