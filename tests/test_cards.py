"""Judge cards: measured fields by hand, calibrate --card, refusals, transport check, make cards."""

import json
import math
from pathlib import Path

import numpy as np
import pytest

from experiments.card_folder import write_card_folder
from simcore.cli import main
from simcore.instrument.card.check import (
    check_rate,
    drop_power,
    rows_needed,
    transport_check,
    two_proportion_test,
)
from simcore.instrument.card.file import CardError, read_card, write_card
from simcore.instrument.card.measure import (
    cohen_kappa,
    count_outcomes,
    judge_outcomes,
    measure_card,
    youden_interval,
)
from simcore.instrument.fail_definitions import (
    SHIPPED_CARD_SPECS,
    FailDefinition,
    binary_truth,
)
from simcore.realdata.annotation import AnnotationMatrix

ALTTEST = Path(__file__).resolve().parents[2] / "shared" / "data" / "alttest"
Z95 = 1.959963984540054
NAMES = {"criterion": "quality", "population": "tiny/quality", "source": "tiny"}


def tiny_matrix(humans=3):
    """Ten items, three humans scoring 1-5, one judge answering a score or the unparseable 'x'.

    With FAIL = score <= 2 the truths are: FAIL on items 0, 1, 6; PASS on 3, 4, 5, 7, 9; a
    1-1 tie on item 2 and no human label on item 8 (both without a truth). The judge: caught
    0 and 6, missed 1, cleared 3, 7, 9, flagged 4, and answered 'x' on PASS item 5.
    """
    h = [
        [1, 1, 4],
        [2, 2, 2],
        [1, 5, 0],
        [4, 5, 5],
        [3, 4, 5],
        [5, 5, 5],
        [2, 1, 3],
        [4, 4, 1],
        [0, 0, 0],
        [3, 3, 3],
    ]
    judge = ["2", "5", "1", "4", "1", "x", "1", "3", "2", "5"]
    labels = ("1", "2", "3", "4", "5", "x")
    codes = np.array(h)[:, :humans] - 1  # score s -> code s - 1; 0 -> -1 (no label)
    return AnnotationMatrix(
        source="tiny",
        items=tuple(f"i{i}" for i in range(10)),
        humans=tuple(f"h{k}" for k in range(humans)),
        judges=("j",),
        labels=labels,
        ordinal=False,
        human_labels=codes,
        judge_labels=np.array([[labels.index(a)] for a in judge]),
    )


def wilson(x, n, z=Z95):
    """Wilson score interval by the textbook formula."""
    centre = (x + z * z / 2) / (n + z * z)
    half = z * math.sqrt(x * (n - x) / n + z * z / 4) / (n + z * z)
    return centre - half, centre + half


def tiny_card(**dates):
    return measure_card(
        tiny_matrix(),
        "j",
        FailDefinition(fail_at_most=2),
        names=NAMES,
        dates=(dates.get("measured"), dates.get("days", 30)),
    )


# --------------------------------------------------------------------------- fields by hand


def test_binary_truth_is_the_majority_and_ties_have_none():
    truth, has_truth, n_tied = binary_truth(tiny_matrix(), FailDefinition(fail_at_most=2))
    assert has_truth.tolist() == [True, True, False, True, True, True, True, True, False, True]
    assert truth[has_truth].tolist() == [True, True, False, False, False, True, False, False]
    assert n_tied == 1


def test_card_fields_on_a_tiny_matrix_match_the_hand_count():
    import datetime

    card = tiny_card(measured=datetime.date(2026, 1, 31))
    assert card["counts"] == {"caught": 2, "missed": 1, "flagged": 2, "cleared": 3}
    assert (card["n"], card["n_fail"], card["n_pass"], card["n_tied_excluded"]) == (8, 3, 5, 1)
    assert card["label_set"] == ["1", "2", "3", "4", "5"]
    coverage = card["parse_coverage"]
    assert coverage["share"] == pytest.approx(7 / 8)
    assert coverage["unparseable_pass_rows_counted_flagged"] == 1
    assert coverage["unparseable_fail_rows_counted_missed"] == 0
    assert card["tpr"]["estimate"] == pytest.approx(2 / 3)
    assert card["tnr"]["estimate"] == pytest.approx(3 / 5)
    tpr_low, tpr_high = wilson(2, 3)
    tnr_low, tnr_high = wilson(3, 5)
    assert (card["tpr"]["low"], card["tpr"]["high"]) == pytest.approx((tpr_low, tpr_high))
    assert (card["tnr"]["low"], card["tnr"]["high"]) == pytest.approx((tnr_low, tnr_high))
    # p_o = 5/8, p_e = (4*3 + 4*5)/64 = 1/2, kappa = (5/8 - 1/2)/(1/2)
    assert card["kappa"] == pytest.approx(0.25)
    j = card["youden_j"]
    assert j["estimate"] == pytest.approx(2 / 3 + 3 / 5 - 1)
    assert j["low"] == pytest.approx(j["estimate"] - math.hypot(2 / 3 - tpr_low, 3 / 5 - tnr_low))
    assert j["high"] == pytest.approx(
        j["estimate"] + math.hypot(tpr_high - 2 / 3, tnr_high - 3 / 5)
    )
    assert card["usable_for_rate_correction"] is False
    assert "lower end" in card["reason"]
    assert (card["measured"], card["expires"]) == ("2026-01-31", "2026-03-02")
    assert card["human_ceiling"]["measure"] == "Spearman rho"


def test_an_unparseable_answer_on_a_fail_row_is_a_miss():
    truth = np.array([True, True, False])
    counts = count_outcomes(truth, np.array([True, False, False]), np.array([True, False, True]))
    assert counts.table == (1, 1, 0, 1)
    assert counts.unparseable_fail == 1
    assert cohen_kappa(0, 0, 0, 0) is None
    assert all(math.isnan(v) for v in youden_interval(math.nan, (0, 1), 0.5, (0.4, 0.6)))


def test_one_human_gives_a_null_ceiling_with_a_reason():
    card = measure_card(tiny_matrix(humans=1), "j", FailDefinition(fail_at_most=2), names=NAMES)
    assert card["human_ceiling"]["value"] is None
    assert "1 human" in card["human_ceiling"]["reason"]


def test_a_judge_outside_the_matrix_is_named():
    from simcore.realdata.annotation import DataError

    with pytest.raises(DataError, match="tiny: judge: unknown judge.*'nobody'"):
        judge_outcomes(tiny_matrix(), "nobody", FailDefinition(fail_at_most=2), ("1", "2"))


# --------------------------------------------------------------------------- calibrate --card


def run(capsys, *argv):
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_a_card_read_back_calibrates_as_its_four_counts(tmp_path, capsys):
    import datetime

    path = write_card(tiny_card(measured=datetime.date(2026, 1, 1)), tmp_path / "card.json")
    assert read_card(path) == json.loads(path.read_text())
    status, from_table, _ = run(
        capsys, "calibrate", "--table", "2,1,2,3", "--fails", "30", "--of", "100"
    )
    assert status == 0
    status, from_card, _ = run(
        capsys,
        "calibrate",
        "--card",
        str(path),
        "--fails",
        "30",
        "--of",
        "100",
        "--population",
        "tiny/quality",
        "--today",
        "2026-01-15",
    )
    assert status == 0
    header, *report = from_card.splitlines()
    assert header.startswith(f"card: {path}: judge j")
    report = [line for line in report if not line.startswith("card:")]
    assert report[0].startswith("truth: majority: the humans' majority label")  # the card's
    assert report[1:] == from_table.splitlines()
    assert "card: not usable for rate correction" in from_card


def test_expired_and_other_population_cards_are_refused(tmp_path, capsys):
    import datetime

    path = write_card(tiny_card(measured=datetime.date(2026, 1, 1)), tmp_path / "card.json")
    base = ["calibrate", "--card", str(path), "--fails", "30", "--of", "100"]
    status, _, err = run(capsys, *base, "--population", "tiny/quality", "--today", "2026-02-01")
    assert status == 2
    assert f"{path}: expires: the card expired on 2026-01-31" in err
    assert "today is 2026-02-01" in err
    status, _, err = run(capsys, *base, "--population", "elsewhere", "--today", "2026-01-02")
    assert status == 2
    assert f"{path}: population:" in err and "'tiny/quality', not on 'elsewhere'" in err
    status, out, _ = run(
        capsys, *base, "--population", "elsewhere", "--today", "2026-02-01", "--accept-transport"
    )
    assert status == 0
    warnings = [line for line in out.splitlines() if line.startswith("WARNING")]
    assert len(warnings) == 2 and "expired" in warnings[0] and "elsewhere" in warnings[1]
    assert "corrected failure rate" in out or "not corrected" in out
    status, _, err = run(capsys, *base)
    assert status == 2 and "--population" in err


def test_bad_card_json_names_the_file_and_the_key(tmp_path, capsys):
    card = tiny_card()
    del card["judge"]
    card["measured"] = "31/01/2026"
    card["counts"]["caught"] = 5
    path = write_card(card, tmp_path / "bad.json")
    with pytest.raises(CardError) as error:
        read_card(path)
    text = str(error.value)
    assert f"{path}: judge: missing" in text
    assert f"{path}: measured: must be a date YYYY-MM-DD (got '31/01/2026')" in text
    status, _, err = run(
        capsys,
        "calibrate",
        "--card",
        str(path),
        "--fails",
        "1",
        "--of",
        "9",
        "--population",
        "tiny/quality",
    )
    assert status == 2 and f"{path}: judge: missing" in err
    path.write_text("{not json")
    status, _, err = run(
        capsys, "calibrate", "--card", str(path), "--fails", "1", "--of", "9", "--population", "p"
    )
    assert status == 2 and f"{path}: not valid JSON" in err
    good = tiny_card()
    good["counts"]["caught"] = 3  # counts no longer add up to n_fail, tpr no longer matches
    path = write_card(good, tmp_path / "edited.json")
    with pytest.raises(CardError, match=r"edited.json: n_fail: must equal the counts' sum 4"):
        read_card(path)


# --------------------------------------------------------------------------- transport check


def rejection_rate(rng, p_card, n_card, p_new, n_new, trials):
    """Share of seeded checks whose two-proportion test rejects at 0.05, and its SE."""
    hits_card = rng.binomial(n_card, p_card, trials)
    hits_new = rng.binomial(n_new, p_new, trials)
    rejected = [
        two_proportion_test(a, n_card, b, n_new)[0] < 0.05
        for a, b in zip(hits_card, hits_new, strict=True)
    ]
    rate = float(np.mean(rejected))
    return rate, math.sqrt(0.05 * 0.95 / trials) if rate == 0 else math.sqrt(
        rate * (1 - rate) / trials
    )


def test_without_a_shift_each_rate_raises_a_false_alarm_about_5_percent_of_the_time():
    rng = np.random.default_rng(20261201)
    for p, n_card, n_new in ((0.8, 200, 60), (0.6, 300, 100)):
        rate, _ = rejection_rate(rng, p, n_card, p, n_new, 3000)
        assert abs(rate - 0.05) < 4 * math.sqrt(0.05 * 0.95 / 3000)


def test_without_a_shift_the_verdict_moves_about_one_minus_095_squared_of_the_time():
    rng = np.random.default_rng(7)
    trials, moved = 4000, 0
    for _ in range(trials):
        card = (rng.binomial(200, 0.85), 0, rng.binomial(300, 0.1), 0)
        card = (card[0], 200 - card[0], card[2], 300 - card[2])
        fail_hits, pass_flags = rng.binomial(80, 0.85), rng.binomial(120, 0.1)
        new = (fail_hits, 80 - fail_hits, pass_flags, 120 - pass_flags)
        moved += transport_check(card, new).verdict == "moved"
    expected = 1 - 0.95**2
    assert abs(moved / trials - expected) < 4 * math.sqrt(expected * (1 - expected) / trials)


def test_the_power_formula_matches_a_simulation_of_the_test():
    rng = np.random.default_rng(11)
    power = drop_power(0.8, 300, 80)
    rate, se = rejection_rate(rng, 0.8, 300, 0.65, 80, 3000)
    assert abs(rate - power) < 4 * se
    needed = rows_needed(0.8, 300)  # the fewest new rows with power >= 0.8
    assert drop_power(0.8, 300, needed) >= 0.8 > drop_power(0.8, 300, needed - 1)
    assert rows_needed(0.8, 10) is None  # a 10-row card cannot reach 80%


def test_a_planted_tpr_drop_of_02_is_detected():
    rng = np.random.default_rng(5)
    trials, detected = 300, 0
    for _ in range(trials):
        caught, new_caught = rng.binomial(300, 0.85), rng.binomial(150, 0.65)
        cleared, new_cleared = rng.binomial(300, 0.9), rng.binomial(150, 0.9)
        result = transport_check(
            (caught, 300 - caught, 300 - cleared, cleared),
            (new_caught, 150 - new_caught, 150 - new_cleared, new_cleared),
        )
        detected += result.verdict == "moved" and result.checks[0].p_value < 0.05
    assert detected / trials > drop_power(0.85, 300, 150, drop=0.2) - 4 * math.sqrt(0.01 / trials)
    assert detected / trials > 0.95


def test_the_check_states_its_power_and_calls_a_small_sample_underpowered():
    result = transport_check((80, 20, 10, 90), (16, 4, 2, 18))
    assert result.verdict == "underpowered"
    tpr_power = drop_power(0.8, 100, 20)
    needed = rows_needed(0.8, 100)
    assert any(
        f"with 20 new FAIL rows (card: 100) this check detects a TPR drop of 0.15 at alpha 0.05 "
        f"with {100 * tpr_power:.0f}% power; about {needed} new FAIL rows" in line
        for line in result.lines
    )
    small = check_rate("TPR", "FAIL", (8, 10), (1, 4))
    assert small.method == "Fisher exact"


# --------------------------------------------------------------------------- cards on data


@pytest.mark.skipif(not (ALTTEST / "cebab_stars").is_dir(), reason="shared data not present")
def test_make_cards_writes_every_judge_of_cebab_stars_and_a_summary(tmp_path):
    import datetime

    cards = write_card_folder(ALTTEST, tmp_path, datetime.date(2026, 12, 1), ["cebab_stars"])
    spec = next(spec for spec in SHIPPED_CARD_SPECS if spec.dataset == "cebab_stars")
    assert len(cards) == 6 and spec.criteria == ("stars",)
    for name, card in cards:
        assert read_card(tmp_path / name) == card
        assert card["population"] == "cebab_stars/stars" and card["n"] == 705
        assert card["expires"] == "2026-12-31"
    summary = (tmp_path / "README.md").read_text()
    usable = sum(card["usable_for_rate_correction"] for _, card in cards)
    assert f"**6 cards: {usable} usable for rate correction, {6 - usable} flagged.**" in summary
    assert summary.count("| cebab_stars | stars |") == 6
    assert "| cebab_stars/stars | Spearman rho |" in summary


@pytest.mark.skipif(not (ALTTEST / "cebab_stars").is_dir(), reason="shared data not present")
def test_card_cli_measures_and_checks_a_card(tmp_path, capsys):
    path = tmp_path / "gpt4o.json"
    data = str(ALTTEST / "cebab_stars")
    status, out, _ = run(
        capsys,
        "card",
        data,
        "--judge",
        "gpt-4o",
        "--criterion",
        "stars",
        "--population",
        "cebab_stars/stars",
        "--out",
        str(path),
        "--fail-at-most",
        "2",
        "--group-separator",
        "__",
        "--date",
        "2026-12-01",
    )
    assert status == 0 and "TPR 0.9" in out
    card = read_card(path)
    assert card["counts"]["caught"] + card["counts"]["missed"] == 264
    status, out, _ = run(capsys, "card", data, "--check", str(path))
    assert status == 0
    assert "TPR: card" in out and "p = 1.0000" in out
    assert "verdict: the card may be used on this population" in out
    status, _, err = run(
        capsys,
        "card",
        data,
        "--judge",
        "nobody",
        "--criterion",
        "stars",
        "--population",
        "p",
        "--out",
        str(path),
        "--fail-at-most",
        "2",
    )
    assert status == 2 and "nobody" in err
    status, _, err = run(
        capsys,
        "card",
        data,
        "--judge",
        "gpt-4o",
        "--criterion",
        "stars",
        "--population",
        "p",
        "--out",
        str(path),
        "--fail-labels",
        "one",
    )
    assert status == 2 and "fail_labels: not in the label set (1, 2, 3, 4, 5) (got ['one'])" in err
    status, _, err = run(capsys, "card", data, "--check", str(path), "--alpha", "2")
    assert status == 2 and "--alpha: must be in (0, 1) (got 2.0)" in err
    status, _, err = run(capsys, "card", data, "--judge", "gpt-4o")
    assert status == 2 and "--criterion, --population, --out required" in err
