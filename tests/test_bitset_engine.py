"""The bitset engine: exact against the NumPy rule, exact samplers, in law the items engine.

The bitset engine (:mod:`simcore.engine.bitset.trials`) holds a trial's labels and masks as
bitsets and forms the point rule's counts by popcounts. These tests decide the same
matrices with it and with the NumPy rule (:func:`simcore.model.rule.count_passes`) and
require identical passes, counters and pool scores, over every label count, coefficient
and ``min_pairs`` and with exact ties and empty comparisons; check its samplers (Bernoulli
words, mask groups, label planes) with chi-square tests; and check that its draws do not
depend on threads or on how trials are split into calls.
"""

import numba
import numpy as np
import pytest
from engine_agreement import RATES, proportion_mismatches
from scipy import stats

import simcore
from simcore.engine import layout as engine_layout
from simcore.engine.bitset import words as bitwords
from simcore.engine.bitset.draws import planes_model, symmetric_accuracies, word_count
from simcore.engine.bitset.trials import draw_bitsets, evaluate_bitsets, simulate_bitset
from simcore.engine.coefficients import COEFFICIENTS, coefficient_code, score_table
from simcore.engine.layout import BERNOULLI, EXACT_M, SHARED_PANEL
from simcore.engine.rng import trial_keys
from simcore.model.decision_rule import Rule
from simcore.model.generative import rater_confusions
from simcore.model.rule import comparison_tables, count_passes
from simcore.studies.synthetic.cell import TrialOutputs, rule_parameters
from simcore.studies.synthetic.scenario import scenario_from_dict

CHI_SQUARE_LEVEL = 1e-4
"""A fixed-seed chi-square test fails below this p-value (no false alarm at this seed)."""


def keys(count, seed=3):
    return trial_keys(np.random.SeedSequence(seed, spawn_key=(9,)), 0, count)


def pack(bits):
    """Pack bool ``(..., n)`` into uint64 words ``(..., W)``, item ``i`` in lane ``i % 64``."""
    n_items = bits.shape[-1]
    padded = np.zeros((*bits.shape[:-1], 64 * word_count(n_items)), dtype=np.uint64)
    padded[..., :n_items] = bits
    lanes = padded.reshape(*bits.shape[:-1], -1, 64)
    return (lanes << np.arange(64, dtype=np.uint64)).sum(axis=-1, dtype=np.uint64)


def unpack(words, n_items):
    """Inverse of :func:`pack`: bool ``(..., n)``."""
    lanes = (words[..., None] >> np.arange(64, dtype=np.uint64)) & np.uint64(1)
    return lanes.reshape(*words.shape[:-1], -1)[..., :n_items].astype(bool)


def to_bitsets(labels, mask, n_labels):
    """Planes (T, R, L, W) and masks (T, K, W) of labels (T, n, R) and mask (T, n, K)."""
    onehot = labels.transpose(0, 2, 1)[:, :, None, :] == np.arange(n_labels)[:, None]
    return pack(onehot), pack(mask.transpose(0, 2, 1))


def from_bitsets(planes, masks, n_items):
    """Labels ``(T, n, R)`` and mask ``(T, n, K)`` of the engine's bitsets."""
    onehot = unpack(planes, n_items)  # (T, R, L, n)
    assert (onehot.sum(axis=2) == 1).all(), "every item sits in exactly one plane"
    return onehot.argmax(axis=2).transpose(0, 2, 1), unpack(masks, n_items).transpose(0, 2, 1)


def random_matrices(generator, trials, n_items, n_humans, n_judges, n_labels, coverage):
    """Labels that often tie (few items, judges copying humans) and masks with empty pairs."""
    labels = generator.integers(0, n_labels, size=(trials, n_items, n_humans + n_judges))
    copying = generator.random((trials, n_items, n_judges)) < 0.5
    labels[:, :, n_humans:] = np.where(copying, labels[:, :, :1], labels[:, :, n_humans:])
    mask = generator.random((trials, n_items, n_humans)) < coverage
    mask[:, :, 0] = True
    return labels.astype(np.int16), mask


def oracle_ranking(labels, mask, n_humans, n_labels, coefficient, min_pairs):
    """Each judge's mean score over the comparisons with at least max(min_pairs, 1) pairs."""
    judge_tables, human_tables, _ = comparison_tables(labels, mask, n_humans, n_labels)
    scores = score_table(judge_tables, coefficient_code(coefficient))[0]  # (T, J, K)
    made = human_tables.sum(axis=(-2, -1)) >= max(min_pairs, 1)
    counted = made.sum(axis=-1)[:, None]
    total = (scores * made[:, None, :]).sum(axis=-1)
    return np.where(counted > 0, total / np.maximum(counted, 1), 0.0)


def assert_equals_oracle(outputs, labels, mask, n_labels, rule_config):
    """Every output the point rule writes equals the NumPy rule's on the same matrices."""
    n_humans = mask.shape[-1]
    arguments = (n_humans, rule_config.epsilon, rule_config.coefficient, n_labels)
    sparse = count_passes(labels, mask, *arguments, rule_config.min_pairs)
    dense = count_passes(labels, np.ones_like(mask), *arguments, rule_config.min_pairs)
    np.testing.assert_array_equal(outputs.favour, sparse.n_pass)
    np.testing.assert_array_equal(outputs.reference_favour, dense.n_pass)
    np.testing.assert_array_equal(outputs.tested, sparse.n_tested)
    np.testing.assert_array_equal(outputs.against, sparse.n_tested[:, None] - sparse.n_pass)
    np.testing.assert_array_equal(outputs.reference_tested, dense.n_tested)
    counters = outputs.counters
    np.testing.assert_array_equal(counters[:, engine_layout.EMPTY], sparse.n_empty)
    np.testing.assert_array_equal(counters[:, engine_layout.THIN], sparse.n_thin)
    np.testing.assert_array_equal(counters[:, engine_layout.DEGENERATE], sparse.n_degenerate)
    np.testing.assert_array_equal(counters[:, engine_layout.DEGENERATE_DENSE], dense.n_degenerate)
    code = coefficient_code(rule_config.coefficient)
    for column, pool_mask in (
        (engine_layout.POOL_SPARSE, mask),
        (engine_layout.POOL_DENSE, ~(mask & ~mask)),
    ):
        _, _, pool = comparison_tables(labels, pool_mask, n_humans, n_labels)
        expected = score_table(pool, code)[0]
        np.testing.assert_allclose(outputs.values[:, column], expected, rtol=0, atol=1e-12)
    secondaries = mask[:, :, 1:]
    np.testing.assert_allclose(outputs.coverage, secondaries.mean(axis=1))
    shared = (secondaries.any(axis=2) == secondaries.all(axis=2)).all(axis=1)
    np.testing.assert_array_equal(counters[:, engine_layout.SHARED], shared)
    if labels.shape[-1] - n_humans > 1:
        for side, side_mask in ((0, mask), (1, np.ones_like(mask))):
            expected = oracle_ranking(
                labels,
                side_mask,
                n_humans,
                n_labels,
                rule_config.coefficient,
                rule_config.min_pairs,
            )
            np.testing.assert_allclose(outputs.ranking[:, side], expected, rtol=0, atol=1e-12)


CASES = [
    # n_items, n_humans, n_judges, coverage
    (7, 3, 2, 0.4),  # few items: ties everywhere
    (70, 4, 1, 0.15),  # two words, a partial last one; empty comparisons
    (130, 10, 2, 0.3),  # K = 10, three words
    (64, 2, 1, 0.5),  # one full word, one secondary
]


@pytest.mark.parametrize("n_labels", range(2, 9))
@pytest.mark.parametrize("coefficient", COEFFICIENTS)
def test_label_planes_decide_as_the_numpy_rule(n_labels, coefficient):
    generator = np.random.default_rng(n_labels * 10 + COEFFICIENTS.index(coefficient))
    for n_items, n_humans, n_judges, coverage in CASES:
        labels, mask = random_matrices(
            generator, 60, n_items, n_humans, n_judges, n_labels, coverage
        )
        planes, masks = to_bitsets(labels, mask, n_labels)
        for epsilon, min_pairs in ((0.0, 0), (0.05, 2)):
            config = Rule(coefficient=coefficient, epsilon=epsilon, min_pairs=min_pairs)
            outputs = TrialOutputs(
                *evaluate_bitsets(planes, masks, n_items, True, rule_parameters(config))
            )
            assert_equals_oracle(outputs, labels, mask, n_labels, config)


@pytest.mark.parametrize("n_labels", [2, 3, 5, 8])
def test_offset_planes_decide_observed_agreement_as_the_numpy_rule(n_labels):
    """Offsets agree exactly where labels do, so observed agreement needs no label counts."""
    generator = np.random.default_rng(n_labels)
    for n_items, n_humans, n_judges, coverage in CASES:
        labels, mask = random_matrices(
            generator, 60, n_items, n_humans, n_judges, n_labels, coverage
        )
        planes, masks = to_bitsets(labels, mask, n_labels)
        config = Rule(epsilon=0.0)
        outputs = TrialOutputs(
            *evaluate_bitsets(planes, masks, n_items, False, rule_parameters(config))
        )
        assert_equals_oracle(outputs, labels, mask, n_labels, config)


def test_exact_ties_are_passes_and_a_broken_tie_rule_would_show():
    """With eps = 0 a judge that copies a human ties that human's comparisons exactly."""
    generator = np.random.default_rng(5)
    labels, mask = random_matrices(generator, 200, 9, 3, 1, 2, 0.5)
    labels[:, :, 3] = labels[:, :, 0]  # the judge is human 0
    planes, masks = to_bitsets(labels, mask, 2)
    config = Rule(epsilon=0.0)
    outputs = TrialOutputs(*evaluate_bitsets(planes, masks, 9, False, rule_parameters(config)))
    assert_equals_oracle(outputs, labels, mask, 2, config)
    judge_tables, human_tables, _ = comparison_tables(labels, mask, 3, 2)
    judge_agree = np.trace(judge_tables[:, 0, 0], axis1=-2, axis2=-1)
    human_agree = np.trace(human_tables[:, 0], axis1=-2, axis2=-1)
    ties = judge_agree == human_agree
    assert ties.all()  # comparison 0 is an exact tie in every trial
    strict = count_passes(labels, mask, 3, -1e-6, "observed", 2).n_pass  # ties fail now
    assert (strict[:, 0] < outputs.favour[:, 0]).any()


def model_for(n_humans, n_labels, symmetric):
    if symmetric:
        return rater_confusions(n_humans, n_labels, 0.8, [0.7, 0.9]), np.full(
            n_labels, 1 / n_labels
        )
    judge = np.full((n_labels, n_labels), 0.3 / (n_labels - 1))
    np.fill_diagonal(judge, 0.7)
    judge[0] = np.roll(judge[0], 1)  # label 0 read as label 1 most of the time
    confusion = rater_confusions(n_humans, n_labels, 0.8, 0.7, confusion_judge=judge.tolist())
    prevalence = np.arange(1, n_labels + 1, dtype=float)
    return confusion, prevalence / prevalence.sum()


DESIGNS = {
    "bernoulli": (BERNOULLI, 0.3, 0),
    "exact_m": (EXACT_M, 0.0, 17),
    "shared_panel": (SHARED_PANEL, 0.0, 11),
}


@pytest.mark.parametrize("design", DESIGNS)
@pytest.mark.parametrize(
    "n_labels, coefficient",
    [(2, "observed"), (3, "cohen_kappa"), (5, "gwet_ac1"), (8, "krippendorff_alpha")],
)
def test_simulate_decides_what_it_draws(design, n_labels, coefficient):
    code, rho, m = DESIGNS[design]
    n_items, n_humans = 75, 4
    confusion, prevalence = model_for(n_humans, n_labels, symmetric=coefficient == "observed")
    offsets = coefficient == "observed"
    model = planes_model(confusion, prevalence, offsets)
    config = Rule(coefficient=coefficient, epsilon=0.05, min_pairs=1)
    trial_keys_ = keys(120)
    outputs = TrialOutputs(
        *simulate_bitset(
            trial_keys_, n_items, n_humans, model, code, rho, m, rule_parameters(config)
        )
    )
    planes, masks = draw_bitsets(trial_keys_, n_items, n_humans, model, code, rho, m)
    labels, mask = from_bitsets(planes, masks, n_items)
    assert_equals_oracle(outputs, labels, mask, n_labels, config)
    assert mask[:, :, 0].all()
    if design != "bernoulli":
        np.testing.assert_array_equal(mask[:, :, 1:].sum(axis=1), m)
    if design == "shared_panel":
        assert (mask[:, :, 1:] == mask[:, :, 1:2]).all()


def chi_square_p(observed, expected):
    keep = expected > 0
    assert observed[~keep].sum() == 0
    return stats.chisquare(observed[keep], expected[keep] * observed.sum() / expected.sum()).pvalue


@numba.njit
def _bernoulli_counts(key, thresholds, classes, n_calls):
    """Ones per word over ``n_calls`` calls of bernoulli_rows: ``(R, W, calls)``."""
    n_rows = thresholds.shape[0]
    n_words = classes.shape[1]
    out = np.empty((n_rows, n_words), dtype=np.uint64)
    scratch = bitwords.row_scratch(n_rows, n_words)
    counts = np.zeros((n_rows, n_words, n_calls), dtype=np.int64)
    counter = np.uint64(0)
    for call in range(n_calls):
        counter = bitwords.bernoulli_rows(key, counter, thresholds, classes, None, out, scratch)
        for r in range(n_rows):
            for w in range(n_words):
                counts[r, w, call] = bitwords.popcount(out[r, w])
    return counts


@pytest.mark.parametrize("probability", [0.5, 0.15, 0.85, 0.25, 1e-3, 0.999, 1 / 3])
def test_bernoulli_words_have_binomial_counts(probability):
    """Ones in a 64-lane word ~ Binomial(64, q): the lanes' rate and their independence."""
    threshold = bitwords.threshold(probability)
    thresholds = np.full((3, 1), threshold, dtype=np.uint64)
    classes = np.full((1, 5), bitwords.ALL_ONES, dtype=np.uint64)
    counts = _bernoulli_counts(np.uint64(2026), thresholds, classes, 4000).ravel()
    expected = stats.binom.pmf(np.arange(65), 64, probability)
    observed = np.bincount(counts, minlength=65).astype(float)
    assert _pooled_ok(observed, expected)  # cells with fewer than 5 expected words pooled
    mean = counts.mean() / 64
    assert abs(mean - probability) < 5 * np.sqrt(
        probability * (1 - probability) / (64 * counts.size)
    )


def _pooled_ok(observed, expected, least=5.0):
    """Chi-square after pooling cells with fewer than ``least`` expected counts."""
    expected = expected * observed.sum() / expected.sum()
    pooled_o, pooled_e, run_o, run_e = [], [], 0.0, 0.0
    for o, e in zip(observed, expected, strict=True):
        run_o += o
        run_e += e
        if run_e >= least:
            pooled_o.append(run_o)
            pooled_e.append(run_e)
            run_o = run_e = 0.0
    if pooled_o:
        pooled_o[-1] += run_o
        pooled_e[-1] += run_e
    return stats.chisquare(pooled_o, pooled_e).pvalue > CHI_SQUARE_LEVEL


def test_bernoulli_words_by_class_follow_each_class():
    """Lanes take their class's threshold: class 0 at 0.2, class 1 at 0.7, class 2 never."""
    generator = np.random.default_rng(0)
    lane_class = generator.integers(0, 3, size=4 * 64)
    classes = pack(lane_class[None, :] == np.arange(3)[:, None])
    thresholds = np.array([[bitwords.threshold(0.2), bitwords.threshold(0.7), 0]], dtype=np.uint64)

    @numba.njit
    def lanes(key, n_calls):
        out = np.empty((1, classes.shape[1]), dtype=np.uint64)
        scratch = bitwords.row_scratch(*out.shape)
        ones = np.zeros(classes.shape[1] * 64, dtype=np.int64)
        counter = np.uint64(0)
        for _ in range(n_calls):
            counter = bitwords.bernoulli_rows(key, counter, thresholds, classes, None, out, scratch)
            for w in range(out.shape[1]):
                for b in range(64):
                    ones[w * 64 + b] += (out[0, w] >> np.uint64(b)) & np.uint64(1)
        return ones

    n_calls = 3000
    ones = lanes(np.uint64(7), n_calls)
    for label, probability in ((0, 0.2), (1, 0.7)):
        hits = ones[lane_class == label]
        observed = np.array([hits.sum(), n_calls * hits.size - hits.sum()], dtype=float)
        expected = np.array([probability, 1 - probability])
        assert chi_square_p(observed, expected) > CHI_SQUARE_LEVEL
        # every lane of the class alike: the per-lane counts are Binomial(n_calls, p)
        assert stats.chisquare(hits, np.full(hits.size, hits.mean())).pvalue > CHI_SQUARE_LEVEL
    assert ones[lane_class == 2].sum() == 0


def test_thresholds_are_exact_binary_fractions():
    assert bitwords.threshold(0.5) == np.uint64(1 << 63)
    assert bitwords.threshold(0.25) == np.uint64(1 << 62)
    assert bitwords.threshold(1.0) == bitwords.ALL_ONES
    assert bitwords.threshold(0.0) == 0
    third = int(bitwords.threshold(1 / 3))
    assert abs(third / 2**64 - 1 / 3) < 2**-52


@pytest.mark.parametrize("design", DESIGNS)
def test_mask_groups_have_the_designs_laws(design):
    """Coverage ~ Binomial(n, rho) (bernoulli) or exactly m; two secondaries' overlap
    ~ Hypergeometric(n, m, m) (exact_m) or everything (shared_panel)."""
    code, rho, m = DESIGNS[design]
    n_items, n_humans, trials = 60, 3, 20000
    confusion, prevalence = model_for(n_humans, 2, symmetric=True)
    model = planes_model(confusion, prevalence, True)
    _, masks = draw_bitsets(keys(trials, seed=11), n_items, n_humans, model, code, rho, m)
    mask = unpack(masks, n_items)  # (T, K, n)
    coverage = mask[:, 1].sum(axis=1)
    overlap = (mask[:, 1] & mask[:, 2]).sum(axis=1)
    support = np.arange(n_items + 1)
    if design == "bernoulli":
        expected = stats.binom.pmf(support, n_items, rho)
        assert _pooled_ok(np.bincount(coverage, minlength=n_items + 1).astype(float), expected)
        # independent secondaries: the overlap ~ Binomial(n, rho^2)
        expected = stats.binom.pmf(support, n_items, rho * rho)
        assert _pooled_ok(np.bincount(overlap, minlength=n_items + 1).astype(float), expected)
    elif design == "exact_m":
        assert (coverage == m).all()
        expected = stats.hypergeom.pmf(support, n_items, m, m)
        assert _pooled_ok(np.bincount(overlap, minlength=n_items + 1).astype(float), expected)
    else:
        assert (coverage == m).all() and (overlap == m).all()


@pytest.mark.parametrize("n_labels, offsets", [(2, True), (3, False), (4, True), (5, False)])
def test_label_planes_have_the_models_joint_law(n_labels, offsets):
    """Two raters' labels on an item ~ sum_t p_t C_a[t] (x) C_b[t] (offsets: their law)."""
    n_items, n_humans = 50, 2
    confusion, prevalence = model_for(n_humans, n_labels, symmetric=offsets)
    model = planes_model(confusion, prevalence, offsets)
    planes, masks = draw_bitsets(keys(4000, seed=5), n_items, n_humans, model, BERNOULLI, 0.5, 0)
    labels, _ = from_bitsets(planes, masks, n_items)
    if offsets:  # the planes hold offsets: rater r's is 0 with p_r, else uniform on the rest
        accuracies = symmetric_accuracies(confusion)
        laws = []
        for accuracy in accuracies:
            law = np.full(n_labels, (1 - accuracy) / (n_labels - 1))
            law[0] = accuracy
            laws.append(law)
        expected = np.einsum("a,b->ab", laws[0], laws[2])
    else:
        expected = np.einsum("t,ta,tb->ab", prevalence, confusion[0], confusion[2])
    pair = labels[:, :, 0] * n_labels + labels[:, :, 2]
    observed = np.bincount(pair.ravel(), minlength=n_labels**2).astype(float)
    assert chi_square_p(observed, expected.ravel()) > CHI_SQUARE_LEVEL


def test_results_do_not_depend_on_threads_or_trial_splits():
    confusion, prevalence = model_for(4, 3, symmetric=False)
    model = planes_model(confusion, prevalence, False)
    rule = rule_parameters(Rule(coefficient="cohen_kappa"))
    all_keys = keys(700)
    arguments = (300, 4, model, BERNOULLI, 0.2, 0, rule)
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = simulate_bitset(all_keys, *arguments)
        numba.set_num_threads(max(2, threads) if numba.config.NUMBA_NUM_THREADS > 1 else 1)
        many = simulate_bitset(all_keys, *arguments)
    finally:
        numba.set_num_threads(threads)
    split = [simulate_bitset(all_keys[a:b], *arguments) for a, b in ((0, 1), (1, 250), (250, 700))]
    for index, whole in enumerate(one):
        np.testing.assert_array_equal(whole, many[index])
        np.testing.assert_array_equal(whole, np.concatenate([part[index] for part in split]))


# --------------------------------------------------------------------------- equal in law

GRID_TRIALS = 2000


def compare_engines(raw):
    """Run ``raw`` with the items and the bitset engine; every rate within 4 pooled SEs."""
    cubes = {engine: simcore.run({**raw, "engine": engine}) for engine in ("items", "bitset")}
    np.testing.assert_array_equal(cubes["bitset"]["n_trials_bitset_engine"].values, GRID_TRIALS)
    checked, mismatches = 0, []
    shares = {name: pair for name, pair in RATES.items()}
    for name in ("n_accept", "omega_hist", "n_agreement_reliable", "n_top1_wrong"):
        shares[name] = (name, "n_trials")
    for name, (numerator, denominator) in shares.items():
        pairs = []
        for cube in cubes.values():
            counts = cube[numerator]
            trials = cube[denominator].broadcast_like(counts).transpose(*counts.dims)
            pairs.append((counts.values, trials.values))
        found = proportion_mismatches(*pairs[0], *pairs[1], name)
        checked += found[0]
        mismatches += found[1]
    assert not mismatches, "\n".join(mismatches)
    return checked, cubes


def test_labels_and_coefficients_agree_with_the_items_engine():
    """L = 2 .. 8 by every coefficient, two judges (the ranking), bernoulli overlap."""
    raw = {
        "model": {"n_items": 80, "n_humans": 4, "p_human": 0.8, "p_judge": [0.7, 0.85]},
        "design": {"kind": "bernoulli", "rho": 0.3},
        "rule": {"kind": "point", "epsilon": 0.05},
        "trials": GRID_TRIALS,
        "seed": 5,
        "sweep": {"n_labels": [2, 3, 5, 8], "coefficient": list(COEFFICIENTS)},
    }
    checked, cubes = compare_engines(raw)
    assert checked > 200
    assert int(cubes["bitset"]["n_wrong"].sum()) > 300  # the comparison has power


def test_designs_panels_references_and_confusions_agree_with_the_items_engine():
    """Every design, K = 2, 4, 10, both references, asymmetric channels and a skew."""
    raw = {
        "model": {
            "n_items": 120,
            "n_labels": 2,
            "p_human": 0.85,
            "confusion_judge": [[0.85, 0.15], [0.3, 0.7]],
            "prevalence": [0.7, 0.3],
        },
        "design": {"kind": "bernoulli", "rho": 0.25},
        "rule": {"kind": "point", "epsilon": 0.05, "min_pairs": 3},
        "trials": GRID_TRIALS,
        "seed": 6,
        "sweep": {
            "design": ["bernoulli", "exact_m", "shared_panel"],
            "n_humans": [2, 4, 10],
            "reference": ["dense", "population"],
            "coefficient": ["observed", "cohen_kappa"],
        },
    }
    checked, cubes = compare_engines(raw)
    assert checked > 100
    assert int(cubes["bitset"]["n_wrong"].sum()) > 300


# --------------------------------------------------------------------------- first use


def test_first_use_names_the_cold_kernels_with_an_estimate(monkeypatch):
    from simcore.engine import warm

    monkeypatch.setattr(warm, "is_compiled", lambda engine: engine == "items")
    note = warm.first_use_note({"bitset", "items"})
    assert note.startswith("compiling the bitset engine on first use (about ")
    assert "items" not in note
    assert warm.first_use_note({"items"}) is None
    both = warm.first_use_note({"bitset", "counts"})
    total = warm.COMPILE_SECONDS["bitset"] + warm.COMPILE_SECONDS["counts"]
    assert "the bitset engine and the counts engine" in both and f"about {total} s" in both


def test_a_kernel_that_ran_counts_as_compiled():
    from simcore.engine import warm

    simcore.run(
        {"model": {"n_items": 40}, "design": {"kind": "bernoulli", "rho": 0.2}, "trials": 3}
    )
    assert warm.is_compiled("bitset")


def test_each_bitset_variant_is_named_and_checked_apart(monkeypatch):
    """The verdicts and clusters compile their own variant: the note names what is cold."""
    from simcore.engine import warm

    raw = {"model": {"n_items": 40}, "design": {"kind": "bernoulli", "rho": 0.2}, "trials": 3}
    raw["sweep"] = {"rule": ["point", "interval"], "cluster_spread": [0.0, 0.2]}
    cells = list(scenario_from_dict(raw).cells())
    variants = [cell.kernel_variant for cell in cells]
    assert variants == ["bitset", "bitset:clusters", "bitset:verdicts", "bitset:verdicts,clusters"]
    assert set(variants) <= set(warm.COMPILE_SECONDS)
    assert scenario_from_dict({**raw, "engine": "items"}).cells().__next__().kernel_variant == (
        "items"
    )
    monkeypatch.setattr(warm, "is_compiled", lambda engine: engine == "bitset")
    note = warm.first_use_note(set(variants))
    assert "the bitset engine's clusters and the bitset engine's verdicts and " in note
    seconds = sum(warm.COMPILE_SECONDS[v] for v in variants[1:])
    assert f"about {seconds} s" in note
    monkeypatch.undo()
    simcore.run({**raw, "sweep": {"rule": ["interval"]}})  # the verdicts variant ran
    assert warm.is_compiled("bitset:verdicts")
    assert warm._matches(("a", "none", "none"), (False, False))
    assert not warm._matches(("a", "bool", "none"), (False, False))


def test_show_says_which_engine_drew_the_cells():
    raw = {
        "model": {"n_items": 60},
        "design": {"kind": "bernoulli", "rho": 0.2},
        "trials": 50,
        "sweep": {"engine": ["bitset", "items"]},
    }
    from simcore.studies.synthetic.report import engine_line

    mixed = engine_line(simcore.run(raw))
    assert mixed == "engines: bitset in 1, items in 1 of 2 cells (streams: bitset 1, items 1)"
    one = engine_line(simcore.run({**raw, "sweep": {"rho": [0.2, 0.3]}}))
    assert one == "engine: bitset in every cell (streams: bitset 1)"
    from simcore.cli.show_command import show_document

    document = show_document("store", simcore.run(raw))
    assert document["engine_streams"] == "items 1, counts 1, bitset 1"
    assert [cell["n_trials_bitset_engine"] for cell in document["cells"]] == [50, 0]
