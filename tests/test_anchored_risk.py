"""advise's anchored risk: simulated comparisons moved to where the data put them."""

import numpy as np
import pytest

from simcore.advisor.anchored import (
    anchored_decisions,
    comparison_changes,
    expected_changes,
    judge_anchor,
    point_decisions,
    simulated_differences,
)
from simcore.advisor.risk.posterior import Channels, _decisions, posterior_risk
from simcore.advisor.settings import AuditRule, Draws
from simcore.advisor.verdict import comparison_intervals, verdicts
from simcore.model.generative import symmetric_confusion
from simcore.model.rule import decide


def sparse_labels(seed, n_trials, n_items, n_humans, n_labels, coverage):
    """Random ``(T, n, K + 1)`` labels and a ``(T, n, K)`` mask, the primary dense."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, n_labels, (n_trials, n_items, n_humans + 1)).astype(np.int16)
    mask = rng.random((n_trials, n_items, n_humans)) < coverage
    mask[..., 0] = True
    return labels, mask


@pytest.mark.parametrize("n_humans, n_labels, coverage", [(3, 2, 0.3), (6, 5, 0.15), (4, 3, 1.0)])
def test_the_kernel_gives_the_verdicts_differences_and_pairs(n_humans, n_labels, coverage):
    labels, mask = sparse_labels(7, 5, 60, n_humans, n_labels, coverage)
    d, pairs = simulated_differences(labels, mask, n_humans, n_labels)
    for t in range(len(labels)):
        humans = np.where(mask[t], labels[t, :, :n_humans], -1).astype(np.int64)
        judge = labels[t, :, n_humans:].astype(np.int64)
        rows = comparison_intervals(humans, judge, 0.05)[0]
        assert pairs[t].tolist() == [row["pairs"] for row in rows]
        expected = np.array([row["d"] for row in rows])
        assert np.allclose(d[t], expected, equal_nan=True, rtol=0, atol=1e-12)


def test_an_empty_comparison_is_nan_with_no_pair():
    labels, mask = sparse_labels(3, 2, 20, 3, 2, 1.0)
    mask[..., 2] = False  # human 2 labels nothing
    mask[:, 5:, 1] = False
    d, pairs = simulated_differences(labels, mask, 3, 2)
    assert np.isnan(d[:, 2]).all() and (pairs[:, 2] == 0).all()
    assert (pairs[:, 1] == 5).all()


def test_with_the_data_as_the_only_draw_anchoring_changes_nothing():
    """Anchored at a draw's own comparisons, the decisions are the unanchored kernel's."""
    labels, mask = sparse_labels(11, 40, 80, 4, 3, 0.35)
    available = mask[0]
    masks = np.broadcast_to(available, mask.shape).copy()
    for t in range(len(labels)):
        one = labels[t : t + 1]
        humans = np.where(available, one[0, :, :4], -1).astype(np.int64)
        row = verdicts(humans, one[0, :, 4:].astype(np.int64), ("judge",), AuditRule())[0]
        anchor = judge_anchor(row)
        got = anchored_decisions(one, masks[t : t + 1], available, anchor, 3, AuditRule())
        want = _decisions(one, masks[t : t + 1], 4, 3, AuditRule())
        assert [int(got[0][0]), int(got[1][0])] == [int(want[0][0]), int(want[1][0])]
        assert {1: "accept", 0: "reject"}[int(got[0][0])] == row["decision"]


def test_without_a_proposal_the_sparse_decision_is_the_observed_one():
    labels, mask = sparse_labels(5, 30, 50, 3, 2, 0.3)
    available = mask[0]
    for anchor, expected in (([0.2, 0.2, 0.2], 1), ([-0.3, -0.3, 0.2], 0)):
        sparse, _ = anchored_decisions(
            labels, np.broadcast_to(available, mask.shape), available, anchor, 2, AuditRule()
        )
        assert (sparse == expected).all()
        assert point_decisions(np.array([anchor]), np.ones((1, 3)), 0.05, 0.5)[0] == expected


def test_the_risk_follows_the_observed_distance_from_the_bar():
    """Far above the bar the dense verdict agrees; at the bar it is a coin toss."""
    confusions = np.stack([symmetric_confusion(p, 2) for p in (0.85, 0.85, 0.85, 0.80)])
    model = Channels(confusions, np.array([0.5, 0.5]))
    available = np.ones((300, 3), dtype=bool)
    available[40:, 1:] = False
    draws = Draws(trials=400, seed=2)
    far, trials = posterior_risk([model], available, 0, draws=draws, anchor=np.full(3, 0.3))
    assert far == 0 and trials == 400
    near, trials = posterior_risk([model], available, 0, draws=draws, anchor=np.full(3, -0.05))
    # every comparison on the bar: the sparse verdict accepts (all pass), the dense one
    # rejects when two of the three land below: about half the time
    assert 0.3 < near / trials < 0.7
    assert decide(np.array([3]), 3, 0.5)[0] == 1


def test_the_centred_draws_average_to_the_observed_comparisons():
    labels, mask = sparse_labels(13, 200, 60, 3, 3, 0.25)
    available = mask[0]
    masks = np.broadcast_to(available, mask.shape)
    proposal = masks | (np.random.default_rng(1).random(mask.shape) < 0.2)
    to_proposal, to_dense = expected_changes(labels, proposal, available, 3)
    now, after, _, dense, _ = comparison_changes(labels, proposal, available, 3)
    anchor = np.array([0.1, -0.2, 0.05])
    assert np.allclose((anchor + (dense - now) - to_dense).mean(axis=0), anchor)
    assert np.allclose((anchor + (after - now) - to_proposal).mean(axis=0), anchor)
    # a column no draw defines changes by 0, not NaN
    assert (expected_changes(labels, proposal, np.zeros_like(available), 3)[1] == 0).all()


def test_an_anchored_risk_continues_across_calls():
    confusions = np.stack([symmetric_confusion(p, 2) for p in (0.8, 0.75, 0.85, 0.8)])
    models = [Channels(confusions, np.array([0.4, 0.6]))] * 12
    available = np.ones((200, 3), dtype=bool)
    available[30:, 1:] = False
    anchor = np.array([-0.04, -0.06, -0.05])
    whole = posterior_risk(models, available, 0, draws=Draws(300, seed=4), anchor=anchor)
    first = posterior_risk(models, available, 0, draws=Draws(100, seed=4), anchor=anchor)
    rest = posterior_risk(models, available, 0, draws=Draws(200, 4, first=100), anchor=anchor)
    assert whole == (first[0] + rest[0], 300)
