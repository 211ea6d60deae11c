"""Does agreement among judges predict calibration? SummEval's and CeBaB's eight criteria.

For every group (criterion) of the shipped data sets in :data:`STUDY_DATASETS` this study
puts the judges' agreement with one another, measured without any human label
(:func:`simcore.instrument.wellposed.agreement.judge_agreement`), beside how well the best judge
matches the humans once they have labelled:

* ``agreement_all``: mean pairwise agreement of all judges on the raw labels (Spearman for
  graded labels, kappa for categorical ones), with its bootstrap interval;
* ``agreement_cheap``: the same among :data:`CHEAP_JUDGES` only;
* ``agreement_binary``: mean pairwise kappa of all judges on their binarised FAIL flags,
  which puts SummEval and CeBaB on one scale;
* ``best_kappa``: the best judge's Cohen's kappa with the human majority truth
  (:func:`~simcore.instrument.fail_definitions.binary_truth`, ties dropped) on the FAIL
  flags; ``best_youden``: the best judge's ``J = Se + Sp - 1`` against the same truth;
* ``human_agreement``: mean pairwise agreement among the humans (raw labels), for reference.

Then Spearman's rank correlation of each agreement column with ``best_kappa`` and
``best_youden`` across all groups and within each data set, with the exact two-sided
permutation p-value (every ordering enumerated; :func:`exact_spearman`).

Run ``python -m experiments.wellposed_study --data ALTTEST_FOLDER --out PREFIX``
(writes ``PREFIX.md`` and ``PREFIX.csv``); ``make wellposed`` does it.
"""

import argparse
import math
import sys
import time
from itertools import permutations

import numpy as np
from scipy import stats

from experiments.real_groups import group_flags, load_dataset
from simcore.calibration.real.splits import full_rates
from simcore.instrument.card.measure import cohen_kappa, count_outcomes
from simcore.instrument.ceiling.human_ceilings import is_graded, pairwise_agreement
from simcore.instrument.fail_definitions import label_fail_flags
from simcore.instrument.wellposed.agreement import DEFAULT_BOOT, DEFAULT_SEED, group_agreements
from simcore.instrument.wellposed.report import write_study

STUDY_DATASETS = ("summeval", "cebab_aspects")
"""The shipped data sets of the study (each has four criteria as groups)."""

CHEAP_JUDGES = ("gpt-4o-mini", "llama-31", "mistral-v03")
"""The cheap judges whose agreement is reported beside all judges'."""

AGREEMENT_COLUMNS = ("agreement_all", "agreement_cheap", "agreement_binary")
OUTCOME_COLUMNS = ("best_kappa", "best_youden")


def exact_spearman(x, y):
    """Return Spearman's rho of ``x`` and ``y`` and its exact two-sided permutation p-value.

    ``p = #{orderings pi : |rho(x, y_pi)| >= |rho(x, y)| - 1e-12} / n!`` over all ``n!``
    orderings of ``y`` (so ``n`` should be at most about 9), ``n`` the pairs where both are
    finite. NaN, NaN for ``n < 3`` or a constant side.
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    both = np.isfinite(x) & np.isfinite(y)
    x, y = x[both], y[both]
    if x.size < 3:
        return math.nan, math.nan
    rank_x = stats.rankdata(x) - (x.size + 1) / 2.0
    rank_y = stats.rankdata(y) - (y.size + 1) / 2.0
    scale = math.sqrt(float(np.sum(rank_x**2) * np.sum(rank_y**2)))
    if scale == 0.0:
        return math.nan, math.nan
    rho = float(rank_x @ rank_y) / scale
    orderings = rank_y[np.array(list(permutations(range(y.size))))]
    null = (orderings @ rank_x) / scale
    return rho, float(np.mean(np.abs(null) >= abs(rho) - 1e-12))


def _best(values, judges):
    """Return ``(best value, its judge)`` of the finite values (NaN, '-' when none)."""
    finite = [(value, judge) for value, judge in zip(values, judges, strict=True) if value == value]
    return max(finite) if finite else (math.nan, "-")


def _judge_outcomes(flags, judges):
    """Return ``(kappas, youdens)`` of each judge's FAIL flags against the human truth.

    Both are NaN for every judge when the truth holds no FAIL or no PASS: Se or Sp is then
    undefined and kappa is 0 (or NaN) by construction, whatever the judge does.
    """
    kappas, youdens = [], []
    if flags.truth_fail.all() or not flags.truth_fail.any():
        return [math.nan] * len(judges), [math.nan] * len(judges)
    parsed = np.ones(len(flags.truth_fail), dtype=bool)
    for column in range(len(judges)):
        counts = count_outcomes(flags.truth_fail, flags.judge_fail[:, column], parsed)
        kappa = cohen_kappa(counts.caught, counts.missed, counts.flagged, counts.cleared)
        kappas.append(math.nan if kappa is None else kappa)
        youdens.append(full_rates(flags.truth_fail, flags.judge_fail[:, column])[2])
    return kappas, youdens


def dataset_rows(data_root, dataset, n_boot=DEFAULT_BOOT, seed=DEFAULT_SEED, cheap=CHEAP_JUDGES):
    """Return one row (dict) per group of ``dataset`` with every column of the study."""
    matrix, spec = load_dataset(data_root, dataset)
    graded = is_graded(matrix.labels)
    judges = list(matrix.judges)
    cheap_columns = [judges.index(name) for name in cheap if name in judges]
    fail_of_code = label_fail_flags(matrix.labels, spec.definition)
    codes, groups, names = matrix.judge_labels, matrix.groups, matrix.group_names
    measured = {
        "agreement_all": group_agreements(codes, groups, names, graded, n_boot, seed),
        "agreement_cheap": group_agreements(
            codes[:, cheap_columns], groups, names, graded, n_boot, seed
        ),
        "agreement_binary": group_agreements(
            fail_of_code[codes.astype(np.int64)].astype(np.int16),
            groups,
            names,
            False,
            n_boot,
            seed,
        ),
    }
    rows = []
    for name, flags in group_flags(matrix, spec.definition).items():
        kappas, youdens = _judge_outcomes(flags, judges)
        humans = matrix.human_labels[groups == names.index(name)]
        row = {"dataset": dataset, "group": name, "n_items": flags.n_items}
        row["measure"] = measured["agreement_all"][name].measure
        for column, agreements in measured.items():
            agreement = agreements[name]
            row.update({column: agreement.mean, f"{column}_low": agreement.low})
            row[f"{column}_high"] = agreement.high
        row["best_kappa"], row["best_kappa_judge"] = _best(kappas, judges)
        row["best_youden"], row["best_youden_judge"] = _best(youdens, judges)
        row["human_agreement"] = pairwise_agreement(humans, graded).mean
        row.update(prevalence=float(np.mean(flags.truth_fail)), n_truth=int(flags.truth_fail.size))
        row["n_fail"] = int(np.count_nonzero(flags.truth_fail))
        row["cheap_judges"] = ";".join(judges[c] for c in cheap_columns)
        rows.append(row)
    return rows


def rank_correlations(rows):
    """Return ``[(scope, agreement column, outcome column, rho, p, n)]``: all rows and each set."""
    scopes = [("all groups", rows)]
    scopes += [
        (d, [r for r in rows if r["dataset"] == d])
        for d in dict.fromkeys(r["dataset"] for r in rows)
    ]
    found = []
    for scope, chosen in scopes:
        for agreement in AGREEMENT_COLUMNS:
            for outcome in OUTCOME_COLUMNS:
                x = [row[agreement] for row in chosen]
                y = [row[outcome] for row in chosen]
                rho, p = exact_spearman(x, y)
                n = int(np.sum(np.isfinite(x) & np.isfinite(y)))
                found.append((scope, agreement, outcome, rho, p, n))
    return found


def _cell(value, digits=3):
    return "n/a" if not isinstance(value, int | float) or value != value else f"{value:.{digits}f}"


def _with_interval(row, column):
    return (
        f"{_cell(row[column])} [{_cell(row[column + '_low'], 2)}, "
        f"{_cell(row[column + '_high'], 2)}]"
    )


def study_markdown(rows, correlations, n_boot, seed, seconds):
    """Return the study's Markdown report."""
    cheap = rows[0]["cheap_judges"].replace(";", ", ") if rows else ""
    lines = [
        "# Is the question well posed? Judge agreement against calibration",
        "",
        f"Per criterion: the judges' mean pairwise agreement on the unlabelled items (all six "
        f"judges, then the cheap ones: {cheap}; Spearman on SummEval's 1-5 scores, Cohen's "
        "kappa on CeBaB's labels; then kappa on every judge's binarised FAIL flags), with "
        f"95% percentile bootstrap intervals over items ({n_boot} resamples, seed {seed}); "
        "beside the best judge's kappa and Youden J against the human majority truth on the "
        "FAIL flags (FAIL: SummEval score <= 3, CeBaB 'Negative'; tied items dropped).",
        "",
        "| data set | criterion | items | FAIL by humans | judges agree (all) | judges agree "
        "(cheap) | judges agree (FAIL flags) | best kappa vs humans | best J vs humans "
        "| humans agree |",
        "|---|---|---:|---:|---|---|---|---|---|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row['dataset']} | {row['group']} | {row['n_items']} | "
            f"{row['n_fail']} ({_cell(row['prevalence'])}) | "
            f"{_with_interval(row, 'agreement_all')} | "
            f"{_with_interval(row, 'agreement_cheap')} | "
            f"{_with_interval(row, 'agreement_binary')} | {_cell(row['best_kappa'])} "
            f"({row['best_kappa_judge']}) | {_cell(row['best_youden'])} "
            f"({row['best_youden_judge']}) | {_cell(row['human_agreement'])} |"
        )
    lines += [
        "",
        "Spearman's rank correlation of the judges' agreement with the best judge's "
        "calibration, and its exact two-sided permutation p-value (every ordering of the "
        "groups enumerated; with 4 groups the smallest possible p is 1/12). A criterion whose "
        "humans never say FAIL has no Se, so no kappa or J, and is left out (n).",
        "",
        "| groups | judges' agreement | against | rho | p | n |",
        "|---|---|---|---:|---:|---:|",
    ]
    for scope, agreement, outcome, rho, p, n in correlations:
        lines.append(f"| {scope} | {agreement} | {outcome} | {_cell(rho)} | {_cell(p)} | {n} |")
    lines += ["", f"Run time {seconds:.1f} s."]
    return "\n".join(lines) + "\n"


def main(argv=None):
    """Run the study from the command line; 0 on success, 2 on bad input, 1 if unwritable."""
    parser = argparse.ArgumentParser(
        prog="python -m experiments.wellposed_study",
        description="Judge agreement on unlabelled items against the best judge's calibration.",
    )
    parser.add_argument("--data", required=True, help="folder holding the alttest data sets")
    parser.add_argument("--out", required=True, help="output prefix: writes PREFIX.md, .csv")
    parser.add_argument("--boot", type=int, default=DEFAULT_BOOT, help="bootstrap resamples")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="root seed")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    try:
        rows = [
            row
            for dataset in STUDY_DATASETS
            for row in dataset_rows(args.data, dataset, args.boot, args.seed)
        ]
    except ValueError as error:  # DataError is a ValueError
        print(f"wellposed_study: {error}", file=sys.stderr)
        return 2
    correlations = rank_correlations(rows)
    text = study_markdown(rows, correlations, args.boot, args.seed, time.perf_counter() - start)
    return write_study("wellposed_study", args.out, text, rows)


if __name__ == "__main__":
    sys.exit(main())
