"""Weighted agreement coefficients of raters with missing labels, as their authors define them.

Every function takes ``codes``, an int ``(n, R)`` matrix of label codes with ``-1`` where a
rater did not label an item, and ``values``, the number each code stands for (its rank for
ordinal data without numbers). ``counts[i, c]`` is how many raters gave item ``i`` code
``c`` and ``m_i`` their sum.

- Krippendorff's alpha (Krippendorff, *Content Analysis*, ch. 12; "Computing
  Krippendorff's alpha-reliability", 2011) on the coincidence matrix
  ``o_ck = sum_i counts[i, c] (counts[i, k] - [c = k]) / (m_i - 1)`` over the items with
  ``m_i >= 2``, its marginals ``n_c`` and ``n = sum_c n_c``:
  ``alpha = 1 - (n - 1) sum o_ck d_ck / sum n_c n_k d_ck`` with the metric ``d`` of the
  level: nominal ``[c != k]``, interval ``(v_c - v_k)**2``, ratio
  ``((v_c - v_k) / (v_c + v_k))**2`` and ordinal
  ``(sum_{g between c and k} n_g - (n_c + n_k) / 2)**2`` (the ordinal metric from the
  marginal frequencies, categories in value order) (:func:`krippendorff_alpha`).
- Agreement weights (Gwet, *Handbook of Inter-Rater Reliability*, 4th ed., ch. 3):
  identity, linear ``1 - |v_c - v_k| / (v_max - v_min)`` or quadratic
  ``1 - ((v_c - v_k) / (v_max - v_min))**2`` over the declared labels
  (:func:`agreement_weights`).
- Weighted percent agreement and Gwet's AC2 (Gwet's ``pa`` and ``AC2`` for raw ratings,
  as irrCAC computes them): over the items with ``m_i >= 2``,
  ``p_a = mean_i sum_c counts[i, c] (counts*[i, c] - 1) / (m_i (m_i - 1))`` with
  ``counts* = counts W``; ``pi_c`` the mean over the items with a label of
  ``counts[i, c] / m_i``; ``p_e = sum(W) sum_c pi_c (1 - pi_c) / (L (L - 1))`` and
  ``AC2 = (p_a - p_e) / (1 - p_e)`` (:func:`percent_agreement`, :func:`gwet_ac2`).
- Cohen's kappa of two raters with weights, on the items both labelled:
  ``(p_o - p_e) / (1 - p_e)`` with ``p_o = sum W_ck p_ck`` and
  ``p_e = sum W_ck p_c. p_.k`` (:func:`cohen_kappa`).

A coefficient whose denominator is 0 (every label the same, no pairable item) is NaN, as
the counting rules elsewhere in simcore leave an undefined score undefined.
"""

from typing import NamedTuple

import numpy as np

from simcore.engine.coefficients import coefficient_code, score_table
from simcore.engine.layout import ORDINAL, UNWEIGHTED, WEIGHTED
from simcore.engine.weighted_scores import weighting_of

LEVELS = ("nominal", "ordinal", "interval", "ratio")
"""Krippendorff's levels of measurement."""

WEIGHTS = ("identity", "linear", "quadratic")
"""Agreement weights of Cohen's kappa, Gwet's AC2 and the percent agreement."""

WEIGHTED_COEFFICIENTS = ("observed", "cohen_kappa", "gwet_ac2")
"""The coefficients that take agreement weights (Krippendorff's alpha takes a level instead,
and Gwet's AC1 with weights is AC2)."""


def is_weighted(level, weights):
    """Whether ``level`` or ``weights`` asks for a weighted coefficient (not nominal, identity)."""
    return level != "nominal" or weights != "identity"


def misplaced_weighting(coefficient, level, weights):
    """Return which of ``level`` and ``weights`` ``coefficient`` does not take, in that order.

    A level other than nominal belongs to ``krippendorff_alpha``, weights other than the
    identity to :data:`WEIGHTED_COEFFICIENTS`; each caller words its own refusal.
    """
    misplaced = []
    if level != "nominal" and coefficient != "krippendorff_alpha":
        misplaced.append("level")
    if weights != "identity" and coefficient not in WEIGHTED_COEFFICIENTS:
        misplaced.append("weights")
    return misplaced


def misplaced_message(coefficient, level, weights):
    """Return why ``level`` or ``weights`` does not go with ``coefficient``, or None.

    ``level: L is Krippendorff's alpha's (use weights with C)`` or ``weights: W with C: use
    level`` (``use gwet_ac2`` for AC1); callers put the file or the flag's dashes before it.
    """
    misplaced = misplaced_weighting(coefficient, level, weights)
    if "level" in misplaced:
        return f"level: {level} is Krippendorff's alpha's (use weights with {coefficient})"
    if "weights" in misplaced:
        other = "level" if coefficient == "krippendorff_alpha" else "gwet_ac2"
        return f"weights: {weights} with {coefficient}: use {other}"
    return None


def values_needed(level, weights):
    """Return what the label values must be: ``none``, ``order`` or ``numbers``.

    Nominal and identity read only the codes; the ordinal level and agreement weights need
    the labels' order; the interval and ratio levels their numbers.
    """
    if level in ("interval", "ratio"):
        return "numbers"
    return "order" if is_weighted(level, weights) else "none"


def label_counts(codes, n_labels):
    """Return ``counts`` int ``(n, L)``: how many raters gave each item each label."""
    codes = np.asarray(codes)
    counts = np.zeros((codes.shape[0], n_labels), dtype=np.int64)
    rows, raters = np.nonzero(codes >= 0)
    np.add.at(counts, (rows, codes[rows, raters]), 1)
    return counts


def coincidences(codes, n_labels):
    """Return Krippendorff's coincidence matrix ``o`` ``(L, L)`` (module docstring)."""
    counts = label_counts(codes, n_labels)
    pairable = counts.sum(axis=1) >= 2
    counts = counts[pairable].astype(np.float64)
    scale = 1.0 / (counts.sum(axis=1) - 1.0)
    pairs = np.einsum("i,ic,ik->ck", scale, counts, counts)
    return pairs - np.diag((scale[:, None] * counts).sum(axis=0))


def distances(level, values, marginals):
    """Return Krippendorff's metric ``d_ck`` ``(L, L)`` of ``level`` (module docstring).

    ``values`` are the labels' numbers, ``marginals`` the coincidence marginals ``n_c``
    (read by the ordinal metric only).
    """
    values = np.asarray(values, dtype=np.float64)
    if level == "nominal":
        return 1.0 - np.eye(len(values))
    difference = values[:, None] - values[None, :]
    if level == "interval":
        return difference**2
    if level == "ratio":
        total = values[:, None] + values[None, :]
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(total == 0, 0.0, (difference / np.where(total == 0, 1, total)) ** 2)
    if level == "ordinal":
        order = np.argsort(values, kind="stable")
        rank = np.empty(len(values), dtype=np.int64)
        rank[order] = np.arange(len(values))
        running = np.concatenate([[0.0], np.cumsum(np.asarray(marginals, float)[order])])
        low = np.minimum(rank[:, None], rank[None, :])
        high = np.maximum(rank[:, None], rank[None, :])
        between = running[high + 1] - running[low]
        half = (marginals[:, None] + marginals[None, :]) / 2.0
        return (between - half) ** 2
    raise ValueError(f"level: must be one of {', '.join(LEVELS)} (got {level!r})")


def krippendorff_alpha(codes, values, level="nominal"):
    """Return Krippendorff's alpha of ``codes`` at ``level`` (module docstring)."""
    table = coincidences(codes, len(values))
    marginals = table.sum(axis=1)
    total = marginals.sum()
    metric = distances(level, values, marginals)
    expected = marginals @ metric @ marginals
    if total <= 1 or expected == 0:
        return float("nan")
    return float(1.0 - (total - 1.0) * (table * metric).sum() / expected)


def agreement_weights(values, weights="identity"):
    """Return the agreement weights ``W`` ``(L, L)`` (module docstring)."""
    values = np.asarray(values, dtype=np.float64)
    if weights == "identity":
        return np.eye(len(values))
    spread = values.max() - values.min()
    scaled = np.abs(values[:, None] - values[None, :]) / (spread if spread > 0 else 1.0)
    if weights == "linear":
        return 1.0 - scaled
    if weights == "quadratic":
        return 1.0 - scaled**2
    raise ValueError(f"weights: must be one of {', '.join(WEIGHTS)} (got {weights!r})")


def _agreement_terms(codes, weight_matrix):
    """Return ``(p_a, pi)`` of the percent agreement and AC2 (module docstring)."""
    counts = label_counts(codes, weight_matrix.shape[0]).astype(np.float64)
    labelled = counts.sum(axis=1)
    counts, labelled = counts[labelled > 0], labelled[labelled > 0]
    pairable = labelled >= 2
    if not pairable.any():
        return float("nan"), counts.sum(axis=0) * np.nan
    weighted = counts @ weight_matrix.T
    per_item = (counts * (weighted - 1.0)).sum(axis=1)
    share = per_item[pairable] / (labelled[pairable] * (labelled[pairable] - 1.0))
    return float(share.mean()), (counts / labelled[:, None]).mean(axis=0)


def percent_agreement(codes, values, weights="identity"):
    """Return the weighted percent agreement ``p_a`` (module docstring)."""
    return _agreement_terms(codes, agreement_weights(values, weights))[0]


def gwet_ac2(codes, values, weights="identity"):
    """Return Gwet's AC2 with ``weights`` (AC1 with the identity; module docstring)."""
    weight_matrix = agreement_weights(values, weights)
    n_labels = weight_matrix.shape[0]
    observed, pi = _agreement_terms(codes, weight_matrix)
    chance = weight_matrix.sum() * (pi * (1.0 - pi)).sum() / (n_labels * (n_labels - 1))
    return float((observed - chance) / (1.0 - chance)) if chance != 1 else float("nan")


def cohen_kappa(first, second, values, weights="identity"):
    """Return Cohen's kappa of two raters' codes (``-1`` missing) with ``weights``."""
    first, second = np.asarray(first), np.asarray(second)
    both = (first >= 0) & (second >= 0)
    if not both.any():
        return float("nan")
    n_labels = len(values)
    table = np.zeros((n_labels, n_labels))
    np.add.at(table, (first[both], second[both]), 1.0)
    table /= table.sum()
    weight_matrix = agreement_weights(values, weights)
    observed = (weight_matrix * table).sum()
    chance = table.sum(axis=1) @ weight_matrix @ table.sum(axis=0)
    return float((observed - chance) / (1.0 - chance)) if chance != 1 else float("nan")


def pair_table_score(table, coefficient, values, level="nominal", weights="identity"):
    """Score a comparison's pair table as its authors define the coefficient for two raters.

    The table's pairs ``(a, b)``, ``table[a, b]`` of each, become two raters' labels on
    as many items, scored by :func:`krippendorff_alpha` at ``level``, :func:`cohen_kappa`,
    :func:`gwet_ac2` (``gwet_ac1``) or :func:`percent_agreement` (``observed``) with
    ``weights``: the NumPy oracle of :func:`simcore.engine.weighted_scores.weighted_score`.

    Returns
    -------
    float
        The coefficient; NaN when it is undefined (no pair, a zero denominator).
    """
    table = np.asarray(table, dtype=np.int64)
    rows, cols = np.nonzero(table)
    first = np.repeat(rows, table[rows, cols])
    second = np.repeat(cols, table[rows, cols])
    codes = np.stack([first, second], axis=1)
    if coefficient == "krippendorff_alpha":
        return krippendorff_alpha(codes, values, level)
    if coefficient == "cohen_kappa":
        return cohen_kappa(first, second, values, weights)
    if coefficient in ("gwet_ac1", "gwet_ac2"):
        return gwet_ac2(codes, values, weights) if len(first) else float("nan")
    if coefficient == "observed":
        return percent_agreement(codes, values, weights)
    raise ValueError(f"unknown agreement coefficient {coefficient!r}")


def rule_weighting(coefficient, values, level="nominal", weights="identity"):
    """Return how the point rule's kernels weight ``coefficient``: ``(code, W, order)``.

    ``code`` is :data:`~simcore.engine.layout.UNWEIGHTED` for a nominal coefficient
    (level nominal, identity weights), :data:`~simcore.engine.layout.ORDINAL` for alpha's
    ordinal level and :data:`~simcore.engine.layout.WEIGHTED` otherwise, with ``W`` the
    ``(L, L)`` agreement weights: ``weights`` (:func:`agreement_weights`) for kappa, AC2 and
    the observed agreement, ``1 - d / max d`` with alpha's interval or ratio metric ``d``
    (:func:`distances`; alpha is unchanged by scaling ``d``). ``order`` lists the codes in
    value order.
    """
    values = np.asarray(values, dtype=np.float64)
    order = np.argsort(values, kind="stable")
    identity = np.eye(len(values))
    if coefficient == "krippendorff_alpha" and level == "ordinal":
        return ORDINAL, identity, order
    if coefficient == "krippendorff_alpha" and level in ("interval", "ratio"):
        metric = distances(level, values, np.ones(len(values)))
        largest = metric.max()
        return WEIGHTED, 1.0 - metric / (largest if largest > 0 else 1.0), order
    if coefficient != "krippendorff_alpha" and weights != "identity":
        return WEIGHTED, agreement_weights(values, weights), order
    return UNWEIGHTED, identity, order


def kernel_weighting(coefficient, values, level="nominal", weights="identity"):
    """Return the items and counts engines' ``weighting`` of a coefficient, None if nominal.

    :func:`rule_weighting` in the kernels' form
    (:func:`simcore.engine.weighted_scores.weighting_of`); None keeps the kernels free of
    the weighted rule.
    """
    code, weight_matrix, order = rule_weighting(coefficient, values, level, weights)
    if code == UNWEIGHTED:
        return None
    return weighting_of(weight_matrix, order, code == ORDINAL)


class Scoring(NamedTuple):
    """A chosen coefficient with its level or weights, ready to score pair tables.

    Attributes
    ----------
    coefficient : str
        ``observed``, ``cohen_kappa``, ``krippendorff_alpha``, ``gwet_ac1`` or ``gwet_ac2``.
    level, weights : str
        Krippendorff's level of measurement; the agreement weights.
    weighting : tuple
        :func:`rule_weighting`'s ``(code, W, order)``.
    values : numpy.ndarray
        The number (or rank) of each label code.
    """

    coefficient: str
    level: str
    weights: str
    weighting: tuple
    values: np.ndarray

    @property
    def n_labels(self):
        """L, the label codes the tables span."""
        return len(self.values)

    @property
    def name(self):
        """How the reports name the coefficient: ``cohen_kappa (quadratic)`` and so on."""
        return scoring_name(self.coefficient, self.level, self.weights)


def scoring_name(coefficient, level="nominal", weights="identity"):
    """Return ``coefficient`` with its level or weights in brackets when it has them."""
    if coefficient == "krippendorff_alpha":
        return f"{coefficient} ({level})"
    return coefficient if weights == "identity" else f"{coefficient} ({weights})"


def scoring_of(coefficient, values, level="nominal", weights="identity"):
    """Return the :class:`Scoring` of ``coefficient`` on the label ``values``."""
    values = np.asarray(values, dtype=np.float64)
    weighting = rule_weighting(coefficient, values, level, weights)
    return Scoring(coefficient, level, weights, weighting, values)


def table_scores(tables, coefficient, weighting, undefined=0.0):
    """Score pair tables ``(..., L, L)`` with a weighted coefficient, vectorised (NumPy).

    ``weighting`` is :func:`rule_weighting`'s ``(code, W, order)``; the definitions are
    :mod:`simcore.engine.weighted_scores`' (two-coder coincidences of the pairs, the
    ordinal metric from each table's marginal frequencies), for tables of any scale such as
    the population's limit tables; an unweighted one (``weighting`` None or
    :data:`~simcore.engine.layout.UNWEIGHTED`) by
    :func:`simcore.engine.coefficients.score_table`. Undefined scores (no pair, a zero
    denominator) are ``undefined``: 0 by default, the kernels' convention (NaN where an
    undefined score stays undefined; a nominal coefficient is then scored by the weighted
    definitions with identity weights, which are the nominal ones on a pair table).
    """
    if (weighting is None or weighting[0] == UNWEIGHTED) and undefined == 0.0:
        return score_table(np.asarray(tables, dtype=np.float64), coefficient_code(coefficient))[0]
    if weighting is None or weighting[0] == UNWEIGHTED:
        size = np.shape(tables)[-1]
        weighting = (WEIGHTED, np.eye(size), np.arange(size))
    code, weight_matrix, order = weighting
    tables = np.asarray(tables, dtype=np.float64)
    rows, cols = tables.sum(axis=-1), tables.sum(axis=-2)
    total = rows.sum(axis=-1)
    pooled = rows + cols
    with np.errstate(invalid="ignore", divide="ignore"):
        if coefficient == "krippendorff_alpha":
            if code == ORDINAL:
                below = np.cumsum(pooled[..., order], axis=-1) - pooled[..., order] / 2.0
                ranks = np.empty_like(below)
                ranks[..., order] = below / (2.0 * total[..., None])
                metric = (ranks[..., :, None] - ranks[..., None, :]) ** 2
            else:
                metric = 1.0 - weight_matrix
            observed = (tables * metric).sum(axis=(-2, -1)) / total
            n_values = 2.0 * total
            expected = np.einsum(
                "...a,...b,...ab->...", pooled, pooled, metric * np.ones_like(tables)
            )
            score = 1.0 - observed / (expected / (n_values * (n_values - 1.0)))
        else:
            agree = (tables * weight_matrix).sum(axis=(-2, -1)) / total
            n_labels = weight_matrix.shape[0]
            if coefficient == "observed":
                chance = np.zeros_like(agree)
            elif coefficient == "cohen_kappa":
                chance = np.einsum("...a,ab,...b->...", rows, weight_matrix, cols) / total**2
            else:
                share = pooled / (2.0 * total[..., None])
                spread = (share * (1.0 - share)).sum(axis=-1)
                chance = weight_matrix.sum() * spread / (n_labels * (n_labels - 1))
            score = (agree - chance) / (1.0 - chance)
    return np.where(np.isfinite(score), score, undefined)
