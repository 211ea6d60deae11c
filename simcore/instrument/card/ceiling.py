"""The human ceiling a judge card reports: how well the population's humans agree.

A judge's TPR and TNR mean more beside the agreement of the humans who set the truth. A card
carries the symmetric ceiling ``c_k(r̂)`` and the single-rater reliability ``r̂`` of the
humans on the criterion's own labels (:func:`simcore.instrument.ceiling.human_ceilings`):
graded (Spearman's rho) when every label the humans use is a number, categorical (Cohen's
kappa) otherwise, each with an item-bootstrap interval. The ceiling is null, with a reason,
when fewer than two humans co-label enough items for ``r̂``.
"""

import math

from simcore.instrument.ceiling.human_ceilings import human_ceilings
from simcore.realdata.label_scale import label_scale

CEILING_BOOT = 200
"""Bootstrap replicates behind a card's ceiling intervals (seeded: cards are reproducible)."""

CEILING_SEED = 2026
"""Root seed of a card's ceiling bootstrap."""


def _finite_or_none(value):
    return float(value) if math.isfinite(value) else None


def population_ceiling(matrix, n_boot=CEILING_BOOT, seed=CEILING_SEED):
    """Return the card's ``human_ceiling`` mapping for the humans of ``matrix``.

    Parameters
    ----------
    matrix : simcore.realdata.annotation.AnnotationMatrix
        The criterion's items; its ``human_labels`` are the labels the ceiling reads.
    n_boot : int, optional
        Bootstrap replicates of the intervals.
    seed : int, optional
        Root seed of the bootstrap.

    Returns
    -------
    dict
        ``value`` (the symmetric ceiling ``c_k = r̂ / sqrt(r̂ + (1 - r̂)/k)``), ``low``,
        ``high``, ``reliability`` (``r̂``), ``reliability_low``, ``reliability_high``, ``k``
        (harmonic mean of the humans per item over the items with at least 2),
        ``measure`` (``"Spearman rho"`` or ``"Cohen kappa"``),
        ``n_boot``, and ``reason``: null when the ceiling was computed, else why not (then
        every number is null).
    """
    used = sorted({int(code) for code in matrix.human_labels[matrix.human_labels >= 0].ravel()})
    graded = label_scale([matrix.labels[code] for code in used], matrix.ordinal).is_rating
    measure = "Spearman rho" if graded else "Cohen kappa"
    empty = {
        "value": None,
        "low": None,
        "high": None,
        "reliability": None,
        "reliability_low": None,
        "reliability_high": None,
        "k": None,
        "measure": measure,
        "n_boot": int(n_boot),
    }
    if matrix.n_humans < 2:
        return {**empty, "reason": f"only {matrix.n_humans} human: no pair to agree"}
    ceilings = human_ceilings(matrix.human_labels, graded, n_boot=n_boot, seed=seed)
    if not math.isfinite(ceilings.reliability.value):
        return {
            **empty,
            "reason": "fewer than 2 humans co-label enough items "
            f"({ceilings.min_shared} shared items per pair) for a defined agreement",
        }
    return {
        "value": _finite_or_none(ceilings.symmetric.value),
        "low": _finite_or_none(ceilings.symmetric.low),
        "high": _finite_or_none(ceilings.symmetric.high),
        "reliability": _finite_or_none(ceilings.reliability.value),
        "reliability_low": _finite_or_none(ceilings.reliability.low),
        "reliability_high": _finite_or_none(ceilings.reliability.high),
        "k": _finite_or_none(ceilings.k),
        "measure": measure,
        "n_boot": int(n_boot),
        "reason": None,
    }
