"""The real-data protocol: primary layer, thinning, the consistency check, SummEval pinned."""

import numpy as np
import pytest
from scenario_files import REPO, variant

import simcore
from simcore.cli import main
from simcore.engine import draws as engine_draws
from simcore.engine import rng
from simcore.model.decision_rule import Rule
from simcore.model.designs import DESIGNS, design_code
from simcore.model.generative import rater_confusions
from simcore.realdata.matrix import AnnotationMatrix, load_alttest
from simcore.realdata.thinning import primary_layer, thin
from simcore.studies.config import OutputConfig, ScenarioError
from simcore.studies.real.study import RealScenario, evaluate_group

DATA = REPO.parent / "shared" / "data" / "alttest"
MISSING = -1


def hand_matrix():
    # 6 items, 3 humans; nobody labels every item. Human order: a, b, c.
    humans = np.array(
        [
            [0, 1, MISSING],
            [MISSING, 1, 1],
            [MISSING, MISSING, 0],
            [1, MISSING, 1],
            [0, 0, 0],
            [MISSING, 1, 0],
        ]
    )
    judges = np.array([[0], [1], [0], [1], [0], [1]])
    return AnnotationMatrix(
        source="hand",
        items=tuple(f"i{k}" for k in range(6)),
        humans=("a", "b", "c"),
        judges=("j",),
        labels=("0", "1"),
        ordinal=False,
        human_labels=humans.astype(np.int16),
        judge_labels=judges.astype(np.int16),
    )


def test_primary_layer_takes_the_first_labelling_human():
    matrix = hand_matrix()
    layer = primary_layer(matrix.available)
    expected = np.zeros((6, 3), bool)
    expected[[0, 3, 4], 0] = True  # a labelled these
    expected[[1, 5], 1] = True  # b is the first of the rest
    expected[2, 2] = True  # only c labelled item 2
    np.testing.assert_array_equal(layer, expected)


@pytest.mark.parametrize("design", DESIGNS)
@pytest.mark.parametrize("coverage", [0.05, 0.5, 1.0])
def test_thinning_keeps_the_primary_layer_and_invents_nothing(design, coverage):
    matrix = load_alttest(DATA / "cebab_stars")
    available = matrix.available
    layer = primary_layer(available)
    codes = np.maximum(matrix.human_labels, 0)
    for seed in range(3):
        keep = thin(
            np.random.default_rng(seed), design, coverage, codes, available, matrix.n_labels
        )
        assert not (keep & ~available).any()
        assert (keep >= layer).all()
        thinnable = (available & ~layer).sum(axis=0)
        kept = (keep & ~layer).sum(axis=0)
        if design in ("exact_m", "strat", "seq_refined", "seq_coverage"):
            np.testing.assert_array_equal(kept, np.round(coverage * thinnable))
        if coverage == 1.0 and design != "shared_panel":
            np.testing.assert_array_equal(keep, available)


def test_strat_thinning_allocates_over_the_primary_layer_labels():
    from simcore.model.designs import proportional_allocation

    matrix = load_alttest(DATA / "cebab_aspects")
    available = matrix.available
    layer = primary_layer(available)
    codes = np.maximum(matrix.human_labels, 0)
    primary_labels = codes[np.arange(matrix.n_items), np.argmax(layer, axis=1)]
    keep = thin(np.random.default_rng(1), "strat", 0.25, codes, available, matrix.n_labels)
    for human in range(matrix.n_humans):
        thinnable = available[:, human] & ~layer[:, human]
        sizes = np.bincount(primary_labels[thinnable], minlength=matrix.n_labels)
        expected = proportional_allocation(sizes, int(round(0.25 * thinnable.sum())))
        got = np.bincount(primary_labels[keep[:, human] & thinnable], minlength=matrix.n_labels)
        np.testing.assert_array_equal(got, expected)


def test_proportional_allocation_matches_the_kernel_rule():
    from simcore.model.designs import proportional_allocation

    assert proportional_allocation([6, 4], 5).tolist() == [3, 2]
    # floors 2, 2, 0 (2.08, 2.08, 0.83); the leftover goes to the largest stratum, not to the
    # largest remainder (the strat design), ties to the smaller index
    assert proportional_allocation([5, 5, 2], 5).tolist() == [3, 2, 0]
    assert proportional_allocation([3, 3, 3], 2).tolist() == [1, 1, 0]  # ties: smaller index
    assert proportional_allocation([0, 0], 3).tolist() == [0, 0]


def real_scenario(designs=("bernoulli",), coverages=(0.25,), trials=5, seed=1):
    return RealScenario(
        name="t",
        description=None,
        data={},
        rule=Rule(),
        output=OutputConfig(),
        trials=trials,
        seed=seed,
        designs=designs,
        coverages=coverages,
        source="t.yaml",
    )


def test_a_dense_synthetic_matrix_gives_the_engines_wrong_decision_rate():
    # The consistency check: dense matrices drawn by the engine's model, thinned by the
    # real-data path (primary = human 0, bernoulli at 0.25), decide like the synthetic
    # engine with the dense reference.
    n_items, n_humans, p_judge, coverage = 120, 4, 0.72, 0.25
    confusion = rater_confusions(n_humans, 2, 0.85, p_judge)
    keys = rng.trial_keys(np.random.SeedSequence(8), 0, 400)
    labels, _ = engine_draws.draw(
        keys,
        n_items,
        n_humans,
        confusion,
        np.array([0.5, 1.0]),
        1,
        0.0,
        design_code("bernoulli"),
        1.0,
        0,
    )
    scenario = real_scenario(coverages=(coverage,), trials=6)
    per_matrix = []
    for matrix_labels in labels:
        matrix = AnnotationMatrix(
            source="synthetic",
            items=tuple(map(str, range(n_items))),
            humans=tuple("abcd"),
            judges=("judge",),
            labels=("0", "1"),
            ordinal=False,
            human_labels=matrix_labels[:, :n_humans],
            judge_labels=matrix_labels[:, n_humans:],
        )
        cube = evaluate_group(scenario, matrix)
        per_matrix.append(int(cube["n_wrong"].sum()) / scenario.trials)
    per_matrix = np.array(per_matrix)
    real_rate = per_matrix.mean()
    real_se = per_matrix.std(ddof=1) / np.sqrt(len(per_matrix))  # matrices are the units
    synthetic = simcore.run(
        {
            "model": {
                "n_items": n_items,
                "n_humans": n_humans,
                "p_human": 0.85,
                "p_judge": p_judge,
            },
            "design": {"kind": "bernoulli", "rho": coverage},
            "reference": "dense",
            "trials": 6000,
            "seed": 4,
        }
    )
    rate = float(synthetic["wrong_decision_rate"])
    se = float(synthetic["wrong_decision_rate_se"])
    assert real_rate > 0.05 and rate > 0.05  # a case with something to get wrong
    assert abs(real_rate - rate) < 4 * np.hypot(real_se, se), (real_rate, rate)


SUMMEVAL_FULL_PASSES = {
    # comparisons (of 3) each judge passes on the full SummEval matrix, observed agreement,
    # eps 0.05, per dimension
    "coherence": [0, 0, 1, 1, 1, 1],
    "consistency": [0, 0, 0, 0, 0, 2],
    "fluency": [0, 0, 0, 0, 0, 0],
    "relevance": [0, 0, 0, 3, 3, 1],
}


def test_summeval_full_matrix_decisions_are_pinned():
    cube = simcore.run(
        REPO / "scenarios" / "real_summeval.yaml",
        trials=2,
        sets={"sweep": {"design": ["bernoulli"], "coverage": [0.5]}},
    )
    assert list(cube["judge"].values) == [
        "gemini_flash",
        "gemini_pro",
        "gpt-4o",
        "llama-31",
        "gpt-4o-mini",
        "mistral-v03",
    ]
    for group, passes in SUMMEVAL_FULL_PASSES.items():
        np.testing.assert_allclose(cube["full_omega"].sel(group=group), np.array(passes) / 3)
    assert cube["full_accept"].sel(group="relevance").values.tolist() == [
        False,
        False,
        False,
        True,
        True,
        False,
    ]
    assert cube.attrs["primary_layer"].startswith("primary layer: for each item")
    assert float(cube["density"].sel(group="fluency")) == 1.0


def test_real_runs_are_reproducible_and_written_whole(tmp_path):
    sets = {"sweep": {"design": ["strat", "seq_coverage"], "coverage": [0.1]}}
    path = REPO / "scenarios" / "real_wax.yaml"
    store = tmp_path / "wax.zarr"
    first = simcore.run(path, trials=8, sets=sets, out=store)
    again = simcore.run(path, trials=8, sets=sets)
    for name in ("n_wrong", "n_top1_wrong", "n_rank_discordant", "sum_agreement_error"):
        np.testing.assert_array_equal(first[name], again[name])
    other_seed = simcore.run(path, trials=8, sets=sets, seed=99)
    assert not np.array_equal(other_seed["n_rank_discordant"], first["n_rank_discordant"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["wax.zarr"]
    assert main(["show", str(store)]) == 0
    assert main(["plot", str(store), "--out", str(tmp_path / "wax.png")]) == 0
    assert (
        main(
            [
                "tables",
                str(store),
                "--table3",
                str(tmp_path / "t3.md"),
                "--table2",
                str(tmp_path / "t2.md"),
            ]
        )
        == 0
    )
    assert "| strat | 0.1 |" in (tmp_path / "t3.md").read_text()


@pytest.mark.parametrize(
    ("changes", "fragment"),
    [
        ({"sweep": {"design": ["nope"]}}, "sweep.design"),
        ({"sweep": {"coverage": [0]}}, "sweep.coverage"),
        ({"sweep": {"rho": [0.1]}}, "sweep: a real-data scenario sweeps design and coverage"),
        ({"data.humans": ["e0", "zz"]}, "zz"),
        ({"data.path": "nowhere"}, "nowhere"),
        ({"rule.epsilon": -1}, "rule.epsilon"),
        ({"bogus": 1}, "bogus: unknown key"),
    ],
)
def test_bad_real_scenarios_exit_2_and_name_the_key(tmp_path, capsys, changes, fragment):
    import yaml

    raw = yaml.safe_load((REPO / "scenarios" / "real_summeval.yaml").read_text())
    raw["data"]["path"] = str(DATA / "summeval")
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(variant(raw, changes)))
    assert main(["run", str(path), "--out", str(tmp_path / "x.zarr"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert fragment in err and "bad.yaml" in err
    assert not (tmp_path / "x.zarr").exists()
    with pytest.raises(ScenarioError):
        simcore.run(path, trials=1)


def test_inspect_reports_density_and_overlaps(capsys):
    assert main(["inspect", str(DATA / "cebab_aspects")]) == 0
    out = capsys.readouterr().out
    assert "density" in out
    assert main(["inspect", str(REPO / "scenarios" / "real_summeval.yaml")]) == 0
    assert "1600" in capsys.readouterr().out
    assert main(["inspect", str(DATA / "nowhere")]) == 2
