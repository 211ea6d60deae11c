"""Labels read from an evaluation harness, and the one long table they make.

An evaluation harness (Inspect AI, MLflow) keeps a judge's labels and the humans' beside
each other, with their roles written down: a scorer's value or LLM_JUDGE feedback is a
judge's, a score edit by an author or HUMAN feedback is a human's. Each harness module reads
its source into :class:`HarnessLabels`, one :class:`HarnessLabel` per (item, rater), and
this module turns them into what every other input becomes: the long table
``{rater: {(item, group): label}}`` handed to the long-table loader, so a harness source and
the long CSV holding the same rows give the same matrix
(:func:`simcore.realdata.loaders.long_table_matrix`).

Labels are texts as a long CSV holds them: a text stripped, a number as Python writes it
(``1``, ``0.5``), a boolean as ``true`` / ``false``. A value that is no label (a list, a
mapping) is refused, and so is a scale that mixes kinds of values (texts with numbers,
numbers with booleans), naming the rater and values. Nothing is guessed: which raters are
humans is the source's, and ``humans`` / ``judges`` may only choose among them.
"""

from __future__ import annotations

import datetime
import math
from dataclasses import dataclass

from simcore.realdata.annotation import DataError, got_text

HUMAN = "human"
JUDGE = "judge"
"""The two roles a harness records."""


@dataclass(frozen=True)
class HarnessLabel:
    """One label read from a harness.

    Attributes
    ----------
    item : str
        The item's id in the source (an Inspect sample id, an MLflow trace id).
    group : str or None
        The item's group (an Inspect task, an MLflow assessment name) when the source holds
        more than one, else None.
    rater : str
        Who gave the label (a scorer or an edit's author; an assessment's source id).
    role : str
        :data:`HUMAN` or :data:`JUDGE`, as the source records it.
    label : str
        The label as text.
    moment : datetime.datetime
        When the label was given (UTC): the sample scored or the trace logged for a judge,
        the edit or the feedback for a human.
    via : str or None
        The scorer whose score holds the label (Inspect AI: a judge's own scorer, the
        scorer a human's edit changed); None where the source has no such thing.
    """

    item: str
    group: str | None
    rater: str
    role: str
    label: str
    moment: datetime.datetime
    via: str | None = None

    @property
    def day(self):
        """The UTC date the label was given."""
        return self.moment.date()


@dataclass(frozen=True)
class HarnessLabels:
    """Every label a harness source holds, with their roles.

    Attributes
    ----------
    source : str
        The source as given (a path or a tracking URI), for messages.
    kind : str
        What the source is, for messages (``an Inspect AI log``, ``an MLflow store``).
    labels : tuple of HarnessLabel
        One per (item, group, rater).
    raters : dict
        ``{rater: role}`` of every rater the source declares, labels or not (a scorer
        listed in a log whose samples it never scored).
    """

    source: str
    kind: str
    labels: tuple
    raters: dict

    def names(self, role):
        """Return the raters of ``role``, in the order the source declares them."""
        return [name for name, given in self.raters.items() if given == role]

    @property
    def has_groups(self):
        """Whether the labels carry groups (more than one task or assessment name)."""
        return any(label.group is not None for label in self.labels)

    def keyed(self, raters):
        """Return ``{rater: {(item, group): label}}`` of ``raters``, the long table's form.

        A human's labels are those they gave through the scorers of the judges in
        ``raters`` (all of them when ``raters`` holds no judge); one human giving an item
        two different labels through two of those scorers is refused.
        """
        table = {name: {} for name in raters}
        chosen = [label for label in self.labels if label.rater in table]
        judged = {label.via for label in chosen if label.role == JUDGE}
        through = judged or {label.via for label in chosen}
        problems = []
        for label in self.labels:
            if label.rater not in table or label.via not in through:
                continue
            given = table[label.rater].setdefault((label.item, label.group), label.label)
            if given != label.label:
                problems.append(
                    f"{self.source}: label: {label.rater} gives item {got_text(label.item)} "
                    f"two labels ({got_text(given)} and {got_text(label.label)}) through the "
                    f"scorers read; name the judges whose scores they edited with --judges "
                    f"(got {got_text(label.label)})"
                )
        if problems:
            raise DataError(problems)
        return table

    def of_rater(self, rater):
        """Return the labels of ``rater``, in item order (group, then item id)."""
        chosen = [label for label in self.labels if label.rater == rater]
        return sorted(chosen, key=lambda label: (label.group or "", label.item))


def label_text(value):
    """Return ``(kind, text)`` of one harness value, or ``(None, None)`` for no label.

    ``kind`` is ``"text"``, ``"number"`` or ``"boolean"``; None and a NaN (Inspect's
    unscored sentinel) are no label.

    Raises
    ------
    ValueError
        A value that is no label (a list, a mapping, an empty text, an infinity), with the
        reason.
    """
    if value is None or isinstance(value, float) and math.isnan(value):
        return None, None
    if isinstance(value, bool):
        return "boolean", "true" if value else "false"
    if isinstance(value, int):
        return "number", str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("a label must be a finite number")
        return "number", str(value)
    if isinstance(value, str):
        if not value.strip():
            raise ValueError("a label must not be empty")
        return "text", value.strip()
    raise ValueError("a label must be a text, a number or a boolean")


class LabelCollector:
    """Collect a source's labels, refusing a conflict or a scale of mixed kinds.

    ``add`` takes one raw value; ``labels`` returns the :class:`HarnessLabels`, or raises
    :class:`DataError` with every problem found (each naming the source, the key and the
    value).
    """

    def __init__(self, source, kind):
        self.source, self.kind = str(source), kind
        self.raters = {}
        self.problems = []
        self._labels = {}
        self._kinds = {}

    def declare(self, rater, role, where):
        """Declare ``rater`` with ``role``; refuse a name recorded in both roles."""
        known = self.raters.setdefault(rater, role)
        if known != role and (rater, "roles") not in self._kinds:
            self._kinds[(rater, "roles")] = None
            self.problems.append(
                f"{where}: rater: {got_text(rater)} is both a human and a judge in "
                f"{self.source}; a rater has one role (got {got_text(rater)})"
            )

    def add(self, item, group, rater, role, value, moment, where, via=None):  # noqa: PLR0913
        """Add ``rater``'s ``value`` on ``(item, group)``; ``where`` names it in messages."""
        self.declare(rater, role, where)
        try:
            kind, text = label_text(value)
        except ValueError as error:
            self.problems.append(f"{where}: label: {error} (got {got_text(value)})")
            return
        if text is None:
            return
        first = self._kinds.setdefault(group, (kind, rater, text))
        if first[0] != kind and (group, "mixed") not in self._kinds:
            self._kinds[(group, "mixed")] = None
            self.problems.append(
                f"{where}: label: mixed label types: {first[1]} gives the {first[0]} "
                f"{got_text(first[2])} and {rater} the {kind} {got_text(text)}; one scale "
                f"holds one kind of value (got {got_text(value)})"
            )
        key = (item, group, rater, via)
        known = self._labels.get(key)
        if known is not None and known.label != text:
            self.problems.append(
                f"{where}: label: {rater} labels item {got_text(item)} twice, differently "
                f"({got_text(known.label)} and {got_text(text)}); a rater labels an item "
                f"once (read one log of a task run twice) (got {got_text(text)})"
            )
            return
        self._labels[key] = HarnessLabel(item, group, rater, role, text, moment, via)

    def labels(self, grouped):
        """Return the :class:`HarnessLabels` (groups kept only when ``grouped``)."""
        if self.problems:
            raise DataError(self.problems)
        labels = tuple(
            label if grouped else HarnessLabel(*_without_group(label))
            for label in self._labels.values()
        )
        return HarnessLabels(self.source, self.kind, labels, dict(self.raters))


def _without_group(label):
    return label.item, None, label.rater, label.role, label.label, label.moment, label.via


def moment_of(moment):
    """Return a UTC datetime of a datetime or ISO text (naive taken as UTC) or epoch ms.

    None, or a text that is no ISO date and time, gives None.
    """
    if moment is None:
        return None
    if isinstance(moment, str):
        try:
            moment = datetime.datetime.fromisoformat(moment)
        except ValueError:
            return None
    if isinstance(moment, int | float):
        return datetime.datetime.fromtimestamp(moment / 1000, datetime.UTC)
    if moment.tzinfo is None:
        return moment.replace(tzinfo=datetime.UTC)
    return moment.astimezone(datetime.UTC)


def need_extra(module, extra, source, kind):
    """Import ``module`` of the optional ``extra``, or refuse naming the ``pip install`` line.

    Raises
    ------
    DataError
        ``SOURCE: EXTRA: reading KIND needs the optional EXTRA extra: pip install
        'simcore[EXTRA]' (got no module MODULE)`` (exit 2 on the command line).
    """
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise DataError(
            [
                f"{source}: {extra}: reading {kind} needs the optional {extra} extra: "
                f"pip install 'simcore[{extra}]' (got no module {module})"
            ]
        ) from None
