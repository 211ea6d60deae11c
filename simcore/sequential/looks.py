"""The record of the looks already taken: which labels each look read, kept in one JSON file.

A sequential verdict's error rate holds under the looks it took only if every look is read
again as it was: the record keeps, for each look, the cells (``item, rater, label``, humans
and judges) that were new at that look, and the settings fixed at the first look. Reading
the data again rebuilds the matrix as each look saw it (:func:`look_snapshots`); a run whose
data holds new cells is a new look, appended (:func:`with_new_look`); a run with no new
cell reads the last look again and appends nothing.

The record refuses (a :class:`~simcore.realdata.annotation.DataError`, exit 2, one line
naming the file, the key and the value) a recorded label the data no longer holds or holds
changed (a look's evidence cannot be rewritten), other settings than the recorded ones, and
other humans or judges: each would void the error rate the record is kept for.

The file::

    {"kind": "simcore look record", "version": 1,
     "settings": {"rule": ..., "epsilon": ..., "alpha": ..., "tau": ...},
     "scoring": "exact match", "humans": [...], "judges": [...],
     "looks": [{"look": 1, "human_labels": 120, "verdicts": {"judge": "open"},
                "cells": [["item", "rater", "label"], ...]}, ...]}
"""

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from simcore.realdata.annotation import DataError, got_text

RECORD_KIND = "simcore look record"
"""The ``kind`` of a look record (how simcore recognises its own file)."""

RECORD_VERSION = 1
"""The record's format version."""

SCORING = "exact match"
"""How two labels are scored: agree when equal (observed agreement)."""


@dataclass(frozen=True)
class Look:
    """One look: the cells new at it, the human labels read in all, the verdicts read."""

    number: int
    cells: tuple
    human_labels: int
    verdicts: dict

    def to_dict(self):
        """Return the look as the record stores it."""
        return {
            "look": self.number,
            "human_labels": self.human_labels,
            "verdicts": dict(self.verdicts),
            "cells": [list(cell) for cell in self.cells],
        }


@dataclass(frozen=True)
class LookRecord:
    """The settings, raters and looks of one sequential validation (module docstring)."""

    settings: dict
    humans: tuple
    judges: tuple
    looks: tuple = ()

    def to_dict(self):
        """Return the record as its JSON document."""
        return {
            "kind": RECORD_KIND,
            "version": RECORD_VERSION,
            "settings": dict(self.settings),
            "scoring": SCORING,
            "humans": list(self.humans),
            "judges": list(self.judges),
            "looks": [look.to_dict() for look in self.looks],
        }


def matrix_cells(matrix):
    """Return every labelled cell of ``matrix`` as ``{(item, rater): label}`` (texts)."""
    cells = {}
    rows, columns = np.nonzero(matrix.human_labels >= 0)
    for row, column in zip(rows.tolist(), columns.tolist(), strict=True):
        label = matrix.labels[matrix.human_labels[row, column]]
        cells[(matrix.items[row], matrix.humans[column])] = label
    for column, judge in enumerate(matrix.judges):
        for row, code in enumerate(matrix.judge_labels[:, column].tolist()):
            cells[(matrix.items[row], judge)] = matrix.labels[code]
    return cells


def read_look_record(path):
    """Return the :class:`LookRecord` in ``path``, or None when there is no such file.

    Raises
    ------
    DataError
        The file is not a look record, or one of its keys holds a bad value.
    """
    path = Path(path)
    if not path.exists():
        return None
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise DataError([f"{path}: not a look record: not JSON ({error})"]) from None
    if not isinstance(document, dict) or document.get("kind") != RECORD_KIND:
        kind = document.get("kind") if isinstance(document, dict) else None
        raise DataError(
            [
                f"{path}: kind: must be {RECORD_KIND!r}, a file simcore settle wrote "
                f"(got {got_text(kind)})"
            ]
        )
    if document.get("version") != RECORD_VERSION:
        raise DataError(
            [
                f"{path}: version: this simcore reads version {RECORD_VERSION} "
                f"(got {got_text(document.get('version'))})"
            ]
        )
    looks = []
    for index, entry in enumerate(document.get("looks") or []):
        cells = entry.get("cells") if isinstance(entry, dict) else None
        if not isinstance(cells, list) or not all(
            isinstance(cell, list) and len(cell) == 3 for cell in cells
        ):
            raise DataError(
                [
                    f"{path}: looks[{index}].cells: must be a list of [item, rater, label] "
                    f"(got {got_text(cells)})"
                ]
            )
        looks.append(
            Look(
                number=index + 1,
                cells=tuple(tuple(str(value) for value in cell) for cell in cells),
                human_labels=int(entry.get("human_labels", 0)),
                verdicts=dict(entry.get("verdicts") or {}),
            )
        )
    return LookRecord(
        settings=dict(document.get("settings") or {}),
        humans=tuple(str(name) for name in document.get("humans") or ()),
        judges=tuple(str(name) for name in document.get("judges") or ()),
        looks=tuple(looks),
    )


def check_record(record, path, settings, matrix):
    """Refuse a record whose settings, raters or recorded labels the data contradicts.

    Returns
    -------
    dict
        The cells of ``matrix`` that no look has read yet, ``{(item, rater): label}``.
    """
    path = Path(path)
    asked = settings.to_dict()
    for key, value in asked.items():
        recorded = record.settings.get(key)
        if recorded != value:
            raise DataError(
                [
                    f"{path}: settings.{key}: the record's looks were read with {key} "
                    f"{got_text(recorded)}, this run asks {got_text(value)} (a sequential "
                    "verdict's error rate holds for settings fixed at the first look: pass the "
                    "recorded value, or start a new record)"
                ]
            )
    for name, recorded, now in (
        ("humans", record.humans, matrix.humans),
        ("judges", record.judges, matrix.judges),
    ):
        if tuple(recorded) != tuple(now):
            raise DataError(
                [
                    f"{path}: {name}: the record's looks read {got_text(list(recorded))}, the "
                    f"data now gives {got_text(list(now))} (pass --{name} as recorded, or start a "
                    "new record)"
                ]
            )
    current = matrix_cells(matrix)
    unseen = dict(current)
    for look in record.looks:
        for item, rater, label in look.cells:
            now = current.get((item, rater))
            if now != label:
                held = "no label" if now is None else f"label {now!r}"
                raise DataError(
                    [
                        f"{path}: looks[{look.number - 1}]: item {item!r}, rater {rater!r}: "
                        f"look {look.number} read label {label!r}, {matrix.source} now holds "
                        f"{held} (a look's labels may not change or disappear: restore them, "
                        "or start a new record)"
                    ]
                )
            unseen.pop((item, rater), None)
    return unseen


def look_snapshots(record, matrix, new_cells):
    """Return ``(T, n, K)`` human codes as each look saw them (the last is this run's).

    The looks are the record's, then this run's when ``new_cells`` is not empty; a look holds
    its cells and every earlier look's.
    """
    row = {item: index for index, item in enumerate(matrix.items)}
    column = {name: index for index, name in enumerate(matrix.humans)}
    code = {label: index for index, label in enumerate(matrix.labels)}
    batches = [look.cells for look in record.looks]
    if new_cells or not batches:
        batches.append(tuple((item, rater, label) for (item, rater), label in new_cells.items()))
    snapshots = np.full((len(batches), matrix.n_items, matrix.n_humans), -1, dtype=np.int16)
    current = np.full((matrix.n_items, matrix.n_humans), -1, dtype=np.int16)
    for index, cells in enumerate(batches):
        for item, rater, label in cells:
            if rater in column:
                current[row[item], column[rater]] = code[label]
        snapshots[index] = current
    return snapshots


def with_new_look(record, new_cells, human_labels, verdicts):
    """Return ``record`` with this run's look appended (unchanged without new cells)."""
    if not new_cells and record.looks:
        return record
    cells = tuple(sorted((item, rater, label) for (item, rater), label in new_cells.items()))
    look = Look(len(record.looks) + 1, cells, int(human_labels), dict(verdicts))
    return LookRecord(record.settings, record.humans, record.judges, (*record.looks, look))


def new_record(settings, matrix):
    """Return an empty record for ``settings`` and the raters of ``matrix``."""
    return LookRecord(settings.to_dict(), tuple(matrix.humans), tuple(matrix.judges))
