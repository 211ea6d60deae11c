"""``simcore advise`` at realistic sizes: the one-coin fit, the numba label draw, bounded memory,
targets out of reach, groups."""

import csv
import tracemalloc

import numba
import numpy as np
import pytest

from simcore.advisor import channels
from simcore.advisor.advice import advise
from simcore.advisor.models import bootstrap_refits, choose_model
from simcore.advisor.report.files import summary, write_outputs
from simcore.advisor.settings import AuditPlan
from simcore.realdata.matrix import load_csv
from simcore.realdata.shapes import draw_matrix, write_long_csv


def one_coin_matrix(rng, n_items, accuracies, n_labels, density, n_judges):
    """Labels ``(n, R)`` and mask from the symmetric channel; the last ``n_judges`` label all."""
    truth = rng.integers(n_labels, size=n_items)
    n_raters = len(accuracies)
    right = rng.random((n_items, n_raters)) < np.asarray(accuracies)
    other = (truth[:, None] + rng.integers(1, n_labels, size=(n_items, n_raters))) % n_labels
    labels = np.where(right, truth[:, None], other)
    observed = rng.random((n_items, n_raters)) < density
    observed[:, n_raters - n_judges :] = True
    return labels, observed


def test_one_coin_em_recovers_the_accuracies_within_their_bootstrap_se():
    accuracies = np.array([0.85, 0.75, 0.7, 0.8, 0.6, 0.9])
    labels, observed = one_coin_matrix(np.random.default_rng(11), 1500, accuracies, 12, 0.4, 2)
    fit, errors, bootstrap = bootstrap_refits(labels, observed, 12, n_boot=20, model="one-coin")
    assert fit.converged and errors.confusions is None and len(bootstrap.refits) == 20
    assert ((errors.accuracies > 0.002) & (errors.accuracies < 0.03)).all()
    assert (np.abs(fit.accuracies - accuracies) < 4 * errors.accuracies).all(), (
        fit.accuracies,
        errors.accuracies,
    )
    # the prevalence is uniform over the 12 labels
    assert (np.abs(fit.prevalence - 1 / 12) < 4 * errors.prevalence).all()


def test_on_symmetric_data_one_coin_and_dawid_skene_agree():
    accuracies = np.array([0.8, 0.75, 0.85, 0.7])
    labels, observed = one_coin_matrix(np.random.default_rng(5), 3000, accuracies, 3, 0.6, 1)
    coin, coin_errors, _ = bootstrap_refits(labels, observed, 3, n_boot=10, model="one-coin")
    ds, ds_errors, _ = bootstrap_refits(labels, observed, 3, n_boot=10, n_humans=3)
    se = np.hypot(coin_errors.accuracies, ds_errors.accuracies)
    assert (np.abs(coin.accuracies - ds.accuracies) < 4 * se).all()
    # the agreement the two models imply for every pair of raters, too
    gap = channels.pair_agreement(coin.raters, coin.prevalence) - channels.pair_agreement(
        ds.raters, ds.prevalence
    )
    assert np.abs(gap).max() < 0.02


def test_auto_picks_one_coin_above_ten_labels_and_rejects_unknown_models():
    assert choose_model("auto", 10) == "dawid-skene"
    assert choose_model("auto", 11) == "one-coin"
    assert choose_model("dawid-skene", 4400) == "dawid-skene"
    with pytest.raises(ValueError, match="--model: must be one of"):
        choose_model("two-coin", 3)


def test_the_one_coin_closed_forms_match_the_confusion_matrices():
    coin = channels.OneCoin(np.array([0.9, 0.6, 0.75]), 4)
    prevalence = np.array([0.4, 0.3, 0.2, 0.1])
    confusions = np.stack(
        [
            np.full((4, 4), e) + np.eye(4) * (a - e)
            for a, e in zip(coin.accuracies, coin.errors, strict=True)
        ]
    )
    np.testing.assert_allclose(
        channels.pair_agreement(coin, prevalence), channels.pair_agreement(confusions, prevalence)
    )
    for raters in (coin, confusions):
        assert channels.triple_agreement(raters, prevalence, 0, 1, 2) == pytest.approx(
            0.9 * 0.6 * 0.75 + 3 * (0.1 / 3) * (0.4 / 3) * (0.25 / 3)
        )
    assert channels.recipe_variance(coin, prevalence, 2, 1, 0) == pytest.approx(
        channels.recipe_variance(confusions, prevalence, 2, 1, 0)
    )


def test_the_confusion_draw_has_the_model_frequencies_whatever_the_threads():
    prevalence = np.array([0.5, 0.3, 0.2])
    confusions = np.array(
        [[[0.8, 0.15, 0.05], [0.1, 0.7, 0.2], [0.0, 0.3, 0.7]], [[0.6, 0.2, 0.2]] * 3]
    )
    sequence = np.random.SeedSequence(2026)
    labels, codes = channels.draw_labels(confusions, prevalence, 400, 50, sequence)
    assert codes == 3 and labels.dtype == np.int16
    n = 400 * 50
    expected = prevalence @ confusions  # (R, L): P(rater r reports l)
    for rater in range(2):
        counts = np.bincount(labels[..., rater].ravel(), minlength=3)
        se = np.sqrt(expected[rater] * (1 - expected[rater]) / n)
        assert (np.abs(counts / n - expected[rater]) < 4 * se).all()
    joint = np.mean(labels[..., 0] == labels[..., 1])
    p = channels.pair_agreement(confusions, prevalence)[0, 1]
    assert abs(joint - p) < 4 * np.sqrt(p * (1 - p) / n)
    # a trial depends on its key only: batches and threads change nothing
    later, _ = channels.draw_labels(confusions, prevalence, 100, 50, sequence, first_trial=300)
    np.testing.assert_array_equal(later, labels[300:])
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        single, _ = channels.draw_labels(confusions, prevalence, 400, 50, sequence)
    finally:
        numba.set_num_threads(threads)
    np.testing.assert_array_equal(single, labels)


def test_the_compact_one_coin_draw_has_the_channel_equality_pattern():
    coin = channels.OneCoin(np.array([0.5, 0.3, 0.4]), 3)
    labels, codes = channels.draw_labels(coin, None, 500, 60, np.random.SeedSequence(9))
    assert codes == 3 and labels.max() <= 2
    n = 500 * 60
    right = (labels == 0).mean(axis=(0, 1))
    se = np.sqrt(coin.accuracies * (1 - coin.accuracies) / n)
    assert (np.abs(right - coin.accuracies) < 4 * se).all()
    agreement = channels.pair_agreement(coin, None)
    for a, b in ((0, 1), (0, 2), (1, 2)):
        share = np.mean(labels[..., a] == labels[..., b])
        p = agreement[a, b]
        assert abs(share - p) < 4 * np.sqrt(p * (1 - p) / n)
    triple = np.mean((labels[..., 0] == labels[..., 1]) & (labels[..., 1] == labels[..., 2]))
    p = channels.triple_agreement(coin, None, 0, 1, 2)
    assert abs(triple - p) < 4 * np.sqrt(p * (1 - p) / n)
    # 4,400 labels and 51 raters need 52 codes, not 4,400
    many = channels.OneCoin(np.full(51, 0.2), 4400)
    labels, codes = channels.draw_labels(many, None, 3, 10, np.random.SeedSequence(1))
    assert codes == 52 and labels.max() < 52


def csv_matrix(tmp_path, humans, judges, groups=None):
    path = write_long_csv(humans, judges, tmp_path / "matrix.csv", groups=groups)
    return load_csv(path, humans=list(humans), judges=list(judges))


def test_advise_on_five_thousand_labels_never_builds_label_squared_arrays(tmp_path):
    # low accuracies, so that most of the 5,000 labels are seen: L is the observed label set
    humans, judges = draw_matrix(300, 50, 2, 5000, 0.2, human_accuracy=0.3, seed=3)
    matrix = csv_matrix(tmp_path, humans, judges)
    assert matrix.n_labels > 2000
    tracemalloc.start()
    advice = advise(matrix, plan=AuditPlan(trials=20, n_boot=4, grid=(0, 25), seed=1))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    # one (R, L, L) float64 array alone would be 51 * L^2 * 8 bytes (gigabytes)
    assert peak < 300 * 2**20, peak
    n_raters, n_labels = 51, matrix.n_labels
    for model in advice.models.values():
        assert channels.is_one_coin(model.fit.raters) and model.errors.confusions is None
        for refit in model.refits:
            assert refit.posterior is None
            assert refit.accuracies.nbytes + refit.prevalence.nbytes <= 8 * (n_raters + n_labels)
    assert "one-coin EM" in (write_outputs(advice, tmp_path / "out") / "report.md").read_text()


def test_an_unreachable_target_is_said_plainly_and_proposes_nothing(tmp_path):
    # a judge at the bar: its verdict flips with the sparse layer's noise until every item
    # is labelled, so a 1% risk is out of reach short of labelling the whole corpus
    rng = np.random.default_rng(8)
    labels, observed = one_coin_matrix(rng, 200, [0.8, 0.8, 0.8, 0.7167], 2, 0.1, 1)
    observed[:, 0] = True
    humans = {
        f"h{r}": {f"i{i:03d}": f"l{labels[i, r]}" for i in np.flatnonzero(observed[:, r])}
        for r in range(3)
    }
    judges = {"judge": {f"i{i:03d}": f"l{labels[i, 3]}" for i in range(200)}}
    matrix = csv_matrix(tmp_path, humans, judges)
    advice = advise(matrix, plan=AuditPlan(target=0.01, trials=60, n_boot=3, grid=(0, 25, 400)))
    assert not advice.reach.reachable and advice.extra == 0 and not advice.proposal.any()
    printed = summary(advice)
    assert "not reachable by labelling this corpus" in printed
    assert "best achievable risk judge" in printed
    out = write_outputs(advice, tmp_path / "out")
    report = (out / "report.md").read_text()
    assert "not reachable by labelling this corpus" in report
    assert "`next_round.csv` lists no items" in report
    assert "| judge | risk now | interval risk | simulated matrices | bootstrap refits |" in report
    with (out / "next_round.csv").open() as handle:
        assert list(csv.reader(handle)) == [["human", "item", "design"]]


def test_groups_are_audited_one_by_one_or_pooled(tmp_path, capsys):
    from simcore.cli import main

    humans, judges = draw_matrix(160, 3, 1, 3, 0.5, seed=4)
    items = sorted({item for given in judges.values() for item in given})
    groups = {item: ("first" if index % 2 else "second") for index, item in enumerate(items)}
    data = write_long_csv(humans, judges, tmp_path / "grouped.csv", groups=groups)
    argv = ["advise", str(data), "--humans", "h000,h001,h002", "--judges", "judge0"]
    argv += ["--trials", "20", "--target", "0.2", "--quiet"]
    assert main([*argv, "--out", str(tmp_path / "apart")]) == 0
    printed = capsys.readouterr().out
    assert "[first]" in printed and "[second]" in printed
    report = (tmp_path / "apart" / "report.md").read_text()
    assert "## Group `first`" in report and "## Group `second`" in report
    assert report.count("### 1. The verdict") == 2
    assert (tmp_path / "apart" / "report_2.png").stat().st_size > 100
    with (tmp_path / "apart" / "next_round.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert all(groups[row["item"]] == row["group"] for row in rows)
    assert main([*argv, "--pool-groups", "--out", str(tmp_path / "pooled")]) == 0
    assert "[first]" not in capsys.readouterr().out
    pooled = (tmp_path / "pooled" / "report.md").read_text()
    assert "## Group" not in pooled and "## 1. The verdict" in pooled


DRAW_SCRIPT = """
import warnings
import numpy as np
warnings.simplefilter("ignore", RuntimeWarning)  # uint64 wrap-around in NumPy scalars
from simcore.advisor import channels
sequence = np.random.SeedSequence(4)
confusions = np.array([[[0.7, 0.3], [0.2, 0.8]], [[0.5, 0.5], [0.1, 0.9]]])
labels, _ = channels.draw_labels(confusions, np.array([0.4, 0.6]), 3, 7, sequence)
print(labels.ravel().tolist())
coin = channels.OneCoin(np.array([0.6, 0.2, 0.5]), 9)
labels, _ = channels.draw_labels(coin, None, 3, 7, sequence)
print(labels.ravel().tolist())
"""


def test_the_label_draws_are_the_same_compiled_and_in_plain_python():
    import os
    import subprocess
    import sys

    outputs = [
        subprocess.run(
            [sys.executable, "-c", DRAW_SCRIPT],
            env={**os.environ, "NUMBA_DISABLE_JIT": flag},
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        ).stdout
        for flag in ("0", "1")
    ]
    assert outputs[0] == outputs[1] and outputs[0].count("\n") == 2


def test_an_alttest_folder_is_grouped_by_its_item_ids(tmp_path, capsys):
    from simcore.cli import main
    from simcore.realdata.shapes import write_alttest_folder

    humans, judges = draw_matrix(120, 3, 1, 3, 0.6, seed=6)

    def grouped(raters):
        return {
            rater: {f"{item}__{'ab'[int(item[-1]) % 2]}": label for item, label in given.items()}
            for rater, given in raters.items()
        }

    folder = write_alttest_folder(grouped(humans), grouped(judges), tmp_path / "folder")
    argv = ["advise", str(folder), "--humans", "h000,h001,h002", "--trials", "20", "--quiet"]
    assert main([*argv, "--group-separator", "__", "--out", str(tmp_path / "out")]) == 0
    report = (tmp_path / "out" / "report.md").read_text()
    assert "## Group `a`" in report and "## Group `b`" in report
    csv_data = write_long_csv(humans, judges, tmp_path / "m.csv")
    bad = ["advise", str(csv_data), "--humans", "h000,h001,h002", "--judges", "judge0"]
    assert main([*bad, "--group-separator", "__", "--out", str(tmp_path / "x")]) == 2
    assert "--group-separator: only for an alttest folder" in capsys.readouterr().err


def dense_one_coin(codes, observed, n_labels, iterations, smoothing=0.01):
    """One-coin EM written densely over ``(n, L)``, the reference for the sparse steps."""
    n_items, n_raters = codes.shape
    votes = np.zeros((n_items, n_labels))
    for i, r in zip(*np.nonzero(observed), strict=True):
        votes[i, codes[i, r]] += 1
    posterior = votes == votes.max(axis=1, keepdims=True)
    posterior = posterior / posterior.sum(axis=1, keepdims=True)
    for _ in range(iterations):
        prevalence = (posterior.sum(axis=0) + smoothing) / (n_items + n_labels * smoothing)
        right = np.array(
            [posterior[observed[:, r], codes[observed[:, r], r]].sum() for r in range(n_raters)]
        )
        accuracies = np.clip(
            (right + smoothing) / (observed.sum(axis=0) + 2 * smoothing), 1e-12, 1 - 1e-12
        )
        log_joint = np.tile(np.log(prevalence), (n_items, 1))
        for i, r in zip(*np.nonzero(observed), strict=True):
            wrong = np.log((1 - accuracies[r]) / (n_labels - 1))
            log_joint[i] += wrong
            log_joint[i, codes[i, r]] += np.log(accuracies[r]) - wrong
        peak = log_joint.max(axis=1, keepdims=True)
        total = np.exp(log_joint - peak).sum(axis=1, keepdims=True)
        posterior = np.exp(log_joint - peak) / total
        log_likelihood = float((peak + np.log(total)).sum())
    return prevalence, accuracies, posterior, log_likelihood


@pytest.mark.parametrize("n_labels", [2, 7, 300])
def test_sparse_one_coin_steps_equal_the_dense_em(n_labels):
    from simcore.advisor.one_coin import fit_one_coin

    rng = np.random.default_rng(n_labels)
    truth = rng.integers(n_labels, size=60)
    observed = rng.random((60, 6)) < 0.6
    observed[:, 0] = True
    wrong = rng.random((60, 6)) > 0.7
    codes = np.where(
        wrong, (truth[:, None] + rng.integers(1, n_labels, (60, 6))) % n_labels, truth[:, None]
    )
    fit = fit_one_coin(codes, observed, n_labels, max_iterations=25, tolerance=0.0)
    prevalence, accuracies, posterior, log_likelihood = dense_one_coin(
        codes, observed, n_labels, fit.iterations
    )
    np.testing.assert_allclose(fit.prevalence, prevalence, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(fit.accuracies, accuracies, rtol=1e-10)
    np.testing.assert_allclose(fit.posterior, posterior, rtol=1e-9, atol=1e-13)
    assert fit.log_likelihood == pytest.approx(log_likelihood, rel=1e-12)
