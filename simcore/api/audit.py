"""The Python API of ``simcore advise``: ``simcore.advise(data, ...) -> Advice``.

``import simcore; advice = simcore.advise("matrix.csv", judges=["judge_a"])`` audits a
sparse validation matrix and plans its next round exactly as the command line does (the
command is a thin layer over :func:`advise_each_group`); the :class:`Advice` returned
opens with ``recommendation``, the one answer (labels to buy, where, how sure; or none
needed; or the target out of reach), and gives the report's tables as pandas DataFrames
(``verdict_table``, ``risk_table``, ``risk_curve``, ``budget_table``, ``model_table``,
``next_round``), the fitted models
(``models``), ``to_markdown()`` (the text of ``report.md``) and ``plot()`` (the figure of
``report.png``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from pathlib import Path

from simcore.advisor.advice import Advice
from simcore.advisor.advice import advise_groups as advise_matrix_groups
from simcore.advisor.advise_options import OPTIONS
from simcore.advisor.scoring import BLOCK_BYTES, NOMINAL
from simcore.advisor.settings import RULE_KEYWORDS, audit_settings
from simcore.api.data import DataSource
from simcore.model.decision_rule import Rule
from simcore.model.weighted import misplaced_message, scoring_name
from simcore.options import (
    DEFAULT,
    Default,
    check_values,
    defaults,
    did_you_mean,
    given_values,
    suggests_keywords,
)
from simcore.realdata.matrix import require_judges
from simcore.realdata.readers import name_list, read_annotations

__all__ = [
    "Advice",
    "advise",
    "advise_each_group",
    "advise_groups",
    "check_options",
    "load_matrix",
]


@suggests_keywords
def advise(  # noqa: PLR0913 (every declared option is a keyword)
    data: DataSource,
    humans: Sequence[str] | str | None = None,
    judges: Sequence[str] | str | None = None,
    *,
    judges_file: str | Path | None = None,
    audit: Sequence[str] | str | None = None,
    ordinal: bool = False,
    group_separator: str | None = None,
    pool_groups: bool = False,
    slots: bool = False,
    label_order: Sequence[str] | str | None = None,
    merge_label_variants: bool = False,
    progress: Callable[[str], object] | None = None,
    rule: str | Rule | Default = DEFAULT,
    scale: str | Default = DEFAULT,
    coefficient: str | Default = DEFAULT,
    level: str | Default = DEFAULT,
    weights: str | Default = DEFAULT,
    epsilon: float | Default = DEFAULT,
    min_pairs: int | Default = DEFAULT,
    form: str | Default = DEFAULT,
    min_items: int | Default = DEFAULT,
    target: float | Default = DEFAULT,
    budget: int | None | Default = DEFAULT,
    design: str | Default = DEFAULT,
    trials: int | Default = DEFAULT,
    seed: int | Default = DEFAULT,
    model: str | Default = DEFAULT,
) -> Advice:
    """Audit a sparse validation matrix and plan its next annotation round.

    Parameters
    ----------
    data : str, pathlib.Path or pandas.DataFrame
        A path ``simcore advise DATA`` reads (a folder with the JSON pair
        ``human_annotations.json`` / ``llm_annotations.json``, a long CSV
        ``item,rater,label[,group]``, plain or gzip, or a JSON of humans), or a long
        DataFrame with the columns ``item, rater, label`` and optionally ``group``
        (:func:`simcore.realdata.dataframe.frame_matrix`; it gives the same advice as a CSV file
        of its rows).
    humans, judges : list of str or str, optional
        Which raters are humans (primary first) and which are judges, as ``--humans`` and
        ``--judges`` (a string is split at commas). For a CSV file or a DataFrame the
        judges must be named (or given by ``judges_file``); every other rater is human.
    judges_file, audit, ordinal, group_separator, pool_groups, slots, label_order : optional
        How the matrix is read, as the command line's flags: ``judges_file``
        (``--judges-file``), ``audit`` (the judges to audit, default all; ``--audit``),
        ``ordinal``, ``group_separator``, ``pool_groups`` (audit several groups together),
        ``slots`` (the human columns are label positions, ``--slots``), ``label_order``
        (``--label-order``).
    merge_label_variants, progress : optional
        Merge labels differing only in case (``--merge-label-variants``); a callable given
        each phase's message.
    rule, scale, coefficient, level, weights, epsilon, min_pairs, form, min_items : optional
        The rule (``--rule``, ``--eps``, ...; ``coefficient``, ``level`` and ``weights``
        score the point rule's comparisons, ``min_pairs``, ``form`` and ``min_items`` its
        form), each at its declared default when left out
        (:data:`simcore.advisor.advise_options.OPTIONS`). ``rule`` may instead be a whole
        :class:`~simcore.model.decision_rule.Rule` (``simcore.Rule(kind="alt_test",
        epsilon=0.1)``), its ``kind``, ``tau`` and the settings above read from it: the
        keywords above are then left out, and the settings advise does not take
        (``strict``, ``inconclusive``, ``confidence``, the alt_test's ``q`` and item
        counts, ``min_comparisons``) stay at their defaults.
    target, budget, design, trials, seed, model : optional
        The plan: the risk aimed at, the labels to buy, the design of the next round, the
        simulation's trials and seed, the latent-class model.

    Returns
    -------
    Advice
        One :class:`~simcore.advisor.advice.Advice`, for a matrix without groups, with one
        group, or with ``pool_groups=True``. Data with several groups is refused (naming
        them) unless ``pool_groups``: :func:`advise_groups` audits each group on its own.

    Raises
    ------
    ValueError
        An option out of range, data with several groups, or bad data: a
        :class:`~simcore.realdata.matrix.DataError` (a ``ValueError``) naming the file or
        DataFrame column and what is wrong, including a matrix without judges.
    TypeError
        An unknown keyword, naming the valid ones; ``judge=`` names ``audit=``, its new name.
    """
    keywords = _group_keywords(locals())
    advices = advise_each_group(data, humans=humans, judges=judges, one_group=True, **keywords)
    return next(iter(advices.values()))


@suggests_keywords
def advise_groups(  # noqa: PLR0913 (every declared option is a keyword)
    data: DataSource,
    humans: Sequence[str] | str | None = None,
    judges: Sequence[str] | str | None = None,
    *,
    judges_file: str | Path | None = None,
    audit: Sequence[str] | str | None = None,
    ordinal: bool = False,
    group_separator: str | None = None,
    slots: bool = False,
    label_order: Sequence[str] | str | None = None,
    merge_label_variants: bool = False,
    progress: Callable[[str], object] | None = None,
    rule: str | Rule | Default = DEFAULT,
    scale: str | Default = DEFAULT,
    coefficient: str | Default = DEFAULT,
    level: str | Default = DEFAULT,
    weights: str | Default = DEFAULT,
    epsilon: float | Default = DEFAULT,
    min_pairs: int | Default = DEFAULT,
    form: str | Default = DEFAULT,
    min_items: int | Default = DEFAULT,
    target: float | Default = DEFAULT,
    budget: int | None | Default = DEFAULT,
    design: str | Default = DEFAULT,
    trials: int | Default = DEFAULT,
    seed: int | Default = DEFAULT,
    model: str | Default = DEFAULT,
) -> dict[str, Advice]:
    """Audit each group of ``data`` on its own items: ``{group name: Advice}``.

    The parameters are :func:`advise`'s (``pool_groups`` does not apply); data without
    groups gives one entry, named ``all``. This is what ``simcore advise`` does.
    """
    return advise_each_group(data, humans=humans, judges=judges, **_group_keywords(locals()))


READING_KEYWORDS = (
    *("judges_file", "audit", "ordinal", "group_separator", "pool_groups", "slots"),
    *("label_order", "merge_label_variants", "progress"),
)
"""The keywords of :func:`advise` that say how the matrix is read and reported (not declared
options: each has its default in the signature)."""


def _group_keywords(arguments):
    """Return :func:`advise_each_group`'s keywords from an advise function's ``locals()``.

    The reading keywords as given, and the declared options given (left at ``DEFAULT``, an
    option takes its declared default there).
    """
    reading = {name: arguments[name] for name in READING_KEYWORDS if name in arguments}
    return {**reading, **given_values(arguments, OPTIONS)}


def advise_each_group(  # noqa: PLR0913 (a value object is still to come)
    data,
    humans=None,
    judges=None,
    judges_file=None,
    audit=None,
    ordinal=False,
    group_separator=None,
    pool_groups=False,
    progress=None,
    one_group=False,
    slots=False,
    label_order=None,
    merge_label_variants=False,
    **options,
):
    """Return ``{group: Advice}`` of ``data`` (:func:`advise`'s parameters).

    The options and their defaults are those of ``simcore advise``: ``rule="point"``,
    ``epsilon=0.05``, ``target=0.05``, ``budget=None``, ``design="strat"``,
    ``trials=300``, ``seed=0``, ``model="auto"``, ``scale="categorical"``,
    ``min_pairs=0``; they are checked (:func:`check_options`) before the data is read.
    Each group is audited by :func:`simcore.advisor.advice.advise_groups`; ``one_group``
    refuses data with several groups (unless ``pool_groups``) before any audit.
    """
    options, tau = rule_settings(options)
    options = {**DEFAULTS, **options}
    unknown = sorted(set(options) - set(DEFAULTS))
    if unknown:
        valid = ["judges_file", "audit", "ordinal", "group_separator", "pool_groups", "progress"]
        valid += ["slots", "label_order", "merge_label_variants"]
        valid += list(DEFAULTS)
        raise TypeError(
            f"advise: unknown option {unknown[0]!r}{did_you_mean(unknown[0], valid)} "
            f"(options: {', '.join(valid)})"
        )
    check_options(options)
    matrix = load_matrix(
        data,
        humans,
        judges,
        judges_file,
        ordinal,
        group_separator,
        slots,
        label_order,
        merge_label_variants,
    )
    check_simulation_fits(matrix, options["trials"], tabled=scored_by_tables(options))
    if one_group and not pool_groups and len(matrix.group_names) > 1:
        raise ValueError(
            f"{matrix.source}: groups: the data has {len(matrix.group_names)} groups "
            f"({', '.join(matrix.group_names[:5])}{', ...' if len(matrix.group_names) > 5 else ''}"
            "); simcore.advise_groups(...) audits each on its own, pool_groups=True audits them "
            "together"
        )
    rule, plan = audit_settings(tau=tau, **options)
    return advise_matrix_groups(
        matrix,
        pool_groups=pool_groups,
        judges=name_list(audit, "audit"),
        progress=progress,
        rule=rule,
        plan=plan,
    )


ADVISE_RULE_FIELDS = tuple(name for name in RULE_KEYWORDS if name != "tau")
"""The keywords of :func:`advise` that are settings of its :class:`Rule` (beside its kind)."""


def rule_settings(options):
    """Return ``(options, tau)`` with a :class:`Rule` given as ``rule`` read into its options.

    Options without a :class:`Rule` come back as they are, with the rule's default tau.
    With one, its kind becomes ``rule`` and each of :data:`ADVISE_RULE_FIELDS` its option.

    Raises
    ------
    TypeError
        A rule setting given both as a keyword and in the :class:`Rule`.
    ValueError
        A setting of the :class:`Rule` that advise does not take, away from its default.
    """
    rule = options.get("rule")
    if not isinstance(rule, Rule):
        return options, Rule().tau
    both = [name for name in ADVISE_RULE_FIELDS if name in options]
    if both:
        raise TypeError(
            f"advise: {both[0]}: given twice, as a keyword and as rule.{both[0]} "
            f"({getattr(rule, both[0])!r}); give it once"
        )
    taken = {"kind", "tau", *ADVISE_RULE_FIELDS}
    unused = [
        item.name
        for item in dataclasses.fields(Rule)
        if item.name not in taken and getattr(rule, item.name) != item.default
    ]
    if unused:
        raise ValueError(
            f"rule.{unused[0]}: advise does not take this setting; leave it at its default "
            f"(got {getattr(rule, unused[0])!r})"
        )
    settings = {name: getattr(rule, name) for name in ADVISE_RULE_FIELDS}
    return {**options, "rule": rule.kind, **settings}, rule.tau


SIMULATED_BATCH = 100
"""Trials the risk simulation draws at once
(:func:`simcore.advisor.risk.posterior.simulate_risk`)."""

SIMULATED_LABELS = 2 * 10**10
"""The most labels one risk curve point may simulate (trials x items x raters): minutes."""


def scored_by_tables(options):
    """Whether the options score comparisons by pair tables (a coefficient other than observed)."""
    return (
        options["rule"] == "point"
        and (
            options["coefficient"],
            options["level"],
            options["weights"],
        )
        != NOMINAL
    )


def check_simulation_fits(matrix, trials, tabled=False):
    """Refuse a matrix whose simulated batches cannot fit in memory, before any fit or draw.

    Each batch holds ``min(trials, 100)`` simulated ``items x raters`` matrices (int16
    labels, bool masks and their sparse and dense views, about 16 bytes a cell), beside
    the pools of proposed masks (about 200 bytes per item and human). Under a coefficient
    scored by pair tables (``tabled``), the draws' one-hot labels add about ``3 x 8 L``
    bytes per item and rater of each draw held at once
    (:func:`simcore.advisor.scoring.score_differences`: blocks of
    :data:`~simcore.advisor.scoring.BLOCK_BYTES`, at least one draw).

    Raises
    ------
    simcore.realdata.annotation.DataError
        ``SOURCE: trials: ... need about X GiB ...``, or more than :data:`SIMULATED_LABELS`
        labels drawn for one point of the curve.
    """
    from simcore.realdata.allocation import check_memory
    from simcore.realdata.annotation import DataError

    batch = min(int(trials), SIMULATED_BATCH)
    n, humans, raters = matrix.n_items, matrix.n_humans, matrix.n_humans + matrix.n_judges
    got = f"{n} items, {humans} humans, {matrix.n_judges} judges"
    per_draw = 8 * n * (humans + 2) * len(matrix.labels)
    one_hot = 3 * min(batch * per_draw, max(BLOCK_BYTES, per_draw)) if tabled else 0
    check_memory(
        16 * batch * n * raters + 200 * n * humans + one_hot,
        f"{matrix.source}: trials",
        f"batches of {batch} simulated matrices of {n} items x {raters} raters",
        "audit fewer items or raters (--humans, --judges; a group at a time)",
        got,
    )
    if int(trials) * n * raters > SIMULATED_LABELS:
        raise DataError(
            [
                f"{matrix.source}: trials: {trials} simulated matrices of {n} items x {raters} "
                f"raters would draw more than {SIMULATED_LABELS:.0e} labels per point of the "
                f"risk curve (hours of simulation); lower --trials (got {got}, trials {trials})"
            ]
        )


DEFAULTS = defaults(OPTIONS)

OPTION_NAMES = ("coefficient", "level", "weights")
"""The options that choose the point rule's coefficient."""

FLAGS = {option.name: option.flag for option in OPTIONS}
"""Each option's command-line flag."""
"""The options of :func:`advise_each_group` and their defaults (the command line's)."""


def load_matrix(  # noqa: PLR0913 (a value object is still to come)
    data,
    humans=None,
    judges=None,
    judges_file=None,
    ordinal=False,
    separator=None,
    slots=False,
    label_order=None,
    merge_label_variants=False,
):
    """Return the annotation matrix of a path or a long DataFrame; refuse one without judges.

    Read by the one reader, :func:`simcore.realdata.readers.read_annotations`; ``humans``
    and ``judges`` are lists of names or comma-separated strings; ``separator`` is the group
    separator of JSON input; ``slots`` declares the human columns label positions;
    ``label_order`` the labels in their order (``--label-order``); ``merge_label_variants``
    merges labels that differ only in case (``--merge-label-variants``).
    """
    matrix = read_annotations(
        data,
        humans=humans,
        judges=judges,
        judges_file=judges_file,
        ordinal=ordinal,
        group_separator=separator,
        slots=slots,
        label_order=label_order,
        merge_label_variants=merge_label_variants,
    )
    require_judges(matrix, "simcore advise")
    return matrix


def _check_scale(options, scored, command_line):
    """Refuse a scale or a scoring the rule does not take.

    The alt_test scores each item by ``scale``; only its weighted scale takes weights
    (linear or quadratic, which it needs); a coefficient or a level belongs to the point
    rule, and a scale other than accuracy to the alt_test.
    """
    rule, scale = options["rule"], options.get("scale", "categorical")

    def flag(option):
        return FLAGS.get(option, f"--{option}") if command_line else option

    if rule == "point" and scale != "categorical":
        raise ValueError(
            f"{flag('scale')}: belongs to alt_test; the point rule scores each comparison by "
            f"{flag('coefficient')} (got {scale} with rule point)"
        )
    if rule != "alt_test":
        return
    if scale == "weighted" and scored[2] == "identity":
        raise ValueError(
            f"{flag('scale')}: weighted scores each item by agreement weights; give "
            f"{flag('weights')} linear or quadratic (got weights identity)"
        )
    given = [
        option
        for option, default in zip(OPTION_NAMES[:2], NOMINAL[:2], strict=True)
        if options[option] != default
    ]
    if given:
        raise ValueError(
            f"{flag(given[0])}: belongs to the point rule; alt_test scores each item by "
            f"{flag('scale')} (got {scoring_name(*scored)} with rule {rule})"
        )
    if scored[2] != "identity" and scale != "weighted":
        raise ValueError(
            f"{flag('weights')}: under alt_test, agreement weights score each item on "
            f"{flag('scale')} weighted (got weights {scored[2]} with scale {scale})"
        )


def check_options(options, command_line=False):
    """Raise ``ValueError`` for the first option out of its declared range.

    The options are declared in :data:`simcore.advisor.advise_options.OPTIONS`; the message
    names an option by its flag (``--eps``) when ``command_line``, else by its keyword.
    """
    check_values(options, OPTIONS, command_line)
    min_pairs, rule = options["min_pairs"], options["rule"]
    if options.get("form", "auto") not in ("auto", "raters") and rule != "point":
        name = "--form" if command_line else "form"
        raise ValueError(
            f"{name}: belongs to the point rule; alt_test holds out every human with 30 "
            f"items or more (got {options['form']} with rule {rule})"
        )
    scored = (options["coefficient"], options["level"], options["weights"])
    _check_scale(options, scored, command_line)
    misplaced = misplaced_message(*scored)
    if misplaced:
        raise ValueError(f"--{misplaced}" if command_line else misplaced)
    if min_pairs > 0 and rule != "point":
        name = "--min-pairs" if command_line else "min_pairs"
        rule_name = "--rule" if command_line else "rule"
        raise ValueError(
            f"{name}: must be 0 with {rule_name} alt_test, which skips humans with fewer than "
            f"30 items instead (got {min_pairs} with {rule_name} {rule})"
        )
