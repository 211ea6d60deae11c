"""The coverage study's clustered scenarios, as a Markdown table.

Run ``python -m experiments.clustered_coverage_study --out PREFIX`` (writes ``PREFIX.md``
and ``PREFIX.csv``; ``--trials``, default 2000); ``make coverage-clustered`` does it. The
scenarios and the simulation are :mod:`simcore.studies.coverage.clustered`.
"""

import argparse
import sys
import time

from simcore.instrument.wellposed.report import write_study
from simcore.studies.coverage.clustered import SCENARIOS, SEED, coverage_rows


def study_markdown(rows, trials, seconds):
    """Return the study's Markdown: one row per scenario and method, both intervals."""
    lines = [
        "# Coverage of the corrected failure rate on clustered items",
        "",
        f"{trials} trials per scenario, seed {SEED}, {seconds:.0f} s; judge Se 0.85, Sp 0.9, "
        "failure rate 0.2; coverage % of the 95% interval (a refused trial does not cover) "
        "and its mean half-width, as if the items were independent and cluster-robust.",
        "",
        "| cluster size | clusters | ICC failures | ICC judge errors | method | independent % "
        "| half-width | cluster-robust % | half-width |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row['cluster_size']} | {row['clusters']} | {row['icc_failures']:g} "
            f"| {row['icc_errors']:g} | {row['method']} "
            f"| {100 * row['coverage_independent']:.1f} ± {100 * row['se_independent']:.1f} "
            f"| {row['half_width_independent']:.4f} "
            f"| {100 * row['coverage_clustered']:.1f} ± {100 * row['se_clustered']:.1f} "
            f"| {row['half_width_clustered']:.4f} |"
        )
    return "\n".join(lines) + "\n"


def main(argv=None):
    """Run the study from the command line; 0 on success, 2 on bad input, 1 if unwritable."""
    parser = argparse.ArgumentParser(
        prog="python -m experiments.clustered_coverage_study",
        description="Coverage of independent and cluster-robust intervals on clustered items.",
    )
    parser.add_argument("--out", required=True, help="output prefix: writes PREFIX.md, .csv")
    parser.add_argument("--trials", type=int, default=2000, help="trials per scenario")
    args = parser.parse_args(argv)
    if args.trials < 100:
        print(f"clustered_coverage: --trials: at least 100 (got {args.trials})", file=sys.stderr)
        return 2
    start = time.perf_counter()
    rows = coverage_rows(SCENARIOS, trials=args.trials)
    text = study_markdown(rows, args.trials, time.perf_counter() - start)
    return write_study("clustered_coverage", args.out, text, rows)


if __name__ == "__main__":
    sys.exit(main())
