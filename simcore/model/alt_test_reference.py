"""The alternative annotator test with NumPy: per-human p-values, wins and advantage.

The plain NumPy implementation of the test (Calderon, Reichart, Dror, ACL 2025;
docs/explanation/rule.md), the oracle for :mod:`simcore.engine.alt_test` and what
``simcore advise --rule alt_test`` reports. It returns both outputs the authors publish for a judge:

- the **winning rate** omega: the share of tested humans whose null hypothesis
  ``mean(d) >= eps`` is rejected by Benjamini-Yekutieli at level q;
- the **advantage probability** rho: for each tested held-out human h, the share of the
  items h labelled (among items with at least ``min_humans_per_item`` human labels) on
  which the judge's per-item score is at least h's, ``mean_i [s_judge(i) >= s_h(i)]``;
  rho is the mean of those shares over the tested humans. The authors use it to compare
  judges (higher is better).

Per-item scores are computed against the other humans who labelled the item: accuracy
(the share of them the label agrees with) for categorical labels, minus the RMSE of the
label values for numeric ones, and the mean agreement weight for a rating scale (the
weighted scale: a label one step from another human's earns part of the credit, the
authors' "any similarity metric" with the weights of a weighted kappa). Both scores on an
item share the same other humans; scores within
:data:`simcore.engine.alt_test.SCORE_TIE` are a tie, as in the kernels.
"""

from dataclasses import dataclass

import numpy as np
from scipy import stats

from simcore.engine.alt_test import SCORE_TIE

SCALES = ("categorical", "numeric", "weighted")
"""``categorical``: accuracy per item; ``numeric``: minus the RMSE of the label values;
``weighted``: the mean agreement weight with the other humans' labels."""


@dataclass(frozen=True)
class AltTestResult:
    """Everything the alternative annotator test computed on one matrix.

    Attributes
    ----------
    items : numpy.ndarray
        int ``(K,)``: items each held-out human is compared on.
    tested : numpy.ndarray
        bool ``(K,)``: humans with at least ``min_items_per_human`` items (the others are
        skipped).
    pvalues : numpy.ndarray
        ``(J, K)`` one-sided t-test p-values; NaN for a skipped human.
    won : numpy.ndarray
        bool ``(J, K)``: the human's hypothesis is rejected after Benjamini-Yekutieli over
        the tested humans (a win for the judge).
    advantage : numpy.ndarray
        ``(J, K)``: share of the human's items on which the judge scores at least as well;
        NaN for a skipped human.
    """

    items: np.ndarray
    tested: np.ndarray
    pvalues: np.ndarray
    won: np.ndarray
    advantage: np.ndarray

    @property
    def n_tested(self):
        """Humans tested (the effective K)."""
        return int(self.tested.sum())

    @property
    def wins(self):
        """Humans each judge wins against, int ``(J,)``."""
        return self.won.sum(axis=1)

    @property
    def winning_rate(self):
        """``(J,)``: wins / humans tested; NaN when no human is tested."""
        return self.wins / self.n_tested if self.n_tested else np.full(len(self.won), np.nan)

    @property
    def advantage_probability(self):
        """``(J,)``: mean advantage over the tested humans; NaN when no human is tested."""
        if not self.n_tested:
            return np.full(len(self.won), np.nan)
        return self.advantage[:, self.tested].mean(axis=1)


def item_scores(
    human_labels, judge_labels, h, scale="categorical", label_values=None, similarity=None
):
    """Return ``(human_score (n,), judge_score (n, J))`` on each item against the others.

    The others are the humans other than ``h`` who labelled the item. Categorical:
    ``s(x) = (1/c) sum_q [x == y_q]``; numeric: ``s(x) = -sqrt((1/c) sum_q (v(x) - v(y_q))^2)``
    with ``v`` the label values (``label_values[code]``, default the codes); weighted:
    ``s(x) = (1/c) sum_q W[x, y_q]`` with ``W = similarity`` (``(L, L)`` agreement
    weights, :func:`simcore.model.weighted.agreement_weights`). Items without another
    human score NaN.
    """
    observed = human_labels >= 0
    others = observed & (np.arange(human_labels.shape[1]) != h)
    count = others.sum(axis=1).astype(float)
    count[count == 0] = np.nan
    if scale == "weighted":
        weights = np.asarray(similarity, dtype=float)
        humans = np.maximum(human_labels, 0)
        human = (weights[humans[:, [h]], humans] * others).sum(axis=1) / count
        judge = (weights[judge_labels[:, None, :], humans[:, :, None]] * others[..., None]).sum(
            axis=1
        ) / count[:, None]
        return human, judge
    if scale == "categorical":
        human = ((human_labels == human_labels[:, [h]]) & others).sum(axis=1) / count
        judge = ((judge_labels[:, None, :] == human_labels[:, :, None]) & others[..., None]).sum(
            axis=1
        ) / count[:, None]
        return human, judge
    values = np.asarray(
        np.arange(max(int(human_labels.max()), int(judge_labels.max())) + 1)
        if label_values is None
        else label_values,
        dtype=float,
    )
    humans = values[np.maximum(human_labels, 0)]
    judges = values[judge_labels]
    human_sq = (((humans - humans[:, [h]]) ** 2) * others).sum(axis=1)
    judge_sq = (((judges[:, None, :] - humans[:, :, None]) ** 2) * others[..., None]).sum(axis=1)
    return -np.sqrt(human_sq / count), -np.sqrt(judge_sq / count[:, None])


def one_sided_pvalues(differences, epsilon):
    """One-sided t-test p-values of ``H0: mean >= eps`` against ``H1: mean < eps``.

    ``differences`` is ``(J, m)``; ``t = (mean - eps) / (s / sqrt(m))``, ``p = F_{m-1}(t)``.
    With zero variance the p-value is 0 when the mean is below eps and 1 otherwise (as
    the kernel's :func:`simcore.engine.stats_kernels.one_sided_t_pvalue`).
    """
    m = differences.shape[1]
    mean = differences.mean(axis=1)
    sd = differences.std(axis=1, ddof=1)
    degenerate = sd <= np.sqrt(1e-15)
    t = (mean - epsilon) / np.where(degenerate, 1.0, sd / np.sqrt(m))
    return np.where(degenerate, np.where(mean < epsilon, 0.0, 1.0), stats.t.cdf(t, m - 1))


def by_rejections(pvalues, level):
    """Benjamini-Yekutieli at ``level``: bool of the hypotheses rejected.

    Sorted ascending, ``p_(k) <= k level / (m c(m))`` with ``c(m) = sum_{i<=m} 1/i``; the
    ``k`` smallest are rejected for the largest such ``k``.
    """
    pvalues = np.asarray(pvalues, dtype=float)
    m = len(pvalues)
    rejected = np.zeros(m, dtype=bool)
    if m == 0:
        return rejected
    order = np.argsort(pvalues, kind="stable")
    thresholds = np.arange(1, m + 1) * level / (m * np.sum(1.0 / np.arange(1, m + 1)))
    passing = np.flatnonzero(pvalues[order] <= thresholds)
    if len(passing):
        rejected[order[: passing[-1] + 1]] = True
    return rejected


def alternative_annotator_test(  # noqa: PLR0913 (a value object is still to come)
    human_labels,
    judge_labels,
    epsilon,
    min_humans_per_item=2,
    min_items_per_human=30,
    level=0.05,
    scale="categorical",
    label_values=None,
    similarity=None,
):
    """Run the alternative annotator test (docs/explanation/rule.md) on one matrix with NumPy.

    Items with fewer than ``min_humans_per_item`` human labels are dropped. For held-out
    human ``h`` and each remaining item ``i`` that ``h`` labelled,
    ``W_j(i) = [s_judge(i) >= s_h(i)]``, ``W_h(i) = [s_h(i) >= s_judge(i)]`` (within
    :data:`~simcore.engine.alt_test.SCORE_TIE`) and
    ``d_i = W_h(i) - W_j(i)`` (:func:`item_scores`). A human with fewer than
    ``min_items_per_human`` items (or fewer than 2) is skipped. ``p_h`` is the one-sided
    t-test of ``mean(d) >= eps`` (:func:`one_sided_pvalues`); Benjamini-Yekutieli at
    ``level`` over the tested humans gives the wins (:func:`by_rejections`). The advantage
    of the judge over ``h`` is ``mean_i W_j(i)``.

    Parameters
    ----------
    human_labels : numpy.ndarray
        int ``(n, K)`` codes, negative where the human did not label the item.
    judge_labels : numpy.ndarray
        int ``(n, J)`` codes.
    epsilon, level : float
        The test's eps and the Benjamini-Yekutieli level q.
    min_humans_per_item, min_items_per_human : int
        The test's two minimums (the authors' defaults 2 and 30).
    scale : str
        ``categorical`` (accuracy), ``numeric`` (minus the RMSE of the label values) or
        ``weighted`` (the mean agreement weight, :func:`item_scores`).
    label_values : array_like, optional
        Numeric value of each label code (numeric scale); default the codes.
    similarity : array_like, optional
        ``(L, L)`` agreement weights of the weighted scale (required by it).

    Returns
    -------
    AltTestResult
    """
    if scale not in SCALES:
        raise ValueError(f"scale: must be one of {', '.join(SCALES)} (got {scale!r})")
    if (scale == "weighted") != (similarity is not None):
        raise ValueError("similarity: the weighted scale, and only it, takes agreement weights")
    human_labels = np.asarray(human_labels)
    judge_labels = np.asarray(judge_labels)
    n_humans, n_judges = human_labels.shape[1], judge_labels.shape[1]
    observed = human_labels >= 0
    keep = observed.sum(axis=1) >= min_humans_per_item
    items = np.zeros(n_humans, dtype=np.int64)
    pvalues = np.full((n_judges, n_humans), np.nan)
    advantage = np.full((n_judges, n_humans), np.nan)
    for h in range(n_humans):
        rows = keep & observed[:, h]
        items[h] = rows.sum()
        if items[h] < max(min_items_per_human, 2):
            continue
        human, judge = item_scores(
            human_labels[rows], judge_labels[rows], h, scale, label_values, similarity
        )
        judge_wins = judge >= human[:, None] - SCORE_TIE
        human_wins = human[:, None] >= judge - SCORE_TIE
        differences = (human_wins.astype(float) - judge_wins).T
        pvalues[:, h] = one_sided_pvalues(differences, epsilon)
        advantage[:, h] = judge_wins.sum(axis=0) / items[h]
    tested = items >= max(min_items_per_human, 2)
    won = np.zeros((n_judges, n_humans), dtype=bool)
    for judge in range(n_judges):
        won[judge, tested] = by_rejections(pvalues[judge, tested], level)
    return AltTestResult(items, tested, pvalues, won, advantage)
