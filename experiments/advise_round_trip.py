"""The SummEval round trip's matrix operations, and its check of advise's choice of design.

SummEval's experts labelled every summary, so any thinning of it can be undone: the
withheld labels of any proposal can be revealed, and the point rule's verdict on the
revealed matrix compared with its verdict on the dense one (the truth). That makes the
budget comparison (:func:`simcore.advisor.advice.budget_comparison`) checkable. It predicts,
for every design of :data:`simcore.model.designs.DESIGNS`, the risk that the verdict after
spending the budget by that design still differs from the dense verdict, and advise
recommends the design with the lowest predicted risk
(:func:`simcore.advisor.advice.next_round_size`). Here every design's proposal is drawn, as
advise draws its own, and revealed (:func:`replicate`); over ``R`` replicates (a new
thinning and new proposals each) the realised share of wrong verdicts per design
estimates the realised risk beside the predicted one (:func:`design_table`).
"""

import dataclasses
import math

import numpy as np

from simcore.advisor.advice import advise
from simcore.advisor.anchored import judge_anchor
from simcore.advisor.next_round import extend_mask
from simcore.advisor.settings import AuditRule, audit_settings
from simcore.advisor.verdict import verdicts
from simcore.realdata.matrix import DataError
from simcore.realdata.readers import read_annotations

PROPOSAL_STREAM = 20_261_130
"""The proposal's seed word: advise draws it from ``SeedSequence([seed, PROPOSAL_STREAM])``
(:func:`simcore.advisor.advice.plan_next_round`)."""

NOISE_SES = 2.0
"""The recommendation is right when its realised risk is within this many combined SEs of
the best design's."""


# --------------------------------------------------------------------------- the matrices


def load_dimension(data, dimension):
    """Return the dense SummEval matrix of one ``dimension``; DataError when it is absent."""
    full = read_annotations(data, humans=["e0", "e1", "e2"], ordinal=True, group_separator="__")
    if dimension not in full.group_names:
        raise DataError([f"{data}: dimension {dimension!r} not found ({full.group_names})"])
    return full.subset(dimension)


def thin_matrix(matrix, coverage, seed):
    """Return ``matrix`` with each secondary keeping a uniform ``coverage`` share of its labels."""
    labels = np.array(matrix.human_labels)
    rng = np.random.default_rng(np.random.SeedSequence([seed, 1]))
    keep = rng.random(labels.shape) < coverage
    keep[:, 0] = True
    return dataclasses.replace(matrix, human_labels=np.where(keep, labels, -1).astype(np.int16))


def reveal(matrix, dense, proposal):
    """Return ``matrix`` with the proposed labels filled in from the ``dense`` matrix."""
    labels = np.array(matrix.human_labels)
    source = np.asarray(dense.human_labels)
    labels[proposal] = source[proposal]
    return dataclasses.replace(matrix, human_labels=labels.astype(np.int16))


def point_rows(matrix, judges, epsilon, tau=0.5):
    """Return the verdict rows of ``judges`` under the point rule (:func:`verdicts`)."""
    columns = [matrix.judges.index(name) for name in judges]
    return verdicts(
        np.asarray(matrix.human_labels, dtype=np.int64),
        np.asarray(matrix.judge_labels, dtype=np.int64)[:, columns],
        judges,
        AuditRule(kind="point", epsilon=epsilon, tau=tau),
    )


def point_decisions(matrix, judges, epsilon, tau=0.5):
    """Return the point rule's decision per judge on ``matrix`` (on the dense one: the truth)."""
    return decisions_of(point_rows(matrix, judges, epsilon, tau))


def decisions_of(rows):
    """Return ``{judge: decision}`` of verdict rows."""
    return {row["judge"]: row["decision"] for row in rows}


def comparison_margins(rows, epsilon):
    """Return ``d_k + eps`` of each (judge, held-out human) comparison of verdict rows, ``(J, K)``.

    ``d_k`` is the judge's minus human ``k``'s observed agreement with the pool
    (:func:`simcore.advisor.anchored.judge_anchor`); NaN for an empty comparison.
    """
    return np.array([judge_anchor(row) for row in rows]) + epsilon


# --------------------------------------------------------------------------- one replicate


def design_proposals(advice, matrix, seed):
    """Return ``{design: proposal}`` for every row of ``advice``'s budget comparison.

    Each proposal is drawn as advise draws its own (:func:`simcore.advisor.advice.
    plan_next_round`): :func:`simcore.advisor.next_round.extend_mask` on a generator from
    ``SeedSequence([seed, PROPOSAL_STREAM])``, at the row's design and items per secondary;
    the recommended design's is therefore ``advice.proposal`` itself.
    """
    labels = np.asarray(matrix.human_labels, dtype=np.int64)
    available = labels >= 0
    proposals = {}
    for row in advice.budget_rows:
        rng = np.random.default_rng(np.random.SeedSequence([seed, PROPOSAL_STREAM]))
        proposals[row["design"]] = extend_mask(
            rng, row["design"], row["extra"], labels, available, matrix.n_labels
        )
    return proposals


def replicate(dense, judges, seed, coverage, budget, epsilon=0.05, advice=None, **options):
    """Thin ``dense``, advise with ``budget``, reveal every design's proposal; return the outcome.

    ``seed`` seeds the thinning (:func:`thin_matrix`), advise and its proposals; ``advice``
    (optional) is advise's answer on that thinning when it is already known; ``options`` go
    to :func:`simcore.advisor.advice.advise` (``target``, ``trials``). Per design of the
    budget comparison the outcome holds the predicted worst-judge ``risk`` and
    ``mean_risk``, and ``wrong``: per judge, whether the point rule's verdict on the matrix
    with that design's proposal revealed differs from its verdict on the dense matrix.
    """
    matrix = thin_matrix(dense, coverage, seed)
    if advice is None:
        rule, plan = audit_settings(budget=budget, seed=seed, epsilon=epsilon, **options)
        advice = advise(matrix, judges=list(judges), rule=rule, plan=plan)
    dense_rows = point_rows(dense, judges, epsilon)
    truth, dense_margins = decisions_of(dense_rows), comparison_margins(dense_rows, epsilon)
    proposals = design_proposals(advice, matrix, seed)
    designs = {}
    for row in advice.budget_rows:
        revealed = point_rows(reveal(matrix, dense, proposals[row["design"]]), judges, epsilon)
        decisions = decisions_of(revealed)
        designs[row["design"]] = {
            "extra": row["extra"],
            "risk": row["risk"],
            "mean_risk": row["mean_risk"],
            "wrong": {name: decisions[name] != truth[name] for name in judges},
            "d_error": comparison_margins(revealed, epsilon) - dense_margins,
        }
    return {
        "seed": seed,
        "recommended": advice.design,
        "designs": designs,
        "dense_margins": dense_margins,
    }


# --------------------------------------------------------------------------- over replicates


def realised_row(name, predicted, mean_predicted, wrong, judges, times=None):
    """Return one row of :func:`design_table` from ``R`` replicates' outcomes.

    ``predicted`` and ``mean_predicted`` are ``(R,)`` predicted worst-judge and mean risks;
    ``wrong`` is bool ``(R, J)``. The realised worst judge is the one with the largest
    share ``p_j`` of wrong verdicts, with binomial SE ``sqrt(p_j (1 - p_j) / R)``; the
    realised mean is the share over every judge and replicate, its SE the SD over
    replicates of the per-replicate mean over judges over ``sqrt(R)`` (the judges' verdicts
    are correlated, so they are not ``R J`` independent trials). The predicted risks are
    averaged over the replicates, with the SE of that average. ``series`` holds the two
    realised quantities per replicate, for paired differences (:func:`design_table`).
    """
    count = len(wrong)
    shares = wrong.mean(axis=0)
    worst = int(np.argmax(shares))
    per_replicate = wrong.mean(axis=1)
    return {
        "design": name,
        "recommended": times,
        "predicted": float(np.mean(predicted)),
        "se_predicted": _se_of_mean(predicted),
        "mean_predicted": float(np.mean(mean_predicted)),
        "worst_judge": judges[worst],
        "realised": float(shares[worst]),
        "se_realised": math.sqrt(shares[worst] * (1 - shares[worst]) / count),
        "mean_realised": float(wrong.mean()),
        "se_mean_realised": _se_of_mean(per_replicate),
        "series": {
            "realised": wrong[:, worst].astype(float),
            "mean_realised": per_replicate,
        },
    }


def _se_of_mean(values):
    values = np.asarray(values, dtype=float)
    return float(np.std(values, ddof=1) / math.sqrt(len(values))) if len(values) > 1 else 0.0


def design_table(replicates, judges):
    """Return the per-design rows (:func:`realised_row`), the recommendation's row and verdict.

    The ``recommended`` row takes, in each replicate, the design advise recommended there.
    The verdict says, for the worst judge's and the mean realised risk, the best design, the
    difference between the recommendation and it, their combined SE ``sqrt(se_rec^2 +
    se_best^2)``, whether the difference is within :data:`NOISE_SES` of them (``right``),
    and the paired SE: the SE over replicates of the per-replicate difference (the designs
    share each replicate's thinning, so the paired SE is the sharper test; ``right_paired``).
    Every row also gets ``gap``, its realised mean minus the best design's, with the paired
    SE ``se_gap``.
    """
    judges = list(judges)
    names = list(replicates[0]["designs"])
    rows = []
    for name in names:
        outcomes = [rep["designs"][name] for rep in replicates]
        times = sum(rep["recommended"] == name for rep in replicates)
        rows.append(_row_of(name, outcomes, judges, times))
    chosen = [rep["designs"][rep["recommended"]] for rep in replicates]
    recommended = _row_of("recommended", chosen, judges)
    verdict = {
        key: _within_noise(recommended, rows, key, se)
        for key, se in (("realised", "se_realised"), ("mean_realised", "se_mean_realised"))
    }
    best = min(rows, key=lambda row: row["mean_realised"])["series"]["mean_realised"]
    for row in [*rows, recommended]:
        row["gap"] = float(np.mean(row["series"]["mean_realised"] - best))
        row["se_gap"] = _se_of_mean(row["series"]["mean_realised"] - best)
    margins = np.abs(replicates[0]["dense_margins"])
    return {
        "rows": rows,
        "recommended": recommended,
        "verdict": verdict,
        "median_margin": float(np.nanmedian(margins)),
    }


def _row_of(name, outcomes, judges, times=None):
    wrong = np.array([[outcome["wrong"][judge] for judge in judges] for outcome in outcomes])
    predicted = [outcome["risk"] for outcome in outcomes]
    mean_predicted = [outcome["mean_risk"] for outcome in outcomes]
    row = realised_row(name, predicted, mean_predicted, wrong, judges, times)
    row["d_rms"] = float(np.sqrt(np.nanmean([outcome["d_error"] ** 2 for outcome in outcomes])))
    return row


def _within_noise(recommended, rows, key, se_key):
    best = min(rows, key=lambda row: row[key])
    combined = math.sqrt(recommended[se_key] ** 2 + best[se_key] ** 2)
    difference = recommended[key] - best[key]
    paired = _se_of_mean(recommended["series"][key] - best["series"][key])
    return {
        "best": best["design"],
        "difference": difference,
        "combined_se": combined,
        "right": difference <= NOISE_SES * combined,
        "paired_se": paired,
        "right_paired": difference <= NOISE_SES * paired,
    }


def _noise_words(right, kind, se):
    where = "within" if right else "beyond"
    return f"{where} {NOISE_SES:g} {kind} SEs ({100 * se:.1f})"


def design_check(dense, judges, replicates, seed, coverage, budget, first=None, **options):
    """Run ``replicates`` replicates at seeds ``seed, seed + 1, ..``; return :func:`design_table`.

    ``first`` (optional) is advise's answer on replicate 0's thinning, reused. Also returns
    the replicates' outcomes under ``outcomes``.
    """
    outcomes = []
    for number in range(replicates):
        advice = first if number == 0 else None
        outcomes.append(
            replicate(dense, judges, seed + number, coverage, budget, advice=advice, **options)
        )
    table = design_table(outcomes, judges)
    table["outcomes"] = outcomes
    return table


def design_table_markdown(table, budget, coverage, dimension=None):
    """Return the per-design table of :func:`design_table` as a README section."""
    count = len(table["outcomes"])
    where = f" ({dimension})" if dimension else ""
    lines = [
        f"## Every design, revealed: predicted and realised risk{where}",
        "",
        f"{count} replicates (seeds {table['outcomes'][0]['seed']} ..): each thins the "
        f"dense matrix anew ({100 * coverage:g}% per secondary), runs advise with a budget "
        f"of {budget}, and draws every design's proposal as advise draws its own; the "
        "withheld labels are revealed and the point rule's verdict compared with the dense "
        "one. Predicted = the budget comparison's risk (worst judge; mean over judges), "
        "averaged over replicates ± its SE. Realised = share of replicates whose verdict "
        "is wrong: for the judge wrong most often (binomial SE) and over all judges (SE "
        "over replicates); gap = realised mean minus the best design's, ± the paired SE. "
        "`recommended` = in each replicate, the design advise chose. d_k error = RMS over "
        "replicates, judges and held-out humans of the revealed matrix's d_k minus the "
        "dense one's, in points: how well the design measures what the verdict reads. "
        f"Median |dense d_k + eps| = {100 * table['median_margin']:.1f} points: the "
        "closer the dense comparisons sit to the bar, the more a verdict is a coin toss "
        "whatever the design.",
        "",
        "| design | chosen | predicted worst | predicted mean | realised worst (judge) "
        "| realised mean | gap | d_k error |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in [*table["rows"], table["recommended"]]:
        chosen = "" if row["recommended"] is None else f"{row['recommended']}/{count}"
        lines.append(
            f"| {row['design']} | {chosen} "
            f"| {100 * row['predicted']:.1f}% ± {100 * row['se_predicted']:.1f} "
            f"| {100 * row['mean_predicted']:.1f}% "
            f"| {100 * row['realised']:.1f}% ± {100 * row['se_realised']:.1f} "
            f"({row['worst_judge']}) "
            f"| {100 * row['mean_realised']:.1f}% ± {100 * row['se_mean_realised']:.1f} "
            f"| {100 * row['gap']:+.1f} ± {100 * row['se_gap']:.1f} "
            f"| {100 * row['d_rms']:.1f} |"
        )
    lines.append("")
    for key, label in (("realised", "worst judge"), ("mean_realised", "mean over judges")):
        verdict = table["verdict"][key]
        lines.append(
            f"- {label}: best realised `{verdict['best']}`; the recommendation is "
            f"{100 * verdict['difference']:+.1f} points from it: "
            + _noise_words(verdict["right"], "combined", verdict["combined_se"])
            + "; "
            + _noise_words(verdict["right_paired"], "paired", verdict["paired_se"])
            + "."
        )
    lines.append("")
    return "\n".join(lines)
