"""``simcore calibrate --plan --cluster-size M --icc RHO``: calibration clusters per method.

Where items come in clusters of ``M`` whose failures and judge errors correlate (intra-
cluster correlation ``rho``, the model of :mod:`simcore.studies.coverage.clustered`), a
calibration set of ``n`` items carries less information than ``n`` independent ones. Kish's
design effect ``d = 1 + (M - 1) rho`` gives the closed-form start: ``n d`` labels, ``ceil(n d
/ M)`` clusters, ``n`` the method's independent-item size. It is only a start: the design
effect of each ratio (Se over the human FAILs, Sp over the PASSes) depends on how a
cluster's items split between the classes, so the clusters are simulated back. Production
is ``N / M`` clusters of the same kind.

For each method the number of calibration clusters ``C`` is searched, doubling then
bisecting from the start, for the smallest whose cluster-robust interval
(:func:`simcore.calibration.clustered.clustered_rates`) has mean half-width at most the
target and covers theta within :data:`~simcore.planning.calibration.allocation.COVERAGE_SES`
SEs of the confidence; the width and coverage printed are re-simulated at ``C`` on a fresh
stream.
"""

import math
from typing import NamedTuple

from simcore.markdown_table import markdown_table
from simcore.planning.calibration.allocation import COVERAGE_SES
from simcore.printed_rates import share_text
from simcore.studies.coverage.clustered import ClusteredScenario, scenario_coverage

MAX_CLUSTERS = 100_000
"""No plan asks more calibration clusters than this (none is then reported)."""

CLUSTERED_METHODS = ("lr", "ppi", "strat-wilson")
"""The methods planned in clusters (Rogan-Gladen's, PPI's, and the stratified interval;
``strat-wilson`` starts from ``strat-ppi``'s independent-item size)."""

MAX_TRIALS = 500
"""At most this many trials per cluster count tried: each draws every production cluster
(a plan's ``--plan-trials`` above it are used for the other sections only)."""


class ClusterPlan(NamedTuple):
    """One method's calibration clusters for the target, simulated back (None: no answer)."""

    method: str
    closed_form: int | None
    clusters: int | None
    labels: int | None
    half_width: float
    coverage: float
    coverage_se: float


def _meets(scenario, method, trials, stream, half_width, confidence):
    """Return ``(qualifies, (width, coverage, se))`` of ``scenario``'s clusters."""
    coverage, se, width = scenario_coverage(
        scenario, trials, stream, confidence, methods=(method,)
    )[method, "clustered"]
    ok = width <= half_width and coverage >= confidence - COVERAGE_SES * se
    return ok, (width, coverage, se)


def plan_clusters(judge, target, independent, shape):
    """Return a :class:`ClusterPlan` per method of :data:`CLUSTERED_METHODS`.

    ``judge`` is a :class:`~simcore.calibration.judge_profile.JudgeProfile`, ``target`` a
    :class:`~simcore.planning.calibration.target.PlanTarget` (its trials, at most
    :data:`MAX_TRIALS`, per count tried); ``independent`` maps each method to its planned
    independent-item size (None where there is none); ``shape`` is a
    :class:`~simcore.planning.calibration.target.ClusterShape`.
    """
    se, sp, theta = judge.sensitivity, judge.specificity, judge.prevalence
    size, icc = shape.size, shape.icc
    half_width, confidence = target.half_width, target.confidence
    trials = min(target.trials, MAX_TRIALS)
    production = max(2, math.ceil(target.n_production / size))
    plans = []
    for stream, method in enumerate(CLUSTERED_METHODS):
        start = independent.get("strat-ppi" if method == "strat-wilson" else method)
        if start is None:
            plans.append(ClusterPlan(method, None, None, None, math.nan, math.nan, math.nan))
            continue
        closed = max(2, math.ceil(start * shape.design_effect / size))

        def scenario(clusters):
            return ClusteredScenario(se, sp, theta, size, clusters, production, icc, icc)

        def meets(clusters, stream=stream, method=method):
            return _meets(scenario(clusters), method, trials, stream, half_width, confidence)[0]

        found = _smallest(meets, closed)
        if found is None:
            plans.append(ClusterPlan(method, closed, None, None, math.nan, math.nan, math.nan))
            continue
        fresh = _meets(
            scenario(found),
            method,
            trials,
            len(CLUSTERED_METHODS) + stream,
            half_width,
            confidence,
        )[1]
        plans.append(ClusterPlan(method, closed, found, found * size, *fresh))
    return plans


def _smallest(meets, start):
    """Return the smallest count of at least 2 that meets, searched from ``start``.

    Halving (where ``start`` meets) or doubling (where it does not) brackets the answer,
    bisection finds it; None beyond :data:`MAX_CLUSTERS`.
    """
    if meets(start):
        low, high = start // 2, start
        while low >= 2 and meets(low):
            low, high = low // 2, low
        low = max(low, 1)  # fails (or is below 2)
    else:
        low, high = start, start * 2
        while not meets(high):
            low, high = high, high * 2
            if high > MAX_CLUSTERS:
                return None
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if meets(middle) else (middle, high)
    return high


def format_cluster_plans(plans, target, shape):
    """Return the plan's clusters section: one line per method, simulated back."""
    size, icc = shape.size, shape.icc
    half_width, confidence = target.half_width, target.confidence
    trials = min(target.trials, MAX_TRIALS)
    lines = [
        f"In clusters of {size} items (intra-cluster correlation {icc:g} of the failures and "
        f"of the judge's errors; Kish's design effect {shape.design_effect:.2f} gives "
        "the start): the fewest calibration clusters whose cluster-robust interval, "
        f"simulated on {trials} trials, has mean half-width at most {half_width:g} and covers "
        f"theta within {COVERAGE_SES:g} SEs of {100 * confidence:g}%; re-checked on fresh trials",
        "",
    ]
    rows = []
    for plan in plans:
        if plan.clusters is None:
            closed = "none" if plan.closed_form is None else plan.closed_form
            rows.append((plan.method, closed, "none", "-", "-", "-"))
            continue
        coverage = share_text(plan.coverage, plan.coverage_se, trials)
        cells = (plan.method, plan.closed_form, plan.clusters, plan.labels)
        rows.append((*cells, f"{plan.half_width:.4f}", coverage))
    return lines + markdown_table(CLUSTER_COLUMNS, rows)


CLUSTER_COLUMNS = ("method", "closed form clusters", "simulated clusters", "labels")
CLUSTER_COLUMNS += ("mean half-width", "coverage %")
"""The columns of the plan's clusters table, one row per method."""


def cluster_plan_document(plans, shape):
    """Return the plan's ``clusters`` JSON block (None for none and for NaN)."""

    def number(value):
        return None if not math.isfinite(value) else float(value)

    return {
        "size": shape.size,
        "icc": shape.icc,
        "design_effect": shape.design_effect,
        "methods": [
            {
                "method": plan.method,
                "closed_form": plan.closed_form,
                "clusters": plan.clusters,
                "labels": plan.labels,
                "half_width": number(plan.half_width),
                "coverage": number(plan.coverage),
                "coverage_se": number(plan.coverage_se),
            }
            for plan in plans
        ],
    }
