"""The Python API of ``simcore advise``: ``simcore.advise(data, ...) -> Advice``.

``import simcore; advice = simcore.advise("matrix.csv", judges=["judge_a"])`` audits a
sparse validation matrix and plans its next round exactly as the command line does (the
command is a thin layer over :func:`advise_each_group`); the :class:`Advice` returned
gives the report's tables as pandas DataFrames (``verdict_table``, ``risk_table``,
``risk_curve``, ``budget_table``, ``model_table``, ``next_round``), the fitted models
(``models``), ``to_markdown()`` (the text of ``report.md``) and ``plot()`` (the figure of
``report.png``).
"""

import sys
from pathlib import Path

from simcore.advise.advice import Advice, advise_groups
from simcore.model.designs import DESIGNS
from simcore.realdata.matrix import load_ratings, require_judges

__all__ = ["Advice", "advise", "advise_each_group", "check_options", "load_matrix"]

CHOICES = {
    "rule": ("point", "alt_test"),
    "scale": ("categorical", "numeric"),
    "model": ("auto", "dawid-skene", "one-coin"),
}
"""The values the string options take (the command line's ``choices``)."""


def advise(data, humans=None, judges=None, **options):
    """Audit a sparse validation matrix and plan its next annotation round.

    Parameters
    ----------
    data : str, pathlib.Path or pandas.DataFrame
        A path ``simcore advise DATA`` reads (a folder with the JSON pair
        ``human_annotations.json`` / ``llm_annotations.json``, a long CSV
        ``item,rater,label[,group]``, plain or gzip, or a JSON of humans), or a long
        DataFrame with the columns ``item, rater, label`` and optionally ``group``
        (:func:`simcore.advise.frames.frame_matrix`; it gives the same advice as a CSV file
        of its rows).
    humans, judges : list of str or str, optional
        Which raters are humans (primary first) and which are judges, as ``--humans`` and
        ``--judges`` (a string is split at commas). For a CSV file or a DataFrame the
        judges must be named (or given by ``judges_file``); every other rater is human.
    **options
        ``judges_file`` (``--judges-file``), ``audit`` (the judges to audit, default all;
        ``--judge``), ``ordinal``, ``group_separator``, ``pool_groups``, ``rule``,
        ``epsilon`` (``--eps``), ``target``, ``budget``, ``design``, ``trials``, ``seed``,
        ``model``, ``scale``, ``min_pairs`` and ``progress`` (a callable given each phase's
        message); the defaults are the command line's (:func:`advise_each_group`).

    Returns
    -------
    Advice or dict
        One :class:`~simcore.advise.advice.Advice` for a matrix without groups, with one
        group, or with ``pool_groups=True``; ``{group: Advice}`` for several groups, each
        audited on its own items (as ``simcore advise`` does).

    Raises
    ------
    ValueError
        An option out of range, or bad data: a :class:`~simcore.realdata.matrix.DataError`
        (a ``ValueError``) naming the file or DataFrame column and what is wrong,
        including a matrix without judges.
    """
    advices = advise_each_group(data, humans=humans, judges=judges, **options)
    return next(iter(advices.values())) if len(advices) == 1 else advices


def advise_each_group(
    data,
    humans=None,
    judges=None,
    judges_file=None,
    audit=None,
    ordinal=False,
    group_separator=None,
    pool_groups=False,
    progress=None,
    **options,
):
    """Return ``{group: Advice}`` of ``data`` (:func:`advise`'s parameters).

    The options and their defaults are those of ``simcore advise``: ``rule="point"``,
    ``epsilon=0.05``, ``target=0.05``, ``budget=None``, ``design="strat"``,
    ``trials=300``, ``seed=0``, ``model="auto"``, ``scale="categorical"``,
    ``min_pairs=0``; they are checked (:func:`check_options`) before the data is read.
    Each group is audited by :func:`simcore.advise.advice.advise_groups`.
    """
    options = {**DEFAULTS, **options}
    unknown = sorted(set(options) - set(DEFAULTS))
    if unknown:
        raise TypeError(
            f"advise: unknown option {unknown[0]!r} (options: judges_file, audit, ordinal, "
            f"group_separator, pool_groups, progress, {', '.join(DEFAULTS)})"
        )
    check_options(options)
    matrix = load_matrix(data, humans, judges, judges_file, ordinal, group_separator)
    return advise_groups(
        matrix, pool_groups=pool_groups, judges=_names(audit), progress=progress, **options
    )


DEFAULTS = {
    "rule": "point",
    "epsilon": 0.05,
    "target": 0.05,
    "budget": None,
    "design": "strat",
    "trials": 300,
    "seed": 0,
    "model": "auto",
    "scale": "categorical",
    "min_pairs": 0,
}
"""The options of :func:`advise_each_group` and their defaults (the command line's)."""


def load_matrix(data, humans=None, judges=None, judges_file=None, ordinal=False, separator=None):
    """Return the annotation matrix of a path or a long DataFrame; refuse one without judges.

    A path is read by :func:`simcore.realdata.matrix.load_ratings`, a DataFrame by
    :func:`simcore.advise.frames.frame_matrix`; ``humans`` and ``judges`` are lists of
    names or comma-separated strings; ``separator`` is the group separator of JSON input.
    """
    names = {"humans": _names(humans), "judges": _names(judges)}
    names = {key: value for key, value in names.items() if value}
    if _is_frame(data):
        if separator is not None:
            raise ValueError(
                "group_separator: only for JSON input; a DataFrame gives groups in a group "
                f"column (got {separator!r})"
            )
        from simcore.advise.frames import frame_matrix

        matrix = frame_matrix(data, ordinal=ordinal, judges_path=judges_file, **names)
    elif isinstance(data, str | Path):
        matrix = load_ratings(
            data, ordinal=ordinal, group_separator=separator, judges_path=judges_file, **names
        )
    else:
        raise TypeError(f"data: a path or a pandas DataFrame (got {type(data).__name__})")
    require_judges(matrix, "simcore advise")
    return matrix


def _is_frame(data):
    """Whether ``data`` is a pandas DataFrame (pandas is not imported to find out)."""
    pandas = sys.modules.get("pandas")
    return pandas is not None and isinstance(data, pandas.DataFrame)


def _names(value):
    """Return a list of names from a list or a comma-separated string; None for none."""
    if value is None or isinstance(value, str | Path) and not str(value):
        return None
    if isinstance(value, str):
        return value.split(",")
    return list(value)


def check_options(options, names=None):
    """Raise ``ValueError`` for the first option out of range, named as ``names`` says.

    ``names`` maps an option to how the message names it (the command line's ``--eps``
    for ``epsilon``); the default is the option's own name.
    """
    names = names or {}

    def name(key):
        return names.get(key, key)

    for key, values in CHOICES.items():
        if options[key] not in values:
            choices = ", ".join(values)
            raise ValueError(f"{name(key)}: must be one of {choices} (got {options[key]})")
    checks = (
        ("epsilon", 0.0 <= options["epsilon"] <= 1.0, "must be in [0, 1]"),
        ("target", 0.0 < options["target"] < 1.0, "must be in (0, 1)"),
        ("trials", options["trials"] >= 20, "must be >= 20"),
        ("design", options["design"] in DESIGNS, f"must be one of {', '.join(DESIGNS)}"),
        ("budget", options["budget"] is None or options["budget"] >= 1, "must be >= 1"),
    )
    for key, ok, text in checks:
        if not ok:
            raise ValueError(f"{name(key)}: {text} (got {options[key]})")
    min_pairs, rule = options["min_pairs"], options["rule"]
    if min_pairs < 0 or (min_pairs > 0 and rule != "point"):
        raise ValueError(
            f"{name('min_pairs')}: must be >= 0, and 0 with {name('rule')} alt_test, which "
            f"skips humans with fewer than 30 items instead (got {min_pairs} with "
            f"{name('rule')} {rule})"
        )
