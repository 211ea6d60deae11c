"""One cell of a sweep: derive its seeds, run the kernel, reduce trials to counts and sums.

Counts and sums (never rates or means) leave this module, so cells can be merged and
extended.
"""

from typing import NamedTuple

import numpy as np

from simcore.engine import kernels
from simcore.engine import layout as engine_layout
from simcore.engine.bitset.draws import planes_model, symmetric_accuracies
from simcore.engine.bitset.trials import simulate_bitset
from simcore.engine.coefficients import coefficient_code
from simcore.engine.counts import simulate_counts
from simcore.engine.layout import (
    RULE_SKIP,
    SKIP_AGREEMENT,
    SKIP_OVERLAP,
    SKIP_RANKING,
)
from simcore.engine.rng import trial_keys
from simcore.engine.threads import set_threads
from simcore.engine.warm import record_compiled
from simcore.model import weighted
from simcore.model.designs import design_code, pair_weights
from simcore.model.generative import pair_tables, prevalence_vector
from simcore.model.rule import (
    ACCEPT,
    INCONCLUSIVE,
    REJECT,
    decide,
    decide_counts,
    population_passes,
    population_scores,
)
from simcore.studies.protocol import add_counts, quantize
from simcore.studies.synthetic.config import OUTPUTS

SKIP_BITS = {"agreement": SKIP_AGREEMENT, "overlap": SKIP_OVERLAP, "ranking": SKIP_RANKING}
"""The ``RULE_SKIP`` bit of each output of :data:`OUTPUTS`."""

TRIALS_PER_CALL = 65_536
"""Trials per kernel call: a cell's memory stays bounded however many trials it runs (its
counts add exactly, so the results do not depend on this)."""

RELIABLE_ERROR = 0.05
"""An agreement estimate within this of the dense one counts as reliable (P Table 1)."""

JUDGE_COUNT_NAMES = (
    "n_ref_accept",
    "n_ref_reject",
    "n_accept",
    "n_wrong",
    "n_false_reject",
    "n_false_accept",
    "n_inconclusive",
)
"""Integer counts per cell and judge."""

COUNT_NAMES = (
    "n_trials",
    "n_trials_counts_engine",
    "n_trials_bitset_engine",
    *JUDGE_COUNT_NAMES,
    "n_empty_comparisons",
    "n_degenerate_scores",
    "n_shared_panel",
    "n_agreement_defined",
    "n_agreement_reliable",
    "n_tested",
    "n_untestable",
    "n_undecided_comparisons",
    "n_top1_wrong",
    "n_top1_wrong_population",
    "n_rank_discordant",
    "n_rank_discordant_population",
)
"""Integer counts per cell (those of :data:`JUDGE_COUNT_NAMES` per judge too)."""

OVERLAP_QUANTUM = 2.0**-10
"""Like :data:`~simcore.studies.protocol.QUANTUM`, for the mean pairwise overlap (in items,
so a coarser grid keeps sums exact)."""


SUM_NAMES = (
    "sum_pairwise_overlap",
    "sum_agreement_estimate",
    "sum_agreement_estimate_sq",
    "sum_agreement_reference",
    "sum_agreement_error",
    "sum_agreement_error_sq",
    "sum_extra_items",
)
"""Float sums per cell (over trials, or over trials with a defined agreement estimate)."""


class TrialOutputs(NamedTuple):
    """The per-trial arrays :func:`simcore.engine.kernels.simulate` returns, by name."""

    favour: np.ndarray
    against: np.ndarray
    tested: np.ndarray
    reference_favour: np.ndarray
    reference_tested: np.ndarray
    counters: np.ndarray
    values: np.ndarray
    coverage: np.ndarray
    ranking: np.ndarray
    skipped: np.ndarray


def cell_sequence(root_seed, cell):
    """Return the cell's :class:`numpy.random.SeedSequence` (root seed + coordinate hash)."""
    return np.random.SeedSequence(root_seed, spawn_key=cell.seed_key())


def kernel_arguments(cell):
    """Return the kernel's model and design arguments for ``cell`` as a tuple.

    ``(n_items, n_humans, confusion, prevalence_cdf, n_clusters, cluster_spread, design,
    rho, m)``.
    """
    model = cell.model
    cdf = np.cumsum(prevalence_vector(model.prevalence, model.n_labels))
    cdf[-1] = 1.0
    rho = cell.design.rho if cell.design.rho is not None else 0.0
    m = cell.m if cell.design.kind != "bernoulli" else 0
    return (
        model.n_items,
        model.n_humans,
        cell.confusions(),
        cdf,
        model.n_clusters,
        float(model.cluster_spread),
        design_code(cell.design.kind),
        float(rho),
        int(m),
    )


def rule_parameters(rule, outputs=OUTPUTS):
    """Return the kernel's rule array (:data:`simcore.engine.engine_layout.N_RULE` entries).

    ``outputs`` (a subset of :data:`~simcore.studies.synthetic.config.OUTPUTS`) sets the
    ``RULE_SKIP`` bits of those left out, which the kernels then do not compute. Only the
    interval rule reads ``RULE_Z`` (the two-sided normal quantile of ``rule.confidence``);
    it stays 0 for the other rules, which spares them scipy's 0.45 s import.
    """
    parameters = np.zeros(engine_layout.N_RULE)
    parameters[engine_layout.RULE_KIND] = ("point", "alt_test", "interval").index(rule.kind)
    parameters[engine_layout.RULE_EPSILON] = rule.epsilon
    parameters[engine_layout.RULE_COEFFICIENT] = coefficient_code(rule.coefficient)
    if rule.kind == "interval":
        from scipy import stats

        parameters[engine_layout.RULE_Z] = stats.norm.ppf(0.5 + rule.confidence / 2)
    parameters[engine_layout.RULE_MIN_HUMANS] = rule.min_humans_per_item
    parameters[engine_layout.RULE_MIN_ITEMS] = rule.min_items_per_human
    parameters[engine_layout.RULE_Q] = rule.q
    parameters[engine_layout.RULE_NUMERIC] = 1.0 if rule.scale == "numeric" else 0.0
    parameters[engine_layout.RULE_MIN_PAIRS] = rule.min_pairs
    parameters[RULE_SKIP] = sum(bit for name, bit in SKIP_BITS.items() if name not in outputs)
    return parameters


def kernel_weighting(cell):
    """Return the items and counts engines' ``weighting`` of ``cell``, None if unweighted.

    :func:`simcore.model.weighted.kernel_weighting` on the cell's codes ``0 .. L - 1``.
    """
    values = np.arange(cell.model.n_labels, dtype=float)
    rule = cell.rule
    return weighted.kernel_weighting(rule.coefficient, values, rule.level, rule.weights)


def _population_inputs(cell):
    model = cell.model
    probabilities = pair_tables(
        cell.confusions(),
        prevalence_vector(model.prevalence, model.n_labels),
        model.cluster_spread if model.n_clusters > 1 else 0.0,
    )
    weights = pair_weights(
        cell.design.kind, model.n_items, model.n_humans, rho=cell.design.rho, m=cell.m
    )
    return probabilities, weights


def synthetic_weighting(cell):
    """Return the weighting of ``cell``'s coefficient on its codes ``0 .. L - 1``."""
    values = np.arange(cell.model.n_labels, dtype=float)
    rule = cell.rule
    return weighted.rule_weighting(rule.coefficient, values, rule.level, rule.weights)


def population_decision(cell):
    """Return each judge's ``population`` reference decision, by the point rule."""
    probabilities, weights = _population_inputs(cell)
    n_pass = population_passes(
        probabilities,
        cell.model.n_humans,
        weights,
        cell.rule.epsilon,
        cell.rule.coefficient,
        synthetic_weighting(cell),
    )
    return decide(n_pass, cell.model.n_humans, cell.rule.tau, strict=cell.rule.strict)


def population_ranking(cell):
    """Return each judge's limit score averaged over the comparisons (its true standing)."""
    probabilities, weights = _population_inputs(cell)
    judge_score, _ = population_scores(
        probabilities,
        cell.model.n_humans,
        weights,
        cell.rule.coefficient,
        synthetic_weighting(cell),
    )
    return judge_score.mean(axis=1)


def discordant_pairs(scores, reference):
    """Count judge pairs ordered differently by ``scores`` ``(T, J)`` than by ``reference``.

    ``reference`` is ``(T, J)`` or ``(J,)``. A pair is misordered when the signs of the two
    differences differ (a tie on one side only counts). Returns ``(T,)`` counts.
    """
    scores = np.asarray(scores)
    reference = np.broadcast_to(np.asarray(reference), scores.shape)
    mine = np.sign(scores[:, :, None] - scores[:, None, :])
    theirs = np.sign(reference[:, :, None] - reference[:, None, :])
    upper = np.triu(np.ones(mine.shape[1:], dtype=bool), 1)
    return ((mine != theirs) & upper).sum(axis=(1, 2))


def counts_engine_arguments(cell):
    """Return :func:`simcore.engine.counts.simulate_counts`'s model and design arguments.

    ``(n_items, n_humans, confusion, prevalence, design, rho, m)``.
    """
    n_items, n_humans, confusion, _, _, _, design, rho, m = kernel_arguments(cell)
    prevalence = prevalence_vector(cell.model.prevalence, cell.model.n_labels)
    return n_items, n_humans, confusion, np.asarray(prevalence, dtype=float), design, rho, m


def bitset_engine_arguments(cell):
    """Return :func:`simcore.engine.bitset.trials.simulate_bitset`'s model and design arguments.

    ``(n_items, n_humans, planes_model, design, rho, m)``. Offset planes (the truth drops
    out) when every channel is symmetric and the coefficient is observed agreement, which
    reads no label counts; label planes otherwise. The alternative annotator test
    (categorical) and the interval verdict read agreements only, as observed agreement does.
    """
    n_items, n_humans, confusion, prevalence, design, rho, m = counts_engine_arguments(cell)
    offsets = cell.rule.coefficient == "observed" and symmetric_accuracies(confusion) is not None
    model = planes_model(confusion, prevalence, offsets)
    return n_items, n_humans, model, design, rho, m


def bitset_clusters(cell):
    """Return the bitset engine's ``clusters`` argument: None, or the cell's clusters."""
    if cell.model.cluster_spread > 0:
        return cell.confusions(), cell.model.n_clusters, float(cell.model.cluster_spread)
    return None


def simulate_cell(cell, root_seed, start, stop):
    """Run trials ``range(start, stop)`` of ``cell``; return the kernel's per-trial outputs.

    The engine is the cell's
    :attr:`~simcore.studies.synthetic.config.Cell.kernel_engine`; the engines share the
    trial keys but draw from them differently, so a cell's numbers depend on its engine
    (and its streams' version), seed, coordinates and trial count only.
    """
    keys = trial_keys(cell_sequence(root_seed, cell), start, stop)
    rule = rule_parameters(cell.rule, cell.outputs)
    engine = cell.kernel_engine
    if engine == "bitset":
        arguments = bitset_engine_arguments(cell)
        outputs = simulate_bitset(keys, *arguments, rule, bitset_clusters(cell))
    elif engine == "counts":
        arguments = counts_engine_arguments(cell)
        outputs = simulate_counts(keys, *arguments, rule, kernel_weighting(cell))
    else:
        outputs = kernels.simulate(keys, *kernel_arguments(cell), rule, kernel_weighting(cell))
    record_compiled(cell.kernel_variant)
    return TrialOutputs(*outputs)


def count_outcomes(cell, outputs):
    """Reduce the kernel's per-trial outputs to the cell's counts and sums.

    Decisions follow the rule kind (:func:`simcore.model.rule.decide_counts`). The reference is the
    dense matrix of the same trial decided by the same rule (the interval verdict's
    reference is the point rule's decision), or the population decision. A false rejection
    is a reference accept decided reject, a false approval a reference reject decided
    accept; inconclusive decisions are neither and are counted apart.

    The human pool's agreement is estimated on the sparse and the dense matrix of the same
    trial; error sums run over trials where both are defined, and an estimate is reliable
    when defined and within :data:`RELIABLE_ERROR` of the dense one. With several judges,
    the ranking by mean score is compared with the dense ranking and the population one.

    Returns
    -------
    dict
        :data:`COUNT_NAMES` (int64; those in :data:`JUDGE_COUNT_NAMES` as ``(J,)`` arrays),
        :data:`SUM_NAMES` (float64), ``omega_hist`` ``(J, K + 1)``, ``sum_coverage`` per
        secondary and ``n_skipped`` per human. The statistics of an output the cell does not
        ask for (:data:`OUTPUTS`) are not computed: their sums are NaN, their counts 0.
    """
    result = _decision_counts(cell, outputs)
    result.update(_trial_counts(cell, outputs))
    result.update(_agreement_sums(cell, outputs))
    n_humans = cell.model.n_humans
    result["omega_hist"] = np.stack(
        [
            np.bincount(outputs.favour[:, judge], minlength=n_humans + 1)
            for judge in range(outputs.favour.shape[1])
        ]
    ).astype(np.int64)
    result["sum_coverage"] = quantize(outputs.coverage).sum(axis=0)
    if "overlap" not in cell.outputs:
        result["sum_coverage"] = np.full(outputs.coverage.shape[1], np.nan)
    result["n_skipped"] = outputs.skipped.astype(np.int64).sum(axis=0)
    return result


def _decision_counts(cell, outputs):
    """Per-judge counts of sparse and reference decisions and of the wrong ones."""
    rule = cell.rule
    sparse = decide_counts(
        outputs.favour,
        outputs.against,
        outputs.tested[:, None],
        rule.tau,
        rule.strict,
        rule.inconclusive,
        rule.kind,
    )
    if cell.reference == "population":
        reference = np.broadcast_to(population_decision(cell), sparse.shape)
    else:
        tested = outputs.reference_tested[:, None]
        reference = decide_counts(
            outputs.reference_favour,
            tested - outputs.reference_favour,
            tested,
            rule.tau,
            rule.strict,
            None,
            "alt_test" if rule.kind == "alt_test" else "point",
        )
    ref_accept = reference == ACCEPT
    ref_reject = reference == REJECT
    false_reject = (ref_accept & (sparse == REJECT)).sum(axis=0)
    false_accept = (ref_reject & (sparse == ACCEPT)).sum(axis=0)
    per_judge = {
        "n_ref_accept": ref_accept.sum(axis=0),
        "n_ref_reject": ref_reject.sum(axis=0),
        "n_accept": (sparse == ACCEPT).sum(axis=0),
        "n_wrong": false_reject + false_accept,
        "n_false_reject": false_reject,
        "n_false_accept": false_accept,
        "n_inconclusive": (sparse == INCONCLUSIVE).sum(axis=0),
    }
    return {name: np.asarray(value, dtype=np.int64) for name, value in per_judge.items()}


def _agreement_defined(outputs):
    counters = outputs.counters
    return (counters[:, engine_layout.POOL_UNDEFINED] == 0) & (
        counters[:, engine_layout.POOL_UNDEFINED_DENSE] == 0
    )


def _agreement_error(outputs):
    """Quantised sparse and dense pool agreement, and their difference, where defined."""
    defined = _agreement_defined(outputs)
    estimate = quantize(outputs.values[defined, engine_layout.POOL_SPARSE])
    truth = quantize(outputs.values[defined, engine_layout.POOL_DENSE])
    return estimate, truth, estimate - truth


def _trial_counts(cell, outputs):
    """Integer counts per cell: trials, comparisons, agreement reliability, ranking."""
    counters, ranking = outputs.counters, outputs.ranking
    _, _, error = _agreement_error(outputs)
    n_trials = len(outputs.favour)
    engine = cell.kernel_engine
    scalars = {
        "n_trials": n_trials,
        "n_trials_counts_engine": n_trials if engine == "counts" else 0,
        "n_trials_bitset_engine": n_trials if engine == "bitset" else 0,
        "n_empty_comparisons": counters[:, engine_layout.EMPTY].sum(),
        "n_degenerate_scores": counters[:, engine_layout.DEGENERATE].sum(),
        "n_shared_panel": counters[:, engine_layout.SHARED].sum(),
        "n_agreement_defined": 0,
        "n_agreement_reliable": 0,
        "n_tested": outputs.tested.astype(np.int64).sum(),
        "n_untestable": (outputs.tested == 0).sum(),
        "n_undecided_comparisons": counters[:, engine_layout.UNDECIDED].sum(),
        "n_top1_wrong": 0,
        "n_top1_wrong_population": 0,
        "n_rank_discordant": 0,
        "n_rank_discordant_population": 0,
    }
    if "agreement" in cell.outputs:
        scalars["n_agreement_defined"] = _agreement_defined(outputs).sum()
        scalars["n_agreement_reliable"] = (np.abs(error) <= RELIABLE_ERROR).sum()
    if ranking.shape[2] > 1 and "ranking" in cell.outputs:
        truth_rank = population_ranking(cell)
        best = np.argmax(ranking[:, 0], axis=1)
        scalars["n_top1_wrong"] = (best != np.argmax(ranking[:, 1], axis=1)).sum()
        scalars["n_top1_wrong_population"] = (best != np.argmax(truth_rank)).sum()
        scalars["n_rank_discordant"] = discordant_pairs(ranking[:, 0], ranking[:, 1]).sum()
        scalars["n_rank_discordant_population"] = discordant_pairs(ranking[:, 0], truth_rank).sum()
    return {name: np.int64(value) for name, value in scalars.items()}


def _agreement_sums(cell, outputs):
    """Float sums per cell, of quantised per-trial values (exact over blocks of trials)."""
    values = outputs.values
    estimate, truth, error = _agreement_error(outputs)
    overlap = quantize(values[:, engine_layout.PAIRWISE_OVERLAP], OVERLAP_QUANTUM)
    sums = {
        "sum_pairwise_overlap": overlap.sum() if cell.model.n_humans > 2 else np.nan,
        "sum_agreement_estimate": estimate.sum(),
        "sum_agreement_estimate_sq": quantize(estimate**2).sum(),
        "sum_agreement_reference": truth.sum(),
        "sum_agreement_error": error.sum(),
        "sum_agreement_error_sq": quantize(error**2).sum(),
        "sum_extra_items": np.ceil(values[:, engine_layout.EXTRA_ITEMS]).sum(),
    }
    left_out = {"agreement": "sum_agreement", "overlap": "sum_pairwise_overlap"}
    for output, prefix in left_out.items():
        if output not in cell.outputs:
            sums.update({name: np.nan for name in sums if name.startswith(prefix)})
    return {name: np.float64(value) for name, value in sums.items()}


def run_cell(cell, root_seed, trials, numba_threads=None, start=0):
    """Compute one cell's counts over trials ``range(start, trials)``.

    Parameters
    ----------
    cell : simcore.studies.synthetic.config.Cell
        The resolved cell.
    root_seed : int
        The scenario's root seed.
    trials : int
        Number of trials.
    numba_threads : int, optional
        Threads for the kernel in this process; results do not depend on it.
    start : int
        First trial (to extend a cell that already has ``start`` trials).

    Returns
    -------
    tuple
        ``(cell.index, counts)`` with counts as in :func:`count_outcomes`.
    """
    if numba_threads is not None:
        set_threads(numba_threads)
    counts = None
    for first in range(start, trials, TRIALS_PER_CALL):
        outputs = simulate_cell(cell, root_seed, first, min(trials, first + TRIALS_PER_CALL))
        block = count_outcomes(cell, outputs)
        counts = add_counts(counts, block)
    return cell.index, counts
