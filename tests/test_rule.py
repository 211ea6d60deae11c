"""Hand-built matrices with known decisions, checked in the NumPy rule and in the kernel."""

import numpy as np
import pytest

from simcore.engine import layout as engine_layout
from simcore.engine import point_rule as engine_point_rule
from simcore.model.rule import ACCEPT, INCONCLUSIVE, REJECT, decide, leave_one_out

MISSING = -1


def kernel_passes(humans, judges, epsilon):
    """Run the jitted rule on one hand-built matrix (-1 = not labelled)."""
    humans = np.asarray(humans)
    judges = np.asarray(judges).reshape(len(humans), -1)
    labels = np.concatenate([np.maximum(humans, 0), judges], axis=1).astype(np.int16)[None]
    mask = (humans >= 0)[None]
    n_labels = int(labels.max()) + 1
    passes, counters, _ = engine_point_rule.evaluate(
        labels, mask, humans.shape[1], max(n_labels, 2), epsilon, 0
    )
    return passes[0, 0], int(counters[0, engine_layout.EMPTY])


def test_two_two_tie_accepts_at_half():
    # Humans 0 and 1 are identical, as are 2 and 3. The judge agrees with humans 0 and 1
    # on 4 of 6 items and with humans 2 and 3 on 2 of 6 (counted by hand below).
    humans = np.array(
        [
            [0, 0, 1, 1],
            [1, 1, 0, 0],
            [0, 0, 1, 1],
            [1, 1, 0, 0],
            [0, 0, 0, 0],
            [1, 1, 1, 1],
        ]
    )
    judge = np.array([0, 0, 0, 1, 0, 0])
    result = leave_one_out(humans, judge, epsilon=0.0, tau=0.5)
    # k = 0: pool {1, 2, 3}, 18 pairs; judge 4 + 2 + 2 = 8 agreements, human 0 6 + 2 + 2.
    # k = 2: pool {0, 1, 3}; judge 4 + 4 + 2 = 10, human 2 2 + 2 + 6 = 10 (a tie passes).
    assert result.n_pairs.tolist() == [18, 18, 18, 18]
    np.testing.assert_allclose(result.judge_score[0] * 18, [8, 8, 10, 10])
    np.testing.assert_allclose(result.human_score * 18, [10, 10, 10, 10])
    np.testing.assert_array_equal(result.passes[0], [False, False, True, True])
    assert result.omega[0] == 0.5
    assert result.accept[0]
    assert not leave_one_out(humans, judge, epsilon=0.0, tau=0.6).accept[0]
    sparse, _ = kernel_passes(humans, judge, 0.0)
    assert sparse[0] == 2


def test_empty_comparison_passes_and_is_counted():
    # Secondary 2 labels only item 0, which no other secondary labels; the primary does,
    # so comparison 2 has pairs. Secondary 1 labels nothing: comparison 1 is empty.
    humans = np.array(
        [
            [0, MISSING, 1],
            [1, MISSING, MISSING],
            [0, MISSING, MISSING],
        ]
    )
    judge = np.array([1, 0, 1])  # wrong on every item the primary labelled
    result = leave_one_out(humans, judge, epsilon=0.05)
    np.testing.assert_array_equal(result.n_pairs, [1, 0, 1])
    np.testing.assert_array_equal(result.empty, [False, True, False])
    assert result.judge_score[0, 1] == 0 and result.human_score[1] == 0
    assert result.passes[0, 1]  # empty passes
    sparse, empty = kernel_passes(humans, judge, 0.05)
    assert empty == 1
    assert sparse[0] == result.passes[0].sum()


def test_pairs_are_pooled_not_averaged_per_item():
    # Held-out primary (k = 0): item 0 has three pool labels, item 1 has one.
    # Judge agrees with all three pool labels on item 0 and disagrees on item 1.
    humans = np.array(
        [
            [0, 0, 0, 0],
            [1, 0, MISSING, MISSING],
        ]
    )
    judge = np.array([0, 1])
    result = leave_one_out(humans, judge, epsilon=0.0)
    # Pooled: 3 agreements of 4 pairs = 0.75; averaged per item it would be 0.5.
    assert result.n_pairs[0] == 4
    assert result.judge_score[0, 0] == pytest.approx(0.75)
    # Human 0 agrees on item 0's three pairs and disagrees on item 1: also 0.75.
    assert result.human_score[0] == pytest.approx(0.75)


@pytest.mark.parametrize(
    ("n_pairs", "human_agree"), [(20, 4), (20, 8), (40, 11), (60, 23), (20, 20), (100, 50)]
)
def test_exact_tie_at_minus_epsilon_passes(n_pairs, human_agree):
    # Primary and one secondary label every item, so each comparison has n_pairs pairs.
    # The secondary agrees with the primary on human_agree items; the judge agrees with
    # each human n_pairs / 20 fewer times: d_k = -0.05 exactly in real arithmetic.
    behind = n_pairs // 20
    primary = np.zeros(n_pairs, dtype=int)
    secondary = np.ones(n_pairs, dtype=int)
    secondary[:human_agree] = 0
    # The judge copies the primary on the agreeing items except `behind` of them, where
    # it says 1; elsewhere it says 2, agreeing with neither human.
    judge = np.full(n_pairs, 2)
    judge[:human_agree] = 0
    judge[:behind] = 1
    humans = np.stack([primary, secondary], axis=1)
    result = leave_one_out(humans, judge, epsilon=0.05)
    np.testing.assert_allclose(result.difference[0] * n_pairs, [-behind, -behind])
    np.testing.assert_array_equal(result.passes[0], [True, True])
    assert kernel_passes(humans, judge, 0.05)[0][0] == 2
    # One more disagreement fails both comparisons.
    judge[behind] = 2
    assert not leave_one_out(humans, judge, epsilon=0.05).passes.any()
    assert kernel_passes(humans, judge, 0.05)[0][0] == 0


def test_floating_point_comparison_would_get_ties_wrong():
    # Why the rule compares on counts: 3/20 >= 4/20 - 0.05 is false in floating point.
    assert not 3 / 20 >= 4 / 20 - 0.05


def test_decide_with_band_and_thresholds():
    n_pass = np.array([0, 1, 2, 3, 4])
    np.testing.assert_array_equal(decide(n_pass, 4, 0.5), [REJECT, REJECT, ACCEPT, ACCEPT, ACCEPT])
    np.testing.assert_array_equal(decide(n_pass, 4, 0.75), [REJECT, REJECT, REJECT, ACCEPT, ACCEPT])
    np.testing.assert_array_equal(
        decide(n_pass, 4, 0.5, inconclusive=(0.25, 0.75)),
        [REJECT, INCONCLUSIVE, INCONCLUSIVE, ACCEPT, ACCEPT],
    )
    # Odd K: tau = 0.5 needs 2 of 3.
    np.testing.assert_array_equal(decide(np.arange(4), 3, 0.5), [REJECT, REJECT, ACCEPT, ACCEPT])


def test_several_judges_are_decided_independently():
    humans = np.array([[0, 0, 0], [1, 1, 1], [0, 0, 1], [1, 1, 1]])
    judges = np.stack([humans[:, 0], 1 - humans[:, 0]], axis=1)
    result = leave_one_out(humans, judges, epsilon=0.05)
    np.testing.assert_array_equal(result.accept, [True, False])
    sparse, _ = kernel_passes(humans, judges, 0.05)
    np.testing.assert_array_equal(sparse, result.passes.sum(axis=1))
