"""Which engine runs a cell: each engine's reach, auto's one choice, a named engine refused."""

import json
from pathlib import Path

import pytest

from simcore.engine.choice import (
    BITSET_MAX_LABELS,
    COUNTS_ITEMS_PER_MASK_PATTERN,
    ENGINES,
    REACH,
    CellShape,
    choose_engine,
    kernel_variant,
)
from simcore.studies import ScenarioError
from simcore.studies.synthetic.scenario import scenario_from_dict

FIGURE2 = {
    "n_items": 500,
    "n_humans": 4,
    "n_raters": 5,
    "n_labels": 2,
    "n_clusters": 1,
    "cluster_spread": 0.0,
    "design": "bernoulli",
    "rule": "point",
    "scale": "categorical",
    "weighted": False,
}
"""The Figure 2 cell's shape: the point rule on two labels under bernoulli masks."""


def shape(**changes):
    return CellShape(**{**FIGURE2, **changes})


@pytest.mark.parametrize(
    ("changes", "engine"),
    [
        ({}, "bitset"),
        ({"rule": "interval"}, "bitset"),
        ({"rule": "alt_test"}, "bitset"),
        ({"design": "shared_panel", "n_labels": BITSET_MAX_LABELS}, "bitset"),
        ({"n_clusters": 5, "cluster_spread": 0.3}, "bitset"),
        # Beyond the bitset engine's reach: the counts engine where it is exact and has
        # enough items per mask pattern, else the items engine.
        ({"rule": "alt_test", "scale": "numeric"}, "counts"),
        ({"weighted": True}, "counts"),
        ({"n_labels": BITSET_MAX_LABELS + 1, "n_raters": 4, "n_humans": 3}, "counts"),
        ({"weighted": True, "n_items": COUNTS_ITEMS_PER_MASK_PATTERN * 8 - 1}, "items"),
        ({"weighted": True, "n_labels": 17}, "items"),  # 17**5 > 2**20 label patterns
        ({"design": "strat"}, "items"),
        ({"n_items": 40_000, "n_clusters": 20_000, "cluster_spread": 0.1}, "items"),
    ],
)
def test_auto_takes_the_fastest_engine_that_reaches_the_cell(changes, engine):
    assert choose_engine(shape(**changes)) == engine
    assert REACH[engine](shape(**changes)) is None


@pytest.mark.parametrize(
    ("engine", "changes", "why"),
    [
        ("bitset", {"weighted": True}, "a weighted coefficient reads every pair table"),
        ("bitset", {"rule": "alt_test", "scale": "numeric"}, "alt_test with numeric scores"),
        ("bitset", {"design": "strat"}, "the strat design reads each item's labels"),
        ("bitset", {"n_labels": 17}, "17 labels, above its 16"),
        (
            "bitset",
            {"n_items": 40_000, "n_clusters": 20_000, "cluster_spread": 0.1},
            "clusters of 25000000 class words",
        ),
        ("counts", {"n_clusters": 5, "cluster_spread": 0.3}, "clustered items"),
        ("counts", {"design": "strat"}, "the strat design reads each item's labels"),
        ("counts", {"n_labels": 17}, "1419857 label patterns"),
    ],
)
def test_a_named_engine_that_cannot_run_the_cell_is_refused_saying_why(engine, changes, why):
    with pytest.raises(ValueError, match=f"engine {engine}: cannot run this cell: {why}"):
        choose_engine(shape(**changes), engine)
    assert choose_engine(shape(**changes), "items") == "items"  # the general path


def test_an_engine_that_reaches_the_cell_runs_it_and_an_unknown_one_is_refused():
    for engine in REACH:
        assert choose_engine(shape(), engine) == engine
    with pytest.raises(ValueError, match="engine: must be auto, bitset, counts, items"):
        choose_engine(shape(), "numpy")


def test_the_kernel_variant_names_the_parts_a_cell_compiles():
    assert kernel_variant(shape(), "bitset") == "bitset"
    assert kernel_variant(shape(rule="interval"), "bitset") == "bitset:verdicts"
    clustered = shape(rule="alt_test", n_clusters=4, cluster_spread=0.2)
    assert kernel_variant(clustered, "bitset") == "bitset:verdicts,clusters"
    assert kernel_variant(shape(weighted=True), "counts") == "counts:weighted"
    assert kernel_variant(shape(weighted=True), "items") == "items:weighted"
    assert kernel_variant(shape(rule="interval"), "items") == "items"


def test_a_scenario_reads_its_cells_shape_and_refuses_a_named_engine_with_the_reason():
    base = {"model": {"n_items": 50}, "design": {"kind": "bernoulli", "rho": 0.2}}
    cell = next(scenario_from_dict(base).cells())
    assert cell.engine_shape == shape(n_items=50)
    assert (cell.kernel_engine, cell.kernel_variant) == ("bitset", "bitset")
    numeric = {**base, "engine": "bitset", "rule": {"kind": "alt_test", "scale": "numeric"}}
    with pytest.raises(ScenarioError) as error:
        scenario_from_dict(numeric)
    (problem,) = [one for one in error.value.problems if ": engine:" in one]
    assert "the bitset engine cannot run this cell: alt_test with numeric scores" in problem
    assert "(use engine: items or auto)" in problem


ENGINE_COSTS = Path(__file__).resolve().parents[1] / "benchmarks" / "engine_costs.json"
"""The cost model ``make bench`` records (``benchmarks/cost_model.py --record``)."""

TIE = 0.15
"""Engines within this share of the fastest are a tie: the recorded medians of 3 on the
shared 2-core machine moved by up to about a tenth between runs."""


def _cost_rows():
    rows = json.loads(ENGINE_COSTS.read_text())["rows"]
    return [pytest.param(row, id=_row_id(row)) for row in rows]


def _row_id(row):
    return f"{row['kind']}-n{row['n_items']}-K{row['n_humans']}-L{row['n_labels']}-{row['design']}"


@pytest.mark.parametrize("row", _cost_rows())
def test_auto_takes_the_engine_the_benchmark_measured_fastest(row):
    """Each recorded cell: every engine that reaches it was measured, and auto takes the fastest.

    The table is ``make bench``'s cost model (every engine on every kind of cell: nominal,
    weighted, the two verdicts, clusters); a change of the choice or of the engines'
    speeds that makes auto take a slower engine fails here until the choice or the table
    is brought back in line.
    """
    (cell,) = scenario_from_dict(row["scenario"]).cells()
    shape = cell.engine_shape
    measured = {engine: row[engine] for engine in ENGINES if row[engine] is not None}
    assert set(measured) == {engine for engine in ENGINES if REACH[engine](shape) is None}
    chosen = choose_engine(shape)
    assert measured[chosen] <= (1 + TIE) * min(measured.values()), (chosen, measured)
