"""The point rule's leave-one-out differences ``d_k`` of a batch of label tensors.

For held-out human ``k`` and an item ``i`` it labelled, with ``c_i`` other humans present,
``D_i = sum_q [judge == q] - [k == q]`` over those humans, and ``d_k = sum_i D_i / sum_i
c_i``: the judge's minus human ``k``'s observed agreement with the pool (the statistic of
:func:`simcore.advisor.verdict.comparison_intervals`, without its interval). Per item the
present humans' labels are tallied once, so a trial costs O(n K) whatever L is:
``sum_q [judge == q] = count[judge label] - [k == judge]`` and ``sum_q [k == q] =
count[k's label] - 1``.
"""

import numpy as np
from numba import prange

from simcore.engine._jit import jit


@jit(parallel=True)
def leave_one_out_differences(labels, mask, n_humans, n_labels, d, pairs):
    """Fill ``d`` and ``pairs``, ``(T, K)``, with every trial's ``d_k`` and ``sum_i c_i``.

    Parameters
    ----------
    labels : numpy.ndarray
        int16 ``(T, n, K + 1)`` label codes ``0 .. n_labels - 1``: the ``K`` humans, then
        the judge.
    mask : numpy.ndarray
        bool ``(T, n, K)``: which human labelled which item in each trial, or ``(1, n, K)``:
        one mask for every trial (read, never copied T times).
    n_humans : int
        ``K``.
    n_labels : int
        Codes in use (the tally's size).
    d : numpy.ndarray
        float64 ``(T, K)``, filled: ``d_k = sum_i D_i / sum_i c_i``, NaN when human ``k``
        shares no item with another human (no pair).
    pairs : numpy.ndarray
        int64 ``(T, K)``, filled: ``sum_i c_i``, the pairs behind ``d_k``.
    """
    n_trials, n_items = labels.shape[0], labels.shape[1]
    step = 0 if mask.shape[0] == 1 else 1  # a shared mask is row 0 for every trial
    for t in prange(n_trials):
        m = t * step
        count = np.zeros(n_labels, dtype=np.int64)
        numerator = np.zeros(n_humans, dtype=np.int64)
        denominator = np.zeros(n_humans, dtype=np.int64)
        for i in range(n_items):
            present = 0
            for k in range(n_humans):
                if mask[m, i, k]:
                    count[labels[t, i, k]] += 1
                    present += 1
            if present >= 2:
                judge = labels[t, i, n_humans]
                for k in range(n_humans):
                    if mask[m, i, k]:
                        own = labels[t, i, k]
                        with_judge = count[judge] - (1 if own == judge else 0)
                        with_self = count[own] - 1
                        numerator[k] += with_judge - with_self
                        denominator[k] += present - 1
            for k in range(n_humans):
                if mask[m, i, k]:
                    count[labels[t, i, k]] = 0
        for k in range(n_humans):
            pairs[t, k] = denominator[k]
            d[t, k] = numerator[k] / denominator[k] if denominator[k] > 0 else np.nan
