"""The rule's pair margins: the same scores as the L x L tables, in memory linear in L."""

import krippendorff
import numpy as np
import pytest

from simcore.engine import decide, point_rule
from simcore.engine import layout as engine_layout
from simcore.engine import point_rule as engine_point_rule
from simcore.engine.coefficients import (
    COEFFICIENTS,
    KRIPPENDORFF_ALPHA,
    marginal_score,
    score_table,
    table_score,
)
from simcore.model.rule import count_passes
from simcore.realdata.shapes import draw_matrix


def random_tables(seed, count=200, n_labels=4, high=6):
    """Random integer pair tables, with empty, one-label and one-row cases mixed in."""
    generator = np.random.default_rng(seed)
    tables = generator.integers(0, high, size=(count, n_labels, n_labels))
    tables[0] = 0  # empty
    tables[1] = 0
    tables[1, -1, -1] = 7  # one label throughout: kappa and alpha degenerate
    tables[2] = 0
    tables[2, 1, :] = 3  # the candidate uses one label
    tables[3] = 0
    tables[3, 0, 1] = 1  # a single disagreeing pair
    return tables


def margins(table):
    return table.sum(), np.trace(table), table.sum(axis=1), table.sum(axis=0)


@pytest.mark.parametrize("coefficient", range(len(COEFFICIENTS)))
@pytest.mark.parametrize("n_labels", [2, 3, 7])
def test_marginal_score_is_bit_identical_to_the_table_score(coefficient, n_labels):
    for table in random_tables(n_labels + 10 * coefficient, n_labels=n_labels):
        total, trace, rows, cols = margins(table)
        from_margins = marginal_score(total, trace, rows, cols, n_labels, coefficient)
        assert from_margins == table_score(table, coefficient)
        reference, degenerate = score_table(table, coefficient)
        assert from_margins[1] == bool(degenerate)
        assert abs(from_margins[0] - float(reference)) <= 1e-12


def test_alpha_from_margins_equals_the_krippendorff_package():
    # Every pair is a unit coded by two coders (candidate, pool human): the coincidence
    # matrix definition the package implements.
    checked = 0
    for table in random_tables(5, count=60, n_labels=4, high=5)[4:]:
        first, second = np.nonzero(table)
        units = np.repeat(np.stack([first, second]), table[first, second], axis=1)
        if len(np.unique(units)) < 2:
            continue  # no variation: the package raises where we score 0 and flag
        expected = krippendorff.alpha(
            reliability_data=units.astype(float),
            level_of_measurement="nominal",
            value_domain=list(range(4)),
        )
        total, trace, rows, cols = margins(table)
        score, degenerate = marginal_score(total, trace, rows, cols, 4, KRIPPENDORFF_ALPHA)
        assert not degenerate
        assert score == pytest.approx(expected, abs=1e-12)
        checked += 1
    assert checked > 40


def coded(raters, items, n_labels):
    """``{rater: {item: 'l0042'}}`` -> int16 codes ``(n, R)`` (missing -> 0) and a mask."""
    index = {item: i for i, item in enumerate(items)}
    codes = np.zeros((len(items), len(raters)), dtype=np.int16)
    present = np.zeros(codes.shape, dtype=bool)
    for r, labels in enumerate(raters.values()):
        for item, text in labels.items():
            codes[index[item], r] = int(text[1:])
            present[index[item], r] = True
    assert codes.max() < n_labels
    return codes, present


def crowd_arrays(n_items, n_humans, n_judges, n_labels, density, seed=3):
    humans, judges = draw_matrix(n_items, n_humans, n_judges, n_labels, density, seed=seed)
    items = sorted({item for labels in judges.values() for item in labels})
    human_codes, available = coded(humans, items, n_labels)
    judge_codes, _ = coded(judges, items, n_labels)
    return np.concatenate([human_codes, judge_codes], axis=1), available


def linear_bound(n_humans, n_judges, n_labels):
    """Bytes linear in L: the margins' entries with generous slack, no L^2 term."""
    return 8 * (4 * n_humans * (n_judges + 2) * (n_labels + 2) + 8 * n_labels + 16 * n_humans)


def scratch_bytes(scratch):
    if isinstance(scratch, np.ndarray):
        return scratch.nbytes
    if not isinstance(scratch, tuple):
        return 0  # a flag
    return sum(scratch_bytes(part) for part in scratch)


def test_a_label_space_of_5000_labels_runs_in_memory_linear_in_l():
    n_humans, n_judges, n_labels = 50, 4, 5000
    labels, available = crowd_arrays(300, n_humans, n_judges, n_labels, 0.1)
    thinned = available & (np.random.default_rng(1).random(available.shape) < 0.5)
    masks = np.stack([available, thinned])
    passes, counters, pool, ranking, tested = engine_point_rule.evaluate_masks(
        labels, masks, n_humans, n_labels, 0.05, 0, 0
    )
    assert passes.shape == (2, n_judges) and tested.tolist() == [n_humans, n_humans]
    assert np.isfinite(pool).all() and np.isfinite(ranking).all()
    tables = point_rule.pair_tables(n_humans, n_judges, n_labels)
    assert scratch_bytes(tables) == point_rule.margins_bytes(n_humans, n_judges, n_labels)
    for size in (n_labels, 2 * n_labels):  # doubling L at most doubles the scratch
        scratch = decide.rule_scratch(n_humans, n_judges, size)
        assert scratch_bytes(scratch) <= linear_bound(n_humans, n_judges, size)
    assert scratch_bytes(decide.rule_scratch(n_humans, n_judges, 2 * n_labels)) < 2.01 * (
        scratch_bytes(decide.rule_scratch(n_humans, n_judges, n_labels))
    )


@pytest.mark.parametrize("coefficient", COEFFICIENTS)
def test_evaluate_masks_on_a_small_label_space_equals_the_numpy_oracle(coefficient):
    n_humans, n_labels = 6, 3
    labels, available = crowd_arrays(80, n_humans, 2, n_labels, 0.4, seed=9)
    generator = np.random.default_rng(2)
    masks = available & (generator.random((40, *available.shape)) < 0.5)
    code = COEFFICIENTS.index(coefficient)
    passes, counters, _, _, tested = engine_point_rule.evaluate_masks(
        labels, masks, n_humans, n_labels, 0.05, code, 0
    )
    oracle = count_passes(
        np.broadcast_to(labels, (len(masks), *labels.shape)),
        masks,
        n_humans,
        0.05,
        coefficient,
        n_labels,
    )
    np.testing.assert_array_equal(passes, oracle.n_pass)
    np.testing.assert_array_equal(counters[:, engine_layout.EMPTY], oracle.n_empty)
    np.testing.assert_array_equal(counters[:, engine_layout.DEGENERATE], oracle.n_degenerate)
    np.testing.assert_array_equal(tested, oracle.n_tested)


def test_the_real_memory_estimate_does_not_refuse_a_large_label_space():
    from simcore.studies.real.cells import GroupMatrix, RealContext, memory_need

    n, humans, judges, n_labels = 1000, 50, 4, 4400
    group = GroupMatrix(
        name="g",
        labels=np.zeros((n, humans + judges), dtype=np.int16),
        human_codes=np.zeros((n, humans), dtype=np.int16),
        available=np.ones((n, humans), dtype=bool),
        n_humans=humans,
        n_labels=n_labels,
        full_omega=np.zeros(judges),
        full_accept=np.zeros(judges, dtype=bool),
        judge_class=np.zeros(judges, dtype=np.int8),
        full_ranking=np.zeros(judges),
        full_agreement=0.0,
        n_items=n,
        density=1.0,
    )
    need, _ = memory_need(RealContext((group,), ("j",) * judges, "s", (), ()))
    assert need < 256 * 2**20  # the old L x L tables needed 2 x 50 x 5 x 4400^2 x 8 B = 77 GB
