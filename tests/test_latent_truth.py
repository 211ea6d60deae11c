"""The judge's error against the latent truth, the corrected distribution, and their commands."""

import json

import numpy as np
import pytest

import simcore
from simcore.calibration.latent import (
    LatentSettings,
    PanelCodes,
    PanelModel,
    binary_error,
    corrected_distribution,
    corrected_scale,
    draw_panel,
    draw_production,
    fit_latent_panel,
    judge_confusion,
    latent_model,
    latent_scale_error,
    majority_scale_error,
    separation,
)
from simcore.calibration.latent.judge_error import audit_rates
from simcore.calibration.statistics import corrected_failure_rate, rogan_gladen
from simcore.cli import main

FAST = LatentSettings(boot=200, seed=11)


def majority_rates(human_codes, judge_codes):
    """TPR, TNR (FAIL = 0) of the judge against the humans' majority, ties left out."""
    fails = (human_codes == 0).sum(axis=1)
    passes = (human_codes == 1).sum(axis=1)
    fail_rows, pass_rows = fails > passes, passes > fails
    return (judge_codes[fail_rows] == 0).mean(), (judge_codes[pass_rows] == 1).mean()


# ----------------------------------------------------------------- the inversion


def test_a_3x3_inversion_equals_the_hand_computed_distribution():
    # C^T pi = q with pi = (0.2, 0.5, 0.3):
    # q_1 = .8(.2) + .2(.5) + 0(.3) = .26; q_2 = .1(.2) + .7(.5) + .2(.3) = .43;
    # q_3 = .1(.2) + .1(.5) + .8(.3) = .31
    confusion = np.array([[0.8, 0.1, 0.1], [0.2, 0.7, 0.1], [0.0, 0.2, 0.8]])
    corrected = corrected_distribution(confusion, [26, 43, 31])
    np.testing.assert_allclose(corrected, [0.2, 0.5, 0.3], atol=1e-12)


def test_an_infeasible_answer_distribution_is_corrected_onto_the_simplex():
    confusion = np.array([[0.8, 0.1, 0.1], [0.2, 0.7, 0.1], [0.0, 0.2, 0.8]])
    shares = np.array([0.9, 0.05, 0.05])  # C^-T q has negative shares
    corrected = corrected_distribution(confusion, shares * 100)
    assert corrected.min() >= 0 and corrected.sum() == pytest.approx(1.0)
    # the least squares on the simplex, checked against a fine grid of the simplex
    grid = np.linspace(0, 1, 201)
    first, second = np.meshgrid(grid, grid, indexing="ij")
    keep = first + second <= 1
    points = np.stack([first[keep], second[keep], 1 - first[keep] - second[keep]], axis=1)
    errors = ((points @ confusion - shares) ** 2).sum(axis=1)
    best = float(((corrected @ confusion - shares) ** 2).sum())
    assert best <= errors.min() + 1e-12


def test_a_singular_confusion_matrix_in_a_batch_is_corrected_not_raised():
    from simcore.calibration.latent import corrected_distributions

    singular = np.array([[0.5, 0.5, 0.0], [0.5, 0.5, 0.0], [0.0, 0.0, 1.0]])
    regular = np.eye(3)
    result = corrected_distributions(np.stack([singular, regular]), np.array([[3, 3, 4]] * 2))
    np.testing.assert_allclose(result.sum(axis=1), 1.0)
    np.testing.assert_allclose(result[1], [0.3, 0.3, 0.4])


@pytest.mark.parametrize(("se", "sp", "q"), [(0.9, 0.8, 0.35), (0.7, 0.95, 0.1), (0.9, 0.8, 0.1)])
def test_two_labels_give_the_rogan_gladen_rate(se, sp, q):
    confusion = np.array([[se, 1 - se], [1 - sp, sp]])  # class 0 = FAIL
    corrected = corrected_distribution(confusion, [q, 1 - q])
    expected = float(np.clip(rogan_gladen(q, se, sp), 0, 1))
    assert corrected[0] == pytest.approx(expected, abs=1e-12)
    assert separation(confusion) == pytest.approx(se + sp - 1, abs=1e-12)


def test_a_near_singular_confusion_matrix_is_refused():
    classes = ("a", "b", "c")
    blurred = np.array([[0.5, 0.49, 0.01], [0.49, 0.5, 0.01], [0.01, 0.01, 0.98]])
    assert separation(blurred) < 0.02
    error = majority_scale_error(
        PanelCodes(np.zeros((3, 2), dtype=int), np.zeros(3, dtype=int), 3, 3), classes, FAST
    )._replace(confusion=blurred, replicates=np.repeat(blurred[None], 5, axis=0))
    result = corrected_scale(error, [40, 30, 30], FAST, 0.15)
    assert result.corrected is None
    assert "too close to singular" in result.refusal and "0.15" in result.refusal


# ----------------------------------------------------------------- the fit


def test_with_perfect_humans_the_latent_rates_equal_the_majoritys():
    rng = np.random.default_rng(3)
    truth = rng.integers(0, 2, 600)
    humans = np.repeat(truth[:, None], 3, axis=1)
    judge = np.where(rng.random(600) < 0.85, truth, 1 - truth)
    error = binary_error(PanelCodes(humans, judge, 2, 2), FAST, "perfect")
    tpr, tnr = majority_rates(humans, judge)
    assert error.tpr.estimate == pytest.approx(tpr, abs=1e-4)
    assert error.tnr.estimate == pytest.approx(tnr, abs=1e-4)
    assert error.fit.converged


def test_the_latent_rates_are_unbiased_where_the_majoritys_are_not():
    model = PanelModel((0.3, 0.7), (0.75, 0.75, 0.75), 0.85, 0.0)
    rng = np.random.default_rng(20270)
    latent, gold = [], []
    for _ in range(25):
        _, humans, judge = draw_panel(model, 600, rng)
        error = binary_error(PanelCodes(humans, judge, 2, 2), FAST, "synthetic")
        latent.append((error.tpr.estimate, error.tnr.estimate))
        gold.append(majority_rates(humans, judge))
    latent, gold = np.array(latent), np.array(gold)
    for column in (0, 1):
        latent_se = latent[:, column].std(ddof=1) / np.sqrt(len(latent))
        gold_se = gold[:, column].std(ddof=1) / np.sqrt(len(gold))
        assert abs(latent[:, column].mean() - 0.85) < 4 * latent_se
        assert abs(gold[:, column].mean() - 0.85) > 4 * gold_se


def test_the_latent_corrected_rate_covers_at_its_level():
    model = PanelModel((0.3, 0.7), (0.8, 0.8, 0.8), 0.85, 0.0)
    rng = np.random.default_rng(2026)
    trials, covered = 80, 0
    for _ in range(trials):
        _, humans, judge = draw_panel(model, 200, rng)
        truth, answers = draw_production(model, 2000, rng)
        error = binary_error(PanelCodes(humans, judge, 2, 2), FAST, "synthetic")
        rate = corrected_failure_rate(int((answers == 0).sum()), 2000, *error.counts)
        covered += bool(rate.lr_low <= (truth == 0).mean() <= rate.lr_high)
    coverage, se = covered / trials, np.sqrt(0.95 * 0.05 / trials)
    assert abs(coverage - 0.95) <= 3 * se, coverage


def test_a_five_label_scale_is_fitted_and_corrected():
    model = PanelModel((0.1, 0.15, 0.25, 0.3, 0.2), (0.8, 0.8, 0.8), 0.85, 0.0)
    rng = np.random.default_rng(5)
    _, humans, judge = draw_panel(model, 1500, rng)
    truth, answers = draw_production(model, 3000, rng)
    codes = PanelCodes(humans, judge, 5, 5)
    error = latent_scale_error(codes, tuple("12345"), FAST, "synthetic")
    spread = np.nanstd(error.replicates, axis=0, ddof=1)
    assert np.all(np.abs(error.confusion - judge_confusion(5, 0.85)) < 4 * spread + 1e-3)
    corrected = corrected_scale(error, np.bincount(answers, minlength=5), FAST, 0.15)
    shares = np.bincount(truth, minlength=5) / len(truth)
    assert all(
        share.low - 0.01 <= shares[k] <= share.high + 0.01
        for k, share in enumerate(corrected.corrected)
    )


def test_the_model_choice_says_why():
    codes = np.zeros((50, 3), dtype=int)
    assert latent_model(codes, 2)[0] == "dawid-skene"  # 50 >= 20 per label x 2 labels
    model, reason = latent_model(codes, 5)
    assert model == "one-coin" and "only 50 items" in reason
    assert latent_model(codes, 5, "dawid-skene") == ("dawid-skene", "asked for (model dawid-skene)")
    with pytest.raises(ValueError, match="model: must be one of"):
        latent_model(codes, 2, "three-coin")


def test_a_bootstrap_refit_does_not_depend_on_what_is_fitted_beside_it():
    model = PanelModel((0.3, 0.7), (0.8, 0.8), 0.85, 0.0)
    _, humans, judge = draw_panel(model, 300, np.random.default_rng(1))
    codes = PanelCodes(humans, judge, 2, 2)
    point = fit_latent_panel(codes, "dawid-skene")
    counts = np.unique(np.column_stack([humans, judge]), axis=0, return_counts=True)[1]
    rng = np.random.default_rng(2)
    weights = rng.multinomial(300, counts / 300, size=6).astype(float)
    together = fit_latent_panel(codes, "dawid-skene", weights, start=point)
    alone = fit_latent_panel(codes, "dawid-skene", weights[3:4], start=point)
    np.testing.assert_array_equal(together.judge[3], alone.judge[0])


def test_the_audit_rates_are_what_one_human_measures():
    model = PanelModel((0.3, 0.7), (0.8, 0.8, 0.8), 0.85, 0.0)
    _, humans, judge = draw_panel(model, 20000, np.random.default_rng(8))
    point = fit_latent_panel(PanelCodes(humans, judge, 2, 2), "dawid-skene")
    tpr, tnr = audit_rates(point.prevalence, point.human, point.judge)
    said_fail = humans[:, 0] == 0
    assert tpr[0] == pytest.approx((judge[said_fail] == 0).mean(), abs=0.02)
    assert tnr[0] == pytest.approx((judge[~said_fail] == 1).mean(), abs=0.02)


# ----------------------------------------------------------------- the commands


def write_panel(path, n=300, seed=4, humans=3):
    """Write a long CSV of ``humans`` humans and judge ``j`` labelling fail/pass."""
    model = PanelModel((0.3, 0.7), (0.8,) * humans, 0.85, 0.0)
    _, human_codes, judge = draw_panel(model, n, np.random.default_rng(seed))
    names = ("fail", "pass")
    lines = ["item,rater,label"]
    for item in range(n):
        for h in range(humans):
            lines.append(f"i{item},h{h},{names[human_codes[item, h]]}")
        lines.append(f"i{item},j,{names[judge[item]]}")
    path.write_text("\n".join(lines) + "\n")
    return path


def test_calibrate_reports_the_latent_truth_beside_the_majority(tmp_path, capsys):
    data = write_panel(tmp_path / "panel.csv")
    argv = ["calibrate", "--data", str(data), "--judges", "j", "--judge", "j"]
    argv += ["--fail-labels", "fail", "--fails", "300", "--of", "1000", "--boot", "200"]
    assert main([*argv, "--truth", "latent", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["truth"]["kind"] == "latent"
    assert document["truth"]["fit"]["model"] == "dawid-skene"
    assert document["majority"]["tpr"]["estimate"] < document["tpr"]["estimate"]
    effective = document["truth"]["effective_counts"]
    rate = corrected_failure_rate(
        300, 1000, *(effective[k] for k in ("caught", "missed", "flagged", "cleared"))
    )
    assert document["interval"]["low"] == pytest.approx(float(rate.lr_low))
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert text.startswith("truth: majority: the humans' majority label of each item")


def test_calibrate_refuses_a_latent_truth_it_cannot_form(tmp_path, capsys):
    data = write_panel(tmp_path / "panel.csv", humans=2)
    lines = data.read_text().splitlines()
    kept = [
        line for line in lines if not line.startswith(tuple(f"i{k},h{k % 2}," for k in range(300)))
    ]
    data.write_text("\n".join(kept) + "\n")  # each item keeps one of its two humans
    base = ["calibrate", "--fails", "30", "--of", "100", "--truth", "latent"]
    assert main([*base, "--table", "5,1,2,9"]) == 2
    assert (
        "--truth latent: needs the humans' labels of each item, --data" in capsys.readouterr().err
    )
    argv = [*base, "--data", str(data), "--judges", "j", "--judge", "j", "--fail-labels", "fail"]
    assert main(argv) == 2
    assert "needs items labelled by at least two humans" in capsys.readouterr().err
    with pytest.raises(ValueError, match="other methods need a per-item truth"):
        simcore.calibrate(table=(5, 1, 2, 9), fails=3, of=10, truth="latent", method="ppi")


def test_calibrate_corrects_the_label_scale(tmp_path):
    model = PanelModel((0.2, 0.5, 0.3), (0.85, 0.85, 0.85), 0.8, 0.0)
    _, humans, judge = draw_panel(model, 400, np.random.default_rng(9))
    _, production = draw_production(model, 1000, np.random.default_rng(10))
    lines = ["item,rater,label"]
    for item in range(400):
        lines += [f"i{item},h{h},{'abc'[humans[item, h]]}" for h in range(3)]
        lines.append(f"i{item},j,{'abc'[judge[item]]}")
    (tmp_path / "panel.csv").write_text("\n".join(lines) + "\n")
    prod = ["item,rater,label"] + [f"p{k},j,{'abc'[a]}" for k, a in enumerate(production)]
    (tmp_path / "production.csv").write_text("\n".join(prod) + "\n")
    kwargs = {"judges": "j", "judge": "j", "production": tmp_path / "production.csv", "boot": 200}
    for truth in ("majority", "latent"):
        result = simcore.calibrate(tmp_path / "panel.csv", all_labels=True, truth=truth, **kwargs)
        assert result["truth"]["kind"] == truth and result["corrected"]
        rows = result.to_dict()["distribution"]
        assert [row["label"] for row in rows] == ["a", "b", "c"]
        assert sum(row["estimate"] for row in rows) == pytest.approx(1.0)
        assert "corrected distribution of true labels" in result.to_markdown()
    assert "majority_estimate" in rows[0]


def test_a_latent_card_round_trips_and_its_check_refits_the_sample(tmp_path, capsys):
    data = write_panel(tmp_path / "panel.csv")
    card_path = tmp_path / "card.json"
    argv = ["card", str(data), "--judges", "j", "--judge", "j", "--criterion", "all"]
    argv += ["--population", "pilot", "--fail-labels", "fail", "--boot", "200"]
    assert main([*argv, "--truth", "latent", "--out", str(card_path)]) == 0
    text = capsys.readouterr().out
    assert "truth: latent" in text and "majority gold (for comparison)" in text
    from simcore.instrument.card.file import read_card

    card = read_card(card_path)
    assert card["truth"]["kind"] == "latent" and card["truth"]["settings"]["boot"] == 200
    assert card["majority"]["tpr"]["estimate"] < card["tpr"]["estimate"]
    assert main(["card", "--check", str(card_path), str(data), "--judges", "j", "--json"]) == 0
    check = json.loads(capsys.readouterr().out)
    assert check["truth"]["kind"] == "latent"
    assert [row["p_value"] for row in check["rates"]] == [1.0, 1.0]  # the same sample, refitted
    card["truth"]["settings"]["boot"] = "many"
    card_path.write_text(json.dumps(card))
    assert main(["card", "--check", str(card_path), str(data), "--judges", "j"]) == 2
    assert "truth.settings.boot" in capsys.readouterr().err


def latent_card(data):
    """Return the latent card of judge ``j`` on a :func:`write_panel` file."""
    options = {"judges": "j", "judge": "j", "criterion": "all", "population": "pilot"}
    return simcore.card(data, fail_labels="fail", truth="latent", boot=200, **options)["card"]


def test_calibrate_reads_a_latent_cards_truth(tmp_path, capsys):
    data = write_panel(tmp_path / "panel.csv")
    card = latent_card(data)
    result = simcore.calibrate(card=card, fails=300, of=1000)
    assert result["truth"]["kind"] == "latent"
    with pytest.raises(ValueError, match="a card carries its own truth"):
        simcore.calibrate(card=card, fails=300, of=1000, truth="majority")


def test_the_monitor_watches_a_latent_cards_single_human_rates(tmp_path):
    data = write_panel(tmp_path / "panel.csv")
    card = latent_card(data)
    days = [f"2026-01-0{1 + k // 10}" for k in range(40)]
    production = ["item,date,judge"] + [
        f"p{k},{day},{'fail' if k % 3 == 0 else 'pass'}" for k, day in enumerate(days)
    ]
    audit = ["item,date,human"] + [
        f"p{k},{days[k]},{'fail' if k % 6 == 0 else 'pass'}" for k in range(0, 40, 2)
    ]
    (tmp_path / "production.csv").write_text("\n".join(production) + "\n")
    (tmp_path / "audit.csv").write_text("\n".join(audit) + "\n")
    result = simcore.monitor(tmp_path / "production.csv", tmp_path / "audit.csv", card=card)
    assert result["alarm"]["truth"]["kind"] == "latent"
    audit_rates_of_card = card["truth"]["audit"]
    assert audit_rates_of_card["tpr"]["estimate"] < card["tpr"]["estimate"]
    assert "the alarm watches the rates its fit predicts against one human's label" in (
        result.to_markdown()
    )
