"""advise's one answer: how many labels to buy, where, and how sure that is.

:func:`recommend` reads the audit's risk curves (and, with a budget, the design comparison)
and returns one :class:`Recommendation`, of one of five kinds:

- ``none``: the risk now of every audited judge is at most the target, so no label is
  needed (a judge's verdict whose risk is already under the target is left alone; only the
  judges above the target drive the recommendation);
- ``labels``: each secondary labels ``per_secondary`` more items by the curves' design,
  the fewest simulated sizes whose estimated risk is under the target for every judge above
  it (:func:`recommended_extra`), with a range: from the first size whose 95% Wilson
  interval reaches down to the target to the first whose whole interval is under it (the
  conservative figure);
- ``budget``: with a budget, spend it under the design the comparison picks
  (:func:`choose_design`: the lowest worst-judge risk, ties within noise going to the
  simplest design);
- ``unreachable``: no simulated size short of labelling every item brings every judge under
  the target (:func:`reachability`); nothing is proposed, and the best risk the corpus
  allows is reported;
- ``raises_risk``: with a budget, every design's predicted worst-judge risk after spending
  it is above the worst risk now (:func:`choose_design` with the risk now as its
  ``ceiling``): no round of that size is recommended, nothing is proposed, and the reason
  names the first simulated larger size whose risk is clearly below the risk now
  (:func:`clear_drop`), or says that none is.

No recommended round predicts a higher risk than now. ``labels`` holds it by construction
for the judges above the target (their risk at the size bought is at most the target, below
their risk now); a judge under the target now has no curve past its risk now, so its risk
at the size bought is not simulated. ``budget`` holds it by the ceiling: a design whose
point estimate is above the worst risk now is never recommended, however small the rise;
whether a rise is beyond Monte Carlo noise (more than :data:`TIE_SES` combined SEs) is said,
not used to decide.

Whatever the kind, it says how many secondaries have fewer unlabelled items left than the
size asked (they label all they have: *capped*), the labels actually bought, and their
share of the unlabelled cells, which it calls *nearly every unlabelled cell* from
:data:`NEARLY_ALL_SHARE` up.
"""

import math
from typing import NamedTuple

import numpy as np

from simcore.advisor.anchored import judge_anchor
from simcore.advisor.risk.ceiling import best_row, clear_drop, raise_reason, worst_now
from simcore.advisor.risk.posterior import labels_everything, monte_carlo_se, posterior_risk
from simcore.advisor.settings import Draws, Proposal
from simcore.calibration.statistics import wilson_interval
from simcore.model.designs import DESIGNS

TIE_SES = 2.0
"""Two designs tie when their worst-judge risks differ by at most this many combined Monte
Carlo SEs, ``|r_a - r_b| <= 2 sqrt(se_a^2 + se_b^2)``. The designs' draws share their label
streams, so the SE of the difference is smaller than the combined one: the rule leans
towards a tie, which then goes to the simpler design."""

SIMPLICITY = ("bernoulli", "shared_panel", "exact_m", "strat", "seq_refined", "seq_coverage")
"""The designs from the simplest to run to the most demanding; a tie goes to the first.

``bernoulli``: each secondary flips a coin per item, no list to coordinate; ``shared_panel``:
one list for everybody, and items a secondary has already labelled are not bought again;
``exact_m``: one list per secondary; ``strat``: lists stratified by the current labels;
``seq_refined`` and ``seq_coverage``: the secondaries are served one after another, each
list waiting for the previous secondary's labels."""

NEARLY_ALL_SHARE = 0.8
"""A recommendation buying at least this share of the unlabelled cells is said to be
nearly every unlabelled cell."""


# --------------------------------------------------------------------------- the curves


def recommended_extra(curves, target):
    """Return the fewest grid items per secondary bringing every curve under ``target``.

    ``max_j needed_j``, with ``needed_j`` the first grid size whose estimated risk is at
    most the target (:meth:`simcore.advisor.risk.posterior.RiskCurve.needed`); a curve whose risk
    now is under the target needs 0. -1 when some curve stays above the target over the grid.
    """
    needed = [curve.needed(target)[0] for curve in curves]
    return -1 if any(n < 0 for n in needed) else max(needed, default=0)


def needed_range(curve, target, confidence=0.95):
    """Return ``(low, point, high)``: the grid sizes bracketing where ``curve`` meets ``target``.

    ``low`` is the first size whose Wilson interval's lower end is at most the target (the
    risk may be under it there), ``point`` the first whose estimate is (the
    recommendation), ``high`` the first whose upper end is (the conservative figure); -1
    for a bound the grid does not reach. ``low <= point <= high`` whenever they exist.
    """
    low = -1
    for index, extra in enumerate(curve.extra):
        if wilson_interval(curve.wrong[index], curve.trials[index], confidence)[0] <= target:
            low = extra
            break
    point, high = curve.needed(target, confidence)
    return low, point, high


def everything_size(curve, audit):
    """Return the curve's last size when it labels every item (risk 0 exactly), else -1.

    There the sparse matrix is the dense one, so the risk is under any target whatever
    the Wilson bound of its nominal trials says.
    """
    last = curve.extra[-1] if curve.extra else -1
    return last if labels_everything(audit.available, audit.curve_design, last) else -1


def above_target(risk_now, target):
    """Return the judges whose risk now is above ``target`` (or unknown): those needing labels."""
    return tuple(name for name, (rate, _) in risk_now.items() if not rate <= target)


# --------------------------------------------------------------------------- reach


class Reach(NamedTuple):
    """Whether the target can be reached short of labelling the whole corpus.

    Attributes
    ----------
    reachable : bool
        Some grid size below every item labelled brings every judge under the target.
    best : dict
        Judge -> ``(extra, risk, se)``: its lowest simulated risk short of every item
        labelled (with every item labelled the sparse verdict is the dense one).
    beyond_corpus : dict
        Judge -> its recipe's ``m_cert`` when that exceeds the corpus's items: then no
        labelling of this corpus certifies the binding comparison.
    n_items : int
        Items in the corpus.
    """

    reachable: bool
    best: dict
    beyond_corpus: dict
    n_items: int


def reachability(audit, curves, recommended):
    """Return the :class:`Reach` of the audit's curves and recipes."""
    available, design = audit.available, audit.curve_design
    reachable = recommended >= 0 and not labels_everything(available, design, recommended)
    best = {}
    for name, curve in curves.items():
        short = [
            i for i, e in enumerate(curve.extra) if not labels_everything(available, design, e)
        ]
        if short:
            index = min(short, key=curve.rate)
            best[name] = (curve.extra[index], curve.rate(index), curve.se(index))
    n_items = available.shape[0]
    beyond = {
        name: risk.recipe[2] for name, risk in audit.risks.items() if risk.recipe[2] > n_items
    }
    return Reach(reachable, best, beyond, n_items)


# --------------------------------------------------------------------------- the budget


def budget_comparison(audit, budget):
    """Return one :func:`budget_row` per design, ``budget // (K - 1)`` items per secondary.

    The rows are marked by :func:`choose_design` (``tie``, ``recommended``,
    ``raises_risk``), its ceiling the worst risk now (:func:`worst_now`).
    """
    per_secondary = max(1, budget // max(1, audit.available.shape[1] - 1))
    pools = {}
    rows = [budget_row(audit, candidate, per_secondary, pools) for candidate in DESIGNS]
    choose_design(rows, ceiling=worst_now(audit)[1])
    return rows


def budget_row(audit, design, per_secondary, pools=None):
    """Return the risk when each secondary labels ``per_secondary`` more items by ``design``.

    The row holds the worst audited judge's risk with its Monte Carlo SE and the simulated
    matrices behind it (``trials``), and the mean risk over the J judges with its SE
    ``sqrt(sum_j se_j^2) / J`` (``mean_se``; the judges' draws share their matrices, so this
    treats them as independent). Every judge counts, those under the target now too: the
    labels bought re-decide every verdict.
    """
    risks = [
        posterior_risk(
            audit.risks[row["judge"]].models,
            audit.available,
            0,
            audit.rule,
            Draws(audit.plan.trials, audit.plan.seed),
            Proposal(design, per_secondary, audit.human_labels, pools),
            judge_anchor(row),
        )
        for row in audit.verdicts
    ]
    rates = [wrong / count for wrong, count in risks]
    worst = int(np.argmax(rates))
    wrong, count = risks[worst]
    ses = [monte_carlo_se(*risk) for risk in risks]
    return {
        "design": design,
        "extra": per_secondary,
        "worst_judge": audit.judges[worst],
        "risk": wrong / count,
        "se": monte_carlo_se(wrong, count),
        "trials": int(count),
        "mean_risk": float(np.mean(rates)),
        "mean_se": math.sqrt(sum(se**2 for se in ses)) / len(ses),
    }


def choose_design(rows, ses=TIE_SES, ceiling=None):
    """Return the budget row to recommend; mark every row's ``tie`` and ``recommended``.

    The best row has the lowest worst-judge risk (then mean risk). A row ties with it when
    ``|r - r_best| <= ses * sqrt(se^2 + se_best^2)`` (:data:`TIE_SES`); among the tied rows
    (the best included) the simplest design in :data:`SIMPLICITY` is recommended. ``tie``
    is True on every tied row when more than one ties, so a clear winner has no tie.

    With a ``ceiling`` (the worst risk now), a row whose risk is above it is marked
    ``raises_risk`` and is never recommended: the simplest tied row at most the ceiling is.
    When even the best row is above it, no row is recommended and None is returned.
    """
    if not rows:
        return None
    best = min(rows, key=lambda row: (row["risk"], row["mean_risk"]))
    tied = [
        row
        for row in rows
        if abs(row["risk"] - best["risk"]) <= ses * math.hypot(row["se"], best["se"])
    ]
    for row in rows:
        row["raises_risk"] = ceiling is not None and row["risk"] > ceiling
    helpful = [row for row in tied if not row["raises_risk"]]
    chosen = min(helpful, key=lambda row: SIMPLICITY.index(row["design"]), default=None)
    for row in rows:
        row["tie"] = len(tied) > 1 and row in tied
        row["recommended"] = row is chosen
    return chosen


def next_round_size(budget_rows, design, recommended, reachable, needs_labels=True):
    """Return the proposal's ``(design, extra)``.

    No judge above the target (``needs_labels`` False): nothing (0). With a budget, the
    design :func:`choose_design` marked ``recommended`` at the budget's items per secondary,
    or nothing (0) under the best design when every design raises the risk; without,
    ``design`` at the recommended size, or nothing (0) when the target is not reachable
    short of labelling the whole corpus (:func:`reachability`): proposing the whole corpus
    is no plan.
    """
    chosen = next((row for row in budget_rows if row.get("recommended")), None)
    if budget_rows and chosen is None:  # every design raises the risk: no round of that size
        return best_row(budget_rows)["design"], 0
    if not needs_labels:
        return (chosen["design"] if chosen else design), 0
    if chosen:
        return chosen["design"], chosen["extra"]
    return design, (recommended if reachable else 0)


# --------------------------------------------------------------------------- the answer


class Recommendation(NamedTuple):
    """advise's one answer (module docstring); ``to_dict()`` is its ``--json`` form.

    Attributes
    ----------
    kind : str
        ``none``, ``labels``, ``budget``, ``unreachable`` or ``raises_risk``.
    labels : int
        New labels to buy: the proposal's (``next_round.csv``'s rows).
    per_secondary : int
        Items each secondary is asked to label (fewer where it has fewer left).
    design : str
        The design of the proposal.
    low, high : int
        ``labels``: the range of items per secondary around ``per_secondary``
        (:func:`needed_range`, the largest over the judges above the target; ``high`` is the
        size labelling every item when only that one is conservatively under the target
        (its risk is 0 exactly), -1 beyond the grid). Otherwise equal to ``per_secondary``.
    labels_low, labels_high : int
        The labels ``low`` and ``high`` items per secondary buy (-1 beyond the grid).
    risk, se : float
        The predicted risk after the round: the binding judge's at ``per_secondary`` on its
        curve, or the budget's worst-judge risk; the risk now for ``none`` (the largest);
        the best achievable for ``unreachable``; for ``raises_risk`` the lowest over the
        designs at the budget's size (the round not recommended). ± Monte Carlo SE.
    judge : str
        The judge that ``risk`` is of.
    above_target : tuple of str
        The judges whose risk now is above the target: they drive the recommendation.
    capped : int
        Secondaries with fewer unlabelled items left than ``per_secondary``.
    secondaries : int
        K - 1.
    unlabelled : int
        Unlabelled (item, secondary) cells now.
    share : float
        ``labels / unlabelled`` (0 when nothing is unlabelled).
    nearly_all : bool
        ``share >= NEARLY_ALL_SHARE``.
    tie : tuple of str
        With a budget: the designs tied with the best (:func:`choose_design`), empty for a
        clear winner.
    target : float
        The largest acceptable risk.
    trials : int
        Simulated matrices behind ``risk`` (0: not simulated, a dense matrix's).
    risk_now, risk_now_se : float
        The worst risk now over the audited judges, ± Monte Carlo SE: the ceiling no
        recommended round's predicted risk may exceed.
    risk_now_trials : int
        Simulated matrices behind ``risk_now``.
    budget_extra : int
        With a budget: its items per secondary (``budget // (K - 1)``), else 0.
    helps_from : int
        ``raises_risk``: the first simulated size above ``budget_extra`` whose worst-judge
        risk (on the curves, by their design) is clearly below the risk now
        (:func:`clear_drop`); -1 when none is, or for another kind.
    helps_risk, helps_se : float
        The risk at ``helps_from``, ± Monte Carlo SE (NaN without one).
    most_unlabelled : int
        The most unlabelled items a secondary has: a size at least this labels every item
        (but under ``shared_panel``).
    reason : str
        ``raises_risk``: why no round of the budget's size is recommended; empty otherwise.
    text : str
        The recommendation in words
        (:func:`simcore.advisor.report.plan.recommendation_text`).
    """

    kind: str
    labels: int
    per_secondary: int
    design: str
    low: int
    high: int
    labels_low: int
    labels_high: int
    risk: float
    se: float
    judge: str
    above_target: tuple
    capped: int
    secondaries: int
    unlabelled: int
    share: float
    nearly_all: bool
    tie: tuple
    target: float
    trials: int = 0
    risk_now: float = math.nan
    risk_now_se: float = math.nan
    risk_now_trials: int = 0
    budget_extra: int = 0
    helps_from: int = -1
    helps_risk: float = math.nan
    helps_se: float = math.nan
    most_unlabelled: int = 0
    reason: str = ""
    text: str = ""

    def to_dict(self):
        """Return the recommendation as plain JSON values (tuples as lists)."""
        return {
            key: list(value) if isinstance(value, tuple) else value
            for key, value in self._asdict().items()
        }


def labels_bought(available, extra):
    """Return the labels ``extra`` more items per secondary buy: ``sum_k min(extra, u_k)``.

    ``u_k`` is secondary k's unlabelled items (exact for ``exact_m`` and the stratified
    designs, the mean for ``bernoulli``, at most for ``shared_panel``); -1 for ``extra`` -1.
    """
    if extra < 0:
        return -1
    unlabelled = (~available[:, 1:]).sum(axis=0)
    return int(np.minimum(unlabelled, extra).sum())


def curve_point(curve, extra):
    """Return ``(risk, se, trials)`` of ``curve`` at size ``extra``."""
    index = curve.extra.index(extra)
    return curve.rate(index), curve.se(index), int(curve.trials[index])


def answer_risk(audit, curves, reach, budget_rows, extra, target, driving):
    """Return ``(kind, judge, (risk, se, trials), low, high)`` of :func:`recommend`."""
    low = high = extra
    if not driving:
        judge = max(audit.risks, key=lambda name: audit.risks[name].now[0], default="")
        point = worst_now(audit)[1:] if judge else (0.0, 0.0, 0)
        return "none", judge, point, low, high
    if budget_rows:
        chosen = next((row for row in budget_rows if row["recommended"]), None)
        kind = "budget" if chosen else "raises_risk"
        chosen = chosen or best_row(budget_rows)
        return kind, chosen["worst_judge"], (chosen["risk"], chosen["se"], chosen["trials"]), 0, 0
    if not reach.reachable:
        judge, (best_extra, _, _) = max(
            ((name, best) for name, best in reach.best.items() if name in driving),
            key=lambda item: item[1][1],
            default=("", (-1, math.nan, math.nan)),
        )
        point = curve_point(curves[judge], best_extra) if judge else (math.nan, math.nan, 0)
        return "unreachable", judge, point, low, high
    ranges = {name: needed_range(curves[name], target) for name in driving}
    judge = max(ranges, key=lambda name: ranges[name][1])
    low = max(bounds[0] for bounds in ranges.values())
    highs = [
        bounds[2] if bounds[2] >= 0 else everything_size(curves[name], audit)
        for name, bounds in ranges.items()
    ]
    high = -1 if min(highs) < 0 else max(highs)
    return "labels", judge, curve_point(curves[judge], extra), low, high


def recommend(audit, curves, reach, budget_rows, design, extra, proposal, target):
    """Return the :class:`Recommendation` of a planned round (module docstring).

    ``design``, ``extra`` and ``proposal`` are the next round's (:func:`next_round_size`,
    :func:`simcore.advisor.next_round.extend_mask`).
    """
    available = audit.available
    unlabelled_k = (~available[:, 1:]).sum(axis=0)
    unlabelled = int(unlabelled_k.sum())
    bought = int(proposal.sum())
    risk_now = {name: risk.now for name, risk in audit.risks.items()}
    driving = above_target(risk_now, target)
    kind, judge, (rate, se, trials), low, high = answer_risk(
        audit, curves, reach, budget_rows, extra, target, driving
    )
    budget_extra = int(budget_rows[0]["extra"]) if budget_rows else 0
    drop = None
    if kind == "raises_risk":
        drop = clear_drop(curves.values(), budget_extra, *worst_now(audit)[1:3])
    ties = tuple(row["design"] for row in budget_rows if row.get("tie"))
    _, now, now_se, now_trials = worst_now(audit) if audit.risks else ("", 0.0, 0.0, 0)
    return Recommendation(
        kind=kind,
        labels=bought,
        per_secondary=int(extra),
        design=design,
        low=int(low),
        high=int(high),
        labels_low=labels_bought(available, low),
        labels_high=labels_bought(available, high),
        risk=float(rate),
        se=float(se),
        judge=judge,
        above_target=driving,
        capped=int((unlabelled_k < extra).sum()) if extra > 0 else 0,
        secondaries=int(available.shape[1] - 1),
        unlabelled=unlabelled,
        share=bought / unlabelled if unlabelled else 0.0,
        nearly_all=bool(unlabelled and bought >= NEARLY_ALL_SHARE * unlabelled),
        tie=ties if kind == "budget" else (),
        target=float(target),
        trials=int(trials),
        risk_now=now,
        risk_now_se=now_se,
        risk_now_trials=now_trials,
        budget_extra=budget_extra,
        helps_from=int(drop[0]) if drop else -1,
        helps_risk=float(drop[1]) if drop else math.nan,
        helps_se=float(drop[2]) if drop else math.nan,
        most_unlabelled=int(unlabelled_k.max()) if unlabelled_k.size else 0,
        reason=raise_reason(
            audit, curves.values(), budget_rows, drop, labels_bought(available, budget_extra)
        )
        if kind == "raises_risk"
        else "",
    )
