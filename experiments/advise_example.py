"""The documented ``simcore advise`` round trip on SummEval (``make advise-example``).

SummEval's experts labelled every summary, so the dense verdict is known. The example:

1. thins one dimension to ``coverage`` per secondary (the primary keeps every label; each
   secondary keeps a uniform ``coverage`` share of its labels; seeded);
2. runs :func:`simcore.advisor.advice.advise` on the thinned matrix with a budget, which proposes
   the next round and predicts each judge's risk after it;
3. "labels" the proposed items by revealing the withheld expert labels;
4. runs advise again on the new matrix, whose risk now is the realised risk after the
   round, and compares it with the prediction;
5. checks the budget comparison's choice of design: over ``replicates`` thinnings, every
   design's proposal is revealed and the realised share of wrong verdicts (against the
   dense matrix) set beside the predicted risk (:mod:`experiments.advise_round_trip`).

Everything is written under the output folder: the matrices as CSV (``round0.csv``,
``round1.csv``), each round's report, and ``README.md`` with the comparison and the
per-design table. Data is read in
place from ``../shared/data``; nothing is copied into the repository.
"""

import argparse
import csv
import sys
from pathlib import Path

import numpy as np

from experiments.advise_round_trip import (
    design_check,
    design_table_markdown,
    load_dimension,
    point_decisions,
    reveal,
    thin_matrix,
)
from simcore.advisor.advice import advise
from simcore.advisor.anchored import judge_anchor
from simcore.advisor.report.files import write_outputs
from simcore.advisor.risk.posterior import monte_carlo_se, posterior_risk
from simcore.advisor.settings import AuditRule, Draws, Proposal, audit_settings
from simcore.realdata.matrix import DataError

DEFAULT_JUDGES = ("gpt-4o", "llama-31", "gpt-4o-mini")

DEFAULT_REPLICATES = 30

DIMENSIONS = ("coherence", "consistency", "fluency", "relevance")
"""SummEval's dimensions; the design check runs on each (``--design-dimensions``)."""
"""Thinnings of the design check: about 10 s each (one advise with a budget, 300 trials)."""


def write_long_csv(matrix, path):
    """Write ``matrix`` as the long CSV ``item,rater,label`` that ``simcore advise`` reads."""
    with Path(path).open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["item", "rater", "label"])
        for column, human in enumerate(matrix.humans):
            for row in np.flatnonzero(np.asarray(matrix.human_labels)[:, column] >= 0):
                code = int(matrix.human_labels[row, column])
                writer.writerow([matrix.items[row], human, matrix.labels[code]])
        for column, judge in enumerate(matrix.judges):
            for row in range(matrix.n_items):
                code = int(matrix.judge_labels[row, column])
                writer.writerow([matrix.items[row], judge, matrix.labels[code]])


def round_trip(
    data,
    out,
    dimension="coherence",
    judges=DEFAULT_JUDGES,
    coverage=0.05,
    budget=400,
    trials=300,
    seed=2026,
    epsilon=0.05,
    target=0.05,
    replicates=DEFAULT_REPLICATES,
    design_dimensions=DIMENSIONS,
):
    """Run the round trip; return per-judge rows, the two advices and the design check.

    Each row: ``risk_before`` (advise on the thinned matrix), ``predicted`` (the risk under
    round 0's fitted model after the proposed round, simulated at the proposal's design and
    size), ``realised`` (advise's risk now on the matrix after the round, refitted), each
    with its Monte Carlo SE, ``z`` = (realised - predicted) / combined Monte Carlo SE, and
    the sparse and dense decisions. ``designs`` is the check of the budget comparison over
    ``replicates`` thinnings (:func:`experiments.advise_round_trip.design_check`;
    replicate 0 is this round trip's, at ``seed``): every design's proposal revealed;
    ``other_designs`` the same check on each other dimension of ``design_dimensions``.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    dense = load_dimension(data, dimension)
    judges = list(judges)
    options = {
        "judges": judges,
        "epsilon": epsilon,
        "target": target,
        "trials": trials,
        "seed": seed,
    }
    round0 = thin_matrix(dense, coverage, seed)
    before = advise_round(round0, out, "round0", budget=budget, **options)
    predicted = predicted_risks(before, round0, judges, trials, seed, epsilon)
    round1 = reveal(round0, dense, before.proposal)
    after = advise_round(round1, out, "round1", budget=None, **options)
    truth = point_decisions(dense, judges, epsilon)
    rows = [
        round_trip_row(row0, row1, before, after, predicted, truth)
        for row0, row1 in zip(before.verdicts, after.verdicts, strict=True)
    ]
    checks = {"epsilon": epsilon, "target": target, "trials": trials}
    designs = design_check(
        dense, judges, replicates, seed, coverage, budget, first=before, **checks
    )
    text = _readme(rows, before, after, data, dimension, coverage, budget, seed)
    text += "\n" + design_table_markdown(designs, budget, coverage, dimension)
    other_designs = {}
    for other in design_dimensions:
        if other == dimension:
            continue
        other_designs[other] = design_check(
            load_dimension(data, other), judges, replicates, seed, coverage, budget, **checks
        )
        text += "\n" + design_table_markdown(other_designs[other], budget, coverage, other)
    (out / "README.md").write_text(text, encoding="utf-8")
    return {
        "rows": rows,
        "before": before,
        "after": after,
        "designs": designs,
        "other_designs": other_designs,
    }


def advise_round(matrix, out, name, judges=None, **options):
    """Write ``matrix`` as ``<name>.csv``, advise on it, write the advice under ``<name>/``."""
    write_long_csv(matrix, out / f"{name}.csv")
    rule, plan = audit_settings(**options)
    advice = advise(matrix, judges, rule, plan)
    write_outputs(advice, out / name)
    return advice


def predicted_risks(before, matrix, judges, trials, seed, epsilon):
    """Return per judge the risk predicted after the proposed round, under round 0's model.

    Each value is ``(risk, Monte Carlo SE)``: ``matrix`` (round 0) plus a proposal at the
    design and size ``before`` chose, simulated under the bootstrap refits of each judge's
    fitted model (:func:`simcore.advisor.risk.posterior.posterior_risk`).
    """
    human_labels = np.asarray(matrix.human_labels, dtype=np.int64)
    available = human_labels >= 0
    rule = AuditRule(epsilon=epsilon)
    proposal = Proposal(before.design, before.extra, human_labels)
    predicted = {}
    anchors = {row["judge"]: judge_anchor(row) for row in before.verdicts}
    for name in judges:
        model = before.models[name]
        draws = Draws(trials=trials, seed=seed + 1)
        wrong, count = posterior_risk(
            model.refits, available, 0, rule, draws, proposal, anchors[name]
        )
        predicted[name] = (wrong / count, monte_carlo_se(wrong, count))
    return predicted


def round_trip_row(row0, row1, before, after, predicted, truth):
    """Return one judge's row of :func:`round_trip` from its verdict rows before and after."""
    name = row0["judge"]
    risk0, se0 = before.risk_now[name]
    risk1, se1 = after.risk_now[name]
    pred, pred_se = predicted[name]
    return {
        "judge": name,
        "risk_before": risk0,
        "se_before": se0,
        "predicted": pred,
        "se_predicted": pred_se,
        "realised": risk1,
        "se_realised": se1,
        "decision_before": row0["decision"],
        "decision_after": row1["decision"],
        "dense_decision": truth[name],
    }


def _readme(rows, before, after, data, dimension, coverage, budget, seed):
    lines = [
        "# simcore advise round trip on SummEval",
        "",
        f"Data `{data}`, dimension `{dimension}` ({len(before.items)} summaries, experts e0 "
        f"(primary), e1, e2; scores 1-5). Round 0: each secondary keeps a uniform "
        f"{100 * coverage:g}% of its labels (seed {seed}). advise with a budget of {budget} "
        f"labels chose `{before.design}`, {before.extra} items per secondary "
        f"(`round0/next_round.csv`); the withheld expert labels of those items were revealed "
        "and advise ran again (`round1/`).",
        "",
        "Risk = probability that the sparse verdict differs from the dense one, simulated "
        "under bootstrap refits of the fitted model (the fit's uncertainty inside the risk) at "
        "the matrix's overlap structure, ± Monte Carlo SE. Predicted = under round 0's fit, "
        "after the proposed round; re-estimated = advise on the matrix after the round "
        "(refitted). The two are estimates under different fits, so their gap includes the "
        "fits' difference, which no Monte Carlo SE covers; whether the verdicts are right "
        "is the dense decision's to say.",
        "",
        "| judge | risk before | predicted after | re-estimated after | decision before "
        "| after | dense (truth) |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row['judge']} | {100 * row['risk_before']:.1f}% ± {100 * row['se_before']:.1f} "
            f"| {100 * row['predicted']:.1f}% ± {100 * row['se_predicted']:.1f} "
            f"| {100 * row['realised']:.1f}% ± {100 * row['se_realised']:.1f} "
            f"| {row['decision_before']} | {row['decision_after']} | {row['dense_decision']} |"
        )
    lines.append("")
    return "\n".join(lines)


def main(argv=None):
    """Run the round trip from the command line; return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True, help="the SummEval folder (JSON pair)")
    parser.add_argument("--out", default="results/advise_example")
    parser.add_argument("--dimension", default="coherence")
    parser.add_argument("--budget", type=int, default=400)
    parser.add_argument("--trials", type=int, default=300)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument(
        "--replicates",
        type=int,
        default=DEFAULT_REPLICATES,
        help="thinnings over which every design's proposal is revealed (seeds seed, seed + 1, ..)",
    )
    parser.add_argument(
        "--design-dimensions",
        default=",".join(DIMENSIONS),
        help="comma-separated dimensions on which every design's proposal is also revealed",
    )
    args = parser.parse_args(argv)
    try:
        result = round_trip(
            args.data,
            args.out,
            dimension=args.dimension,
            budget=args.budget,
            trials=args.trials,
            seed=args.seed,
            replicates=args.replicates,
            design_dimensions=[name for name in args.design_dimensions.split(",") if name],
        )
    except DataError as error:
        print(f"simcore advise example: {error}", file=sys.stderr)
        return 2
    print((Path(args.out) / "README.md").read_text())
    return 0 if result["rows"] else 1


if __name__ == "__main__":
    sys.exit(main())
