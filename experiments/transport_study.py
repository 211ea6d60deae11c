"""The transport study on real judges: SummEval's dimensions and CeBaB's aspects.

For each data set of :data:`STUDY_DATASETS`, every ordered pair of its groups (criteria),
every judge and calibration size, :func:`simcore.instrument.transport.transport_table`
checks the Lang-Reiczigel interval of the corrected failure rate when the judge's card is
measured on group ``A`` and applied to group ``B``'s stream, against the same card measured
on ``B`` itself. Truth is the human majority of the binarised labels
(:mod:`experiments.real_groups`). The Markdown report summarises coverage per data
set and calibration size, by the size of the transport bias, and per group pair; the CSV
holds every row.

Run ``python -m experiments.transport_study --data ALTTEST_FOLDER --out PREFIX``
(writes ``PREFIX.md`` and ``PREFIX.csv``); ``make transport`` does it.
"""

import argparse
import math
import sys
import time

import numpy as np

from experiments.real_groups import group_flags, load_dataset
from simcore.calibration.statistics import youden_j
from simcore.instrument.transport import (
    DEFAULT_N_CALS,
    DEFAULT_SEED,
    DEFAULT_SPLITS,
    MIN_STREAM,
    transport_table,
)
from simcore.instrument.wellposed.report import write_study

STUDY_DATASETS = ("summeval", "cebab_aspects")
"""Data sets whose groups are criteria of the same items."""

BIAS_BINS = (0.0, 0.02, 0.05, 0.10, math.inf)
"""Edges of the ``|transport bias|`` bins of the summary."""

CLEAR_YOUDEN = 0.3
"""The second summary keeps the rows whose judge has J at least this on both full groups."""


def clear_of_floor(row):
    """Return whether the row's judge has ``J >= CLEAR_YOUDEN`` on both full groups."""
    return all(
        youden_j(row[f"se_{side}"], row[f"sp_{side}"]) >= CLEAR_YOUDEN
        for side in ("source", "target")
    )


def study_rows(data_root, datasets=STUDY_DATASETS, **options):
    """Return the transport rows of every data set (``options``: :func:`transport_table`'s)."""
    rows = []
    for dataset in datasets:
        matrix, spec = load_dataset(data_root, dataset)
        flags = group_flags(matrix, spec.definition)
        groups = {name: (f.truth_fail, f.judge_fail) for name, f in flags.items()}
        rows += transport_table(groups, matrix.judges, dataset, **options)
    return rows


def _mean(values):
    finite = [v for v in values if isinstance(v, float | int) and math.isfinite(v)]
    return float(np.mean(finite)) if finite else math.nan


def _share_below(values, level):
    finite = [v for v in values if math.isfinite(v)]
    return sum(v < level for v in finite) / len(finite) if finite else math.nan


def _cell(value, digits=3):
    return "n/a" if value != value else f"{value:.{digits}f}"


def _summary_lines(rows):
    lines = [
        "| data set | n_cal | rows | coverage transported | coverage same population "
        "| transported < 0.90 | same < 0.90 | refused transported | refused same |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    keys = dict.fromkeys((row["dataset"], row["n_cal"]) for row in rows)
    for dataset, n_cal in keys:
        chosen = [r for r in rows if r["dataset"] == dataset and r["n_cal"] == n_cal]
        moved = [r["transported_coverage"] for r in chosen]
        same = [r["same_coverage"] for r in chosen]
        lines.append(
            f"| {dataset} | {n_cal} | {len(chosen)} | {_cell(_mean(moved))} | "
            f"{_cell(_mean(same))} | {_cell(_share_below(moved, 0.9), 2)} | "
            f"{_cell(_share_below(same, 0.9), 2)} | "
            f"{_cell(_mean([r['transported_refused'] for r in chosen]), 2)} | "
            f"{_cell(_mean([r['same_refused'] for r in chosen]), 2)} |"
        )
    return lines


def _bias_lines(rows):
    lines = [
        "| abs(transport bias) | n_cal | rows | coverage transported | coverage same population |",
        "|---|---:|---:|---:|---:|",
    ]
    for low, high in zip(BIAS_BINS[:-1], BIAS_BINS[1:], strict=True):
        for n_cal in sorted({row["n_cal"] for row in rows}):
            chosen = [r for r in rows if r["n_cal"] == n_cal and low <= abs(r["bias"]) < high]
            if not chosen:
                continue
            label = f"[{low:.2f}, {high:.2f})" if math.isfinite(high) else f">= {low:.2f}"
            lines.append(
                f"| {label} | {n_cal} | {len(chosen)} | "
                f"{_cell(_mean([r['transported_coverage'] for r in chosen]))} | "
                f"{_cell(_mean([r['same_coverage'] for r in chosen]))} |"
            )
    return lines


def _pair_lines(rows, n_cal):
    lines = [
        f"| data set | card from | stream of | FAIL share from -> of | mean abs(bias) | "
        f"coverage transported | coverage same (n_cal {n_cal}) |",
        "|---|---|---|---|---:|---:|---:|",
    ]
    chosen = [r for r in rows if r["n_cal"] == n_cal]
    for key in dict.fromkeys((r["dataset"], r["source"], r["target"]) for r in chosen):
        part = [r for r in chosen if (r["dataset"], r["source"], r["target"]) == key]
        first = part[0]
        lines.append(
            f"| {key[0]} | {key[1]} | {key[2]} | {_cell(first['prevalence_source'])} -> "
            f"{_cell(first['prevalence_target'])} | "
            f"{_cell(_mean([abs(r['bias']) for r in part]))} | "
            f"{_cell(_mean([r['transported_coverage'] for r in part]))} | "
            f"{_cell(_mean([r['same_coverage'] for r in part]))} |"
        )
    return lines


def study_markdown(rows, n_splits, seed, seconds):
    """Return the transport study's Markdown report."""
    se = _mean([r["transported_se"] for r in rows] + [r["same_se"] for r in rows])
    middle = sorted({row["n_cal"] for row in rows})[len({row["n_cal"] for row in rows}) // 2]
    lines = [
        "# Transporting a judge's Se/Sp: coverage of the corrected rate's LR interval",
        "",
        "Card (Se, Sp) measured on n_cal items of criterion A, Lang-Reiczigel corrected "
        "failure rate on the stream of criterion B (transported), against the card measured "
        "on n_cal items of B itself, disjoint from the same stream (same population). Truth: "
        f"the human majority of the FAIL flags, ties dropped. {n_splits} splits per (group, "
        f"n_cal), seed {seed}; a row's Monte Carlo SE is about {_cell(se)} (mean over rows). "
        f"Targets keep a stream of at least {MIN_STREAM} items. Coverage is over the splits "
        "where the correction was not refused (Youden J below the floor). Transport bias = "
        "RG(q_B; Se_A, Sp_A) - theta_B on the full groups: where the transported estimate "
        "converges.",
        "",
        *_summary_lines(rows),
        "",
        f"The same, only judges with Youden J >= {CLEAR_YOUDEN} on both full groups (near the "
        "floor, the splits that escape refusal are those whose calibration set overstates J, "
        "which undercovers even on the same population):",
        "",
        *_summary_lines([row for row in rows if clear_of_floor(row)]),
        "",
        "By the size of the transport bias (all data sets and judges):",
        "",
        *_bias_lines(rows),
        "",
        f"Per group pair at n_cal {middle} (means over the judges):",
        "",
        *_pair_lines(rows, middle),
        "",
        f"Run time {seconds:.1f} s.",
    ]
    return "\n".join(lines) + "\n"


def main(argv=None):
    """Run the study from the command line; 0 on success, 2 on bad input, 1 if unwritable."""
    parser = argparse.ArgumentParser(
        prog="python -m experiments.transport_study",
        description="Coverage of the corrected failure rate when a judge's card is transported.",
    )
    parser.add_argument("--data", required=True, help="folder holding the alttest data sets")
    parser.add_argument("--out", required=True, help="output prefix: writes PREFIX.md, .csv")
    parser.add_argument("--splits", type=int, default=DEFAULT_SPLITS, help="splits per group")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="root seed")
    parser.add_argument(
        "--n-cal", type=int, action="append", help=f"calibration size (repeat; {DEFAULT_N_CALS})"
    )
    args = parser.parse_args(argv)
    start = time.perf_counter()
    n_cals = tuple(args.n_cal) if args.n_cal else DEFAULT_N_CALS
    try:
        rows = study_rows(args.data, n_cals=n_cals, n_splits=args.splits, seed=args.seed)
    except ValueError as error:  # DataError is a ValueError
        print(f"transport_study: {error}", file=sys.stderr)
        return 2
    text = study_markdown(rows, args.splits, args.seed, time.perf_counter() - start)
    return write_study("transport_study", args.out, text, rows)


if __name__ == "__main__":
    sys.exit(main())
