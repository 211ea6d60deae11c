"""The verdict on the data as it is: leave-one-out comparisons, their intervals, the decision.

Per judge, every leave-one-out comparison ``d_k`` with its item-cluster confidence interval and the
pairs behind it (:func:`comparison_intervals`), omega, the effective K (comparisons with at least
two items), the point rule's decision and the interval verdict (:func:`verdicts`,
docs/explanation/rule.md); the alternative annotator test (docs/explanation/rule.md): per human its
p-value, Benjamini-Yekutieli decision and advantage, per judge the winning rate and the advantage
probability (:func:`alt_test_verdict`).
"""

import math

import numpy as np
from scipy import stats

from simcore.advisor.interval_risk import normal_approximation_risk
from simcore.advisor.scoring import scored_comparison
from simcore.engine import alt_test as engine_alt_test
from simcore.model.alt_test_reference import alternative_annotator_test
from simcore.model.rule import ACCEPT, INCONCLUSIVE, REJECT, decide, decide_counts

DECISIONS = {ACCEPT: "accept", REJECT: "reject", INCONCLUSIVE: "inconclusive"}


def comparison_intervals(human_labels, judge_labels, epsilon, confidence=0.95, scoring=None):
    """Return every judge's leave-one-out comparisons with item-cluster intervals.

    For held-out human ``k`` and an item ``i`` it labelled, with ``c_i`` other humans on the
    item, ``D_i = sum_q [judge == q] - [k == q]`` over those humans;
    ``d_k = sum D_i / sum c_i`` (the judge's minus human ``k``'s observed agreement with the
    pool), ``SE = sqrt(n / (n - 1) sum (D_i - d_k c_i)^2) / sum c_i`` over the ``n`` items
    (a ratio estimator with items as clusters). The comparison *clears* the bar ``d_k >=
    -eps`` when ``d_k + eps - z SE >= 0``, *fails* it when ``d_k + eps + z SE < 0``, and is
    *undecided* otherwise or with fewer than two items. Under another coefficient
    (``scoring``, :mod:`simcore.advisor.scoring`) ``d_k`` is the difference of the two pair
    tables' scores, with the weighted ratio estimator's SE (observed agreement with weights)
    or the delete-one-item jackknife SE.

    Parameters
    ----------
    human_labels : numpy.ndarray
        ``(n, K)`` codes, negative where a human did not label the item.
    judge_labels : numpy.ndarray
        ``(n, J)`` codes.
    epsilon : float
        Tolerance eps.
    confidence : float
        Two-sided confidence of each interval.
    scoring : simcore.advisor.scoring.Scoring, optional
        The comparisons' coefficient (default: the paper's observed agreement).

    Returns
    -------
    list of list of dict
        ``[judge][k]``: ``d``, ``se``, ``low``, ``high`` (interval of ``d_k``), ``items``,
        ``pairs``, ``passes`` (point rule: ``d_k >= -eps``; an empty comparison passes),
        ``verdict`` (``clears``, ``fails``, ``undecided``).
    """
    z = float(stats.norm.ppf(0.5 + confidence / 2))
    observed = human_labels >= 0
    if scoring is not None:
        return [
            [
                weighted_comparison(human_labels, judge_labels[:, judge], k, scoring, epsilon, z)
                for k in range(human_labels.shape[1])
            ]
            for judge in range(judge_labels.shape[1])
        ]
    return [
        [
            held_out_comparison(human_labels, observed, judge_labels[:, [judge]], k, epsilon, z)
            for k in range(human_labels.shape[1])
        ]
        for judge in range(judge_labels.shape[1])
    ]


def weighted_comparison(human_labels, judge_column, k, scoring, epsilon, z):
    """Return one row of :func:`comparison_intervals` under ``scoring``.

    :func:`simcore.advisor.scoring.scored_comparison`: observed agreement with weights is
    the ratio estimator of the weighted ``D_i`` (:func:`comparison_row`), another
    coefficient the tables' score difference with its jackknife SE (:func:`decided_row`).
    """
    d, se, items, pairs, difference, item_pairs = scored_comparison(
        human_labels, judge_column, k, scoring
    )
    if difference is not None:
        return comparison_row(difference, item_pairs, epsilon, z)
    if items == 0:
        return comparison_row(np.zeros(0), np.zeros(0), epsilon, z)
    return decided_row(d, se, items, pairs, epsilon, z)


def held_out_comparison(human_labels, observed, judge_column, k, epsilon, z):
    """Return one row of :func:`comparison_intervals`: the judge against held-out human ``k``.

    ``judge_column`` is the judge's ``(n, 1)`` codes, ``z`` the interval's normal quantile.
    """
    n_humans = human_labels.shape[1]
    others = observed & (np.arange(n_humans) != k)
    pool = others.sum(axis=1)
    items = observed[:, k] & (pool > 0)
    own = ((human_labels == human_labels[:, [k]]) & others).sum(axis=1)
    agree = ((human_labels == judge_column) & others).sum(axis=1)
    difference = (agree - own)[items].astype(float)
    pairs = pool[items].astype(float)
    return comparison_row(difference, pairs, epsilon, z)


def comparison_row(difference, pairs, epsilon, z):
    """Return ``d_k``, its interval and verdict from the items' ``D_i`` and ``c_i``."""
    n = len(difference)
    total_pairs = float(pairs.sum())
    if n == 0:
        return {
            "d": math.nan,
            "se": math.nan,
            "low": math.nan,
            "high": math.nan,
            "items": 0,
            "pairs": 0,
            "passes": True,
            "verdict": "undecided",
        }
    d = float(difference.sum() / total_pairs)
    se = (
        math.sqrt(n / (n - 1) * float(((difference - d * pairs) ** 2).sum())) / total_pairs
        if n > 1
        else math.nan
    )
    return decided_row(d, se, n, total_pairs, epsilon, z)


def decided_row(d, se, n, total_pairs, epsilon, z):
    """Return the comparison row of ``d_k`` and its SE over ``n`` items: interval, verdict."""
    centre = d + epsilon
    if n > 1 and centre - z * se >= -1e-12:
        verdict = "clears"
    elif n > 1 and centre + z * se < -1e-12:
        verdict = "fails"
    else:
        verdict = "undecided"
    return {
        "d": d,
        "se": se,
        "low": d - z * se,
        "high": d + z * se,
        "items": n,
        "pairs": int(total_pairs),
        "passes": bool(centre >= -1e-9),
        "verdict": verdict,
    }


def alt_test_verdict(
    human_labels,
    judge_labels,
    epsilon,
    min_items=30,
    level=0.05,
    scale="categorical",
    label_values=None,
    similarity=None,
):
    """Return the alternative annotator test's result (:class:`AltTestResult`).

    The test as its authors publish it (docs/explanation/rule.md)
    (:func:`simcore.model.alt_test_reference.alternative_annotator_test`, whose
    :class:`~simcore.model.alt_test_reference.AltTestResult` it returns): items with fewer
    than 2 human labels dropped, humans with fewer than ``min_items``
    items skipped, Benjamini-Yekutieli at ``level``; per judge the winning rate and the
    advantage probability, per human the p-value, the BY decision and the advantage.
    ``similarity`` holds the weighted scale's agreement weights.
    """
    return alternative_annotator_test(
        human_labels, judge_labels, epsilon, 2, min_items, level, scale, label_values, similarity
    )


def alt_test_item_terms(scale, label_values=None, scoring=None):
    """Return the kernels' ``(numeric, pair_terms)`` of the alt_test's per-item score.

    None for accuracy (categorical); ``(True, (v_a - v_b)**2)`` for minus the RMSE of the
    label values ``v`` (numeric); ``(False, W)`` for the mean agreement weight (weighted,
    ``W`` the weights of ``scoring``, a :class:`simcore.model.weighted.Scoring`). The
    simulated matrices are scored as the verdict is
    (:func:`simcore.engine.alt_test.alternative_annotator_test`).
    """
    if scale == "numeric":
        values = np.asarray(label_values, dtype=float)
        return True, (values[:, None] - values[None, :]) ** 2
    if scale == "weighted":
        return False, np.ascontiguousarray(scoring.weighting[1], dtype=float)
    return None


def alt_test_decisions(labels, mask, n_humans, epsilon, tau, terms=None):
    """Return the alt_test's sparse and dense decisions of every drawn matrix, ``(T,)`` each.

    Draw ``t`` is ``labels[t]`` ``(n, K + 1)`` (the judge last) under ``mask[t]``, and
    under every label for the dense decision; items are scored by ``terms``
    (:func:`alt_test_item_terms`; None: accuracy) with the test's defaults (2 humans per
    item, 30 items per human, BY at 0.05; :mod:`simcore.engine.alt_test`).
    """
    numeric, pair_terms = (False, None) if terms is None else terms
    n_trials = labels.shape[0]
    sparse = np.empty(n_trials, dtype=np.int8)
    dense = np.empty(n_trials, dtype=np.int8)
    full = np.ones(mask.shape[1:], dtype=bool)
    for t in range(n_trials):
        for out, this_mask in ((sparse, mask[t]), (dense, full)):
            wins, tested, _, _ = engine_alt_test.alternative_annotator_test(
                labels[t], this_mask, n_humans, epsilon, 2, 30, 0.05, numeric, pair_terms
            )
            out[t] = decide_counts(
                int(wins[0]), tested - int(wins[0]), tested, tau, kind="alt_test"
            )
    return sparse, dense


def numeric_label_values(labels):
    """Return the labels' numeric values (for ``scale: numeric``), or raise naming a bad one."""
    values = []
    for label in labels:
        try:
            values.append(float(label))
        except ValueError:
            raise ValueError(
                f"--scale numeric: every label must be a number (got {label!r})"
            ) from None
    return np.array(values)


def alt_test_row(result, judge, tau, scale, scoring):
    """Return ``(omega, decision, extra)`` of ``judge`` under the alt_test's ``result``.

    omega is the winning rate (wins / humans tested, NaN with none); ``extra`` the row's
    ``wins``, ``tested``, ``advantage_probability``, ``scale``, ``weights`` (the weighted
    scale's, else None) and ``alt_test`` (:func:`alt_test_rows`).
    """
    wins, tested = int(result.wins[judge]), int(result.n_tested)
    omega = wins / tested if tested else math.nan
    decision = decide_counts(wins, tested - wins, tested, tau, kind="alt_test")
    extra = {
        "wins": wins,
        "tested": tested,
        "advantage_probability": float(result.advantage_probability[judge]),
        "scale": scale,
        "weights": scoring.weights if scale == "weighted" else None,
        "alt_test": alt_test_rows(result, judge),
        "left_out": 0,
    }
    return omega, decision, extra


def alt_test_rows(result, judge):
    """Return one dict per human: items, tested, p-value, BY win and advantage of ``judge``."""
    return [
        {
            "items": int(result.items[h]),
            "tested": bool(result.tested[h]),
            "pvalue": float(result.pvalues[judge, h]),
            "won": bool(result.won[judge, h]),
            "advantage": float(result.advantage[judge, h]),
        }
        for h in range(len(result.items))
    ]


def point_verdict(comparisons, tau, min_pairs=0):
    """Return ``(omega, decision, counts)`` of the point rule over one judge's comparisons.

    Comparisons with fewer than ``min_pairs`` pairs are left out: ``omega = passes / tested`` over
    those kept, inconclusive when none is (docs/explanation/rule.md; ``rule.min_pairs``). ``counts``
    holds ``tested`` and ``left_out``.
    """
    kept = [row for row in comparisons if row["pairs"] >= min_pairs]
    passes = sum(row["passes"] for row in kept)
    omega = passes / len(kept) if kept else math.nan
    decision = decide(passes, len(comparisons), tau, tested=len(kept))
    return omega, decision, {"tested": len(kept), "left_out": len(comparisons) - len(kept)}


def interval_risk(rule, dense, comparisons, decision, epsilon, tau):
    """Return the interval risk of a verdict: NaN under ``alt_test``, 0 on a dense matrix.

    Otherwise :func:`simcore.advisor.interval_risk.normal_approximation_risk` of the point
    rule's ``decision`` from the ``comparisons``; on a dense matrix each ``d_k`` is the
    dense one, so ``P(dense decision != decision) = 0`` exactly.
    """
    if rule == "alt_test":
        return math.nan
    if dense:
        return 0.0
    return normal_approximation_risk(comparisons, DECISIONS[int(decision)], epsilon, tau)


def verdicts(human_labels, judge_labels, judge_names, rule, confidence=0.95):
    """Return one row per judge: omega, effective K, decision, interval verdict, comparisons.

    ``rule`` is the :class:`~simcore.advisor.settings.AuditRule` (its kind, ``epsilon``, ``tau``,
    ``min_pairs``, ``scoring``, ``scale`` and ``label_values``). The point rule leaves out a
    comparison with fewer than ``min_pairs`` pairs: omega is ``passes / tested`` over the
    comparisons kept, inconclusive when none is kept; with ``min_pairs = 0`` (the paper's
    convention) every comparison is kept and an empty one passes. Each row counts its ``empty``
    comparisons (no pair) and those ``left_out``, and holds the ``interval_risk``: the probability
    that the dense decision differs, read from the comparison intervals alone
    (:func:`simcore.advisor.interval_risk.normal_approximation_risk`; NaN under the alternative
    annotator test; 0 on a dense matrix, whose verdict is the dense one).

    With ``rule.kind == "alt_test"`` omega is the winning rate (wins / humans tested), the row
    also holds ``wins``, ``tested``, ``advantage_probability`` and ``alt_test`` (per human,
    :func:`alt_test_rows`), and ``rule.scale`` / ``rule.label_values`` choose the per-item score
    (the weighted scale takes the weights of ``scoring``, and the row names them).
    ``scoring`` is the point rule's coefficient (:func:`comparison_intervals`).
    """
    kind, epsilon, tau, scoring, scale = rule.kind, rule.epsilon, rule.tau, rule.scoring, rule.scale
    comparisons = comparison_intervals(human_labels, judge_labels, epsilon, confidence, scoring)
    n_humans = human_labels.shape[1]
    dense = human_labels.size > 0 and bool((human_labels >= 0).all())
    if kind == "alt_test":
        similarity = scoring.weighting[1] if scale == "weighted" else None
        result = alt_test_verdict(
            human_labels,
            judge_labels,
            epsilon,
            scale=scale,
            label_values=rule.label_values,
            similarity=similarity,
        )
        tested = result.n_tested
    rows = []
    for judge, name in enumerate(judge_names):
        rows_k = comparisons[judge]
        clears = sum(row["verdict"] == "clears" for row in rows_k)
        fails = sum(row["verdict"] == "fails" for row in rows_k)
        effective = sum(row["items"] >= 2 for row in rows_k)
        if kind == "alt_test":
            omega, decision, extra = alt_test_row(result, judge, tau, scale, scoring)
            effective = tested
        else:
            omega, decision, extra = point_verdict(rows_k, tau, rule.min_pairs)
        extra["empty"] = sum(row["pairs"] == 0 for row in rows_k)
        extra["interval_risk"] = interval_risk(kind, dense, rows_k, decision, epsilon, tau)
        interval = decide_counts(clears, fails, n_humans, tau, kind="interval")
        rows.append(
            {
                "judge": name,
                "omega": float(omega),
                "effective_k": int(effective),
                "decision": DECISIONS[int(decision)],
                "interval_verdict": DECISIONS[int(interval)],
                "comparisons": rows_k,
                **extra,
            }
        )
    return rows
