"""``simcore monitor``: the corrected failure rate over time, and a drift alarm on the card.

At every look of a :class:`~simcore.instrument.monitor.data.MonitorStream`:

* **the failure rate** ``theta = q + Delta`` (the judge's FAIL share plus the mean audited
  ``human - judge``), with an anytime-valid confidence sequence: valid at every look at
  once, so looking daily and stopping when it suits costs no coverage
  (:func:`simcore.calibration.confidence_sequence.failure_rate_sequence`: a normal-mixture
  boundary for ``q``, a betting sequence for ``Delta``; betting because it adapts to the
  rectifier's small variance and holds without asymptotics);
* **the drift alarm** (with a card): the audited TPR and TNR tested against the card's, by
  mixture e-processes whose false-alarm probability over the whole horizon is at most
  ``alarm_alpha`` (:func:`simcore.calibration.drift_alarm.drift_alarm`), with its power
  against a TPR drop of 0.15 simulated on a stream like this one, as ``card --check``
  states it.

The sequence assumes the failure rate and the judge's errors stay put; the alarm watches the
second. :func:`monitor_report` returns the document (``--json``) and the text.
"""

import math

from simcore.calibration.confidence_sequence import failure_rate_sequence
from simcore.calibration.drift_alarm import alarm_simulation, drift_alarm
from simcore.markdown_table import markdown_table

DROP = 0.15
"""The TPR drop the alarm's power is stated for (as ``card --check``)."""

POWER_TRIALS = 500
"""Simulated streams behind the stated power."""

POWER_SEED = 20_261_204
"""Seed of the power simulation."""


def _number(value):
    value = float(value)
    return value if math.isfinite(value) else None


def _looks(stream, rates, alarm):
    """Return one JSON row per look."""
    estimate, low, high = rates
    rows = []
    for index, date in enumerate(stream.dates):
        row = {
            "date": date,
            "production_rows": int(stream.production_rows[index]),
            "judge_fails": int(stream.production_fails[index]),
            "audits": int(stream.audits[index]),
            "estimate": _number(estimate[index]),
            "low": _number(low[index]),
            "high": _number(high[index]),
        }
        if alarm is not None:
            row["tpr_alarm"] = bool(alarm.tpr_alarm[index])
            row["tnr_alarm"] = bool(alarm.tnr_alarm[index])
        rows.append(row)
    return rows


def _power(stream, counts, alarm_alpha):
    """Return the simulated power against a TPR drop of :data:`DROP`, and its inputs."""
    caught, missed, flagged, cleared = counts
    audits = int(stream.audits[-1])
    theta = float(stream.audit_fail[-1]) / audits if audits else 0.0
    se = caught / (caught + missed)
    looks = max(1, len(stream.dates))
    per_look = max(1, round(audits / looks))
    if se < DROP or theta <= 0.0:
        return None
    simulated = alarm_simulation(
        se,
        cleared / (flagged + cleared),
        theta,
        sum(counts),
        per_look,
        looks,
        alarm_alpha,
        POWER_TRIALS,
        POWER_SEED,
        drop=DROP,
        drop_at=0,
    )
    return {
        "drop": DROP,
        "detection": simulated.detection_share,
        "median_delay_looks": _number(simulated.median_delay),
        "trials": POWER_TRIALS,
        "audits_per_look": per_look,
        "looks": looks,
    }


def monitor_report(stream, counts=None, confidence=0.95, alarm_alpha=0.05):
    """Return ``(document, text)`` of the monitor over ``stream``.

    Parameters
    ----------
    stream : simcore.instrument.monitor.data.MonitorStream
        The looks and their cumulative counts.
    counts : tuple of int, optional
        The card's ``(caught, missed, flagged, cleared)``; without it no drift alarm.
    confidence : float
        The confidence sequence's level, valid over all looks at once.
    alarm_alpha : float
        The bound on the probability of any false alarm over the horizon.

    Returns
    -------
    document : dict
        ``confidence``, ``sequence`` (its method), ``looks`` (``date``,
        ``production_rows``, ``judge_fails``, ``audits``, ``estimate``, ``low``, ``high``,
        and with a card ``tpr_alarm``, ``tnr_alarm``), ``final`` (the last look's row) and,
        with a card, ``alarm`` (``alpha``, ``card`` TPR/TNR with their null intervals,
        ``first_tpr_alarm``/``first_tnr_alarm`` dates or None, ``power``).
    text : str
        The table and the alarm's summary.
    """
    rates = failure_rate_sequence(
        stream.rectifiers,
        stream.production_fails,
        stream.production_rows,
        stream.audits,
        1.0 - confidence,
    )
    alarm = None
    if counts is not None:
        caught, missed, flagged, cleared = counts
        alarm = drift_alarm(
            caught,
            caught + missed,
            cleared,
            flagged + cleared,
            stream.audit_tp,
            stream.audit_fail,
            stream.audit_tn,
            stream.audit_pass,
            alarm_alpha,
        )
    looks = _looks(stream, rates, alarm)
    document = {
        "confidence": confidence,
        "sequence": "prediction-powered: normal mixture for the judge's FAIL share, betting "
        "(hedged capital) for the mean human-minus-judge of the audits",
        "looks": looks,
        "final": looks[-1],
    }
    if alarm is not None:
        document["alarm"] = _alarm_document(stream, counts, alarm, alarm_alpha)
    return document, format_monitor(document)


def _alarm_document(stream, counts, alarm, alarm_alpha):
    """Return the ``alarm`` block: the card's rates, the first alarms and the power."""
    caught, missed, flagged, cleared = counts

    def first(index):
        return None if index < 0 else stream.dates[index]

    return {
        "alpha": alarm_alpha,
        "card": {
            "tpr": caught / (caught + missed),
            "tnr": cleared / (flagged + cleared),
            "tpr_null": [float(bound) for bound in alarm.tpr_null],
            "tnr_null": [float(bound) for bound in alarm.tnr_null],
        },
        "first_tpr_alarm": first(alarm.tpr_first_alarm),
        "first_tnr_alarm": first(alarm.tnr_first_alarm),
        "power": _power(stream, counts, alarm_alpha),
    }


def format_monitor(document):
    """Return the monitor's text: one row per look, then the sequence's and alarm's lines."""
    level = f"{100 * document['confidence']:g}%"
    alarm = document.get("alarm")
    header = ["date", "production rows", "judge FAIL", "audits", "failure rate"]
    header += [f"{level} sequence", *(["TPR alarm", "TNR alarm"] if alarm else [])]
    rows = []
    for row in document["looks"]:
        rate = "-" if row["estimate"] is None else f"{row['estimate']:.4f}"
        cells = [row["date"], row["production_rows"], row["judge_fails"], row["audits"], rate]
        cells.append(f"[{row['low']:.3f}, {row['high']:.3f}]")
        if alarm:
            cells += ["yes" if row[name] else "-" for name in ("tpr_alarm", "tnr_alarm")]
        rows.append(cells)
    lines = markdown_table(header, rows)
    final = document["final"]
    estimate = "-" if final["estimate"] is None else f"{final['estimate']:.4f}"
    lines += [
        "",
        f"failure rate on {final['date']}: {estimate} [{final['low']:.3f}, "
        f"{final['high']:.3f}], a {level} confidence sequence valid at every look at once "
        "(it assumes the failure rate and the judge's errors stay put)",
    ]
    lines += _alarm_lines(alarm) if alarm else ["no card: no drift alarm (give --card)"]
    return "\n".join(lines)


def _alarm_lines(alarm):
    """Return the alarm's summary lines."""
    card = alarm["card"]
    lines = [
        f"drift alarm (false alarms over the whole horizon at most {alarm['alpha']:g}): card "
        f"TPR {card['tpr']:.3f}, null interval [{card['tpr_null'][0]:.3f}, "
        f"{card['tpr_null'][1]:.3f}]; TNR {card['tnr']:.3f}, null interval "
        f"[{card['tnr_null'][0]:.3f}, {card['tnr_null'][1]:.3f}]",
    ]
    for name in ("tpr", "tnr"):
        first = alarm[f"first_{name}_alarm"]
        lines.append(
            f"{name.upper()}: moved away from the card's on {first}: the card no longer holds"
            if first
            else f"{name.upper()}: no alarm"
        )
    power = alarm["power"]
    if power is not None:
        delay = power["median_delay_looks"]
        lines.append(
            f"power: a TPR drop of {power['drop']:g} from the first look would be detected by "
            f"the last in {100 * power['detection']:.0f}% of {power['trials']} simulated "
            f"streams like this one ({power['looks']} looks of {power['audits_per_look']} "
            f"audits; median delay {'-' if delay is None else f'{delay:g}'} looks)"
        )
    return lines
