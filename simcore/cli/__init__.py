"""The ``simcore`` command line: one module per command, each with ``add`` and ``run``.

Each command module (``run_command``, ``show_command``, ... :data:`COMMANDS`) has
``add(subparsers)``, which declares its arguments (from the declared options of
:mod:`simcore.command_options` and :mod:`simcore.advisor.advise_options` where the Python
function shares them), and ``run(args) -> int``. What they share (errors, exit codes, data
arguments, ``--json``) is :mod:`simcore.cli.common`. :func:`main` parses, runs the command,
and turns errors into one line and an exit status:

0 on success, 2 on bad input (the message names the file, the key and what was wrong;
nothing is written; also a file system that refuses a write: full, read-only, immutable or
vanished, :mod:`simcore.output_files`), 1 on an internal error, 3 when a judge command's
``--fail-if`` condition holds (after printing its result; :mod:`simcore.api.ci_gate`), 130
on Ctrl-C and 143 on SIGTERM at any moment, with one line (:mod:`simcore.interrupts`;
after ``run``, cells already finished stay in the store and a re-run resumes). Everything
heavy (numba, xarray, zarr, scipy, matplotlib, dask) is imported inside the command that
needs it, so ``simcore --help`` and a mistyped option answer at once.
"""

import errno
import importlib
import os
import sys
import traceback

from simcore import interrupts
from simcore._version import __version__
from simcore.cli.common import (
    EXIT_INTERNAL,
    EXIT_OK,
    EXIT_USAGE,
    Parser,
    UsageError,
)

__all__ = ["COMMANDS", "UsageError", "build_parser", "main", "parse_arguments"]

COMMANDS = (
    "run",
    "show",
    "plot",
    "plan",
    "tables",
    "advise",
    "inspect",
    "calibrate",
    "monitor",
    "settle",
    "validate",
    "verify",
    "wellposed",
    "card",
    "ceiling",
)
"""The commands, in the order ``simcore --help`` lists them; ``NAME`` is ``cli/NAME_command.py``."""


FILE_SYSTEM_FAULTS = frozenset(
    getattr(errno, name)
    for name in (
        *("ENOSPC", "EDQUOT", "EROFS", "EACCES", "EPERM", "ENOENT", "ENOTDIR", "EISDIR"),
        *("EIO", "ENAMETOOLONG", "EBUSY", "ETXTBSY", "ESTALE", "EEXIST", "ENOTEMPTY"),
    )
    if hasattr(errno, name)
)
"""The errors of the file system that end a command with exit 2 and one line (no traceback)."""


def command_module(name):
    """Return the module of command ``name``."""
    return importlib.import_module(f"simcore.cli.{name}_command")


def build_parser():
    """Return the ``simcore`` argument parser with every command."""
    parser = Parser(
        prog="simcore",
        description="Monte Carlo sweeps of the leave-one-out LLM-judge validation rule "
        "under sparse human overlap, and the tools to audit and calibrate a judge.",
    )
    parser.add_argument("--version", action="version", version=f"simcore {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    parser.subcommands = commands
    for name in COMMANDS:
        command_module(name).add(commands)
    return parser


def parse_arguments(argv=None):
    """Parse ``argv``; an unknown option exits 2 with its command's usage and a suggestion."""
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        parser.subcommands.choices[args.command].error(
            f"unrecognized arguments: {' '.join(unknown)}"
        )
    return args


def _bad_input_errors():
    """Return the exception types that mean bad input (exit 2)."""
    from simcore.calibration.errors import CalibrationInputError
    from simcore.output_files import OutputError
    from simcore.realdata.annotation import DataError
    from simcore.studies.config import ScenarioError
    from simcore.sweep.grid import SchedulerError
    from simcore.sweep.store import StoreError

    return (
        *(ScenarioError, StoreError, SchedulerError, UsageError, DataError),
        *(CalibrationInputError, OutputError),
    )


def main(argv=None):
    """Run the command line; return the exit status (an interrupt's: :mod:`simcore.interrupts`)."""
    args = parse_arguments(argv)
    return interrupts.guarded(_main, args, keeps_cells=args.command == "run")


def _main(args):
    """Run ``args.command``; return 0, 2 on bad input or 1 on an internal error."""
    bad_input = _bad_input_errors()
    try:
        status = command_module(args.command).run(args)
    except bad_input as error:
        from simcore.studies.config import ScenarioError

        text = (
            str(error) if isinstance(error, ScenarioError) else f"simcore {args.command}: {error}"
        )
        print(text, file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # the reader stopped early (`simcore show S | head`): fine
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except OSError as error:  # the file system refused: full, read-only, immutable, vanished
        if interrupts.caused_by_interrupt(error) or error.errno not in FILE_SYSTEM_FAULTS:
            return _internal_error(error)
        where = f"{error.filename}: " if error.filename else ""
        print(f"simcore {args.command}: {where}{error.strerror or error}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as error:  # an internal error: say so, with the traceback
        return _internal_error(error)
    return EXIT_OK if status is None else status


def _internal_error(error):
    """Print the traceback of an internal error and return 1 (an interrupt is re-raised)."""
    if interrupts.caused_by_interrupt(error):
        raise error  # Ctrl-C or SIGTERM, surfacing wrapped: interrupts.guarded reports it
    traceback.print_exc()
    print("simcore: internal error (please report it with the traceback above)", file=sys.stderr)
    return EXIT_INTERNAL
