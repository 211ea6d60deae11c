"""MLflow tracking stores: LLM_JUDGE feedback as judges, HUMAN feedback as humans.

MLflow 3 records assessments on traces (``mlflow.log_feedback``); each names its source,
whose type says who gave it. Feedback from an ``LLM_JUDGE`` source is a judge's label, the
judge named by the source id; feedback from a ``HUMAN`` source is a human's, named by the
source id. ``CODE`` feedback (a deterministic check) is neither and is not read, nor are
expectations, feedback that failed (an error, no value) or feedback that a later one
overrides (``valid`` false). Items are trace ids. The assessment's name is the criterion:
a human's and a judge's feedback are compared when they share it, as MLflow's own judge
alignment pairs them; with more than one name, each is a group. Every experiment of the
store is read.

The store is a tracking URI (``sqlite:///PATH``, ``file:///PATH``), a SQLite file MLflow
wrote (``mlflow.db``) or a file-store folder (``mlruns``); it is only read. Reading needs
the ``mlflow`` extra (``pip install 'simcore[mlflow]'``); telling a store apart does not.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path

from simcore.realdata.annotation import DataError, got_text
from simcore.realdata.harness.labels import HUMAN, JUDGE, LabelCollector, moment_of, need_extra

LIBRARY = "mlflow"
"""The optional library that reads these sources."""

KIND = "an MLflow store"

ROLES = (
    "roles: as the MLflow store records them: the judges are the sources of LLM_JUDGE feedback, "
    "the humans those of HUMAN feedback, paired by assessment name (CODE and overridden "
    "feedback not read)"
)
"""The line every output of an MLflow store gives on how its roles were read."""

SQLITE_MAGIC = b"SQLite format 3\x00"
STORE_TABLES = {"experiments", "trace_info", "assessments"}
"""Tables every MLflow 3 SQLite store has."""

PAGE = 500
"""Traces asked for per page."""


def _sqlite_path(source):
    """Return the SQLite file of ``source`` (a path or ``sqlite:///PATH``), or None."""
    text = str(source)
    if text.startswith("sqlite:///"):
        return Path(text[len("sqlite:///") :])
    if "://" in text:
        return None
    return Path(text)


def _file_store_path(source):
    text = str(source)
    if text.startswith("file://"):
        return Path(text[len("file://") :])
    return None if "://" in text else Path(text)


def _is_sqlite_store(path):
    if path is None or not path.is_file():
        return False
    try:
        with open(path, "rb") as handle:
            if handle.read(16) != SQLITE_MAGIC:
                return False
        address = f"{path.resolve().as_uri()}?mode=ro"
        with contextlib.closing(sqlite3.connect(address, uri=True)) as db:
            tables = {row[0] for row in db.execute("select name from sqlite_master")}
    except (OSError, sqlite3.Error):
        return False
    return STORE_TABLES <= tables


def _is_file_store(path):
    """Whether ``path`` is an MLflow file-store folder: experiment folders with meta.yaml."""
    if path is None or not path.is_dir():
        return False
    for meta in path.glob("*/meta.yaml"):
        try:
            with open(meta, encoding="utf-8") as handle:
                if any(line.startswith("experiment_id:") for line in handle):
                    return True
        except (OSError, UnicodeDecodeError):
            continue
    return False


def can_open(source, columns=None):
    """Whether ``source`` is an MLflow tracking store (SQLite or a file store)."""
    if not isinstance(source, str | Path) or columns:
        return False
    return _is_sqlite_store(_sqlite_path(source)) or _is_file_store(_file_store_path(source))


def source_path(source):
    """Return the SQLite file or file-store folder of a store ``can_open`` accepts."""
    sqlite_path = _sqlite_path(source)
    return sqlite_path if _is_sqlite_store(sqlite_path) else _file_store_path(source)


def tracking_uri(source):
    """Return the tracking URI of a store ``can_open`` accepts (absolute paths)."""
    path = source_path(source).resolve()
    return f"sqlite:///{path}" if path.is_file() else path.as_uri()


@contextlib.contextmanager
def _file_store_allowed():
    """Let MLflow open a file store (maintenance mode) for this read only."""
    key = "MLFLOW_ALLOW_FILE_STORE"
    before = os.environ.get(key)
    os.environ[key] = "true"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = before


def read_labels(source):
    """Return the :class:`~simcore.realdata.harness.labels.HarnessLabels` of a store.

    Raises
    ------
    DataError
        No ``mlflow`` extra (naming the install line), a store MLflow cannot read, a value
        that is no label, mixed label types, a source id that is both HUMAN and LLM_JUDGE,
        or two different labels of one source on one trace and name.
    """
    need_extra(LIBRARY, "mlflow", source, KIND)
    from mlflow import MlflowClient

    uri = tracking_uri(source)
    try:
        with _file_store_allowed():
            client = MlflowClient(tracking_uri=uri)
            experiments = [e.experiment_id for e in client.search_experiments()]
            traces = _all_traces(client, experiments)
    except Exception as error:  # noqa: BLE001 (any failure of the library to read it)
        raise DataError(
            [f"{source}: store: MLflow cannot read it ({error}) (got {str(source)!r})"]
        ) from None
    collector = LabelCollector(source, KIND)
    names = set()
    for trace in traces:
        for assessment in trace.info.assessments or []:
            role = _role(assessment)
            if role is None:
                continue
            names.add(assessment.name)
            where = f"{source}: trace {trace.info.trace_id}: {assessment.name}"
            moment = trace.info.request_time if role == JUDGE else assessment.create_time_ms
            rater = str(assessment.source.source_id).strip()
            if not rater:
                raise DataError([f"{where}: source_id: names the rater (got {got_text(rater)})"])
            value = assessment.feedback.value
            collector.add(
                trace.info.trace_id, assessment.name, rater, role, value, moment_of(moment), where
            )
    return collector.labels(grouped=len(names) > 1)


def _role(assessment):
    """Return the role of a valid feedback's source, or None for anything not read."""
    feedback = getattr(assessment, "feedback", None)
    if feedback is None or feedback.error is not None or assessment.valid is False:
        return None
    kind = str(getattr(assessment.source.source_type, "value", assessment.source.source_type))
    return {"HUMAN": HUMAN, "LLM_JUDGE": JUDGE}.get(kind)


def _all_traces(client, experiments):
    """Return every trace of ``experiments``, page by page."""
    if not experiments:
        return []
    traces, token = [], None
    while True:
        page = client.search_traces(
            locations=experiments, max_results=PAGE, page_token=token, include_spans=False
        )
        traces.extend(page)
        token = page.token
        if not token:
            return traces
