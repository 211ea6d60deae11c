"""Ceilings weighted by evidence: weights, the minimum, k, the warning, judges on thin data."""

import numpy as np
import pytest
from scipy.stats import spearmanr

import simcore
from simcore.instrument.ceiling.evidence import (
    MIN_SHARED,
    consensus_size,
    heavy_items,
    item_weights,
)
from simcore.instrument.ceiling.human_ceilings import _pair_table, human_ceilings, symmetric_ceiling
from simcore.instrument.ceiling.shapes import dense_reliability, gold_items_mask, graded_codes
from simcore.instrument.grouped_scores import replicate_weighted_means

Z = 1.959963984540054
"""Normal quantile of a 95% interval: SE = (high - low) / (2 Z)."""


def se(estimate):
    """Standard error read off a 95% percentile interval."""
    return (estimate.high - estimate.low) / (2 * Z)


# Three raters: (0, 1) share items 0-3, (0, 2) items 0-1, (1, 2) items 0, 1, 4 and 5.
TINY = np.array(
    [
        [0, 1, 2],
        [1, 0, 0],
        [2, 2, -1],
        [3, 4, -1],
        [-1, 3, 1],
        [-1, 1, 3],
    ]
)


def rho(a, b, rows):
    return spearmanr(TINY[rows, a], TINY[rows, b])[0]


def test_reliability_is_the_mean_weighted_by_shared_items_over_pairs_with_three():
    r01, r02 = rho(0, 1, [0, 1, 2, 3]), rho(0, 2, [0, 1])
    r12 = rho(1, 2, [0, 1, 4, 5])
    found = human_ceilings(TINY, True, n_boot=0)
    assert found.reliability.value == pytest.approx((4 * r01 + 4 * r12) / 8, abs=1e-12)
    assert found.unweighted_reliability.value == pytest.approx((r01 + r02 + r12) / 3)
    two = human_ceilings(TINY, True, n_boot=0, min_shared=2)
    assert two.reliability.value == pytest.approx((4 * r01 + 2 * r02 + 4 * r12) / 10)
    assert MIN_SHARED == 3 and found.min_shared == 3


def test_a_replicate_weighs_pairs_by_their_drawn_items_and_needs_distinct_ones():
    table = _pair_table(TINY, 1)[0]  # groups: pairs (0,1), (0,2), (1,2) in that order
    draw = np.array([[0, 0, 1, 2, 4, 4]])  # item 0 twice, 4 twice, 3 and 5 left out
    rows01, rows12 = [0, 0, 1, 2], [0, 0, 1, 4, 4]
    r01 = spearmanr(TINY[rows01, 0], TINY[rows01, 1])[0]  # 4 cells, 3 distinct items
    r12 = spearmanr(TINY[rows12, 1], TINY[rows12, 2])[0]  # 5 cells, 3 distinct items
    found = replicate_weighted_means(table, draw, True, 5, 3)[0]
    assert found == pytest.approx((4 * r01 + 5 * r12) / 9, abs=1e-12)
    # (0, 2) has cells on items 0, 0, 1: three cells but two distinct items, so it stays out
    only_twice = np.array([[0, 0, 1, 1, 1, 1]])
    assert np.isnan(replicate_weighted_means(table, only_twice, True, 5, 3)[0])


def test_item_weights_count_the_scored_pairs_on_each_item():
    table = _pair_table(TINY, 1)[0]
    usable = np.array([True, False, True])  # (0, 2) left out
    assert item_weights(table, usable).tolist() == [2, 2, 1, 1, 1, 1]


@pytest.mark.parametrize(
    ("weights", "expected"),
    [
        ([50, 40] + [1] * 88, (0, 1)),  # 2 items hold 90 of 178: concentrated
        ([30, 20] + [1] * 13, ()),  # 2 of 15 items hold half: more than a tenth of them
        ([5] * 40, ()),  # spread
        ([0] * 5, ()),
        ([3] + [0] * 40 + [600] + [1] * 400, (41,)),
    ],
)
def test_heavy_items_follow_the_concentration_rule(weights, expected):
    assert heavy_items(np.array(weights)) == expected


def test_k_is_the_harmonic_mean_over_items_with_two_raters():
    labels = np.full((5, 4), -1)
    for item, size in enumerate([1, 1, 2, 3, 4]):
        labels[item, :size] = 0
    k, k_others = consensus_size(labels)
    assert k == pytest.approx(3 / (1 / 2 + 1 / 3 + 1 / 4))
    assert k_others == pytest.approx(3 / (1 + 1 / 2 + 1 / 3))
    assert np.isnan(consensus_size(labels[:2])[0])


def test_k_on_a_sparse_matrix_is_not_the_median_of_one():
    rng = np.random.default_rng(3)
    mask = np.zeros((300, 8), bool)
    sizes = np.where(np.arange(300) < 90, rng.integers(2, 5, size=300), 1)
    for item, size in enumerate(sizes):
        mask[item, rng.choice(8, size=size, replace=False)] = True
    labels = graded_codes(mask, 0.5, seed=3)
    assert np.median(sizes) == 1
    found = human_ceilings(labels, True, n_boot=0)
    assert found.k == pytest.approx(1 / np.mean(1 / sizes[sizes >= 2]))
    assert found.k_others == pytest.approx(1 / np.mean(1 / (sizes[sizes >= 2] - 1)))
    assert 2 < found.k < 4


def test_on_gold_items_the_weighted_ceiling_finds_the_truth_and_the_unweighted_does_not():
    # 40 raters on 2 gold items, a panel of 4 on 200 more: 774 of 780 pairs share only the
    # gold items, so the unweighted r-hat is their mean of +-1 rho's.
    truth = dense_reliability(0.5)  # SE about 0.0013
    labels = graded_codes(gold_items_mask(), 0.5, seed=0)
    found = human_ceilings(labels, True, n_boot=200, seed=1)
    weighted, unweighted = found.reliability, found.unweighted_reliability
    assert abs(weighted.value - truth) <= 3 * se(weighted)
    assert abs(unweighted.value - truth) > 3 * se(unweighted)
    ceiling = symmetric_ceiling(truth, found.k)[0]
    assert abs(found.symmetric.value - ceiling) <= 3 * se(found.symmetric)
    assert found.heavy_items == ()  # the panel's pairs carry the weight, spread over items


def concentrated_frame(seed=0):
    """The ``concentrated`` shape as a long DataFrame, with its judges."""
    from simcore.realdata.shapes import draw_shape, long_frame

    humans, judges = draw_shape("concentrated", seed=seed)
    return long_frame(humans, judges), ",".join(judges)


def test_the_warning_names_the_items_that_carry_the_weight():
    table, judges = concentrated_frame()
    result = simcore.ceiling(table, judges=judges, boot=50, seed=1)
    group = result.to_dict()["groups"][0]
    assert group["heavy_items"] == ["item00000", "item00001"]
    assert group["heavy_share"] > 0.5 and group["warning"].startswith("2 of ")
    assert "(item00000, item00001)" in group["warning"]
    assert f"Warning (all): {group['warning']}." in result.to_markdown()
    assert group["k"] == pytest.approx(1 / ((2 / 60 + 298 / 2) / 300))
    assert group["min_shared"] == 3 and result.to_dict()["min_shared"] == 3


def sparse_judged(n_items, n_multi, seed):
    """A sparse matrix (most items one human) with judges 65% and 92% accurate."""
    from simcore.realdata.shapes import draw_matrix, long_frame

    rng = np.random.default_rng(seed)
    mask = np.zeros((n_items, 8), bool)
    for item in range(n_items):
        size = rng.integers(2, 4) if item < n_multi else 1
        mask[item, rng.choice(8, size=size, replace=False)] = True
    humans, judges = draw_matrix(
        n_items, 8, 2, 5, 1.0, 0.85, judge_accuracies=(0.65, 0.92), seed=seed, labelled=mask
    )
    return long_frame(humans, judges)


def test_judges_92_and_65_percent_are_told_apart_where_the_data_can():
    result = simcore.ceiling(sparse_judged(400, 150, 0), judges="judge0,judge1", boot=200)
    group = result.to_dict()["groups"][0]
    position = {judge["judge"]: judge["position"] for judge in group["judges"]}
    assert position["judge0"] == "below" and position["judge1"] in ("within", "above")
    assert not group["interval_wide"] and group["separation"] is None
    assert group["k"] > 2  # the median item has one human
    assert "at the ceiling" not in result.to_markdown()


def test_where_the_data_cannot_tell_them_apart_the_output_says_so():
    result = simcore.ceiling(sparse_judged(60, 20, 0), judges="judge0,judge1", boot=200)
    group = result.to_dict()["groups"][0]
    assert group["interval_wide"]
    assert [judge["position"] for judge in group["judges"]] == ["within", "within"]
    assert group["separation"].startswith("judges judge0, judge1 lie within the ceiling's")
    assert "the data cannot separate them from the ceiling" in group["separation"]
    text = result.to_markdown()
    assert f"Thin data: {group['separation']}." in text and "at the ceiling" not in text
    assert all("too thin to place this judge" in j["reading"] for j in group["judges"])


def test_min_shared_is_an_option_of_the_command(tmp_path, capsys):
    from simcore.cli import main

    data = tmp_path / "tiny.csv"
    lines = ["item,rater,label"]
    lines += [f"i{i},r{r},{code + 1}" for i, row in enumerate(TINY) for r, code in enumerate(row)]
    data.write_text("\n".join(line for line in lines if not line.endswith(",0")) + "\n")
    assert main(["ceiling", str(data), "--graded", "--min-shared", "2", "--boot", "1"]) == 0
    text = capsys.readouterr().out
    expected = human_ceilings(TINY, True, n_boot=0, min_shared=2).reliability.value
    assert "| all | 6 | 3 | " in text and f"{expected:.3f}" in text
    assert main(["ceiling", str(data), "--min-shared", "0"]) == 2
    assert "--min-shared: must be >= 1 (got 0)" in capsys.readouterr().err
