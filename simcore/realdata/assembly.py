"""Checks and assembly shared by the loaders: from parsed raters to an annotation matrix.

The loaders parse their files into ``{rater: {item: label text}}``; :func:`_build` chooses the
humans and judges, settles the items, the labels and the groups, collects every problem on
the way and returns the :class:`~simcore.realdata.annotation.AnnotationMatrix`. The rater
name, label and label-list checks used by the loaders and the data block live here too.
"""

import math

import numpy as np

from simcore.realdata.annotation import (
    MAX_CODES,
    NO_GROUPS,
    AnnotationMatrix,
    DataError,
    got_text,
    list_text,
    too_many_codes,
    unknown_names,
)


def _label_text(value):
    """Return ``(text, problem)`` for one raw label from a JSON file."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return None, "label must be a string or a number"
    if isinstance(value, float) and not math.isfinite(value):
        return None, "label must be a finite number"
    text = str(value).strip()  # names and labels are stripped in every format
    if not text:
        return None, "label must not be empty"
    return text, None


def _names(value, key, source, problems):
    """Return a list of rater names from a parameter, or None when it is unusable."""
    if isinstance(value, str | int) and not isinstance(value, bool):
        value = [value]
    if not isinstance(value, list | tuple) or not all(
        isinstance(name, str | int) and not isinstance(name, bool) for name in value
    ):
        problems.append(f"{source}: {key}: must be a list of names (got {got_text(value)})")
        return None
    names = [str(name) for name in value]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        problems.append(f"{source}: {key}: names must be distinct (got {got_text(repeated)})")
        return None
    return names


CONTROL_CATEGORIES = ("Cc", "Zl", "Zp")
"""Unicode categories a rater name must not hold: control characters (a newline, a tab, an
escape) and line or paragraph separators, which would break every report's table."""


def _check_rater_names(data, source, problems):
    """Append a problem for each rater name of ``data`` holding a control character."""
    import unicodedata

    for name in data:
        if any(unicodedata.category(char) in CONTROL_CATEGORIES for char in str(name)):
            problems.append(
                f"{source}: rater: a name must not hold control characters such as a newline "
                f"or a tab (got {got_text(str(name))})"
            )


def _item_text(sources, item):
    """Return how a problem message shows ``item``: ``sources["item_text"]``, else ``repr``."""
    return sources.get("item_text", repr)(item)


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

    ``known`` is ``(description, names[, lister])`` shown when a requested name is not
    ``available`` (:func:`~simcore.realdata.annotation.unknown_names`).
    """
    if requested is None:
        return list(default)
    names = _names(requested, key, source, problems)
    if names is None:
        return []
    problems += unknown_names(names, known[1], source, key, kind, known[0], *known[2:])
    return [name for name in names if name in available]


def _build(  # noqa: PLR0913 (a value object is still to come)
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
    item_ids=None,
):
    """Validate the parsed raters and return the :class:`AnnotationMatrix`.

    ``human_data`` and ``judge_data`` map rater -> {item: label text}; ``item_group`` maps
    an item id to its group name (None: the item has none) or is None (no groups);
    ``sources`` names the file reported for ``"humans"``, ``"judges"`` and ``"labels"``
    problems, gives ``"groups"`` as ``(file, key, value)`` for items without a group and
    ``"known"`` as ``{"humans": (description, names), "judges": ...}`` and, optionally,
    ``"item_text"``: item id -> how messages show it (default ``repr``). ``item_ids`` maps
    an item id to the user's id when they differ (items keyed by ``(item, group)``). An
    empty ``judges`` list gives a human-only matrix. Appends to ``problems`` and raises
    :class:`DataError` when there are any.
    """
    _check_rater_names(human_data, sources["humans"], problems)
    _check_rater_names(judge_data or {}, sources["judges"], problems)
    humans, judges = _chosen_raters(human_data, judge_data, humans, judges, sources, problems)
    items = _rated_items(human_data, judge_data, humans, judges, sources, problems)
    cells = [(sources["humans"], name, human_data[name]) for name in humans]
    cells += [(sources["judges"], name, judge_data[name]) for name in judges]
    labels = _matrix_labels(cells, items, labels, sources["labels"], problems)
    code = {label: position for position, label in enumerate(labels)}
    if labels:
        _check_outside_labels(cells, items, labels, code, sources, problems)
    if len(labels) > MAX_CODES:
        problems.append(too_many_codes(sources["labels"], "labels", len(labels)))
    group_names, group_codes = _group_codes(items, item_group, sources, problems)

    if problems:
        raise DataError(problems)

    _check_matrix_fits(source, len(items), len(humans), len(judges))
    human_codes, judge_codes = _label_codes(items, humans, judges, human_data, judge_data, code)
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
        item_ids=None if item_ids is None else tuple(item_ids[item] for item in items),
    )


def _chosen_raters(human_data, judge_data, humans, judges, sources, problems):
    """Return the chosen ``(humans, judges)``; note a rater in both or fewer than 2 humans.

    By default the humans are ordered by the number of items labelled, most first, ties by
    name, and the judges are every judge in file order.
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
            f"{sources['humans']}: humans: rater listed as both human and judge "
            f"(got {got_text(name)})"
        )
    if len(humans) < 2:
        problems.append(
            f"{sources['humans']}: humans: need at least 2 humans (got {got_text(list(humans))})"
        )
    return humans, judges


def _rated_items(human_data, judge_data, humans, judges, sources, problems):
    """Return the sorted items that the humans labelled; note every judge who misses some."""
    items = sorted(set().union(*(human_data[name] for name in humans)))
    if humans and not items:
        problems.append(f"{sources['humans']}: humans: the humans label no items (got 0 items)")
    for judge in judges:
        missing = [item for item in items if item not in judge_data[judge]]
        if missing:
            problems.append(
                f"{sources['judges']}: {judge}: misses {len(missing)} of the {len(items)} items "
                f"the humans labelled, e.g. {_item_text(sources, missing[0])} "
                f"(got {len(items) - len(missing)} of them)"
            )
    return items


def _matrix_labels(cells, items, labels, source, problems):
    """Return the labels in code order: the declared ones, else those given on ``items``.

    ``cells`` lists ``(file, rater, {item: label})`` of the chosen raters; undeclared labels
    are sorted by :func:`_label_sort_key`. Notes fewer than 2 labels.
    """
    item_set = set(items)
    declared = ()
    if labels is None:
        seen = {label for _, _, given in cells for item, label in given.items() if item in item_set}
        labels = sorted(seen, key=_label_sort_key(seen))
    else:
        declared = _declared_labels(labels, source, problems)
        labels = declared if declared is not None else []
    if len(labels) < 2 and items and declared is not None:
        problems.append(f"{source}: labels: need at least 2 labels (got {got_text(labels)})")
    return labels


def _check_outside_labels(cells, items, labels, code, sources, problems):
    """Note every label that a rater gives on ``items`` outside the declared ``labels``.

    Each rater's own labels are visited (not every item for every rater), so a crowd costs
    what it labelled; a problem names the first item in ``items`` order (ids are sorted).
    """
    item_set = set(items)
    for file, rater, given in cells:
        outside = {}
        for item, label in given.items():
            if label not in code and item in item_set:
                outside.setdefault(label, []).append(item)
        for label, where in sorted(outside.items(), key=lambda pair: min(pair[1])):
            problems.append(
                f"{file}: {rater}[{_item_text(sources, min(where))}]: label outside the declared "
                f"labels ({list_text(labels)}) (got {label!r}"
                + (f"; on {len(where)} items of {rater})" if len(where) > 1 else ")")
            )


def _group_codes(items, item_group, sources, problems):
    """Return ``(group_names, group_codes)``; ``((NO_GROUPS,), None)`` without groups.

    ``sources["groups"]`` is the ``(file, key, value)`` reported for items without a group.
    """
    group_names, group_codes = (NO_GROUPS,), None
    if item_group is not None and items:
        names = [item_group(item) for item in items]
        lacking = [item for item, name in zip(items, names, strict=True) if name is None]
        if lacking:
            file, key, value = sources["groups"]
            problems.append(
                f"{file}: {key}: {len(lacking)} of the {len(items)} items have no group, "
                f"e.g. {_item_text(sources, lacking[0])} (got {got_text(value)})"
            )
        else:
            group_names = tuple(sorted(set(names)))
            if len(group_names) > MAX_CODES:
                file, key, _ = sources["groups"]
                problems.append(too_many_codes(file, key, len(group_names)))
                return (NO_GROUPS,), None
            position = {name: index for index, name in enumerate(group_names)}
            group_codes = np.array([position[name] for name in names], dtype=np.int16)
    return group_names, group_codes


BYTES_PER_CELL = 16
"""What one (item, rater) cell of the dense matrix costs while it is built and used: the
int16 codes and their checked copy, the bool mask of labelled cells and its int64 copy
(the overlaps)."""


def _check_matrix_fits(source, n_items, n_humans, n_judges):
    """Refuse a dense ``items x raters`` matrix that cannot fit in memory (DataError)."""
    from simcore.realdata.allocation import check_memory

    raters = n_humans + n_judges
    check_memory(
        BYTES_PER_CELL * n_items * raters + 8 * n_humans**2,
        f"{source}: matrix",
        f"the dense matrix of {n_items} items x {raters} raters would",
        "read fewer items or raters (--humans, --judges name the raters read)",
        f"{n_items} items, {n_humans} humans, {n_judges} judges",
    )


def _label_codes(items, humans, judges, human_data, judge_data, code):
    """Return the int16 ``(n, K)`` human codes (``-1``: no label) and ``(n, J)`` judge codes."""
    index = {item: row for row, item in enumerate(items)}
    human_codes = np.full((len(items), len(humans)), -1, dtype=np.int16)
    for column, name in enumerate(humans):
        for item, label in human_data[name].items():
            human_codes[index[item], column] = code[label]
    judge_codes = np.empty((len(items), len(judges)), dtype=np.int16)
    for column, name in enumerate(judges):
        given = judge_data[name]
        judge_codes[:, column] = [code[given[item]] for item in items]
    return human_codes, judge_codes


def _declared_labels(labels, source, problems):
    """Return the declared labels as text, or None (after a problem) when unusable."""
    if not isinstance(labels, list | tuple):
        problems.append(
            f"{source}: labels: must be a list of label values (got {got_text(labels)})"
        )
        return None
    texts = []
    for value in labels:
        text, problem = _label_text(value)
        if problem:
            problems.append(f"{source}: labels: every {problem} (got {got_text(value)})")
            return None
        texts.append(text)
    repeated = sorted({text for text in texts if texts.count(text) > 1})
    if repeated:
        problems.append(
            f"{source}: labels: labels must be distinct as text (got {got_text(repeated)})"
        )
        return None
    return texts
