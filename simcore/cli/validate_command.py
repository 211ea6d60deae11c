"""``simcore validate SCENARIO``: check a scenario file without running it."""

from simcore.cli.common import subcommand
from simcore.cli.run_command import add_sets

NAME = "validate"


def add(commands):
    """Add ``validate`` to the subparsers ``commands``."""
    validate = subcommand(
        commands,
        NAME,
        "check a scenario file without running",
        [
            "simcore validate scenarios/fig2.yaml",
            "simcore validate scenarios/fig2.yaml --set model.n_items=100000",
        ],
    )
    validate.add_argument("scenario", help="scenario YAML file")
    add_sets(validate, "override any field before checking, as simcore run --set (repeatable)")


def run(args):
    """Check the scenario and its memory needs; print what it would run."""
    from simcore import api
    from simcore.studies import study_of
    from simcore.sweep.memory import check_fits

    scenario = api.load_any(args.scenario, overrides=args.sets)
    study = study_of(scenario)
    check_fits(study, scenario, study.context(scenario))
    print(f"{args.scenario}: valid; {study.describe(scenario)}")
    return 0
