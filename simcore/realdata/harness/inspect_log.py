"""Inspect AI eval logs: scorers as judges, score edits by their authors as humans.

An Inspect AI eval log (``.eval``, or ``.json`` written with ``log_format="json"``) holds, for
every sample and epoch, each scorer's :class:`~inspect_ai.scorer.Score`. A scorer is an
automatic rater: a model-graded scorer (``model_graded_qa``, ``model_graded_fact``) is an
LLM judge, and every scorer of the log is read as a judge named by the scorer (with several
epochs, ``SCORER/epochK``: each epoch is a judge). Its label is the score's original value
(the first entry of the score's history once it was edited). Humans are the authors of score
edits (``inspect_ai.log.edit_score`` with ``ProvenanceData(author=...)``): an author's label
is the value of their last edit of that score; an edit that keeps the value
(``UNCHANGED``) gives no label. A human's labels are their edits of the scores of the
judges read (``--judges`` chooses the scorers; edits of the others' scores are not read),
so one log may hold scorers of different criteria. Human labels kept outside the log are a
long CSV keyed by sample id, read with the log as its judges file (``simcore card
humans.csv --judges-file LOG``).

A folder is read whole: every log under it (``*.eval`` and JSON logs, recursively, in
sorted order). With more than one task, each task is a group; the same sample labelled
differently by one rater in two logs is refused (read the one log). Items are sample ids.
Reading needs the ``inspect`` extra (``pip install 'simcore[inspect]'``); telling a log
apart does not.
"""

from __future__ import annotations

import re
from pathlib import Path

from simcore.realdata.annotation import DataError, got_text
from simcore.realdata.harness.labels import HUMAN, JUDGE, LabelCollector, moment_of, need_extra

LIBRARY = "inspect_ai"
"""The optional library that reads these sources."""

KIND = "an Inspect AI log"

JSON_LOG = re.compile(rb'\A\s*\{\s*"version"\s*:\s*\d+\s*,\s*"status"\s*:')
"""The start of an Inspect AI JSON log (``{"version": 2, "status": ...``)."""

ZIP_MAGIC = b"PK\x03\x04"

ROLES = (
    "roles: as the Inspect AI log records them: the judges are its scorers (each score's "
    "original value), the humans the authors of edits of those scores (each author's last edit)"
)
"""The line every output of an Inspect AI log gives on how its roles were read."""

SKIPPED_FIELDS = {"messages", "events", "store", "attachments", "events_data", "timelines"}
"""A sample's transcript fields, not read: the scores are all a matrix needs."""


def _is_json_log(path):
    try:
        with open(path, "rb") as handle:
            return bool(JSON_LOG.match(handle.read(256)))
    except OSError:
        return False


def _is_eval_file(path):
    try:
        with open(path, "rb") as handle:
            return handle.read(4) == ZIP_MAGIC
    except OSError:
        return False


def is_log(path):
    """Whether ``path`` is one Inspect AI log: a ``.eval`` zip or a JSON log."""
    path = Path(path)
    if not path.is_file():
        return False
    if path.suffix == ".eval":
        return _is_eval_file(path)
    return path.suffix == ".json" and _is_json_log(path)


def log_files(path):
    """Return the logs under a folder (recursively, sorted), or ``[path]`` for one log."""
    path = Path(path)
    if path.is_file():
        return [path] if is_log(path) else []
    if not path.is_dir():
        return []
    return [file for file in sorted(path.rglob("*")) if is_log(file)]


def source_path(source):
    """Return the log or folder ``source`` names."""
    return Path(source)


def can_open(source, columns=None):
    """Whether ``source`` is an Inspect AI log or a folder holding at least one."""
    if not isinstance(source, str | Path) or columns:
        return False
    return bool(log_files(source))


def read_labels(source):
    """Return the :class:`~simcore.realdata.harness.labels.HarnessLabels` of a log or folder.

    Raises
    ------
    DataError
        No ``inspect`` extra (naming the install line), an unreadable log, a log without a
        scorer, a value that is no label, mixed label types, an author who is also a scorer,
        or one rater labelling a sample differently in two logs.
    """
    need_extra(LIBRARY, "inspect", source, KIND)
    from inspect_ai.log import read_eval_log

    files = log_files(source)
    collector = LabelCollector(source, KIND)
    tasks = set()
    for file in files:
        try:
            log = read_eval_log(str(file), exclude_fields=SKIPPED_FIELDS)
        except Exception as error:  # noqa: BLE001 (any failure of the library to read it)
            raise DataError(
                [f"{file}: log: not a readable Inspect AI log ({error}) (got {str(file)!r})"]
            ) from None
        tasks.add(log.eval.task)
        _read_log(log, file, collector)
    if not collector.raters:
        raise DataError(
            [
                f"{source}: scorers: no scorer in {len(files)} log(s): a log needs a scorer "
                f"whose scores are the judge's labels (got no scores)"
            ]
        )
    return collector.labels(grouped=len(tasks) > 1)


def _read_log(log, file, collector):
    """Add one log's scores and score edits to ``collector``."""
    samples = log.samples or []
    epochs = max([sample.epoch for sample in samples] + [log.eval.config.epochs or 1])
    for scorer in _scorer_keys(log.eval.scorers or []):
        for judge in _judge_names(scorer, epochs):
            collector.declare(judge, JUDGE, f"{file}: scorer {scorer}")
    created = moment_of(log.eval.created)
    for sample in samples:
        item = str(sample.id)
        moment = moment_of(sample.completed_at or sample.started_at) or created
        for name, score in (sample.scores or {}).items():
            judge = name if epochs == 1 else f"{name}/epoch{sample.epoch}"
            where = f"{file}: sample {item} epoch {sample.epoch}: scorer {name}"
            original = next(
                (edit.value for edit in score.history if edit.provenance is None), score.value
            )
            task = log.eval.task
            collector.add(item, task, judge, JUDGE, original, moment, where, via=name)
            for author, (value, edited) in _last_edits(score.history).items():
                collector.add(item, task, author, HUMAN, value, moment_of(edited), where, via=name)


def _scorer_keys(scorers):
    """Return the keys a sample's scores take: a repeated scorer name is numbered (``x1``)."""
    keys, seen = [], {}
    for scorer in scorers:
        count = seen.get(scorer.name, 0)
        seen[scorer.name] = count + 1
        keys.append(scorer.name if count == 0 else f"{scorer.name}{count}")
    return keys


def _judge_names(scorer, epochs):
    return [scorer] if epochs == 1 else [f"{scorer}/epoch{k}" for k in range(1, epochs + 1)]


def _last_edits(history):
    """Return ``{author: (value, timestamp)}`` of each author's last edit that sets a value."""
    edits = {}
    for edit in history:
        if edit.provenance is None or edit.value == "UNCHANGED":
            continue
        author = str(edit.provenance.author).strip()
        if not author:
            raise DataError(
                [f"score edit: author: an edit needs its author's name (got {got_text(author)})"]
            )
        edits[author] = (edit.value, edit.provenance.timestamp)
    return edits
