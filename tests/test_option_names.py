"""One meaning per name: a flag or keyword means the same thing in every command and function.

Renamed flags answer with exit 2 and one line naming the new flag (never in ``--help``);
renamed keywords raise ``TypeError`` naming the new one. Every flag that two commands
declare is listed in :data:`MEANINGS` with its one meaning, so a new shared flag is a
decision someone wrote down, and its kind of value (text, number, count, switch, list)
must agree across the commands unless :data:`KIND_DIFFERS` says why.
"""

import argparse
import collections
import json

import pandas as pd
import pytest

import simcore
from simcore.cli import build_parser, main
from simcore.planning import validation_items as plan

MEANINGS = {
    "--help": "show the command's help",
    "-h": "show the command's help",
    "--json": "print the result as one JSON document",
    "--quiet": "no progress lines",
    "--seed": "the root seed of the command's random draws",
    "--set": "override a scenario field KEY=VALUE",
    "--out": "where the command writes its main output",
    "--trials": "Monte Carlo trials the command simulates",
    "--target": "the largest acceptable wrong-decision rate (risk)",
    "--design": "the allocation design of the co-labelled items",
    "--confidence": "the confidence level of the intervals or bounds reported",
    "--alpha": "the significance level of a test or recipe",
    "--eps": "the tolerance eps of the leave-one-out rule",
    "--tau": "the share of comparisons that must favour the judge",
    "--rule": "the decision rule: the point comparison or the alternative annotator test",
    "--fail-if": "a condition on which a judge command exits 3 (the CI gate)",
    "--coefficient": "the agreement coefficient that scores a comparison",
    "--level": "Krippendorff's alpha's level of measurement",
    "--weights": "the agreement weights of a coefficient",
    "--graded": "ordered scores (Spearman)",
    "--categorical": "categories (Cohen's kappa)",
    "--boot": "bootstrap replicates over items",
    "--today": "the date a judge card is used on, for its expiry",
    "--truth": "what a judge's error is measured against: majority or latent",
    "--truth-model": "the humans' channel of the latent truth",
    "--criterion": "a group (criterion) of the data",
    "--humans": "the human raters' names",
    "--judges": "the judge raters' names",
    "--judges-file": "a file of judge labels",
    "--judge": "the one judge a card or a calibration is for",
    "--slots": "the human columns are label positions",
    "--label-order": "the labels in their order",
    "--merge-label-variants": "merge labels that differ only in case or spaces",
    "--group-separator": "the separator before an item id's group",
    "--item-column": "the item column's name",
    "--rater-column": "the rater column's name",
    "--label-column": "the label column's name",
    "--group-column": "the group column's name",
    "--judge-column": "the judge-label column's name",
    "--human-column": "the human-label column's name",
    "--fail-label": "the one label value meaning FAIL",
    "--pass-label": "the one label value meaning PASS",
    "--fail-labels": "the labels that mean FAIL",
    "--fail-at-most": "FAIL is a numeric label at most X",
    "--youden-floor": "the Youden index below which no correction is made",
    "--population": "the population a count or card comes from",
    "--production": "the production stream's file",
    "--card": "a judge card file",
    "--overwrite": "replace output files that are not simcore's own (never a symbolic link)",
    "--csv": "a CSV table (see KIND_DIFFERS)",
}
"""Every flag declared by two or more commands, with its one meaning."""

KIND_DIFFERS = {
    "--criterion": "one group in card and wellposed, repeatable in ceiling: the same group name",
    "--csv": "show prints the long table as CSV (a switch); wellposed and ceiling write a CSV "
    "file; calibrate reads its per-item calibration rows from one (an input, left as it is "
    "while calibrate's options are being reworked)",
}
"""Shared flags whose kind of value differs across commands, with the reason."""


def kind(action):
    """Return the kind of value an argparse action takes: switch, text, number, count, list."""
    if action.nargs == 0:
        return "switch"
    name = getattr(action.type, "__name__", None)
    value = {"float": "number", "finite_number": "number", "int": "count"}.get(name, "text")
    value = {"count_number": "count"}.get(name, value)
    repeated = isinstance(action, argparse._AppendAction) or action.nargs in ("+", "*")
    return f"list of {value}" if repeated else value


def declared_flags():
    """Return ``{flag: {command: action}}`` over every command, retired flags left out."""
    commands = build_parser().subcommands.choices
    flags = collections.defaultdict(dict)
    for name, parser in commands.items():
        for action in parser._actions:
            if action.help == argparse.SUPPRESS:
                continue
            for flag in action.option_strings:
                flags[flag][name] = action
    return flags


def shared_flags():
    return {flag: uses for flag, uses in declared_flags().items() if len(uses) > 1}


def test_every_shared_flag_has_one_stated_meaning():
    shared = set(shared_flags())
    assert shared - set(MEANINGS) == set(), "shared flags without a stated meaning"
    assert set(MEANINGS) - shared == set(), "MEANINGS lists flags no longer shared"


def test_a_shared_flag_has_one_destination_and_one_kind_of_value():
    for flag, uses in shared_flags().items():
        assert len({action.dest for action in uses.values()}) == 1, flag
        kinds = {command: kind(action) for command, action in uses.items()}
        if flag not in KIND_DIFFERS:
            assert len(set(kinds.values())) == 1, (flag, kinds)


def test_counts_are_n_flags_where_the_name_is_a_list_elsewhere():
    flags = declared_flags()
    for flag in ("--humans", "--judges", "--labels"):
        kinds = {kind(action) for action in flags[flag].values()}
        assert "count" not in kinds, (flag, kinds)
    plan_flags = {flag for flag, uses in flags.items() if "plan" in uses}
    assert {"--n-humans", "--n-judges", "--n-labels", "--advantage"} <= plan_flags


def refusal(capsys, *argv):
    """Return the exit status and stderr of a command line that argparse may stop."""
    try:
        status = main(list(argv))
    except SystemExit as stop:
        status = stop.code
    return status, capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (
            ["advise", "data.csv", "--judge", "gpt-4o"],
            "simcore advise: --judge is now --audit (the judge to audit); --judges names who "
            "is a judge",
        ),
        (
            ["plan", "--humans", "3"],
            "simcore plan: --humans is now --n-humans (the number of humans K); --humans names "
            "the humans in the data commands",
        ),
        (["plan", "--rank", "--judges", "3", "--gap", "0.1"], "--judges is now --n-judges"),
        (["plan", "--labels", "5"], "--labels is now --n-labels"),
        (["monitor", "--production", "p.csv", "--audit", "a.csv"], "--audit is now --audit-file"),
        (["tables", "s.zarr", "--agreement", "a.zarr"], "--agreement is now --agreement-stores"),
    ],
)
def test_a_renamed_flag_exits_2_with_one_line_naming_the_new_one(capsys, argv, line):
    status, err = refusal(capsys, *argv)
    assert status == 2
    assert err.count("\n") == 1 and line in err and "usage:" not in err


def test_renamed_flags_are_not_in_the_help():
    commands = build_parser().subcommands.choices
    for command, flag in (("advise", "--judge "), ("plan", "--humans"), ("monitor", "--audit ")):
        assert flag not in commands[command].format_help(), (command, flag)
    assert "--audit NAME" in commands["advise"].format_help()
    assert "--n-humans" in commands["plan"].format_help()


def test_python_judge_keyword_is_refused_and_audit_listed():
    frame = pd.DataFrame({"item": ["a", "a"], "rater": ["h", "j"], "label": ["x", "x"]})
    with pytest.raises(TypeError, match=r"advise: unknown option 'judge'.*audit"):
        simcore.advise(frame, judges=["j"], judge="j")


def test_python_monitor_takes_the_audit_file_by_its_name(tmp_path):
    import inspect

    assert list(inspect.signature(simcore.monitor).parameters)[:2] == ["production", "audit_file"]


def test_the_advantage_is_the_margin_less_the_tolerance():
    common = (300, 4, 2, 0.85, 0.05, 0.5, "exact_m")
    as_good = plan.question_scenario(*common, advantage=0.0)
    assert as_good == plan.question_scenario(*common, margin=0.05)
    assert plan.question_scenario(*common, advantage=0.05)["model"]["margin"] == 0.1
    tolerant = plan.question_scenario(300, 4, 2, 0.85, 0.1, 0.5, "exact_m", advantage=-0.02)
    assert tolerant["model"]["margin"] == pytest.approx(0.08, abs=1e-15)
    with pytest.raises(ValueError, match="give one of advantage, margin and p_judge"):
        plan.question_scenario(*common, advantage=0.0, margin=0.05)


def plan_document(capsys, *flags):
    assert main(["plan", "--items", "300", "--json", *flags]) == 0
    return json.loads(capsys.readouterr().out)


def test_plan_advantage_0_is_the_old_margin_005_plan(capsys):
    by_advantage = plan_document(capsys, "--advantage", "0")
    by_margin = plan_document(capsys, "--margin", "0.05")
    assert by_advantage["answer"] == by_margin["answer"]
    answer = by_advantage["answer"]
    assert answer["advantage"] == pytest.approx(0, abs=1e-12)  # the population margin, computed
    assert answer["margin"] == pytest.approx(0.05, abs=1e-12)
    question = by_advantage["question"]
    assert question["advantage"] == 0 and question["margin"] == 0.05
    assert question["n_humans"] == 4 and question["n_labels"] == 2
    assert by_margin["question"]["advantage"] is None  # as given: the margin
    raw = plan.question_scenario(300, 4, 2, 0.85, 0.05, 0.5, "exact_m", advantage=0.0)
    text = plan.describe(plan.PlanAnswer(**answer), raw, 0.05, 0.95, 0.05)
    judge_line = text.splitlines()[1]
    assert judge_line.startswith(
        "judge: advantage S_j - S_h = +0.0000 (as good as the humans); signed margin "
        "S_j - S_h + eps = +0.0500 (p_judge 0.8500)"
    )


def test_the_advantage_in_words():
    assert plan.advantage_words(0.05) == "better than the humans"
    assert plan.advantage_words(0.0) == "as good as the humans"
    assert plan.advantage_words(-0.01) == "worse than the humans"
