"""Real annotation matrices: load, validate and describe; the stable import path.

Two input formats are read:

- ``alttest``: a folder holding the JSON pair of the alternative annotator test's public data,
  ``human_annotations.json`` (``{human_id: {item_id: label}}``) and ``llm_annotations.json``
  (``{judge_name: {item_id: label}}``). Labels are strings or numbers; they are compared as
  text (``str(value)``), so ``3`` in one file and ``"3"`` in another are the same label.
- ``csv``: a long table with the header ``item,rater,label`` and an optional ``group``
  column; the caller says which raters are judges (every other rater is human). An item is
  the pair ``(item, group)``: the same id in two groups is two items.

Any file may be gzip-compressed (detected by its content); the judges may come from a
separate file (``judges_path``, CSV or JSON); a matrix without judges is human-only (it can
be described; the rule refuses it, :func:`require_judges`).

Both give an :class:`AnnotationMatrix`: items (sorted ids), humans in primary-layer order,
judges, declared labels, and integer codes ``(n, K)`` for the humans (``-1`` where a human
did not label the item) and ``(n, J)`` for the judges.

Which items. The items are those that at least one of the chosen humans labelled; items
that only judges labelled are dropped. Every judge must label every one of those items.

Primary layer. The first human is the primary. By default humans are ordered by the number
of items they labelled, most first, ties by id (string order), so the primary is a human who
labels every item whenever one exists (WAX: ``"10"``; lesion: ``"student_1"``). When no
single human labels every item (CeBaB), the primary is only the most prolific human and has
gaps (``-1``); :func:`describe_matrix` says so. Give ``humans`` to choose another order.

Every problem found in the input is collected before :class:`DataError` is raised, each as
``SOURCE: key: what is wrong (got VALUE)``, where ``SOURCE`` is the file (or folder) read
and ``key`` the parameter, rater, ``rater['item']`` or CSV row concerned.

The code lives in :mod:`~simcore.realdata.annotation` (the matrix and :class:`DataError`),
:mod:`~simcore.realdata.assembly` (from parsed raters to a matrix),
:mod:`~simcore.realdata.loaders` (the two formats), :mod:`~simcore.realdata.data_block` (a
scenario's ``data`` block) and :mod:`~simcore.realdata.describe` (the description); every
name is imported back here, where callers import it from.
"""

# Re-exported: callers import these names from simcore.realdata.matrix.
from simcore.realdata.annotation import (  # noqa: F401
    NO_GROUPS,
    AnnotationMatrix,
    DataError,
    got_text,
    require_judges,
)
from simcore.realdata.data_block import DATA_KEYS, FORMATS, SCALES, load_data  # noqa: F401
from simcore.realdata.describe import describe_matrix, write_overlap_csv  # noqa: F401
from simcore.realdata.loaders import (  # noqa: F401
    CSV_COLUMNS,
    HUMAN_FILE,
    JUDGE_FILE,
    MAX_ROW_PROBLEMS,
    _read_json_raters,
    load_alttest,
    load_csv,
    load_ratings,
)
