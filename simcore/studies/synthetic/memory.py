"""What a synthetic cell allocates: kernel scratch per numba thread and per-trial outputs.

The estimate follows the kernels' allocations (labels and masks of the corpus, the merge
and design scratch, the rule's pair margins of K x (J + 1) x L counts twice, the
confusion matrices, the counts engine's pattern histogram) and the outputs of one block
of trials; it is an estimate to refuse what cannot fit, not an accounting.
"""

from simcore.engine.point_rule import margins_bytes
from simcore.engine.threads import thread_count
from simcore.engine.weighted_rule import weighted_bytes
from simcore.model.weighted import is_weighted
from simcore.studies.synthetic.cell import TRIALS_PER_CALL
from simcore.studies.synthetic.cube import judge_count


def cell_bytes(cell, judges, threads):
    """Return the bytes one synthetic cell with ``judges`` judges allocates on ``threads``."""
    model = cell.model
    return sized_bytes(
        model.n_items, model.n_humans, model.n_labels, judges, threads, cell.engine_shape.weighted
    )


def sized_bytes(n, humans, labels, judges, threads, weighted=False):
    """Return the bytes a cell of ``n`` items, ``humans`` K and ``labels`` L allocates.

    A ``weighted`` rule keeps every comparison's ``L x L`` pair table
    (:func:`simcore.engine.weighted_rule.weighted_bytes`).
    """
    raters = humans + judges
    per_item = 4 * raters + 2 * humans + 8 * 6 + 8 * labels
    tables = margins_bytes(humans, judges, labels) + 8 * raters * labels * labels  # confusions
    if weighted:
        tables += weighted_bytes(humans, judges, labels)
    patterns = 16 * min(labels**raters, 2**20)  # the counts engine's histogram, at most
    per_thread = n * per_item + tables + patterns
    outputs = TRIALS_PER_CALL * (24 * judges + 9 * humans + 64)  # one call's outputs
    return threads * per_thread + outputs


def memory_need(scenario):
    """Return ``(bytes, advice)`` for the scenario's largest cell in this process."""
    threads = thread_count()
    judges = judge_count(scenario)  # read without building any L x L confusion matrix
    swept = dict(scenario.sweep)
    any_weighted = any(
        is_weighted(level, weights)
        for level in swept.get("level", [scenario.rule.level])
        for weights in swept.get("weights", [scenario.rule.weights])
    )
    need = max(
        sized_bytes(*sizes, judges, threads, any_weighted) for sizes in scenario.model_sizes()
    )
    return need, (
        "lower model.n_items or model.n_labels (the confusion matrices grow with L^2), "
        "or run fewer numba threads (NUMBA_NUM_THREADS)"
    )
