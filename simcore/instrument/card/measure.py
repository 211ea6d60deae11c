"""Judge cards: a judge's TPR and TNR on one criterion of one population, with an expiry.

A Se/Sp pair belongs to a judge, on a criterion, on a population, at a time. A card records
it: the four calibration counts against the human truth (:func:`binary_truth`), TPR and TNR
with Wilson intervals, Cohen's kappa, Youden's J with an interval, the share of the judge's
answers that parse, the human ceiling of the population, whether the card may be used to
correct a failure rate, and the dates it was measured and expires.

Unparseable answers (a judge label outside the card's label set: by default the labels the
humans used anywhere in the data file) stay in the counts and are never imputed: on a
human-FAIL row an unparseable answer is a miss, on a human-PASS row it is a false flag, so
it is an error whichever the truth.

:func:`measure_card` builds the card from a matrix; :func:`load_criterion` loads a data
path's criterion; :mod:`simcore.instrument.card.file` writes and reads cards.
"""

import datetime
import math
from typing import NamedTuple

import numpy as np

from simcore._version import __version__
from simcore.calibration.statistics import DEFAULT_YOUDEN_FLOOR, judge_rates
from simcore.instrument.card.ceiling import population_ceiling
from simcore.instrument.card.truth import card_truth
from simcore.instrument.fail_definitions import binary_truth, label_fail_flags
from simcore.realdata.annotation import DataError, got_text, list_text, unknown_names

CARD_FORMAT = "simcore judge card 1"
"""Value of every card's ``format`` key."""

DEFAULT_EXPIRES_DAYS = 30
"""Days from ``measured`` to ``expires`` unless told otherwise."""

ON_ALARM = "on-alarm"
"""``expires`` of a card valid until ``simcore monitor`` alarms on it (then the alarm's date)."""

J_INTERVAL_METHOD = "MOVER (Newcombe/Zou-Donner) from the Wilson intervals of TPR and TNR"
"""How the interval of Youden's J is built (:func:`youden_interval`)."""


class CardCounts(NamedTuple):
    """A judge's calibration counts against the human truth, with unparseable answers.

    Attributes
    ----------
    caught, missed : int
        Human-FAIL rows the judge failed / did not fail (an unparseable answer is a miss).
    flagged, cleared : int
        Human-PASS rows the judge failed (an unparseable answer counts here) / passed.
    unparseable_fail, unparseable_pass : int
        Human-FAIL and human-PASS rows whose answer is outside the label set.
    """

    caught: int
    missed: int
    flagged: int
    cleared: int
    unparseable_fail: int
    unparseable_pass: int

    @property
    def table(self):
        """Return ``(caught, missed, flagged, cleared)``, the ``calibrate --table`` order."""
        return self.caught, self.missed, self.flagged, self.cleared

    @property
    def n(self):
        """Return the rows with a human truth."""
        return self.caught + self.missed + self.flagged + self.cleared


def count_outcomes(truth_fail, judge_fail, parsed):
    """Return the :class:`CardCounts` of rows with a truth.

    Parameters
    ----------
    truth_fail, judge_fail, parsed : array_like of bool
        ``(n,)``: the human truth is FAIL; the judge answered FAIL; the answer parsed.

    Notes
    -----
    ``caught = #(truth & parsed & judge)``, ``missed = #(truth) - caught``,
    ``cleared = #(~truth & parsed & ~judge)``, ``flagged = #(~truth) - cleared``: an
    unparseable answer is an error on either side.
    """
    truth = np.asarray(truth_fail, dtype=bool)
    judge = np.asarray(judge_fail, dtype=bool)
    parsed = np.asarray(parsed, dtype=bool)
    caught = int((truth & parsed & judge).sum())
    cleared = int((~truth & parsed & ~judge).sum())
    return CardCounts(
        caught=caught,
        missed=int(truth.sum()) - caught,
        flagged=int((~truth).sum()) - cleared,
        cleared=cleared,
        unparseable_fail=int((truth & ~parsed).sum()),
        unparseable_pass=int((~truth & ~parsed).sum()),
    )


def cohen_kappa(caught, missed, flagged, cleared):
    """Return Cohen's kappa of the judge's FAIL/PASS against the truth, or None.

    Notes
    -----
    With ``n`` the rows, ``p_o = (caught + cleared) / n`` and the chance agreement
    ``p_e = [(caught + flagged)(caught + missed) + (missed + cleared)(flagged + cleared)] / n^2``,
    ``kappa = (p_o - p_e) / (1 - p_e)``; None when ``n == 0`` or ``p_e == 1``.
    """
    n = caught + missed + flagged + cleared
    if n == 0:
        return None
    observed = (caught + cleared) / n
    chance = ((caught + flagged) * (caught + missed) + (missed + cleared) * (flagged + cleared)) / (
        n * n
    )
    if chance >= 1.0:
        return None
    return (observed - chance) / (1.0 - chance)


def youden_interval(tpr, tpr_interval, tnr, tnr_interval):
    """Return ``(J, low, high)`` for ``J = TPR + TNR - 1`` by MOVER from two Wilson intervals.

    Notes
    -----
    The method of variance estimates recovery (Newcombe 1998, method 10; Zou and Donner
    2008) for a sum of two independent proportions with intervals ``(l1, u1)``, ``(l2, u2)``:
    ``low = J - sqrt((TPR - l1)^2 + (TNR - l2)^2)``,
    ``high = J + sqrt((u1 - TPR)^2 + (u2 - TNR)^2)``. TPR and TNR come from disjoint rows,
    so they are independent. NaN throughout when either rate has no rows.
    """
    if not (math.isfinite(tpr) and math.isfinite(tnr)):
        return math.nan, math.nan, math.nan
    j = tpr + tnr - 1.0
    low = j - math.hypot(tpr - tpr_interval[0], tnr - tnr_interval[0])
    high = j + math.hypot(tpr_interval[1] - tpr, tnr_interval[1] - tnr)
    return j, max(low, -1.0), min(high, 1.0)


class Usability(NamedTuple):
    """Whether a card may correct a failure rate, the rule that decided it, and why."""

    usable: bool
    category: str
    reason: str


def usability(j, j_low, youden_floor=DEFAULT_YOUDEN_FLOOR, n_fail=None, n_pass=None):
    """Return the :class:`Usability` of a card: whether it may correct a failure rate.

    Usable when ``J > youden_floor`` and the lower end of J's interval is above the floor
    too; otherwise ``category`` names what failed (no FAIL or PASS rows, J at or below the
    floor, or an interval reaching down to it) and ``reason`` says it with the numbers.
    """
    if n_fail == 0:
        return Usability(False, "no human-FAIL rows", "no human-FAIL rows: TPR cannot be measured")
    if n_pass == 0:
        return Usability(False, "no human-PASS rows", "no human-PASS rows: TNR cannot be measured")
    if not math.isfinite(j) or j <= youden_floor:
        reason = f"J = {j:.3f} is not above the Youden floor {youden_floor:g}"
        return Usability(False, "J at or below the floor", reason)
    if j_low <= youden_floor:
        reason = (
            f"J = {j:.3f} is above the floor {youden_floor:g} but its interval's lower end "
            f"{j_low:.3f} is not: too few calibration rows to trust the correction"
        )
        return Usability(False, "J's interval reaches the floor", reason)
    reason = f"J = {j:.3f} and its interval's lower end {j_low:.3f} clear the floor"
    return Usability(True, "clears the floor", reason)


def _rate(estimate, low, high):
    """Return a rate and its interval as a card mapping (estimate None when undefined)."""
    estimate = float(estimate)
    return {
        "estimate": estimate if math.isfinite(estimate) else None,
        "low": float(low),
        "high": float(high),
    }


def _number(value):
    """Return ``value`` as a float, or None when it is None or not finite."""
    return None if value is None or not math.isfinite(value) else float(value)


def card_statistics(counts, confidence=0.95, youden_floor=DEFAULT_YOUDEN_FLOOR):
    """Return the card's measured fields from its :class:`CardCounts` (no names, no dates)."""
    rates = judge_rates(*counts.table, confidence=confidence)
    tpr, tnr = float(rates.tpr), float(rates.tnr)
    j, j_low, j_high = youden_interval(
        tpr,
        (float(rates.tpr_low), float(rates.tpr_high)),
        tnr,
        (float(rates.tnr_low), float(rates.tnr_high)),
    )
    usable, _, reason = usability(
        j, j_low, youden_floor, counts.caught + counts.missed, counts.flagged + counts.cleared
    )
    unparseable = counts.unparseable_fail + counts.unparseable_pass
    return {
        "n": counts.n,
        "n_fail": counts.caught + counts.missed,
        "n_pass": counts.flagged + counts.cleared,
        "counts": {
            "caught": counts.caught,
            "missed": counts.missed,
            "flagged": counts.flagged,
            "cleared": counts.cleared,
        },
        "confidence": float(confidence),
        "tpr": _rate(rates.tpr, rates.tpr_low, rates.tpr_high),
        "tnr": _rate(rates.tnr, rates.tnr_low, rates.tnr_high),
        "kappa": _number(cohen_kappa(*counts.table)),
        "youden_j": {
            "estimate": _number(j),
            "low": _number(j_low),
            "high": _number(j_high),
            "method": J_INTERVAL_METHOD,
        },
        "parse_coverage": {
            "share": 1.0 - unparseable / counts.n if counts.n else None,
            "unparseable": unparseable,
            "unparseable_fail_rows_counted_missed": counts.unparseable_fail,
            "unparseable_pass_rows_counted_flagged": counts.unparseable_pass,
        },
        "youden_floor": float(youden_floor),
        "usable_for_rate_correction": usable,
        "reason": reason,
    }


def judge_outcomes(matrix, judge, definition, label_set):
    """Return ``(truth_fail, judge_fail, parsed, n_tied)`` on the rows with a human truth.

    ``label_set`` holds the label texts a judge answer must be one of to parse; the humans'
    labels must all be in it. ``judge_fail`` is False where the answer did not parse.
    """
    problems = unknown_names([judge], matrix.judges, matrix.source, "judge", "judge")
    if problems:
        raise DataError(problems)
    human_codes = matrix.human_labels[matrix.human_labels >= 0]
    outside = sorted({matrix.labels[c] for c in np.unique(human_codes)} - set(label_set))
    if outside:
        raise DataError(
            [
                f"{matrix.source}: labels: the humans use labels outside the label set (got "
                f"{got_text(outside)})"
            ]
        )
    unknown = sorted(set(definition.fail_labels or ()) - set(label_set))
    if unknown:
        raise DataError(
            [
                f"{matrix.source}: fail_labels: not in the label set "
                f"({list_text(label_set)}) (got {got_text(unknown)})"
            ]
        )
    truth_fail, has_truth, n_tied = binary_truth(matrix, definition)
    codes = matrix.judge_labels[has_truth, matrix.judges.index(judge)]
    parsed_of_code = np.array([label in label_set for label in matrix.labels], dtype=bool)
    fail_of_code = label_fail_flags(matrix.labels, definition, parsed_of_code)
    return truth_fail[has_truth], fail_of_code[codes], parsed_of_code[codes], n_tied


def human_label_set(matrix):
    """Return the labels (texts, in the matrix's order) that some human gives some item."""
    used = np.unique(matrix.human_labels[matrix.human_labels >= 0])
    return tuple(matrix.labels[code] for code in used)


def measure_card(
    matrix, judge, definition, *, names, label_set=None, dates=None, settings=None, ceiling=None
):
    """Return a judge card (a JSON-ready dict) measured on ``matrix``.

    Parameters
    ----------
    matrix : simcore.realdata.annotation.AnnotationMatrix
        The criterion's items (one group), humans and judges.
    judge : str
        The judge the card is for.
    definition : FailDefinition
        What FAIL means.
    names : dict
        ``criterion``, ``population``, ``source`` and ``group_separator`` (None when the
        data has no groups), copied into the card.
    label_set : sequence of str, optional
        Labels a judge answer must be one of to parse; default: :func:`human_label_set`.
    dates : tuple, optional
        ``(measured, expires_days)``: a :class:`datetime.date` (default today) and the days
        until expiry (default :data:`DEFAULT_EXPIRES_DAYS`; None: :data:`ON_ALARM`, valid
        until the monitor alarms).
    settings : dict, optional
        ``confidence`` (default 0.95) and ``youden_floor`` (default 0.15).
    ceiling : dict, optional
        The ``human_ceiling`` field, when already computed for this matrix (the same for
        every judge); default :func:`~simcore.instrument.card.ceiling.population_ceiling`.

    Returns
    -------
    dict
        The card; :func:`simcore.instrument.card.file.card_keys` lists its keys.
    """
    definition.check()
    label_set = tuple(human_label_set(matrix) if label_set is None else label_set)
    measured, expires_days = dates or (None, DEFAULT_EXPIRES_DAYS)
    measured = measured or datetime.date.today()
    settings = {"confidence": 0.95, "youden_floor": DEFAULT_YOUDEN_FLOOR, **(settings or {})}
    truth_fail, judge_fail, parsed, n_tied = judge_outcomes(matrix, judge, definition, label_set)
    counts = count_outcomes(truth_fail, judge_fail, parsed)
    card = {
        "format": CARD_FORMAT,
        "judge": str(judge),
        "criterion": str(names["criterion"]),
        "population": str(names["population"]),
        "positive_class": "FAIL",
        "fail_definition": {
            "fail_at_most": definition.fail_at_most,
            "fail_labels": None if definition.fail_labels is None else list(definition.fail_labels),
            "text": definition.describe(),
        },
        "label_set": list(label_set),
        "n_tied_excluded": n_tied,
    }
    card.update(card_statistics(counts, **settings))
    card["human_ceiling"] = population_ceiling(matrix) if ceiling is None else ceiling
    card.update(
        {
            "measured": measured.isoformat(),
            "expires": ON_ALARM
            if expires_days is None
            else (measured + datetime.timedelta(days=int(expires_days))).isoformat(),
            "source": str(names["source"]),
            "group_separator": names.get("group_separator"),
            "simcore_version": __version__,
        }
    )
    return card


def load_criterion(path, criterion, group_separator=None, judge=None, **roles):
    """Return ``(matrix, label_set)``: a data path's criterion and its humans' label set.

    Reads ``path`` (a path or a long DataFrame) with the one reader,
    :func:`simcore.realdata.readers.read_annotations` (every label the humans and judges give
    is declared, so no judge answer is rejected at reading), takes the humans' label set
    from the whole input, then keeps the criterion's group when the input has groups (the
    criterion must then be a group name; without groups it names the whole input).

    ``roles`` are the reader's ``humans``, ``judges``, ``judges_file`` and ``columns``.
    Where the input declares its roles (an alttest folder) and none are given, only
    ``judge`` is read; where it does not (a CSV, a DataFrame), the roles must be given and
    ``judge`` must be one of the judges: another judge is never taken for a human.
    """
    from simcore.realdata.readers import read_annotations, reader_for

    roles = {key: value for key, value in roles.items() if value is not None}
    if judge is not None and not roles and reader_for(path).declares_roles:
        roles["judges"] = [judge]
    matrix = read_annotations(path, group_separator=group_separator, require_roles=True, **roles)
    if judge is not None:
        problems = unknown_names([judge], matrix.judges, matrix.source, "judge", "judge", "judges")
        if problems:
            raise DataError(problems)
    label_set = human_label_set(matrix)
    if len(matrix.group_names) > 1 or group_separator is not None:
        matrix = matrix.subset(criterion)
    return matrix, label_set


def interval_text(field, digits=3):
    """Return ``estimate [low, high]`` of a card's rate mapping (``n/a`` when undefined)."""
    if field["estimate"] is None:
        return "n/a"
    return f"{field['estimate']:.{digits}f} [{field['low']:.{digits}f}, {field['high']:.{digits}f}]"


def _ceiling_text(ceiling):
    """Return the card's human ceiling as text: the value, or null and the reason."""
    if ceiling["value"] is None:
        return f"null ({ceiling.get('reason')})"
    text = f"{ceiling['value']:.3f}"
    if ceiling.get("low") is not None:
        text += f" [{ceiling['low']:.3f}, {ceiling['high']:.3f}]"
    if ceiling.get("reliability") is not None:
        text += f" (symmetric c_k, k = {ceiling['k']:.3g}; r = {ceiling['reliability']:.3f}"
        text += f", {ceiling.get('measure')})"
    return text


def card_text(card):
    """Return a card's few-line summary: counts, TPR, TNR, J, kappa, coverage, usability."""
    counts = card["counts"]
    coverage = card["parse_coverage"]["share"]
    kappa = "n/a" if card["kappa"] is None else f"{card['kappa']:.3f}"
    ceiling = card["human_ceiling"]
    return "\n".join(
        [
            f"judge {card['judge']}, criterion {card['criterion']}, population "
            f"{card['population']}, {card['fail_definition']['text']}: n = {card['n']} "
            f"({card['n_fail']} FAIL, {card['n_pass']} PASS; {card['n_tied_excluded']} tied "
            "items excluded)",
            f"caught {counts['caught']}, missed {counts['missed']}, flagged "
            f"{counts['flagged']}, cleared {counts['cleared']}",
            f"TPR {interval_text(card['tpr'])}, TNR {interval_text(card['tnr'])} "
            f"({'percentile bootstrap' if 'majority' in card else 'Wilson'}), "
            f"J {interval_text(card['youden_j'])}, kappa {kappa}",
            f"parse coverage {'n/a' if coverage is None else f'{coverage:.3f}'} "
            f"({card['parse_coverage']['unparseable']} unparseable, counted as errors)",
            f"human ceiling: {_ceiling_text(ceiling)}",
            f"usable for rate correction: {'yes' if card['usable_for_rate_correction'] else 'no'}"
            f" ({card['reason']}); measured {card['measured']}, {expiry_text(card)}",
            *truth_lines(card),
        ]
    )


def truth_lines(card):
    """Return the lines stating a card's truth (a latent card: the majority's figures too)."""
    truth = card_truth(card)
    lines = [f"truth: {truth['kind']}: {truth['text']}"]
    if truth["kind"] != "latent":
        return lines
    fit = truth["fit"]
    lines.append(
        f"latent fit: {fit['model']} ({fit['reason']}) on {fit['items']} items, "
        f"{'converged' if fit['converged'] else 'NOT converged'}; intervals: "
        f"{card['youden_j']['method']}; counts are effective counts"
    )
    majority = card["majority"]
    shift = []
    for name in ("tpr", "tnr"):
        latent_value, gold = card[name]["estimate"], majority[name]["estimate"]
        if latent_value is not None and gold is not None:
            shift.append(f"{name.upper()} {latent_value - gold:+.3f}")
    lines.append(
        f"majority gold (for comparison): TPR {interval_text(majority['tpr'])}, TNR "
        f"{interval_text(majority['tnr'])} (Wilson; {majority['n_tied_excluded']} tied items "
        f"excluded); latent - majority: {', '.join(shift) or 'n/a'}"
    )
    return lines


def expiry_text(card):
    """Return how a card expires, as printed: ``expires DATE`` or until the monitor alarms."""
    if card["expires"] == ON_ALARM:
        return "valid until simcore monitor alarms on it"
    return f"expires {card['expires']}"
