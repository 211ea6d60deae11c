"""Readings of P's Strat: allocations on hand-built matrices, P's composition pinned."""

import numpy as np
import pytest
import yaml
from scenario_files import REPO

from simcore.model.decision_rule import Rule
from simcore.realdata.matrix import AnnotationMatrix, load_data
from simcore.realdata.strat_variants import VARIANTS, capped_allocation
from simcore.realdata.thinning import REAL_DESIGNS, primary_layer, thin
from simcore.studies.config import OutputConfig, ScenarioError
from simcore.studies.real.cells import real_context
from simcore.studies.real.paper import (
    class_counts,
    composition_table,
    variant_rows,
    variants_report,
)
from simcore.studies.real.study import RealScenario, evaluate_group, real_scenario_from_dict

DATA = REPO.parent / "shared" / "data" / "alttest"

# 12 items; the primary (column 0) labels every item: strata sizes 6, 4, 2 (labels 0, 1, 2).
PRIMARY = np.array([0] * 6 + [1] * 4 + [2] * 2)
# Human 1 labels every item; human 2 items 4-11 (strata 0: 2 items, 1: 4 items, 2: 2 items).
AVAILABLE = np.ones((12, 3), dtype=bool)
AVAILABLE[:4, 2] = False
LABELS = np.stack([PRIMARY, PRIMARY, PRIMARY], axis=1)
# The judge's labels: strata sizes 3, 3, 6 (reversed order of the primary's strata).
JUDGE = np.array([2, 2, 2, 2, 2, 2, 1, 1, 1, 0, 0, 0])


def per_stratum(keep, human, strata=PRIMARY):
    """Kept items of ``human`` per stratum code."""
    return np.bincount(strata[keep[:, human]], minlength=3).tolist()


def kept(design, seed=0, coverage=0.5):
    keep = thin(
        np.random.default_rng(seed), design, coverage, LABELS, AVAILABLE, 3, judge_labels=JUDGE
    )
    assert not (keep & ~AVAILABLE).any()
    assert keep[:, 0].all()  # the primary layer is never thinned
    return keep


@pytest.mark.parametrize("seed", range(5))
def test_strat_panel_is_one_proportional_panel_shared_by_every_human(seed):
    keep = kept("strat_panel", seed)
    # panel of round(0.5 * 12) = 6 items: PA of 6 over (6, 4, 2) = (3, 2, 1)
    assert per_stratum(keep, 1) == [3, 2, 1]
    # human 2 keeps exactly its labels on the same panel
    np.testing.assert_array_equal(keep[:, 2], keep[:, 1] & AVAILABLE[:, 2])


@pytest.mark.parametrize("seed", range(5))
def test_strat_panel_balanced_splits_the_panel_equally_over_the_strata(seed):
    keep = kept("strat_panel_balanced", seed, coverage=0.75)
    # 9 items: equal shares (3, 3, 3), stratum 2 capped at its 2 items, the slot left to
    # stratum 0 (ties go to the smaller code)
    assert per_stratum(keep, 1) == [4, 3, 2]
    np.testing.assert_array_equal(keep[:, 2], keep[:, 1] & AVAILABLE[:, 2])


@pytest.mark.parametrize("seed", range(5))
def test_strat_panel_judge_stratifies_by_the_judges_labels(seed):
    keep = kept("strat_panel_judge", seed)
    # PA of 6 over the judge's strata (3, 3, 6) = (1, 1, 3) + the leftover to stratum 2
    assert per_stratum(keep, 1, JUDGE) == [1, 1, 4]
    np.testing.assert_array_equal(keep[:, 2], keep[:, 1] & AVAILABLE[:, 2])


def test_strat_panel_judge_needs_the_judges_labels():
    with pytest.raises(ValueError, match="judge"):
        thin(np.random.default_rng(0), "strat_panel_judge", 0.5, LABELS, AVAILABLE, 3)


@pytest.mark.parametrize(
    ("design", "human_1", "human_2"),
    [
        # strat: m = round(0.5 a_h), PA over the human's own strata
        ("strat", [3, 2, 1], [1, 2, 1]),
        # corpus quotas (6, 4, 2) of 4 = (3, 1, 0), stratum 0 capped at 2, the slot left to
        # stratum 1 (the larger of the strata with room)
        ("strat_corpus", [3, 2, 1], [2, 2, 0]),
        # m = min(round(0.5 n), a_h) = 6, PA over the human's strata (2, 4, 2) = (1, 3, 1) + 1
        ("strat_corpus_m", [3, 2, 1], [1, 4, 1]),
        # equal shares: 6 over 3 strata = (2, 2, 2); 4 over 3 = (1, 1, 1) + 1 to stratum 0
        ("strat_balanced", [2, 2, 2], [2, 1, 1]),
    ],
)
def test_per_human_variants_allocate_by_their_rule(design, human_1, human_2):
    for seed in range(5):
        keep = kept(design, seed)
        assert per_stratum(keep, 1) == human_1
        assert per_stratum(keep, 2) == human_2


def test_per_human_variants_draw_each_human_independently():
    # human 1 and the primary-labelled items of human 2 overlap only by chance
    differs = [
        not np.array_equal(keep[4:, 1], keep[4:, 2])
        for keep in (kept("strat_balanced", seed) for seed in range(10))
    ]
    assert any(differs)


def test_capped_allocation_refills_the_strata_with_room():
    np.testing.assert_array_equal(capped_allocation([6, 4, 2], [2, 4, 2], 4), [2, 2, 0])
    np.testing.assert_array_equal(capped_allocation([6, 4, 2], [2, 4, 2], 8), [2, 4, 2])
    np.testing.assert_array_equal(capped_allocation([1, 0, 0], [1, 3, 0], 3), [1, 2, 0])
    np.testing.assert_array_equal(capped_allocation([5, 5], [3, 3], 0), [0, 0])


@pytest.mark.parametrize("design", REAL_DESIGNS)
@pytest.mark.parametrize("coverage", [0.05, 0.5, 1.0])
def test_every_design_keeps_only_labels_given_on_a_sparse_matrix(design, coverage):
    generator = np.random.default_rng(7)
    available = generator.random((60, 5)) < 0.4
    labels = generator.integers(0, 4, (60, 5))
    judge = generator.integers(0, 4, 60)
    layer = primary_layer(available)
    for seed in range(4):
        keep = thin(
            np.random.default_rng(seed), design, coverage, labels, available, 4, judge_labels=judge
        )
        assert not (keep & ~available).any()
        assert (keep >= layer).all()
        if coverage == 1.0 and design != "strat_corpus_m":
            # every variant keeps all at full coverage (a panel of n items; m_h = a_h)
            np.testing.assert_array_equal(keep, available)


def small_matrix():
    generator = np.random.default_rng(3)
    truth = generator.integers(0, 2, 80)
    noisy = np.where(generator.random((80, 4)) < 0.8, truth[:, None], 1 - truth[:, None])
    humans = np.where(generator.random((80, 4)) < 0.7, noisy, -1)
    humans[:, 0] = noisy[:, 0]
    judges = np.where(
        generator.random((80, 3)) < [0.9, 0.75, 0.6], truth[:, None], 1 - truth[:, None]
    )
    return AnnotationMatrix(
        source="small",
        items=tuple(f"i{k}" for k in range(80)),
        humans=("a", "b", "c", "d"),
        judges=("j1", "j2", "j3"),
        labels=("0", "1"),
        ordinal=False,
        human_labels=humans.astype(np.int16),
        judge_labels=judges.astype(np.int16),
    )


def scenario(designs, trials=20):
    return RealScenario(
        name="t",
        description=None,
        data={},
        rule=Rule(),
        output=OutputConfig(),
        trials=trials,
        seed=11,
        designs=tuple(designs),
        coverages=(0.05, 0.25, 0.5),
        source="t.yaml",
    )


def test_variants_run_through_the_real_protocol_and_report():
    cube = evaluate_group(scenario(("bernoulli", *VARIANTS)), small_matrix())
    assert (cube["n_trials"] == 20).all()
    again = evaluate_group(scenario(("strat_panel_judge",)), small_matrix())
    np.testing.assert_array_equal(
        again["n_wrong"].values[0], cube["n_wrong"].sel(design="strat_panel_judge").values
    )
    rows = variant_rows([cube])
    assert len(rows) == (1 + len(VARIANTS)) * 3
    assert all(row["dFR"] == 0 or not np.isfinite(row["dFR"]) for row in rows[:3])
    text = variants_report([cube])
    assert "| **P Strat** | 0.05 | 14.2 | 17.2 | 18.4 | 44.0 |" in text
    assert "Closest reading of Strat overall" in text
    name, n_judges, *classes = class_counts([cube])[0]
    assert n_judges == 3 and sum(classes) == 3
    table = composition_table([cube])
    assert f"| **ours** | 3 | {classes[0]} | {classes[1]} | {classes[2]} |" in table
    assert "| **P** | 40 | 20 | 16 | 4 |" in table
    assert "| strat_panel | 0.05 |" in table


def test_a_judge_stratified_design_refuses_alt_test():
    raw = {
        "kind": "real",
        "data": {"format": "alttest", "path": "x"},
        "rule": {"kind": "alt_test"},
        "sweep": {"design": ["strat_panel_judge"], "coverage": [0.05]},
    }
    with pytest.raises(ScenarioError, match="strat_panel_judge"):
        real_scenario_from_dict(raw, "t.yaml")


PAPER_SCENARIOS = ("wax", "cebab_aspects", "cebab_stars", "summeval_one")


def test_table3_composition_counts_on_the_shipped_data_are_pinned():
    """P's composition: four matrices, SummEval's dimensions pooled into one."""
    contexts = []
    for name in PAPER_SCENARIOS:
        path = REPO / "scenarios" / f"real_{name}.yaml"
        parsed = real_scenario_from_dict(yaml.safe_load(path.read_text()), str(path), path.parent)
        contexts.append(real_context(parsed, load_data(parsed.data)))
    counts = {
        name: [int((ctx.groups[0].judge_class == code).sum()) for code in (2, 0, 1)]
        for name, ctx in zip(PAPER_SCENARIOS, contexts, strict=True)
    }
    assert all(len(ctx.groups) == 1 for ctx in contexts)
    assert counts == PINNED_COUNTS
    totals = np.sum(list(counts.values()), axis=0).tolist()
    assert totals == PINNED_TOTALS


# [pass, reject, borderline] by full-matrix omega; P: 20, 16, 4 over 40 pairs (10 judges).
PINNED_COUNTS = {
    "wax": [3, 3, 0],
    "cebab_aspects": [3, 2, 1],
    "cebab_stars": [4, 1, 1],
    "summeval_one": [0, 6, 0],  # every judge rejected on the pooled 6,400 items
}
PINNED_TOTALS = [10, 12, 2]


def test_the_cube_attrs_define_every_design_swept():
    from simcore.studies.real.study import STUDY

    designs = ("strat", "strat_panel", "strat_corpus_m")
    context = real_context(scenario(designs), small_matrix())
    attrs = STUDY.layout(scenario(designs), context).attrs["design_definitions"]
    assert attrs.startswith("strat: each human independently keeps round(rho a_h)")
    assert "strat_panel: one panel of round(rho n) items shared by every human" in attrs
    assert "strat_corpus_m: coverage as a share of the corpus" in attrs


def test_tables_writes_the_variants_report_and_p_composition(tmp_path):
    import simcore
    from simcore.cli import main

    sets = {"sweep": {"design": ["bernoulli", "strat_panel_judge"], "coverage": [0.05, 0.25]}}
    stores = []
    for name in ("wax", "cebab_stars"):
        store = tmp_path / f"{name}.zarr"
        simcore.run(REPO / "scenarios" / f"real_{name}.yaml", trials=4, sets=sets, out=store)
        stores.append(str(store))
    variants, table3 = tmp_path / "variants.md", tmp_path / "t3.md"
    assert (
        main(["tables", *stores, "--agreement-stores", stores[1], "--variants", str(variants)]) == 0
    )
    text = variants.read_text()
    assert "`strat_panel_judge`: as strat_panel with strata = the judge's labels" in text
    assert "| strat_panel_judge | 0.25 |" in text
    assert not table3.exists()
    assert main(["tables", *stores, "--paper", *stores, "--table3", str(table3)]) == 0
    written = table3.read_text()
    assert written.startswith("# Real matrices, P's composition")
    assert "| **ours** | 12 | 7 | 4 | 1 |" in written  # WAX 3/3/0 and CeBaB stars 4/1/1
    assert "## Every group as a matrix" in written
