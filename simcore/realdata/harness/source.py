"""A harness source as simcore's inputs: the matrix, a judge's production, a dated stream.

:data:`HARNESSES` are the two harnesses read (Inspect AI logs, MLflow stores); the one
reader asks :func:`harness_for` whether a source is one. From the labels a harness module
reads (:class:`~simcore.realdata.harness.labels.HarnessLabels`):

- :func:`harness_matrix`: the annotation matrix, through the long-table loader, with the
  roles the source records; ``humans`` and ``judges`` only choose among them (and order the
  humans). A source without a judge is refused unless a judges file gives them.
- :func:`judge_table`: a harness source read as another matrix's judges file (the humans
  in a long CSV keyed by the source's item ids).
- :func:`judge_production`: one judge's labels on every item (``calibrate --production``).
- :func:`dated_labels`: one judge's, or the humans', labels with their days (``monitor``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from simcore.realdata.annotation import DataError, got_text, unknown_names
from simcore.realdata.harness.labels import HUMAN, JUDGE, need_extra


@dataclass(frozen=True)
class Harness:
    """One harness: its name, what its sources look like, and its two functions."""

    name: str
    description: str
    module: str

    def _module(self):
        import importlib

        return importlib.import_module(f"simcore.realdata.harness.{self.module}")

    @property
    def roles_text(self):
        """The line saying how this harness's roles are read, for every output that reads it."""
        return self._module().ROLES

    def can_open(self, source, columns=None):
        """Whether ``source`` is this harness's (no optional library imported)."""
        return self._module().can_open(source, columns)

    def read_labels(self, source):
        """Return the source's :class:`~simcore.realdata.harness.labels.HarnessLabels`.

        A command that reads one source twice (``calibrate --data S --production S``)
        reads it once: the last reads are kept while the files they came from are
        unchanged (same paths, sizes and modification times).
        """
        module = self._module()
        need_extra(module.LIBRARY, self.name, source, module.KIND)  # even for a kept read
        key = (self.name, str(source), _signature(module.source_path(source)))
        if key not in _LAST_READS:
            _LAST_READS[key] = module.read_labels(source)
            while len(_LAST_READS) > LAST_READS_KEPT:
                _LAST_READS.pop(next(iter(_LAST_READS)))
        return _LAST_READS[key]


LAST_READS_KEPT = 4
"""How many sources' labels stay in memory after a read."""

_LAST_READS: dict = {}


def _signature(path):
    """Return the (path, size, modification time) of every file at or under ``path``."""
    import os
    from pathlib import Path

    # a SQLite store's write-ahead log holds writes its file does not show yet
    files = sorted(path.rglob("*")) if path.is_dir() else [path, Path(f"{path}-wal")]
    signature = []
    for file in files:
        try:
            stat = os.stat(file)
        except OSError:
            continue
        signature.append((str(file), stat.st_size, stat.st_mtime_ns))
    return tuple(signature)


HARNESSES = (
    Harness(
        "inspect", "an Inspect AI eval log (.eval or .json) or a folder of them", "inspect_log"
    ),
    Harness(
        "mlflow",
        "an MLflow tracking store (sqlite:///FILE, an mlflow.db file or an mlruns folder)",
        "mlflow_store",
    ),
)
"""The harnesses, asked in this order."""


def harness_for(source: Any, columns=None) -> Harness | None:
    """Return the :class:`Harness` whose source ``source`` is, or None."""
    return next((h for h in HARNESSES if h.can_open(source, columns)), None)


def _chosen(table, given, role, key):
    """Return the raters of ``role`` that ``given`` names (all when None), refusing others."""
    declared = table.names(role)
    if given is None:
        return declared
    other = table.names(JUDGE if role == HUMAN else HUMAN)
    problems = []
    for name in given:
        if name in other:
            problems.append(
                f"{table.source}: {key}: {got_text(name)} is a "
                f"{'judge' if role == HUMAN else 'human'} in {table.kind}, which records "
                f"the roles; --{key} chooses among its {key} (got {got_text(name)})"
            )
    problems += unknown_names(
        [n for n in given if n not in other],
        declared,
        table.source,
        key,
        role,
        f"{role}s in {table.kind}",
    )
    if problems:
        raise DataError(problems)
    return list(given)


def harness_matrix(table, humans=None, judges=None, labels=None, ordinal=False, judges_file=None):
    """Return the :class:`~simcore.realdata.annotation.AnnotationMatrix` of ``table``.

    Parameters
    ----------
    table : HarnessLabels
        The source's labels and roles.
    humans, judges : list of str, optional
        Which of the source's humans (primary first) and judges to read; default all of
        them, the humans most labels first as for a long CSV.
    labels, ordinal : optional
        Declared labels and order, as for every reader.
    judges_file : str or pathlib.Path, optional
        Judges from another file; then the source gives the humans only.

    Raises
    ------
    DataError
        A name in the other role or not in the source, a source without judges (and no
        judges file), a judge with no label, and every problem of the long-table loader.
    """
    from simcore.realdata.loaders import long_table_matrix

    human_names = _chosen(table, humans, HUMAN, "humans")
    problems = []
    if judges_file is None:
        judge_names = _chosen(table, judges, JUDGE, "judges")
        if not judge_names:
            raise DataError(
                [
                    f"{table.source}: judges: no judge's labels in {table.kind} (no "
                    f"{'scorer' if 'Inspect' in table.kind else 'LLM_JUDGE feedback'}); "
                    f"give the judges' labels with --judges-file (got humans "
                    f"{got_text(human_names)})"
                ]
            )
        keyed = table.keyed([*human_names, *judge_names])
        if humans is None:  # a human whose edits are all of scorers not read gives no label
            keyed = {name: given for name, given in keyed.items() if given or name in judge_names}
        empty = [name for name in judge_names if not keyed[name]]
        if empty:
            raise DataError(
                [
                    f"{table.source}: judges: no label from {name} in {table.kind}; leave it "
                    f"out by naming the judges to read with --judges (got {got_text(name)})"
                    for name in empty
                ]
            )
    else:
        judge_names = judges
        keyed = table.keyed(human_names)
    if not human_names:
        raise DataError(
            [
                f"{table.source}: humans: no human's labels in {table.kind} (an Inspect log's "
                f"score edits, an MLflow store's HUMAN feedback); give them in a long CSV "
                f"read with this source as its --judges-file (got judges "
                f"{got_text(table.names(JUDGE))})"
            ]
        )
    return long_table_matrix(
        keyed,
        table.has_groups,
        table.source,
        problems,
        humans=list(humans) if humans is not None else None,
        judges=judge_names,
        labels=labels,
        ordinal=ordinal,
        judges_path=judges_file,
    )


def judge_table(source):
    """Return ``({judge: {(item, group): label}}, has_group)`` of a harness source.

    For a harness source given as another input's judges file: every judge it records.
    """
    table = harness_for(source).read_labels(source)
    judges = table.names(JUDGE)
    if not judges:
        raise DataError(
            [f"{source}: judges: no judge's labels in {table.kind} (got {got_text(judges)})"]
        )
    return table.keyed(judges), table.has_groups


def judge_production(source, judge):
    """Return ``judge``'s labels on every item of a harness source, in item order."""
    table = harness_for(source).read_labels(source)
    problems = unknown_names(
        [judge], table.names(JUDGE), str(source), "judge", JUDGE, f"judges in {table.kind}"
    )
    labelled = table.of_rater(judge) if not problems else []
    if problems or not labelled:
        raise DataError(
            problems or [f"{source}: judge: no labels of this judge (got {got_text(judge)})"]
        )
    return [label.label for label in labelled]


def dated_labels(source, role, names=None):
    """Return ``[(item id, day, label)]`` of the raters of ``role`` in a harness source.

    In the order the labels were given (their time, then item id).

    ``names`` chooses among them (default all). Items with groups are ``GROUP/ITEM``. For
    the humans, an item labelled by two of them is refused: a dated stream holds one
    label per item (name one human with ``names``).
    """
    table = harness_for(source).read_labels(source)
    raters = _chosen(table, names, role, "humans" if role == HUMAN else "judges")
    if role == JUDGE and len(raters) != 1:
        raise DataError(
            [
                f"{source}: judge: {table.kind} holds several judges; name the one to "
                f"follow with --judge (got {got_text(raters)})"
            ]
        )
    rows, seen = [], {}
    for label in table.labels:
        if label.rater not in raters:
            continue
        item = label.item if label.group is None else f"{label.group}/{label.item}"
        if item in seen:
            raise DataError(
                [
                    f"{source}: humans: {seen[item]} and {label.rater} both label item "
                    f"{got_text(item)}; an audit holds one label per item: name one human "
                    f"with --humans (got {got_text(item)})"
                ]
            )
        seen[item] = label.rater
        rows.append((label.moment, item, label.day, label.label))
    return [row[1:] for row in sorted(rows, key=lambda row: row[:2])]
