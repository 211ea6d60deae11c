"""How far the gold-column practice moves a real judge's rates: majority against latent truth.

For every criterion of the shipped data sets with a binary FAIL definition
(:data:`simcore.instrument.fail_definitions.SHIPPED_CARD_SPECS`: SummEval's four dimensions,
CeBaB's stars and four aspects, WAX's relation) and every judge, the judge's TPR and TNR are
measured against the humans' majority (ties left out) and against the latent truth of a
latent-class fit of the humans and the judge (:mod:`simcore.calibration.latent`); the
judge's failure rate over the criterion's items is corrected through each (Rogan-Gladen,
Lang-Reiczigel interval; the latent one on the fit's effective counts). The truth of these
panels is unknown, so the report shows the difference the choice of truth makes, not an
error.

Run ``python -m experiments.latent_real --data ALTTEST_FOLDER --out PREFIX`` (writes
``PREFIX.md`` and ``PREFIX.csv``); ``make coverage-latent`` does it.
"""

import argparse
import csv
import math
import sys
import time
from pathlib import Path

import numpy as np

from simcore.calibration.latent import LatentSettings
from simcore.calibration.statistics import corrected_failure_rate
from simcore.instrument.card.latent import binary_against_truths
from simcore.instrument.card.measure import load_criterion
from simcore.instrument.fail_definitions import SHIPPED_CARD_SPECS, label_fail_flags
from simcore.markdown_table import markdown_table

BOOT = 200
"""Bootstrap refits per fit (the intervals of the latent rates)."""

SEED = 2026
"""Their seed."""


def _rate(counts, fails, of):
    """Return ``(estimate, low, high, corrected)`` of the Lang-Reiczigel correction."""
    result = corrected_failure_rate(fails, of, *counts)
    return (
        float(result.estimate),
        float(result.lr_low),
        float(result.lr_high),
        bool(result.corrected),
    )


def criterion_rows(data_root, spec, criterion, settings):
    """Return one row per judge of one criterion: both truths' rates and corrected rates."""
    matrix, label_set = load_criterion(
        Path(data_root) / spec.dataset, criterion, spec.group_separator
    )
    parsed = np.array([label in label_set for label in matrix.labels], dtype=bool)
    fail_of_code = label_fail_flags(matrix.labels, spec.definition, parsed)
    rows = []
    for judge in matrix.judges:
        majority, n_tied, error = binary_against_truths(
            matrix, judge, spec.definition, settings, label_set
        )
        answers = np.asarray(matrix.judge_labels)[:, matrix.judges.index(judge)]
        fails, of = int(fail_of_code[answers].sum()), len(answers)
        gold = _rate(majority.table, fails, of)
        latent = _rate(error.counts, fails, of)
        caught, missed, flagged, cleared = majority.table
        rows.append(
            {
                "dataset": spec.dataset,
                "criterion": criterion,
                "judge": judge,
                "items": of,
                "humans_per_item": float((np.asarray(matrix.human_labels) >= 0).sum(1).mean()),
                "model": error.fit.model,
                "tied": n_tied,
                "tpr_majority": caught / (caught + missed) if caught + missed else math.nan,
                "tpr_latent": error.tpr.estimate,
                "tnr_majority": cleared / (cleared + flagged) if cleared + flagged else math.nan,
                "tnr_latent": error.tnr.estimate,
                "observed": fails / of,
                "rate_majority": gold[0] if gold[3] else math.nan,
                "rate_latent": latent[0] if latent[3] else math.nan,
                "width_majority": gold[2] - gold[1] if gold[3] else math.nan,
                "width_latent": latent[2] - latent[1] if latent[3] else math.nan,
                "latent_prevalence": error.fail_prevalence.estimate,
            }
        )
    return rows


def study_rows(data_root, settings):
    """Return the rows of every shipped criterion with a binary FAIL definition."""
    rows = []
    for spec in SHIPPED_CARD_SPECS:
        for criterion in spec.criteria:
            rows += criterion_rows(data_root, spec, criterion, settings)
    return rows


def _mean(values):
    values = [v for v in values if not math.isnan(v)]
    return sum(values) / len(values) if values else math.nan


def report(rows, settings, seconds):
    """Return the Markdown report: per data set, the mean shift of each figure, then every row."""
    summary = []
    for dataset in dict.fromkeys(row["dataset"] for row in rows):
        chosen = [row for row in rows if row["dataset"] == dataset]

        def shifts(name, chosen=chosen):
            return [row[f"{name}_latent"] - row[f"{name}_majority"] for row in chosen]

        rate_shifts = [abs(v) for v in shifts("rate") if not math.isnan(v)]
        summary.append(
            {
                "dataset": dataset,
                "rows": len(chosen),
                "humans per item": f"{_mean([r['humans_per_item'] for r in chosen]):.1f}",
                "mean TPR shift": f"{_mean(shifts('tpr')):+.3f}",
                "mean TNR shift": f"{_mean(shifts('tnr')):+.3f}",
                "corrected both": len(rate_shifts),
                "mean abs rate shift": f"{_mean(rate_shifts):.3f}",
                "largest abs rate shift": f"{max(rate_shifts, default=math.nan):.3f}",
                "mean width majority": f"{_mean([r['width_majority'] for r in chosen]):.3f}",
                "mean width latent": f"{_mean([r['width_latent'] for r in chosen]):.3f}",
            }
        )
    detail = [
        {
            "dataset": row["dataset"],
            "criterion": row["criterion"],
            "judge": row["judge"],
            "TPR maj": f"{row['tpr_majority']:.3f}",
            "TPR lat": f"{row['tpr_latent']:.3f}",
            "TNR maj": f"{row['tnr_majority']:.3f}",
            "TNR lat": f"{row['tnr_latent']:.3f}",
            "rate maj": f"{row['rate_majority']:.3f}",
            "rate lat": f"{row['rate_latent']:.3f}",
        }
        for row in rows
    ]
    return "\n".join(
        [
            "# The judge against the majority and against the latent truth, on real panels",
            "",
            f"Latent fit: auto model, {settings.boot} bootstrap refits (seed {settings.seed}); "
            "the corrected rate is each judge's FAIL share over the criterion's items, "
            "corrected by Rogan-Gladen with the Lang-Reiczigel interval (the latent one on "
            f"the fit's effective counts). {len(rows)} judge-criterion rows in {seconds:.0f} s. "
            "A rate shift is latent minus majority; an empty cell is a refused correction.",
            "",
            *_table(summary),
            "",
            *_table(detail),
            "",
        ]
    )


def _table(rows):
    """Return the Markdown lines of rows of equal keys."""
    return markdown_table(list(rows[0]), [list(row.values()) for row in rows])


def main(argv=None):
    """Write ``PREFIX.md`` and ``PREFIX.csv``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True, help="the alttest data folder")
    parser.add_argument("--out", required=True, help="output prefix")
    args = parser.parse_args(argv)
    settings = LatentSettings(boot=BOOT, seed=SEED)
    start = time.perf_counter()
    rows = study_rows(args.data, settings)
    seconds = time.perf_counter() - start
    Path(f"{args.out}.md").write_text(report(rows, settings, seconds), encoding="utf-8")
    with open(f"{args.out}.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {args.out}.md and {args.out}.csv ({len(rows)} rows, {seconds:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
