"""One cell of a sweep: derive its seeds, run the kernel, reduce trials to counts.

Counts (never rates) leave this module, so cells can be merged and extended.
"""

import numpy as np

from simcore import kernels
from simcore.agreement import coefficient_code
from simcore.designs import design_code, expected_coverage
from simcore.model import prevalence_vector, rater_accuracies
from simcore.rng import trial_keys
from simcore.rule import ACCEPT, INCONCLUSIVE, REJECT, decide, population_passes

COUNT_NAMES = (
    "n_trials",
    "n_ref_accept",
    "n_ref_reject",
    "n_wrong",
    "n_false_reject",
    "n_false_accept",
    "n_inconclusive",
    "n_empty_comparisons",
)
"""Scalar integer counts per cell; ``omega_hist`` comes beside them."""


def cell_sequence(root_seed, cell):
    """Return the cell's :class:`numpy.random.SeedSequence` (root seed + coordinate hash)."""
    return np.random.SeedSequence(root_seed, spawn_key=cell.seed_key())


def kernel_arguments(cell):
    """Return the kernel's model and design arguments for ``cell`` as a tuple.

    ``(n_items, n_humans, accuracies, prevalence_cdf, design, rho, m)``.
    """
    model = cell.model
    accuracies = rater_accuracies(model.p_human, model.p_judge, model.n_humans)
    cdf = np.cumsum(prevalence_vector(model.prevalence, model.n_labels))
    cdf[-1] = 1.0
    rho = cell.design.rho if cell.design.rho is not None else 0.0
    m = cell.m if cell.design.kind == "exact_m" else 0
    return (
        model.n_items,
        model.n_humans,
        accuracies,
        cdf,
        design_code(cell.design.kind),
        float(rho),
        int(m),
    )


def population_decision(cell):
    """Return the ``population`` reference decision of the cell's judge (SPEC §6)."""
    n_items, n_humans, accuracies, cdf, _, rho, _ = kernel_arguments(cell)
    coverage = expected_coverage(cell.design.kind, n_items, n_humans, rho=rho, m=cell.m)
    n_pass = population_passes(accuracies, n_humans, len(cdf), cell.rule.epsilon, coverage)
    return decide(n_pass, n_humans, cell.rule.tau)[0]


def simulate_cell(cell, root_seed, start, stop):
    """Run trials ``start .. stop - 1`` of ``cell``; return per-trial kernel outputs."""
    keys = trial_keys(cell_sequence(root_seed, cell), start, stop)
    return kernels.simulate(
        keys, *kernel_arguments(cell), cell.rule.epsilon, coefficient_code(cell.rule.coefficient)
    )


def count_outcomes(cell, sparse_pass, dense_pass, sparse_empty):
    """Reduce per-trial passes of the cell's judge to the cell's counts.

    The sparse decision uses ``tau`` and the inconclusive band; the reference (dense or
    population) is accept/reject by ``tau`` alone. A false rejection is a reference
    accept decided reject; a false approval a reference reject decided accept; inconclusive
    sparse decisions are neither and are counted apart.

    Returns
    -------
    dict
        :data:`COUNT_NAMES` as int64 scalars and ``omega_hist`` (comparisons passed,
        0..K) as an int64 array.
    """
    rule = cell.rule
    n_humans = cell.model.n_humans
    sparse = decide(sparse_pass[:, 0], n_humans, rule.tau, rule.inconclusive)
    if cell.reference == "dense":
        reference = decide(dense_pass[:, 0], n_humans, rule.tau)
    else:
        reference = np.full(len(sparse), population_decision(cell), dtype=np.int8)
    ref_accept = reference == ACCEPT
    ref_reject = reference == REJECT
    false_reject = int((ref_accept & (sparse == REJECT)).sum())
    false_accept = int((ref_reject & (sparse == ACCEPT)).sum())
    counts = {
        "n_trials": len(sparse),
        "n_ref_accept": int(ref_accept.sum()),
        "n_ref_reject": int(ref_reject.sum()),
        "n_wrong": false_reject + false_accept,
        "n_false_reject": false_reject,
        "n_false_accept": false_accept,
        "n_inconclusive": int((sparse == INCONCLUSIVE).sum()),
        "n_empty_comparisons": int(sparse_empty.sum(dtype=np.int64)),
    }
    counts = {name: np.int64(value) for name, value in counts.items()}
    counts["omega_hist"] = np.bincount(sparse_pass[:, 0], minlength=n_humans + 1).astype(np.int64)
    return counts


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
