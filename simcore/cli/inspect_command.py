"""``simcore inspect DATA``: density, coverage and overlaps of an annotation matrix.

DATA is any input the one reader reads, or a ``kind: real`` scenario (its data block).
``--json`` prints :func:`simcore.inspect`'s document. ``--agreement COEF`` adds one agreement
coefficient over chosen raters with its interval (:func:`simcore.agreement`; ``--level``,
``--weights``, ``--raters``, ``--boot``, ``--seed``, ``--confidence``), under the key
``agreement`` of the JSON document.
"""

from pathlib import Path

from simcore.cli.common import (
    UsageError,
    add_data_arguments,
    add_json,
    add_overwrite,
    check_flags,
    checked_outputs,
    data_keywords,
    print_json,
    subcommand,
)
from simcore.command_options import AGREEMENT_COEFFICIENT, AGREEMENT_OPTIONS

NAME = "inspect"


def add(commands):
    """Add ``inspect`` to the subparsers ``commands``."""
    inspect = subcommand(
        commands,
        NAME,
        "density, coverage and overlaps of an annotation matrix",
        [
            "simcore inspect ../shared/data/alttest/summeval --group-separator __",
            "simcore inspect ratings.csv --judges gpt-4o --json",
            "simcore inspect stars.csv --agreement krippendorff_alpha --level ordinal",
        ],
    )
    add_data_arguments(
        inspect,
        "an alttest folder, a JSON file of humans, a long or wide CSV (or .csv.gz), an "
        "Inspect AI log (or folder of logs), an MLflow store (sqlite:///FILE, mlflow.db, "
        "mlruns), or a real-data scenario",
        columns=True,
    )
    inspect.add_argument(
        "--overlap-csv",
        metavar="FILE",
        help="also write the full K x K table of items labelled by both humans to FILE",
    )
    inspect.add_argument(
        "--agreement",
        metavar="COEF",
        choices=AGREEMENT_COEFFICIENT.choices,
        help="also report this agreement coefficient over the chosen raters: "
        + ", ".join(AGREEMENT_COEFFICIENT.choices),
    )
    for option in AGREEMENT_OPTIONS:
        option.add_to(inspect)
    add_overwrite(inspect, "--overlap-csv")
    add_json(inspect)


def run(args):
    """Describe the matrix (text or JSON); write the overlap table if asked."""
    from simcore.api import data as data_commands
    from simcore.realdata.describe import write_overlap_csv
    from simcore.realdata.readers import read_annotations, roles_note

    path = Path(args.data)
    checked_outputs(args, (args.overlap_csv, "--overlap-csv", "overlap-csv"))
    if path.suffix in (".yaml", ".yml"):
        matrix, note = _scenario_matrix(path), ""
    else:
        keywords = data_keywords(args)  # the text as given: a tracking URI is no path
        matrix = read_annotations(args.data, **keywords)
        note = roles_note(args.data, keywords)
    result = data_commands.inspect_matrix(matrix, note)
    document, text = result.to_dict(), result.to_markdown()
    settings = {option.name: getattr(args, option.name) for option in AGREEMENT_OPTIONS}
    if not args.agreement:
        given = [o.flag for o in AGREEMENT_OPTIONS if settings[o.name] != o.default]
        if given:
            raise UsageError(f"{', '.join(given)}: given without --agreement COEF")
    else:
        from simcore.realdata.agreement import agreement_document, agreement_text

        check_flags(settings, AGREEMENT_OPTIONS)
        found = agreement_document(matrix, {**settings, "coefficient": args.agreement})
        document["agreement"] = found
        text += "\n\n" + agreement_text(found)
    if args.json:
        print_json(document)
    else:
        print(text)
    if args.overlap_csv:
        write_overlap_csv(matrix, args.overlap_csv)
        if not args.json:
            print(f"overlap table ({matrix.n_humans} x {matrix.n_humans}): {args.overlap_csv}")
    return 0


def _scenario_matrix(path):
    """Return the matrix of a ``kind: real`` scenario's data block, judges or not."""
    from simcore.api import scenarios as api
    from simcore.realdata.matrix import DataError, load_data
    from simcore.studies.config import ScenarioError

    scenario = api.load_scenario(path)
    if getattr(scenario, "kind", None) != "real":
        raise UsageError(f"{path}: inspect reads the data of a kind: real scenario")
    try:
        return load_data(scenario.data, need_judges=False)
    except DataError as error:
        raise ScenarioError([f"{scenario.source}: data: {p}" for p in error.problems]) from None
