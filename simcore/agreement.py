"""Agreement scores on a set of label pairs (SPEC §4).

A comparison is summarised by its contingency table ``table[a, b]``: the number of pairs
whose candidate label is ``a`` and whose pool-human label is ``b``. Every coefficient is a
function of that table.

- ``observed``: ``p_o = trace(table) / table.sum()``, the share of agreeing pairs.

An empty table (no pairs) scores 0 and is counted as an empty comparison by the rule.
"""

import numpy as np

from simcore._jit import jit

COEFFICIENTS = ("observed",)
"""Coefficient names, in the order of their integer codes in the kernels."""


def coefficient_code(name):
    """Return the kernel's integer code of coefficient ``name``."""
    return COEFFICIENTS.index(name)


def observed_agreement(table):
    """Share of agreeing pairs, ``p_o = sum_c table[c, c] / sum table``.

    Parameters
    ----------
    table : array_like
        ``(L, L)`` pair counts (or a stack ``(..., L, L)``).

    Returns
    -------
    numpy.ndarray or float
        ``p_o``; 0 where the table is empty.
    """
    table = np.asarray(table)
    total = table.sum(axis=(-2, -1))
    agree = np.trace(table, axis1=-2, axis2=-1)
    return np.where(total > 0, agree / np.maximum(total, 1), 0.0)


@jit
def table_score(table, coefficient):
    """Score one ``(L, L)`` pair-count table with coefficient code ``coefficient``.

    Returns 0.0 for an empty table. Code 0 is ``observed``.
    """
    n_labels = table.shape[0]
    total = 0
    agree = 0
    for a in range(n_labels):
        agree += table[a, a]
        for b in range(n_labels):
            total += table[a, b]
    if total == 0:
        return 0.0
    return agree / total
