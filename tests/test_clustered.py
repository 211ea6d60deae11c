"""Cluster-robust intervals: equal to the independent ones on clusters of one item, exact on
duplicated items, and covering on clustered simulations where the independent ones fall short."""

import math

import numpy as np
import pytest

from simcore.calibration.clustered import clustered_rates
from simcore.calibration.methods import METHODS
from simcore.calibration.statistics import corrected_rates
from simcore.studies.coverage.clustered import ClusteredScenario, scenario_coverage


def item_clusters(table):
    """Return the four per-cluster arrays of ``table`` with one item per cluster."""
    rows = sum(table)
    columns = []
    for index, count in enumerate(table):
        column = np.zeros(rows)
        start = sum(table[:index])
        column[start : start + count] = 1
        columns.append(column)
    return columns


def bounds(rate):
    return float(rate.estimate), float(rate.low), float(rate.high)


@pytest.mark.parametrize("seed", range(6))
def test_clusters_of_one_item_give_the_independent_intervals(seed):
    rng = np.random.default_rng(seed)
    table = tuple(int(count) for count in rng.integers(0, 40, 4))
    n_production = int(rng.integers(50, 3000))
    fails = int(rng.integers(0, n_production + 1))
    production = np.r_[np.ones(fails), np.zeros(n_production - fails)]
    clustered = clustered_rates(
        production, np.ones(n_production), *item_clusters(table), methods=METHODS
    )
    independent = corrected_rates(fails, n_production, *table, methods=METHODS)
    for mine, theirs in zip(clustered.rates, independent, strict=True):
        assert bool(mine.corrected) == bool(theirs.corrected), (mine.method, table)
        assert bounds(mine) == pytest.approx(bounds(theirs), abs=1e-12), (mine.method, table)
    # The same with the production stream as two totals of independent rows.
    totals = clustered_rates(
        fails, n_production, *item_clusters(table), methods=METHODS, independent_production=True
    )
    for mine, theirs in zip(totals.rates, independent, strict=True):
        assert bounds(mine) == pytest.approx(bounds(theirs), abs=1e-12), (mine.method, table)
    assert totals.production_clusters is None and totals.clusters == sum(table)


def test_an_item_repeated_in_its_own_cluster_has_the_design_effect_of_its_copies():
    # Every item copied 4 times into one cluster: the sandwich variance is the original
    # items' binomial variance, so each design effect is 4 times CR1's C / (C - 1)
    # (C = 120 calibration clusters, 1000 production clusters), and the estimates are the
    # original counts'.
    table = (34, 6, 8, 72)
    copies = 4
    production_fails = np.r_[np.full(130, copies), np.zeros(870)]
    clustered = clustered_rates(
        production_fails,
        np.full(1000, copies),
        *(copies * column for column in item_clusters(table)),
        methods=METHODS,
    )
    independent = corrected_rates(130, 1000, *table, methods=METHODS)
    for mine, theirs in zip(clustered.rates, independent, strict=True):
        assert float(mine.estimate) == pytest.approx(float(theirs.estimate), abs=1e-12)
    calibration = copies * 120 / 119
    assert clustered.design_effects == pytest.approx(
        {"se": calibration, "sp": calibration, "q": copies * 1000 / 999, "rectifier": calibration}
    )


def test_stratified_ppi_by_hand_on_two_clusters():
    # Cluster A: caught 3, missed 1, flagged 1, cleared 5; cluster B: 1, 1, 3, 5.
    # p1 = 4 / 8 = 0.5 (A: 3 of 4, B: 1 of 4); p0 = 2 / 12 (A: 1 of 6, B: 1 of 6).
    # Residuals e1 = (3 - 0.5 * 4) / 8 = 0.125, (1 - 2) / 8 = -0.125: V1 = 0.03125;
    # e0 = (1 - 1) / 12 = 0 twice: V0 = 0, C10 = 0. Production totals x 30 of N 100
    # independent: V(q) = 0.21 / 100. CR1 doubles V1 (C = 2) and the quantile is Student's
    # t with 1 degree of freedom: se^2 = 0.09 (2 V1) + 0 + (0.5 - 1/6)^2 0.0021.
    result = clustered_rates(
        30,
        100,
        [3, 1],
        [1, 1],
        [1, 3],
        [5, 5],
        confidence=0.5,
        methods=("strat-ppi",),
        independent_production=True,
    )
    (rate,) = result.rates
    estimate = 0.3 * 0.5 + 0.7 / 6
    se = math.sqrt(0.09 * 2 * 0.03125 + (1 / 3) ** 2 * 0.0021)
    z = 1.0  # Student's t with 1 degree of freedom at 0.75 (a 50% interval, not clipped)
    assert bounds(rate) == pytest.approx((estimate, estimate - z * se, estimate + z * se))


def test_one_cluster_or_unequal_counts_are_refused():
    with pytest.raises(ValueError, match="fall in 1 cluster: a cluster-robust interval needs"):
        clustered_rates(30, 100, [3, 0], [1, 0], [1, 0], [5, 0], independent_production=True)
    with pytest.raises(ValueError, match="one value per cluster"):
        clustered_rates(30, 100, [3, 1], [1], [1, 3], [5, 5], independent_production=True)
    with pytest.raises(ValueError, match="production_fails must be at most production_rows"):
        clustered_rates([3, 9], [5, 5], [3, 1], [1, 1], [1, 3], [5, 5])


TRIALS = 2000


@pytest.fixture(scope="module")
def clustered_hits():
    # Clusters of 5, failures and judge errors both correlated within a cluster (ICC 0.3),
    # on a stream the published table does not use.
    scenario = ClusteredScenario(0.85, 0.9, 0.2, 5, 100, 400, 0.3, 0.3)
    return scenario_coverage(scenario, trials=TRIALS, stream=99)


@pytest.mark.parametrize("method", ["lr", "ppi", "ppi++", "strat-ppi", "strat-wilson"])
def test_the_robust_intervals_cover_where_the_independent_ones_fall_short(clustered_hits, method):
    independent, _, _ = clustered_hits[method, "independent"]
    clustered, _, _ = clustered_hits[method, "clustered"]
    floor = 0.95 - 3 * math.sqrt(0.95 * 0.05 / TRIALS)
    assert independent < floor <= clustered, (independent, clustered)


def test_equal_clusters_give_the_cluster_means_variance_of_clustered_ppi():
    # On clusters of one size, PPI's cluster-robust variance is the variance of the cluster
    # means (ddof 1) over the cluster counts: Var(u - s) / M_L + Var(v) / M_U, u and s a
    # calibration cluster's human and judge FAIL shares, v a production cluster's judge FAIL
    # share (the clustered PPI of glide-py, whose Python 3.12 floor keeps it from the tests).
    rng = np.random.default_rng(4)
    size, clusters, production_clusters = 4, 30, 50
    tables = rng.multinomial(size, [0.2, 0.05, 0.1, 0.65], clusters).T
    production_fails = rng.binomial(size, 0.3, production_clusters)
    result = clustered_rates(
        production_fails,
        np.full(production_clusters, size),
        *tables,
        confidence=0.5,
        methods=("ppi",),
    )
    caught, missed, flagged, _ = tables
    human, judge = (caught + missed) / size, (caught + flagged) / size
    production_share = production_fails / size
    variance = np.var(human - judge, ddof=1) / clusters
    variance += np.var(production_share, ddof=1) / production_clusters
    from scipy import stats

    half = stats.t.ppf(0.75, clusters - 1) * math.sqrt(variance)
    (rate,) = result.rates
    estimate = production_share.mean() + (human - judge).mean()
    assert bounds(rate) == pytest.approx((estimate, estimate - half, estimate + half), abs=1e-12)
