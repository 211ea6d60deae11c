"""Anytime-valid drift alarm for a judge's TPR and TNR against its calibration card.

The card is an earlier calibration table: ``caught`` of ``n_fail`` human-FAIL rows flagged
by the judge (TPR) and ``cleared`` of ``n_pass`` human-PASS rows passed by it (TNR).
Audits of production arrive in looks; per look we have the cumulative counts of audited
human-FAIL rows ``n_t`` and of those the judge failed ``s_t`` (likewise for PASS rows).
The alarm tests, for each rate ``p``, the composite null ``H0: p in [p_low, p_high]`` where
``[p_low, p_high]`` is the card's Clopper-Pearson interval, with an e-process that may be
checked at every look.

**Mixture e-process** (Robbins' beta mixture; Ramdas, Grunwald, Vovk & Shafer 2023). With
a ``Beta(a, b)`` prior on the alternative rate::

    E_t = [B(a + s_t, b + n_t - s_t) / B(a, b)] / sup_{p0 in [p_low, p_high]} L_t(p0),
    L_t(p0) = p0^s_t (1 - p0)^(n_t - s_t)

and the supremum is attained at ``p0 = clip(s_t / n_t, p_low, p_high)`` (the binomial
likelihood is unimodal at ``s_t / n_t``). For any fixed ``p0`` in the null,
``M_t(p0) = [B(a + s_t, b + n_t - s_t) / B(a, b)] / (p0^s_t (1 - p0)^(n_t - s_t))`` is the
likelihood ratio of the Bayes mixture to ``p0``: a nonnegative martingale with ``M_0 = 1``
under ``p0``, and ``E_t <= M_t(p0)``. Ville's inequality gives
``P_p0(sup_t E_t >= 1/a) <= a`` for every ``p0`` in the null.

**Detecting a change.** ``E_t`` pools every audit since the first look, so a rate that
moves after months of agreeing audits must first outweigh them. The alarm therefore reads
the Shiryaev-Roberts e-detector ``R_t = sum_{j <= t} E_{j:t}`` (:func:`mixture_detector`):
one mixture e-process started at every look, so a change at look ``j`` is judged on the
audits from ``j`` on. Over ``K`` looks ``R_t(p*) + K - t`` is a nonnegative martingale, so
``P(max_t R_t >= K / a) <= a``.

**False-alarm bound.** Let ``p*`` be the judge's true TPR over the card and audit periods
(no drift). The alarm fires when ``R_t >= 4 K / alpha`` at some look. Then::

    P(TPR alarm) <= P(p* not in CP_{1 - alpha/4}) + P(p* in CP and max_t R_t >= 4 K / alpha)
                 <= alpha/4 + P_p*(max_t R_t(p*) >= 4 K / alpha) <= alpha/4 + alpha/4

(the Clopper-Pearson interval is conservative; no independence of card and audits is
needed). The same holds for the TNR, and the union bound gives
``P(any false alarm over the horizon) <= alpha``. Conditioning on the audited rows' human
labels, the judge's labels on human-FAIL rows are i.i.d. Bernoulli(TPR) and on human-PASS
rows Bernoulli(TNR) without drift, which is what the martingale needs.

**Power.** The alarm can only fire once the audited rate is clearly outside the card's
interval, so a small card limits it: with 80 human-FAIL card rows the TPR interval at
``1 - alpha/4`` is about +-0.1 wide, and a drop of 0.15 leaves a gap of a few points only.

References
----------
C. J. Clopper and E. S. Pearson (1934), "The use of confidence or fiducial limits
illustrated in the case of the binomial", Biometrika 26(4):404-413.

H. Robbins (1970), "Statistical methods related to the law of the iterated logarithm",
Annals of Mathematical Statistics 41(5):1397-1409.

J. Shin, A. Ramdas and A. Rinaldo (2024), "E-detectors: a nonparametric framework for
sequential change detection", The New England Journal of Statistics in Data Science 2(2).

A. Ramdas, P. Grunwald, V. Vovk and G. Shafer (2023), "Game-theoretic statistics and safe
anytime-valid inference", Statistical Science 38(4):576-601.
"""

import math
from typing import NamedTuple

import numpy as np
from scipy.special import betaln, xlogy
from scipy.stats import beta

from simcore.calibration.formulas import _checked_level, _show


class DriftAlarm(NamedTuple):
    """The per-look result of :func:`drift_alarm`.

    Attributes
    ----------
    tpr_log_e, tnr_log_e : numpy.ndarray
        ``log E_t`` of the TPR and TNR e-processes from the first look, per look.
    tpr_log_r, tnr_log_r : numpy.ndarray
        ``log R_t`` of their Shiryaev-Roberts e-detectors, per look.
    tpr_alarm, tnr_alarm : numpy.ndarray
        Boolean per look: ``R >= 4 K / alpha`` (``K`` looks) at this or an earlier look.
    tpr_first_alarm, tnr_first_alarm : int
        Index of the first alarming look, or -1.
    tpr_null, tnr_null : tuple of float
        The card's Clopper-Pearson intervals ``(low, high)`` at level ``1 - alpha/4``.
    """

    tpr_log_e: np.ndarray
    tnr_log_e: np.ndarray
    tpr_log_r: np.ndarray
    tnr_log_r: np.ndarray
    tpr_alarm: np.ndarray
    tnr_alarm: np.ndarray
    tpr_first_alarm: int
    tnr_first_alarm: int
    tpr_null: tuple
    tnr_null: tuple


class AlarmSimulation(NamedTuple):
    """Monte Carlo summary of :func:`drift_alarm` (:func:`alarm_simulation`).

    Attributes
    ----------
    alarm_share, alarm_share_se : float
        Share of trials with an alarm (TPR or TNR) by the last look, and its Monte Carlo SE.
    median_delay : float
        Median of ``first alarm - drop_at`` over trials whose first alarm is at or after
        ``drop_at`` (NaN if none).
    detection_share : float
        Share of trials whose first alarm is at or after ``drop_at``.
    """

    alarm_share: float
    alarm_share_se: float
    median_delay: float
    detection_share: float


def mixture_e_process(successes, trials, null_low, null_high, prior=(0.5, 0.5)):
    """Return ``log E_t`` of the beta-mixture e-process against ``p in [null_low, null_high]``.

    Parameters
    ----------
    successes, trials : array_like
        1-D cumulative counts ``s_t <= n_t`` per look (non-decreasing, and ``s`` grows by at
        most what ``n`` grows by).
    null_low, null_high : float
        The null interval, ``0 <= null_low <= null_high <= 1``.
    prior : tuple of float, optional
        ``(a, b) > 0`` of the ``Beta(a, b)`` mixture (default Jeffreys).

    Returns
    -------
    numpy.ndarray
        ``log E_t = betaln(a + s, b + n - s) - betaln(a, b) - xlogy(s, p0) - xlogy(n - s,
        1 - p0)`` with ``p0 = clip(s / n, null_low, null_high)``; 0 where ``n = 0``.
        ``P(sup_t E_t >= 1/alpha) <= alpha`` under any rate in the null.
    """
    s, n = _checked_pairs("successes", successes, "trials", trials)
    if not 0.0 <= null_low <= null_high <= 1.0:
        raise ValueError(
            f"null_low, null_high must satisfy 0 <= low <= high <= 1 (got {null_low!r}, "
            f"{null_high!r})"
        )
    return _log_ratio(s, n, null_low, null_high, _checked_prior(prior))


def _checked_prior(prior):
    """Return the mixture's ``(a, b)``; ValueError unless both are positive and finite."""
    a, b = (float(part) for part in prior)
    if not (a > 0.0 and b > 0.0 and math.isfinite(a) and math.isfinite(b)):
        raise ValueError(f"prior must be two positive numbers (got {prior!r})")
    return a, b


def _log_ratio(s, n, null_low, null_high, prior):
    """Return the log mixture likelihood over the null's best, of checked counts ``s <= n``."""
    a, b = prior
    observed = n > 0.0
    p0 = np.clip(np.where(observed, s / np.where(observed, n, 1.0), null_low), null_low, null_high)
    log_mixture = betaln(a + s, b + n - s) - betaln(a, b)
    return log_mixture - xlogy(s, p0) - xlogy(n - s, 1.0 - p0)


def mixture_detector(successes, trials, null_low, null_high, prior=(0.5, 0.5)):
    """Return ``log R_t`` of the Shiryaev-Roberts e-detector built on the mixture e-process.

    Parameters
    ----------
    successes, trials, null_low, null_high, prior
        As :func:`mixture_e_process` (cumulative counts per look).

    Returns
    -------
    numpy.ndarray
        ``log R_t`` with ``R_t = sum_{j <= t} E_{j:t}``, ``E_{j:t}`` the mixture e-process
        of looks ``j..t`` alone (``E_{t+1:t} = 1`` is not counted): a change at any look
        starts its own e-process, so evidence gathered before it does not dilute it.

    Notes
    -----
    For a rate ``p*`` in the null, ``E_{j:t} <= M_{j:t}(p*)`` (each a likelihood-ratio
    martingale from look ``j``), and ``R_t(p*) - t`` is a martingale under ``p*``; so
    ``R_t(p*) + K - t`` is a nonnegative martingale over the ``K`` looks starting at ``K``,
    and by Ville's inequality ``P(max_{t <= K} R_t >= K / alpha) <= alpha`` (Shin, Ramdas and
    Rinaldo 2024). Costs ``O(K^2)`` time, ``O(K)`` memory.
    """
    s, n = _checked_pairs("successes", successes, "trials", trials)
    if not 0.0 <= null_low <= null_high <= 1.0:
        raise ValueError(
            f"null_low, null_high must satisfy 0 <= low <= high <= 1 (got {null_low!r}, "
            f"{null_high!r})"
        )
    prior = _checked_prior(prior)
    before_s = np.concatenate([[0.0], s[:-1]])
    before_n = np.concatenate([[0.0], n[:-1]])
    log_r = np.empty(s.size)
    for t in range(s.size):
        window = _log_ratio(
            s[t] - before_s[: t + 1], n[t] - before_n[: t + 1], null_low, null_high, prior
        )
        log_r[t] = float(np.logaddexp.reduce(window))
    return log_r


def card_null_interval(successes, trials, alpha):
    """Return the Clopper-Pearson interval ``(low, high)`` at level ``1 - alpha``.

    Parameters
    ----------
    successes, trials : int
        The card's counts, ``0 <= successes <= trials``.
    alpha : float
        Miscoverage, in (0, 1).

    Returns
    -------
    tuple of float
        ``low = Beta^-1(alpha/2; s, n - s + 1)`` (0 if ``s = 0``) and ``high =
        Beta^-1(1 - alpha/2; s + 1, n - s)`` (1 if ``s = n``).
    """
    level = _checked_level("alpha", alpha)
    s, n = _checked_pairs("successes", [successes], "trials", [trials])
    s, n = float(s[0]), float(n[0])
    low = 0.0 if s == 0.0 else float(beta.ppf(level / 2.0, s, n - s + 1.0))
    high = 1.0 if s == n else float(beta.ppf(1.0 - level / 2.0, s + 1.0, n - s))
    return low, high


def drift_alarm(caught, n_fail, cleared, n_pass, audit_tp, audit_fail, audit_tn, audit_pass, alpha):  # noqa: PLR0913 (a value object is still to come)
    """Return the per-look drift alarm of the judge's TPR and TNR against its card.

    Parameters
    ----------
    caught, n_fail : int
        Card: human-FAIL rows the judge failed, of ``n_fail`` human-FAIL rows.
    cleared, n_pass : int
        Card: human-PASS rows the judge passed, of ``n_pass`` human-PASS rows.
    audit_tp, audit_fail : array_like
        Per look, cumulative audited human-FAIL rows the judge failed, and all of them.
    audit_tn, audit_pass : array_like
        Per look, cumulative audited human-PASS rows the judge passed, and all of them.
    alpha : float
        Bound on the probability of any false alarm over the horizon, in (0, 1).

    Returns
    -------
    DriftAlarm
        Log e-values, cumulative alarms, first alarm looks and null intervals.

    Notes
    -----
    ``alpha/4`` to each card interval (:func:`card_null_interval`) and ``alpha/4`` to each
    e-detector (:func:`mixture_detector`, alarm at ``log R >= log(4 K / alpha)`` over ``K``
    looks), so
    ``P(any false alarm) <= alpha`` while TPR and TNR keep their card-period values (module
    docstring).
    """
    level = _checked_level("alpha", alpha)
    tpr_null = card_null_interval(caught, n_fail, level / 4.0)
    tnr_null = card_null_interval(cleared, n_pass, level / 4.0)
    tpr_log_e = mixture_e_process(audit_tp, audit_fail, *tpr_null)
    tnr_log_e = mixture_e_process(audit_tn, audit_pass, *tnr_null)
    if tpr_log_e.size != tnr_log_e.size:
        raise ValueError(
            f"audit_fail and audit_pass must have one length (got {tpr_log_e.size}, "
            f"{tnr_log_e.size})"
        )
    threshold = math.log(4.0 * tpr_log_e.size / level)
    tpr_log_r = mixture_detector(audit_tp, audit_fail, *tpr_null)
    tnr_log_r = mixture_detector(audit_tn, audit_pass, *tnr_null)
    tpr_alarm = np.logical_or.accumulate(tpr_log_r >= threshold)
    tnr_alarm = np.logical_or.accumulate(tnr_log_r >= threshold)
    return DriftAlarm(
        tpr_log_e,
        tnr_log_e,
        tpr_log_r,
        tnr_log_r,
        tpr_alarm,
        tnr_alarm,
        _first_true(tpr_alarm),
        _first_true(tnr_alarm),
        tpr_null,
        tnr_null,
    )


def alarm_simulation(  # noqa: PLR0913 (a value object is still to come)
    se, sp, theta, n_card, audits_per_look, looks, alpha, trials, seed, drop=0.0, drop_at=0
):
    """Return the simulated alarm rate and delay of :func:`drift_alarm`.

    Parameters
    ----------
    se, sp, theta : float
        The judge's TPR and TNR over the card period, and the FAIL share, in [0, 1].
    n_card, audits_per_look, looks : int
        Card rows, audited rows per look and the number of looks (each >= 1).
    alpha : float
        The alarm's false-alarm bound, in (0, 1).
    trials : int
        Simulated streams (>= 1).
    seed : int
        Seed of ``np.random.default_rng(np.random.SeedSequence(seed))``.
    drop : float, optional
        The fall of the TPR, ``0 <= drop <= se``.
    drop_at : int, optional
        First look (0-based) with TPR ``se - drop``, ``0 <= drop_at < looks``.

    Returns
    -------
    AlarmSimulation
        With ``drop = 0`` the alarm share estimates the false-alarm probability.

    Notes
    -----
    Card: ``n_fail ~ Binomial(n_card, theta)``, ``caught ~ Binomial(n_fail, se)``,
    ``cleared ~ Binomial(n_card - n_fail, sp)``. Per look: ``fails ~ Binomial(
    audits_per_look, theta)``, judge-failed ``~ Binomial(fails, TPR_k)``, judge-passed
    ``~ Binomial(audits_per_look - fails, sp)``.
    """
    for name, rate in (("se", se), ("sp", sp), ("theta", theta)):
        if not 0.0 <= rate <= 1.0:
            raise ValueError(f"{name} must lie in [0, 1] (got {rate!r})")
    for name, count in (
        ("n_card", n_card),
        ("audits_per_look", audits_per_look),
        ("looks", looks),
        ("trials", trials),
    ):
        if int(count) != count or count < 1:
            raise ValueError(f"{name} must be a positive integer (got {count!r})")
    if not 0.0 <= drop <= se:
        raise ValueError(f"drop must lie in [0, se = {se!r}] (got {drop!r})")
    if int(drop_at) != drop_at or not 0 <= drop_at < looks:
        raise ValueError(f"drop_at must be an integer in [0, looks) (got {drop_at!r})")
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    tpr = np.where(np.arange(looks) >= drop_at, se - drop, se)
    first_alarm = np.empty(trials, dtype=np.int64)
    for trial in range(trials):
        n_fail = rng.binomial(n_card, theta)
        caught, cleared = rng.binomial(n_fail, se), rng.binomial(n_card - n_fail, sp)
        fails = rng.binomial(audits_per_look, theta, size=looks)
        tp, tn = rng.binomial(fails, tpr), rng.binomial(audits_per_look - fails, sp)
        result = drift_alarm(
            caught,
            n_fail,
            cleared,
            n_card - n_fail,
            np.cumsum(tp),
            np.cumsum(fails),
            np.cumsum(tn),
            np.cumsum(audits_per_look - fails),
            alpha,
        )
        firsts = [k for k in (result.tpr_first_alarm, result.tnr_first_alarm) if k >= 0]
        first_alarm[trial] = min(firsts, default=-1)
    alarm_share = float(np.mean(first_alarm >= 0))
    after = first_alarm[first_alarm >= drop_at]
    return AlarmSimulation(
        alarm_share,
        math.sqrt(alarm_share * (1.0 - alarm_share) / trials),
        float(np.median(after - drop_at)) if after.size else math.nan,
        after.size / trials,
    )


def _checked_pairs(part_name, part, whole_name, whole):
    """Return cumulative 1-D counts ``part <= whole`` as float64; ValueError if inconsistent."""
    arrays = []
    for name, counts in ((part_name, part), (whole_name, whole)):
        array = np.asarray(counts, dtype=np.float64)
        if array.ndim != 1:
            raise ValueError(f"{name} must be 1-D (got shape {array.shape})")
        if not np.all(np.isfinite(array)) or np.any(array < 0.0):
            raise ValueError(f"{name} must be finite and non-negative (got {_show(array)})")
        if np.any(np.diff(array) < 0.0):
            raise ValueError(f"{name} must be non-decreasing (got {_show(array)})")
        arrays.append(array)
    s, n = arrays
    if s.size != n.size:
        raise ValueError(
            f"{part_name} and {whole_name} must have one length (got {s.size}, {n.size})"
        )
    if np.any(s > n):
        raise ValueError(f"{part_name} exceeds {whole_name} (got {_show(s)} > {_show(n)})")
    if np.any(np.diff(s) > np.diff(n)):
        raise ValueError(
            f"{part_name} grows faster than {whole_name} (got {_show(s)} and {_show(n)})"
        )
    return s, n


def _first_true(flags):
    """Return the index of the first True in a 1-D boolean array, or -1."""
    return int(np.argmax(flags)) if flags.any() else -1
