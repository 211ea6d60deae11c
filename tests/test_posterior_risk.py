"""advise's posterior-predictive risk, its adaptive length, and the mixture-pool recipe."""

import math

import numpy as np
import pytest

from simcore.advisor import channels
from simcore.advisor.models import bootstrap_refits
from simcore.advisor.risk.posterior import (
    RISK_SE_TARGET,
    Channels,
    adaptive_risk_now,
    monte_carlo_se,
    posterior_risk,
    recipe,
    simulate_risk,
)
from simcore.advisor.settings import AuditRule, Draws
from simcore.model.generative import symmetric_confusion
from simcore.model.recipes import certification_items


def thin_matrix(seed, n_items, accuracies, coverage):
    """Binary labels ``(n, R)`` of raters with the given accuracies, and what is observed.

    The primary (rater 0) and the judge (the last rater) label every item; the other humans
    a ``coverage`` share.
    """
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 2, n_items)
    correct = rng.random((n_items, len(accuracies))) < np.asarray(accuracies)
    labels = np.where(correct, truth[:, None], 1 - truth[:, None])
    observed = rng.random(labels.shape) < coverage
    observed[:, 0] = observed[:, -1] = True
    return labels, observed


def near_bar_channels():
    confusions = np.stack([symmetric_confusion(p, 2) for p in (0.85, 0.85, 0.85, 0.80)])
    available = np.ones((300, 3), dtype=bool)
    available[30:, 1:] = False
    return confusions, np.array([0.5, 0.5]), available


@pytest.mark.parametrize("per_model", [10, 100])
def test_one_replicate_equal_to_the_fit_gives_the_point_fit_risk_exactly(per_model):
    confusions, prevalence, available = near_bar_channels()
    point = simulate_risk(confusions, prevalence, available, 0, draws=Draws(trials=450, seed=3))
    model = Channels(confusions, prevalence)
    posterior = posterior_risk(
        [model], available, 0, draws=Draws(trials=450, seed=3, per_model=per_model)
    )
    assert posterior == point
    assert 0.05 < point[0] / point[1] < 0.95  # a risk that can differ at all


def test_draws_continue_where_an_earlier_call_stopped():
    confusions, prevalence, available = near_bar_channels()
    models = [
        Channels(np.stack([symmetric_confusion(p, 2) for p in (0.85, 0.85, 0.85, q)]), prevalence)
        for q in (0.78, 0.80, 0.82)
    ]
    whole = posterior_risk(models, available, 0, draws=Draws(trials=300, seed=5))
    first = posterior_risk(models, available, 0, draws=Draws(trials=100, seed=5))
    rest = posterior_risk(models, available, 0, draws=Draws(trials=200, seed=5, first=100))
    assert whole == (first[0] + rest[0], 300)


def test_the_posterior_risk_is_larger_where_the_bar_lies_inside_the_fits_uncertainty():
    # thin data (10% coverage, 300 items): the judge's fitted accuracy (about 0.67) sits
    # clearly under the bar under the point fit, so few point-fit matrices flip; its
    # bootstrap refits reach the bar, and the draws under them flip far more often
    labels, observed = thin_matrix(4, 300, [0.85, 0.85, 0.85, 0.75], 0.1)
    fit, _, bootstrap = bootstrap_refits(labels, observed, 2, 30, 0, n_humans=3)
    available = observed[:, :3]
    trials = 1500
    point = simulate_risk(
        fit.raters, fit.prevalence, available, 0, draws=Draws(trials=trials, seed=1)
    )
    posterior = posterior_risk(bootstrap.draw(60), available, 0, draws=Draws(trials=trials, seed=1))
    se = math.hypot(monte_carlo_se(*point), monte_carlo_se(*posterior))
    assert posterior[0] / trials > point[0] / trials + 3 * se, (point, posterior)


def test_the_risk_now_is_drawn_until_its_se_is_under_a_point():
    labels, observed = thin_matrix(7, 200, [0.85, 0.85, 0.85, 0.8], 0.15)
    _, _, bootstrap = bootstrap_refits(labels, observed, 2, 4, 0, n_humans=3)
    rule, draws = AuditRule(), Draws(trials=300, seed=2)
    wrong, trials, models = adaptive_risk_now(bootstrap, observed[:, :3], 0, rule, draws)
    cap = math.ceil(0.25 / RISK_SE_TARGET**2)  # 2,500 <= 10 x 300: the SE can always reach it
    assert monte_carlo_se(wrong, trials) <= RISK_SE_TARGET or trials >= cap
    assert 0.1 < wrong / trials < 0.9 and trials > 300  # such a risk needs more than 300
    assert len(models) == min(100, math.ceil(trials / 10)) > 4  # new refits were drawn
    assert bootstrap.refits[:4] == bootstrap.draw(4)  # the first refits did not change
    # the same draws, and risk, from one call over the final models
    again = posterior_risk(models, observed[:, :3], 0, rule, draws.but(trials=trials))
    assert again == (wrong, trials)
    # a small --trials bounds the effort: at most ten times it, even above the SE target
    wrong, trials, _ = adaptive_risk_now(bootstrap, observed[:, :3], 0, rule, Draws(20, seed=2))
    assert trials == 200 and monte_carlo_se(wrong, trials) > RISK_SE_TARGET


def test_the_recipe_weights_the_pool_by_its_co_labelled_pairs():
    accuracies = (0.9, 0.7, 0.8, 0.78)  # humans 0, 1, 2 and the judge
    raters = np.stack([symmetric_confusion(p, 2) for p in accuracies])
    prevalence = np.array([0.5, 0.5])
    available = np.zeros((100, 3), dtype=bool)
    available[:, 0] = True  # the primary labels everything
    available[:60, 1] = True
    available[:20, 2] = True  # 20 items where all three labelled
    margin, sigma2, m_cert, held_out = recipe(raters, prevalence, available, 0, 0.05)
    agreement = channels.pair_agreement(raters, prevalence)

    def variance(k, r):
        return channels.recipe_variance(raters, prevalence, 3, k, r)

    expected = {}
    # k = 0 pools humans 1 (60 pairs) and 2 (20 pairs); k = 1 pools 0 (60) and 2 (20);
    # k = 2 pools 0 (20) and 1 (20)
    for k, pool in ((0, {1: 60, 2: 20}), (1, {0: 60, 2: 20}), (2, {0: 20, 1: 20})):
        total = sum(pool.values())
        weights = {r: c / total for r, c in pool.items()}
        means = {r: agreement[3, r] - agreement[k, r] for r in pool}
        mean = sum(weights[r] * means[r] for r in pool)
        second = sum(weights[r] * (variance(k, r) + means[r] ** 2) for r in pool)
        expected[k] = (mean + 0.05, second - mean**2)
    binding = min(expected, key=lambda k: abs(expected[k][0]))
    assert held_out == binding
    assert margin == pytest.approx(expected[binding][0], abs=1e-12)
    assert sigma2 == pytest.approx(expected[binding][1], abs=1e-12)
    assert m_cert == certification_items(margin, sigma2)


def test_with_one_pool_rater_the_recipe_is_the_one_rater_formula():
    raters = np.stack([symmetric_confusion(p, 2) for p in (0.9, 0.8, 0.82)])
    prevalence = np.array([0.3, 0.7])
    available = np.ones((50, 2), dtype=bool)  # K = 2: each held-out human's pool is the other
    margin, sigma2, _, held_out = recipe(raters, prevalence, available, 0, 0.05)
    agreement = channels.pair_agreement(raters, prevalence)
    pool = 1 - held_out
    assert margin == pytest.approx(agreement[2, pool] - agreement[held_out, pool] + 0.05)
    assert sigma2 == pytest.approx(channels.recipe_variance(raters, prevalence, 2, held_out, pool))
    # no pairs at all: no comparison, no recipe
    lonely = np.zeros((50, 2), dtype=bool)
    lonely[:, 0] = True
    assert recipe(raters, prevalence, lonely, 0, 0.05)[2:] == (-1, -1)
