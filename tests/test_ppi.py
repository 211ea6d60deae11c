"""PPI of the production FAIL share: ppi-python agreement, hand computations, refusals, CLI."""

import math

import numpy as np
import ppi_py
import pytest
from ppi_py.ppi import _calc_lam_glm

from simcore.calibration.methods import METHODS
from simcore.calibration.statistics import (
    CorrectedRate,
    MethodRate,
    corrected_failure_rate,
    corrected_rates,
    ppi_mean,
    ppi_plus_plus,
    stratified_ppi,
    wilson_interval,
)
from simcore.cli import main
from simcore.cli.calibrate_command import CALIBRATE_METHODS

Z95 = 1.959963984540054

# (x, N, caught, missed, flagged, cleared): small and large n and N, lambda clipped at 1
# (34,6,8,72) and at 0 (an uncorrelated and an anti-correlated judge), n = 2.
FIXTURES = [
    (3, 10, 2, 1, 0, 2),
    (0, 5, 1, 1, 1, 1),
    (7, 7, 3, 0, 1, 2),
    (1, 3, 1, 0, 0, 1),
    (2, 4, 1, 1, 1, 0),
    (3, 10, 0, 2, 2, 0),
    (130, 1000, 34, 6, 8, 72),
    (5000, 20000, 300, 50, 40, 600),
    (12345, 100000, 500, 120, 90, 1290),
    (40, 60, 900, 40, 300, 2000),
]


def expand(x, n_production, caught, missed, flagged, cleared):
    """Return ppi-python's ``(Y, Yhat, Yhat_unlabeled)`` 0/1 arrays for the counts."""
    human = np.repeat([1.0, 1.0, 0.0, 0.0], [caught, missed, flagged, cleared])
    judge = np.repeat([1.0, 0.0, 1.0, 0.0], [caught, missed, flagged, cleared])
    production = np.repeat([1.0, 0.0], [x, n_production - x])
    return human, judge, production


def reference(counts, lam, confidence=0.95):
    """Return ppi-python's ``(estimate, low, high)`` as floats (its arrays have shape (1,))."""
    arrays = expand(*counts)
    estimate = ppi_py.ppi_mean_pointestimate(*arrays, lam=lam)
    low, high = ppi_py.ppi_mean_ci(*arrays, alpha=1.0 - confidence, lam=lam)
    return tuple(float(np.ravel(value)[0]) for value in (estimate, low, high))


def reference_lambda(counts):
    """Return ``_calc_lam_glm`` as ``ppi_mean_ci(lam=None)`` calls it (NaN if undefined)."""
    human, judge, production = expand(*counts)
    point = ppi_py.ppi_mean_pointestimate(human, judge, production, lam=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        lam = _calc_lam_glm(
            (human - point).reshape(-1, 1),
            (judge - point).reshape(-1, 1),
            (production - point).reshape(-1, 1),
            np.eye(1),
            clip=True,
        )
    return float(lam)


@pytest.mark.parametrize("counts", FIXTURES)
def test_classical_ppi_agrees_with_ppi_python(counts):
    for confidence in (0.95, 0.8):
        ours = ppi_mean(*counts, confidence=confidence)
        np.testing.assert_allclose(ours, reference(counts, 1, confidence), rtol=0, atol=1e-10)


@pytest.mark.parametrize("counts", FIXTURES)
def test_ppi_plus_plus_agrees_with_ppi_python_power_tuned(counts):
    *ours, lam = ppi_plus_plus(*counts)
    np.testing.assert_allclose(ours, reference(counts, None), rtol=0, atol=1e-10)
    assert lam == pytest.approx(reference_lambda(counts), abs=1e-10)
    assert 0.0 <= lam <= 1.0


def test_lambda_is_clipped_at_both_ends():
    assert ppi_plus_plus(130, 1000, 34, 6, 8, 72)[3] == 1.0  # raw cov / var about 1.4
    assert ppi_plus_plus(3, 10, 0, 2, 2, 0)[3] == 0.0  # anti-correlated judge, cov < 0
    assert 0.0 < ppi_plus_plus(3, 10, 2, 1, 0, 2)[3] < 1.0


def test_lambda_is_zero_where_every_prediction_is_equal():
    # ppi-python's lambda is 0/0 = NaN here; simcore uses 0: the mean of the human labels.
    counts = (0, 10, 0, 3, 0, 5)
    assert math.isnan(reference_lambda(counts))
    estimate, low, high, lam = ppi_plus_plus(*counts)
    assert lam == 0.0
    np.testing.assert_allclose((estimate, low, high), reference(counts, 0), atol=1e-10)
    half = Z95 * math.sqrt((3 / 8) * (5 / 8) / 8)
    np.testing.assert_allclose((estimate, low, high), (3 / 8, 3 / 8 - half, 3 / 8 + half))


def test_arrays_agree_elementwise_with_ppi_python():
    rng = np.random.default_rng(19)
    n_production = rng.integers(2, 400, size=12)
    x = rng.integers(0, n_production + 1)
    table = rng.integers(0, 30, size=(4, 12))
    table[:, 0] = (2, 0, 0, 1)  # a judge that agrees with every calibration row
    estimate, low, high, lam = ppi_plus_plus(x, n_production, *table)
    classical = ppi_mean(x, n_production, *table)
    for index in range(12):
        counts = (x[index], n_production[index], *table[:, index])
        np.testing.assert_allclose(
            [arr[index] for arr in classical], reference(counts, 1), atol=1e-10
        )
        if not math.isnan(reference_lambda(counts)):
            np.testing.assert_allclose(
                (estimate[index], low[index], high[index]), reference(counts, None), atol=1e-10
            )


def test_stratified_ppi_by_hand():
    # FAIL stratum: 6 caught + 4 flagged = 10 rows, p1 = 0.6; PASS stratum: 2 missed
    # + 18 cleared = 20 rows, p0 = 0.1; production 30 of 100 judge-FAIL, q = 0.3.
    # theta = 0.3 * 0.6 + 0.7 * 0.1 = 0.25
    # se^2 = 0.3^2 * 0.6 * 0.4 / 10 + 0.7^2 * 0.1 * 0.9 / 20 + (0.6 - 0.1)^2 * 0.3 * 0.7 / 100
    #      = 0.00216 + 0.002205 + 0.000525 = 0.00489
    estimate, low, high = stratified_ppi(30, 100, 6, 2, 4, 18)
    half = Z95 * math.sqrt(0.00489)  # 0.137057...
    assert estimate == pytest.approx(0.25, abs=1e-12)
    assert (low, high) == pytest.approx((0.25 - half, 0.25 + half), abs=1e-12)
    assert half == pytest.approx(0.13705, abs=1e-5)


def test_stratified_ppi_ignores_a_stratum_absent_from_production():
    # x = 0: w1 = 0, and the FAIL stratum (no rows) contributes nothing; p0 = 3 / 30 = 0.1,
    # se^2 = 0.1 * 0.9 / 30 = 0.003 (q (1 - q) = 0 removes the shares' variance).
    estimate, low, high = stratified_ppi(0, 50, 0, 3, 0, 27)
    half = Z95 * math.sqrt(0.003)
    assert (estimate, low, high) == pytest.approx((0.1, 0.1 - half, 0.1 + half), abs=1e-12)


def test_a_judge_right_on_every_calibration_row_gives_the_production_interval_only():
    # var_r = 0: the PPI interval is the Wald interval of q alone (narrow at small n).
    estimate, low, high = ppi_mean(20, 100, 3, 0, 0, 5)
    half = Z95 * math.sqrt(0.2 * 0.8 / 100)
    assert (estimate, low, high) == pytest.approx((0.2, 0.2 - half, 0.2 + half), abs=1e-12)


def test_raw_functions_do_not_clip_and_the_reported_rate_does():
    raw = ppi_mean(0, 5, 1, 1, 1, 1)
    assert raw[1] < 0.0
    rate = corrected_failure_rate(0, 5, 1, 1, 1, 1, method="ppi")
    assert isinstance(rate, MethodRate)
    assert (rate.estimate, rate.low, rate.high) == (raw[0], 0.0, raw[2])
    assert bool(rate.corrected) and rate.refusal == "" and rate.lam == 1.0


def test_the_default_call_is_unchanged_and_lr_naive_match_it():
    result = corrected_failure_rate(130, 1000, 34, 6, 8, 72)
    assert isinstance(result, CorrectedRate)
    lr, naive = corrected_rates(130, 1000, 34, 6, 8, 72, methods=("lr", "naive"))
    assert (lr.estimate, lr.low, lr.high) == (result.estimate, result.lr_low, result.lr_high)
    assert (naive.low, naive.high) == (result.naive_low, result.naive_high)
    assert [rate.method for rate in corrected_rates(130, 1000, 34, 6, 8, 72)] == list(METHODS)


def test_an_unknown_method_is_an_error_naming_the_choices():
    choices = r"one of lr, naive, ppi, ppi\+\+, strat-ppi, strat-wilson .*'bogus'"
    with pytest.raises(ValueError, match=choices):
        corrected_failure_rate(130, 1000, 34, 6, 8, 72, method="bogus")


REFUSALS = [
    ((3, 10, 0, 0, 0, 0), ("ppi", "ppi++", "strat-ppi"), "no calibration rows: the judge's "
     "errors cannot be measured; the observed rate is reported uncorrected"),
    ((0, 0, 3, 1, 1, 3), ("ppi", "ppi++", "strat-ppi"), "no production rows: the observed "
     "rate is undefined"),
    ((3, 10, 1, 0, 0, 0), ("ppi",), "1 calibration row: ppi needs at least 2 to estimate the "
     "variance of the human-minus-judge rectifier; the observed rate is reported uncorrected"),
    ((3, 10, 0, 0, 0, 1), ("ppi++",), "1 calibration row: ppi++ needs at least 2"),
    ((30, 100, 0, 2, 0, 18), ("strat-ppi",), "no calibration rows the judge failed, yet it "
     "failed 30 production rows: the human FAIL share among judge-FAIL rows (PPV) cannot be "
     "estimated; the observed rate is reported uncorrected"),
    ((30, 100, 6, 0, 4, 0), ("strat-ppi",), "no calibration rows the judge passed, yet it "
     "passed 70 production rows: the human FAIL share among judge-PASS rows (1 - NPV)"),
]  # fmt: skip


@pytest.mark.parametrize(("counts", "methods", "text"), REFUSALS)
def test_refusals_report_the_observed_rate_and_say_why(counts, methods, text):
    x, n_production = counts[:2]
    low, high = wilson_interval(x, n_production)
    for rate in corrected_rates(*counts, methods=methods):
        assert not bool(rate.corrected)
        assert rate.refusal.startswith(text)
        assert (rate.low, rate.high) == (low, high)
        assert math.isnan(rate.lam)
        if n_production:
            assert rate.estimate == x / n_production


def test_refusals_are_per_element_for_arrays():
    rate = corrected_failure_rate([30, 30], [100, 100], [6, 0], 2, [4, 0], 18, method="strat-ppi")
    assert rate.corrected.tolist() == [True, False]
    assert rate.refusal[0] == "" and rate.refusal[1].startswith("no calibration rows the judge")
    assert rate.estimate[0] == pytest.approx(0.25) and rate.estimate[1] == 0.3


def test_stratified_ppi_with_one_row_in_the_only_present_stratum_is_not_refused():
    rate = corrected_failure_rate(5, 5, 1, 0, 0, 0, method="strat-ppi")
    assert bool(rate.corrected) and (rate.estimate, rate.low, rate.high) == (1.0, 1.0, 1.0)


# --------------------------------------------------------------------------- command line

DEFAULT_REPORT = """\
calibration set: 120 rows (40 human FAIL, 80 human PASS); positive class FAIL
TPR (FAIL caught):  0.850 [0.709, 0.929]  34/40, Wilson 95%
TNR (PASS cleared): 0.900 [0.815, 0.948]  72/80, Wilson 95%
Youden J = TPR + TNR - 1: 0.750 (floor 0.15)
production: judge FAIL on 130 of 1000, observed rate 0.1300 [0.111, 0.152]
corrected failure rate (Rogan-Gladen): 0.0400
  95% interval (Lang-Reiczigel): [0.000, 0.117]
  95% naive interval (TPR, TNR taken as exact; too narrow, for comparison only): [0.014, 0.070]
  91% of the interval's variance comes from the calibration set, 9% from the production \
count; label more calibration rows to narrow it
"""  # the output of main (f972da2) before --method existed


def run(capsys, *argv):
    status = main(["calibrate", "--table", "34,6,8,72", "--fails", "130", "--of", "1000", *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_the_default_report_is_unchanged(capsys):
    assert run(capsys) == (0, DEFAULT_REPORT, "")
    assert run(capsys, "--method", "lr") == (0, DEFAULT_REPORT, "")


def test_method_all_prints_every_method_side_by_side(capsys):
    status, out, _ = run(capsys, "--method", "all")
    assert status == 0
    assert out.startswith("\n".join(DEFAULT_REPORT.splitlines()[:5]))
    for rate in corrected_rates(130, 1000, 34, 6, 8, 72):
        row = f"{rate.method:<12} {float(rate.estimate):8.4f}  [{rate.low:.3f}, {rate.high:.3f}]"
        assert row in out
        assert f"\n  {rate.method:<12} " in out  # its assumptions
    assert "ppi++          0.1133  [0.049, 0.178]  lambda = 1.000" in out
    assert "strat-ppi      0.1722  [0.116, 0.228]" in out


def test_one_method_prints_only_its_row_and_a_refusal_its_reason(capsys):
    status, out, _ = run(capsys, "--method", "ppi")
    assert status == 0 and "ppi            0.1133" in out and "\nlr " not in out
    main(["calibrate", "--table", "0,2,0,18", "--fails", "30", "--of", "100", "--method", "all"])
    out = capsys.readouterr().out
    low, high = wilson_interval(30, 100)
    refused = f"strat-ppi      0.3000  [{low:.3f}, {high:.3f}]  refused: observed rate, Wilson"
    assert refused in out
    assert "strat-ppi not corrected: no calibration rows the judge failed" in out


def test_a_bad_method_exits_2_naming_the_choices(capsys):
    status, _, err = run(capsys, "--method", "bogus")
    assert status == 2
    choices = "lr, naive, ppi, ppi++, strat-ppi, strat-wilson, all"
    assert f"--method: must be one of {choices} (got 'bogus')" in err


def test_the_parser_offers_the_methods_and_all():
    assert CALIBRATE_METHODS == (*METHODS, "all")
