"""Cells that ask for fewer outputs (``outputs:``) decide exactly as cells that ask for all.

The kernels leave out the overlap statistics, the pool's agreement or the ranking when a
cell does not ask for them (``rule[RULE_SKIP]``); everything else a trial computes must be
bit-identical, for every rule kind, design and engine, from the same seeds.
"""

import numpy as np
import pytest

from simcore.engine import layout as engine_layout
from simcore.studies.config import ScenarioError
from simcore.studies.synthetic.cell import count_outcomes, simulate_cell
from simcore.studies.synthetic.config import OUTPUTS
from simcore.studies.synthetic.scenario import scenario_from_dict

DESIGNS = ("bernoulli", "exact_m", "shared_panel", "strat", "seq_refined", "seq_coverage")
RULES = ("point", "alt_test", "interval")

OVERLAP_COUNTERS = (engine_layout.SHARED,)
AGREEMENT_COUNTERS = (engine_layout.POOL_UNDEFINED, engine_layout.POOL_UNDEFINED_DENSE)


def make_cell(design, rule, outputs, engine="auto", clusters=False):
    """A small cell with two judges (so that it ranks) and few items (fast to run)."""
    model = {"n_items": 60, "n_humans": 4, "p_judge": [0.85, 0.75], "p_human": 0.8}
    if clusters:
        model.update(n_clusters=6, cluster_spread=0.5)
    size = {"rho": 0.3} if design == "bernoulli" else {"m": 20}
    raw = {
        "model": model,
        "design": {"kind": design, **size},
        "rule": {"kind": rule, "min_items_per_human": 3},
        "engine": engine,
        "trials": 1,
        "seed": 7,
    }
    if outputs is not None:
        raw["outputs"] = list(outputs)
    (cell,) = scenario_from_dict(raw).cells()
    return cell


def shared_columns(outputs, requested):
    """The arrays (by name) that a cell asking for ``requested`` computes."""
    counters = list(range(engine_layout.N_COUNTERS))
    values = [engine_layout.EXTRA_ITEMS]
    arrays = {
        name: getattr(outputs, name)
        for name in ("favour", "against", "tested", "reference_favour", "reference_tested")
    }
    arrays["skipped"] = outputs.skipped
    if "overlap" in requested:
        arrays["coverage"] = outputs.coverage
        values.append(engine_layout.PAIRWISE_OVERLAP)
    else:
        counters = [c for c in counters if c not in OVERLAP_COUNTERS]
    if "agreement" in requested:
        values += [engine_layout.POOL_SPARSE, engine_layout.POOL_DENSE]
    else:
        counters = [c for c in counters if c not in AGREEMENT_COUNTERS]
    if "ranking" in requested:
        arrays["ranking"] = outputs.ranking
    arrays["counters"] = outputs.counters[:, counters]
    arrays["values"] = outputs.values[:, values]
    return arrays


SUBSETS = ((), ("agreement",), ("overlap",), ("ranking",), ("overlap", "ranking"))


@pytest.mark.parametrize("design", DESIGNS)
@pytest.mark.parametrize("rule", RULES)
def test_specialised_outputs_are_bit_identical(design, rule):
    full_cell = make_cell(design, rule, None)
    full = simulate_cell(full_cell, 3, 0, 150)
    engines = {full_cell.kernel_engine}
    for subset in SUBSETS:
        cell = make_cell(design, rule, subset)
        engines.add(cell.kernel_engine)
        part = simulate_cell(cell, 3, 0, 150)
        expected = shared_columns(full, subset)
        for name, array in shared_columns(part, subset).items():
            np.testing.assert_array_equal(array, expected[name], err_msg=f"{subset}: {name}")
        assert part.favour.any() or full.favour.sum() == 0
    assert len(engines) == 1


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("design", ("bernoulli", "exact_m", "shared_panel"))
def test_counts_engine_specialised(design, rule):
    full = simulate_cell(make_cell(design, rule, None, engine="counts"), 5, 0, 150)
    part = simulate_cell(make_cell(design, rule, (), engine="counts"), 5, 0, 150)
    expected = shared_columns(full, ())
    for name, array in shared_columns(part, ()).items():
        np.testing.assert_array_equal(array, expected[name], err_msg=name)
    assert not part.ranking.any() and not part.coverage.any()


@pytest.mark.parametrize("rule", RULES)
def test_clusters_specialised(rule):
    full = simulate_cell(make_cell("exact_m", rule, None, clusters=True), 1, 0, 150)
    part = simulate_cell(make_cell("exact_m", rule, (), clusters=True), 1, 0, 150)
    expected = shared_columns(full, ())
    for name, array in shared_columns(part, ()).items():
        np.testing.assert_array_equal(array, expected[name], err_msg=name)


def test_left_out_outputs_are_nan_or_zero_in_the_counts():
    cell = make_cell("bernoulli", "point", ("ranking",))
    counts = count_outcomes(cell, simulate_cell(cell, 0, 0, 100))
    full_cell = make_cell("bernoulli", "point", None)
    full = count_outcomes(full_cell, simulate_cell(full_cell, 0, 0, 100))
    assert np.isnan(counts["sum_pairwise_overlap"]) and np.isnan(counts["sum_coverage"]).all()
    assert np.isnan(counts["sum_agreement_estimate"]) and counts["n_agreement_defined"] == 0
    assert counts["n_rank_discordant"] == full["n_rank_discordant"]
    for name in ("n_wrong", "n_accept", "omega_hist", "n_tested", "n_skipped"):
        np.testing.assert_array_equal(counts[name], full[name])


def test_outputs_key_default_and_validation():
    raw = {"model": {"n_items": 50}, "design": {"kind": "bernoulli", "rho": 0.2}}
    scenario = scenario_from_dict(raw)
    assert scenario.outputs == OUTPUTS and "outputs" not in scenario.to_dict()
    reordered = scenario_from_dict({**raw, "outputs": ["ranking", "agreement"]})
    assert reordered.outputs == ("agreement", "ranking")
    assert reordered.content_hash() != scenario.content_hash()
    with pytest.raises(ScenarioError, match="outputs: must be a list drawn from"):
        scenario_from_dict({**raw, "outputs": ["speed"]})
    with pytest.raises(ScenarioError, match="outputs"):
        scenario_from_dict({**raw, "outputs": "agreement"})


def overlap_reference(mask, weights):
    """Coverage, mean pairwise overlap and shared flag, pair by pair (O(K^2) per row)."""
    n_humans = mask.shape[1]
    coverage = [weights[mask[:, s]].sum() / weights.sum() for s in range(1, n_humans)]
    pairs = [(a, b) for a in range(1, n_humans) for b in range(a + 1, n_humans)]
    both = [weights[mask[:, a] & mask[:, b]].sum() for a, b in pairs]
    shared = not any(((mask[:, a] != mask[:, b]) & (weights > 0)).any() for a, b in pairs)
    overlap = sum(both) / len(pairs) if pairs else np.nan
    return np.array(coverage), overlap, int(shared)


@pytest.mark.parametrize("n_humans", (1, 2, 3, 4, 7))
def test_overlap_statistics_match_the_pairwise_count(n_humans):
    from simcore.engine.decide import _overlap_statistics

    rng = np.random.default_rng(n_humans)
    for case in range(200):
        rows = int(rng.integers(1, 12))
        mask = rng.random((rows, n_humans)) < (0.5 if case % 3 else 0.05)
        if case % 4 == 0:  # a shared panel: every secondary copies the first
            mask[:, 1:] = mask[:, [min(1, n_humans - 1)]]
        mask[:, 0] = True
        weights = rng.integers(0, 5, rows).astype(np.int64)
        weights[0] += 1
        coverage = np.zeros(n_humans - 1)
        values = np.zeros(engine_layout.N_VALUES)
        counters = np.zeros(engine_layout.N_COUNTERS, dtype=np.int32)
        _overlap_statistics(mask, weights, coverage, values, counters)
        expected_coverage, overlap, shared = overlap_reference(mask, weights)
        np.testing.assert_array_equal(coverage, expected_coverage)
        np.testing.assert_array_equal(values[engine_layout.PAIRWISE_OVERLAP], overlap)
        assert counters[engine_layout.SHARED] == shared
