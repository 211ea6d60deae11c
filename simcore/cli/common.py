"""What every command of the command line shares: errors, exit codes, parsers, data options.

Exit status: :data:`EXIT_OK` on success, :data:`EXIT_USAGE` (2) on bad input (the message
names the file, the key and what was wrong; nothing is written), :data:`EXIT_INTERNAL` (1)
on an internal error, :data:`EXIT_GATE` (3) when a judge command's ``--fail-if`` condition
holds (:mod:`simcore.api.ci_gate`; the result is printed first, as without it); an interrupt
ends with 130 (Ctrl-C) or 143 (SIGTERM) and one line, :mod:`simcore.interrupts`.

The data options (``DATA``, ``--humans``, ``--judges``, ``--judges-file``,
``--group-separator`` and the CSV column options) are added by :func:`add_data_arguments`
and turned into the one reader's keywords by :func:`data_keywords`, so every command that
reads annotations reads, names and refuses them the same way. Rater names and labels are
stripped of surrounding spaces everywhere (``--judges "a, b"`` is ``a`` and ``b``).
Nothing heavy is imported here, so ``simcore --help`` answers at once.
"""

import argparse
import json
import sys

from simcore.options import did_you_mean

EXIT_OK = 0
EXIT_INTERNAL = 1
EXIT_USAGE = 2
EXIT_GATE = 3

COLUMN_OPTIONS = ("item", "rater", "label", "group")
"""CSV columns that ``--<name>-column`` names."""


class UsageError(ValueError):
    """Bad command-line input (exit status 2)."""


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Defaults shown after each help text; the examples epilog kept as written."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors suggest the nearest valid command or option."""

    def error(self, message):
        """Exit 2 with ``message``, plus "did you mean" for an unknown command or option.

        A refused option value is one line, ``PROG: --option: what is wrong (got VALUE)``,
        as every other bad input; other usage errors print the usage above the message.
        """
        if message.startswith("argument --") and "invalid choice: " not in message:
            self.exit(2, f"{self.prog}: {message.removeprefix('argument ')}\n")
        if "invalid choice: " in message:
            wrong = message.split("invalid choice: ", 1)[1].split(" (choose", 1)[0].strip("'")
            choices = message.rsplit("(choose from ", 1)[-1].rstrip(")").replace("'", "")
            message += did_you_mean(wrong, [part.strip() for part in choices.split(",")])
        elif message.startswith("unrecognized arguments: "):
            wrong = message.split(": ", 1)[1].split()[0].split("=")[0]
            message += did_you_mean(wrong, self._option_string_actions)
        super().error(message)


def subcommand(commands, name, help, examples, description=None):
    """Add subcommand ``name`` to ``commands``; its ``--help`` ends with ``examples``.

    ``examples`` are command lines (two or three), shown under "examples:".
    """
    epilog = "examples:\n" + "\n".join(f"  {line}" for line in examples)
    return commands.add_parser(
        name,
        help=help,
        description=description or help[0].upper() + help[1:] + ".",
        epilog=epilog,
        formatter_class=HelpFormatter,
    )


def add_json(parser):
    """Add ``--json``: print one JSON document with the result's numbers instead of text."""
    parser.add_argument(
        "--json",
        action="store_true",
        help="print the result as one JSON document (the Python result's to_dict()) instead "
        "of text",
    )


def json_text(document):
    """Return ``document`` as the text of one JSON document (NaN written as null)."""
    return json.dumps(_finite(document), indent=2, ensure_ascii=False) + "\n"


def print_json(document):
    """Print ``document`` as one JSON document (NaN written as null)."""
    print(json_text(document), end="")


def print_result(result, as_json):
    """Print a command's result as its JSON document (``--json``) or its text; return 0."""
    if as_json:
        print_json(result.to_dict())
    else:
        print(result.to_markdown())
    return 0


def _finite(value):
    """Return ``value`` with every float NaN or infinity replaced by None (valid JSON)."""
    if isinstance(value, float):
        return value if value == value and abs(value) != float("inf") else None
    if isinstance(value, dict):
        return {str(key): _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    return value


def add_data_arguments(
    parser, data_help, judges_help=None, groups=True, columns=False, positional=True
):
    """Add the annotation data's arguments: DATA, its humans and judges, groups, CSV columns."""
    if positional:
        parser.add_argument("data", help=data_help)
    parser.add_argument(
        "--humans",
        help="comma-separated human ids, primary first (CSV: default every rater not in --judges)",
    )
    parser.add_argument(
        "--judges",
        help=judges_help
        or "comma-separated judge names (a CSV does not say which raters are judges: name "
        "them; default none, a human-only matrix)",
    )
    parser.add_argument(
        "--judges-file",
        metavar="PATH",
        help="judge labels in a separate file: long CSV item,rater,label, JSON "
        "{judge: {item: label}}, or an Inspect AI log or MLflow store (its judges)",
    )
    parser.add_argument(
        "--slots",
        action="store_true",
        help="the human columns are label positions (slot 1 holds each item's first label, "
        "...), not people, as in a crowd export with one column per answer",
    )
    parser.add_argument(
        "--label-order",
        metavar="A,B,...",
        help="the labels in their order, lowest first: declares text labels a rating scale "
        "(ordinal alpha and weights need an order; numbers carry their own)",
    )
    parser.add_argument(
        "--merge-label-variants",
        action="store_true",
        help="merge labels that differ only in case or surrounding spaces ('Yes', 'yes') "
        "into their most frequent spelling (ties: the first in sorted order); without it "
        "such labels are refused",
    )
    if groups:
        parser.add_argument(
            "--group-separator",
            help="JSON input: an item's group is the text after the last separator in its "
            "id (CSV: a group column)",
        )
    if columns:
        for name in COLUMN_OPTIONS:
            parser.add_argument(
                f"--{name}-column", metavar="NAME", help=f"CSV: the {name} column's header name"
            )


def data_keywords(args):
    """Return the one reader's keywords from the data arguments of ``args``.

    ``{"humans", "judges", "judges_file", "group_separator", "label_order", "columns",
    "slots", "merge_label_variants"}``, each only when
    given (see :func:`simcore.realdata.read_annotations`).
    """
    keywords = {
        "humans": getattr(args, "humans", None),  # texts: the reader splits and strips them
        "judges": getattr(args, "judges", None),
        "judges_file": getattr(args, "judges_file", None),
        "group_separator": getattr(args, "group_separator", None),
        "label_order": getattr(args, "label_order", None),
    }
    if getattr(args, "slots", False):
        keywords["slots"] = True
    if getattr(args, "merge_label_variants", False):
        keywords["merge_label_variants"] = True
    columns = {name: getattr(args, f"{name}_column", None) for name in COLUMN_OPTIONS}
    columns = {name: value for name, value in columns.items() if value}
    if columns:
        keywords["columns"] = columns
    return {key: value for key, value in keywords.items() if value is not None}


class _Renamed(argparse.Action):
    """A retired flag: using it exits 2 with one line naming the flag that replaced it."""

    def __call__(self, parser, namespace, values, option_string=None):
        parser.exit(EXIT_USAGE, f"{parser.prog}: {self.help_text}\n")


def add_renamed(parser, flag, message):
    """Register the retired ``flag`` on ``parser``: it exits 2 with ``message``, not in --help.

    ``message`` names the new flag, e.g. ``"--judge is now --audit (the judge to audit)"``;
    the flag takes an optional value so that ``--judge NAME`` reaches the message too.
    """
    action = parser.add_argument(
        flag, nargs="?", action=_Renamed, default=argparse.SUPPRESS, help=argparse.SUPPRESS
    )
    action.help_text = message


def add_scale_arguments(parser, graded_help):
    """Add ``--graded`` / ``--categorical`` (``args.graded``: True, False or None = detect)."""
    scale = parser.add_mutually_exclusive_group()
    scale.add_argument(
        "--graded", dest="graded", action="store_const", const=True, help=graded_help
    )
    scale.add_argument(
        "--categorical", dest="graded", action="store_const", const=False, help="Cohen's kappa"
    )


def add_overwrite(parser, what="the output files"):
    """Add ``--overwrite``: replace ``what`` even when they are not simcore's own.

    Without it, a command replaces only files it recognises as its own earlier output
    (:mod:`simcore.output_files`); with it, any regular file, but never a symbolic link.
    """
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help=f"replace {what} even when they are not simcore's own (never through a symbolic link)",
    )


def checked_outputs(args, *outputs):
    """Check each ``(path, option, kind)`` output file before any work (OutputError, exit 2).

    ``kind`` is one of :data:`simcore.output_files.KINDS`; ``args.overwrite`` lets any
    regular file be replaced.
    """
    from simcore.output_files import check_output_file

    for path, option, kind in outputs:
        if path:
            check_output_file(path, option, kind, overwrite=getattr(args, "overwrite", False))


def check_flags(values, options):
    """Check option values against their declarations, naming them by flag (UsageError)."""
    from simcore.options import check_values

    try:
        check_values(values, options, command_line=True)
    except ValueError as error:
        raise UsageError(str(error)) from None


def phase_printer(command):
    """Return a function printing ``simcore COMMAND [elapsed]: message`` on stderr."""
    import time

    start = time.monotonic()

    def say(message):
        print(f"simcore {command} [{time.monotonic() - start:5.1f}s]: {message}", file=sys.stderr)

    return say


def write_text(path, text):
    """Write ``text`` to ``path`` (UTF-8) atomically, creating its folder (OutputError)."""
    from simcore.output_files import write_text as write_atomically

    write_atomically(path, text)


def add_fail_if(parser, command):
    """Add ``--fail-if CONDITION`` (repeatable) with the conditions ``command`` reads."""
    from simcore.api.ci_gate import CONDITIONS

    parser.add_argument(
        "--fail-if",
        action="append",
        metavar="CONDITION",
        default=[],
        help=f"exit {EXIT_GATE} after printing when the condition holds (repeatable): "
        f"{', '.join(CONDITIONS[command])} (docs: the CI gate)",
    )
    if "card-expired" in CONDITIONS[command]:
        from simcore.options import iso_date

        parser.add_argument(
            "--today",
            type=iso_date,
            help="--fail-if card-expired: the date the card is used on (default today)",
        )


def fail_if_conditions(args, command):
    """Return the parsed ``--fail-if`` conditions of ``args`` (exit 2 on a bad one)."""
    from simcore.api.ci_gate import parse_conditions

    try:
        return parse_conditions(command, args.fail_if)
    except ValueError as error:
        raise UsageError(str(error)) from None


def gate_status(result, conditions, today=None):
    """Print why each condition holds (stderr); return :data:`EXIT_GATE` if any does, else 0.

    ``today`` is the date ``card-expired`` compares with (``--today``; default today).
    """
    if not conditions:
        return EXIT_OK
    from simcore.api.ci_gate import gate

    reasons = gate(result, conditions, today=today)
    for reason in reasons:
        print(f"simcore {result['command']}: --fail-if {reason}", file=sys.stderr)
    return EXIT_GATE if reasons else EXIT_OK
