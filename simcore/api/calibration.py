"""``simcore.calibrate``: a judge's TPR/TNR and its corrected production failure rate, as a result.

The calibration set comes as four counts (``table``), a judge card (``card``), a one-row-per-
item CSV (``csv``: a human and a judge column), or annotation data in any format of the one
reader (``data``, with the ``judge`` and a FAIL definition; several humans on an item are
resolved by majority vote of their FAIL/PASS labels, a tie leaves the item out, and a judge
answer outside the humans' labels is an error: a miss on a FAIL row, a false flag on a PASS
row, :func:`simcore.instrument.card.measure.judge_outcomes`). The production stream comes as counts
(``fails`` of ``of``) or as a file of the judge's labels (``production``: a long CSV, a
JSON ``{judge: {item: label}}`` or an alttest folder's judge file), whose FAIL labels are
counted under the same definition.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from simcore.api.calibrate_inputs import checked_sources, table_counts
from simcore.api.calibration_report import report_of_counts
from simcore.api.data import DataSource
from simcore.api.results import (
    CalibrationPlanResult,
    CalibrationResult,
    ScaleCalibrationResult,
)
from simcore.calibration.errors import CalibrationInputError
from simcore.calibration.table import CalibrationTable
from simcore.command_options import (
    ALL_LABELS,
    CALIBRATE_OPTIONS,
    DATA_OPTIONS,
    PLAN_THETA,
    PLAN_TRIALS,
    TRUTH_OPTIONS,
    plan_theta_choice,
)
from simcore.options import (
    DEFAULT,
    Default,
    check_values,
    count_value,
    defaults,
    given_values,
    suggests_keywords,
)
from simcore.planning import PlanRequest

__all__ = [
    "PLANNING_OPTIONS",
    "calibrate",
    "calibration_counts",
    "fail_definition",
    "plan_calibration",
    "production_counts",
    "table_counts",
]

PLANNING_OPTIONS = (*CALIBRATE_OPTIONS, PLAN_TRIALS, PLAN_THETA)
"""The declared options of :func:`plan_calibration` (the method's, the trials, the rate)."""

TRUTH_CALIBRATE_OPTIONS = (*TRUTH_OPTIONS, ALL_LABELS)
"""The declared options of how :func:`calibrate` forms the truth and the scale it corrects."""

METHODS = CALIBRATE_OPTIONS[0].choices
"""``method``: :data:`simcore.calibration.methods.METHODS` and ``all``."""


SOURCE_KEYWORDS = ("data", "table", "card", "csv")
"""The calibration set's sources, exactly one of which :func:`calibrate` reads."""


def fail_definition(fail_at_most, fail_labels):
    """Return the checked FAIL definition of ``fail_at_most`` or ``fail_labels`` (one of them)."""
    from simcore.instrument.fail_definitions import definition_of

    return definition_of(fail_at_most, fail_labels, "calibrate")


def _counts(fails, of):
    """Return ``((fails, "fails"), (of, "of"))``: the production counts with their names."""
    return (fails, "fails"), (of, "of")


def reading_definition(data, production, fail_at_most, fail_labels):
    """Return the FAIL definition for reading ``data`` or ``production``; None reading neither.

    Raises
    ------
    CalibrationInputError
        Labels to read and no definition: ``production: reading the judge's labels needs a
        FAIL definition: fail_at_most=X or fail_labels=[...] (got neither)``.
    """
    if data is None and production is None:
        return None
    if fail_at_most is None and fail_labels is None:
        raise CalibrationInputError(
            f"{'data' if data is not None else 'production'}: reading the judge's labels "
            "needs a FAIL definition: fail_at_most=X or fail_labels=[...] (got neither)"
        )
    return fail_definition(fail_at_most, fail_labels)


def calibration_counts(data, judge, definition, **roles):
    """Return ``(caught, missed, flagged, cleared)`` of ``judge`` against the human truth.

    ``data`` is any input of the one reader (``roles``: its ``humans``, ``judges``,
    ``judges_file``, ``group_separator``, ``columns``); a long table must name its judges.
    """
    from simcore.api.calibrate_truth import read_panel_matrix
    from simcore.instrument.card.measure import count_outcomes, human_label_set, judge_outcomes

    matrix = read_panel_matrix(data, judge, roles)
    truth, flags, parsed, _ = judge_outcomes(matrix, judge, definition, human_label_set(matrix))
    return tuple(int(count) for count in count_outcomes(truth, flags, parsed).table)


def production_counts(source, judge, definition):
    """Return ``(fails, n, unparseable)``: the judge's FAIL labels in a production file.

    An answer that is not a label of ``definition`` (for ``fail_at_most``, not a number) is
    counted in ``n`` and ``unparseable``, never as a FAIL.
    """
    from simcore.realdata.readers import read_judge_labels

    labels = read_judge_labels(source, judge)
    fails = unparseable = 0
    for label in labels:
        try:
            fails += bool(definition.is_fail(label))
        except ValueError:
            unparseable += 1
    return fails, len(labels), unparseable


@suggests_keywords
def calibrate(  # noqa: PLR0913 (every option is a keyword)
    data: DataSource | None = None,
    *,
    table: CalibrationTable | Sequence[int] | None = None,
    card: Mapping[str, Any] | str | Path | None = None,
    csv: str | Path | None = None,
    judge: str | None = None,
    fail_at_most: float | None = None,
    fail_labels: Sequence[str] | str | None = None,
    production: DataSource | None = None,
    fails: int | None = None,
    of: int | None = None,
    method: str | Default = DEFAULT,
    confidence: float | Default = DEFAULT,
    youden_floor: float | Default = DEFAULT,
    cluster_column: str | None = None,
    truth: str | Default = DEFAULT,
    all_labels: bool | Default = DEFAULT,
    truth_model: str | Default = DEFAULT,
    boot: int | Default = DEFAULT,
    seed: int | Default = DEFAULT,
    humans: Sequence[str] | str | None | Default = DEFAULT,
    judges: Sequence[str] | str | None | Default = DEFAULT,
    judges_file: str | Path | None | Default = DEFAULT,
    group_separator: str | None | Default = DEFAULT,
    columns: Mapping[str, str] | None | Default = DEFAULT,
    slots: bool | Default = DEFAULT,
    label_order: Sequence[str] | str | None | Default = DEFAULT,
    merge_label_variants: bool | Default = DEFAULT,
) -> CalibrationResult | ScaleCalibrationResult:
    """Correct a judge's production failure rate by its TPR and TNR, with an interval.

    :func:`plan_calibration` plans the calibration set instead (``--plan``).

    Parameters
    ----------
    data : str, pathlib.Path or pandas.DataFrame, optional
        The calibration set as annotations (humans and ``judge``), any input the one reader
        reads, with the reader's keywords below.
    table : tuple of int, optional
        Instead: ``(caught, missed, flagged, cleared)``: four Python or NumPy integers from
        0 to 2**53 (a bool, a float such as ``6.0`` or a text is refused).
    card : dict, str or pathlib.Path, optional
        Instead: a judge card's document (``simcore.card(...).to_dict()["card"]``) or its
        JSON file, checked key by key as ``simcore calibrate --card`` checks a card file
        (:func:`simcore.instrument.card.file.check_card`); its counts. The card's expiry and
        population are checked only by the command line (``--population``).
    csv : str or pathlib.Path, optional
        Instead: a CSV with one row per item and columns ``human`` and ``judge`` holding
        ``fail`` / ``pass``.
    judge : str, optional
        The judge, for ``data`` and ``production``.
    fail_at_most, fail_labels : optional
        What FAIL means (exactly one), for ``data`` and ``production``.
    production : str, pathlib.Path or pandas.DataFrame, optional
        The production stream as a file of the judge's labels (or a long DataFrame with
        ``rater`` and ``label`` columns).
    fails, of : int, optional
        Instead: the judge failed ``fails`` of ``of`` production outputs (Python or NumPy
        integers up to 2**53; a bool or a float is refused).
    method : str
        ``lr`` (Rogan-Gladen, Lang-Reiczigel interval), ``naive``, ``ppi``, ``ppi++``,
        ``strat-ppi`` or ``all`` (every method side by side).
    confidence, youden_floor : float
        The intervals' confidence; the Youden J below which the correction is refused.
    cluster_column : str, optional
        The items come in clusters (``--cluster-column``): the column of ``csv`` holding
        each item's cluster id, and of ``production`` (then a CSV with one row per item and
        the judge's ``fail``/``pass`` in a ``judge`` column); with ``fails`` of ``of`` the
        production rows are taken as independent. Every interval is cluster-robust
        (:func:`simcore.calibration.clustered.clustered_rates`).
    truth : str
        What the judge is measured against (``--truth``): ``majority`` (default: the humans'
        majority label, a tie leaving the item out) or ``latent`` (the true label of a
        latent-class fit of the humans and the judge, :mod:`simcore.calibration.latent`;
        ``data`` only, method ``lr``). With ``latent`` the TPR and TNR come with percentile
        bootstrap intervals, the corrected rate with the Lang-Reiczigel interval on the
        fit's effective counts, and the majority-gold figures stay beside them
        (``majority``). A ``card`` carries its own truth.
    all_labels : bool
        Instead of a FAIL rate, correct the production distribution of every label of the
        humans' scale (``--all-labels``; ``data`` and a ``production`` file): the judge's
        confusion matrix against ``truth``, inverted on the simplex, refused when its
        separation (the L-class Youden J) is not above ``youden_floor``. Returns a
        :class:`~simcore.api.results.ScaleCalibrationResult`.
    truth_model : str
        ``truth="latent"``: the humans' channel, ``auto``, ``dawid-skene`` or ``one-coin``.
    boot, seed : int
        Bootstrap refits over items (at least 100) and their seed, for ``truth="latent"``
        and ``all_labels``.
    humans, judges, judges_file, group_separator, columns, slots, label_order : optional
    merge_label_variants : optional
        The one reader's keywords for ``data`` (:data:`simcore.command_options.DATA_OPTIONS`).

    Returns
    -------
    CalibrationResult
        ``to_dict()``: ``calibration`` (the four counts and ``rows``), ``tpr``, ``tnr``
        (``estimate``, ``low``, ``high``), ``youden_j``, ``production`` (``fails``, ``of``,
        the ``observed`` rate with ``low``, ``high``), ``corrected``, ``refusal``,
        ``estimate``, ``interval``, ``naive_interval``, ``calibration_share``, ``methods``
        (one row per method); table ``methods``. With ``cluster_column``, a
        :class:`~simcore.api.results.ClusteredCalibrationResult`: ``calibration``,
        ``tpr``, ``tnr`` (Wilson on the effective counts), ``production``, ``clusters``
        (``column``, ``calibration`` and ``production`` cluster counts, ``design_effects``),
        ``corrected``, ``refusal``, ``estimate``, ``interval`` (``method`` ``cluster-robust
        lr`` or the method chosen) and ``methods``. Every document has ``truth`` (``kind``
        ``majority``, ``latent`` or ``given``, and ``text``; with ``latent`` also ``fit``,
        ``fail_prevalence`` and ``effective_counts``, and the document a ``majority``
        block). With ``all_labels``, a :class:`~simcore.api.results.ScaleCalibrationResult`:
        ``truth``, ``scale``, ``confusion``, ``separation``, ``production``,
        ``corrected``, ``refusal``, ``distribution`` (tables ``distribution`` and
        ``confusion``).

    Raises
    ------
    ValueError
        No or several calibration sources, no production, counts or options out of range,
        or bad data (naming the file, key and value).
    TypeError
        A keyword of the wrong type (``table`` not four integers, ``fails=130.5``,
        ``card=[1, 2]``), naming the keyword and what to pass.
    """
    settings = {**defaults(CALIBRATE_OPTIONS), **given_values(locals(), CALIBRATE_OPTIONS)}
    asked = given_values(locals(), TRUTH_CALIBRATE_OPTIONS)
    truth_values = {**defaults(TRUTH_CALIBRATE_OPTIONS), **asked}
    check_values(truth_values, TRUTH_CALIBRATE_OPTIONS)
    roles = given_values(locals(), DATA_OPTIONS)
    method, confidence = settings["method"], settings["confidence"]
    youden_floor = settings["youden_floor"]
    table, card, csv, production = checked_sources(table, card, csv, production)
    fails, of = (None if n is None else count_value(n, name) for n, name in _counts(fails, of))
    sources = (data, table, card, csv)
    _check_call(method, confidence, youden_floor, *sources)
    _check_truth(truth_values, asked, sources, method, cluster_column)
    if cluster_column is not None:
        from simcore.api.calibrate_clusters import clustered_calibration

        return clustered_calibration(
            sources, cluster_column, production, (fails, of), method, (confidence, youden_floor)
        )
    if truth_values["all_labels"]:
        from simcore.api.calibrate_truth import scale_calibration

        if not judge:
            raise CalibrationInputError("judge: needed to read the judge's labels (got none)")
        return scale_calibration(
            data, judge, production, _truth_settings(truth_values, settings), roles
        )
    definition = reading_definition(data, production, fail_at_most, fail_labels)
    if definition is not None and not judge:
        raise CalibrationInputError("judge: needed to read the judge's labels (got none)")
    if truth_values["truth"] == "latent" and data is not None:
        from simcore.api.calibrate_truth import latent_binary_calibration

        fails, of = _production(production, (fails, of), judge, definition)
        latent = _truth_settings(truth_values, settings)
        return latent_binary_calibration(data, judge, definition, (fails, of), latent, roles)
    table = _calibration_table(data, table, card, csv, judge, definition, roles)
    fails, of = _production(production, (fails, of), judge, definition)
    return report_of_counts(
        table, fails, of, method, confidence, youden_floor, _truth_of(data, card)
    )


def _truth_settings(truth_values, settings):
    """Return the settings :mod:`simcore.api.calibrate_truth` reads."""
    from simcore.calibration.latent import LatentSettings

    latent = LatentSettings(
        truth_values["truth_model"],
        truth_values["boot"],
        truth_values["seed"],
        settings["confidence"],
    )
    return {**settings, "truth": truth_values["truth"], "latent": latent}


def _production(production, counts, judge, definition):
    """Return ``(fails, of)`` of a production file or the counts given; refuse bad counts."""
    fails, of = counts
    if production is not None:
        if fails is not None:
            raise CalibrationInputError("production: give the file or the counts, not both")
        fails, of, _ = production_counts(production, judge, definition)
    if fails is None or of is None or of < 1 or not 0 <= fails <= of:
        raise CalibrationInputError(
            f"--fails/--of: need 0 <= fails <= N, N >= 1, or a --production file (got {fails}/{of})"
        )
    return fails, of


def _truth_of(data, card):
    """Return the ``truth`` of a report on counts: the majority, the card's, or None (given)."""
    from simcore.instrument.card.truth import card_truth, truth_statement

    if data is not None:
        return truth_statement("majority")
    if card is not None:
        return card_truth(card)
    return None


def _check_truth(truth_values, asked, sources, method, cluster_column):
    """Refuse a truth or scale choice the calibration set or the other options cannot serve."""
    from simcore.instrument.card.truth import card_truth

    data, table, card, csv = sources
    latent = truth_values["truth"] == "latent"
    all_labels = truth_values["all_labels"]
    if not (latent or all_labels):
        if card is not None and "truth" in asked and card_truth(card)["kind"] != "majority":
            raise CalibrationInputError(
                f"truth: the card was measured against the {card_truth(card)['kind']} truth; "
                "a card carries its own truth (got truth='majority')"
            )
        return
    what = "truth='latent'" if latent else "all_labels"
    if cluster_column is not None:
        raise CalibrationInputError(
            f"{what}: not with cluster_column (the latent fit resamples items, not clusters)"
        )
    if method != "lr":
        raise CalibrationInputError(
            f"{what}: the correction is Rogan-Gladen with the Lang-Reiczigel interval (lr) "
            f"or, on the label scale, least squares on the simplex; other methods need a per-item "
            f"truth (got method={method!r})"
        )
    if data is not None:
        return
    if card is not None and latent and not all_labels:
        if card_truth(card)["kind"] != "latent":
            raise CalibrationInputError(
                f"truth: the card was measured against the {card_truth(card)['kind']} truth; "
                "a card carries its own truth (got truth='latent')"
            )
        return
    given = "table" if table is not None else "csv" if csv is not None else "card"
    raise CalibrationInputError(
        f"{what}: needs the humans' labels of each item, data=... (--data); a {given} holds "
        f"one truth per row (got {given})"
    )


@suggests_keywords
def plan_calibration(  # noqa: PLR0913 (every option is a keyword)
    data: DataSource | None = None,
    *,
    table: CalibrationTable | Sequence[int] | None = None,
    card: Mapping[str, Any] | str | Path | None = None,
    csv: str | Path | None = None,
    judge: str | None = None,
    fail_at_most: float | None = None,
    fail_labels: Sequence[str] | str | None = None,
    fails: int | None = None,
    of: int | None = None,
    half_width: float | None = None,
    se: float | None = None,
    sp: float | None = None,
    theta: float | None = None,
    plan_trials: int | Default = DEFAULT,
    plan_theta: str | float | Default = DEFAULT,
    method: str | Default = DEFAULT,
    confidence: float | Default = DEFAULT,
    youden_floor: float | Default = DEFAULT,
    cluster_size: int | None = None,
    icc: float | None = None,
    humans: Sequence[str] | str | None | Default = DEFAULT,
    judges: Sequence[str] | str | None | Default = DEFAULT,
    judges_file: str | Path | None | Default = DEFAULT,
    group_separator: str | None | Default = DEFAULT,
    columns: Mapping[str, str] | None | Default = DEFAULT,
    slots: bool | Default = DEFAULT,
    label_order: Sequence[str] | str | None | Default = DEFAULT,
    merge_label_variants: bool | Default = DEFAULT,
) -> CalibrationPlanResult:
    """Plan a calibration set: how many labels each interval method needs (``--plan``).

    For an interval of ``half_width`` on the corrected failure rate of a production stream
    of ``of`` outputs (:func:`simcore.planning.calibration.labels.plan_result`), the judge
    read from a pilot (``data``, ``table``, ``card`` or ``csv``, with ``fails`` of ``of``)
    or given as ``se``, ``sp`` and ``theta``.

    Parameters
    ----------
    data, table, card, csv, judge, fail_at_most, fail_labels : optional
        A pilot calibration set, as :func:`calibrate` takes one (at most one of the four).
    fails, of : int, optional
        The pilot's production counts; ``of`` is the production size N the plan is for.
    plan : bool
        Plan the calibration set instead (``--plan``): the judge from a pilot (``data``,
        ``table``, ``card`` or ``csv``, with ``fails`` of ``of``) or from ``se``, ``sp`` and
        ``theta``; ``of`` is the production size N.
    half_width : float, optional
        The plan's target half-width (``--half-width``).
    se, sp, theta : float, optional
        The plan's judge and failure rate instead of a pilot (``--se``, ``--sp``,
        ``--theta``).
    plan_trials : int, optional
        Simulated trials per calibration size tried (``--plan-trials``).
    plan_theta : str or float, optional
        The failure rate a plan from a pilot is for (``--plan-theta``): ``"reported"`` (the
        estimate this function reports for the pilot with ``method``; where it is clipped
        to 0 or 1, the far end of its interval), ``"stratified"`` (``q caught/(caught +
        flagged) + (1 - q) missed/(missed + cleared)``, valid only where the calibration rows
        are a random production sample) or a rate in (0, 1)
        (:mod:`simcore.planning.plan_theta`).
    cluster_size, icc : optional
        A plan in clusters (``--cluster-size``, ``--icc``): items come in clusters of
        ``cluster_size`` whose failures and judge errors correlate by ``icc``; the plan adds
        the calibration clusters each method needs (``clusters``).
    method, confidence, youden_floor : optional
        As :func:`calibrate`; ``method`` is the method whose reported estimate
        ``plan_theta="reported"`` means.
    humans, judges, judges_file, group_separator, columns, slots, label_order : optional
    merge_label_variants : optional
        The one reader's keywords for a ``data`` pilot.

    Returns
    -------
    CalibrationPlanResult
        ``to_dict()``: ``se``, ``sp``,
        ``theta``, ``plan_theta`` (``value``, ``source``, ``estimator``, ``method``,
        ``planned_at``, ``estimates`` ``reported`` and ``stratified``,
        ``reported_interval``, ``shares``), ``of``, ``half_width``, ``confidence``,
        ``trials``, ``seed`` and
        ``methods`` (``method``, ``closed_form``, ``n_cal``, ``half_width``, ``coverage``,
        ``coverage_se``, ``coverage_stream``, ``refused``; None where there is none) and
        ``allocation`` (``design``, ``labels``, ``first``, ``second``, ``first_is``,
        ``second_is``, ``half_width``, ``coverage``, ``coverage_se``); tables ``methods``
        and ``allocation``.

    Raises
    ------
    ValueError
        Several pilots, options out of range, or bad data (naming the file, key and value).
    """
    settings = {**defaults(PLANNING_OPTIONS), **given_values(locals(), PLANNING_OPTIONS)}
    roles = given_values(locals(), DATA_OPTIONS)
    check_values(settings, PLANNING_OPTIONS)
    table, card, csv, _ = checked_sources(table, card, csv, None)
    fails, of = (None if n is None else count_value(n, name) for n, name in _counts(fails, of))
    shape = None if cluster_size is None and icc is None else (cluster_size, icc)
    plan_theta = settings["plan_theta"]
    check_values({"method": settings["method"]}, CALIBRATE_OPTIONS)
    try:
        plan_theta = plan_theta_choice(plan_theta)
    except ValueError as error:
        raise CalibrationInputError(f"plan_theta: {error}") from None
    sources = [source for source in (data, table, card, csv) if source is not None]
    if len(sources) > 1:
        raise CalibrationInputError("plan: give one pilot: data, table, card or csv")
    counts = None
    if sources:
        definition = fail_definition(fail_at_most, fail_labels) if data is not None else None
        if data is not None and not judge:
            raise CalibrationInputError("judge: needed to read the judge's labels (got none)")
        counts = _calibration_table(data, table, card, csv, judge, definition, roles)
    return _plan(
        PlanRequest(
            of,
            half_width,
            table=counts,
            fails=fails,
            rates=(se, sp, theta),
            confidence=settings["confidence"],
            trials=settings["plan_trials"],
            youden_floor=settings["youden_floor"],
            shape=shape,
            plan_theta=plan_theta,
            method=settings["method"],
        )
    )


def _plan(request):
    """Return :func:`plan_calibration`'s result of a checked :class:`PlanRequest`."""
    from simcore.planning.calibration.labels import plan_result

    document, text = plan_result(request)
    tables = {"methods": "methods", "allocation": "allocation"}
    if "clusters" in document:
        tables["clusters"] = ("clusters", "methods")
    return CalibrationPlanResult("calibrate", document, text, tables)


def _check_call(method, confidence, youden_floor, *sources):
    """Refuse values out of range and not exactly one calibration set."""
    check_values(
        {"method": method, "confidence": confidence, "youden_floor": youden_floor},
        CALIBRATE_OPTIONS,
    )
    given = [
        name for name, value in zip(SOURCE_KEYWORDS, sources, strict=True) if value is not None
    ]
    if len(given) != 1:
        raise CalibrationInputError(
            f"calibrate: give exactly one calibration set: data, table, card or csv "
            f"(got {', '.join(given) or 'none'})"
        )


def _calibration_table(data, table, card, csv, judge, definition, roles):
    """Return the four calibration counts of whichever source was given."""
    from simcore.calibration.command import read_confusion_csv

    if data is not None:
        table = calibration_counts(data, judge, definition, **roles)
    elif card is not None:
        counts = card["counts"]  # checked by card_argument
        table = (counts["caught"], counts["missed"], counts["flagged"], counts["cleared"])
    elif csv is not None:
        table = read_confusion_csv(csv)
    table = tuple(int(count) for count in table)
    _check_both_classes(table)
    return table


def _check_both_classes(table):
    """Refuse a calibration set without human-FAIL or without human-PASS rows (no TPR or TNR).

    Raises
    ------
    CalibrationInputError
        ``calibration set: no calibration rows ...``, ``... no human-FAIL rows ...`` or
        ``... no human-PASS rows ...``, with the four counts.
    """
    if len(table) != 4 or min(table) < 0:
        return  # the counts' own check reports it
    caught, missed, flagged, cleared = table
    counts = f"(got caught, missed, flagged, cleared = {caught}, {missed}, {flagged}, {cleared})"
    if not any(table):
        missing = "no calibration rows: neither the judge's TPR nor its TNR can be estimated"
    elif caught + missed == 0:
        missing = "no human-FAIL rows: the judge's TPR (sensitivity) cannot be estimated"
    elif flagged + cleared == 0:
        missing = "no human-PASS rows: the judge's TNR (specificity) cannot be estimated"
    else:
        return
    raise CalibrationInputError(f"calibration set: {missing} {counts}")
