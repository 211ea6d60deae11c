"""``simcore validate SCENARIO``: check a scenario file and say what its run will cost."""

from simcore.cli.common import add_json, print_json, subcommand
from simcore.cli.run_command import add_sets

NAME = "validate"


def add(commands):
    """Add ``validate`` to the subparsers ``commands``."""
    validate = subcommand(
        commands,
        NAME,
        "check a scenario file without running it; say its expected time and store size",
        [
            "simcore validate scenarios/fig2.yaml",
            "simcore validate scenarios/fig2.yaml --set model.n_items=100000",
            "simcore validate scenarios/fig2.yaml --json",
        ],
    )
    validate.add_argument("scenario", help="scenario YAML file")
    add_sets(validate, "override any field before checking, as simcore run --set (repeatable)")
    add_json(validate)


def run(args):
    """Check the scenario and its memory needs; print what it would run and cost."""
    from simcore.api import scenarios as api
    from simcore.studies import study_of

    scenario = api.load_scenario(args.scenario, overrides=args.sets)
    estimate = api.estimate(scenario)
    description = study_of(scenario).describe(scenario)
    if args.json:
        print_json(
            {
                "command": NAME,
                "scenario": str(args.scenario),
                "valid": True,
                "description": description,
                "estimate": estimate.to_dict(),
            }
        )
        return 0
    print(f"{args.scenario}: valid; {description}")
    print(f"{args.scenario}: {estimate.text()}")
    return 0
