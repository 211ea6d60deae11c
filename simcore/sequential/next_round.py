"""The next round while a verdict is open: which items, which humans, and how many.

The items and humans come from an overlap design simcore already knows
(:func:`simcore.advisor.extend_mask`: every secondary labels ``extra`` items it has not
labelled, chosen by the design); the size ``extra`` from a plug-in simulation:

1. For each ``extra`` of a grid (1, 2, 5, 10, 20, 50, ... up to the most unlabelled items a
   secondary has), draw ``trials`` proposals of the design. In each, count the items that
   would newly enter every comparison ``k`` (``k`` and another human label them, counting
   the proposed labels, and they have not entered before).
2. Give each new item a term drawn with replacement from the comparison's observed terms
   (from all the judge's comparisons' terms when the comparison has fewer than
   :data:`MIN_TERMS`), and continue the comparison's capital over them
   (:func:`simcore.calibration.hedged_log_capital` of the old terms then the new).
3. Read the judge's verdict at the end of the round, as :func:`~simcore.sequential.verdict.
   judge_verdict` reads it; ``P(settle)`` is the share of proposals where it is settled.

The round proposed is the smallest ``extra`` where every open judge settles with probability
at least ``power``, or, when none does within the items left, the largest, with the
probability it reaches. While no open judge has :data:`MIN_TERMS` terms to resample, the
round is ``MIN_TERMS`` items per secondary, unsized. The plug-in assumes the items still to
label are like the items labelled (their terms drawn from the same distribution); it
resamples each comparison on its own, so it ignores that one item's terms in two
comparisons are related.
"""

import math
from dataclasses import dataclass

import numpy as np

from simcore.advisor import extend_mask
from simcore.calibration import e_benjamini_hochberg, hedged_log_capital
from simcore.sequential.verdict import bet_level, settling_indices, verdict_codes

MIN_TERMS = 10
"""Fewest observed terms a comparison's own terms are resampled from."""

GRID = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000)
"""The sizes ``extra`` (items per secondary) tried, up to the most any secondary can take."""


@dataclass(frozen=True)
class RoundSize:
    """The round proposed, and what the simulation says it buys.

    Attributes
    ----------
    extra : int
        Items each secondary labels in the round (fewer if it has fewer left).
    settle_probability : dict
        ``{judge: P(settled after the round)}`` for every open judge.
    reached : bool
        Every open judge settles with probability at least the power asked.
    tried : list of dict
        ``{"extra", "settle_probability"}`` (the smallest over open judges) per grid size.
    sized_from : dict
        ``{judge: "own terms" | "pooled terms" | "too few terms"}``.
    """

    extra: int
    settle_probability: dict
    reached: bool
    tried: list
    sized_from: dict

    def to_dict(self):
        """Return the sizing as a JSON-ready mapping."""
        return {
            "extra": self.extra,
            "settle_probability": dict(self.settle_probability),
            "reached": self.reached,
            "tried": list(self.tried),
            "sized_from": dict(self.sized_from),
        }


def entered(codes, k):
    """Return the items that have entered comparison ``k`` under ``(n, K)`` codes."""
    observed = codes >= 0
    return observed[:, k] & (observed.sum(axis=1) - observed[:, k] > 0)


def settled_share(old_terms, new_counts, settings, rng):
    """Return the share of simulated rounds after which the judge's verdict is settled.

    Parameters
    ----------
    old_terms : list of numpy.ndarray
        Per comparison, its observed terms in entry order.
    new_counts : numpy.ndarray
        ``(T, K)`` items newly entering each comparison in each simulated round.
    settings : SequentialSettings
        Rule, eps, alpha, tau.
    rng : numpy.random.Generator
        The resampling stream.
    """
    trials, n_comparisons = new_counts.shape
    pooled = np.concatenate([terms for terms in old_terms if terms.size] or [np.zeros(0)])
    threshold = math.log(n_comparisons / settings.alpha)
    level = bet_level(settings, n_comparisons)
    needed = settings.needed(n_comparisons)
    favour = np.zeros((trials, n_comparisons), dtype=bool)
    lost = np.zeros((trials, n_comparisons), dtype=bool)
    log_for = np.zeros((trials, n_comparisons))
    for k, terms in enumerate(old_terms):
        source = terms if terms.size >= MIN_TERMS else pooled
        longest = int(new_counts[:, k].max()) if source.size else 0
        drawn = rng.choice(source, size=(trials, longest)) if longest else np.zeros((trials, 0))
        values = np.concatenate([np.broadcast_to(terms, (trials, terms.size)), drawn], axis=1)
        if values.shape[1] == 0:
            continue
        present = np.ones(values.shape, dtype=bool)
        present[:, terms.size :] = np.arange(longest) < new_counts[:, k, None]
        log_up, log_down = hedged_log_capital(values, level, settings.null_mean, present)
        settle_for, settle_against = settling_indices(log_up, log_down, threshold)
        favour[:, k] = settle_for < values.shape[1]
        lost[:, k] = settle_against < values.shape[1]
        log_for[:, k] = log_up[:, -1]
    if settings.rule == "alt_test":  # e-BH on the capitals at the round's end says who is won
        e_values = np.exp(np.minimum(log_for, 700.0))
        favour = np.stack([e_benjamini_hochberg(row, settings.alpha) for row in e_values])
        lost &= ~favour
    codes = verdict_codes(favour.sum(axis=1), lost.sum(axis=1), n_comparisons, needed)
    return float((codes != 0).mean())


def size_round(codes, n_labels, judge_terms, settings, design, power, trials, seed):
    """Return the :class:`RoundSize` of the next round (module docstring).

    Parameters
    ----------
    codes : numpy.ndarray
        ``(n, K)`` human codes now (negative: not labelled); the first column is the primary.
    n_labels : int
        L, the labels of the scale.
    judge_terms : dict
        ``{judge: [terms of comparison k, ...]}`` for every open judge.
    settings : SequentialSettings
        Rule, eps, alpha, tau.
    design : str
        An overlap design (:data:`simcore.model.designs.DESIGNS`).
    power : float
        The probability of settling the round is sized for.
    trials : int
        Simulated rounds per size.
    seed : int
        Root seed; size ``extra`` draws from ``SeedSequence([seed, extra])``.
    """
    available = codes >= 0
    n_humans = codes.shape[1]
    before = np.stack([entered(codes, k) for k in range(n_humans)], axis=1)
    left = int((~available[:, 1:]).sum(axis=0).max()) if n_humans > 1 else 0
    sizes = [size for size in GRID if size < left] + ([left] if left else [])
    sized_from = {judge: _source_name(terms) for judge, terms in judge_terms.items()}
    if all(name == "too few terms" for name in sized_from.values()):
        return RoundSize(min(MIN_TERMS, left), {}, False, [], sized_from)
    tried, best = [], None
    for extra in sizes:
        rng = np.random.default_rng(np.random.SeedSequence([seed, extra]))
        counts = np.zeros((trials, n_humans), dtype=np.int64)
        for trial in range(trials):
            proposal = extend_mask(rng, design, extra, codes, available, n_labels)
            after = np.where(proposal, 0, codes)
            for k in range(n_humans):
                counts[trial, k] = int((entered(after, k) & ~before[:, k]).sum())
        shares = {
            judge: settled_share(terms, counts, settings, rng)
            for judge, terms in judge_terms.items()
            if sized_from[judge] != "too few terms"
        }
        lowest = min(shares.values()) if shares else 0.0
        tried.append({"extra": int(extra), "settle_probability": lowest})
        best = (extra, shares)
        if shares and lowest >= power:
            return RoundSize(int(extra), shares, True, tried, sized_from)
    if best is None:
        return RoundSize(0, {}, False, tried, sized_from)
    return RoundSize(int(best[0]), best[1], False, tried, sized_from)


def _source_name(terms):
    """Return what a judge's comparisons are resampled from."""
    sizes = [values.size for values in terms]
    if sizes and min(sizes) >= MIN_TERMS:
        return "own terms"
    return "pooled terms" if sum(sizes) >= MIN_TERMS else "too few terms"
