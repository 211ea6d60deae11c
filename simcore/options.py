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

import functools
import inspect
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

__all__ = [
    "DEFAULT",
    "LARGEST_COUNT",
    "Default",
    "Option",
    "check_values",
    "count_number",
    "count_value",
    "defaults",
    "did_you_mean",
    "finite_number",
    "flag_names",
    "given_values",
    "iso_date",
    "label_list",
    "number_value",
    "path_value",
    "plain_number",
    "plain_numbers",
    "shown_value",
    "suggests_keywords",
    "text_value",
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
        elif self.type in (list, tuple) and not _is_name_list(value):
            return f"must be a list of names (texts) (got type {type(value).__name__})"
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


def _is_name_list(value):
    """Whether ``value`` is a text or a list or tuple of texts and integers (not bools)."""
    if isinstance(value, str):
        return True
    return isinstance(value, list | tuple) and all(
        isinstance(plain_number(item), str | int) and not isinstance(plain_number(item), bool)
        for item in value
    )


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


class Default:
    """The value of a keyword left out: the option's declared default applies.

    The command functions (:mod:`simcore.api`) spell every option out as a keyword whose
    default is :data:`DEFAULT`, so the default itself is written once, in the option's
    declaration, for the command line, the function and the docs alike.
    """

    __slots__ = ()

    def __repr__(self):
        return "DEFAULT"

    def __reduce__(self):
        return "DEFAULT"


DEFAULT = Default()
"""The one :class:`Default`: "the declared default"."""


def given_values(arguments, options):
    """Return ``{name: value}`` of the declared ``options`` given in ``arguments``.

    ``arguments`` is a function's keywords (``locals()`` on entry); a keyword still at
    :data:`DEFAULT`, or not among ``options``, is left out.
    """
    names = {option.name for option in options}
    return {
        name: value for name, value in arguments.items() if name in names and value is not DEFAULT
    }


_P = ParamSpec("_P")
_R = TypeVar("_R")


def suggests_keywords(function: Callable[_P, _R]) -> Callable[_P, _R]:
    """Refuse an unknown keyword of a command function naming the nearest one.

    Python's own refusal says only that the keyword is unexpected; this one says, as the
    command line does, which keyword was meant (:func:`did_you_mean`) and lists the
    function's keywords. The signature is the function's own (``functools.wraps``).

    Raises
    ------
    TypeError
        ``NAME: unknown option 'boots'; did you mean 'boot'? (options: ...)``.
    """
    parameters = inspect.signature(function).parameters.values()
    accepted = {p.name for p in parameters if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)}
    names = [p.name for p in parameters if p.name in accepted and p.default is not p.empty]

    @functools.wraps(function)
    def checked(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        unknown = sorted(set(kwargs) - accepted)
        if unknown:
            raise TypeError(
                f"{function.__name__}: unknown option {unknown[0]!r}"
                f"{did_you_mean(unknown[0], names)} (options: {', '.join(names)})"
            )
        return function(*args, **kwargs)

    return checked


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
        ``{name: value}``; names not declared in ``options`` are not checked here. A NumPy
        scalar among them is replaced by its Python number (:func:`plain_number`).
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
        values[option.name] = plain_number(values[option.name])
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


# --------------------------------------------------------------------------- the Python face
# What the public functions take, checked where they take it: each raises TypeError or
# ValueError naming the keyword, the expected type and the value given.


def shown_value(value):
    """Return ``value`` as a message shows it: its type and a short repr on one line."""
    text = " ".join(repr(value).split())
    text = text if len(text) <= 60 else text[:57] + "..."
    return f"{type(value).__name__} {text}"


def plain_number(value):
    """Return a NumPy scalar (``numpy.int64(5)``, ``numpy.float32(0.5)``) as a Python number.

    Anything else is returned unchanged, so YAML and JSON dumps, ``isinstance(value, int)``
    checks and messages see plain numbers.
    """
    if type(value).__module__ == "numpy" and getattr(value, "ndim", None) == 0:
        return value.item()
    return value


def plain_numbers(values):
    """Return ``values`` (a mapping, list or tuple, nested) with :func:`plain_number` applied."""
    if isinstance(values, dict):
        return {key: plain_numbers(value) for key, value in values.items()}
    if isinstance(values, list | tuple):
        return type(values)(plain_numbers(value) for value in values)
    return plain_number(values)


def count_value(value, name, minimum=0):
    """Return ``value`` as a Python int: a count of ``minimum`` to :data:`LARGEST_COUNT`.

    A Python or NumPy integer is a count; a bool, a float (even ``6.0``), a text or anything
    else is not (say ``int(x)`` where a float holds a whole number).

    Raises
    ------
    TypeError
        ``NAME: must be an integer (a Python or NumPy int) (got float 6.0)``.
    ValueError
        Below ``minimum`` or above :data:`LARGEST_COUNT` (2**53: beyond it a float64, in
        which every rate is computed, no longer holds every integer).
    """
    import numbers

    value = plain_number(value)
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        hint = "; pass int(x)" if isinstance(value, float) and value.is_integer() else ""
        raise TypeError(
            f"{name}: must be an integer (a Python or NumPy int){hint} (got {shown_value(value)})"
        )
    value = int(value)
    if value < minimum:
        raise ValueError(f"{name}: must be an integer >= {minimum} (got {value})")
    if value > LARGEST_COUNT:
        raise ValueError(
            f"{name}: must be at most 2**53 = {LARGEST_COUNT} (beyond it a float64 does not "
            f"hold every integer) (got {str(value)[:40]})"
        )
    return value


def number_value(value, name, low, high, open_low=False):
    """Return ``value`` as a Python float in ``[low, high]`` (``(low, high]`` with ``open_low``).

    A Python or NumPy int or float is a number; a bool, a text or anything else is not, and
    NaN lies in no range.

    Raises
    ------
    TypeError
        ``NAME: must be a number in [0, 1] (got str '0.9')``.
    ValueError
        ``NAME: must be in [0, 1] (got 1.2)``.
    """
    value = plain_number(value)
    bounds = f"{'(' if open_low else '['}{low:g}, {high:g}]"
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{name}: must be a number in {bounds} (got {shown_value(value)})")
    if not (low < value if open_low else low <= value) or not value <= high:  # NaN: neither
        raise ValueError(f"{name}: must be in {bounds} (got {value})")
    return float(value)


def path_value(value, name, optional=False):
    """Return ``value`` when it is a path (``str`` or ``os.PathLike``), else raise TypeError.

    ``optional``: ``None`` is returned unchanged.

    Raises
    ------
    TypeError
        ``NAME: must be a path (str or pathlib.Path) (got dict {...})``.
    ValueError
        An empty text, or one holding a NUL character (no file has such a name).
    """
    import os

    if value is None and optional:
        return None
    if not isinstance(value, str | os.PathLike):
        raise TypeError(f"{name}: must be a path (str or pathlib.Path) (got {shown_value(value)})")
    text = os.fspath(value)
    if not isinstance(text, str) or not text or "\x00" in text:
        raise ValueError(f"{name}: must be a file's path, not empty and without NUL (got {text!r})")
    return value


def text_value(value, name, optional=False):
    """Return ``value`` when it is a non-empty text, else raise TypeError or ValueError.

    ``optional``: ``None`` is returned unchanged.
    """
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise TypeError(f"{name}: must be a text (str) (got {shown_value(value)})")
    if not value.strip():
        raise ValueError(f"{name}: must be a non-empty text (got {value!r})")
    return value
