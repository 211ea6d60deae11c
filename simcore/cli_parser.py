"""The ``simcore`` command line's arguments: one small builder per subcommand.

Every option has a help text and shows its default; an unknown option is reported with
its own subcommand's usage (``simcore run S.yaml --trails 5`` shows ``run``'s usage).
"""

import argparse

from simcore._version import __version__
from simcore.cli_card import add_calibrate_card_options, add_card
from simcore.cli_ceiling import add_ceiling
from simcore.cli_wellposed import add_wellposed


def _subcommand(commands, name, **kwargs):
    """Add subcommand ``name`` with the help formatter that shows defaults."""
    return commands.add_parser(
        name, formatter_class=argparse.ArgumentDefaultsHelpFormatter, **kwargs
    )


def parse_arguments(argv=None):
    """Parse ``argv``; an unknown option exits 2 with its subcommand's usage."""
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        parser.subcommands.choices[args.command].error(
            f"unrecognized arguments: {' '.join(unknown)}"
        )
    return args


def build_parser():
    """Return the ``simcore`` argument parser with every subcommand."""
    parser = argparse.ArgumentParser(
        prog="simcore",
        description="Monte Carlo sweeps of the leave-one-out LLM-judge validation rule "
        "under sparse human overlap.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"simcore {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    parser.subcommands = commands
    _add_run(commands)
    _add_show(commands)
    _add_plot(commands)
    _add_plan(commands)
    _add_tables(commands)
    _add_advise(commands)
    _add_inspect(commands)
    _add_calibrate(commands)
    _add_validate(commands)
    add_wellposed(commands, _subcommand)
    add_card(commands, _subcommand)
    add_ceiling(commands, _subcommand)
    return parser


def _add_run(commands):
    """Add ``run``: a scenario's sweep into a zarr store."""
    run = _subcommand(commands, "run", help="run a scenario's sweep into a zarr store")
    run.add_argument("scenario", help="scenario YAML file")
    run.add_argument(
        "--out",
        help="zarr store (default: the scenario's output.store, else results/<scenario name>.zarr)",
    )
    run.add_argument("--trials", type=int, help="trials per cell (overrides the file)")
    run.add_argument("--seed", type=int, help="root seed (overrides the file)")
    run.add_argument(
        "--set",
        dest="sets",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override any field, e.g. model.n_items=1000 (repeatable)",
    )
    where = run.add_mutually_exclusive_group()
    where.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="dask.distributed scheduler to run on, e.g. tcp://host:8786",
    )
    where.add_argument(
        "--workers", type=int, metavar="N", help="run on a local cluster of N worker processes"
    )
    run.add_argument("--overwrite", action="store_true", help="replace whatever the store holds")
    run.add_argument("--quiet", action="store_true", help="no progress, no table")


def _add_show(commands):
    """Add ``show``: a store's cube printed as tables."""
    show = _subcommand(commands, "show", help="print a store's cube as tables")
    show.add_argument("store", help="a finished zarr store written by simcore run")


def _add_plot(commands):
    """Add ``plot``: a store's cube drawn to a PNG."""
    plot = _subcommand(commands, "plot", help="draw a store's cube")
    plot.add_argument("store", help="a finished zarr store written by simcore run")
    plot.add_argument(
        "--out",
        help="PNG file (default: the scenario's output.figure, else the store's name with .png)",
    )
    plot.add_argument(
        "--variable",
        help="draw this variable instead of the scenario's plot.variables "
        "(e.g. false_approval_rate)",
    )


def _add_plan(commands):
    """Add ``plan``: the items per secondary a validation needs."""
    plan = _subcommand(
        commands,
        "plan",
        help="how many items per secondary a validation needs (simulation + recipe)",
    )
    plan.add_argument("--humans", type=int, default=4, help="humans K (default 4)")
    accuracy = plan.add_mutually_exclusive_group()
    accuracy.add_argument("--p-human", type=float, help="human accuracy (default 0.85)")
    accuracy.add_argument(
        "--human-agreement", type=float, help="measured pairwise observed agreement between humans"
    )
    plan.add_argument("--labels", type=int, default=2, help="label categories L (default 2)")
    plan.add_argument("--epsilon", type=float, default=0.05, help="tolerance (default 0.05)")
    plan.add_argument("--tau", type=float, default=0.5, help="acceptance threshold (0.5)")
    plan.add_argument("--design", default="exact_m", help="allocation design (exact_m)")
    plan.add_argument("--items", type=int, default=2000, help="corpus size n (default 2000)")
    judge = plan.add_mutually_exclusive_group()
    judge.add_argument(
        "--margin",
        type=float,
        help="the judge's expected signed margin S_j - S_h + eps (default +0.05)",
    )
    judge.add_argument("--p-judge", type=float, help="the judge's accuracy instead")
    plan.add_argument(
        "--target",
        type=float,
        default=0.05,
        help="largest acceptable wrong-decision rate (default 0.05)",
    )
    plan.add_argument(
        "--confidence",
        type=float,
        default=0.95,
        help="confidence of the answer's bounds (default 0.95)",
    )
    plan.add_argument(
        "--alpha",
        type=float,
        default=0.05,
        help="two-sided level of the Gaussian recipe (default 0.05)",
    )
    plan.add_argument("--seed", type=int, default=0, help="root seed (default 0)")
    plan.add_argument("--quiet", action="store_true", help="no progress, only the answer")
    plan.add_argument(
        "--rank",
        action="store_true",
        help="the ranking recipe m_rank instead (needs --judges and --gap)",
    )
    plan.add_argument("--judges", type=int, help="judges J to rank")
    plan.add_argument(
        "--gap", type=float, help="smallest gap in agreement with the pool between two judges"
    )


def _add_tables(commands):
    """Add ``tables``: P's Tables 3 and 2 over real-data stores."""
    tables = _subcommand(
        commands, "tables", help="P Tables 3 and 2 (FR/FA/WDR, ranking) over real-data stores"
    )
    tables.add_argument("stores", nargs="+", help="real-data zarr stores")
    tables.add_argument("--table3", help="Markdown file for the FR/FA/WDR table")
    tables.add_argument("--table2", help="Markdown file for the ranking table")
    tables.add_argument(
        "--paper",
        nargs="+",
        metavar="STORE",
        help="stores of P's composition (one matrix per data set, SummEval as one): --table3 "
        "then opens with Table 3 over them, class counts beside P's 20/16/4",
    )
    tables.add_argument(
        "--variants",
        metavar="FILE",
        help="Markdown file: every design of the stores beside P's published Strat numbers "
        "(Table 3, Table 4's borderline WDR, CeBaB stars agreement) and the closest reading",
    )
    tables.add_argument(
        "--agreement",
        nargs="+",
        metavar="STORE",
        help="with --variants: stores whose CeBaB stars agreement (e.g. scored with "
        "krippendorff_alpha) fills the agreement columns instead of the rates' stores",
    )


def _add_advise(commands):
    """Add ``advise``: an audit of a sparse matrix and its next annotation round."""
    advise = _subcommand(
        commands,
        "advise",
        help="audit a sparse validation matrix and plan its next annotation round",
    )
    _add_data_arguments(
        advise, "a folder with the JSON pair, a CSV file (or .csv.gz), or a JSON of humans"
    )
    advise.add_argument(
        "--judge", action="append", default=[], metavar="NAME", help="judge to audit (repeat)"
    )
    advise.add_argument(
        "--rule",
        choices=("point", "alt_test"),
        default="point",
        help="decision rule: P's point comparison or the original alternative annotator test",
    )
    advise.add_argument(
        "--scale",
        choices=("categorical", "numeric"),
        default="categorical",
        help="alt_test: per-item score is accuracy (categorical) or minus the RMSE of the "
        "label values (numeric)",
    )
    advise.add_argument("--eps", type=float, default=0.05, help="tolerance eps")
    advise.add_argument(
        "--min-pairs",
        type=int,
        default=0,
        help="point rule: leave out comparisons with fewer pairs (0: an empty one passes)",
    )
    advise.add_argument("--target", type=float, default=0.05, help="largest acceptable risk")
    advise.add_argument("--budget", type=int, help="total new labels to spend")
    advise.add_argument(
        "--design", default="strat", help="design of the proposal without a budget (SPEC §3)"
    )
    advise.add_argument("--out", default="advice", help="folder for the report and the CSV")
    advise.add_argument(
        "--trials",
        type=int,
        default=300,
        help="simulated matrices per point of the risk curve; the risk now starts there and "
        "draws more (up to 10x) until its Monte Carlo SE is at most one point",
    )
    advise.add_argument("--seed", type=int, default=0, help="root seed of the simulations")
    advise.add_argument("--ordinal", action="store_true", help="the labels are ordered")
    advise.add_argument("--quiet", action="store_true", help="no progress, only the summary")
    _add_advise_model_options(advise)


def _add_advise_model_options(advise):
    """Add advise's options on the fitted model and on groups."""
    advise.add_argument(
        "--model",
        choices=("auto", "dawid-skene", "one-coin"),
        default="auto",
        help="latent-class model: auto is one-coin above 10 labels, else Dawid-Skene",
    )
    advise.add_argument(
        "--group-separator",
        help="alttest folder: item id separator before the group name (CSV: a group column)",
    )
    advise.add_argument(
        "--pool-groups",
        action="store_true",
        help="audit all groups together instead of each group on its own",
    )


def _add_data_arguments(parser, data_help):
    """Add the annotation matrix's arguments: the data, its humans, its judges."""
    parser.add_argument("data", help=data_help)
    parser.add_argument(
        "--humans", help="comma-separated human ids, primary first (CSV: default every non-judge)"
    )
    parser.add_argument(
        "--judges", help="comma-separated judge names (CSV: default none, a human-only matrix)"
    )
    parser.add_argument(
        "--judges-file",
        metavar="PATH",
        help="judge labels in a separate file: long CSV item,rater,label or JSON "
        "{judge: {item: label}}",
    )


def rater_lists(args):
    """Return ``{"humans": [...], "judges": [...]}`` of the given ``--humans``/``--judges``."""
    return {
        key: value.split(",")
        for key, value in (("humans", args.humans), ("judges", args.judges))
        if value
    }


def _add_inspect(commands):
    """Add ``inspect``: density, coverage and overlaps of an annotation matrix."""
    inspect = _subcommand(
        commands, "inspect", help="density, coverage and overlaps of an annotation matrix"
    )
    _add_data_arguments(
        inspect,
        "a folder with the JSON pair, a CSV file (or .csv.gz), a JSON file of humans, "
        "or a real-data scenario",
    )
    inspect.add_argument("--group-separator", help="item id separator before the group name")
    inspect.add_argument(
        "--overlap-csv",
        metavar="FILE",
        help="also write the full K x K table of items labelled by both humans to FILE",
    )


CALIBRATE_METHODS = ("lr", "naive", "ppi", "ppi++", "strat-ppi", "all")
"""``simcore calibrate --method``: simcore.calibration.methods.METHODS and ``all`` (not
imported here, so that parsing the command line does not load SciPy; a test keeps them equal)."""


def _add_calibrate(commands):
    """Add ``calibrate``: a judge's TPR/TNR and its corrected production failure rate."""
    calibrate = _subcommand(
        commands, "calibrate", help="a judge's TPR/TNR and its corrected production failure rate"
    )
    source = calibrate.add_mutually_exclusive_group()  # one is needed unless --plan --se
    source.add_argument(
        "--table",
        metavar="CAUGHT,MISSED,FLAGGED,CLEARED",
        help="calibration counts: human-FAIL rows the judge failed, passed; human-PASS rows "
        "it failed, passed",
    )
    source.add_argument("--csv", help="CSV with one calibration row per item")
    source.add_argument("--card", help="a judge card (simcore card): its four counts")
    calibrate.add_argument("--human-column", default="human", help="CSV column of the truth")
    calibrate.add_argument("--judge-column", default="judge", help="CSV column of the judge")
    calibrate.add_argument("--fail-label", default="fail", help="CSV value meaning FAIL")
    calibrate.add_argument("--pass-label", default="pass", help="CSV value meaning PASS")
    calibrate.add_argument("--fails", type=int, help="production outputs the judge failed")
    calibrate.add_argument("--of", type=int, required=True, help="production outputs, N")
    calibrate.add_argument(
        "--confidence", type=float, default=0.95, help="two-sided confidence of the intervals"
    )
    calibrate.add_argument(
        "--youden-floor",
        type=float,
        default=0.15,
        help="refuse to correct when Se + Sp - 1 is below this (report the observed rate)",
    )
    calibrate.add_argument(
        "--method",
        choices=CALIBRATE_METHODS,
        default="lr",
        help="lr: Rogan-Gladen with the Lang-Reiczigel interval (the default report); naive, "
        "ppi, ppi++ (power-tuned), strat-ppi (strata = judge label), or all: each method's "
        "estimate and interval side by side, with its assumptions",
    )
    _add_calibrate_plan(calibrate)
    add_calibrate_card_options(calibrate)


def _add_calibrate_plan(calibrate):
    """Add ``calibrate --plan``: calibration labels needed per method for a target width."""
    plan = calibrate.add_argument_group("planning (--plan)")
    plan.add_argument(
        "--plan",
        action="store_true",
        help="instead of a report: the calibration labels each method needs for --half-width, "
        "from a pilot (--table/--csv, --fails, --of) or from --se --sp --theta --of",
    )
    plan.add_argument("--half-width", type=float, help="target half-width of the interval")
    plan.add_argument("--se", type=float, help="the judge's sensitivity (TPR), instead of a pilot")
    plan.add_argument("--sp", type=float, help="the judge's specificity (TNR), instead of a pilot")
    plan.add_argument("--theta", type=float, help="the failure rate, instead of a pilot")
    plan.add_argument(
        "--plan-trials", type=int, default=2000, help="simulated trials per calibration size"
    )


def _add_validate(commands):
    """Add ``validate``: a scenario file checked without running."""
    validate = _subcommand(commands, "validate", help="check a scenario file without running")
    validate.add_argument("scenario", help="scenario YAML file")
    validate.add_argument(
        "--set",
        dest="sets",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override any field before checking, as simcore run --set (repeatable)",
    )
