"""``simcore ceiling DATA``: human ceilings of a multi-rater matrix, judges read against them.

The parser (:func:`add_ceiling`) and the handler (:func:`command_ceiling`) of the command;
everything numerical is imported inside the handler so ``simcore --help`` stays fast. The
statistics are :mod:`simcore.instrument.ceiling`'s, the per-group report
:mod:`simcore.instrument.ceiling_report`'s.

Input: an ``alttest`` folder or JSON file (as ``simcore inspect`` reads them), or a long CSV
table. A CSV's columns are found by name: ``--item-column``, ``--rater-column``,
``--label-column`` and ``--group-column`` name them; without those, the standard names
``item,rater,label[,group]`` are tried, then aliases (``score`` for the label, ``criterion``
for the group, ...: :data:`simcore.realdata.column_map.COLUMN_ALIASES`), so JUDGE-BENCH's
``item,criterion,rater,score`` is read as it is.
"""

COLUMN_OPTIONS = ("item", "rater", "label", "group")
"""CSV columns that ``--<name>-column`` renames."""


def add_scale_arguments(parser, graded_help):
    """Add ``--graded`` / ``--categorical`` (``args.graded``: True, False or None = detect)."""
    scale = parser.add_mutually_exclusive_group()
    scale.add_argument(
        "--graded", dest="graded", action="store_const", const=True, help=graded_help
    )
    scale.add_argument(
        "--categorical", dest="graded", action="store_const", const=False, help="Cohen's kappa"
    )


def add_ceiling(commands, subcommand):
    """Add ``ceiling`` to the subparsers ``commands`` (``subcommand`` builds a subparser)."""
    from simcore.cli_parser import _add_data_arguments

    ceiling = subcommand(
        commands,
        "ceiling",
        help="human ceilings of a multi-rater matrix (r-hat, benchmark, leave-one-out, "
        "symmetric) and judges against them",
    )
    _add_data_arguments(
        ceiling,
        "a folder with the JSON pair, a JSON file of humans, or a long CSV "
        "(item,rater,label[,group]; item,criterion,rater,score also read)",
    )
    ceiling.add_argument("--group-separator", help="JSON: item id separator before the group")
    for name in COLUMN_OPTIONS:
        ceiling.add_argument(
            f"--{name}-column", metavar="NAME", help=f"CSV: the {name} column's header name"
        )
    ceiling.add_argument(
        "--criterion",
        action="append",
        metavar="NAME",
        help="report only this group (repeatable; default every group)",
    )
    add_scale_arguments(
        ceiling, "ordered scores: Spearman (default when every label is a number, >= 3 of them)"
    )
    ceiling.add_argument(
        "--judge-scores",
        metavar="FILE",
        help="published per-judge scores: CSV with model (or judge), criterion (optional) "
        "and the score column",
    )
    ceiling.add_argument(
        "--score-column", default="spearman", help="--judge-scores column holding the score"
    )
    ceiling.add_argument("--boot", type=int, default=1000, help="bootstrap replicates over items")
    ceiling.add_argument("--seed", type=int, default=2026, help="bootstrap root seed")
    ceiling.add_argument("--out", metavar="FILE.md", help="also write the Markdown report")
    ceiling.add_argument("--csv", metavar="FILE", help="also write one CSV row per group")


def _load_matrix(args):
    """Return the annotation matrix of ``args.data`` (DataError when it is bad)."""
    from pathlib import Path

    from simcore.cli_parser import rater_lists
    from simcore.realdata.loaders import load_ratings

    columns = {name: getattr(args, f"{name}_column") for name in COLUMN_OPTIONS}
    return load_ratings(
        Path(args.data),
        group_separator=args.group_separator,
        judges_path=args.judges_file,
        columns={name: value for name, value in columns.items() if value},
        **rater_lists(args),
    )


def command_ceiling(args):
    """Run ``simcore ceiling``: print the report; write ``--out`` and ``--csv`` if asked."""
    import csv

    from simcore.cli import UsageError
    from simcore.instrument import ceiling_report as report
    from simcore.instrument.ceiling import is_graded
    from simcore.realdata.annotation import DataError
    from simcore.sweep.store_files import checked_output_file

    if args.boot < 0:
        raise UsageError(f"--boot: must be >= 0 (got {args.boot})")
    if args.seed < 0:
        raise UsageError(f"--seed: must be >= 0 (got {args.seed})")
    for option, path in (("--out", args.out), ("--csv", args.csv)):
        if path:
            checked_output_file(path, option)
    try:
        matrix = _load_matrix(args)
        graded = is_graded(matrix.labels) if args.graded is None else args.graded
        scores = None
        if args.judge_scores:
            scores = report.read_judge_scores(args.judge_scores, args.score_column)
            report.check_judge_groups(scores, matrix.group_names, args.judge_scores)
        results = report.group_ceilings(
            matrix, graded, args.criterion, scores, n_boot=args.boot, seed=args.seed
        )
    except DataError as error:
        raise UsageError(str(error)) from None
    text = report.markdown_report(results, graded)
    print(text, end="")
    if args.out:
        with open(args.out, "w", encoding="utf-8") as handle:
            handle.write(text)
    if args.csv:
        with open(args.csv, "w", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=report.CSV_FIELDS)
            writer.writeheader()
            writer.writerows(report.csv_rows(results))
