"""The ``simcore`` command line: run, show, plot, validate.

Exit status: 0 on success, 2 on bad input (the message names the file, the key and what
was wrong; nothing is written), 1 on an internal error, 130 when interrupted and 143 on
SIGTERM (cells already finished stay in the store and a re-run resumes).
"""

import os
import sys
import traceback
from pathlib import Path

from simcore import interrupts
from simcore.cli_card import command_card
from simcore.cli_ceiling import command_ceiling
from simcore.cli_parser import parse_arguments, rater_lists
from simcore.cli_wellposed import command_wellposed

# Everything else (numba, xarray, zarr, scipy, matplotlib, dask) is imported inside the
# command that needs it, so `simcore --help` and a mistyped option answer at once.

FIGURE_SUFFIXES = (".png", ".pdf", ".svg", ".jpg", ".jpeg", ".tif", ".tiff", ".eps", ".webp")
"""File types ``simcore plot`` writes (matplotlib's, by suffix)."""


class UsageError(ValueError):
    """Bad command-line input (exit status 2)."""


def _default_store(scenario, path):
    if scenario.output.store:
        return Path(scenario.output.store)
    return Path("results") / f"{scenario.name or Path(path).stem}.zarr"


def _command_run(args):
    from simcore import api, report
    from simcore.studies import study_of

    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers: must be >= 1 (got {args.workers})")
    scenario = api.load_any(args.scenario, overrides=args.sets, trials=args.trials, seed=args.seed)
    out = Path(args.out) if args.out else _default_store(scenario, args.scenario)
    cube = api.run(
        scenario,
        out=out,
        workers=args.workers,
        scheduler=args.scheduler,
        overwrite=args.overwrite,
        progress=not args.quiet,
    )
    written = study_of(scenario).write_outputs(scenario, cube)
    if not args.quiet:
        print(report.summary(cube))
        print(f"\nstore: {out}")
        for path in written:
            print(f"table: {path}")


def _open_finished(path):
    import xarray as xr

    from simcore.sweep.store import read_attrs

    attrs = read_attrs(path)
    if attrs is None:
        raise UsageError(f"{path}: no simcore store there")
    if not attrs.get("complete"):
        raise UsageError(
            f"{path}: the run is unfinished; re-run the same scenario into it to resume"
        )
    from simcore.sweep.store import damaged_cells

    try:
        cube = xr.open_zarr(str(path), chunks=None).load()  # small: no dask needed
    except Exception as error:  # a chunk that cannot be read or decoded
        raise UsageError(
            f"{path}: the store is damaged ({error}); re-run its scenario into "
            "it to recompute the damaged cells"
        ) from None
    damaged = damaged_cells(cube)
    if damaged:
        raise UsageError(
            f"{path}: cells {damaged[:5]} are damaged; re-run the store's "
            "scenario into it to recompute them"
        )
    return cube


def _command_show(args):
    from simcore import report

    print(report.summary(_open_finished(args.store)))


def _command_plot(args):
    import yaml

    from simcore.studies import study_for
    from simcore.studies.protocol import CubeError
    from simcore.sweep.files import checked_output_file

    cube = _open_finished(args.store)
    scenario = yaml.safe_load(cube.attrs.get("scenario", "")) or {}
    out = args.out or (scenario.get("output") or {}).get("figure")
    out = out or str(Path(args.store).with_suffix(".png"))
    if Path(out).suffix.lower() not in FIGURE_SUFFIXES:
        raise UsageError(
            f"--out {out}: a figure file ends in one of {', '.join(FIGURE_SUFFIXES)} "
            f"(got {Path(out).suffix or 'no suffix'})"
        )
    checked_output_file(out, "--out")
    try:
        study_for(cube.attrs.get("kind")).plot(cube, out, args.variable)
    except CubeError as error:
        raise UsageError(f"{args.store}: {error}") from None
    print(f"figure: {out}")


def _command_validate(args):
    from simcore import api
    from simcore.studies import study_of
    from simcore.sweep.memory import check_fits

    scenario = api.load_any(args.scenario, overrides=args.sets)
    study = study_of(scenario)
    check_fits(study, scenario, study.context(scenario))
    print(f"{args.scenario}: valid; {study.describe(scenario)}")


def _command_plan(args):
    from simcore import plan
    from simcore.model.generative import pair_agreement
    from simcore.model.recipes import ranking_items
    from simcore.studies.config import ScenarioError

    p_human = args.p_human if args.p_human is not None else 0.85
    if args.human_agreement is not None:
        try:
            p_human = plan.human_accuracy_from_agreement(args.human_agreement, args.labels)
        except ValueError as error:
            raise UsageError(f"--human-agreement: {error}") from None
    if args.rank:
        if args.judges is None or args.gap is None or args.judges < 2 or not args.gap > 0:
            raise UsageError(
                f"--rank needs --judges J >= 2 and --gap > 0 (got {args.judges}, {args.gap})"
            )
        p_judge = args.p_judge if args.p_judge is not None else p_human
        agreement = float(pair_agreement(p_judge, p_human, args.labels))
        sigma2 = agreement * (1 - agreement)
        m_rank = ranking_items(args.judges, args.gap, sigma2, args.alpha)
        print(
            f"ranking recipe: m_rank = {m_rank} items per secondary to order {args.judges} "
            f"judges whose agreement with the pool differs by at least {args.gap:g} "
            f"(alpha {args.alpha:g}; sigma0^2 = {sigma2:.4f}, the per-item variance of "
            f"[judge == r1] at p_judge {p_judge:g}).\nIt assumes equal variances and no "
            "covariance between the judges' scores (judges who err on the same items need "
            "fewer), and it does not simulate the rule."
        )
        if m_rank > args.items:
            print(
                f"That is more than the corpus's {args.items} items (--items): no validation "
                "on this corpus orders these judges at this gap; a larger corpus or a larger "
                "--gap is needed."
            )
        return
    margin = None
    if args.p_judge is None:
        margin = args.margin if args.margin is not None else 0.05
    raw = plan.question_scenario(
        args.items,
        args.humans,
        args.labels,
        p_human,
        args.epsilon,
        args.tau,
        args.design,
        margin=margin,
        p_judge=args.p_judge,
        seed=args.seed,
    )
    progress = None if args.quiet else _phase_printer("plan")
    try:
        result = plan.answer(
            raw, target=args.target, confidence=args.confidence, alpha=args.alpha, progress=progress
        )
    except ScenarioError as error:
        raise plan.with_option_names(error) from None
    print(plan.describe(result, raw, args.target, args.confidence, args.alpha))


def _command_advise(args):
    from simcore.advise import api
    from simcore.advise.groups import group_summary, write_group_outputs
    from simcore.sweep.files import checked_output_folder

    options = {
        "rule": args.rule,
        "epsilon": args.eps,
        "target": args.target,
        "budget": args.budget,
        "design": args.design,
        "trials": args.trials,
        "seed": args.seed,
        "model": args.model,
        "scale": args.scale,
        "min_pairs": args.min_pairs,
    }
    try:
        api.check_options(options, ADVISE_OPTION_NAMES)
    except ValueError as error:
        raise UsageError(str(error)) from None
    if args.group_separator is not None and not Path(args.data).is_dir():
        raise UsageError(
            f"--group-separator: only for an alttest folder; a CSV gives groups in a group "
            f"column (got {args.group_separator!r} with {args.data})"
        )
    checked_output_folder(args.out, "--out")  # before the minutes of computation
    try:
        advice = api.advise_each_group(
            args.data,
            humans=args.humans,
            judges=args.judges,
            judges_file=args.judges_file,
            audit=args.judge,
            ordinal=args.ordinal,
            group_separator=args.group_separator,
            pool_groups=args.pool_groups,
            progress=None if args.quiet else _phase_printer("advise"),
            **options,
        )
    except ValueError as error:  # DataError is one
        text = str(error)  # data errors name the file already; others get its name
        message = text if text.startswith(str(args.data)) else f"{args.data}: {text}"
        raise UsageError(message) from None
    out = write_group_outputs(advice, args.out)
    print(group_summary(advice))
    figures = (
        ["report.png"]
        if len(advice) == 1
        else [f"report_{n}.png" for n in range(1, len(advice) + 1)]
    )
    written = ", ".join(str(out / name) for name in ["report.md", *figures, "next_round.csv"])
    print(f"\nwritten: {written}")


ADVISE_OPTION_NAMES = {
    "epsilon": "--eps",
    "min_pairs": "--min-pairs",
    **{key: f"--{key}" for key in ("rule", "scale", "model", "target", "trials", "design")},
    "budget": "--budget",
}
"""The options of ``simcore advise`` by their names in :func:`simcore.advise.api.check_options`."""


def _phase_printer(command):
    """Return a function printing ``simcore COMMAND [elapsed]: message`` on stderr."""
    import time

    start = time.monotonic()

    def say(message):
        print(f"simcore {command} [{time.monotonic() - start:5.1f}s]: {message}", file=sys.stderr)

    return say


def _real_cubes(paths):
    """Open finished real-data stores; anything else is a usage error."""
    cubes = []
    for path in paths:
        cube = _open_finished(path)
        if cube.attrs.get("kind") != "real":
            raise UsageError(f"{path}: not a real-data store (kind {cube.attrs.get('kind')!r})")
        cubes.append(cube)
    return cubes


def _command_tables(args):
    from simcore.studies.real_paper import composition_table, variants_report
    from simcore.studies.real_tables import table2, table3

    cubes = _real_cubes(args.stores)
    outputs = []
    if args.variants:
        agreement = _real_cubes(args.agreement) if args.agreement else None
        outputs.append((variants_report(cubes, agreement), args.variants))
    if args.table3 or args.table2 or not args.variants:
        first = table3(cubes)
        if args.paper:
            first = (
                composition_table(_real_cubes(args.paper))
                + "\n## Every group as a matrix (SummEval's four dimensions as four matrices)\n\n"
                + first.replace("# Real matrices", "### Real matrices", 1)
            )
        outputs += [(first, args.table3), (table2(cubes), args.table2)]
    for text, out in outputs:
        print(text)
        if out:
            Path(out).parent.mkdir(parents=True, exist_ok=True)
            Path(out).write_text(text)
            print(f"table: {out}\n")


def _command_inspect(args):
    from simcore.realdata import matrix as realdata
    from simcore.sweep.files import checked_output_file

    path = Path(args.data)
    names = rater_lists(args)
    if args.overlap_csv:
        checked_output_file(args.overlap_csv, "--overlap-csv")
    try:
        if path.suffix in (".yaml", ".yml"):
            matrix = _scenario_matrix(path)
        else:
            matrix = realdata.load_ratings(
                path,
                group_separator=args.group_separator,
                judges_path=args.judges_file,
                **names,
            )
    except realdata.DataError as error:
        raise UsageError(str(error)) from None
    print(realdata.describe_matrix(matrix))
    if args.overlap_csv:
        realdata.write_overlap_csv(matrix, args.overlap_csv)
        print(f"overlap table ({matrix.n_humans} x {matrix.n_humans}): {args.overlap_csv}")


def _scenario_matrix(path):
    """Return the matrix of a ``kind: real`` scenario's data block, judges or not."""
    from simcore import api
    from simcore.realdata.matrix import DataError, load_data
    from simcore.studies.config import ScenarioError

    scenario = api.load_any(path)
    if getattr(scenario, "kind", None) != "real":
        raise UsageError(f"{path}: inspect reads the data of a kind: real scenario")
    try:
        return load_data(scenario.data, need_judges=False)
    except DataError as error:
        raise ScenarioError([f"{scenario.source}: data: {p}" for p in error.problems]) from None


def _calibration_table(args):
    """Return the calibration counts of ``--csv`` or ``--table`` (UsageError if bad)."""
    from simcore.calibration.command import CalibrationInputError, read_confusion_csv

    try:
        if args.card:
            from simcore.cli_card import calibrate_card_table

            return calibrate_card_table(args)
        if args.csv:
            return read_confusion_csv(
                args.csv, args.human_column, args.judge_column, args.fail_label, args.pass_label
            )
    except CalibrationInputError as error:
        raise UsageError(str(error)) from None
    parts = args.table.split(",")
    if len(parts) != 4 or not all(part.strip().isdigit() for part in parts):
        raise UsageError(
            f"--table: needs four non-negative counts CAUGHT,MISSED,FLAGGED,CLEARED "
            f"(got {args.table!r})"
        )
    return tuple(int(part) for part in parts)


def _command_calibrate(args):
    from simcore.calibration.command import CalibrationInputError, format_report

    piloted = args.table is not None or args.csv is not None or args.card is not None
    if args.plan:
        from simcore.calibration.plan import plan_report

        table = _calibration_table(args) if piloted else None
        try:
            print(plan_report(args, table))
        except CalibrationInputError as error:
            raise UsageError(str(error)) from None
        return
    if not piloted or args.fails is None:
        raise UsageError(
            "calibrate: --table, --csv or --card, and --fails, are required (or --plan)"
        )
    table = _calibration_table(args)
    if args.of < 1 or not 0 <= args.fails <= args.of:
        raise UsageError(f"--fails/--of: need 0 <= fails <= N, N >= 1 (got {args.fails}/{args.of})")
    if not 0 < args.confidence < 1:
        raise UsageError(f"--confidence: must be between 0 and 1 (got {args.confidence})")
    if args.method == "lr":
        print(format_report(table, args.fails, args.of, args.confidence, args.youden_floor))
        return
    from simcore.calibration.method_report import format_method_report

    print(
        format_method_report(
            table, args.fails, args.of, args.method, args.confidence, args.youden_floor
        )
    )


COMMANDS = {
    "run": _command_run,
    "show": _command_show,
    "plot": _command_plot,
    "validate": _command_validate,
    "plan": _command_plan,
    "tables": _command_tables,
    "inspect": _command_inspect,
    "calibrate": _command_calibrate,
    "advise": _command_advise,
    "wellposed": command_wellposed,
    "card": command_card,
    "ceiling": command_ceiling,
}


def main(argv=None):
    """Run the command line; return the exit status (an interrupt's: :mod:`simcore.interrupts`)."""
    args = parse_arguments(argv)
    return interrupts.guarded(_main, args, keeps_cells=args.command == "run")


def _main(args):
    """Run ``args.command``; return 0, 2 on bad input or 1 on an internal error."""
    from simcore.studies.config import ScenarioError
    from simcore.sweep.grid import SchedulerError
    from simcore.sweep.store import StoreError

    try:
        COMMANDS[args.command](args)
    except (ScenarioError, StoreError, SchedulerError, UsageError) as error:
        print(
            f"simcore {args.command}: {error}"
            if not isinstance(error, ScenarioError)
            else str(error),
            file=sys.stderr,
        )
        return 2
    except BrokenPipeError:  # the reader stopped early (`simcore show S | head`): fine
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as error:  # an internal error: say so, with the traceback
        if interrupts.caused_by_interrupt(error):
            raise  # Ctrl-C or SIGTERM, surfacing wrapped: interrupts.guarded reports it
        traceback.print_exc()
        print(
            "simcore: internal error (please report it with the traceback above)", file=sys.stderr
        )
        return 1
    return 0
