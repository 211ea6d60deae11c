"""The coverage study's clustered scenarios: independent-item against cluster-robust intervals.

Items come in clusters of ``m`` (responses to one prompt). Each cluster draws its own
failure probability ``theta_c ~ Beta`` with mean ``theta`` and intra-cluster correlation
``icc_failures`` (``Beta(theta k, (1 - theta) k)``, ``k = 1 / icc - 1``: the correlation of
two items' failures in one cluster is ``icc``), and its own judge sensitivity and
specificity, ``Se_c`` and ``Sp_c``, Beta with means Se and Sp and correlation
``icc_errors`` (the judge errs alike on a cluster's items). A cluster's human FAILs are
``Bin(m, theta_c)``, the judge catches ``Bin(FAILs, Se_c)`` and clears ``Bin(PASSes,
Sp_c)``. The calibration set is ``clusters`` random clusters and production
``production_clusters`` more; the failure rate to cover is ``theta``.

Each trial scores every method of :data:`~simcore.calibration.methods.METHODS` twice: on the
pooled counts as if the items were independent
(:func:`~simcore.calibration.statistics.corrected_rates`) and with the cluster-robust
intervals (:func:`~simcore.calibration.clustered.clustered_rates`). The study is NumPy
(the clustered intervals have no kernel twin); ``make coverage-clustered`` runs
:data:`SCENARIOS` (``python -m experiments.clustered_coverage_study``).
"""

import math
from typing import NamedTuple

import numpy as np

from simcore.calibration.clustered import clustered_rates
from simcore.calibration.methods import METHODS
from simcore.calibration.statistics import corrected_rates

SEED = 20_261_203
"""Root seed of the clustered scenarios (one stream per scenario index)."""


class ClusteredScenario(NamedTuple):
    """One clustered scenario: the judge, the rate, the clusters and their correlations."""

    se: float
    sp: float
    theta: float
    cluster_size: int
    clusters: int
    production_clusters: int
    icc_failures: float
    icc_errors: float


SCENARIOS = tuple(
    ClusteredScenario(0.85, 0.9, 0.2, size, clusters, 400, icc_failures, icc_errors)
    for size, clusters in ((1, 500), (5, 100))
    for icc_failures, icc_errors in ((0.0, 0.0), (0.3, 0.0), (0.0, 0.3), (0.3, 0.3))
    if size > 1 or (icc_failures, icc_errors) == (0.0, 0.0)
) + (ClusteredScenario(0.85, 0.9, 0.2, 10, 50, 400, 0.3, 0.3),)
"""The published scenarios: one item per cluster (the independent case), then clusters of 5
under each correlation and clusters of 10 under both."""


def _beta_draws(rng, mean, icc, shape):
    """Return Beta draws of ``mean`` and intra-cluster correlation ``icc`` (constant if 0)."""
    if icc <= 0.0:
        return np.full(shape, mean)
    concentration = 1.0 / icc - 1.0
    return rng.beta(mean * concentration, (1.0 - mean) * concentration, shape)


def _cluster_tables(rng, scenario, trials, clusters):
    """Return ``(caught, missed, flagged, cleared)``, each of shape ``(trials, clusters)``."""
    shape = (trials, clusters)
    theta_c = _beta_draws(rng, scenario.theta, scenario.icc_failures, shape)
    se_c = _beta_draws(rng, scenario.se, scenario.icc_errors, shape)
    sp_c = _beta_draws(rng, scenario.sp, scenario.icc_errors, shape)
    fails = rng.binomial(scenario.cluster_size, theta_c)
    caught = rng.binomial(fails, se_c)
    cleared = rng.binomial(scenario.cluster_size - fails, sp_c)
    return caught, fails - caught, scenario.cluster_size - fails - cleared, cleared


def scenario_coverage(scenario, trials, stream, confidence=0.95, methods=METHODS):
    """Return ``{(method, "independent" | "clustered"): (coverage, SE, mean half-width)}``.

    Trials whose interval is refused count as not covering (their interval is the observed
    rate's, which does not aim at theta). ``stream`` selects the scenario's random stream
    (:data:`SEED`); ``methods`` any of :data:`~simcore.calibration.methods.METHODS`.
    """
    rng = np.random.default_rng(np.random.SeedSequence(SEED, spawn_key=(stream,)))
    calibration = _cluster_tables(rng, scenario, trials, scenario.clusters)
    caught, missed, flagged, _ = _cluster_tables(
        rng, scenario, trials, scenario.production_clusters
    )
    production_fails = caught + flagged
    production_rows = np.full(production_fails.shape, scenario.cluster_size)
    pooled = [table.sum(axis=1) for table in calibration]
    independent = corrected_rates(
        production_fails.sum(axis=1),
        production_rows.sum(axis=1),
        *pooled,
        confidence=confidence,
        methods=methods,
    )
    hits = {}
    for rate in independent:
        hits[rate.method, "independent"] = _scored(rate, scenario.theta)
    clustered = {method: ([], [], []) for method in methods}
    for trial in range(trials):
        result = clustered_rates(
            production_fails[trial],
            production_rows[trial],
            *(table[trial] for table in calibration),
            confidence=confidence,
            methods=methods,
        )
        for rate in result.rates:
            for store, value in zip(
                clustered[rate.method], (rate.low, rate.high, rate.corrected), strict=True
            ):
                store.append(float(value))
    for method, (low, high, corrected) in clustered.items():
        hits[method, "clustered"] = _scored_bounds(
            np.array(low), np.array(high), np.array(corrected, dtype=bool), scenario.theta
        )
    return hits


def _scored(rate, theta):
    """Return ``(coverage, SE, mean half-width)`` of a vectorised :class:`MethodRate`."""
    return _scored_bounds(
        np.asarray(rate.low), np.asarray(rate.high), np.asarray(rate.corrected, bool), theta
    )


def _scored_bounds(low, high, corrected, theta):
    """Return ``(coverage, SE, mean half-width)``; a refused trial does not cover."""
    covered = corrected & (low <= theta) & (theta <= high)
    coverage = float(covered.mean())
    se = math.sqrt(max(coverage * (1.0 - coverage), 1e-12) / covered.size)
    width = float(np.mean((high - low)[corrected]) / 2) if corrected.any() else math.nan
    return coverage, se, width


def coverage_rows(scenarios=SCENARIOS, trials=2000, confidence=0.95):
    """Return one row per scenario and method: both intervals' coverage, SE and width."""
    rows = []
    for stream, scenario in enumerate(scenarios):
        hits = scenario_coverage(scenario, trials, stream, confidence)
        for method in METHODS:
            independent, clustered = hits[method, "independent"], hits[method, "clustered"]
            rows.append(
                {
                    **scenario._asdict(),
                    "method": method,
                    "coverage_independent": independent[0],
                    "se_independent": independent[1],
                    "half_width_independent": independent[2],
                    "coverage_clustered": clustered[0],
                    "se_clustered": clustered[1],
                    "half_width_clustered": clustered[2],
                }
            )
    return rows
