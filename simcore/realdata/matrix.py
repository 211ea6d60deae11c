"""Real annotation matrices: load, validate and describe (SPEC §8).

Two input formats are read:

- ``alttest``: a folder holding the JSON pair of the alternative annotator test's public data,
  ``human_annotations.json`` (``{human_id: {item_id: label}}``) and ``llm_annotations.json``
  (``{judge_name: {item_id: label}}``). Labels are strings or numbers; they are compared as
  text (``str(value)``), so ``3`` in one file and ``"3"`` in another are the same label.
- ``csv``: a long table with the header ``item,rater,label`` and an optional ``group``
  column; the caller says which raters are humans and which are judges.

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
"""

import csv
import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HUMAN_FILE = "human_annotations.json"
"""File name of the human labels in an ``alttest`` folder."""

JUDGE_FILE = "llm_annotations.json"
"""File name of the judge labels in an ``alttest`` folder."""

FORMATS = ("alttest", "csv")
"""Values of the ``format`` key of a scenario's ``data`` block."""

SCALES = ("nominal", "ordinal")
"""Values of the ``scale`` key of a scenario's ``data`` block."""

DATA_KEYS = ("format", "path", "humans", "judges", "labels", "scale", "group_separator")
"""Valid keys of a scenario's ``data`` block."""

CSV_COLUMNS = ("item", "rater", "label", "group")
"""Columns of the long CSV format; ``group`` is optional."""

NO_GROUPS = "all"
"""Name of the single group of a matrix without groups."""

MAX_ROW_PROBLEMS = 20
"""Row-level CSV problems reported one by one before they are summarised."""


class DataError(ValueError):
    """Bad annotation data or data block; ``problems`` lists 'SOURCE: key: problem (got VALUE)'."""

    def __init__(self, problems):
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


def _got(value):
    """Return ``value`` as it appears after ``got`` in a problem message."""
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, Path):
        return repr(str(value))
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_got(v) for v in value) + "]"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "a mapping"
    return repr(value)


def _list_text(names, limit=20):
    """Return ``names`` joined by commas, shortened after ``limit`` entries."""
    names = [str(name) for name in names]
    if len(names) > limit:
        return ", ".join(names[:limit]) + f", ... ({len(names)} in all)"
    return ", ".join(names)


# --------------------------------------------------------------------------- matrix


@dataclass(frozen=True, eq=False)
class AnnotationMatrix:
    """Labels of humans and judges on the same items, as integer codes.

    Attributes
    ----------
    source : str
        Path the matrix came from.
    items : tuple of str
        The ``n`` item ids (the loaders sort them).
    humans : tuple of str
        The ``K`` human names in primary-layer order: ``humans[0]`` is the primary.
    judges : tuple of str
        The ``J`` judge names.
    labels : tuple of str
        The ``L`` label values as text, in declared order; codes index this tuple.
    ordinal : bool
        Whether the order of ``labels`` is meaningful.
    human_labels : numpy.ndarray
        int16 ``(n, K)`` codes into ``labels``; ``-1`` where the human did not label the item.
    judge_labels : numpy.ndarray
        int16 ``(n, J)`` codes; judges label every item.
    groups : numpy.ndarray
        int16 ``(n,)`` group code of each item; all 0 when there are no groups (the default).
    group_names : tuple of str
        Names of the groups; ``("all",)`` when there are none (the default).

    Raises
    ------
    DataError
        When the names and arrays do not fit together (shapes, codes out of range,
        duplicate names, a judge without a label). The arrays are stored as read-only
        int16 copies.
    """

    source: str
    items: tuple
    humans: tuple
    judges: tuple
    labels: tuple
    ordinal: bool
    human_labels: np.ndarray
    judge_labels: np.ndarray
    groups: np.ndarray = None
    group_names: tuple = (NO_GROUPS,)

    def __post_init__(self):
        problems = []
        source = str(self.source)
        setter = object.__setattr__
        setter(self, "source", source)
        for name in ("items", "humans", "judges", "labels", "group_names"):
            values = tuple(str(value) for value in getattr(self, name))
            setter(self, name, values)
            if len(set(values)) != len(values):
                repeated = sorted({value for value in values if values.count(value) > 1})
                problems.append(f"{source}: {name}: names must be distinct (got {_got(repeated)})")
        setter(self, "ordinal", bool(self.ordinal))
        n = len(self.items)
        if self.groups is None:
            setter(self, "groups", np.zeros(n, dtype=np.int16))
        expected = {
            "human_labels": ((n, len(self.humans)), -1, len(self.labels)),
            "judge_labels": ((n, len(self.judges)), 0, len(self.labels)),
            "groups": ((n,), 0, len(self.group_names)),
        }
        for name, (shape, low, high) in expected.items():
            raw = np.asarray(getattr(self, name))
            if raw.dtype.kind not in "iu":
                problems.append(
                    f"{source}: {name}: must hold integer codes (got dtype {raw.dtype})"
                )
                continue
            if raw.shape != shape:
                problems.append(f"{source}: {name}: must have shape {shape} (got {raw.shape})")
                continue
            if raw.size and (raw.min() < low or raw.max() >= high):
                problems.append(
                    f"{source}: {name}: codes must lie in [{low}, {high - 1}] "
                    f"(got {int(raw.min())} to {int(raw.max())})"
                )
                continue
            array = raw.astype(np.int16, copy=True)
            array.setflags(write=False)
            setter(self, name, array)
        if problems:
            raise DataError(problems)

    # ----------------------------------------------------------------------- sizes

    @property
    def n_items(self):
        """Return the number of items ``n``."""
        return len(self.items)

    @property
    def n_humans(self):
        """Return the number of humans ``K``."""
        return len(self.humans)

    @property
    def n_judges(self):
        """Return the number of judges ``J``."""
        return len(self.judges)

    @property
    def n_labels(self):
        """Return the number of declared labels ``L``."""
        return len(self.labels)

    # ----------------------------------------------------------------------- overlap

    @property
    def available(self):
        """Return the ``(n, K)`` bool mask of the (item, human) cells that hold a label."""
        return self.human_labels >= 0

    @property
    def coverage(self):
        """Return the ``(K,)`` share of the items that each human labelled."""
        if self.n_items == 0:
            return np.zeros(self.n_humans)
        return self.available.mean(axis=0)

    @property
    def overlaps(self):
        """Return the ``(K, K)`` int64 counts of items labelled by both humans (diagonal: own)."""
        mask = self.available.astype(np.int64)
        return mask.T @ mask

    @property
    def density(self):
        """Return the share of the ``n x K`` (item, human) cells that hold a label."""
        if self.human_labels.size == 0:
            return 0.0
        return float(self.available.mean())

    def subset(self, group):
        """Return the matrix restricted to the items of one group.

        Parameters
        ----------
        group : str
            One of :attr:`group_names`.

        Returns
        -------
        AnnotationMatrix
            Same source, humans, judges and labels; only the group's items, with
            ``groups`` all 0 and ``group_names == (group,)``.

        Raises
        ------
        DataError
            When ``group`` is not one of :attr:`group_names`.
        """
        if group not in self.group_names:
            raise DataError(
                [
                    f"{self.source}: group: unknown group "
                    f"(valid: {_list_text(self.group_names)}) (got {_got(group)})"
                ]
            )
        keep = self.groups == self.group_names.index(group)
        return AnnotationMatrix(
            source=self.source,
            items=tuple(item for item, kept in zip(self.items, keep, strict=True) if kept),
            humans=self.humans,
            judges=self.judges,
            labels=self.labels,
            ordinal=self.ordinal,
            human_labels=self.human_labels[keep],
            judge_labels=self.judge_labels[keep],
            groups=np.zeros(int(keep.sum()), dtype=np.int16),
            group_names=(group,),
        )


# --------------------------------------------------------------------------- checks


def _label_text(value):
    """Return ``(text, problem)`` for one raw label from a JSON file."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return None, "label must be a string or a number"
    if isinstance(value, float) and not math.isfinite(value):
        return None, "label must be a finite number"
    text = str(value)
    if not text.strip():
        return None, "label must not be empty"
    return text, None


def _names(value, key, source, problems):
    """Return a list of rater names from a parameter, or None when it is unusable."""
    if isinstance(value, str | int) and not isinstance(value, bool):
        value = [value]
    if not isinstance(value, list | tuple) or not all(
        isinstance(name, str | int) and not isinstance(name, bool) for name in value
    ):
        problems.append(f"{source}: {key}: must be a list of names (got {_got(value)})")
        return None
    names = [str(name) for name in value]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        problems.append(f"{source}: {key}: names must be distinct (got {_got(repeated)})")
        return None
    return names


def _label_sort_key(labels):
    """Return the sort key of the default label order: numeric when every label is a number."""
    numbers = {}
    for label in labels:
        try:
            number = float(label)
        except ValueError:
            return str
        if not math.isfinite(number):
            return str
        numbers[label] = number
    return lambda label: (numbers[label], label)


def _choose(requested, available, key, kind, source, known, problems, default):
    """Return the chosen rater names (``default`` when ``requested`` is None).

    ``known`` is ``(description, names)`` shown when a requested name is not ``available``.
    """
    if requested is None:
        return list(default)
    names = _names(requested, key, source, problems)
    if names is None:
        return []
    unknown = [name for name in names if name not in available]
    for name in unknown:
        problems.append(
            f"{source}: {key}: unknown {kind}, not in the file "
            f"({known[0]}: {_list_text(known[1])}) (got {_got(name)})"
        )
    return [name for name in names if name not in unknown]


def _build(
    source,
    human_data,
    judge_data,
    humans,
    judges,
    labels,
    ordinal,
    item_group,
    sources,
    problems,
):
    """Validate the parsed raters and return the :class:`AnnotationMatrix`.

    ``human_data`` and ``judge_data`` map rater -> {item: label text}; ``item_group`` maps
    an item id to its group name (None: the item has none) or is None (no groups);
    ``sources`` names the file reported for ``"humans"``, ``"judges"`` and ``"labels"``
    problems, gives ``"groups"`` as ``(file, key, value)`` for items without a group and
    ``"known"`` as ``{"humans": (description, names), "judges": ...}``. Appends to
    ``problems`` and raises :class:`DataError` when there are any.
    """
    by_count = sorted(human_data, key=lambda name: (-len(human_data[name]), name))
    known = sources["known"]
    humans = _choose(
        humans,
        human_data,
        "humans",
        "human",
        sources["humans"],
        known["humans"],
        problems,
        by_count,
    )
    judges = _choose(
        judges,
        judge_data,
        "judges",
        "judge",
        sources["judges"],
        known["judges"],
        problems,
        judge_data,
    )
    for name in sorted(set(humans) & set(judges)):
        problems.append(
            f"{sources['humans']}: humans: rater listed as both human and judge (got {_got(name)})"
        )
    if len(humans) < 2:
        problems.append(
            f"{sources['humans']}: humans: need at least 2 humans (got {_got(list(humans))})"
        )
    if not judges:
        problems.append(f"{sources['judges']}: judges: need at least 1 judge (got [])")

    items = sorted(set().union(*(human_data[name] for name in humans)))
    if humans and not items:
        problems.append(f"{sources['humans']}: humans: the humans label no items (got 0 items)")
    for judge in judges:
        missing = [item for item in items if item not in judge_data[judge]]
        if missing:
            problems.append(
                f"{sources['judges']}: {judge}: misses {len(missing)} of the {len(items)} items "
                f"the humans labelled, e.g. {missing[0]!r} (got {len(items) - len(missing)} "
                "of them)"
            )

    cells = [(sources["humans"], name, human_data[name]) for name in humans]
    cells += [(sources["judges"], name, judge_data[name]) for name in judges]
    item_set = set(items)
    declared = ()
    if labels is None:
        seen = {label for _, _, given in cells for item, label in given.items() if item in item_set}
        labels = sorted(seen, key=_label_sort_key(seen))
    else:
        declared = _declared_labels(labels, sources["labels"], problems)
        labels = declared if declared is not None else []
    if len(labels) < 2 and items and declared is not None:
        problems.append(f"{sources['labels']}: labels: need at least 2 labels (got {_got(labels)})")

    code = {label: position for position, label in enumerate(labels)}
    if labels:
        for file, rater, given in cells:
            outside = {}
            for item in items:
                label = given.get(item)
                if label is not None and label not in code:
                    outside.setdefault(label, []).append(item)
            for label, where in outside.items():
                problems.append(
                    f"{file}: {rater}[{where[0]!r}]: label outside the declared labels "
                    f"({_list_text(labels)}) (got {label!r}"
                    + (f"; on {len(where)} items of {rater})" if len(where) > 1 else ")")
                )

    group_names, group_codes = (NO_GROUPS,), None
    if item_group is not None and items:
        names = [item_group(item) for item in items]
        lacking = [item for item, name in zip(items, names, strict=True) if name is None]
        if lacking:
            file, key, value = sources["groups"]
            problems.append(
                f"{file}: {key}: {len(lacking)} of the {len(items)} items have no group, "
                f"e.g. {lacking[0]!r} (got {_got(value)})"
            )
        else:
            group_names = tuple(sorted(set(names)))
            position = {name: index for index, name in enumerate(group_names)}
            group_codes = np.array([position[name] for name in names], dtype=np.int16)

    if problems:
        raise DataError(problems)

    index = {item: row for row, item in enumerate(items)}
    human_codes = np.full((len(items), len(humans)), -1, dtype=np.int16)
    for column, name in enumerate(humans):
        for item, label in human_data[name].items():
            human_codes[index[item], column] = code[label]
    judge_codes = np.empty((len(items), len(judges)), dtype=np.int16)
    for column, name in enumerate(judges):
        given = judge_data[name]
        judge_codes[:, column] = [code[given[item]] for item in items]
    return AnnotationMatrix(
        source=str(source),
        items=tuple(items),
        humans=tuple(humans),
        judges=tuple(judges),
        labels=tuple(labels),
        ordinal=ordinal,
        human_labels=human_codes,
        judge_labels=judge_codes,
        groups=group_codes,
        group_names=group_names,
    )


def _declared_labels(labels, source, problems):
    """Return the declared labels as text, or None (after a problem) when unusable."""
    if not isinstance(labels, list | tuple):
        problems.append(f"{source}: labels: must be a list of label values (got {_got(labels)})")
        return None
    texts = []
    for value in labels:
        text, problem = _label_text(value)
        if problem:
            problems.append(f"{source}: labels: every {problem} (got {_got(value)})")
            return None
        texts.append(text)
    repeated = sorted({text for text in texts if texts.count(text) > 1})
    if repeated:
        problems.append(f"{source}: labels: labels must be distinct as text (got {_got(repeated)})")
        return None
    return texts


# --------------------------------------------------------------------------- alttest


def _read_json_raters(path, kind, problems):
    """Read one JSON file of ``{rater: {item: label}}``; return it with labels as text."""
    if not path.is_file():
        problems.append(f"{path}: file not found (got {_got(str(path))})")
        return None
    try:
        with path.open(encoding="utf-8") as handle:
            raw = json.load(handle)
    except json.JSONDecodeError as error:
        problems.append(
            f"{path}: not valid JSON: {error.msg} at line {error.lineno} column {error.colno} "
            f"(got {_got(error.doc[max(0, error.pos - 20) : error.pos + 20])})"
        )
        return None
    except (OSError, UnicodeDecodeError) as error:
        problems.append(f"{path}: unreadable: {error} (got {_got(str(path))})")
        return None
    if not isinstance(raw, dict):
        problems.append(
            f"{path}: must hold a mapping of {kind} name to {{item: label}} "
            f"(got {type(raw).__name__})"
        )
        return None
    data = {}
    for rater, given in raw.items():
        if not isinstance(given, dict):
            problems.append(
                f"{path}: {rater}: must be a mapping of item id to label (got {_got(given)})"
            )
            continue
        texts = {}
        for item, value in given.items():
            text, problem = _label_text(value)
            if problem:
                problems.append(f"{path}: {rater}[{item!r}]: {problem} (got {_got(value)})")
            else:
                texts[item] = text
        data[rater] = texts
    return data


def load_alttest(path, humans=None, judges=None, labels=None, ordinal=False, group_separator=None):
    """Load a folder holding the alternative annotator test's JSON pair.

    Parameters
    ----------
    path : str or pathlib.Path
        Folder holding ``human_annotations.json`` (``{human_id: {item_id: label}}``) and
        ``llm_annotations.json`` (``{judge_name: {item_id: label}}``).
    humans : list of str, optional
        Human ids in primary-layer order (the first is the primary); numbers are read as
        text. Default: every human in the file, ordered by the number of items labelled,
        most first, ties by id in string order, so the primary labels every item whenever
        some human does. Humans left out are ignored.
    judges : list of str, optional
        Judge names to keep. Default: every judge, in file order.
    labels : list, optional
        Declared label values, compared as text (``str(value)``); their order is the code
        order. Default: the sorted union of the labels that the chosen raters give on the
        matrix's items (numeric order when every label is a number, else string order).
    ordinal : bool, default False
        Whether the label order is meaningful.
    group_separator : str, optional
        When given (e.g. ``"__"``), an item's group is the text after the last separator in
        its id; every item id must contain it. Default: no groups.

    Returns
    -------
    AnnotationMatrix
        The items are those labelled by at least one chosen human (sorted by id); items that
        only judges labelled are dropped.

    Raises
    ------
    DataError
        Listing every problem: a missing folder or file, a file that is not JSON or not
        ``{rater: {item: label}}``, an unknown human or judge, a rater who is both, fewer
        than 2 humans, a judge who misses items the humans labelled, labels outside the
        declared ones, an item id without the group separator.
    """
    folder = Path(path)
    problems = []
    if not folder.is_dir():
        raise DataError(
            [
                f"{folder}: path: must be a folder holding {HUMAN_FILE} and {JUDGE_FILE} "
                f"(got {_got(str(path))})"
            ]
        )
    human_path, judge_path = folder / HUMAN_FILE, folder / JUDGE_FILE
    human_data = _read_json_raters(human_path, "human", problems)
    judge_data = _read_json_raters(judge_path, "judge", problems)
    if human_data is None or judge_data is None:
        raise DataError(problems)
    item_group = None
    if group_separator is not None:
        if not isinstance(group_separator, str) or not group_separator:
            problems.append(
                f"{folder}: group_separator: must be a non-empty string "
                f"(got {_got(group_separator)})"
            )
        else:
            item_group = _separator_group(group_separator)
    sources = {
        "humans": human_path,
        "judges": judge_path,
        "labels": folder,
        "groups": (folder, "group_separator", group_separator),
        "known": {
            "humans": ("humans in the file", list(human_data)),
            "judges": ("judges in the file", list(judge_data)),
        },
    }
    return _build(
        folder,
        human_data,
        judge_data,
        humans,
        judges,
        labels,
        ordinal,
        item_group,
        sources,
        problems,
    )


def _separator_group(separator):
    """Return ``item -> group``: the text after the last ``separator`` (None without one)."""

    def group(item):
        head, found, tail = item.rpartition(separator)
        return tail if found else None

    return group


# --------------------------------------------------------------------------- csv


def load_csv(path, humans=None, judges=None, labels=None, ordinal=False):
    """Load a long CSV table ``item,rater,label`` with an optional ``group`` column.

    Parameters
    ----------
    path : str or pathlib.Path
        The CSV file (UTF-8, a header row first). Repeated (item, rater) rows are allowed
        when they carry the same label.
    humans : list of str
        The raters who are human, in primary-layer order (the first is the primary).
        Required.
    judges : list of str
        The raters who are judges. Required. Every rater in the file must be in exactly one
        of ``humans`` and ``judges``, and every listed rater must appear in the file.
    labels : list, optional
        Declared label values in code order, compared as text. Default: the sorted union of
        the labels given on the matrix's items (numeric order when every label is a number).
    ordinal : bool, default False
        Whether the label order is meaningful.

    Returns
    -------
    AnnotationMatrix
        The items are those labelled by at least one human (sorted by id). With a ``group``
        column, the group names are sorted and each item must have one group.

    Raises
    ------
    DataError
        Listing every problem: a missing or unreadable file, a bad header, empty cells,
        an (item, rater) pair given twice with different labels, a rater in neither list or
        in both, a listed rater absent from the file, fewer than 2 humans, a judge who misses
        items, labels outside the declared ones, an item given two groups.
    """
    file = Path(path)
    problems = []
    for key, value in (("humans", humans), ("judges", judges)):
        if value is None:
            problems.append(f"{file}: {key}: required for a CSV file (got null)")
    if not file.is_file():
        problems.append(f"{file}: path: file not found (got {_got(str(path))})")
        raise DataError(problems)
    try:
        with file.open(newline="", encoding="utf-8-sig") as handle:
            rows = list(csv.reader(handle))
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        problems.append(f"{file}: unreadable: {error} (got {_got(str(path))})")
        raise DataError(problems) from None
    if not rows:
        problems.append(f"{file}: header: the file is empty (got no rows)")
        raise DataError(problems)
    header = [column.strip() for column in rows[0]]
    for column in header:
        if column not in CSV_COLUMNS:
            problems.append(
                f"{file}: header: unknown column (valid: {', '.join(CSV_COLUMNS)}) "
                f"(got {_got(column)})"
            )
    for column in CSV_COLUMNS[:3]:
        if column not in header:
            problems.append(
                f"{file}: header: missing column {column!r} (got {_got(','.join(rows[0]))})"
            )
    repeated = sorted({column for column in header if header.count(column) > 1})
    if repeated:
        problems.append(f"{file}: header: repeated columns (got {_got(repeated)})")
    if problems and any(": header: " in problem for problem in problems):
        raise DataError(problems)
    ratings, groups, row_problems = _read_rows(rows, header, file)
    problems += row_problems
    human_names = _names(humans, "humans", file, problems) if humans is not None else None
    judge_names = _names(judges, "judges", file, problems) if judges is not None else None
    if human_names is None or judge_names is None:
        raise DataError(problems)
    listed = set(human_names) | set(judge_names)
    for rater in ratings:
        if rater not in listed:
            problems.append(
                f"{file}: rater: rater in neither humans nor judges (got {_got(rater)})"
            )
    human_data = {name: ratings[name] for name in ratings if name in human_names}
    judge_data = {name: ratings[name] for name in ratings if name in judge_names}
    for name in sorted(set(human_names) & set(judge_names)):
        human_data.setdefault(name, ratings.get(name, {}))
        judge_data.setdefault(name, ratings.get(name, {}))
    item_group = groups.get if "group" in header else None
    known = ("raters in the file", list(ratings))
    sources = {
        "humans": file,
        "judges": file,
        "labels": file,
        "groups": (file, "group", None),
        "known": {"humans": known, "judges": known},
    }
    return _build(
        file,
        human_data,
        judge_data,
        human_names,
        judge_names,
        labels,
        ordinal,
        item_group,
        sources,
        problems,
    )


def _read_rows(rows, header, file):
    """Return ``({rater: {item: label}}, {item: group}, problems)`` from the CSV rows."""
    column = {name: position for position, name in enumerate(header)}
    ratings, first_row, groups, group_row = {}, {}, {}, {}
    problems = []
    for number, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            problems.append(f"{file}: row {number}: expected {len(header)} cells (got {len(row)})")
            continue
        cells = {name: row[position].strip() for name, position in column.items()}
        empty = [name for name, value in cells.items() if not value]
        if empty:
            problems.append(
                f"{file}: row {number}: empty {', '.join(empty)} (got {_got(','.join(row))})"
            )
            continue
        item, rater, label = cells["item"], cells["rater"], cells["label"]
        given = ratings.setdefault(rater, {})
        if item in given and given[item] != label:
            problems.append(
                f"{file}: row {number}: rater {rater!r} labels item {item!r} again with a "
                f"different label (row {first_row[(item, rater)]} has {given[item]!r}) "
                f"(got {label!r})"
            )
        elif item not in given:
            given[item] = label
            first_row[(item, rater)] = number
        if "group" in cells:
            group = cells["group"]
            if item in groups and groups[item] != group:
                problems.append(
                    f"{file}: row {number}: item {item!r} is in group {groups[item]!r} on row "
                    f"{group_row[item]} (got {group!r})"
                )
            elif item not in groups:
                groups[item] = group
                group_row[item] = number
    if len(problems) > MAX_ROW_PROBLEMS:
        more = len(problems) - MAX_ROW_PROBLEMS
        problems = problems[:MAX_ROW_PROBLEMS] + [
            f"{file}: rows: {more} more row problems like these (got {len(problems)} in all)"
        ]
    return ratings, groups, problems


# --------------------------------------------------------------------------- data block


def load_data(block, base=None):
    """Load the matrix that a scenario's ``data`` block names.

    Parameters
    ----------
    block : dict
        The ``data`` mapping with the keys ``format`` (``alttest``, the default, or
        ``csv``), ``path`` (required; a folder for ``alttest``, a file for ``csv``),
        ``humans`` (primary first; required for ``csv``), ``judges`` (required for
        ``csv``), ``labels`` (declared label values in order), ``scale`` (``nominal``, the
        default, or ``ordinal``) and ``group_separator`` (``alttest`` only).
    base : str or pathlib.Path, optional
        Folder that a relative ``path`` is resolved against (the scenario file's folder).
        Default: the current directory.

    Returns
    -------
    AnnotationMatrix
        As :func:`load_alttest` or :func:`load_csv` return it.

    Raises
    ------
    DataError
        Listing every problem in the block as ``data.KEY: what is wrong (got VALUE)``
        (the caller may prefix the scenario file), or, once the block is valid, every problem
        in the data as the loaders report them.
    """
    if not isinstance(block, dict):
        raise DataError(
            [f"data: must be a mapping with keys {', '.join(DATA_KEYS)} (got {_got(block)})"]
        )
    problems = []
    for key in block:
        if key not in DATA_KEYS:
            problems.append(
                f"data.{key}: unknown key (valid keys: {', '.join(DATA_KEYS)}) (got {_got(key)})"
            )
    kind = block.get("format", "alttest")
    if kind not in FORMATS:
        problems.append(f"data.format: must be one of {', '.join(FORMATS)} (got {_got(kind)})")
    path = block.get("path")
    if not isinstance(path, str) or not path.strip():
        problems.append(
            f"data.path: must be given, the path of the data (a folder or a CSV file) "
            f"(got {_got(path)})"
        )
    names = {}
    for key in ("humans", "judges"):
        value = block.get(key)
        if value is None:
            if kind == "csv":
                problems.append(f"data.{key}: required when format is csv (got null)")
            names[key] = None
        else:
            names[key] = _names(value, f"data.{key}", "data", [])
            if names[key] is None:
                problems.append(
                    f"data.{key}: must be a list of distinct rater names (got {_got(value)})"
                )
    labels = block.get("labels")
    if labels is not None:
        declared_problems = []
        if _declared_labels(labels, "data", declared_problems) is None:
            problems.append(
                f"data.labels: must be a list of distinct label values (got {_got(labels)})"
            )
    scale = block.get("scale", "nominal")
    if scale not in SCALES:
        problems.append(f"data.scale: must be one of {', '.join(SCALES)} (got {_got(scale)})")
    separator = block.get("group_separator")
    if separator is not None:
        if not isinstance(separator, str) or not separator:
            problems.append(
                f"data.group_separator: must be a non-empty string or null (got {_got(separator)})"
            )
        elif kind == "csv":
            problems.append(
                "data.group_separator: only for format alttest; a CSV file gives groups in "
                f"its group column (got {_got(separator)})"
            )
    if problems:
        raise DataError(problems)
    target = Path(path).expanduser()
    if not target.is_absolute() and base is not None:
        target = Path(base) / target
    ordinal = scale == "ordinal"
    if kind == "csv":
        return load_csv(target, names["humans"], names["judges"], labels, ordinal)
    return load_alttest(target, names["humans"], names["judges"], labels, ordinal, separator)


# --------------------------------------------------------------------------- describe


def _table(header, rows):
    """Return text lines of a table: first column left-aligned, the others right-aligned."""
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    lines = []
    for row in [header, *rows]:
        cells = [str(row[0]).ljust(widths[0])]
        cells += [str(cell).rjust(width) for cell, width in zip(row[1:], widths[1:], strict=True)]
        lines.append("  " + "  ".join(cells).rstrip())
    return lines


def describe_matrix(matrix):
    """Return a readable multi-line description of an annotation matrix.

    Parameters
    ----------
    matrix : AnnotationMatrix
        The matrix to describe.

    Returns
    -------
    str
        Source; numbers of items, humans, judges and labels (and the scale); groups with
        their item counts; density; which humans (if any) label every item, i.e. whether the
        primary layer is complete; per-human items and coverage; the K x K table of items
        labelled by both humans; min/median/max human labels per item; per-judge coverage.
    """
    available = matrix.available
    n = matrix.n_items
    scale = "ordinal" if matrix.ordinal else "nominal"
    lines = [
        f"source: {matrix.source}",
        f"items: {n}",
        f"humans: {matrix.n_humans} (primary first: {_list_text(matrix.humans)})",
        f"judges: {matrix.n_judges} ({_list_text(matrix.judges)})",
        f"labels: {matrix.n_labels}, {scale} ({_list_text(matrix.labels)})",
    ]
    if matrix.group_names == (NO_GROUPS,):
        lines.append("groups: none")
    else:
        counts = np.bincount(matrix.groups, minlength=len(matrix.group_names))
        shown = [
            f"{name} {count}"
            for name, count in zip(matrix.group_names, counts.tolist(), strict=True)
        ]
        lines.append(f"groups: {len(matrix.group_names)} ({_list_text(shown)})")
    cells = int(available.sum())
    lines.append(
        f"density: {matrix.density:.3f} ({cells} of {n * matrix.n_humans} item-human cells "
        "labelled)"
    )
    complete = [
        name for name, full in zip(matrix.humans, available.all(axis=0), strict=True) if full
    ]
    if complete:
        lines.append(f"humans labelling every item: {', '.join(complete)}")
    else:
        lines.append("humans labelling every item: none (no single human labels every item)")
    if n and not available[:, 0].all():
        lines.append(
            f"primary layer: {matrix.humans[0]} misses {int((~available[:, 0]).sum())} items"
        )
    lines.append("per human:")
    lines += _table(
        ["human", "items", "coverage"],
        [
            [name, int(count), f"{share:.3f}"]
            for name, count, share in zip(
                matrix.humans, available.sum(axis=0), matrix.coverage, strict=True
            )
        ],
    )
    lines.append("items labelled by both (pairwise overlap):")
    overlaps = matrix.overlaps
    lines += _table(
        ["", *matrix.humans],
        [[name, *overlaps[k].tolist()] for k, name in enumerate(matrix.humans)],
    )
    per_item = available.sum(axis=1)
    if n:
        lines.append(
            f"human labels per item: min {int(per_item.min())}, "
            f"median {float(np.median(per_item)):g}, max {int(per_item.max())}"
        )
    else:
        lines.append("human labels per item: no items")
    lines.append("per judge:")
    judged = (matrix.judge_labels >= 0).sum(axis=0)
    lines += _table(
        ["judge", "items", "coverage"],
        [
            [name, int(count), f"{count / n if n else 0.0:.3f}"]
            for name, count in zip(matrix.judges, judged, strict=True)
        ],
    )
    return "\n".join(lines)
