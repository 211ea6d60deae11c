"""The real-data study's cells: the shared matrix, thinning trials, counts and rates.

The context holds, per group, the matrix as the kernels read it and its full-matrix
reference (each judge's omega, decision, class and ranking score, and the human pool's
agreement). A cell ``(group, design, coverage)`` runs trials ``range(start, stop)``: trial
``t`` thins the matrix with a generator seeded by ``SeedSequence(root seed, spawn_key =
SHA-256 words of the cell's coordinates + (t,))``, so a cell's numbers depend only on the
root seed, its coordinates and its trials; the agreement sums are of quantised values, so
they add exactly over blocks of trials.
"""

import hashlib
import json
from typing import NamedTuple

import numpy as np
import xarray as xr

from simcore.engine import layout as engine_layout
from simcore.engine.point_rule import margins_bytes
from simcore.engine.rng import stable_key
from simcore.engine.weighted_rule import weighted_bytes
from simcore.model.rule import ACCEPT, INCONCLUSIVE, REJECT
from simcore.model.rule_form import RuleForm
from simcore.realdata.thinning import thin
from simcore.studies.protocol import CellSpec, Layout, Variable, add_counts, quantize
from simcore.studies.real import alt_test as real_alt_test
from simcore.studies.real import scale as real_scale
from simcore.studies.real.forms import decide_in_form, evaluate, group_form, group_weighting
from simcore.studies.synthetic.cell import RELIABLE_ERROR, discordant_pairs
from simcore.studies.synthetic.cube import DERIVED_ATTRS, agreement_statistics

PASS_OMEGA = 0.6
REJECT_OMEGA = 0.5
CLASSES = ("reject", "borderline", "pass")
"""Judge classes by full-matrix omega, in the order of their codes."""

TRIALS_PER_BLOCK = 64
"""Thinned masks evaluated per kernel call (memory only; results do not depend on it)."""

PRIMARY_LAYER_RULE = (
    "primary layer: for each item, the label of the first human in the data block's human "
    "order who labelled it; it is never thinned. Every other human label is thinnable: at "
    "coverage rho each human keeps round(rho a_h) of its a_h thinnable labels (bernoulli: "
    "each with probability rho; shared_panel: those on a common panel of round(rho n) "
    "items), chosen by the design. No label is invented."
)


class GroupMatrix(NamedTuple):
    """One group's matrix as the kernels read it, with its full-matrix reference."""

    name: str
    labels: np.ndarray  # int16 (n, K + J): humans (missing as 0), then judges
    human_codes: np.ndarray  # human labels with missing entries as 0
    available: np.ndarray  # bool (n, K)
    n_humans: int
    n_labels: int
    full_omega: np.ndarray
    full_accept: np.ndarray
    judge_class: np.ndarray
    full_ranking: np.ndarray
    full_agreement: float  # NaN where undefined
    n_items: int
    density: float
    form: RuleForm | None = None  # who the rule holds out (rule.form resolved on the shape)
    weighting: tuple | None = None  # a weighted coefficient's kernel weighting, else None


class RealContext(NamedTuple):
    """What every cell of a real-data run shares: the groups and the matrix's labels."""

    groups: tuple
    judges: tuple
    source: str
    humans: tuple
    labels: tuple
    fingerprint: str = ""
    scale_attrs: tuple = ()  # (key, value) pairs of simcore.studies.real.scale.scale_check


def fingerprint(groups, judges, humans, labels):
    """SHA-256 of the labels the cells read: a changed data file makes another store."""
    digest = hashlib.sha256(json.dumps([judges, humans, labels]).encode())
    for group in groups:
        digest.update(group.name.encode())
        digest.update(np.ascontiguousarray(group.labels).tobytes())
        digest.update(np.ascontiguousarray(group.available).tobytes())
    return digest.hexdigest()


def group_matrix(scenario, matrix):
    """Return one group's :class:`GroupMatrix` with its full-matrix decisions."""
    n_humans = matrix.n_humans
    human_codes = np.maximum(matrix.human_labels, 0)
    labels = np.concatenate([human_codes, matrix.judge_labels], axis=1).astype(np.int16)
    rule = scenario.rule
    group = GroupMatrix(
        name=matrix.group_names[0],
        labels=labels,
        human_codes=human_codes,
        available=matrix.available,
        n_humans=n_humans,
        n_labels=matrix.n_labels,
        full_omega=None,
        full_accept=None,
        judge_class=None,
        full_ranking=None,
        full_agreement=np.nan,
        n_items=matrix.n_items,
        density=float(matrix.density),
        form=group_form(rule, matrix),
        weighting=group_weighting(rule, matrix),
    )
    full_pass, counters, pool, ranking, tested = evaluate(rule, group, matrix.available[None])
    full_pass = full_pass[0].astype(np.int64)
    full_tested = int(tested[0])
    full_omega = full_pass / max(full_tested, 1)
    judge_class = np.where(
        full_omega >= PASS_OMEGA, 2, np.where(full_omega < REJECT_OMEGA, 0, 1)
    ).astype(np.int8)
    defined = counters[0, engine_layout.POOL_UNDEFINED] == 0
    full_decision = decide_in_form(rule, group, full_pass[None], tested[:1])[0]
    return group._replace(
        full_omega=full_omega,
        full_accept=full_decision == ACCEPT,
        judge_class=judge_class,
        full_ranking=ranking[0],
        full_agreement=float(pool[0]) if defined else np.nan,
    )


def real_context(scenario, matrix):
    """Return the :class:`RealContext` of ``matrix`` (one entry per group)."""
    names = matrix.group_names
    groups = tuple(
        group_matrix(scenario, matrix.subset(name) if len(names) > 1 else matrix) for name in names
    )
    if scenario.rule.kind == "alt_test":
        real_alt_test.check_scale(scenario.rule, matrix.labels, scenario.source)
        groups = tuple(
            group._replace(**real_alt_test.alt_test_reference(scenario.rule, group))
            for group in groups
        )
    judges, humans = tuple(matrix.judges), tuple(matrix.humans)
    labels = tuple(map(str, matrix.labels))
    scale_attrs = real_scale.scale_check(scenario, matrix, groups, group_matrix)
    return RealContext(
        groups=groups,
        judges=judges,
        source=str(matrix.source),
        humans=humans,
        labels=labels,
        fingerprint=fingerprint(groups, judges, humans, labels),
        scale_attrs=tuple(scale_attrs.items()),
    )


PER_JUDGE = {
    "n_wrong": "trials whose thinned decision differs from the full-matrix decision",
    "n_false_reject": "trials in which a pass judge is rejected",
    "n_false_accept": "trials in which a reject judge is accepted",
    "n_accept": "trials whose thinned decision accepts the judge",
    "n_inconclusive": "trials with fewer comparisons made than rule.min_comparisons",
}
PER_CELL = {
    "n_top1_wrong": ("trials whose top-ranked judge differs from the full matrix's", "count"),
    "n_rank_discordant": (
        "judge pairs ordered differently from the full matrix, summed over trials",
        "count",
    ),
    "n_agreement_defined": (
        "trials whose human-pool agreement is defined (thinned and full matrix)",
        "count",
    ),
    "n_agreement_reliable": (
        "trials whose thinned human-pool agreement is within 0.05 of the full one",
        "count",
    ),
    "n_empty_comparisons": ("leave-one-out comparisons with no pair, summed over trials", "count"),
    "n_thin_comparisons": (
        "comparisons with fewer than rule.min_pairs pairs, left out of omega, summed over trials",
        "count",
    ),
    "n_tested": ("comparisons made (the effective K), summed over trials", "count"),
    "n_comparisons": (
        "leave-one-out comparisons considered (a rater of the rule's form each), summed over "
        "trials",
        "count",
    ),
}
SUMS = {
    "sum_agreement_estimate": "sum of the thinned human-pool agreement over defined trials",
    "sum_agreement_estimate_sq": "sum of its squares",
    "sum_agreement_error": "sum of thinned minus full human-pool agreement",
    "sum_agreement_error_sq": "sum of its squares",
}


def real_layout(scenario, context):
    """Return the real-data cube's layout: ``[group,] design, coverage`` and ``judge``."""
    sweep = [
        ("design", tuple(scenario.designs), "overlap design", ""),
        ("coverage", tuple(scenario.coverages), "per-secondary coverage", "1"),
    ]
    if len(context.groups) > 1:
        names = tuple(group.name for group in context.groups)
        sweep.insert(0, ("group", names, "group of the matrix (sub-task)", ""))
    n_judges = len(context.judges)
    variables = [Variable("n_trials", "trials run", "count")]
    variables += [
        Variable(name, text, "count", True, ("judge",), (n_judges,))
        for name, text in PER_JUDGE.items()
    ]
    variables += [Variable(name, text, units) for name, (text, units) in PER_CELL.items()]
    variables += [Variable(name, text, "1", False) for name, text in SUMS.items()]
    if scenario.rule.kind == "alt_test":
        variables += real_alt_test.alt_test_variables(n_judges)
    coords = {"judge": xr.Variable("judge", list(context.judges), {"long_name": "judge"})}
    attrs = {
        "data_source": context.source,
        "data_sha256": context.fingerprint,
        "humans": ", ".join(context.humans),
        "labels": ", ".join(context.labels),
        "primary_layer": PRIMARY_LAYER_RULE,
        "judge_classes": "pass: full-matrix omega >= 0.6; reject: < 0.5; borderline: else "
        "(judge_class codes 0 reject, 1 borderline, 2 pass)",
        "rule_form": "; ".join(
            (f"{group.name}: " if len(context.groups) > 1 else "") + group.form.text()
            for group in context.groups
        ),
    }
    if scenario.rule.kind == "alt_test":
        attrs.update(real_alt_test.ATTRS)
    return Layout(sweep=tuple(sweep), variables=tuple(variables), coords=coords, attrs=attrs)


def memory_need(context):
    """Return ``(bytes, advice)`` for the largest group.

    A block of masks, the labels, the sequential designs' per-item label counts
    (``n x L``), and per numba thread the rule's pair margins
    (:func:`simcore.engine.point_rule.margins_bytes`), which grow linearly in L.
    """
    from simcore.engine.threads import thread_count

    threads = thread_count()
    need = 0
    for group in context.groups:
        n, raters = group.labels.shape
        need = max(
            need,
            TRIALS_PER_BLOCK * n * group.n_humans * 2
            + n * raters * 4
            + n * group.n_labels * 8  # the sequential designs' label counts per item
            + threads * margins_bytes(group.n_humans, raters - group.n_humans, group.n_labels)
            + (
                0
                if group.weighting is None
                else threads
                * weighted_bytes(group.n_humans, raters - group.n_humans, group.n_labels)
            ),
        )
    return need, (
        f"the matrix has {max(g.n_items for g in context.groups)} items, "
        f"{max(g.n_humans for g in context.groups)} humans and "
        f"{max(g.n_labels for g in context.groups)} labels; thin it or split it into groups"
    )


def real_cells(scenario, context):
    """Return every cell: ``(group, design, coverage)`` in the cube's order."""
    grouped = len(context.groups) > 1
    cells = []
    for g, group in enumerate(context.groups):
        for d, design in enumerate(scenario.designs):
            for c, coverage in enumerate(scenario.coverages):
                index = (g, d, c) if grouped else (d, c)
                coords = {"group": group.name, "design": design, "coverage": float(coverage)}
                cells.append(CellSpec(index=index, coords=coords, payload=g))
    return cells


def thinned_masks(group, coords, root_seed, start, stop):
    """Return the bool ``(stop - start, n, K)`` masks of trials ``range(start, stop)``."""
    key = stable_key([coords["group"], coords["design"], repr(float(coords["coverage"]))])
    masks = []
    for trial in range(start, stop):
        rng = np.random.default_rng(np.random.SeedSequence(root_seed, spawn_key=(*key, trial)))
        masks.append(
            thin(
                rng,
                coords["design"],
                coords["coverage"],
                group.human_codes,
                group.available,
                group.n_labels,
            )
        )
    return np.stack(masks)


def count_block(scenario, group, masks):
    """Decide every judge under each mask; return the block's counts and sums.

    The point rule's kernel runs always: it gives the comparisons made and the human pool's
    agreement, and, under the point rule, the decisions and the ranking. Under the
    alternative annotator test those come from the test instead
    (:func:`simcore.studies.real.alt_test.alt_test_block`).
    """
    rule = scenario.rule
    passes, counters, pool, ranking, tested = evaluate(rule, group, masks)
    counts = {
        "n_trials": np.int64(len(masks)),
        "n_empty_comparisons": counters[:, engine_layout.EMPTY].sum(),
        "n_thin_comparisons": counters[:, engine_layout.THIN].sum(),
        "n_tested": tested.astype(np.int64).sum(),
        "n_comparisons": (tested + counters[:, engine_layout.THIN]).astype(np.int64).sum(),
    }
    if rule.kind == "alt_test":
        decision, ranking, unranked, extra = real_alt_test.alt_test_block(rule, group, masks)
        counts.update(extra)
    else:
        decision = decide_in_form(rule, group, passes, tested)
        unranked = np.zeros(len(masks), dtype=bool)
    counts.update(decision_counts(group, decision, ranking, unranked))
    defined = (counters[:, engine_layout.POOL_UNDEFINED] == 0) & np.isfinite(group.full_agreement)
    counts.update(agreement_counts(group, pool[defined]))
    return {
        name: np.asarray(value, np.float64 if name.startswith("sum_") else np.int64)
        for name, value in counts.items()
    }


def decision_counts(group, decision, ranking, unranked):
    """Return the wrong, false and inconclusive decisions and the ranking errors of a block.

    ``decision`` ``(T, J)`` codes; ``ranking`` ``(T, J)`` scores; ``unranked`` ``(T,)``
    marks trials with no ranking (every judge tied), whose top-1 counts as wrong.
    """
    accept = decision == ACCEPT
    decided = decision != INCONCLUSIVE
    reference = np.nan_to_num(group.full_ranking, nan=0.0)
    top1_wrong = (np.argmax(ranking, axis=1) != np.argmax(reference)) | unranked
    return {
        "n_wrong": (decided & (accept != group.full_accept)).sum(axis=0),
        "n_false_reject": ((group.judge_class == 2) & (decision == REJECT)).sum(axis=0),
        "n_false_accept": ((group.judge_class == 0) & accept).sum(axis=0),
        "n_accept": accept.sum(axis=0),
        "n_inconclusive": (~decided).sum(axis=0),
        "n_top1_wrong": top1_wrong.sum(),
        "n_rank_discordant": discordant_pairs(ranking, reference).sum(),
    }


def agreement_counts(group, pool):
    """Return the human pool's agreement counts and sums over the trials where it is defined."""
    estimate = quantize(pool)
    error = estimate - quantize(group.full_agreement)
    return {
        "n_agreement_defined": len(pool),
        "n_agreement_reliable": (np.abs(error) <= RELIABLE_ERROR).sum(),
        "sum_agreement_estimate": estimate.sum(),
        "sum_agreement_estimate_sq": quantize(estimate**2).sum(),
        "sum_agreement_error": error.sum(),
        "sum_agreement_error_sq": quantize(error**2).sum(),
    }


def run_real_cell(scenario, context, cell, start, stop):
    """Return one cell's counts and sums over trials ``range(start, stop)``."""
    group = context.groups[cell.payload]
    total = None
    for first in range(start, stop, TRIALS_PER_BLOCK):
        last = min(stop, first + TRIALS_PER_BLOCK)
        masks = thinned_masks(group, cell.coords, scenario.seed, first, last)
        total = add_counts(total, count_block(scenario, group, masks))
    return total


def with_reference(cube, context):
    """Add each group's full-matrix reference (omega, decision, class, score, agreement)."""
    grouped = "group" in cube.dims

    def per_group(name, dims):
        values = np.stack([getattr(group, name) for group in context.groups])
        return (("group", *dims), values) if grouped else (dims, values[0])

    cube = cube.assign(
        full_omega=per_group("full_omega", ("judge",)),
        full_accept=per_group("full_accept", ("judge",)),
        judge_class=per_group("judge_class", ("judge",)),
        full_ranking_score=per_group("full_ranking", ("judge",)),
        full_agreement=per_group("full_agreement", ()),
        n_items=per_group("n_items", ()),
        density=per_group("density", ()),
        n_humans=per_group("n_humans", ()),
    )
    return cube


def _rate(cube, name, numerator, where, long_name, note):
    """Add ``name = numerator / n_trials`` (NaN outside ``where``) and its binomial SE."""
    trials = cube["n_trials"].astype(float)
    rate = (cube[numerator] / trials.where(trials > 0)).where(where)
    cube[name] = rate.assign_attrs(long_name=long_name, units="1", description=note)
    cube[f"{name}_se"] = np.sqrt(rate * (1 - rate) / trials.where(trials > 0)).assign_attrs(
        long_name=f"binomial standard error of the {long_name}", units="1"
    )


def derive_real(cube):
    """Add the rates and statistics of a real-data cube (NaN where they do not apply).

    ``false_rejection_rate`` is defined for pass judges only, ``false_approval_rate`` for
    reject judges only; ``wrong_decision_rate`` for every judge. ``top1_error`` is the share
    of trials whose best judge differs from the full matrix's; ``rank_error`` the share of
    judge pairs ordered differently. Agreement statistics as in the synthetic cubes.
    """
    cube = cube.copy()
    is_pass = cube["judge_class"] == 2
    is_reject = cube["judge_class"] == 0
    _rate(
        cube,
        "false_rejection_rate",
        "n_false_reject",
        is_pass,
        "false-rejection rate of a pass judge",
        "n_false_reject / n_trials for judges with full-matrix omega >= 0.6, else NaN",
    )
    _rate(
        cube,
        "false_approval_rate",
        "n_false_accept",
        is_reject,
        "false-approval rate of a reject judge",
        "n_false_accept / n_trials for judges with full-matrix omega < 0.5, else NaN",
    )
    _rate(
        cube,
        "wrong_decision_rate",
        "n_wrong",
        True,
        "wrong-decision rate",
        "share of trials whose thinned decision differs from the full-matrix decision",
    )
    _rate(
        cube,
        "top1_error",
        "n_top1_wrong",
        True,
        "share of trials whose top-ranked judge differs from the full matrix's",
        "judges ranked by their mean score over the leave-one-out comparisons",
    )
    n_judges = cube.sizes["judge"]
    pairs = cube["n_trials"] * (n_judges * (n_judges - 1) // 2)
    cube["rank_error"] = (cube["n_rank_discordant"] / pairs.where(pairs > 0)).assign_attrs(
        long_name="share of judge pairs ordered differently from the full matrix", units="1"
    )
    for name, value in agreement_statistics(cube).items():
        long_name, units = DERIVED_ATTRS[name]
        cube[name] = value.assign_attrs(
            long_name=long_name.replace("sparse", "thinned"), units=units
        )
    _comparison_shares(cube)
    cube["agreement_reliability"] = cube["n_agreement_reliable"] / cube["n_trials"]
    cube["agreement_reliability"].attrs.update(
        long_name="share of trials within 0.05 of the full human-pool agreement", units="1"
    )
    return cube


def _comparison_shares(cube):
    """Add the shares of empty and thin comparisons, the effective K and inconclusive rate."""
    trials = cube["n_trials"].astype(float).where(cube["n_trials"] > 0)
    comparisons = cube["n_comparisons"].astype(float).where(cube["n_comparisons"] > 0)
    shares = {
        "empty_comparison_share": (
            "n_empty_comparisons",
            "share of leave-one-out comparisons with no pair",
        ),
        "thin_comparison_share": (
            "n_thin_comparisons",
            "share of comparisons left out of omega (fewer than rule.min_pairs pairs)",
        ),
    }
    for name, (count, long_name) in shares.items():
        cube[name] = (cube[count] / comparisons).assign_attrs(long_name=long_name, units="1")
    cube["effective_k"] = (cube["n_tested"] / trials).assign_attrs(
        long_name="mean number of comparisons made (the effective K)", units="count"
    )
    cube["inconclusive_rate"] = (cube["n_inconclusive"] / trials).assign_attrs(
        long_name="share of trials with fewer comparisons made than rule.min_comparisons "
        "(decision inconclusive)",
        units="1",
    )
