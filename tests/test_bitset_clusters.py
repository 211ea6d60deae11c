"""Clustered items and the other rules on the bitset engine, against the items engine.

The bitset engine draws a clustered cell's masks cluster by cluster and each cluster's
labels with its own shifted thresholds (:mod:`simcore.engine.bitset.clusters`). These
tests check the layout (every cluster its size, each secondary's items per cluster with the
design's law), the law of the per-cluster agreement counts against the items engine's
draws (two-sample chi-square: the clusters' shared difficulty shows there), that the
simulation decides what it draws, and that whole scenarios with clusters, the alternative
annotator test and the interval verdict agree with the items engine within 4 pooled SEs.
"""

import numpy as np
import pytest
from scipy import stats
from test_bitset_engine import (
    CHI_SQUARE_LEVEL,
    GRID_TRIALS,
    assert_equals_oracle,
    compare_engines,
    from_bitsets,
    keys,
)
from test_bitset_verdicts import alt_test_oracle, interval_oracle

from simcore.engine import draws
from simcore.engine.bitset.draws import planes_model
from simcore.engine.bitset.trials import draw_bitsets, simulate_bitset
from simcore.engine.layout import BERNOULLI, EXACT_M, SHARED_PANEL
from simcore.model.decision_rule import Rule
from simcore.model.generative import rater_confusions
from simcore.studies.config import ScenarioError
from simcore.studies.synthetic.cell import TrialOutputs, rule_parameters
from simcore.studies.synthetic.scenario import scenario_from_dict

N_ITEMS, N_HUMANS, N_CLUSTERS, SPREAD = 62, 4, 5, 0.25


def clustered_model(n_labels, offsets):
    confusion = rater_confusions(N_HUMANS, n_labels, 0.8, [0.7])
    prevalence = np.full(n_labels, 1 / n_labels)
    return confusion, planes_model(confusion, prevalence, offsets)


def cluster_sizes():
    return np.array([len(range(g, N_ITEMS, N_CLUSTERS)) for g in range(N_CLUSTERS)])


@pytest.mark.parametrize("design", ["bernoulli", "exact_m", "shared_panel"])
def test_each_cluster_keeps_its_size_and_its_share_of_every_mask(design):
    code, rho, m = {"bernoulli": (BERNOULLI, 0.3, 0), "exact_m": (EXACT_M, 0, 17)}.get(
        design, (SHARED_PANEL, 0, 11)
    )
    confusion, model = clustered_model(2, True)
    n_trials = 3000
    planes, masks, lanes = draw_bitsets(
        keys(n_trials), N_ITEMS, N_HUMANS, model, code, rho, m, (confusion, N_CLUSTERS, SPREAD)
    )
    _, mask = from_bitsets(planes, masks, N_ITEMS)
    sizes = cluster_sizes()
    for g in range(N_CLUSTERS):
        np.testing.assert_array_equal((lanes == g).sum(axis=1), sizes[g])
        assert (np.diff(np.where(lanes == g)[1].reshape(n_trials, -1), axis=1) == 1).all()
    # secondary 1's items in cluster 0: Binomial(n_0, rho), or Hypergeometric(n, n_0, m)
    taken = (mask[:, :, 1] & (lanes == 0)).sum(axis=1)
    support = np.arange(sizes[0] + 1)
    if design == "bernoulli":
        expected = stats.binom.pmf(support, sizes[0], rho)
    else:
        expected = stats.hypergeom.pmf(support, N_ITEMS, sizes[0], m)
    observed = np.bincount(taken, minlength=support.size).astype(float)
    keep = expected * n_trials >= 5
    pooled_o = np.append(observed[keep], observed[~keep].sum())
    pooled_e = np.append(expected[keep], expected[~keep].sum()) * n_trials
    assert stats.chisquare(pooled_o, pooled_e).pvalue > CHI_SQUARE_LEVEL
    if design != "bernoulli":
        np.testing.assert_array_equal(mask[:, :, 1:].sum(axis=1), m)


def agreement_counts(labels, lanes, a, b):
    """Per trial and cluster: items of the cluster on which raters ``a`` and ``b`` agree."""
    agree = labels[:, :, a] == labels[:, :, b]
    return np.stack([(agree & (lanes == g)).sum(axis=1) for g in range(N_CLUSTERS)], axis=1)


@pytest.mark.parametrize("n_labels, offsets", [(2, True), (3, False), (4, True)])
def test_cluster_agreement_counts_follow_the_items_engine(n_labels, offsets):
    """Per-cluster agreement counts of two humans and of the judge and a human: same law."""
    confusion, model = clustered_model(n_labels, offsets)
    n_trials = 4000
    planes, masks, lanes = draw_bitsets(
        keys(n_trials, seed=11),
        N_ITEMS,
        N_HUMANS,
        model,
        BERNOULLI,
        0.3,
        0,
        (confusion, N_CLUSTERS, SPREAD),
    )
    labels, _ = from_bitsets(planes, masks, N_ITEMS)
    cdf = np.cumsum(np.full(n_labels, 1 / n_labels))
    items_labels, _ = draws.draw(
        keys(n_trials, seed=12), N_ITEMS, N_HUMANS, confusion, cdf, N_CLUSTERS, SPREAD, 0, 0.3, 0
    )
    items_lanes = np.broadcast_to(np.arange(N_ITEMS) % N_CLUSTERS, (n_trials, N_ITEMS))
    size = cluster_sizes()[0]
    for a, b in ((0, 1), (N_HUMANS, 2)):
        bitset = agreement_counts(labels, lanes, a, b)[:, 0]
        items = agreement_counts(items_labels, items_lanes, a, b)[:, 0]
        table = np.stack([np.bincount(x, minlength=size + 1) for x in (bitset, items)])
        table = table[:, table.sum(axis=0) >= 10]
        assert stats.chi2_contingency(table).pvalue > CHI_SQUARE_LEVEL
        # the shared difficulty: the counts spread wider than a binomial's
        mean = bitset.mean() / size
        assert bitset.var() > 1.5 * size * mean * (1 - mean)


@pytest.mark.parametrize("kind", ["point", "alt_test", "interval"])
def test_clustered_simulation_decides_what_it_draws(kind):
    confusion, model = clustered_model(3, False)
    config = Rule(kind=kind, coefficient="cohen_kappa", min_items_per_human=5)
    clusters = (confusion, N_CLUSTERS, SPREAD)
    trial_keys = keys(150)
    arguments = (N_ITEMS, N_HUMANS, model, EXACT_M, 0.0, 20)
    outputs = TrialOutputs(
        *simulate_bitset(trial_keys, *arguments, rule_parameters(config), clusters)
    )
    planes, masks, _ = draw_bitsets(trial_keys, *arguments, clusters)
    labels, mask = from_bitsets(planes, masks, N_ITEMS)
    if kind == "point":
        assert_equals_oracle(outputs, labels, mask, 3, config)
    elif kind == "alt_test":
        wins, tested, _ = alt_test_oracle(labels, mask, N_HUMANS, config)
        np.testing.assert_array_equal(outputs.favour, wins)
        np.testing.assert_array_equal(outputs.tested, tested)
    else:
        z = stats.norm.ppf(0.5 + config.confidence / 2)
        clears, fails, _, _ = interval_oracle(labels, mask, N_HUMANS, config.epsilon, z)
        np.testing.assert_array_equal(outputs.favour, clears)
        np.testing.assert_array_equal(outputs.against, fails)


def test_clusters_and_rules_agree_with_the_items_engine():
    """Clusters (two spreads), the three rules and two designs: every rate within 4 SEs."""
    raw = {
        "model": {"n_items": 100, "n_humans": 4, "p_human": 0.85, "n_clusters": 10},
        "design": {"kind": "bernoulli", "rho": 0.3},
        "rule": {"kind": "point", "epsilon": 0.05, "min_items_per_human": 10},
        "trials": GRID_TRIALS,
        "seed": 7,
        "sweep": {
            "cluster_spread": [0.0, 0.3],
            "rule": ["point", "alt_test", "interval"],
            "design": ["bernoulli", "exact_m"],
            "p_judge": [0.75, 0.9],
        },
    }
    checked, cubes = compare_engines(raw)
    assert checked > 100
    assert int(cubes["bitset"]["n_wrong"].sum()) > 300  # the comparison has power


def test_auto_takes_the_bitset_engine_for_the_rules_and_clusters():
    base = {
        "model": {"n_items": 60, "n_clusters": 4, "cluster_spread": 0.2},
        "design": {"kind": "bernoulli", "rho": 0.2},
        "rule": {"kind": "interval"},
    }
    for rule in ("interval", "alt_test", "point"):
        raw = {**base, "rule": {"kind": rule}}
        assert next(scenario_from_dict(raw).cells()).kernel_engine == "bitset", rule
    point = {"design": base["design"]}  # the point rule on independent items
    assert next(scenario_from_dict(point).cells()).kernel_engine == "bitset"
    numeric = {**base, "rule": {"kind": "alt_test", "scale": "numeric"}}
    assert next(scenario_from_dict(numeric).cells()).kernel_engine != "bitset"


def test_engine_bitset_is_refused_where_it_cannot_run():
    base = {"model": {"n_items": 50}, "design": {"kind": "bernoulli", "rho": 0.2}}
    base["engine"] = "bitset"
    for change in (
        {"rule": {"kind": "alt_test", "scale": "numeric"}},
        {"design": {"kind": "strat", "m": 10}},
        {"model": {"n_items": 40000, "n_clusters": 20000, "cluster_spread": 0.1}},
    ):
        with pytest.raises(ScenarioError) as error:
            scenario_from_dict({**base, **change})
        assert any(": engine:" in problem for problem in error.value.problems), change
    for change in (
        {"rule": {"kind": "interval"}},
        {"model": {"n_clusters": 5, "cluster_spread": 0.1}},
    ):
        scenario_from_dict({**base, **change})  # runs now
