"""Counts engine tier: the category counts are drawn exactly, and both engines agree.

The counts engine (:mod:`simcore.engine.counts`) draws how many items fall in each category
(mask pattern x raters' label pattern) instead of every item. These tests check the drawn
rows' structure, the distribution of the category counts against an enumeration (first and
second moments), that the two engines give statistically indistinguishable cubes, that the
counts engine is reproducible across batching and threads, and how scenarios choose it.
"""

import itertools
from pathlib import Path

import numba
import numpy as np
import pytest
import yaml
from engine_agreement import RATES, proportion_mismatches, rate_mismatches

import simcore
from simcore.cli import main
from simcore.engine.counts import PER_ITEM_LIMIT, draw_counts, simulate_counts
from simcore.engine.layout import BERNOULLI, EXACT_M, SHARED_PANEL
from simcore.engine.rng import trial_keys
from simcore.model.generative import rater_confusions
from simcore.studies.config import ScenarioError
from simcore.studies.synthetic.cell import counts_engine_arguments, rule_parameters
from simcore.studies.synthetic.scenario import scenario_from_dict

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"
DESIGN_CODES = {"bernoulli": BERNOULLI, "exact_m": EXACT_M, "shared_panel": SHARED_PANEL}

# Binary labels with asymmetric channels: humans right 80% of the time on average, the judge
# 65%, each worse on label 1 than on label 0; the true label is 0 in 70% of items.
BINARY_HUMAN = [[0.85, 0.15], [0.25, 0.75]]
BINARY_JUDGE = [[0.70, 0.30], [0.40, 0.60]]
BINARY_PREVALENCE = (0.7, 0.3)
# Three labels, a non-uniform prevalence, symmetric humans and an asymmetric judge.
TERNARY_JUDGE = [[0.70, 0.20, 0.10], [0.15, 0.65, 0.20], [0.05, 0.35, 0.60]]
TERNARY_PREVALENCE = (0.5, 0.3, 0.2)


def keys_for(seed, trials):
    return trial_keys(np.random.SeedSequence(seed), 0, trials)


def model(n_labels, n_humans):
    """Return ``(confusion (K + 1, L, L), prevalence (L,))`` of the test models."""
    if n_labels == 2:
        confusion = rater_confusions(
            n_humans, 2, 0.8, 0.65, confusion_human=BINARY_HUMAN, confusion_judge=BINARY_JUDGE
        )
        return confusion, np.array(BINARY_PREVALENCE)
    confusion = rater_confusions(n_humans, 3, 0.8, 0.65, confusion_judge=TERNARY_JUDGE)
    return confusion, np.array(TERNARY_PREVALENCE)


def draw(seed, trials, n_items, n_humans, n_labels, design, rho=0.0, m=0):
    confusion, prevalence = model(n_labels, n_humans)
    return draw_counts(
        keys_for(seed, trials),
        n_items,
        n_humans,
        confusion,
        prevalence,
        DESIGN_CODES[design],
        float(rho),
        int(m),
    )


def label_codes(labels, n_labels):
    """Code ``sum_r label_r L**(R - 1 - r)`` of every row's label pattern."""
    n_raters = labels.shape[-1]
    powers = n_labels ** np.arange(n_raters - 1, -1, -1, dtype=np.int64)
    return (labels.astype(np.int64) * powers).sum(axis=-1)


def mask_codes(mask):
    """Code of every row's secondaries' mask pattern, secondary 1 the highest bit."""
    secondaries = mask.shape[-1] - 1
    powers = 2 ** np.arange(secondaries - 1, -1, -1, dtype=np.int64)
    return (mask[..., 1:].astype(np.int64) * powers).sum(axis=-1)


def category_counts(sizes, labels, mask, n_labels):
    """Items per (label pattern, mask pattern) category, ``(T, L**R * 2**(K - 1))``."""
    n_trials = sizes.shape[0]
    n_masks = 2 ** (mask.shape[-1] - 1)
    n_categories = n_labels ** labels.shape[-1] * n_masks
    code = label_codes(labels, n_labels) * n_masks + mask_codes(mask)
    flat = (np.arange(n_trials)[:, None] * n_categories + code).ravel()
    counts = np.bincount(flat, weights=sizes.ravel(), minlength=n_trials * n_categories)
    return counts.reshape(n_trials, n_categories)


def label_pattern_probabilities(confusion, prevalence):
    """P(every rater's label) by enumeration, in :func:`label_codes` order."""
    n_raters, n_labels, _ = confusion.shape
    probabilities = []
    for pattern in itertools.product(range(n_labels), repeat=n_raters):
        total = 0.0
        for truth, share in enumerate(prevalence):
            term = share
            for rater, label in enumerate(pattern):
                term *= confusion[rater, truth, label]
            total += term
        probabilities.append(total)
    return np.array(probabilities)


def mask_pattern_probabilities(n_secondaries, share):
    """Per-item P(mask pattern) when each secondary labels an item with P ``share``."""
    probabilities = []
    for bits in itertools.product((0, 1), repeat=n_secondaries):
        k = sum(bits)
        probabilities.append(share**k * (1 - share) ** (n_secondaries - k))
    return np.array(probabilities)


def category_probabilities(n_labels, n_humans, share):
    confusion, prevalence = model(n_labels, n_humans)
    labels = label_pattern_probabilities(confusion, prevalence)
    masks = mask_pattern_probabilities(n_humans - 1, share)
    probabilities = np.outer(labels, masks).ravel()
    assert probabilities.sum() == pytest.approx(1.0, abs=1e-12)
    return probabilities


# --------------------------------------------------------------------------- structure


STRUCTURE_N, STRUCTURE_K, STRUCTURE_RHO, STRUCTURE_M = 60, 4, 0.3, 20


@pytest.mark.parametrize("n_labels", [2, 3])
@pytest.mark.parametrize("design", ["bernoulli", "exact_m", "shared_panel"])
def test_drawn_rows_are_well_formed(design, n_labels):
    trials, n, k = 400, STRUCTURE_N, STRUCTURE_K
    sizes, labels, mask = draw(11, trials, n, k, n_labels, design, STRUCTURE_RHO, STRUCTURE_M)
    assert sizes.shape == (trials, n)
    assert labels.shape == (trials, n, k + 1)
    assert mask.shape == (trials, n, k)
    assert (sizes >= 0).all()
    np.testing.assert_array_equal(sizes.sum(axis=1), n)
    filled = sizes > 0
    rows = filled.sum(axis=1)
    # Non-empty rows come first, then padding.
    np.testing.assert_array_equal(filled, np.arange(n)[None, :] < rows[:, None])
    assert mask[filled][:, 0].all(), "the primary labels every item"
    assert ((labels[filled] >= 0) & (labels[filled] < n_labels)).all()

    # Rows are merged categories: no two non-empty rows of a trial share labels and mask.
    code = label_codes(labels, n_labels) * 2 ** (k - 1) + mask_codes(mask)
    for t in range(trials):
        assert len(np.unique(code[t, : rows[t]])) == rows[t], f"trial {t} repeats a category"

    labelled = (sizes[:, :, None] * mask).sum(axis=1)  # (T, K) items per human
    np.testing.assert_array_equal(labelled[:, 0], n)
    if design == "exact_m":
        np.testing.assert_array_equal(labelled[:, 1:], STRUCTURE_M)
    elif design == "shared_panel":
        np.testing.assert_array_equal(labelled[:, 1:], STRUCTURE_M)
        for secondary in range(2, k):
            np.testing.assert_array_equal(mask[filled][:, secondary], mask[filled][:, 1])
    else:
        coverage = labelled[:, 1:].mean(axis=0) / n
        se = np.sqrt(STRUCTURE_RHO * (1 - STRUCTURE_RHO) / (n * trials))
        assert np.all(np.abs(coverage - STRUCTURE_RHO) <= 5 * se), (coverage, se)
        # Independent secondaries: their item sets differ in (almost) every trial.
        differ = (mask[:, :, 1] != mask[:, :, 2]) & filled
        assert differ.any(axis=1).mean() > 0.99

    # The primary's label shares follow the model (items are i.i.d. under every design).
    confusion, prevalence = model(n_labels, k)
    expected = prevalence @ confusion[0]
    share = np.array([(sizes * (labels[:, :, 0] == label)).sum() for label in range(n_labels)]) / (
        n * trials
    )
    se = np.sqrt(expected * (1 - expected) / (n * trials))
    assert np.all(np.abs(share - expected) <= 5 * se), (share, expected, se)


# --------------------------------------------------------------------------- exactness


CATEGORY_TRIALS = 4000
CATEGORY_K = 3
CATEGORY_RHO = 0.3

CATEGORY_CASES = [
    # n_items, n_labels, design, m (exact_m)
    pytest.param(20, 2, "bernoulli", None, id="n20-per-item"),
    pytest.param(40, 2, "bernoulli", None, id="n40"),
    pytest.param(200, 2, "bernoulli", None, id="n200-split"),
    pytest.param(200, 3, "bernoulli", None, id="n200-split-L3"),
    pytest.param(40, 2, "exact_m", 12, id="n40-exact_m"),
    pytest.param(200, 2, "exact_m", 60, id="n200-exact_m-split"),
]


def group_sizes(sizes, mask):
    """Items per mask group, ``(T, 2**(K - 1))``."""
    n_trials = sizes.shape[0]
    n_masks = 2 ** (mask.shape[-1] - 1)
    flat = (np.arange(n_trials)[:, None] * n_masks + mask_codes(mask)).ravel()
    counts = np.bincount(flat, weights=sizes.ravel(), minlength=n_trials * n_masks)
    return counts.reshape(n_trials, n_masks)


@pytest.mark.parametrize(("n_items", "n_labels", "design", "m"), CATEGORY_CASES)
def test_category_counts_have_the_exact_means(n_items, n_labels, design, m):
    trials = CATEGORY_TRIALS
    share = CATEGORY_RHO if design == "bernoulli" else m / n_items
    sizes, labels, mask = draw(
        23, trials, n_items, CATEGORY_K, n_labels, design, CATEGORY_RHO, m or 0
    )
    groups = group_sizes(sizes, mask)
    largest = groups.max(axis=1)
    if n_items <= PER_ITEM_LIMIT:
        assert (largest <= PER_ITEM_LIMIT).all()  # only the item-by-item path
    else:
        # the depth-first binomial split runs in (nearly) every trial, the per-item path too
        assert (largest > PER_ITEM_LIMIT).mean() > 0.99
        assert ((groups > 0) & (groups <= PER_ITEM_LIMIT)).any(axis=1).mean() > 0.99

    counts = category_counts(sizes, labels, mask, n_labels)
    probabilities = category_probabilities(n_labels, CATEGORY_K, share)
    expected = n_items * probabilities
    mean = counts.mean(axis=0)
    if design == "bernoulli":
        # Items are i.i.d. over the categories: the counts are multinomial(n, P).
        se = np.sqrt(n_items * probabilities * (1 - probabilities) / trials)
    else:
        # exact_m couples the items; E[count] = n P still holds, the variance differs.
        se = counts.std(axis=0, ddof=1) / np.sqrt(trials)
        assert (se > 0).all()
    z = (mean - expected) / se
    worst = int(np.argmax(np.abs(z)))
    assert np.abs(z).max() <= 5, (worst, mean[worst], expected[worst], se[worst])


@pytest.mark.parametrize("n_items", [20, 40, 200])
def test_bernoulli_category_counts_are_multinomial(n_items):
    """Second moments: Pearson's statistic and two covariances match multinomial(n, P)."""
    trials = CATEGORY_TRIALS
    sizes, labels, mask = draw(29, trials, n_items, CATEGORY_K, 2, "bernoulli", CATEGORY_RHO)
    counts = category_counts(sizes, labels, mask, 2)
    probabilities = category_probabilities(2, CATEGORY_K, CATEGORY_RHO)
    expected = n_items * probabilities
    n_categories = len(probabilities)

    # E[sum_c (X_c - n P_c)^2 / (n P_c)] = sum_c (1 - P_c) = C - 1 exactly.
    pearson = ((counts - expected) ** 2 / expected).sum(axis=1)
    se = pearson.std(ddof=1) / np.sqrt(trials)
    assert abs(pearson.mean() - (n_categories - 1)) <= 5 * se, (pearson.mean(), se)

    # Cov(X_a, X_b) = -n P_a P_b: the two likeliest categories of one mask group, and the
    # likeliest ones of two different mask groups.
    n_masks = 2 ** (CATEGORY_K - 1)
    order = np.argsort(-probabilities)
    first = order[0]
    same = next(c for c in order[1:] if c % n_masks == first % n_masks)
    other = next(c for c in order[1:] if c % n_masks != first % n_masks)
    for a, b in ((first, same), (first, other)):
        products = (counts[:, a] - expected[a]) * (counts[:, b] - expected[b])
        truth = -n_items * probabilities[a] * probabilities[b]
        se = products.std(ddof=1) / np.sqrt(trials)
        assert abs(products.mean() - truth) <= 5 * se, (a, b, products.mean(), truth, se)


# --------------------------------------------------------------------------- equivalence


FIG2_TRIALS = 3000


@pytest.fixture(scope="module")
def fig2_cubes():
    path = SCENARIOS / "fig2.yaml"
    cubes = {
        engine: simcore.run(path, sets={"engine": engine}, trials=FIG2_TRIALS)
        for engine in ("items", "counts", "bitset")
    }
    np.testing.assert_array_equal(cubes["items"]["n_trials_counts_engine"].values, 0)
    np.testing.assert_array_equal(cubes["counts"]["n_trials_counts_engine"].values, FIG2_TRIALS)
    np.testing.assert_array_equal(cubes["bitset"]["n_trials_bitset_engine"].values, FIG2_TRIALS)
    np.testing.assert_array_equal(cubes["items"]["n_trials_bitset_engine"].values, 0)
    return simcore.load_scenario(path), cubes


@pytest.mark.parametrize("engine", ["counts", "bitset"])
def test_fig2_rates_agree_between_engines(fig2_cubes, engine):
    _, cubes = fig2_cubes
    checked, mismatches = rate_mismatches(cubes["items"], cubes[engine], RATES)
    assert not mismatches, "\n".join(mismatches)
    assert checked >= 60  # 20 cells: every wrong rate and reference share, most others
    assert int(cubes[engine]["n_wrong"].sum()) > 500  # the comparison has power


@pytest.mark.parametrize("engine", ["counts", "bitset"])
def test_fig2_omega_histograms_agree_between_engines(fig2_cubes, engine):
    _, cubes = fig2_cubes
    shares = []
    for name in ("items", engine):
        hist = cubes[name]["omega_hist"]
        trials = cubes[name]["n_trials"].broadcast_like(hist).transpose(*hist.dims)
        shares.append((hist.values, trials.values))
    checked, mismatches = proportion_mismatches(*shares[0], *shares[1], "omega_hist")
    assert not mismatches, "\n".join(mismatches)
    assert checked == cubes["items"]["omega_hist"].size


@pytest.mark.parametrize("engine", ["counts", "bitset"])
def test_fig2_coverage_and_overlap_agree_between_engines(fig2_cubes, engine):
    """Coverage and pairwise overlap within 4 SE, the SEs derived from the design.

    Under ``bernoulli`` a secondary's coverage is Binomial(n, rho) / n per trial, so the
    difference of two engines' means over T trials has variance ``2 rho (1 - rho) / (n T)``.
    The mean pairwise overlap of S secondaries is the sum over items of the mean over the
    P = S (S - 1) / 2 pairs of ``b_a b_b``; per item that mean has variance
    ``(P v + 2 P (S - 2) c) / P**2`` with ``v = rho^2 - rho^4`` (one pair) and
    ``c = rho^3 - rho^4`` (two pairs sharing a secondary); items are independent.
    """
    scenario, cubes = fig2_cubes
    n = scenario.model.n_items
    trials = FIG2_TRIALS
    items, counts = cubes["items"], cubes[engine]
    rho = (
        items["rho"].broadcast_like(items["mean_coverage"]).transpose(*items["mean_coverage"].dims)
    )
    coverage_se = np.sqrt(2 * rho.values * (1 - rho.values) / (n * trials))
    gap = np.abs(items["mean_coverage"].values - counts["mean_coverage"].values)
    assert np.all(gap <= 4 * coverage_se), np.max(gap / coverage_se)
    for cube in (items, counts):  # each engine also covers rho on average
        one_se = coverage_se / np.sqrt(2)
        assert np.all(np.abs(cube["mean_coverage"].values - rho.values) <= 4 * one_se)

    s = scenario.model.n_humans - 1
    pairs = s * (s - 1) // 2
    r = items["rho"].broadcast_like(items["mean_pairwise_overlap"]).values
    per_item = (pairs * (r**2 - r**4) + 2 * pairs * (s - 2) * (r**3 - r**4)) / pairs**2
    overlap_se = np.sqrt(2 * n * per_item / trials)
    gap = np.abs(items["mean_pairwise_overlap"].values - counts["mean_pairwise_overlap"].values)
    assert np.all(gap <= 4 * overlap_se), np.max(gap / overlap_se)
    for cube in (items, counts):
        deviation = np.abs(cube["mean_pairwise_overlap"].values - n * r**2)
        assert np.all(deviation <= 4 * overlap_se / np.sqrt(2))


@pytest.mark.parametrize("engine", ["counts", "bitset"])
def test_planning_row_agrees_between_engines(engine):
    path = SCENARIOS / "planning.yaml"
    trials = 1500
    cubes = {
        name: simcore.run(path, sets={"engine": name, "sweep.margin": [0.03]}, trials=trials)
        for name in ("items", engine)
    }
    assert cubes["items"].sizes["margin"] == 1
    assert cubes[engine].sizes["m"] == cubes["items"].sizes["m"] > 20
    np.testing.assert_array_equal(cubes["items"]["n_trials_counts_engine"].values, 0)
    np.testing.assert_array_equal(cubes[engine][f"n_trials_{engine}_engine"].values, trials)
    checked, mismatches = rate_mismatches(cubes["items"], cubes[engine], ["wrong_decision_rate"])
    assert not mismatches, "\n".join(mismatches)
    assert checked == cubes["items"]["n_wrong"].size
    assert int(cubes[engine]["n_wrong"].sum()) > 100


RULE_CASES = [
    pytest.param({"kind": "alt_test", "min_items_per_human": 5}, id="alt_test"),
    pytest.param({"kind": "interval"}, id="interval"),
]


def small_cell(rule, engine, trials=1500, design=None):
    return {
        "model": {"n_items": 300, "n_humans": 4, "p_human": 0.85, "p_judge": 0.8},
        "design": design or {"kind": "bernoulli", "rho": 0.3},
        "rule": rule,
        "reference": "dense",
        "engine": engine,
        "trials": trials,
        "seed": 31,
    }


@pytest.mark.parametrize("rule", RULE_CASES)
def test_rule_kinds_agree_between_engines(rule):
    cubes = {engine: simcore.run(small_cell(rule, engine)) for engine in ("items", "counts")}
    assert int(cubes["counts"]["n_trials_counts_engine"]) == 1500
    assert int(cubes["items"]["n_trials_counts_engine"]) == 0
    checked, mismatches = rate_mismatches(cubes["items"], cubes["counts"], ["wrong_decision_rate"])
    for name in ("n_inconclusive", "n_accept", "n_skipped", "omega_hist"):
        shares = []
        for cube in cubes.values():
            trials = cube["n_trials"].broadcast_like(cube[name]).transpose(*cube[name].dims)
            shares.append((cube[name].values, trials.values))
        mismatches += proportion_mismatches(*shares[0], *shares[1], name)[1]
    assert not mismatches, "\n".join(mismatches)
    assert checked == 1
    wrong = [int(cube["n_wrong"]) for cube in cubes.values()]
    assert max(wrong) > 0, "the case is trivial"


# --------------------------------------------------------------------------- reproducibility


def reproducibility_cell(design, rule):
    raw = small_cell(rule, "counts", design=design)
    (cell,) = scenario_from_dict(raw).cells()
    return counts_engine_arguments(cell), rule_parameters(cell.rule)


def assert_outputs_equal(first, second):
    assert len(first) == len(second) == 10
    for position, (a, b) in enumerate(zip(first, second, strict=True)):
        assert a.dtype == b.dtype and a.shape == b.shape, position
        equal_nan = np.issubdtype(a.dtype, np.floating)
        assert np.array_equal(a, b, equal_nan=equal_nan), f"output {position} differs"


@pytest.mark.parametrize(
    "design",
    [
        {"kind": "bernoulli", "rho": 0.3},
        {"kind": "exact_m", "m": 70},
        {"kind": "shared_panel", "m": 70},
    ],
    ids=lambda design: design["kind"],
)
@pytest.mark.parametrize(
    "rule",
    [{"kind": "point"}, {"kind": "alt_test", "min_items_per_human": 5}, {"kind": "interval"}],
    ids=lambda rule: rule["kind"],
)
def test_counts_engine_is_reproducible(design, rule):
    arguments, parameters = reproducibility_cell(design, rule)
    keys = keys_for(41, 1000)
    whole = simulate_counts(keys, *arguments, parameters)
    split = 333  # not a multiple of the trial chunk
    first = simulate_counts(keys[:split], *arguments, parameters)
    second = simulate_counts(keys[split:], *arguments, parameters)
    joined = [np.concatenate([a, b]) for a, b in zip(first, second, strict=True)]
    assert_outputs_equal(whole, joined)

    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        single = simulate_counts(keys, *arguments, parameters)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        double = simulate_counts(keys, *arguments, parameters)
    finally:
        numba.set_num_threads(before)
    assert_outputs_equal(single, whole)
    assert_outputs_equal(double, whole)
    # Other keys give other trials (the comparison above can fail).
    other = simulate_counts(keys_for(42, 1000), *arguments, parameters)
    assert not np.array_equal(other[0], whole[0]) or not np.array_equal(other[7], whole[7])


def test_draw_counts_is_reproducible_across_batches():
    whole = draw(5, 300, 200, 4, 2, "bernoulli", 0.3)
    keys = keys_for(5, 300)
    confusion, prevalence = model(2, 4)
    tail = draw_counts(keys[100:], 200, 4, confusion, prevalence, BERNOULLI, 0.3, 0)
    for a, b in zip(whole, tail, strict=True):
        np.testing.assert_array_equal(a[100:], b)


# --------------------------------------------------------------------------- configuration


def test_counts_engine_rejects_designs_it_cannot_draw():
    raw = small_cell({"kind": "point"}, "counts", design={"kind": "strat", "m": 50})
    with pytest.raises(ScenarioError) as error:
        scenario_from_dict(raw)
    assert any(": engine:" in problem for problem in error.value.problems), error.value.problems

    raw = small_cell({"kind": "point"}, "counts")
    raw["model"].update({"n_clusters": 5, "cluster_spread": 0.1})
    with pytest.raises(ScenarioError) as error:
        scenario_from_dict(raw)
    assert any(": engine:" in problem for problem in error.value.problems), error.value.problems

    swept = small_cell({"kind": "point"}, "items", design={"kind": "exact_m", "m": 50})
    swept["sweep"] = {"engine": ["items", "counts"], "design": ["exact_m", "strat"]}
    with pytest.raises(ScenarioError) as error:
        scenario_from_dict(swept)
    assert any("sweep.engine" in problem for problem in error.value.problems), error.value.problems


def engines_run(raw):
    """The engine that drew the one cell of ``raw`` (by its trial counts)."""
    cube = simcore.run(raw)
    assert int(cube["n_trials"]) == raw["trials"]
    for engine in ("bitset", "counts"):
        if int(cube[f"n_trials_{engine}_engine"]) == raw["trials"]:
            return engine
    assert int(cube["n_trials_bitset_engine"]) == int(cube["n_trials_counts_engine"]) == 0
    return "items"


def test_auto_picks_the_engine_by_design_and_rule():
    trials = 200
    strat = small_cell({"kind": "point"}, "auto", trials, design={"kind": "strat", "m": 50})
    assert engines_run(strat) == "items"
    assert engines_run(small_cell({"kind": "point"}, "auto", trials)) == "bitset"
    alt_test = small_cell({"kind": "alt_test"}, "auto", trials)
    assert engines_run(alt_test) == "bitset"
    numeric = small_cell({"kind": "alt_test", "scale": "numeric"}, "auto", trials)
    assert engines_run(numeric) == "counts"  # numeric scores read the label values
    clustered = small_cell({"kind": "point"}, "auto", trials)
    clustered["model"].update({"n_clusters": 5, "cluster_spread": 0.1})
    assert engines_run(clustered) == "bitset"
    assert engines_run(small_cell({"kind": "interval"}, "auto", trials)) == "bitset"


def test_a_scenario_that_still_says_streams_is_refused_naming_the_file_and_the_key(
    tmp_path, capsys
):
    """``streams`` (the version of auto's engine choice) is gone: exit 2, one line, no store."""
    raw = small_cell({"kind": "point"}, "auto", 200)
    assert "streams" not in scenario_from_dict(raw).to_dict()
    assert "streams" not in scenario_from_dict(raw).to_yaml()
    out = tmp_path / "s.zarr"
    for value in (1, 2, 3):
        path = tmp_path / f"streams{value}.yaml"
        path.write_text(yaml.safe_dump({**raw, "streams": value}, sort_keys=False))
        for argv in (["validate", str(path)], ["run", str(path), "--out", str(out)]):
            assert main(argv) == 2, argv
            err = capsys.readouterr().err
            assert err == (
                f"{path}: streams: removed in this version (auto's engine choice has one "
                "version); delete the key\n"
            ), err
    path = tmp_path / "plain.yaml"
    path.write_text(yaml.safe_dump(raw, sort_keys=False))
    assert main(["run", str(path), "--set", "streams=3", "--out", str(out)]) == 2
    assert ": streams: removed in this version" in capsys.readouterr().err
    assert not out.exists()


def test_engine_is_a_sweep_dimension():
    raw = small_cell({"kind": "point"}, "auto", trials=200)
    raw["sweep"] = {"engine": ["items", "counts", "bitset"]}
    cube = simcore.run(raw)
    assert cube.sizes["engine"] == 3
    assert list(cube["engine"].values) == ["items", "counts", "bitset"]
    np.testing.assert_array_equal(cube["n_trials"].values, [200, 200, 200])
    np.testing.assert_array_equal(cube["n_trials_counts_engine"].values, [0, 200, 0])
    np.testing.assert_array_equal(cube["n_trials_bitset_engine"].values, [0, 0, 200])
    assert cube.attrs["engine_streams"] == "items 1, counts 1, bitset 1"
