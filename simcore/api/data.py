"""The Python functions of the data commands: ``inspect``, ``ceiling``, ``wellposed``, cards.

Each takes what its command takes, a path or the long ``item, rater, label[, group]``
DataFrame users already have, read by the one reader
(:func:`simcore.realdata.readers.read_annotations`), and the command's declared options
(:mod:`simcore.command_options`, checked with their Python names), and returns its typed
result (:mod:`simcore.api.results`: :class:`~simcore.api.results.InspectResult`,
:class:`~simcore.api.results.CeilingResult`, ...) whose ``to_dict()`` is the command's
``--json`` document and ``to_markdown()`` its text. The command line (:mod:`simcore.cli`) is
a thin layer over these functions, so the two give the same numbers.
"""

from __future__ import annotations

import argparse
import datetime
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from simcore import command_options as declared
from simcore.api.results import (
    AgreementResult,
    CardCheckResult,
    CardResult,
    CeilingResult,
    InspectResult,
    WellposedResult,
)
from simcore.options import (
    DEFAULT,
    Default,
    check_values,
    defaults,
    given_values,
    suggests_keywords,
)

if TYPE_CHECKING:
    import pandas as pd

DataSource: TypeAlias = "str | Path | pd.DataFrame"
"""What every data command reads: a path the one reader reads, or a long DataFrame."""

__all__ = [
    "agreement",
    "card",
    "card_check",
    "ceiling",
    "inspect",
    "inspect_matrix",
    "wellposed",
]


def checked_options(command, given, options):
    """Return ``given`` completed with the declared defaults, after checking every value.

    ``given`` holds declared names only (:func:`simcore.options.given_values`); an unknown
    keyword never reaches here (:func:`simcore.options.suggests_keywords`).
    """
    values = {**defaults(options), **given}
    for option in options:  # text the command line would parse is parsed the same way
        value = values[option.name]
        if option.parse is not None and option.type is not str and isinstance(value, str):
            try:
                values[option.name] = option.parse(value)
            except argparse.ArgumentTypeError as error:
                raise ValueError(f"{command}: {option.name}: {error}") from None
    check_values(values, options)
    from simcore.realdata.readers import name_list

    for name in NAME_KEYWORDS:  # checked here, read by the one reader or the command
        if values.get(name) is not None:
            name_list(values[name], name)
    return values


NAME_KEYWORDS = ("humans", "judges", "raters", "label_order")
"""Keywords holding rater or label names: a list of texts or one comma-separated text."""


def _matrix_document(matrix, shape):
    """Return the numbers of ``simcore inspect``: sizes, raters, labels, groups, ``shape``."""
    import numpy as np

    from simcore.realdata.label_scale import EXACT_MATCH, matrix_scale

    labelled = (matrix.human_labels >= 0).sum(axis=0)
    per_item = (matrix.human_labels >= 0).sum(axis=1)
    group_sizes = np.bincount(matrix.groups, minlength=len(matrix.group_names))
    return {
        "source": matrix.source,
        "items": matrix.n_items,
        "humans": [
            {"name": name, "items": int(count)}
            for name, count in zip(matrix.humans, labelled, strict=True)
        ],
        "primary": matrix.humans[0],
        "primary_labels_every_item": bool(labelled[0] == matrix.n_items),
        "judges": list(matrix.judges),
        "labels": list(matrix.labels),
        "ordinal": bool(matrix.ordinal),
        "scale": {**matrix_scale(matrix).to_dict(), "scoring": EXACT_MATCH},
        "label_merges": [merge.to_dict() for merge in matrix.label_merges],
        "groups": [
            {"name": name, "items": int(size)}
            for name, size in zip(matrix.group_names, group_sizes, strict=True)
        ],
        "human_labels": int(labelled.sum()),
        "density": float(labelled.sum() / (matrix.n_items * matrix.n_humans)),
        "humans_per_item": {
            "min": int(per_item.min()),
            "median": float(np.median(per_item)),
            "max": int(per_item.max()),
        },
        "shape": shape.to_dict(),
    }


@suggests_keywords
def inspect(  # noqa: PLR0913 (every declared option is a keyword)
    data: DataSource,
    *,
    humans: Sequence[str] | str | None | Default = DEFAULT,
    judges: Sequence[str] | str | None | Default = DEFAULT,
    judges_file: str | Path | None | Default = DEFAULT,
    group_separator: str | None | Default = DEFAULT,
    columns: Mapping[str, str] | None | Default = DEFAULT,
    slots: bool | Default = DEFAULT,
    label_order: Sequence[str] | str | None | Default = DEFAULT,
    merge_label_variants: bool | Default = DEFAULT,
) -> InspectResult:
    """Describe an annotation matrix: sizes, raters, labels, groups, density and overlaps.

    Parameters
    ----------
    data : str, pathlib.Path or pandas.DataFrame
        Any input the one reader reads (an alttest folder, a JSON file of humans, a long or
        wide CSV, plain or gzip, a long DataFrame).
    humans, judges, judges_file, group_separator, columns, slots, label_order : optional
    merge_label_variants : optional
        ``humans``, ``judges`` (lists or comma-separated texts), ``judges_file``,
        ``group_separator``, ``columns``, ``slots`` (True: the human columns are label
        positions, not people), ``label_order``, ``merge_label_variants`` (True: merge
        labels that differ only in case or surrounding spaces, which are otherwise refused).
        Without judges a long table is human-only.

    Returns
    -------
    InspectResult
        ``to_dict()``: ``source``, ``items``, ``humans`` (``name``, ``items`` labelled, primary
        first), ``primary``, ``primary_labels_every_item``, ``judges``, ``labels``,
        ``ordinal``, ``label_merges`` (each group of labels differing only in case merged
        with ``merge_label_variants=True``: ``into``, ``merged``, ``counts`` per spelling
        before the merge; empty otherwise), ``groups`` (``name``, ``items``),
        ``human_labels`` (cells labelled),
        ``density`` (their share of the item-human cells), ``humans_per_item``
        (``min``, ``median``, ``max``), ``shape`` (the matrix's kind, dense panel, sparse
        panel, crowd or slots, the numbers behind it and the rule form ``auto`` picks:
        :mod:`simcore.realdata.data_shape`),
        ``roles_note`` (the line saying every rater of a
        table was read as a human, "" where the roles are known); tables ``humans`` and
        ``groups``.
    """
    roles = checked_options(
        "inspect", given_values(locals(), declared.DATA_OPTIONS), declared.DATA_OPTIONS
    )
    from simcore.realdata.readers import read_annotations, roles_note

    return inspect_matrix(read_annotations(data, **roles), roles_note(data, roles))


@suggests_keywords
def agreement(  # noqa: PLR0913 (every declared option is a keyword)
    data: DataSource,
    coefficient: str | Default = DEFAULT,
    *,
    humans: Sequence[str] | str | None | Default = DEFAULT,
    judges: Sequence[str] | str | None | Default = DEFAULT,
    judges_file: str | Path | None | Default = DEFAULT,
    group_separator: str | None | Default = DEFAULT,
    columns: Mapping[str, str] | None | Default = DEFAULT,
    slots: bool | Default = DEFAULT,
    label_order: Sequence[str] | str | None | Default = DEFAULT,
    merge_label_variants: bool | Default = DEFAULT,
    level: str | Default = DEFAULT,
    weights: str | Default = DEFAULT,
    raters: Sequence[str] | str | None | Default = DEFAULT,
    boot: int | Default = DEFAULT,
    seed: int | Default = DEFAULT,
    confidence: float | Default = DEFAULT,
) -> AgreementResult:
    """One agreement coefficient over chosen raters, with an item-bootstrap interval.

    The coefficient as its authors define it for several raters with missing labels
    (:mod:`simcore.model.weighted`): Krippendorff's alpha on the coincidence matrix at the
    ``nominal``, ``ordinal``, ``interval`` or ``ratio`` level, Gwet's AC1 and AC2, the
    percent agreement (``observed``) and Cohen's kappa of two raters, the last three with
    ``identity``, ``linear`` or ``quadratic`` weights.

    Parameters
    ----------
    data : str, pathlib.Path or pandas.DataFrame
        Any input the one reader reads.
    coefficient : str
        ``observed``, ``cohen_kappa``, ``krippendorff_alpha``, ``gwet_ac1`` or ``gwet_ac2``.
    humans, judges, judges_file, group_separator, columns, slots, label_order : optional
    merge_label_variants, level, weights, raters, boot, seed, confidence : optional
        The reader's ``humans``, ``judges``, ``judges_file``, ``group_separator``,
        ``columns``, ``slots``; and ``level``, ``weights``, ``raters`` (names, or one
        comma-separated text; default every human), ``boot``, ``seed``, ``confidence``
        (:data:`simcore.command_options.AGREEMENT_OPTIONS`).

    Returns
    -------
    AgreementResult
        ``to_dict()``: ``source``, ``coefficient``, ``level``, ``weights``, ``raters``,
        ``items``, ``pairable_items`` (labelled by two chosen raters or more),
        ``label_values`` (the number each label stands for), ``values_from`` (``codes``,
        ``numbers`` or ``declared order``), ``agreement`` (None where undefined) and
        ``interval`` (``confidence``, ``low``, ``high``, ``boot``, ``seed``).

    Raises
    ------
    simcore.realdata.annotation.DataError
        A level or weights the coefficient does not take, labels without the numbers or
        order they need, an unknown rater, Cohen's kappa on other than two raters.
    """
    from simcore.realdata.agreement import agreement_document, agreement_text
    from simcore.realdata.readers import read_annotations

    agreement_options = (declared.AGREEMENT_COEFFICIENT, *declared.AGREEMENT_OPTIONS)
    given = given_values(locals(), declared.DATA_OPTIONS + agreement_options)
    values = checked_options("agreement", given, declared.DATA_OPTIONS + agreement_options)
    reader = {key: values[key] for key in declared.READER_KEYS}
    settings = {option.name: values[option.name] for option in agreement_options}
    document = agreement_document(read_annotations(data, **reader), settings)
    return AgreementResult("agreement", document, agreement_text(document))


def inspect_matrix(matrix, note=""):
    """Return :func:`inspect`'s result for a matrix already read (a scenario's data block)."""
    from simcore.realdata.data_shape import data_shape
    from simcore.realdata.describe import describe_matrix

    shape = data_shape(matrix)  # one pass over the matrix, for the text and the document
    document = {**_matrix_document(matrix, shape), "roles_note": note}
    text = describe_matrix(matrix, shape=shape) + (f"\n{note}" if note else "")
    return InspectResult("inspect", document, text, {"humans": "humans", "groups": "groups"})


@suggests_keywords
def ceiling(  # noqa: PLR0913 (every declared option is a keyword)
    data: DataSource,
    *,
    humans: Sequence[str] | str | None | Default = DEFAULT,
    judges: Sequence[str] | str | None | Default = DEFAULT,
    judges_file: str | Path | None | Default = DEFAULT,
    group_separator: str | None | Default = DEFAULT,
    columns: Mapping[str, str] | None | Default = DEFAULT,
    slots: bool | Default = DEFAULT,
    label_order: Sequence[str] | str | None | Default = DEFAULT,
    merge_label_variants: bool | Default = DEFAULT,
    graded: bool | None | Default = DEFAULT,
    criterion: Sequence[str] | str | None | Default = DEFAULT,
    judge_scores: str | Path | None | Default = DEFAULT,
    score_column: str | Default = DEFAULT,
    coefficient: str | None | Default = DEFAULT,
    level: str | Default = DEFAULT,
    weights: str | Default = DEFAULT,
    boot: int | Default = DEFAULT,
    seed: int | Default = DEFAULT,
    min_shared: int | Default = DEFAULT,
) -> CeilingResult:
    """Human ceilings of a multi-rater matrix, and judges read against them.

    Parameters
    ----------
    data : str, pathlib.Path or pandas.DataFrame
        Any input the one reader reads.
    humans, judges, judges_file, group_separator, columns, slots, label_order : optional
    merge_label_variants, graded, criterion, judge_scores, score_column, coefficient : optional
    level, weights, boot, seed, min_shared : optional
        The reader's ``humans``, ``judges``, ``judges_file``, ``group_separator``,
        ``columns``; and ``graded`` (None: Spearman when every label is a number with at
        least 3 values, else Cohen's kappa), ``coefficient``, ``level``, ``weights`` (score
        with that agreement coefficient instead), ``criterion`` (list of groups), ``judge_scores``
        (a published scores CSV), ``score_column``, ``boot``, ``seed``, ``min_shared``
        (fewest shared items of a scored rater pair, default 3)
        (:data:`simcore.command_options.CEILING_OPTIONS`).

    Returns
    -------
    CeilingResult
        ``to_dict()``: ``source``, ``graded`` (None under a coefficient), ``coefficient``
        (its name, or None), ``boot``, ``seed``, ``min_shared`` and
        ``groups``, one row per group with the columns of ``simcore ceiling --csv``
        (``k``, ``k_others``, ``min_shared``; ``reliability`` (r-hat, weighted by shared
        items), ``unweighted_reliability``, ``benchmark``, ``leave_one_out``,
        ``predicted_leave_one_out``, ``symmetric``, each with ``_low`` and ``_high``;
        ``interval_wide``, ``weighted_items``, ``heavy_share``, ``warning``;
        ``judges_below``/``_within``/``_above``), ``heavy_items`` (ids of the items the
        warning names), ``separation`` and ``judges`` (``judge``, ``score``, ``source``,
        ``position``, ``reading``); table ``groups``.
    """
    from simcore.api.instrument import ceiling_result

    options = declared.DATA_OPTIONS + declared.CEILING_OPTIONS
    values = checked_options("ceiling", given_values(locals(), options), options)
    return ceiling_result(data, values)


@suggests_keywords
def wellposed(  # noqa: PLR0913 (every declared option is a keyword)
    data: DataSource,
    *,
    judges: Sequence[str] | str | None | Default = DEFAULT,
    group_separator: str | None | Default = DEFAULT,
    criterion: str | None | Default = DEFAULT,
    merge_label_variants: bool | Default = DEFAULT,
    graded: bool | None | Default = DEFAULT,
    coefficient: str | None | Default = DEFAULT,
    level: str | Default = DEFAULT,
    weights: str | Default = DEFAULT,
    boot: int | Default = DEFAULT,
    seed: int | Default = DEFAULT,
) -> WellposedResult:
    """How well judges agree with one another on unlabelled items, per group.

    Parameters
    ----------
    data : str, pathlib.Path or pandas.DataFrame
        An alttest folder (its judges), a JSON ``{judge: {item: label}}`` file, a long CSV or
        DataFrame (every rater is taken as a judge unless ``judges`` names them).
    judges, group_separator, criterion, merge_label_variants, graded, coefficient : optional
    level, weights, boot, seed : optional
        ``judges``, ``group_separator``, ``criterion``, ``graded``, ``coefficient``,
        ``level``, ``weights`` (score each judge pair with an agreement coefficient instead of
        Spearman's rho or kappa), ``boot``, ``seed``
        (:data:`simcore.command_options.WELLPOSED_OPTIONS`).

    Returns
    -------
    WellposedResult
        ``to_dict()``: ``source``, ``judges``, ``labels``, ``graded`` (None under a
        coefficient), ``coefficient`` (its name with the level or weights, or None),
        ``boot``, ``seed``, ``groups`` (the rows of ``simcore wellposed --csv``); table
        ``groups``.
    """
    from simcore.api.instrument import wellposed_result

    options = declared.WELLPOSED_OPTIONS
    values = checked_options("wellposed", given_values(locals(), options), options)
    return wellposed_result(data, values)


@suggests_keywords
def card(  # noqa: PLR0913 (every declared option is a keyword)
    data: DataSource,
    *,
    humans: Sequence[str] | str | None | Default = DEFAULT,
    judges: Sequence[str] | str | None | Default = DEFAULT,
    judges_file: str | Path | None | Default = DEFAULT,
    group_separator: str | None | Default = DEFAULT,
    columns: Mapping[str, str] | None | Default = DEFAULT,
    slots: bool | Default = DEFAULT,
    label_order: Sequence[str] | str | None | Default = DEFAULT,
    merge_label_variants: bool | Default = DEFAULT,
    judge: str | None | Default = DEFAULT,
    criterion: str | None | Default = DEFAULT,
    population: str | None | Default = DEFAULT,
    fail_at_most: float | None | Default = DEFAULT,
    fail_labels: Sequence[str] | str | None | Default = DEFAULT,
    labels: Sequence[str] | str | None | Default = DEFAULT,
    date: datetime.date | str | None | Default = DEFAULT,
    expires_days: int | Default = DEFAULT,
    expires_on_alarm: bool | Default = DEFAULT,
    confidence: float | Default = DEFAULT,
    youden_floor: float | Default = DEFAULT,
    truth: str | Default = DEFAULT,
    truth_model: str | Default = DEFAULT,
    boot: int | Default = DEFAULT,
    seed: int | Default = DEFAULT,
) -> CardResult:
    """Measure a judge card: TPR/TNR with intervals on one criterion and population.

    Parameters
    ----------
    data : str, pathlib.Path or pandas.DataFrame
        Humans and the judge, any input the one reader reads. A long table does not say
        which raters are judges: give ``judges`` (every judge in it) or ``humans``.
    humans, judges, judges_file, group_separator, columns, slots, label_order : optional
    merge_label_variants, judge, criterion, population, fail_at_most, fail_labels : optional
    labels, date, expires_days, expires_on_alarm, confidence, youden_floor : optional
        ``judge``, ``criterion``, ``population`` (required), ``fail_at_most`` or
        ``fail_labels`` (exactly one), the reader's ``humans``, ``judges``,
        ``judges_file``, ``group_separator``, ``columns``, and ``labels``, ``date`` (a
        :class:`datetime.date` or text ``YYYY-MM-DD``; default today), ``expires_days`` or
        ``expires_on_alarm``, ``confidence``, ``youden_floor``
        (:data:`simcore.command_options.CARD_OPTIONS`).
    truth, truth_model, boot, seed : optional
        What the judge is measured against: ``majority`` (default) or ``latent`` (a
        latent-class fit of the humans and the judge, with ``truth_model`` and ``boot``
        refits from ``seed``; :mod:`simcore.instrument.card.latent`). The card records it
        in ``truth``; a latent card keeps the majority's figures in ``majority``.

    Returns
    -------
    CardResult
        ``to_dict()`` is ``{"command": "card", "card": CARD}``, ``simcore card --json``;
        ``CARD`` is the card itself (the JSON ``simcore card --out`` writes, and what
        :func:`simcore.calibrate` takes as ``card=``).
    """
    from simcore.api.instrument import card_result

    options = declared.DATA_OPTIONS + declared.CARD_OPTIONS
    values = checked_options("card", given_values(locals(), options), options)
    return card_result(data, values)


@suggests_keywords
def card_check(  # noqa: PLR0913 (every declared option is a keyword)
    card_path: str | Path,
    data: DataSource,
    *,
    humans: Sequence[str] | str | None | Default = DEFAULT,
    judges: Sequence[str] | str | None | Default = DEFAULT,
    judges_file: str | Path | None | Default = DEFAULT,
    group_separator: str | None | Default = DEFAULT,
    columns: Mapping[str, str] | None | Default = DEFAULT,
    slots: bool | Default = DEFAULT,
    label_order: Sequence[str] | str | None | Default = DEFAULT,
    merge_label_variants: bool | Default = DEFAULT,
    labels: Sequence[str] | str | None | Default = DEFAULT,
    drop: float | Default = DEFAULT,
    alpha: float | Default = DEFAULT,
) -> CardCheckResult:
    """Check a judge card on a labelled sample of a new population (``card --check``).

    Parameters
    ----------
    card_path : str or pathlib.Path
        The card JSON file.
    data : str, pathlib.Path or pandas.DataFrame
        The new labelled sample.
    humans, judges, judges_file, group_separator, columns, slots, label_order : optional
    merge_label_variants, labels, drop, alpha : optional
        The reader's keywords, ``group_separator`` (default the card's), ``labels``,
        ``drop``, ``alpha`` (:data:`simcore.command_options.CHECK_OPTIONS`).

    Returns
    -------
    CardCheckResult
        ``to_dict()``: ``card``, ``judge``, ``criterion``, ``population``, ``n``, ``tied``,
        ``unparseable``, ``verdict``, ``expires`` (the card's: a date or ``on-alarm``) and
        ``rates`` (one row per rate: card and new estimates and counts, p-value, power, rows
        needed); table ``rates``.
    """
    from simcore.api.instrument import card_check_result
    from simcore.options import path_value

    path_value(card_path, "card_path (the card's JSON file)")
    options = declared.DATA_OPTIONS + declared.CHECK_OPTIONS
    values = checked_options("card --check", given_values(locals(), options), options)
    return card_check_result(card_path, data, values)
