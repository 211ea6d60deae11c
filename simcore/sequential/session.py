"""One turn of the loop: every judge's sequential verdict after the looks taken so far.

The looks are the matrix as each saw it (``(T, n, K)`` human codes,
:func:`simcore.sequential.looks.look_snapshots`); each judge's comparisons are their terms
frozen at entry (:func:`simcore.sequential.terms.comparison_sequence`), read by
:func:`simcore.sequential.verdict.judge_verdict`. The labels a judge's verdict spent are the
human labels read by the look where it settled (under ``point``: the look where the
``need``-th comparison settled for it, or the one after which too few could; under
``alt_test``, whose e-BH reads the current capitals, the look now), or all labels read while
it is open.
"""

from simcore.sequential.terms import comparison_sequence, item_order
from simcore.sequential.verdict import OPEN, SETTLED_ACCEPT, judge_verdict


def judge_sequences(snapshots, judge_codes, settings, ranks):
    """Return ``[(terms, entry looks)]`` of every comparison of one judge."""
    return [
        comparison_sequence(snapshots, judge_codes, k, settings.epsilon, settings.rule, ranks)[:2]
        for k in range(snapshots.shape[2])
    ]


def settled_look(verdict, n_looks, rule):
    """Return the 1-based look at which ``verdict`` settled (None while open)."""
    if verdict["verdict"] == OPEN:
        return None
    if rule == "alt_test":
        return n_looks
    rows = verdict["comparisons"]
    if verdict["verdict"] == SETTLED_ACCEPT:
        looks = sorted(row["settled_look"] for row in rows if row["status"] == "for")
        return looks[verdict["needed"] - 1]
    looks = sorted(row["settled_look"] for row in rows if row["status"] == "against")
    return looks[len(rows) - verdict["needed"]]


def judges_at_look(snapshots, judge_labels, judges, item_ids, settings):
    """Return ``{judge: verdict}`` after the looks in ``snapshots``, with labels spent.

    Parameters
    ----------
    snapshots : numpy.ndarray
        ``(T, n, K)`` human codes as each look saw them.
    judge_labels : numpy.ndarray
        ``(n, J)`` the judges' codes.
    judges : sequence of str
        The judges' names.
    item_ids : sequence of str
        The items' ids (their hash order orders the items within a look).
    settings : SequentialSettings
        Rule, eps, alpha, tau.

    Returns
    -------
    verdicts : dict
        Per judge, :func:`~simcore.sequential.verdict.judge_verdict`'s mapping with
        ``settled_look`` and ``labels_spent`` added.
    terms : dict
        Per judge, each comparison's terms in entry order (what the next round is sized on).
    """
    ranks = item_order(item_ids)
    read = (snapshots >= 0).sum(axis=(1, 2))
    verdicts, terms = {}, {}
    for column, judge in enumerate(judges):
        sequences = judge_sequences(snapshots, judge_labels[:, column], settings, ranks)
        verdict = judge_verdict(sequences, settings)
        look = settled_look(verdict, snapshots.shape[0], settings.rule)
        spent = read[-1] if look is None else read[look - 1]
        verdicts[judge] = {**verdict, "settled_look": look, "labels_spent": int(spent)}
        terms[judge] = [values for values, _ in sequences]
    return verdicts, terms
