"""``simcore monitor``: the report in text, JSON and Python, the alarm on a planted drift,
the plot, and every bad input as a one-line exit 2."""

import csv
import json

import numpy as np
import pytest

import simcore
from simcore.calibration.confidence_sequence import failure_rate_sequence
from simcore.cli import main
from simcore.instrument.monitor.data import monitor_stream


def day_text(day):
    """Return the ISO text of day ``day`` (0-based) of a stream starting 1 September 2026."""
    return f"2026-09-{day + 1:02d}" if day < 30 else f"2026-10-{day - 29:02d}"


def write_stream(folder, days=40, per_day=100, audits=20, theta=0.3, drop_from=None, seed=3):
    """Write a production and an audit CSV; the judge's TPR falls by 0.3 from ``drop_from``."""
    rng = np.random.default_rng(seed)
    production, audit = folder / "production.csv", folder / "audit.csv"
    with production.open("w", newline="") as p_file, audit.open("w", newline="") as a_file:
        p_rows, a_rows = csv.writer(p_file), csv.writer(a_file)
        p_rows.writerow(["item", "date", "judge"])
        a_rows.writerow(["item", "date", "human"])
        for day in range(days):
            date = day_text(day)
            tpr = 0.55 if drop_from is not None and day >= drop_from else 0.85
            human = rng.random(per_day) < theta
            judge = np.where(human, rng.random(per_day) < tpr, rng.random(per_day) > 0.9)
            for k in range(per_day):
                p_rows.writerow([f"d{day}-{k}", date, "fail" if judge[k] else "pass"])
            for k in rng.choice(per_day, audits, replace=False):
                a_rows.writerow([f"d{day}-{k}", date, "fail" if human[k] else "pass"])
    return production, audit


def card_with(caught, missed, flagged, cleared):
    """A complete judge card's document with these counts (checked as a card file is)."""
    from simcore.instrument.card.measure import CARD_FORMAT

    def rate(hits, rows):
        return {"estimate": hits / rows if rows else None, "low": 0.0, "high": 1.0}

    counts = {"caught": caught, "missed": missed, "flagged": flagged, "cleared": cleared}
    return {
        "format": CARD_FORMAT,
        **{"judge": "j", "criterion": "c", "population": "p", "positive_class": "FAIL"},
        "fail_definition": {"fail_at_most": None, "fail_labels": ["fail"], "text": "FAIL"},
        "label_set": ["fail", "pass"],
        "n_tied_excluded": 0,
        "n": sum(counts.values()),
        "n_fail": caught + missed,
        "n_pass": flagged + cleared,
        "counts": counts,
        "confidence": 0.95,
        "tpr": rate(caught, caught + missed),
        "tnr": rate(cleared, flagged + cleared),
        "kappa": None,
        "youden_j": {"estimate": None, "low": None, "high": None, "method": "m"},
        "parse_coverage": {
            "share": 1.0,
            "unparseable": 0,
            "unparseable_fail_rows_counted_missed": 0,
            "unparseable_pass_rows_counted_flagged": 0,
        },
        "youden_floor": 0.15,
        "usable_for_rate_correction": True,
        "reason": "r",
        "human_ceiling": {"value": None, "reason": None},
        **{"measured": "2026-01-01", "expires": "2027-01-01", "source": "s"},
        "group_separator": None,
        "simcore_version": "0",
    }


CARD = card_with(430, 70, 50, 450)


def test_the_report_is_the_sequence_of_the_stream(tmp_path, capsys):
    production, audit = write_stream(tmp_path)
    assert (
        main(["monitor", "--production", str(production), "--audit-file", str(audit), "--json"])
        == 0
    )
    document = json.loads(capsys.readouterr().out)
    result = simcore.monitor(production, audit)
    assert document == result.to_dict()
    stream = monitor_stream(production, audit)
    estimate, low, high = failure_rate_sequence(
        stream.rectifiers, stream.production_fails, stream.production_rows, stream.audits, 0.05
    )
    looks = result.table("looks")
    assert len(looks) == 40 and looks["audits"].iloc[-1] == 800
    assert looks["low"].to_numpy() == pytest.approx(low)
    assert looks["high"].to_numpy() == pytest.approx(high)
    # The estimate is the judge's FAIL share plus the audits' mean human-minus-judge.
    final = document["final"]
    assert final["estimate"] == pytest.approx(
        final["judge_fails"] / final["production_rows"] + stream.rectifiers.mean()
    )
    assert "alarm" not in document
    assert main(["monitor", "--production", str(production), "--audit-file", str(audit)]) == 0
    text = capsys.readouterr().out
    assert "no card: no drift alarm (give --card)" in text
    assert text.count("\n| 2026-") == 40


def test_a_planted_drop_alarms_after_it_and_a_steady_judge_does_not(tmp_path):
    steady = tmp_path / "steady"
    drift = tmp_path / "drift"
    steady.mkdir(), drift.mkdir()
    quiet = simcore.monitor(*write_stream(steady), card=CARD).to_dict()["alarm"]
    assert quiet["first_tpr_alarm"] is None and quiet["first_tnr_alarm"] is None
    moved = simcore.monitor(*write_stream(drift, drop_from=20), card=CARD).to_dict()["alarm"]
    assert moved["first_tpr_alarm"] is not None
    assert moved["first_tpr_alarm"] >= day_text(20)
    assert moved["first_tnr_alarm"] is None
    assert 0.0 <= moved["power"]["detection"] <= 1.0


def test_the_plot_is_written(tmp_path, capsys):
    production, audit = write_stream(tmp_path, days=10)
    plot = tmp_path / "out" / "monitor.png"
    flags = ["monitor", "--production", str(production), "--audit-file", str(audit)]
    assert main([*flags, "--plot", str(plot)]) == 0
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def rewrite(path, old, new):
    path.write_text(path.read_text().replace(old, new, 1))


@pytest.mark.parametrize(
    "change, message",
    [
        (
            ("production", "d0-0,2026-09-01", "d0-0,"),
            "line 2: column 'date': every row needs a date",
        ),
        (("production", "d0-0,2026-09-01", "d0-0,01/09/2026"), "must be an ISO date YYYY-MM-DD"),
        (("production", "d1-0,2026-09-02", "d1-0,2026-08-01"), "dates out of order: 2026-08-01"),
        (("audit", "\nd", "\nnowhere-0,2026-09-01,fail\nd"), "the audited item is not in the"),
        (("production", "d2-0,2026-09-03,", "d1-0,2026-09-03,"), "item repeated (got 'd1-0')"),
        (("production", ",pass\n", ",maybe\n"), "must be 'fail' or 'pass' (got 'maybe')"),
        (("audit", "item,date,human", "item,day,human"), "column 'date' not found"),
    ],
)
def test_bad_input_is_a_one_line_exit_2(tmp_path, capsys, change, message):
    production, audit = write_stream(tmp_path, days=5, per_day=10, audits=3)
    which, old, new = change
    rewrite(production if which == "production" else audit, old, new)
    assert main(["monitor", "--production", str(production), "--audit-file", str(audit)]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err


def test_an_audit_before_its_item_was_judged_is_refused(tmp_path, capsys):
    production, audit = write_stream(tmp_path, days=5, per_day=10, audits=3)
    rows = audit.read_text().splitlines()
    item = rows[-1].split(",")[0]
    audit.write_text("\n".join([rows[0], f"{item},2026-09-01,fail"]) + "\n")
    assert main(["monitor", "--production", str(production), "--audit-file", str(audit)]) == 2
    assert "before the judge labelled it on 2026-09-05" in capsys.readouterr().err


def test_a_card_without_both_classes_is_refused(tmp_path):
    production, audit = write_stream(tmp_path, days=3, per_day=10, audits=3)
    card = card_with(0, 0, 5, 50)
    with pytest.raises(ValueError, match="needs human-FAIL and human-PASS rows"):
        simcore.monitor(production, audit, card=card)


@pytest.mark.parametrize("flag, value", [("--confidence", "1.5"), ("--alarm-alpha", "0")])
def test_options_out_of_range_exit_2(tmp_path, capsys, flag, value):
    production, audit = write_stream(tmp_path, days=3, per_day=10, audits=3)
    flags = ["monitor", "--production", str(production), "--audit-file", str(audit), flag, value]
    assert main(flags) == 2
    assert flag in capsys.readouterr().err


def card_file(tmp_path, on_alarm):
    """Measure a card with ``simcore card`` on 600 calibration items (two humans agreeing)."""
    rng = np.random.default_rng(9)
    calibration = tmp_path / "calibration.csv"
    lines = ["item,rater,label"]
    for k in range(600):
        human = rng.random() < 0.4
        judge = rng.random() < (0.85 if human else 0.1)
        lines += [f"c{k},{rater},{'fail' if human else 'pass'}" for rater in ("ann", "bob")]
        lines.append(f"c{k},judge,{'fail' if judge else 'pass'}")
    calibration.write_text("\n".join(lines) + "\n")
    card = tmp_path / "card.json"
    flags = ["card", str(calibration), "--judges", "judge", "--judge", "judge"]
    flags += ["--criterion", "c", "--population", "p", "--fail-labels", "fail"]
    flags += ["--date", "2026-08-31", "--out", str(card)]
    assert main([*flags, *(["--expires-on-alarm"] if on_alarm else [])]) == 0
    return card


def test_a_card_valid_until_the_alarm_gets_the_alarm_date(tmp_path, capsys):
    card = card_file(tmp_path, on_alarm=True)
    capsys.readouterr()
    assert json.loads(card.read_text())["expires"] == "on-alarm"
    production, audit = write_stream(tmp_path, drop_from=20)
    flags = ["monitor", "--production", str(production), "--audit-file", str(audit)]
    assert main([*flags, "--card", str(card), "--json"]) == 0
    alarm = json.loads(capsys.readouterr().out)["alarm"]
    assert alarm["card_expires"] == alarm["first_tpr_alarm"] and not alarm["card_written"]
    assert json.loads(card.read_text())["expires"] == "on-alarm"  # not written unless asked
    assert main([*flags, "--card", str(card), "--expire-card"]) == 0
    assert f"it expires {alarm['first_tpr_alarm']} (written into {card})" in capsys.readouterr().out
    assert json.loads(card.read_text())["expires"] == alarm["first_tpr_alarm"]
    # The card, now dated, is refused by calibrate after that date, as any expired card.
    later = ["calibrate", "--card", str(card), "--population", "p", "--fails", "10"]
    assert main([*later, "--of", "100", "--today", "2026-12-01"]) == 2
    assert "expires: the card expired on" in capsys.readouterr().err


def test_expire_card_refuses_a_card_with_a_fixed_expiry(tmp_path, capsys):
    card = card_file(tmp_path, on_alarm=False)
    capsys.readouterr()
    before = card.read_text()
    production, audit = write_stream(tmp_path, days=3, per_day=10, audits=3)
    flags = ["monitor", "--production", str(production), "--audit-file", str(audit)]
    assert main([*flags, "--card", str(card), "--expire-card"]) == 2
    assert "--expire-card dates a card made with --expires-on-alarm" in capsys.readouterr().err
    assert card.read_text() == before
