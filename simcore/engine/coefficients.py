"""Agreement scores on a set of label pairs (docs/explanation/model.md).

A comparison is summarised by its contingency table ``table[a, b]``: the number of pairs
whose candidate label is ``a`` and whose pool-human label is ``b``, an ``(L, L)`` array of
integer counts. Every coefficient is a function of that table. With ``N`` the number of
pairs, ``r_c`` and ``k_c`` the row and column sums (the candidate's and the pool human's
label counts) and ``n_c = r_c + k_c`` the pooled label counts of the ``n = 2N`` values:

====  ======================  =============================================================
code  name                    definition
====  ======================  =============================================================
0     ``observed``            ``p_o = trace(table) / N``, the share of agreeing pairs
1     ``cohen_kappa``         ``(p_o - p_e) / (1 - p_e)``, ``p_e = sum_c r_c k_c / N**2``
2     ``krippendorff_alpha``  nominal, two coders, every pair a unit with both values:
                              ``1 - D_o / D_e``, ``D_o = 1 - p_o``,
                              ``D_e = (n**2 - sum_c n_c**2) / (n (n - 1))``
3     ``gwet_ac1``            ``(p_o - p_e) / (1 - p_e)``,
                              ``p_e = sum_c q_c (1 - q_c) / (L - 1)``, ``q_c = n_c / n``
====  ======================  =============================================================

Alpha's ``D_e`` carries the ``n / (n - 1)`` small-sample factor: it is the coincidence-matrix
definition of Krippendorff's alpha for two coders and no missing values.

Each coefficient is evaluated as one ratio of two integer combinations of the counts (see
:func:`table_score`), so for integer tables the only rounding is the final division.

Conventions:

- **Empty table** (``N = 0``): every coefficient scores 0 and is *not* flagged degenerate;
  the decision rule counts empty comparisons separately.
- **Zero denominator** (a chance-corrected coefficient with no variation to correct for:
  kappa when ``p_e = 1``, i.e. both raters used one and the same label throughout; alpha when
  ``D_e = 0``, i.e. every value in the table is the same label; AC1 never for ``L >= 2``):
  the coefficient carries no information, so it scores 0 (chance level) and is flagged
  ``degenerate = True`` for the caller to count. A normalised denominator (``1 - p_e`` or
  ``D_e``) counts as zero when its magnitude is below :data:`ZERO_TOLERANCE` (``1e-12``).
  For integer tables the denominators are exact, and a non-zero one is at least ``1 / N``,
  so the tolerance only matters for non-integer input. ``observed`` has no such case. No
  NaN is ever returned.
"""

import numpy as np

from simcore.engine._jit import jit

COEFFICIENTS = ("observed", "cohen_kappa", "krippendorff_alpha", "gwet_ac1")
"""Coefficient names, in the order of their integer codes in the kernels."""

OBSERVED, COHEN_KAPPA, KRIPPENDORFF_ALPHA, GWET_AC1 = 0, 1, 2, 3

ZERO_TOLERANCE = 1e-12
"""A normalised denominator (``1 - p_e`` or ``D_e``) below this magnitude counts as zero."""


def coefficient_code(name):
    """Return the kernel's integer code of coefficient ``name``.

    ``gwet_ac2`` is Gwet's AC1 with agreement weights (its weights travel beside the code,
    :mod:`simcore.engine.weighted_scores`), so it has AC1's code.

    Parameters
    ----------
    name : str
        One of :data:`COEFFICIENTS`, or ``gwet_ac2``.

    Returns
    -------
    int
        The position of ``name`` in :data:`COEFFICIENTS`.

    Raises
    ------
    ValueError
        If ``name`` is not a known coefficient.
    """
    if name == "gwet_ac2":
        return GWET_AC1
    return COEFFICIENTS.index(name)


@jit
def table_score(table, coefficient):
    """Score one ``(L, L)`` pair-count table with coefficient code ``coefficient``.

    Loops over the table without allocating. With ``N`` pairs, trace ``T``, row sums
    ``r_c``, column sums ``k_c``, ``P = sum_c r_c k_c``, ``n = 2N`` and
    ``S = sum_c (r_c + k_c)**2``, the coefficients are evaluated as

    - observed: ``p_o = T / N``;
    - cohen_kappa: ``(p_o - p_e) / (1 - p_e)`` with ``p_e = P / N**2``, computed as
      ``(N T - P) / (N**2 - P)``;
    - krippendorff_alpha: ``1 - D_o / D_e`` with ``D_o = 1 - p_o`` and
      ``D_e = (n**2 - S) / (n (n - 1))``, computed as
      ``(n**2 - S - 2 (N - T) (n - 1)) / (n**2 - S)``;
    - gwet_ac1: ``(p_o - p_e) / (1 - p_e)`` with ``p_e = (n**2 - S) / ((L - 1) n**2)``
      (``= sum_c q_c (1 - q_c) / (L - 1)``, ``q_c = (r_c + k_c) / n``), computed as
      ``(2 (L - 1) n T - n**2 + S) / ((L - 2) n**2 + S)``.

    Numerators and denominators are integer combinations of the counts (exact in int64 for
    ``N`` up to about ``10**8``), so each score is a single correctly rounded division.

    Parameters
    ----------
    table : numpy.ndarray
        ``(L, L)`` pair counts, ``table[a, b]`` = pairs with candidate label ``a`` and
        pool-human label ``b``.
    coefficient : int
        Coefficient code, the position in :data:`COEFFICIENTS`.

    Returns
    -------
    score : float
        The coefficient; 0.0 for an empty table and at a zero denominator.
    degenerate : bool
        True exactly when the table is non-empty and the coefficient's normalised
        denominator (``1 - p_e`` for kappa and AC1, ``D_e`` for alpha) has magnitude below
        :data:`ZERO_TOLERANCE` (``1e-12``); the score is then 0.0 (chance level). An empty
        table is not degenerate.

    Raises
    ------
    ValueError
        If ``coefficient`` is not a known code.
    """
    total, trace, cross, pooled = _table_sums(table)
    if total == 0:
        return 0.0, False
    if coefficient == OBSERVED:
        return trace / total, False
    return _chance_corrected(table.shape[0], total, trace, cross, pooled, coefficient)


@jit
def marginal_score(total, trace, rows, cols, n_labels, coefficient):
    """Score a comparison from its margins, exactly as :func:`table_score` scores its table.

    Every coefficient depends on the table only through ``N`` (``total``), the trace ``T``
    and the row and column sums ``r_c`` (``rows``) and ``k_c`` (``cols``): with
    ``P = sum_c r_c k_c`` and ``S = sum_c (r_c + k_c)**2`` the formulas are those of
    :func:`table_score`, evaluated with the same integer arithmetic and the same single
    division, so for the margins of an integer table the result is bit-identical. The
    rule keeps margins (``O(L)`` per comparison) rather than ``(L, L)`` tables.

    Parameters
    ----------
    total, trace : int
        ``N`` and ``T``.
    rows, cols : numpy.ndarray
        int64 ``(L,)``: the candidate's and the pool's label counts over the pairs.
    n_labels : int
        ``L`` (AC1's ``1 / (L - 1)``).
    coefficient : int
        Coefficient code, the position in :data:`COEFFICIENTS`.

    Returns
    -------
    score : float
        The coefficient; 0.0 for an empty comparison and at a zero denominator.
    degenerate : bool
        As :func:`table_score`.
    """
    if total == 0:
        return 0.0, False
    if coefficient == OBSERVED:
        return trace / total, False
    cross = 0
    pooled = 0
    for c in range(n_labels):
        row = rows[c]
        col = cols[c]
        cross += row * col
        pooled += (row + col) * (row + col)
    return _chance_corrected(n_labels, total, trace, cross, pooled, coefficient)


@jit(inline=True)  # table_score runs in the rule's inner loop
def _table_sums(table):
    """Return ``(N, T, P, S)`` of a table: pairs, trace, ``sum r_c k_c``, ``sum (r_c + k_c)**2``."""
    n_labels = table.shape[0]
    total = 0
    trace = 0
    cross = 0
    pooled = 0
    for c in range(n_labels):
        row = 0
        col = 0
        for d in range(n_labels):
            row += table[c, d]
            col += table[d, c]
        trace += table[c, c]
        total += row
        cross += row * col
        pooled += (row + col) * (row + col)
    return total, trace, cross, pooled


@jit(inline=True)  # table_score runs in the rule's inner loop
def _chance_corrected(n_labels, total, trace, cross, pooled, coefficient):
    """Score a non-empty table by kappa, alpha or AC1 from its sums (:func:`_table_sums`).

    Returns ``(score, degenerate)`` as :func:`table_score`.
    """
    if coefficient == COHEN_KAPPA:
        denominator = total * total - cross
        if abs(denominator / (total * total)) < ZERO_TOLERANCE:
            return 0.0, True
        return (total * trace - cross) / denominator, False
    n_values = 2 * total
    if coefficient == KRIPPENDORFF_ALPHA:
        denominator = n_values * n_values - pooled
        if abs(denominator / (n_values * (n_values - 1))) < ZERO_TOLERANCE:
            return 0.0, True
        return (denominator - 2 * (total - trace) * (n_values - 1)) / denominator, False
    if coefficient == GWET_AC1:
        if n_labels < 2:
            return 0.0, True
        scale = (n_labels - 1) * n_values * n_values
        denominator = (n_labels - 2) * n_values * n_values + pooled
        if abs(denominator / scale) < ZERO_TOLERANCE:
            return 0.0, True
        numerator = 2 * (n_labels - 1) * n_values * trace - n_values * n_values + pooled
        return numerator / denominator, False
    raise ValueError("unknown agreement coefficient code")


def score_table(table, coefficient):
    """Score a table or a stack of tables with NumPy (reference for :func:`table_score`).

    Same definitions and conventions as :func:`table_score`, vectorised over the leading
    axes. With ``N`` pairs, trace ``T``, row sums ``r_c``, column sums ``k_c``,
    ``P = sum_c r_c k_c``, ``n = 2N`` and ``S = sum_c (r_c + k_c)**2``:

    - observed: ``p_o = T / N``;
    - cohen_kappa: ``(p_o - p_e) / (1 - p_e)``, ``p_e = P / N**2``;
    - krippendorff_alpha: ``1 - D_o / D_e``, ``D_o = 1 - p_o``,
      ``D_e = (n**2 - S) / (n (n - 1))``;
    - gwet_ac1: ``(p_o - p_e) / (1 - p_e)``, ``p_e = sum_c q_c (1 - q_c) / (L - 1)``,
      ``q_c = (r_c + k_c) / n``.

    Parameters
    ----------
    table : array_like
        ``(..., L, L)`` pair counts; ``table[..., a, b]`` = pairs with candidate label ``a``
        and pool-human label ``b``. Integer input is computed in int64, anything else in
        float64.
    coefficient : int or str
        Coefficient code or name (:data:`COEFFICIENTS`).

    Returns
    -------
    score : numpy.ndarray or numpy.float64
        Shape ``table.shape[:-2]`` (a scalar for a single table); 0 for empty tables and at
        a zero denominator.
    degenerate : numpy.ndarray or bool
        Same shape; True where the table is non-empty and the normalised denominator
        (``1 - p_e`` or ``D_e``) has magnitude below :data:`ZERO_TOLERANCE`.

    Raises
    ------
    ValueError
        If the table is not ``(..., L, L)`` or the coefficient is unknown.
    """
    table, coefficient = _checked(table, coefficient)
    rows = table.sum(axis=-1)
    cols = table.sum(axis=-2)
    total = rows.sum(axis=-1)
    trace = np.trace(table, axis1=-2, axis2=-1)
    cross = (rows * cols).sum(axis=-1)
    pooled = ((rows + cols) ** 2).sum(axis=-1)
    empty = total == 0
    numerator, denominator, normalised = _score_terms(
        table.shape[-1], total, trace, cross, pooled, coefficient
    )
    degenerate = ~empty & (np.abs(normalised) < ZERO_TOLERANCE)
    score = _ratio(numerator, np.where(empty | degenerate, 0, denominator))
    return score[()], degenerate[()]


def _checked(table, coefficient):
    """Return the table as int64 or float64 and the coefficient as its code, or raise."""
    if isinstance(coefficient, str):
        coefficient = coefficient_code(coefficient)
    if coefficient not in range(len(COEFFICIENTS)):
        raise ValueError(f"unknown agreement coefficient code {coefficient!r}")
    table = np.asarray(table)
    if table.ndim < 2 or table.shape[-1] != table.shape[-2]:
        raise ValueError(f"expected a (..., L, L) table, got shape {table.shape}")
    return table.astype(np.int64 if table.dtype.kind in "biu" else np.float64), coefficient


def _score_terms(n_labels, total, trace, cross, pooled, coefficient):
    """Return a coefficient's numerator, denominator and normalised denominator (NumPy).

    The normalised denominator is ``1 - p_e`` or ``D_e`` (1 for ``observed``), which
    :func:`score_table` compares with :data:`ZERO_TOLERANCE`.
    """
    n_values = 2 * total
    if coefficient == OBSERVED:
        numerator, denominator = trace, total
        normalised = np.ones(total.shape)
    elif coefficient == COHEN_KAPPA:
        numerator = total * trace - cross
        denominator = total * total - cross
        normalised = _ratio(denominator, total * total)
    elif coefficient == KRIPPENDORFF_ALPHA:
        denominator = n_values * n_values - pooled
        numerator = denominator - 2 * (total - trace) * (n_values - 1)
        normalised = _ratio(denominator, n_values * (n_values - 1))
    else:
        scale = max(n_labels - 1, 0) * n_values * n_values
        denominator = (n_labels - 2) * n_values * n_values + pooled
        numerator = 2 * (n_labels - 1) * n_values * trace - n_values * n_values + pooled
        normalised = _ratio(denominator, scale)
    return numerator, denominator, normalised


def _ratio(numerator, denominator):
    """Return ``numerator / denominator`` as float64, 0 where the denominator is 0."""
    numerator, denominator = np.broadcast_arrays(numerator, denominator)
    out = np.zeros(numerator.shape)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


def observed_agreement(table):
    """Share of agreeing pairs, ``p_o = sum_c table[c, c] / sum table``.

    Parameters
    ----------
    table : array_like
        ``(L, L)`` pair counts (or a stack ``(..., L, L)``).

    Returns
    -------
    numpy.ndarray or numpy.float64
        ``p_o``; 0 where the table is empty.
    """
    return score_table(table, OBSERVED)[0]
