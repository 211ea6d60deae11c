"""The result of a data command: its numbers, its text and its tables, in one typed object.

Every Python function of a command returns a subclass of :class:`CommandResult`, one per
document: :class:`InspectResult` (:func:`simcore.inspect`), :class:`AgreementResult`
(:func:`simcore.agreement`), :class:`CeilingResult` (:func:`simcore.ceiling`),
:class:`WellposedResult` (:func:`simcore.wellposed`), :class:`CardResult`
(:func:`simcore.card`), :class:`CardCheckResult` (:func:`simcore.card_check`),
:class:`CalibrationResult` (:func:`simcore.calibrate`; :class:`ClusteredCalibrationResult`
with ``cluster_column``), :class:`CalibrationPlanResult` (:func:`simcore.plan_calibration`)
:class:`MonitorResult` (:func:`simcore.monitor`) and :class:`SettleResult`
(:func:`simcore.settle`).

``to_dict()`` is the JSON document the command prints with ``--json`` (keys documented in
the command's docs page and stable), ``to_markdown()`` the text it prints without,
:meth:`~CommandResult.table` (or the attribute of the same name) a table of rows as a pandas
DataFrame, and :meth:`~CommandResult.summary` a short Markdown table of the scalar fields.
Each subclass declares, as class annotations, the top-level keys of its document a user
reads; each is then a read-only attribute of that type (``result.items``), served from the
document as ``to_dict()`` serves it (a copy). A result whose document lacks a declared key is
refused when it is made. Results render themselves, as statsmodels' ``HolderTuple`` does, so
a notebook shows the text.
"""

import copy
import inspect
import types
import typing
from typing import Any, ClassVar

from simcore.markdown_table import markdown_table

RESULT_NAMES = (
    "AgreementResult",
    "CalibrationPlanResult",
    "CalibrationResult",
    "CardCheckResult",
    "CardResult",
    "CeilingResult",
    "ClusteredCalibrationResult",
    "CommandResult",
    "InspectResult",
    "MonitorResult",
    "ScaleCalibrationResult",
    "SettleResult",
    "WellposedResult",
)
"""The result classes, each also ``simcore.api.NAME``."""

__all__ = ["RESULT_NAMES", *RESULT_NAMES, "plain_row"]

SCALAR_TYPES = (bool, int, float, str, type(None))
"""The types of a scalar field: one :meth:`CommandResult.summary` shows."""


def plain_row(row):
    """Return a mapping with NumPy scalars as plain Python numbers (JSON-ready), keys as text."""
    return {
        str(key): value.item() if hasattr(value, "item") else value for key, value in row.items()
    }


def _is_scalar(hint):
    """Return whether a field's type hint is a scalar type or a union of them."""
    union = typing.get_origin(hint) in (typing.Union, types.UnionType)
    return all(part in SCALAR_TYPES for part in (typing.get_args(hint) if union else (hint,)))


def _cell(value):
    """Return a scalar field's value as one table cell (a float to 6 significant digits)."""
    text = format(value, ".6g") if isinstance(value, float) else str(value)
    return text.replace("|", "\\|").replace("\n", " ")


class _DocumentField:
    """A declared field of a result: ``document[name]``, read-only (a copy, as ``to_dict()``)."""

    def __init__(self, name):
        self.name = name
        self.__doc__ = f"The document's ``{name}`` (read-only)."

    def __get__(self, result, owner=None):
        if result is None:
            return self
        return copy.deepcopy(result._document[self.name])

    def __set__(self, result, value):
        raise AttributeError(
            f"{type(result).__name__}.{self.name}: read-only, a field of the "
            f"{result.command} document (to_dict() gives a copy to change)"
        )

    def __delete__(self, result):
        self.__set__(result, None)


class CommandResult:
    """A command's result.

    Subclasses declare their document's fields as class annotations (``items: int``); each
    becomes a read-only attribute served from the document.

    Parameters
    ----------
    command : str
        The command that made it (``"ceiling"``).
    document : dict
        The numbers, JSON-ready (numbers, texts, lists, dicts, None); the ``--json`` output.
        It must hold every field the class declares.
    text : str
        What the command prints.
    tables : dict, optional
        ``{name: key}``: each table is the list of row mappings at ``document[key]`` (a
        tuple of keys reaches into nested mappings: ``document[k1][k2]``).

    Raises
    ------
    TypeError
        The document lacks a declared field, or a declared field is also a table's name.
    """

    _fields: ClassVar[dict[str, Any]] = {}
    """The declared fields, ``{name: type}``, the base classes' first."""

    def __init_subclass__(cls, **kwargs):
        """Collect the class's declared fields and serve each from the document."""
        super().__init_subclass__(**kwargs)
        own = [name for name in inspect.get_annotations(cls) if not name.startswith("_")]
        taken = sorted(name for name in own if name == "command" or hasattr(CommandResult, name))
        if taken:
            raise TypeError(
                f"{cls.__name__}: {', '.join(taken)}: already a name of every result; "
                "a field may not replace it"
            )
        hints = typing.get_type_hints(cls)
        cls._fields = {name: hint for name, hint in hints.items() if not name.startswith("_")}
        for name in own:
            setattr(cls, name, _DocumentField(name))

    def __init__(self, command, document, text, tables=None):
        self.command = command
        self._document = {"command": command, **document}
        self._text = text
        self._tables = dict(tables or {})
        missing = [name for name in self._fields if name not in self._document]
        if missing:
            raise TypeError(
                f"{type(self).__name__}: the {command} document lacks the declared field(s) "
                f"{', '.join(missing)} (its keys: {', '.join(self._document)})"
            )
        tabled = [name for name in self._fields if name in self._tables]
        if tabled:
            raise TypeError(
                f"{type(self).__name__}: {', '.join(tabled)}: declared as a field and as a "
                "table; a table is reached by its name"
            )

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON document (a copy: changing it changes nothing here)."""
        return copy.deepcopy(self._document)

    def to_markdown(self) -> str:
        """Return the text the command prints."""
        return self._text

    def summary(self) -> str:
        """Return a short Markdown table of the declared scalar fields, under the command.

        Returns
        -------
        str
            ``# COMMAND``, a blank line, then the table ``| field | value |`` with one row per
            declared field whose type is a number, a text, a bool or None (floats to 6
            significant digits), rendered by :func:`simcore.markdown_table.markdown_table`.
        """
        rows = [
            (name, _cell(self._document[name]))
            for name, hint in self._fields.items()
            if _is_scalar(hint)
        ]
        return "\n".join([f"# {self.command}", "", *markdown_table(("field", "value"), rows)])

    @property
    def tables(self) -> tuple[str, ...]:
        """The names of the tables :meth:`table` gives."""
        return tuple(self._tables)

    def table(self, name):
        """Return table ``name`` as a pandas DataFrame, one row per entry."""
        import pandas as pd

        if name not in self._tables:
            raise KeyError(f"{name!r}: no such table (tables: {', '.join(self._tables)})")
        key = self._tables[name]
        rows = self._document
        for part in key if isinstance(key, tuple) else (key,):
            rows = rows[part]
        return pd.DataFrame(rows)

    def __getattr__(self, name):
        tables = self.__dict__.get("_tables", {})
        if name in tables:
            return self.table(name)
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")

    def __getitem__(self, key):
        return self._document[key]

    def __repr__(self):
        return self._text

    def _repr_markdown_(self):
        return self._text


class InspectResult(CommandResult):
    """``simcore inspect``'s result (:func:`simcore.inspect`); tables ``humans``, ``groups``."""

    source: str
    items: int
    primary: str
    primary_labels_every_item: bool
    judges: list[str]
    labels: list[str]
    ordinal: bool
    scale: dict[str, Any]
    label_merges: list[dict[str, Any]]
    human_labels: int
    density: float
    humans_per_item: dict[str, float]
    shape: dict[str, Any]
    roles_note: str


class AgreementResult(CommandResult):
    """``simcore agreement``'s result (:func:`simcore.agreement`)."""

    source: str
    coefficient: str
    level: str
    weights: str
    raters: list[str]
    items: int
    pairable_items: int
    label_values: dict[str, float]
    values_from: str
    scale: dict[str, Any]
    agreement: float | None
    interval: dict[str, Any]


class CeilingResult(CommandResult):
    """``simcore ceiling``'s result (:func:`simcore.ceiling`); table ``groups``."""

    source: str
    shape: dict[str, Any]
    graded: bool | None
    coefficient: str | None
    scale: dict[str, Any]
    boot: int
    seed: int
    min_shared: int
    roles_note: str


class WellposedResult(CommandResult):
    """``simcore wellposed``'s result (:func:`simcore.wellposed`); table ``groups``."""

    source: str
    judges: list[str]
    labels: list[str]
    graded: bool | None
    coefficient: str | None
    scale: dict[str, Any]
    boot: int
    seed: int


class CardResult(CommandResult):
    """``simcore card``'s result (:func:`simcore.card`): the measured card and its scale."""

    card: dict[str, Any]
    scale: dict[str, Any]
    roles_note: str


class CardCheckResult(CommandResult):
    """``simcore card --check``'s result (:func:`simcore.card_check`); table ``rates``."""

    card: str
    judge: str
    criterion: str
    population: str
    n: int
    tied: int
    unparseable: int
    expires: str
    truth: dict[str, Any]
    verdict: str


class CalibrationResult(CommandResult):
    """``simcore calibrate``'s result (:func:`simcore.calibrate`); table ``methods``.

    The fields every calibration report holds; the report without clusters also holds
    ``youden_j``, ``naive_interval`` and ``calibration_share`` (``result["youden_j"]``).
    """

    calibration: dict[str, int]
    tpr: dict[str, float | None]
    tnr: dict[str, float | None]
    production: dict[str, Any]
    corrected: bool
    refusal: str
    estimate: float | None
    interval: dict[str, Any]
    truth: dict[str, Any]


class ScaleCalibrationResult(CommandResult):
    """``simcore calibrate --all-labels``'s result: the corrected distribution of true labels.

    Tables ``distribution`` (one row per label: the observed share, the corrected one and,
    against the latent truth, the majority gold's) and ``confusion`` (the judge's
    confusion matrix, one row per true label and answer).
    """

    truth: dict[str, Any]
    scale: dict[str, Any]
    separation: dict[str, Any]
    production: dict[str, Any]
    corrected: bool
    refusal: str


class ClusteredCalibrationResult(CalibrationResult):
    """``simcore calibrate --cluster-column``'s result: cluster-robust, with ``clusters``."""

    clusters: dict[str, Any]


class CalibrationPlanResult(CommandResult):
    """``simcore calibrate --plan``'s result (:func:`simcore.plan_calibration`).

    Tables ``methods`` and ``allocation``, and ``clusters`` for a plan in clusters.
    """

    se: float
    sp: float
    theta: float
    plan_theta: dict[str, Any]
    of: int
    half_width: float
    confidence: float
    trials: int
    seed: int


class MonitorResult(CommandResult):
    """``simcore monitor``'s result (:func:`simcore.monitor`); table ``looks``.

    With a card the document also holds ``alarm`` (``result["alarm"]``).
    """

    confidence: float
    sequence: str
    final: dict[str, Any]


class SettleResult(CommandResult):
    """``simcore settle``'s result (:func:`simcore.settle`); table ``judges``.

    The document also holds ``scale``, ``weighting`` and ``assumption``; a look's also
    ``record``, ``look``, ``new_look`` and ``next_round``, a replay's ``primary`` and
    ``replay`` (``result["look"]``).
    """

    source: str
    settings: dict[str, Any]
    scoring: str
    human_labels: int
