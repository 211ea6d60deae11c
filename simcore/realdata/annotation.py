"""The annotation matrix and the problem reports of every real-data loader.

:class:`AnnotationMatrix` holds the labels of humans and judges on the same items as integer
codes and checks that its names and arrays fit together. :class:`DataError` carries every
problem found in an input, each as ``SOURCE: key: what is wrong (got VALUE)``;
:func:`got_text` and :func:`list_text` format the parts of those messages, for every
package that checks an input (cards, ceilings, advise's DataFrames).
"""

from dataclasses import dataclass
from pathlib import Path

import numpy as np

NO_GROUPS = "all"
"""Name of the single group of a matrix without groups."""

MAX_CODES = int(np.iinfo(np.int16).max)
"""The most distinct labels (or groups) a matrix holds: its codes are int16."""


class DataError(ValueError):
    """Bad annotation data or data block; ``problems`` lists 'SOURCE: key: problem (got VALUE)'."""

    def __init__(self, problems):
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


def got_text(value):
    """Return ``value`` as it appears after ``got`` in a problem message.

    Strings and paths quoted, lists element by element, ``None`` as ``null``, booleans as
    ``true``/``false``, a mapping as ``a mapping``, anything else by its ``repr``.
    """
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, Path):
        return repr(str(value))
    if isinstance(value, list | tuple):
        return "[" + ", ".join(got_text(v) for v in value) + "]"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "a mapping"
    return repr(value)


def too_many_codes(source, key, count):
    """Return the problem of a matrix with more than :data:`MAX_CODES` labels or groups."""
    return (
        f"{source}: {key}: at most {MAX_CODES} distinct values can be read (their codes are "
        f"16-bit) (got {count} distinct values)"
    )


def label_numbers(labels):
    """Return the number each label text stands for, float ``(L,)``, or None if one is not.

    A label is a number when it parses as a finite float; the order and spacing of a
    rating scale are then read from its labels, never guessed.
    """
    try:
        values = np.array([float(label) for label in labels])
    except (TypeError, ValueError):
        return None
    return values if np.isfinite(values).all() else None


def list_text(names, limit=20):
    """Return ``names`` joined by commas, shortened after ``limit`` entries.

    Beyond ``limit`` the first ``limit`` names are followed by ``... (N in all)``.
    """
    names = [str(name) for name in names]
    if len(names) > limit:
        return ", ".join(names[:limit]) + f", ... ({len(names)} in all)"
    return ", ".join(names)


def unknown_names(names, valid, source, key, kind="rater", listed=None, lister=None):
    """Return one problem for each of ``names`` that is not one of the raters ``valid``.

    Every check of a rater name (``humans``, ``judges``, a judges file's, ``--judge``,
    ``--raters``, an expert) words its refusal here, so each says the same::

        SOURCE: KEY: unknown KIND (LISTED: a, b, ...; LISTER lists them all) (got 'NAME');
        did you mean 'NEAR'?

    Parameters
    ----------
    names : iterable
        The names asked for (compared as text).
    valid : sequence
        The names that exist.
    source, key : str
        The file (or ``DataFrame``) and the option or key the names came from.
    kind : str
        What the name should be: ``rater``, ``human``, ``judge``.
    listed : str, optional
        How the list of ``valid`` is introduced (default ``"{kind}s in the file"``).
    lister : str, optional
        What shows every valid name, named only when the list is shortened (more than 20
        names); default ``simcore inspect SOURCE --json``.

    Returns
    -------
    list of str
        Empty when every name is valid. The nearest valid name is suggested
        (:func:`simcore.options.did_you_mean`) when one is near.
    """
    from simcore.options import did_you_mean

    valid = [str(name) for name in valid]
    known = set(valid)
    listed = listed or f"{kind}s in the file"
    if lister is None:
        lister = (
            "the frame's rater column holds"
            if str(source) == "DataFrame"
            else f"`simcore inspect {source} --json` lists"
        )
    shortened = f"; {lister} them all" if len(valid) > 20 else ""
    return [
        f"{source}: {key}: unknown {kind} ({listed}: {list_text(valid) or 'none'}{shortened}) "
        f"(got {got_text(str(name))}){did_you_mean(name, valid)}"
        for name in names
        if str(name) not in known
    ]


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
    item_ids : tuple of str
        The user's id of each item, for messages and outputs; the same as ``items`` (the
        default) unless items are keyed by ``(item, group)`` and an id repeats across
        groups, when ``items`` holds ``GROUP/ITEM``.
    slots : bool
        Declared by the caller (``--slots``, ``data.slots``): the human columns are label
        positions (slot 1 holds each item's first label, ...), not people; never guessed.
    label_merges : tuple of LabelMerge
        The groups of labels that differed only in case or surrounding spaces and were
        merged into one spelling when the caller asked
        (:mod:`~simcore.realdata.label_spellings`); empty (the default) otherwise.

    A matrix with no judge (``judges == ()``, ``judge_labels`` of shape ``(n, 0)``) is
    human-only: it can be described, but the rule needs a judge (:func:`require_judges`).

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
    item_ids: tuple = None
    slots: bool = False
    label_merges: tuple = ()

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
                problems.append(
                    f"{source}: {name}: names must be distinct (got {got_text(repeated)})"
                )
        crowded = [
            name for name in ("labels", "group_names") if len(getattr(self, name)) > MAX_CODES
        ]
        if crowded:  # the codes could not be stored: nothing more to check
            raise DataError(
                problems
                + [too_many_codes(source, name, len(getattr(self, name))) for name in crowded]
            )
        if self.item_ids is None:
            setter(self, "item_ids", self.items)
        setter(self, "item_ids", tuple(str(value) for value in self.item_ids))
        if len(self.item_ids) != len(self.items):
            problems.append(
                f"{source}: item_ids: must give one id per item (got {len(self.item_ids)} "
                f"for {len(self.items)} items)"
            )
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
                    f"(valid: {list_text(self.group_names)}) (got {got_text(group)})"
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
            item_ids=tuple(item for item, kept in zip(self.item_ids, keep, strict=True) if kept),
            slots=self.slots,
            label_merges=self.label_merges,
        )


def require_judges(matrix, needed_by):
    """Raise :class:`DataError` when ``matrix`` is human-only; ``needed_by`` names the command.

    The message names the source and says how to give judges: the ``alttest`` folder's
    ``llm_annotations.json``, a CSV's judges list, or a separate judges file.
    """
    if matrix.n_judges:
        return
    raise DataError(
        [
            f"{matrix.source}: judges: the matrix has no judge ({matrix.n_humans} humans "
            f"only); {needed_by} needs at least one: give llm_annotations.json in the folder, "
            "the judges of a CSV file (--judges / data.judges), or a separate judges file "
            "(--judges-file / data.judges_path) (got [])"
        ]
    )
