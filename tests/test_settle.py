"""``simcore settle``: the loop a team runs, its record of looks, its refusals, and the CI gate.

The loop: a hidden complete matrix (the synthetic model of :mod:`simcore.sequential.simulation`)
is revealed round by round as ``--next-round`` asks, until the verdict settles. The gate:
every ``--fail-if`` condition of every judge command exits 3 when it holds and 0 when not,
and bad input still exits 2.
"""

import csv
import datetime
import json

import numpy as np
import pandas as pd
import pytest

import simcore
from simcore.cli import main
from simcore.sequential import SyntheticPanel, synthetic_panel

HUMANS = ("ann", "bob", "cat")


def hidden_matrix(judge_accuracy, n_items=600, seed=5):
    """Every human's and the judge's label of every item (the labels a team could buy)."""
    panel = SyntheticPanel(3, 0.85, judge_accuracy, 1.0, 2, n_items, 1)
    humans, judge = synthetic_panel(np.random.default_rng(seed), panel, 1)
    return humans[0], judge[0]


def write_revealed(path, humans, judge, revealed):
    """Write the long CSV of the revealed human labels and every judge label."""
    rows = [
        (f"i{item}", HUMANS[k], int(humans[item, k]))
        for item, k in zip(*np.nonzero(revealed), strict=True)
    ]
    rows += [(f"i{item}", "judge", int(label)) for item, label in enumerate(judge)]
    pd.DataFrame(rows, columns=["item", "rater", "label"]).to_csv(path, index=False)


def start(n_items, first=30, seed=1):
    """The primary on every item, each secondary on ``first`` random items."""
    rng = np.random.default_rng(seed)
    revealed = np.zeros((n_items, 3), dtype=bool)
    revealed[:, 0] = True
    for k in (1, 2):
        revealed[rng.choice(n_items, first, replace=False), k] = True
    return revealed


def settle_argv(data, looks, next_round, *extra):
    flags = ["--humans", ",".join(HUMANS), "--judges", "judge", "--looks", str(looks)]
    return ["settle", str(data), *flags, "--next-round", str(next_round), *extra]


def test_a_team_labels_round_by_round_until_a_good_judge_is_settled_accept(tmp_path, capsys):
    humans, judge = hidden_matrix(0.97)
    revealed = start(len(judge))
    data, looks, next_round = tmp_path / "m.csv", tmp_path / "looks.json", tmp_path / "next.csv"
    verdicts = []
    for _ in range(12):
        write_revealed(data, humans, judge, revealed)
        assert main([*settle_argv(data, looks, next_round), "--json", "--trials", "40"]) == 0
        document = json.loads(capsys.readouterr().out)
        verdicts.append(document["judges"][0]["verdict"])
        with next_round.open() as stream:
            rows = list(csv.DictReader(stream))
        if verdicts[-1] != "open":
            assert rows == [] and document["next_round"] is None
            break
        assert rows and document["next_round"]["labels"] == len(rows)
        for row in rows:  # the proposal asks only for labels not yet collected
            item, k = int(row["item"][1:]), HUMANS.index(row["human"])
            assert not revealed[item, k]
            revealed[item, k] = True
    assert verdicts[0] == "open" and verdicts[-1] == "settled accept", verdicts
    record = json.loads(looks.read_text())
    assert len(record["looks"]) == len(verdicts) == document["look"]
    assert [look["verdicts"]["judge"] for look in record["looks"]] == verdicts
    spent = document["judges"][0]["labels_spent"]
    assert spent == record["looks"][-1]["human_labels"] == int(revealed.sum())
    # The same data again is the same look: nothing appended, the same verdict read.
    text = looks.read_text()
    assert main([*settle_argv(data, looks, next_round), "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert looks.read_text() == text and not again["new_look"]
    assert again["judges"][0]["verdict"] == "settled accept"


def test_the_python_function_gives_the_document_of_the_command(tmp_path, capsys):
    humans, judge = hidden_matrix(0.8, n_items=200)
    data = tmp_path / "m.csv"
    write_revealed(data, humans, judge, start(200, first=60))
    flags = ["--humans", ",".join(HUMANS), "--judges", "judge", "--rule", "alt_test"]
    assert main(["settle", str(data), *flags, "--json", "--trials", "20"]) == 0
    document = json.loads(capsys.readouterr().out)
    result = simcore.settle(data, humans=HUMANS, judges="judge", rule="alt_test", trials=20)
    assert result.to_dict() == document
    assert list(result.judges["judge"]) == ["judge"]
    row = document["judges"][0]
    assert row["winning_rate"][0] <= row["winning_rate"][1]
    assert all("e_value" in comparison for comparison in row["comparisons"])
    assert document["scoring"] == "exact match" and document["settings"]["rule"] == "alt_test"
    assert "Scoring: exact match" in result.to_markdown()


def recorded_run(tmp_path, capsys):
    """A record of one look on a 200-item matrix; returns the paths."""
    humans, judge = hidden_matrix(0.85, n_items=200)
    data, looks, next_round = tmp_path / "m.csv", tmp_path / "looks.json", tmp_path / "next.csv"
    write_revealed(data, humans, judge, start(200))
    assert main([*settle_argv(data, looks, next_round), "--trials", "20"]) == 0
    capsys.readouterr()
    return data, looks, next_round


def test_a_changed_recorded_label_is_refused_and_nothing_is_written(tmp_path, capsys):
    data, looks, next_round = recorded_run(tmp_path, capsys)
    before = (looks.read_bytes(), next_round.read_bytes())
    frame = pd.read_csv(data, dtype=str)
    at = frame.index[(frame["rater"] == "bob")][0]
    item = frame.loc[at, "item"]
    frame.loc[at, "label"] = "1" if frame.loc[at, "label"] == "0" else "0"
    frame.to_csv(data, index=False)
    assert main(settle_argv(data, looks, next_round)) == 2
    error = capsys.readouterr().err.strip()
    assert error.count("\n") == 0
    assert str(looks) in error and f"item {item!r}, rater 'bob'" in error
    assert (looks.read_bytes(), next_round.read_bytes()) == before
    frame = frame.drop(index=at)  # a removed label too
    frame.to_csv(data, index=False)
    assert main(settle_argv(data, looks, next_round)) == 2
    assert "now holds no label" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--eps", "0.1"], "settings.epsilon: the record's looks were read with epsilon 0.05"),
        (["--rule", "alt_test"], "settings.rule"),
        (["--humans", "bob,ann,cat"], "humans: the record's looks read ['ann', 'bob', 'cat']"),
    ],
)
def test_other_settings_or_raters_than_the_record_are_refused(tmp_path, capsys, flags, message):
    data, looks, next_round = recorded_run(tmp_path, capsys)
    argv = settle_argv(data, looks, next_round)
    if flags[0] == "--humans":
        argv[argv.index("--humans") + 1] = flags[1]
        flags = []
    assert main([*argv, *flags]) == 2
    assert message in capsys.readouterr().err


def test_a_file_that_is_not_a_record_is_neither_read_nor_replaced(tmp_path, capsys):
    data, looks, next_round = recorded_run(tmp_path, capsys)
    other = tmp_path / "notes.json"
    other.write_text('{"kind": "notes"}\n')
    assert main(settle_argv(data, other, next_round)) == 2
    assert "notes.json" in capsys.readouterr().err
    assert other.read_text() == '{"kind": "notes"}\n'


def test_a_single_human_is_refused(tmp_path, capsys):
    data = tmp_path / "one.csv"
    data.write_text("item,rater,label\na,ann,1\na,judge,1\nb,ann,0\nb,judge,1\n")
    assert main(["settle", str(data), "--humans", "ann", "--judges", "judge"]) == 2
    assert "humans: need at least 2 humans" in capsys.readouterr().err


# --------------------------------------------------------------------------- --fail-if


def test_settle_fails_if_not_settled_accept_exits_3_while_open_and_0_once_settled(tmp_path, capsys):
    humans, judge = hidden_matrix(0.97, n_items=600)
    data = tmp_path / "m.csv"
    flags = ["--humans", ",".join(HUMANS), "--judges", "judge", "--trials", "20"]
    gate = ["--fail-if", "not-settled-accept"]
    write_revealed(data, humans, judge, start(600, first=20))
    assert main(["settle", str(data), *flags, *gate]) == 3
    assert "--fail-if not-settled-accept: judge judge is open" in capsys.readouterr().err
    write_revealed(data, humans, judge, np.ones_like(humans, dtype=bool))  # dense
    assert main(["settle", str(data), *flags, *gate]) == 0
    assert "settled accept" in capsys.readouterr().out
    assert main(["settle", str(data), *flags, "--fail-if", "drift"]) == 2
    assert "simcore settle reads not-settled-accept (got 'drift')" in capsys.readouterr().err
    assert main(["settle", str(tmp_path / "missing.csv"), *flags, *gate]) == 2


def card_data(path, tpr, seed=9):
    """Write 600 calibration items: two agreeing humans, a judge catching ``tpr`` of FAILs."""
    rng = np.random.default_rng(seed)
    lines = ["item,rater,label"]
    for k in range(600):
        human = rng.random() < 0.4
        caught = rng.random() < (tpr if human else 0.1)
        lines += [f"c{k},{rater},{'fail' if human else 'pass'}" for rater in ("ann", "bob")]
        lines.append(f"c{k},judge,{'fail' if caught else 'pass'}")
    path.write_text("\n".join(lines) + "\n")
    return path


def measured_card(tmp_path, date, name):
    data = card_data(tmp_path / "calibration.csv", 0.85)
    card = tmp_path / name
    flags = ["card", str(data), "--judges", "judge", "--judge", "judge", "--criterion", "c"]
    flags += ["--population", "p", "--fail-labels", "fail", "--date", date, "--out", str(card)]
    assert main(flags) == 0
    return card


def test_card_check_fails_if_drift_or_card_expired(tmp_path, capsys):
    fresh = measured_card(tmp_path, "2090-01-01", "fresh.json")  # expires in 2090
    old = measured_card(tmp_path, "2020-01-01", "old.json")
    same = card_data(tmp_path / "same.csv", 0.85, seed=10)
    moved = card_data(tmp_path / "moved.csv", 0.4, seed=10)
    check = ["--judges", "judge", "--today", "2026-06-01", "--check"]  # a fixed expiry date
    capsys.readouterr()
    assert main(["card", str(same), *check, str(fresh), "--fail-if", "drift"]) == 0
    assert main(["card", str(moved), *check, str(fresh), "--fail-if", "drift"]) == 3
    assert "--fail-if drift: card" in capsys.readouterr().err
    assert main(["card", str(same), *check, str(fresh), "--fail-if", "card-expired"]) == 0
    assert main(["card", str(same), *check, str(old), "--fail-if", "card-expired"]) == 3
    assert "card-expired: the card expired on 2020-01-31" in capsys.readouterr().err
    assert main(["card", str(same), *check, str(old), "--fail-if", "risk>0.1"]) == 2
    assert main(["card", str(same), "--judges", "judge", "--fail-if", "drift"]) == 2
    assert "add --check CARD" in capsys.readouterr().err


def test_monitor_fails_if_drift_or_card_expired(tmp_path, capsys):
    from test_monitor import card_with, write_stream

    steady, drift = tmp_path / "steady", tmp_path / "drift"
    steady.mkdir(), drift.mkdir()
    card = tmp_path / "card.json"
    card.write_text(json.dumps(card_with(430, 70, 50, 450)))
    expired = tmp_path / "expired.json"
    expired.write_text(json.dumps({**card_with(430, 70, 50, 450), "expires": "2026-02-01"}))

    def monitor(folder, card_path, *conditions):
        production, audit = write_stream(folder, drop_from=20 if folder == drift else None)
        flags = ["--production", str(production), "--audit-file", str(audit)]
        card_flags = [] if card_path is None else ["--card", str(card_path)]
        gates = [flag for condition in conditions for flag in ("--fail-if", condition)]
        today = ["--today", "2026-06-01"] if card_path is not None else []  # fixed expiry date
        return main(["monitor", *flags, *card_flags, *gates, *today])

    assert monitor(steady, card, "drift", "card-expired") == 0
    assert monitor(drift, card, "drift") == 3
    assert "--fail-if drift: the alarm fired on the TPR from 2026-" in capsys.readouterr().err
    assert monitor(steady, expired, "card-expired") == 3
    assert monitor(steady, None, "drift") == 2
    assert "add --card FILE" in capsys.readouterr().err


def test_advise_fails_if_not_accept_or_its_risk_is_above_x(tmp_path, capsys):
    from simcore.realdata.shapes import draw_matrix, write_long_csv

    path = write_long_csv(*draw_matrix(160, 4, 2, 3, 0.45, seed=11), tmp_path / "matrix.csv")
    base = ["advise", str(path), "--judges", "judge0,judge1", "--trials", "30", "--quiet"]
    assert main([*base, "--out", str(tmp_path / "a"), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    advice = next(iter(document["groups"].values()))
    decisions = {row["judge"]: row["decision"] for row in advice["verdicts"]}
    risks = [value["risk"] for value in advice["risk_now"].values()]
    not_accepted = any(decision != "accept" for decision in decisions.values())
    status = main([*base, "--out", str(tmp_path / "b"), "--fail-if", "not-accept"])
    assert status == (3 if not_accepted else 0)
    below, above = min(risks) / 2, max(risks)
    assert main([*base, "--out", str(tmp_path / "c"), "--fail-if", f"risk>{below}"]) == (
        3 if max(risks) > below else 0
    )
    assert main([*base, "--out", str(tmp_path / "d"), "--fail-if", f"risk>{above}"]) == 0
    assert main([*base, "--out", str(tmp_path / "e"), "--fail-if", "risk>2"]) == 2
    assert "risk>X takes a share X in [0, 1]" in capsys.readouterr().err


def test_gate_reads_each_condition_from_a_document():
    settle = {"command": "settle", "judges": [{"judge": "a", "verdict": "settled reject"}]}
    assert simcore.gate(settle, ["not-settled-accept"]) == [
        "not-settled-accept: judge a is settled reject"
    ]
    advice = {
        "verdicts": [{"judge": "a", "decision": "accept"}, {"judge": "b", "decision": "reject"}],
        "risk_now": {"a": {"risk": 0.02, "se": 0.01}, "b": {"risk": 0.3, "se": 0.02}},
    }
    advise = {"command": "advise", "groups": {"": advice}}
    assert simcore.gate(advise, ["not-accept"]) == ["not-accept: judge b is reject"]
    assert simcore.gate(advise, ["risk>0.3"]) == []
    assert len(simcore.gate(advise, ["risk>0.01"])) == 2
    card = {"command": "card", "card": "c.json", "verdict": "usable", "expires": "2026-01-10"}
    on = datetime.date(2026, 1, 10)
    assert simcore.gate(card, ["drift", "card-expired"], today=on) == []
    assert simcore.gate(card, ["card-expired"], today=on + datetime.timedelta(days=1)) == [
        "card-expired: the card expired on 2026-01-10 (today is 2026-01-11)"
    ]
    assert simcore.gate({**card, "expires": "on-alarm"}, ["card-expired"]) == []
    with pytest.raises(ValueError, match="reads the result of"):
        simcore.gate({"command": "inspect"}, ["drift"])
