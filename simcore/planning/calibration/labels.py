"""``simcore calibrate --plan``: how many calibration labels each interval method needs.

Given a judge (Se, Sp), a failure rate theta, a production size N and a target half-width h
of the interval at the chosen confidence, each method's calibration size is found by
simulation with the coverage kernel (:func:`simcore.engine.interval_twins.method_coverage_trials`):
the smallest ``n_cal`` whose mean simulated half-width (over the trials the method did not
refuse) is at most h while its simulated coverage of theta is within 3 SEs of nominal (a Wald
interval on a handful of rows can be narrow and wrong), searched by doubling from
:data:`START_N_CAL` and then bisection, on one fixed set of trial keys (common random
numbers, so the half-width is a smooth function of ``n_cal``). Coverage is then simulated
again at the answer on fresh keys. Beside it
stands the closed-form answer of the large-sample variance (:func:`closed_form_n`), or
"none" where the production term alone exceeds the target.
"""

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from simcore.calibration.errors import CalibrationInputError
from simcore.calibration.judge_profile import JudgeProfile
from simcore.engine.interval_twins import INTERVAL_METHODS, method_coverage_trials
from simcore.markdown_table import markdown_table
from simcore.planning.calibration.allocation import COVERAGE_SES, plan_splits
from simcore.planning.calibration.clusters import (
    cluster_plan_document,
    format_cluster_plans,
    plan_clusters,
)
from simcore.planning.calibration.target import flag_in_range
from simcore.printed_rates import share_text

PLANNED_METHODS = ("lr", "ppi", "ppi++", "strat-ppi")
"""The methods planned (the naive interval's width ignores the calibration set)."""

START_N_CAL = 8
"""The doubling search starts here."""

MAX_N_CAL = 2**18
"""The search gives up (answer "none") beyond this calibration size."""

REFUSAL_LIMIT = 0.05
"""A size qualifies when the method refuses at most this share of the trials."""

PLAN_SEED = 20269
"""Root seed of the planner's trial keys (the search's and the coverage check's)."""


@dataclass(frozen=True)
class MethodPlan:
    """One method's planned calibration size and its check."""

    method: str
    closed_form: float  # math.inf where the production term alone exceeds the target
    n_cal: int | None  # None where the simulated search found none up to MAX_N_CAL
    half_width: float  # mean simulated half-width at n_cal (NaN if none)
    coverage: float  # of theta, at n_cal on fresh trials
    coverage_se: float
    refusal: float
    coverage_stream: float  # of the stream's realised rate, same trials


METHOD_COLUMNS = ("method", "closed form n", "simulated n", "mean half-width", "coverage %")
METHOD_COLUMNS += ("coverage of the stream's rate %", "refused %")
"""The columns of the plan's table, one row per interval method."""


def closed_form_n(method, judge, target):
    """Return the large-sample ``n_cal`` of ``method`` for ``target``'s half-width (inf: none).

    With ``q = theta Se + (1 - theta)(1 - Sp)``, ``J = Se + Sp - 1``:

    * ``lr`` (delta method, Rogan-Gladen): ``n = z^2 (theta Se(1-Se) + (1-theta) Sp(1-Sp))
      / (h^2 J^2 - z^2 q(1-q)/N)``;
    * ``ppi``: ``n = z^2 var_r / (h^2 - z^2 q(1-q)/N)``, ``var_r = m + f - (m - f)^2`` with
      ``m = theta(1-Se)``, ``f = (1-theta)(1-Sp)``;
    * ``ppi++``: as ``ppi`` with ``Y - lambda f``, ``var_r = Var(Y) + lambda^2 q(1-q) -
      2 lambda cov``, production term ``lambda^2 q(1-q)/N``, ``lambda = clip(cov / ((1 + n/N)
      q(1-q)), 0, 1)``, ``cov = theta Se - theta q``, iterated with ``n`` to a fixed point;
    * ``strat-ppi``: ``n = z^2 (q p1(1-p1) + (1-q) p0(1-p0)) / (h^2 - z^2 (p1-p0)^2
      q(1-q)/N)``, ``p1 = theta Se/q``, ``p0 = theta(1-Se)/(1-q)``.

    A non-positive denominator (the production term alone exceeds ``h^2``) gives ``inf``.
    ``judge`` is a :class:`~simcore.calibration.judge_profile.JudgeProfile`, ``target`` a
    :class:`~simcore.planning.calibration.target.PlanTarget` (``N``, ``h`` and ``z``).
    """
    se, sp, theta = judge.sensitivity, judge.specificity, judge.prevalence
    n_production = target.n_production
    q = judge.flag_rate
    var_q = q * (1 - q)
    h2, z2 = target.half_width**2, target.z**2
    if method == "lr":
        numerator = theta * se * (1 - se) + (1 - theta) * sp * (1 - sp)
        denominator = h2 * (se + sp - 1) ** 2 - z2 * var_q / n_production
    elif method == "ppi":
        missed, flagged = theta * (1 - se), (1 - theta) * (1 - sp)
        numerator = missed + flagged - (missed - flagged) ** 2
        denominator = h2 - z2 * var_q / n_production
    elif method == "ppi++":
        return _ppi_plus_plus_n(se, theta, q, n_production, h2, z2)
    elif method == "strat-ppi":
        p1 = theta * se / q if q > 0 else 0.0
        p0 = theta * (1 - se) / (1 - q) if q < 1 else 0.0
        numerator = q * p1 * (1 - p1) + (1 - q) * p0 * (1 - p0)
        denominator = h2 - z2 * (p1 - p0) ** 2 * var_q / n_production
    else:
        raise ValueError(f"no closed form for method {method!r}")
    return z2 * numerator / denominator if denominator > 0 else math.inf


def _ppi_plus_plus_n(se, theta, q, n_production, h2, z2):
    """Return PPI++'s closed-form ``n`` with ``lambda`` and ``n`` iterated to a fixed point."""
    var_q, var_y = q * (1 - q), theta * (1 - theta)
    cov = theta * se - theta * q
    n = 0.0
    for _ in range(200):
        lam = min(1.0, max(0.0, cov / ((1 + n / n_production) * var_q))) if var_q > 0 else 0.0
        denominator = h2 - z2 * lam * lam * var_q / n_production
        if denominator <= 0:
            return math.inf
        var_r = var_y + lam * lam * var_q - 2 * lam * cov
        updated = z2 * var_r / denominator
        if abs(updated - n) <= 1e-9 * max(1.0, updated):
            return updated
        n = updated
    return n


def _simulate(keys, judge, target, youden_floor, n_cal):
    """Return per method ``(mean half-width, coverage, coverage SE, refusal)`` at ``n_cal``."""
    se, sp, theta = judge.sensitivity, judge.specificity, judge.prevalence
    refused, covered, width, covered_theta = method_coverage_trials(
        keys, theta, se, sp, int(n_cal), target.n_production, target.z, youden_floor
    )
    kept = (~refused).sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        half = width.sum(axis=0) / 2 / kept
        coverage = covered_theta.sum(axis=0) / kept
        coverage_stream = covered.sum(axis=0) / kept
    coverage_se = np.sqrt(coverage * (1 - coverage) / kept)
    return half, coverage, coverage_se, refused.mean(axis=0), coverage_stream


def _search(method, keys, judge, target, youden_floor):
    """Return the smallest ``n_cal`` that is narrow enough and covers, or None.

    Narrow enough and covers: mean half-width at most the target, coverage at least
    ``level`` minus :data:`~simcore.planning.calibration.allocation.COVERAGE_SES` binomial
    SEs, refusal at most :data:`REFUSAL_LIMIT` (at a few calibration rows a Wald interval
    can collapse, narrow and wrong).
    """
    column = INTERVAL_METHODS.index(method)
    half_width, level = target.half_width, target.confidence

    def narrow_enough(n_cal):
        simulated = _simulate(keys, judge, target, youden_floor, n_cal)
        half, coverage, _, refusal, _ = (v[column] for v in simulated)
        kept = len(keys) * (1 - refusal)
        tolerance = COVERAGE_SES * math.sqrt(level * (1 - level) / kept) if kept else 0.0
        return bool(
            half <= half_width and coverage >= level - tolerance and refusal <= REFUSAL_LIMIT
        )

    high = START_N_CAL
    while not narrow_enough(high):
        if high >= MAX_N_CAL:
            return None
        high *= 2
    low = high // 2 if high > START_N_CAL else 1
    if low >= 1 and narrow_enough(low):
        return low
    while high - low > 1:  # narrow_enough(high) and not narrow_enough(low)
        middle = (low + high) // 2
        if narrow_enough(middle):
            high = middle
        else:
            low = middle
    return high


def _keys(trials, stream):
    """Return ``trials`` keys of the planner's stream 0 (search) or 1 (coverage check)."""
    return np.random.SeedSequence(PLAN_SEED, spawn_key=(stream,)).generate_state(trials, np.uint64)


def plan_calibration(judge, target, youden_floor=0.15):
    """Return a :class:`MethodPlan` per method of :data:`PLANNED_METHODS`.

    Parameters
    ----------
    judge : simcore.calibration.judge_profile.JudgeProfile
        The judge's sensitivity and specificity and the failure rate.
    target : simcore.planning.calibration.target.PlanTarget
        The production rows N the interval will be computed for, its target half-width and
        confidence, and the simulated trials per calibration size tried (and for the
        coverage check).
    youden_floor : float
        The LR interval's refusal floor (as ``simcore calibrate``).

    Notes
    -----
    ``n_cal`` is the smallest calibration size whose mean half-width over ``trials``
    simulated trials (those the method did not refuse; common keys across sizes) is at most
    the target half-width, with coverage of ``theta`` (what every interval estimates) within 3 SEs
    of ``confidence`` and at most 5% refused (by doubling, then bisection, which assumes
    that property holds from some size on); coverage (of ``theta``, and of the production
    stream's realised rate) and the refusal rate are then simulated at it on a second,
    independent set of keys.
    """
    search_keys, check_keys = _keys(target.trials, 0), _keys(target.trials, 1)
    plans = []
    for method in PLANNED_METHODS:
        closed = closed_form_n(method, judge, target)
        n_cal = _search(method, search_keys, judge, target, youden_floor)
        half, coverage, coverage_se, refusal, stream = (math.nan,) * 5
        if n_cal is not None:
            column = INTERVAL_METHODS.index(method)
            half = _simulate(search_keys, judge, target, youden_floor, n_cal)[0][column]
            check = _simulate(check_keys, judge, target, youden_floor, n_cal)
            coverage, coverage_se, refusal, stream = (float(v[column]) for v in check[1:])
        plans.append(
            MethodPlan(method, closed, n_cal, float(half), coverage, coverage_se, refusal, stream)
        )
    return plans


def format_plan(plans, judge, target):
    """Return the plan report: one line per method, closed form beside the simulation."""
    half_width, trials = target.half_width, target.trials
    level = f"{100 * target.confidence:g}%"
    lines = [
        f"calibration labels needed for a {level} interval of half-width {half_width:g} "
        f"({judge}; N = {target.n_production})",
        f"simulated: {trials} trials per size, seed {PLAN_SEED}; the smallest n whose mean "
        f"half-width (trials not refused) is at most {half_width:g} with coverage within "
        f"{COVERAGE_SES:g} SEs of {level} (of the failure rate theta) and at most "
        f"{100 * REFUSAL_LIMIT:g}% refused; coverage re-checked at n on fresh trials",
        "",
    ]
    rows = []
    for plan in plans:
        closed = "none" if math.isinf(plan.closed_form) else str(math.ceil(plan.closed_form))
        if plan.n_cal is None:
            rows.append((plan.method, closed, f"none (> {MAX_N_CAL})", "-", "-", "-", "-"))
            continue
        kept = round(trials * (1 - plan.refusal))  # the trials the coverage is over
        coverage = share_text(plan.coverage, plan.coverage_se, kept)
        cells = (plan.method, closed, plan.n_cal, f"{plan.half_width:.4f}", coverage)
        rows.append((*cells, f"{100 * plan.coverage_stream:.1f}", f"{100 * plan.refusal:.1f}"))
    lines += markdown_table(METHOD_COLUMNS, rows)
    lines.append("")
    if any(plan.n_cal is None or math.isinf(plan.closed_form) for plan in plans):
        lines.append(
            "none: the production count's own error alone is wider than the target (closed "
            f"form), or no size up to {MAX_N_CAL} was narrow enough and covered (simulated); "
            "use more production rows (larger N) or accept a wider interval."
        )
    lines.append(
        "The naive interval is not planned: its width ignores the calibration set and it "
        "under-covers."
    )
    return "\n".join(lines)


def plan_result(request):
    """Return the plan's ``(document, text)``: what ``calibrate --plan`` prints and its JSON.

    ``request`` is a :class:`PlanRequest`. The judge is its pilot's
    (:meth:`simcore.calibration.judge_profile.JudgeProfile.from_pilot`) or its rates; N is
    ``of``. With a pilot the text's second line names the failure rate planned for and the
    pilot's other estimate, the document's ``plan_theta`` holds both. The document holds the
    inputs, one row per method (:class:`MethodPlan`; ``closed_form`` and ``n_cal`` None
    where there is none) and one per design of :mod:`simcore.planning.calibration.allocation`
    (``allocation``); with a ``shape`` also the calibration clusters per method
    (:mod:`simcore.planning.calibration.clusters`, ``clusters``).
    Raises :class:`CalibrationInputError` naming the flag and value of any bad input.
    """
    target = request.target
    judge, chosen = _planned_judge(request)
    plans = plan_calibration(judge, target, request.youden_floor)
    splits = plan_splits(judge, target)
    plan_lines = format_plan(plans, judge, target).split("\n")
    plan_lines[1:1] = chosen.lines()  # which failure rate, just below the judge's line
    lines = [*plan_lines, "", *format_splits(splits, target)]
    clusters = None
    if request.shape is not None:
        independent = {plan.method: plan.n_cal for plan in plans}
        clusters = plan_clusters(judge, target, independent, request.shape)
        lines += ["", *format_cluster_plans(clusters, target, request.shape)]
    text = "\n".join(lines)
    document = {
        "plan": True,
        "se": judge.sensitivity,
        "sp": judge.specificity,
        "theta": judge.prevalence,
        "plan_theta": chosen.document(),
        "of": target.n_production,
        "half_width": float(target.half_width),
        "confidence": float(target.confidence),
        "trials": target.trials,
        "seed": PLAN_SEED,
        "methods": [_plan_row(plan) for plan in plans],
        "allocation": [_split_row(split) for split in splits],
    }
    if clusters is not None:
        document["clusters"] = cluster_plan_document(clusters, request.shape)
    return document, text


def _planned_judge(request):
    """Return ``(JudgeProfile, PlannedTheta)`` of the request's pilot or else of its rates.

    The profile's prevalence is the failure rate planned for; without a pilot it is
    ``--theta`` and ``plan_theta`` must be its default ``reported``.
    """
    from simcore.planning.plan_theta import PlannedTheta, planned_theta

    table, plan_theta = request.table, request.plan_theta
    if table is None:
        if plan_theta != "reported":
            raise CalibrationInputError(
                f"--plan-theta: chooses among a pilot's estimates; without a pilot the rate "
                f"planned for is --theta (got --plan-theta {plan_theta})"
            )
        rates = request.rates
        se, sp = (
            flag_in_range(rates[0], "--se", 0.0, 1.0),
            flag_in_range(rates[1], "--sp", 0.0, 1.0),
        )
        theta = flag_in_range(rates[2], "--theta", 0.0, 1.0, closed_low=False, closed_high=False)
        return JudgeProfile(se, sp, theta), PlannedTheta(float(theta), "theta")
    fails = flag_in_range(request.fails, "--fails", 0, request.of)
    try:
        pilot = JudgeProfile.from_pilot(table, fails, request.of)
    except ValueError as error:
        raise CalibrationInputError(f"--table/--csv: {error} (got {table})") from None
    report = (request.method, request.confidence, request.youden_floor)
    production = (fails, request.of)
    chosen = planned_theta(plan_theta, table, production, pilot.prevalence, report)
    return dataclasses.replace(pilot, prevalence=chosen.value), chosen


def _plan_row(plan):
    """Return one method's plan as a JSON-ready mapping (None for none and for NaN)."""

    def number(value):
        return None if value is None or not math.isfinite(value) else float(value)

    return {
        "method": plan.method,
        "closed_form": None if math.isinf(plan.closed_form) else math.ceil(plan.closed_form),
        "n_cal": plan.n_cal,
        "half_width": number(plan.half_width),
        "coverage": number(plan.coverage),
        "coverage_se": number(plan.coverage_se),
        "coverage_stream": number(plan.coverage_stream),
        "refused": number(plan.refusal),
    }


SPLIT_NAMES = {
    "judge_strata": ("production items by the judge's label", "judge FAIL", "judge PASS"),
    "random": ("a random production sample", "judge FAIL", "judge PASS"),
    "human_pools": ("human-labelled FAIL and PASS pools", "human FAIL", "human PASS"),
}
"""Each design's description and what its two sizes count."""


def format_splits(splits, target):
    """Return the plan's allocation section: one line per design, simulated back."""
    half_width, confidence, trials = target.half_width, target.confidence, target.trials
    lines = [
        "Where to spend them: the smallest split of each design whose interval (stratified "
        "PPI with its MOVER-Wilson interval, calibrate --method strat-wilson; Rogan-Gladen "
        "with the Lang-Reiczigel interval for the pools), simulated back on "
        f"{trials} trials, has mean half-width at most {half_width:g} and covers theta "
        f"within {COVERAGE_SES:g} SEs of {100 * confidence:g}%; width and coverage "
        "re-checked at the split on fresh trials",
        "",
    ]
    rows = []
    for split in splits:
        name, first, second = SPLIT_NAMES[split.design]
        if split.total is None:
            rows.append((name, "none", "-", "-", "-"))
            continue
        shares = f"{split.first} {first}, {split.second} {second}"
        coverage = share_text(split.coverage, split.coverage_se, trials)
        rows.append((name, split.total, shares, f"{split.half_width:.4f}", coverage))
    header = ("design", "labels", "split", "mean half-width", "coverage %")
    lines += markdown_table(header, rows)
    lines += [
        "",
        "The judge-stratified split leans from proportional towards Neyman's (n_k "
        "proportional to w_k sigma_k) as far as the interval still covers; the pools' split "
        "minimises the delta-method variance of Rogan-Gladen that Lee et al. write, m1/m0 = "
        "theta sqrt(Se(1-Se)) / ((1-theta) sqrt(Sp(1-Sp))), and assumes pooled items are "
        "like production's within each human class.",
    ]
    return lines


def _split_row(split):
    """Return one design's split as a JSON-ready mapping (None where there is none)."""

    def number(value):
        return None if not math.isfinite(value) else float(value)

    first, second = SPLIT_NAMES[split.design][1:]
    return {
        "design": split.design,
        "labels": split.total,
        "first": split.first,
        "second": split.second,
        "first_is": first,
        "second_is": second,
        "half_width": number(split.half_width),
        "coverage": number(split.coverage),
        "coverage_se": number(split.coverage_se),
    }
