"""The real-data protocol under the alternative annotator test (``rule.kind: alt_test``).

With ``rule.kind: alt_test`` a ``kind: real`` run decides every judge by the test as its authors
publish it (docs/explanation/rule.md; :func:`simcore.engine.alt_test.alt_test_masks`), on the full
matrix and on every thinned one. The full-matrix reference is the test's decision on the matrix as
collected: ``full_omega`` is the winning rate (wins / humans tested), judges are classed by it as
under the point rule (pass >= 0.6, reject < 0.5), and the judges are ranked by their advantage
probability, the authors' measure for comparing judges. Per trial the test's decision and ranking
(:func:`alt_test_block`) are what :func:`simcore.studies.real.cells.count_block` counts in place of
the point rule's; the human pool's agreement statistics are the point rule kernel's, as under the
point rule. The cube gains the humans tested, the trials with no human tested, and the quantised
sums of each judge's advantage probability, from which :func:`derive_alt_test` derives its mean over
trials and standard error beside the full-matrix value.
"""

import math

import numpy as np

from simcore.engine.alt_test import alt_test_masks
from simcore.model.rule import ACCEPT, REJECT, decide_counts
from simcore.studies.config import ScenarioError
from simcore.studies.protocol import Variable, quantize
from simcore.studies.synthetic.cell import rule_parameters

PER_CELL = {
    "n_humans_tested": "humans the alternative annotator test tested, summed over trials",
    "n_untestable": "trials in which the alternative annotator test tested no human",
}
PER_JUDGE_SUMS = {
    "sum_advantage_probability": "sum of the judge's advantage probability over trials "
    "with a human tested",
    "sum_advantage_probability_sq": "sum of its squares",
}

ATTRS = {
    "decision_rule": "alternative annotator test (Calderon, Reichart, Dror, ACL 2025): "
    "full_omega is the winning rate, wins / humans tested; judges are ranked by their "
    "advantage probability",
}


def alt_test_variables(n_judges):
    """Return the :class:`~simcore.studies.protocol.Variable` s an alt_test cube adds."""
    variables = [Variable(name, text, "count") for name, text in PER_CELL.items()]
    variables += [
        Variable(name, text, "1", False, ("judge",), (n_judges,))
        for name, text in PER_JUDGE_SUMS.items()
    ]
    return variables


def check_scale(rule, labels, source):
    """Refuse ``scale: numeric`` unless the labels are equally spaced numbers.

    The kernel scores label codes; with equally spaced values every per-item RMSE is the
    codes' RMSE times the spacing, so the comparisons (and the test) are those of the
    values.
    """
    if rule.scale != "numeric":
        return
    try:
        values = np.array([float(label) for label in labels])
    except ValueError:
        values = None
    steps = np.diff(values) if values is not None and len(values) > 1 else None
    if steps is None or not np.allclose(steps, steps[0], rtol=1e-9, atol=0):
        raise ScenarioError(
            [
                f"{source}: rule.scale: numeric needs equally spaced numeric labels "
                f"(got {', '.join(map(repr, labels))})"
            ]
        )


def pair_terms(rule, group):
    """Return the weighted scale's ``(L, L)`` agreement weights on the group's labels, or None.

    The weights are the group's kernel weighting
    (:func:`simcore.studies.real.forms.group_weighting`: the labels' numbers or a declared
    order, never guessed); the other scales score the codes.
    """
    if rule.scale != "weighted":
        return None
    return group.weighting[0].reshape(group.n_labels, group.n_labels)


def run_alt_test(rule, group, masks):
    """Return ``(wins, tested, advantage, accept)`` of every judge under each mask.

    ``wins`` int64 ``(T, J)``, ``tested`` int64 ``(T,)``, ``advantage`` ``(T, J)`` (NaN
    with no human tested), ``accept`` bool ``(T, J)``: the test's decision at ``rule.tau``.
    """
    wins, tested, advantage = alt_test_masks(
        group.labels, masks, group.n_humans, rule_parameters(rule), pair_terms(rule, group)
    )
    tested = tested.astype(np.int64)
    wins = wins.astype(np.int64)
    decision = decide_counts(
        wins, tested[:, None] - wins, tested[:, None], rule.tau, rule.strict, kind="alt_test"
    )
    return wins, tested, advantage, decision == ACCEPT


def alt_test_reference(rule, group):
    """Return the fields of a group's full-matrix reference under the alt_test.

    ``full_omega`` (winning rate, NaN with no human tested), ``full_accept``,
    ``judge_class`` and ``full_ranking`` (the advantage probability), to replace the
    point rule's in :class:`simcore.studies.real.cells.GroupMatrix`.
    """
    wins, tested, advantage, accept = run_alt_test(rule, group, group.available[None])
    omega = wins[0] / tested[0] if tested[0] else np.full(wins.shape[1], np.nan)
    judge_class = np.where(omega >= 0.6, 2, np.where(omega < 0.5, 0, 1)).astype(np.int8)
    return {
        "full_omega": omega,
        "full_accept": accept[0],
        "judge_class": judge_class,
        "full_ranking": advantage[0],
    }


def alt_test_block(rule, group, masks):
    """Return ``(decision, ranking, unranked, counts)`` of the alt_test under each mask.

    ``decision`` ``(T, J)`` codes and ``ranking`` ``(T, J)`` (the advantage probability)
    for :func:`simcore.studies.real.cells.decision_counts`; ``unranked`` marks the trials
    with no human tested, which reject every judge, rank them all equal and add nothing to
    the advantage sums; ``counts`` holds the test's own counts and sums.
    """
    _, tested, advantage, accept = run_alt_test(rule, group, masks)
    defined = tested > 0
    estimate = quantize(advantage[defined])
    counts = {
        "n_humans_tested": tested.sum(),
        "n_untestable": (~defined).sum(),
        "sum_advantage_probability": estimate.sum(axis=0),
        "sum_advantage_probability_sq": quantize(estimate**2).sum(axis=0),
    }
    decision = np.where(accept, ACCEPT, REJECT).astype(np.int8)
    ranking = np.where(defined[:, None], advantage, 0.0)
    return decision, ranking, ~defined, counts


def derive_alt_test(cube):
    """Add the advantage probability's mean over trials, its SE, the effective K, the reference.

    ``advantage_probability = sum / (n_trials - n_untestable)``, ``advantage_probability_se``
    the standard error of that mean (sample SD over the trials / sqrt(trials)),
    ``effective_k = n_humans_tested / n_trials``, and ``full_advantage_probability`` (the
    full matrix's, stored as ``full_ranking_score``).
    """
    cube = cube.copy()
    count = (cube["n_trials"] - cube["n_untestable"]).astype(float)
    count = count.where(count > 0)
    mean = cube["sum_advantage_probability"] / count
    variance = (cube["sum_advantage_probability_sq"] - count * mean**2) / (count - 1).where(
        count > 1
    )
    cube["advantage_probability"] = mean.assign_attrs(
        long_name="advantage probability, mean over trials with a human tested", units="1"
    )
    cube["advantage_probability_se"] = np.sqrt(variance.clip(min=0) / count).assign_attrs(
        long_name="standard error of the mean advantage probability", units="1"
    )
    trials = cube["n_trials"].astype(float)
    cube["effective_k"] = (cube["n_humans_tested"] / trials.where(trials > 0)).assign_attrs(
        long_name="mean number of humans the alternative annotator test tested", units="count"
    )
    cube["full_advantage_probability"] = cube["full_ranking_score"].assign_attrs(
        long_name="advantage probability on the full matrix", units="1"
    )
    return cube


def _mean_text(mean, se):
    """Return ``mean ± se`` with the SE's first significant figure shown, never ``± 0.000``.

    At least three decimals; an SE of 0 (every trial gave the same value) prints
    ``mean (every trial)``; NaN prints ``-``.
    """
    if not math.isfinite(mean):
        return "-"
    if not se > 0:
        return f"{mean:.3f} (every trial)"
    places = max(3, -math.floor(math.log10(se)))
    return f"{mean:.{places}f} ± {se:.{places}f}"


def advantage_table(name, matrix):
    """Return the Markdown table of each judge's advantage probability in one matrix.

    Columns: the full matrix's winning rate and advantage probability, then per design and
    coverage the mean advantage over trials ± its SE.
    """
    columns = [
        (design, coverage)
        for design in matrix["design"].values
        for coverage in matrix["coverage"].values
    ]
    lines = [
        f"{name}: advantage probability (alt_test), full matrix and mean ± SE over trials "
        "(the SE to its first significant figure; 'every trial' where all trials agree)",
        "",
        "| judge | full winning rate | full advantage | "
        + " | ".join(f"{design} {float(coverage):g}" for design, coverage in columns)
        + " |",
        "|---|---|---|" + "---|" * len(columns),
    ]
    for judge in matrix["judge"].values:
        row = matrix.sel(judge=judge)
        cells = []
        for design, coverage in columns:
            cell = row.sel(design=design, coverage=coverage)
            cells.append(
                _mean_text(
                    float(cell["advantage_probability"]), float(cell["advantage_probability_se"])
                )
            )
        lines.append(
            f"| {judge} | {float(row['full_omega']):.3f} "
            f"| {float(row['full_advantage_probability']):.3f} | " + " | ".join(cells) + " |"
        )
    return "\n".join(lines)
