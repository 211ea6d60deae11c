"""Real-data cells whose thinning depends on the judge (``strat_panel_judge``).

Under a judge-stratified design each judge is decided on its own thinned matrix: trial
``t`` draws judge ``j``'s mask from ``SeedSequence(root seed, spawn_key = cell key + (t,
j))`` with the strata taken from judge ``j``'s labels
(:mod:`simcore.realdata.strat_variants`). Judge ``j``'s decision, comparisons made and
ranking score come from its own mask; the counts that belong to the human pool (its
agreement, empty and thin comparisons, comparisons made) come from the first judge's mask.
Judges are then ranked by their scores on their own panels. The point rule only.
"""

import numpy as np

from simcore.engine import layout as engine_layout
from simcore.engine.coefficients import coefficient_code
from simcore.engine.rng import stable_key
from simcore.realdata.rule_forms import evaluate_form, form_decisions
from simcore.realdata.thinning import thin
from simcore.studies.protocol import add_counts
from simcore.studies.real.cells import TRIALS_PER_BLOCK, agreement_counts, decision_counts


def judge_masks(group, coords, root_seed, start, stop, judge):
    """Return judge ``judge``'s bool ``(stop - start, n, K)`` masks of trials ``start..stop-1``."""
    key = stable_key([coords["group"], coords["design"], repr(float(coords["coverage"]))])
    strata = group.labels[:, group.n_humans + judge].astype(np.int64)
    masks = []
    for trial in range(start, stop):
        seed = np.random.SeedSequence(root_seed, spawn_key=(*key, trial, judge))
        masks.append(
            thin(
                np.random.default_rng(seed),
                coords["design"],
                coords["coverage"],
                group.human_codes,
                group.available,
                group.n_labels,
                judge_labels=strata,
            )
        )
    return np.stack(masks)


def count_judge_block(scenario, group, coords, start, stop):
    """Decide each judge on its own masks; return the block's counts and sums."""
    rule = scenario.rule
    n_humans = group.n_humans
    n_judges = group.labels.shape[1] - n_humans
    passes, ranking, tested = [], [], []
    for judge in range(n_judges):
        masks = judge_masks(group, coords, scenario.seed, start, stop, judge)
        labels = np.ascontiguousarray(group.labels[:, [*range(n_humans), n_humans + judge]])
        result = evaluate_form(
            labels,
            masks,
            n_humans,
            group.n_labels,
            rule.epsilon,
            coefficient_code(rule.coefficient),
            group.form,
            rule.min_items,
            group.weighting,
        )
        passes.append(result[0][:, 0])
        ranking.append(result[3][:, 0])
        tested.append(result[4])
        if judge == 0:
            counters, pool, first_tested = result[1], result[2], result[4]
    tested = np.stack(tested, axis=1)
    decision = form_decisions(np.stack(passes, axis=1), tested, rule.tau, group.form)
    counts = {
        "n_trials": np.int64(stop - start),
        "n_empty_comparisons": counters[:, engine_layout.EMPTY].sum(),
        "n_thin_comparisons": counters[:, engine_layout.THIN].sum(),
        "n_tested": first_tested.astype(np.int64).sum(),
        "n_comparisons": (first_tested + counters[:, engine_layout.THIN]).astype(np.int64).sum(),
    }
    unranked = np.zeros(stop - start, dtype=bool)
    counts.update(decision_counts(group, decision, np.stack(ranking, axis=1), unranked))
    defined = (counters[:, engine_layout.POOL_UNDEFINED] == 0) & np.isfinite(group.full_agreement)
    counts.update(agreement_counts(group, pool[defined]))
    return {
        name: np.asarray(value, np.float64 if name.startswith("sum_") else np.int64)
        for name, value in counts.items()
    }


def run_judge_cell(scenario, context, cell, start, stop):
    """Return one judge-stratified cell's counts and sums over trials ``range(start, stop)``."""
    group = context.groups[cell.payload]
    total = None
    for first in range(start, stop, TRIALS_PER_BLOCK):
        last = min(stop, first + TRIALS_PER_BLOCK)
        total = add_counts(total, count_judge_block(scenario, group, cell.coords, first, last))
    return total
