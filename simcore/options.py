"""Options declared once: type, default, range and help, for the command line and Python alike.

An :class:`Option` is one setting of a command (``epsilon`` of ``advise``, ``boot`` of
``ceiling``): its Python keyword, its command-line flag, its type, default, the values it may
take and its help text. The command line builds its ``argparse`` arguments from the
declarations (:meth:`Option.add_to`), the Python functions check their keywords with the same
declarations (:func:`check_values`), and the messages name the option as the caller wrote it:
``--eps: must be in [0, 1] (got 2.0)`` on the command line, ``epsilon: ...`` in Python.

This module imports nothing of simcore or beyond the standard library, so every layer may use
it (the layering test lists it beside the version string).
"""

import math
from dataclasses import dataclass
from typing import Any

__all__ = [
    "LARGEST_COUNT",
    "Option",
    "check_values",
    "count_number",
    "defaults",
    "did_you_mean",
    "finite_number",
    "flag_names",
    "iso_date",
    "label_list",
]

LARGEST_COUNT = 2**53
"""The largest count an option takes: beyond it a float64 no longer holds every integer."""


@dataclass(frozen=True)
class Option:
    """One declared setting of a command.

    Attributes
    ----------
    name : str
        The Python keyword (and ``argparse`` destination), e.g. ``"epsilon"``.
    flag : str
        The command-line flag, e.g. ``"--eps"``.
    type : type
        ``int``, ``float``, ``str`` or ``bool`` (a ``bool`` is a flag without a value).
    default : object
        The default, shared by the command line and the Python function.
    help : str
        What the option means (the command line's help text; the docs reference).
    choices : tuple, optional
        The values it may take.
    low, high : float, optional
        Inclusive bounds of a number (``None``: unbounded on that side).
    open_low, open_high : bool
        Whether ``low`` / ``high`` are excluded.
    allow_none : bool
        Whether ``None`` (not given) is a valid value besides the declared range.
    metavar : str, optional
        How the help names the value.
    parse : callable, optional
        How the command line turns the option's text into its value (an ``argparse``
        type, e.g. :func:`label_list`); default the declared type, or ``str``.
    """

    name: str
    flag: str
    type: type
    default: Any
    help: str
    choices: tuple | None = None
    low: float | None = None
    high: float | None = None
    open_low: bool = False
    open_high: bool = False
    allow_none: bool = False
    metavar: str | None = None
    parse: Any = None

    def range_text(self):
        """Return the rule the value must follow, e.g. ``must be in (0, 1)``."""
        if self.choices is not None:
            return f"must be one of {', '.join(str(choice) for choice in self.choices)}"
        if self.low is not None and self.high is not None:
            left = "(" if self.open_low else "["
            right = ")" if self.open_high else "]"
            return f"must be in {left}{self.low:g}, {self.high:g}{right}"
        if self.low is not None:
            return f"must be {'>' if self.open_low else '>='} {self.low:g}"
        if self.high is not None:
            return f"must be {'<' if self.open_high else '<='} {self.high:g}"
        return f"must be {'an integer' if self.type is int else 'a ' + self.type.__name__}"

    def problem(self, value):
        """Return what is wrong with ``value`` (None when it is valid)."""
        if value is None:
            return None if self.allow_none or self.default is None else self.range_text()
        if self.type is bool:
            return None if isinstance(value, bool) else "must be True or False"
        if self.type in (int, float):
            number_types = (int,) if self.type is int else (int, float)
            if isinstance(value, bool) or not isinstance(value, number_types):
                return (
                    self.range_text() if self.low is not None else f"must be a {self.type.__name__}"
                )
            if value != value:  # NaN
                return self.range_text()
            if self.type is float and not math.isfinite(value):
                bounded = self.low is not None and self.high is not None
                return self.range_text() + ("" if bounded else " and finite")
        elif self.type is str and not isinstance(value, str):
            return f"must be a text (got type {type(value).__name__})"
        elif self.type not in (object, tuple, list, str) and not isinstance(value, self.type):
            return f"must be a {self.type.__name__} (got type {type(value).__name__})"
        if self.choices is not None and value not in self.choices:
            return self.range_text()
        too_low = self.low is not None and (
            value <= self.low if self.open_low else value < self.low
        )
        too_high = self.high is not None and (
            value >= self.high if self.open_high else value > self.high
        )
        return self.range_text() if too_low or too_high else None

    def add_to(self, parser):
        """Add this option to an ``argparse`` parser (or argument group)."""
        if self.type is bool:
            parser.add_argument(self.flag, dest=self.name, action="store_true", help=self.help)
            return
        help_text = self.help
        if self.choices is not None:  # checked by check_values, for the same message as Python
            help_text += f" (one of {', '.join(str(choice) for choice in self.choices)})"
        kwargs = {"dest": self.name, "default": self.default, "help": help_text}
        if self.metavar is not None:
            kwargs["metavar"] = self.metavar
        parse = self.parse or (self.type if self.type in (int, float, str) else str)
        parser.add_argument(self.flag, type=parse, **kwargs)


def label_list(text):
    """Parse a comma-separated list of labels into a tuple of stripped, non-empty texts."""
    import argparse

    labels = tuple(part.strip() for part in text.split(","))
    if not all(labels):
        raise argparse.ArgumentTypeError(f"must be labels separated by commas (got {text!r})")
    return labels


def iso_date(text):
    """Parse ``text`` as a :class:`datetime.date`; argparse reports a bad one (exit 2)."""
    import argparse
    import datetime

    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a date YYYY-MM-DD (got {text!r})") from None


def finite_number(text):
    """Parse a command-line number that must be finite (an ``argparse`` type).

    Raises
    ------
    argparse.ArgumentTypeError
        For a text that is not a number, or NaN or an infinity: ``must be a finite number
        (got 'inf')``.
    """
    import argparse

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number (got {text!r})") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number (got {text!r})")
    return value


def count_number(text):
    """Parse a command-line count: an integer of at most :data:`LARGEST_COUNT` in size.

    Raises
    ------
    argparse.ArgumentTypeError
        For a text that is not an integer or one too large: ``must be an integer of at most
        2**53 in size (got '1000...')``, the value shortened to 40 characters.
    """
    import argparse

    shown = text if len(text) <= 40 else text[:37] + "..."
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer (got {shown!r})") from None
    if abs(value) > LARGEST_COUNT:
        raise argparse.ArgumentTypeError(
            f"must be an integer of at most 2**53 in size (got {shown!r})"
        )
    return value


def defaults(options):
    """Return ``{name: default}`` of declared ``options``."""
    return {option.name: option.default for option in options}


def flag_names(options):
    """Return ``{name: flag}`` of declared ``options`` (how the command line names them)."""
    return {option.name: option.flag for option in options}


def check_values(values, options, command_line=False):
    """Raise ``ValueError`` for the first of ``values`` that breaks its declaration.

    Parameters
    ----------
    values : dict
        ``{name: value}``; names not declared in ``options`` are not checked here.
    options : sequence of Option
        The declarations.
    command_line : bool
        Name the option by its flag (``--eps``) instead of its keyword (``epsilon``).

    Raises
    ------
    ValueError
        ``NAME: what is wrong (got VALUE)``.
    """
    for option in options:
        if option.name not in values:
            continue
        problem = option.problem(values[option.name])
        if problem:
            name = option.flag if command_line else option.name
            raise ValueError(f"{name}: {problem} (got {values[option.name]!r})")


def did_you_mean(word, valid):
    """Return ``"; did you mean 'X'?"`` for the valid name nearest ``word`` ("" when none is near).

    Nearness is :func:`difflib.get_close_matches`' ratio (at least 0.75), so a typo
    (``--trails`` for ``--trials``, ``n_item`` for ``n_items``) finds its name and an unrelated
    word (``columns`` among ``humans``, ``judges``) finds none.
    """
    import difflib

    names = [str(name) for name in valid]
    matches = difflib.get_close_matches(str(word), names, n=1, cutoff=0.75)
    return f"; did you mean {matches[0]!r}?" if matches else ""
