"""Coverage of the corrected failure rate's intervals on real judges (the coverage study).

The simulated coverage study (:func:`simcore.calibration.statistics.coverage_trials`) draws
judges from
a model. This module runs the same check on real LLM judges, using the SummEval data of the
alternative annotator test (an ``alttest`` folder, see :mod:`simcore.realdata.matrix`):

1. Binarise every 1-5 score: FAIL when ``score <= fail_at_most`` (3 by default), PASS
   otherwise. The positive class is FAIL, as in :mod:`simcore.calibration.statistics`.
2. Take one expert's labels as the truth (``e0`` by default) and each LLM judge in turn as
   the instrument, on the items both labelled (all four dimensions pooled unless asked
   otherwise).
3. For each judge and calibration size ``n_cal``, draw ``n_splits`` random splits of those
   ``n`` items: a calibration set of ``n_cal`` items drawn uniformly without replacement,
   and a production stream of the other ``N = n - n_cal`` items.
4. From the calibration set count the 2 x 2 table (expert x judge); on the stream count the
   judge's fails. Build the Lang-Reiczigel (LR) and naive intervals with
   :func:`simcore.calibration.statistics.corrected_failure_rate` (vectorised over the splits).
5. The quantity to cover is the expert's fail rate on that split's stream. An interval
   covers when ``low - COVERAGE_SLACK <= truth <= high + COVERAGE_SLACK``.

Coverage is reported over the *corrected* splits only (those where the correction was not
refused: refused splits carry the observed rate's Wilson interval, which makes no claim
about the true rate), with the binomial standard error ``sqrt(c (1 - c) / m)``, ``m`` the
number of corrected splits. Widths are means over the corrected splits.

Seeding. The splits of judge ``j`` (its position in ``llm_annotations.json``, from 0) at
calibration size ``n_cal`` use ``numpy.random.default_rng(SeedSequence([seed, j, n_cal]))``;
per-dimension rows add the dimension's position (from 1, in sorted order) as a fourth
entry. A row can thus be reproduced alone, whatever other rows are run.

Run it as ``python -m experiments.real_check --data PATH --out REPORT.md``.

The work is split by step: :mod:`~simcore.calibration.real.pairs` reads and binarises the
data, :mod:`~simcore.calibration.real.splits` draws the splits and computes the rows,
:mod:`~experiments.real_report` writes the Markdown report; this module runs them and
is the command line. Every name in ``__all__`` is importable from here.
"""

import argparse
import sys
from pathlib import Path

from experiments.real_report import (  # noqa: F401
    DIMENSION_SEED_NOTE,
    TABLE_HEADER,
    coverage_markdown,
)

# Re-exported: callers import these names from experiments.real_check.
from simcore.calibration.real.pairs import (
    DEFAULT_EXPERT,
    DEFAULT_FAIL_AT_MOST,
    DIMENSION_SEPARATOR,
    POOLED,
    BinarisedPair,
    binarised_pairs,
    item_dimension,
)
from simcore.calibration.real.splits import (
    DEFAULT_N_CALS,
    DEFAULT_SEED,
    DEFAULT_SPLITS,
    coverage_splits,
    draw_splits,
    real_coverage_table,
)
from simcore.calibration.statistics import DEFAULT_YOUDEN_FLOOR

__all__ = [
    "DEFAULT_EXPERT",
    "DEFAULT_FAIL_AT_MOST",
    "DEFAULT_N_CALS",
    "DEFAULT_SEED",
    "DEFAULT_SPLITS",
    "DIMENSION_SEPARATOR",
    "POOLED",
    "BinarisedPair",
    "binarised_pairs",
    "coverage_markdown",
    "coverage_splits",
    "draw_splits",
    "item_dimension",
    "main",
    "real_coverage_table",
    "write_coverage_real",
]


def write_coverage_real(path, out_markdown, **kwargs):
    """Run the real-data coverage check and write its Markdown report.

    Parameters
    ----------
    path : str or pathlib.Path
        The ``alttest`` folder (see :func:`binarised_pairs`).
    out_markdown : str or pathlib.Path
        File to write; its folder is created when missing.
    **kwargs
        Passed to :func:`real_coverage_table` (``expert``, ``n_cals``, ``n_splits``,
        ``seed``, ``fail_at_most``, ``confidence``, ``youden_floor``, ``by_dimension``).

    Returns
    -------
    list of dict
        The rows of :func:`real_coverage_table`.
    """
    rows = real_coverage_table(path, **kwargs)
    text = coverage_markdown(
        rows,
        path,
        expert=kwargs.get("expert", DEFAULT_EXPERT),
        n_splits=kwargs.get("n_splits", DEFAULT_SPLITS),
        seed=kwargs.get("seed", DEFAULT_SEED),
        fail_at_most=kwargs.get("fail_at_most", DEFAULT_FAIL_AT_MOST),
        confidence=kwargs.get("confidence", 0.95),
        youden_floor=kwargs.get("youden_floor", DEFAULT_YOUDEN_FLOOR),
    )
    out = Path(out_markdown)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    return rows


# --------------------------------------------------------------------------- command line


def _positive(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1 (got {text})")
    return value


def _non_negative(text):
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be non-negative (got {text})")
    return value


def main(argv=None):
    """Run the real-data coverage check from the command line.

    Parameters
    ----------
    argv : list of str, optional
        Arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success, 2 for bad input data or settings (the message, naming the path, goes
        to stderr), 1 when the report cannot be written.
    """
    parser = argparse.ArgumentParser(
        prog="python -m experiments.real_check",
        description="Coverage of the LR and naive corrected-failure-rate intervals on real "
        "LLM judges (SummEval, an expert's labels as truth).",
    )
    parser.add_argument("--data", required=True, help="alttest folder (SummEval)")
    parser.add_argument("--out", required=True, help="Markdown report to write")
    parser.add_argument("--expert", default=DEFAULT_EXPERT, help="truth expert (default e0)")
    parser.add_argument(
        "--splits", type=_positive, default=DEFAULT_SPLITS, help="splits per (judge, n_cal)"
    )
    parser.add_argument("--seed", type=_non_negative, default=DEFAULT_SEED, help="seed")
    parser.add_argument(
        "--fail-at-most", type=float, default=DEFAULT_FAIL_AT_MOST, help="FAIL when score <= this"
    )
    parser.add_argument(
        "--by-dimension", action="store_true", help="also report each dimension on its own"
    )
    args = parser.parse_args(argv)
    try:
        rows = write_coverage_real(
            args.data,
            args.out,
            expert=args.expert,
            n_splits=args.splits,
            seed=args.seed,
            fail_at_most=args.fail_at_most,
            by_dimension=args.by_dimension,
        )
    except ValueError as error:  # DataError is a ValueError
        print(f"experiments.real_check: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"experiments.real_check: cannot write {args.out}: {error}", file=sys.stderr)
        return 1
    print(f"experiments.real_check: wrote {len(rows)} rows to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
