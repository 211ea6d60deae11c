"""One cell of a sweep: derive its seeds, run the kernel, reduce trials to counts and sums.

Counts and sums (never rates or means) leave this module, so cells can be merged and
extended.
"""

import numpy as np

from simcore import kernels
from simcore.agreement import coefficient_code
from simcore.designs import design_code, pair_weights
from simcore.model import pair_tables, prevalence_vector
from simcore.rng import trial_keys
from simcore.rule import ACCEPT, INCONCLUSIVE, REJECT, decide, population_passes

RELIABLE_ERROR = 0.05
"""An agreement estimate within this of the dense one counts as reliable (P Table 1)."""

COUNT_NAMES = (
    "n_trials",
    "n_ref_accept",
    "n_ref_reject",
    "n_wrong",
    "n_false_reject",
    "n_false_accept",
    "n_inconclusive",
    "n_empty_comparisons",
    "n_degenerate_scores",
    "n_shared_panel",
    "n_agreement_defined",
    "n_agreement_reliable",
)
"""Integer counts per cell."""

SUM_NAMES = (
    "sum_pairwise_overlap",
    "sum_agreement_estimate",
    "sum_agreement_estimate_sq",
    "sum_agreement_reference",
    "sum_agreement_error",
    "sum_agreement_error_sq",
)
"""Float sums per cell (over trials, or over trials with a defined agreement estimate)."""


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


def population_decision(cell):
    """Return the ``population`` reference decision of the cell's judge (SPEC §6)."""
    model = cell.model
    probabilities = pair_tables(
        cell.confusions(),
        prevalence_vector(model.prevalence, model.n_labels),
        model.cluster_spread if model.n_clusters > 1 else 0.0,
    )
    weights = pair_weights(
        cell.design.kind, model.n_items, model.n_humans, rho=cell.design.rho, m=cell.m
    )
    n_pass = population_passes(
        probabilities, model.n_humans, weights, cell.rule.epsilon, cell.rule.coefficient
    )
    return decide(n_pass, model.n_humans, cell.rule.tau)[0]


def simulate_cell(cell, root_seed, start, stop):
    """Run trials ``start .. stop - 1`` of ``cell``; return the kernel's per-trial outputs."""
    keys = trial_keys(cell_sequence(root_seed, cell), start, stop)
    return kernels.simulate(
        keys, *kernel_arguments(cell), cell.rule.epsilon, coefficient_code(cell.rule.coefficient)
    )


def count_outcomes(cell, passes, counters, values, coverage):
    """Reduce the kernel's per-trial outputs for the cell's judge to counts and sums.

    The sparse decision uses ``tau`` and the inconclusive band; the reference (dense or
    population) is accept/reject by ``tau`` alone. A false rejection is a reference
    accept decided reject; a false approval a reference reject decided accept; inconclusive
    sparse decisions are neither and are counted apart.

    The human pool's agreement (every pair of humans on items both labelled, under the
    cell's coefficient) is estimated on the sparse matrix and on the dense matrix of the same
    trial; the error sums run over trials where both are defined (a non-empty table with a
    non-zero denominator), and an estimate is reliable when defined and within
    :data:`RELIABLE_ERROR` of the dense one.

    Returns
    -------
    dict
        :data:`COUNT_NAMES` (int64), :data:`SUM_NAMES` (float64), ``omega_hist``
        (comparisons passed, 0..K) and ``sum_coverage`` (per secondary).
    """
    rule = cell.rule
    n_humans = cell.model.n_humans
    sparse_pass = passes[:, 0, 0]
    sparse = decide(sparse_pass, n_humans, rule.tau, rule.inconclusive)
    if cell.reference == "dense":
        reference = decide(passes[:, 1, 0], n_humans, rule.tau)
    else:
        reference = np.full(len(sparse), population_decision(cell), dtype=np.int8)
    ref_accept = reference == ACCEPT
    ref_reject = reference == REJECT
    false_reject = int((ref_accept & (sparse == REJECT)).sum())
    false_accept = int((ref_reject & (sparse == ACCEPT)).sum())
    defined = (counters[:, kernels.POOL_UNDEFINED] == 0) & (
        counters[:, kernels.POOL_UNDEFINED_DENSE] == 0
    )
    estimate = values[defined, kernels.POOL_SPARSE]
    truth = values[defined, kernels.POOL_DENSE]
    error = estimate - truth
    counts = {
        "n_trials": len(sparse),
        "n_ref_accept": int(ref_accept.sum()),
        "n_ref_reject": int(ref_reject.sum()),
        "n_wrong": false_reject + false_accept,
        "n_false_reject": false_reject,
        "n_false_accept": false_accept,
        "n_inconclusive": int((sparse == INCONCLUSIVE).sum()),
        "n_empty_comparisons": int(counters[:, kernels.EMPTY].sum()),
        "n_degenerate_scores": int(counters[:, kernels.DEGENERATE].sum()),
        "n_shared_panel": int(counters[:, kernels.SHARED].sum()),
        "n_agreement_defined": int(defined.sum()),
        "n_agreement_reliable": int((np.abs(error) <= RELIABLE_ERROR).sum()),
    }
    result = {name: np.int64(value) for name, value in counts.items()}
    overlap = values[:, kernels.PAIRWISE_OVERLAP]
    sums = {
        "sum_pairwise_overlap": overlap.sum() if n_humans > 2 else np.nan,
        "sum_agreement_estimate": estimate.sum(),
        "sum_agreement_estimate_sq": (estimate**2).sum(),
        "sum_agreement_reference": truth.sum(),
        "sum_agreement_error": error.sum(),
        "sum_agreement_error_sq": (error**2).sum(),
    }
    result.update({name: np.float64(value) for name, value in sums.items()})
    result["omega_hist"] = np.bincount(sparse_pass, minlength=n_humans + 1).astype(np.int64)
    result["sum_coverage"] = coverage.sum(axis=0)
    return result


def run_cell(cell, root_seed, trials, numba_threads=None):
    """Compute one cell's counts over trials ``0 .. trials - 1``.

    Parameters
    ----------
    cell : simcore.scenario.Cell
        The resolved cell.
    root_seed : int
        The scenario's root seed.
    trials : int
        Number of trials.
    numba_threads : int, optional
        Threads for the kernel in this process; results do not depend on it.

    Returns
    -------
    tuple
        ``(cell.index, counts)`` with counts as in :func:`count_outcomes`.
    """
    if numba_threads is not None:
        import numba

        numba.set_num_threads(max(1, min(numba_threads, numba.config.NUMBA_NUM_THREADS)))
    outputs = simulate_cell(cell, root_seed, 0, trials)
    return cell.index, count_outcomes(cell, *outputs)
