"""The anytime-valid verdict: settled accept, settled reject or open, at every look.

Each comparison ``k`` (held-out human) is a sequence of terms ``x_i`` in [0, 1]
(:mod:`simcore.sequential.terms`) whose mean is at least ``m0 = (1 - eps) / 2`` exactly when
the comparison favours the judge. Its hedged betting capital at ``m0``
(:func:`simcore.calibration.hedged_log_capital`, bets tuned at ``2 alpha / K``) gives two
e-processes: ``K+`` against ``mean < m0`` and ``K-`` against ``mean >= m0``.

**Leave-one-out verdict** (``rule = point``). Comparison ``k`` is *settled for the judge* at the
first item where ``K+ >= K / alpha``, *settled against* where ``K- >= K / alpha``, and *open*
until then; once settled it stays settled. With ``need = ceil(tau K)`` the verdict is::

    settled accept   when  #for >= need
    settled reject   when  #for + #open < need
    open             otherwise

A settled accept is wrong only if some comparison with ``mean < m0`` was settled for the
judge, a settled reject only if some comparison with ``mean >= m0`` was settled against; a
comparison can be settled wrongly in one direction only (the one whose null holds), each
with probability at most ``alpha / K`` at any stopping time by Ville's inequality, so by the
union bound over the ``K`` comparisons **P(the verdict is ever settled wrongly) <= alpha**,
under any rule for when to label more and when to stop. It assumes each new item's term has
the comparison's mean given everything before it: items chosen for labelling without
looking at their labels (any design of docs/explanation/designs.md). The interval shown per
comparison is the betting confidence sequence of ``E[x]`` at level ``2 alpha / K`` mapped to
the margin per item ``E[D + eps c] / (K - 1) = 2 E[x] - 1 + eps``; it excludes 0 when the
comparison is settled (up to its grid step).

**Sequential alternative annotator test** (``rule = alt_test``). Human ``k``'s e-value is the
current ``K+`` (an e-value at any stopping time); e-BH at level ``alpha``
(:func:`simcore.calibration.e_benjamini_hochberg`) gives the humans the judge wins against,
with false discovery rate at most ``alpha`` as Benjamini-Yekutieli gives the original test.
Human ``k`` is *lost* (settled against) when ``K- >= K / alpha``. The winning rate lies in
``[wins / K, 1 - lost / K]``; the test passes when ``wins >= need`` and fails when
``K - lost < need``. The advantage probability ``rho = mean_k E[W_j]`` lies in the mean of the
humans' betting confidence sequences of ``E[W_j]`` at level ``alpha / K``.
"""

import math
from dataclasses import dataclass

import numpy as np

from simcore.calibration import (
    betting_confidence_sequence,
    e_benjamini_hochberg,
    hedged_log_capital,
)
from simcore.sequential.terms import RULES

SETTLED_ACCEPT, SETTLED_REJECT, OPEN = "settled accept", "settled reject", "open"
"""The three readings of a sequential verdict."""

CS_GRID = 2001
"""Grid of the confidence sequences shown per comparison (step 1/2000 of the [0, 1] scale)."""


@dataclass(frozen=True)
class SequentialSettings:
    """What a sequential verdict depends on; fixed for the whole record of looks.

    Attributes
    ----------
    rule : str
        ``point`` (the leave-one-out point rule of the sparse-overlap paper) or
        ``alt_test`` (the alternative annotator test).
    epsilon : float
        Tolerance eps, in [0, 1).
    alpha : float
        Probability of a wrong settled verdict (``point``) or the e-BH level (``alt_test``),
        in (0, 0.5).
    tau : float
        Share of the comparisons that must favour the judge, in (0, 1].
    """

    rule: str = "point"
    epsilon: float = 0.05
    alpha: float = 0.05
    tau: float = 0.5

    def __post_init__(self):
        if self.rule not in RULES:
            raise ValueError(f"rule must be one of {', '.join(RULES)} (got {self.rule!r})")
        checks = (
            ("epsilon", self.epsilon, 0.0 <= self.epsilon < 1.0, "in [0, 1)"),
            ("alpha", self.alpha, 0.0 < self.alpha < 0.5, "in (0, 0.5)"),
            ("tau", self.tau, 0.0 < self.tau <= 1.0, "in (0, 1]"),
        )
        for name, value, valid, text in checks:
            if not (isinstance(value, int | float) and math.isfinite(value) and valid):
                raise ValueError(f"{name} must be {text} (got {value!r})")

    @property
    def null_mean(self):
        """``m0 = (1 - eps) / 2``: the terms' mean where a comparison is exactly even."""
        return (1.0 - self.epsilon) / 2.0

    def needed(self, n_comparisons):
        """Return ``ceil(tau K)``: the comparisons that must favour the judge."""
        return max(1, math.ceil(self.tau * n_comparisons - 1e-9))

    def to_dict(self):
        """Return the settings as a JSON-ready mapping."""
        return {
            "rule": self.rule,
            "epsilon": self.epsilon,
            "alpha": self.alpha,
            "tau": self.tau,
        }


def settling_indices(log_up, log_down, threshold):
    """Return where each sequence settled for and against the judge (its length where not).

    Along the last axis (leading axes are independent sequences): a comparison settles *for*
    the judge at the first index where ``log K+ >= threshold`` unless ``log K-`` crossed
    strictly before, *against* at the first index where ``log K- >= threshold`` unless
    ``log K+`` crossed at or before; it settles at most once.

    Returns
    -------
    settle_for, settle_against : numpy.ndarray
        Integer indices, the sequence's length where it did not settle that way.
    """
    length = np.shape(log_up)[-1]
    up, down = _first_index(log_up >= threshold), _first_index(log_down >= threshold)
    settle_for = np.where((up < length) & (up <= down), up, length)
    settle_against = np.where((down < length) & (down < up), down, length)
    return settle_for, settle_against


def _first_index(crossed):
    """Return the first True along the last axis (the axis's length where none)."""
    return np.where(crossed.any(axis=-1), crossed.argmax(axis=-1), crossed.shape[-1])


def verdict_codes(favour, against, n_comparisons, needed):
    """Return +1 (settled accept), -1 (settled reject) or 0 (open) from settled counts.

    Settled accept when ``favour >= need``; settled reject when ``K - against < need`` (too
    few comparisons can still favour the judge); open otherwise. Vectorised.
    """
    favour, against = np.asarray(favour), np.asarray(against)
    accepted = favour >= needed
    rejected = (n_comparisons - against < needed) & ~accepted
    return np.where(accepted, 1, np.where(rejected, -1, 0))


CODE_VERDICTS = {1: SETTLED_ACCEPT, -1: SETTLED_REJECT, 0: OPEN}
"""The reading of each verdict code of :func:`verdict_codes`."""


def comparison_status(values, settings, n_comparisons):
    """Return one comparison's ``(status, index, log_for, log_against)``.

    ``status`` is ``for``, ``against`` or ``open``; ``index`` the item at which it settled;
    ``log_for`` and ``log_against`` the current log capitals ``log K+`` and ``log K-``.
    """
    if values.size == 0:
        return "open", None, 0.0, 0.0
    level = bet_level(settings, n_comparisons)
    log_up, log_down = hedged_log_capital(values, level, settings.null_mean)
    threshold = math.log(n_comparisons / settings.alpha)
    settle_for, settle_against = settling_indices(log_up, log_down, threshold)
    if settle_for < values.size:
        status, index = "for", int(settle_for)
    elif settle_against < values.size:
        status, index = "against", int(settle_against)
    else:
        status, index = "open", None
    return status, index, float(log_up[-1]), float(log_down[-1])


def bet_level(settings, n_comparisons):
    """Return the level the bets are tuned for: ``2 alpha / K`` (point), ``alpha`` (alt_test)."""
    if settings.rule == "alt_test":
        return settings.alpha
    return min(0.99, 2.0 * settings.alpha / n_comparisons)


def judge_verdict(sequences, settings, with_intervals=True):
    """Return one judge's sequential verdict from its comparisons' sequences.

    Parameters
    ----------
    sequences : list of (numpy.ndarray, numpy.ndarray)
        Per held-out human, the terms ``x_i`` in entry order and the look each entered at
        (:func:`simcore.sequential.terms.comparison_sequence`).
    settings : SequentialSettings
        Rule, eps, alpha, tau.
    with_intervals : bool
        Also compute each comparison's confidence sequence (slower; off in simulations).

    Returns
    -------
    dict
        ``verdict`` (:data:`SETTLED_ACCEPT`, :data:`SETTLED_REJECT` or :data:`OPEN`),
        ``favour``/``against``/``open`` (counts), ``needed``, ``comparisons`` (per human:
        ``items``, ``status``, ``settled_look``, ``settled_after_items``, ``log_for``,
        ``log_against``, ``low``, ``high``; with ``e_value`` and ``won`` under alt_test),
        and under alt_test ``winning_rate`` and ``advantage`` as ``[low, high]``.
    """
    n_comparisons = len(sequences)
    rows = []
    for values, looks in sequences:
        status, index, log_for, log_against = comparison_status(values, settings, n_comparisons)
        rows.append(
            {
                "items": int(values.size),
                "status": status,
                "settled_look": None if index is None else int(looks[index]) + 1,
                "settled_after_items": None if index is None else index + 1,
                "log_for": log_for,
                "log_against": log_against,
            }
        )
    if with_intervals:
        for row, (values, _) in zip(rows, sequences, strict=True):
            row.update(_interval(values, settings, n_comparisons))
    needed = settings.needed(n_comparisons)
    result = {"needed": needed, "comparisons": rows}
    if settings.rule == "alt_test":
        e_values = np.exp(np.minimum([row["log_for"] for row in rows], 700.0))
        won = e_benjamini_hochberg(e_values, settings.alpha)
        for row, e_value, win in zip(rows, e_values, won, strict=True):
            row.update({"e_value": float(e_value), "won": bool(win)})
            if win:  # e-BH, not the capital's own crossing, says who is won
                row["status"] = "for"
            elif row["status"] == "for":
                row["status"] = "open"
        favour = int(won.sum())
        lost = sum(row["status"] == "against" for row in rows)
        result["winning_rate"] = [favour / n_comparisons, 1.0 - lost / n_comparisons]
        if with_intervals:
            result["advantage"] = _advantage(sequences, settings, n_comparisons)
    else:
        favour = sum(row["status"] == "for" for row in rows)
        lost = sum(row["status"] == "against" for row in rows)
    still = n_comparisons - favour - lost
    verdict = CODE_VERDICTS[int(verdict_codes(favour, lost, n_comparisons, needed))]
    return {"verdict": verdict, "favour": favour, "against": lost, "open": still, **result}


def _interval(values, settings, n_comparisons):
    """Return the comparison's confidence sequence now, on its reported scale."""
    if values.size == 0:
        return {"low": None, "high": None}
    level = bet_level(settings, n_comparisons)
    low, high = betting_confidence_sequence(values, level, CS_GRID)
    if settings.rule == "alt_test":  # E[d] = 1 - 2 E[x]
        return {"low": 1.0 - 2.0 * float(high[-1]), "high": 1.0 - 2.0 * float(low[-1])}
    shift = settings.epsilon - 1.0
    return {"low": 2.0 * float(low[-1]) + shift, "high": 2.0 * float(high[-1]) + shift}


def _advantage(sequences, settings, n_comparisons):
    """Return ``[low, high]`` of the advantage probability (None without items)."""
    level = settings.alpha / n_comparisons
    lows, highs = [], []
    for values, _ in sequences:
        if values.size == 0:
            lows.append(0.0)
            highs.append(1.0)
            continue
        low, high = betting_confidence_sequence((values >= 0.5).astype(float), level, CS_GRID)
        lows.append(float(low[-1]))
        highs.append(float(high[-1]))
    return [float(np.mean(lows)), float(np.mean(highs))]
