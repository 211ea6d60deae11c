"""Planning (P App. Eq. 7, Theorem 2): how many co-labelled items a validation needs.

Two answers side by side:

- the simulated plan: for a signed margin, the smallest grid ``m`` after which the
  wrong-decision rate stays at or below the target at that ``m`` and every larger grid
  ``m`` (:func:`min_items_staying_below`), or an adaptive search (:func:`search_items`);
- the Gaussian certification recipe ``m_cert = ceil(z^2 sigma0^2 / (mu_d + eps)^2)`` with
  ``z = z_{1 - alpha/2}`` and ``sigma0^2`` the per-item variance of
  ``[judge == r1] - [r_k == r1]`` (:func:`recipe_variance`). It bounds one comparison's
  false rejection and says nothing about false approval; for negative margins it is
  reported as an extension.

and the ranking recipe ``m_rank = ceil(2 z_{1 - alpha/(J-1)}^2 sigma0^2 / Delta_min^2)``,
which assumes equal variances and no covariance between the judges' scores.

This is the synthetic study's planning table (:mod:`simcore.studies.synthetic.study` and its
cube, report and figures use it); ``simcore plan`` asks it one team's question
(:mod:`simcore.planning.validation_items`).
"""

import math

import numpy as np
import yaml

from simcore.calibration.statistics import wilson_interval
from simcore.engine.layout import UNWEIGHTED
from simcore.model.generative import pair_tables, prevalence_vector
from simcore.model.recipes import (  # noqa: F401  (re-exported for the planning table)
    certification_items,
    coefficient_recipe,
    judge_accuracy_for_margin,
    ranking_items,
    recipe_variance,
    symmetric_recipe_variance,
    z_two_sided,
)
from simcore.output_files import write_together
from simcore.studies.synthetic.cell import synthetic_weighting


def min_items_staying_below(m_values, rates, target):
    """Return the smallest grid ``m`` from which ``rates`` stay at or below ``target``.

    Parameters
    ----------
    m_values : array_like
        Increasing grid of items per secondary.
    rates : array_like
        Wrong-decision rate at each grid value (NaN counts as above the target).
    target : float
        Largest acceptable rate.

    Returns
    -------
    tuple
        ``(m, reason)``: ``m`` is the first grid value from which every rate is
        ``<= target``; ``(-1, reason)`` when even the largest grid value is above it.
    """
    m_values = np.asarray(m_values)
    rates = np.asarray(rates, dtype=float)
    if np.any(np.diff(m_values) <= 0):
        raise ValueError("m_values must increase")
    above = ~(rates <= target)
    if above[-1]:
        return -1, (
            f"the rate is above {target:g} at the largest grid value "
            f"m = {m_values[-1]} (rate {rates[-1]:.3g})"
        )
    last_above = np.flatnonzero(above)
    first = 0 if last_above.size == 0 else last_above[-1] + 1
    return int(m_values[first]), ""


def wilson_bounds(successes, trials, confidence):
    """Return the Wilson score interval of ``successes / trials`` at two-sided ``confidence``.

    :func:`simcore.calibration.statistics.wilson_interval`, under the name the planning code uses.
    """
    return wilson_interval(successes, trials, confidence)


class RateProbe:
    """Wrong-decision counts at each probed ``m``, extended in trial blocks as needed.

    ``simulate(m, start, stop)`` returns the wrong decisions among trials ``start .. stop-1``
    at ``m``; trials extend rather than replace (the engine's streams guarantee it), so a
    probe can be refined without discarding what it has.
    """

    def __init__(self, simulate, target, confidence, first_trials=400, max_trials=25_600):
        self.simulate = simulate
        self.target = target
        self.confidence = confidence
        self.first_trials = first_trials
        self.max_trials = max_trials
        self.counts = {}

    def bounds(self, m):
        """Probe ``m`` until its interval excludes the target or trials run out.

        Returns ``(wrong, trials, lower, upper)``.
        """
        wrong, trials = self.counts.get(m, (0, 0))
        while True:
            if trials:
                lower, upper = wilson_bounds(wrong, trials, self.confidence)
                if upper <= self.target or lower > self.target or trials >= self.max_trials:
                    return wrong, trials, float(lower), float(upper)
            more = self.first_trials if trials == 0 else trials
            wrong += self.simulate(m, trials, trials + more)
            trials += more
            self.counts[m] = (wrong, trials)


def _bisect(low, high, below):
    """Smallest integer in ``(low, high]`` with ``below(m)`` true, assuming monotonicity.

    ``below(high)`` is taken as true; returns ``high`` if nothing smaller qualifies.
    """
    while high - low > 1:
        middle = (low + high) // 2
        if below(middle):
            high = middle
        else:
            low = middle
    return high


def search_items(probe, m_max, recheck=(1.1, 1.25, 1.5, 2.0)):
    """Adaptive search for the items per secondary that bring the rate under the target.

    Bisects on integers assuming the wrong-decision rate falls with ``m``, then checks that
    the rate stays under the target at a few larger ``m`` (``recheck`` factors): a larger
    ``m`` found above the target restarts the bisection above it, so a dip in a
    non-monotone curve is not taken for the answer. This runs three times over the same
    probes: with the upper confidence bound (the conservative answer), the point estimate,
    and the lower bound (the optimistic answer). A probe whose interval still straddles the
    target after ``probe.max_trials`` counts as at the target.

    Returns
    -------
    dict
        ``m`` (point), ``m_conservative``, ``m_optimistic``: each -1 when ``m_max`` is not
        enough; ``probes``: ``{m: (wrong, trials)}``.
    """
    results = {}
    for name, column in (("m_conservative", 3), ("m", None), ("m_optimistic", 2)):

        def below(m, column=column):
            wrong, trials, lower, upper = probe.bounds(m)
            value = wrong / trials if column is None else (lower, upper)[column - 2]
            return value <= probe.target

        if not below(m_max):
            results[name] = -1
            continue
        low = 0
        while True:
            found = _bisect(low, m_max, below)
            larger = sorted({min(m_max, math.ceil(found * f)) for f in recheck} - {found})
            failing = [m for m in larger if not below(m)]
            if not failing:
                break
            low = failing[-1]
        results[name] = found
    results["probes"] = dict(sorted(probe.counts.items()))
    return results


# --------------------------------------------------------------------------- the table


def recipe_for_cell(cell, alpha=0.05):
    """Return ``(margin, sigma0^2, m_cert)`` of a cell under its model (judge, human 1, 0).

    Observed agreement reads :func:`recipe_variance`; any other coefficient, and a weighted
    one, the delta method (:func:`simcore.model.recipes.coefficient_recipe`).
    """
    model = cell.model
    prevalence = prevalence_vector(model.prevalence, model.n_labels)
    confusions = cell.confusions()
    weighting = synthetic_weighting(cell)
    if cell.rule.coefficient == "observed" and weighting[0] == UNWEIGHTED:
        sigma2 = recipe_variance(confusions, prevalence, judge=model.n_humans, held_out=1, pool=0)
        pairs = pair_tables(confusions, prevalence)
        difference = float(np.trace(pairs[model.n_humans, 0])) - float(np.trace(pairs[1, 0]))
    else:  # the delta method on the coefficient's pair tables
        difference, sigma2 = coefficient_recipe(
            confusions, prevalence, cell.rule.coefficient, weighting, model.n_humans, 1, 0
        )
    margin = difference + cell.rule.epsilon
    return margin, sigma2, certification_items(margin, sigma2, alpha)


def _plan_columns(cube, scenario, judge_dim):
    """Per value of ``judge_dim``: the simulated plan, its reason for -1, and the recipe."""
    plan = scenario.planning
    m_values = cube["m"].values
    order = np.argsort(m_values)
    min_items, reasons = [], {}
    recipe, variance, margins = [], [], []
    cells = {cell.index: cell for cell in scenario.cells()}
    axis = scenario.dims.index(judge_dim)
    for position, value in enumerate(cube[judge_dim].values):
        rates = cube["wrong_decision_rate"].sel({judge_dim: value}).values
        m, reason = min_items_staying_below(m_values[order], rates[order], plan.target)
        min_items.append(m)
        if reason:
            reasons[f"{judge_dim}={value:g}"] = reason
        index = (position, 0) if axis == 0 else (0, position)
        margin, sigma2, m_cert = recipe_for_cell(cells[index], plan.alpha)
        margins.append(margin)
        variance.append(sigma2)
        recipe.append(m_cert)
    return min_items, reasons, recipe, variance, margins


def add_plan(cube, scenario):
    """Add the planning table of a (margin or p_judge) x m cube as variables.

    ``min_items`` (the simulated plan: smallest grid m after which the wrong-decision rate
    stays at or below the target, -1 if never), ``recipe_items`` (m_cert),
    ``recipe_variance`` (sigma0^2), ``population_margin`` and ``recipe_ratio``
    (min_items / recipe_items, NaN where either is missing); reasons for -1 go in the
    attributes of ``min_items``.
    """
    plan = scenario.planning
    judge_dim = next(d for d in scenario.dims if d != "m")
    min_items, reasons, recipe, variance, margins = _plan_columns(cube, scenario, judge_dim)
    cube = cube.copy()
    note = (
        f"smallest grid m from which the wrong-decision rate stays <= {plan.target:g}; "
        "-1 when even the largest grid m is above it"
    )
    cube["min_items"] = (judge_dim, np.array(min_items, np.int64))
    cube["min_items"].attrs.update(
        long_name="simulated items per secondary",
        units="count",
        description=note,
        target=plan.target,
        never_reached="; ".join(f"{k}: {v}" for k, v in reasons.items()) or "none",
    )
    cube["recipe_items"] = (judge_dim, np.array(recipe, np.int64))
    cube["recipe_items"].attrs.update(
        long_name="Gaussian certification recipe m_cert",
        units="count",
        alpha=plan.alpha,
        description="ceil(z^2 sigma0^2 / margin^2), z = z_{1-alpha/2}; bounds one "
        "comparison's false rejection; for negative margins an extension",
    )
    cube["recipe_variance"] = (judge_dim, np.array(variance))
    cube["recipe_variance"].attrs.update(
        long_name="per-item variance sigma0^2 of [judge == r1] - [r_k == r1]", units="1"
    )
    cube["population_margin"] = (judge_dim, np.array(margins))
    cube["population_margin"].attrs.update(long_name="population margin S_j - S_h + eps", units="1")
    ratio = np.where(
        (cube["min_items"] > 0) & (cube["recipe_items"] > 0),
        cube["min_items"] / cube["recipe_items"].where(cube["recipe_items"] > 0),
        np.nan,
    )
    cube["recipe_ratio"] = (judge_dim, ratio)
    cube["recipe_ratio"].attrs.update(
        long_name="simulated over recipe items",
        units="1",
        description="NaN where either is missing",
    )
    return cube


def plan_rows(cube):
    """Rows of the planning table: one per margin (or p_judge), as dicts of text."""
    judge_dim = cube["min_items"].dims[0]
    largest = int(cube["m"].max())
    scenario = yaml.safe_load(cube.attrs.get("scenario", "") or "{}") or {}
    corpus = int((scenario.get("model") or {}).get("n_items", 0)) or None
    rows = []
    for position in range(cube.sizes[judge_dim]):
        cell = cube.isel({judge_dim: position})
        margin = float(cell["population_margin"])
        m = int(cell["min_items"])
        recipe = int(cell["recipe_items"])
        ratio = float(cell["recipe_ratio"])
        rows.append(
            {
                "margin": f"{margin:+.3f}",
                "p_judge": f"{float(cell['p_judge']):.4f}",
                "side": "false rejection" if margin >= 0 else "false approval",
                "simulated_m": str(m) if m > 0 else f"> {largest}",
                "recipe_m": _recipe_text(recipe, corpus),
                "ratio": f"{ratio:.2f}" if np.isfinite(ratio) else "-",
            }
        )
    return rows


def _recipe_text(recipe, corpus):
    """Return the recipe's m as printed: ``> n (recipe R)`` when it exceeds the corpus's n."""
    if recipe <= 0:
        return "-"
    if corpus is not None and recipe > corpus:
        return f"> {corpus} (recipe {recipe})"
    return str(recipe)


def write_plan_table(cube, markdown=None, csv=None):
    """Write the planning table as Markdown and/or CSV; return the Markdown text.

    Both files are written together and atomically
    (:func:`simcore.output_files.write_together`): a failed write replaces neither.
    """
    rows = plan_rows(cube)
    attrs = cube["min_items"].attrs
    header = ["margin", "p_judge", "side", "simulated_m", "recipe_m", "ratio"]
    lines = [
        f"# Planning table: items per secondary for a wrong-decision rate <= {attrs['target']:g}",
        "",
        f"Scenario {cube.attrs.get('title', '')}, {int(cube['n_trials'].max())} trials per "
        f"cell, reference {cube.attrs.get('reference', '')}. `simulated_m`: the smallest grid m "
        f"from which the simulated wrong-decision rate stays at or below the target "
        f"(`> max` when never reached). `recipe_m`: the Gaussian certification recipe at "
        f"alpha = {cube['recipe_items'].attrs['alpha']:g} (`> n (recipe R)` where it exceeds "
        f"the corpus's n items), which bounds one comparison's false "
        f"rejection (for negative margins an extension: the items for the comparison to fail "
        f"with confidence). `ratio`: simulated / recipe.",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
    ]
    lines += ["| " + " | ".join(row[key] for key in header) + " |" for row in rows]
    text = "\n".join(lines) + "\n"
    table = "".join(",".join(row[key] for key in header) + "\n" for row in rows)
    table = ",".join(header) + "\n" + table
    files = [(markdown, text), (csv, table)]
    write_together(  # both or neither, each atomically
        [(path, _text_writer(content), False) for path, content in files if path]
    )
    return text


def _text_writer(text):
    return lambda stream: stream.write(text)


def ranking_recipe(cell, alpha=0.05):
    """Return the ranking recipe of a cell with several judges: ``(m_rank, gap, sigma0^2)``.

    ``gap`` is the smallest difference between the judges' true (limit) scores, ``sigma0^2``
    the mean per-item variance ``A (1 - A)`` of a judge's agreement ``A`` with the primary.
    ``m_rank`` is -1 when two judges tie.
    """
    from simcore.studies.synthetic.cell import population_ranking

    model = cell.model
    pairs = pair_tables(cell.confusions(), prevalence_vector(model.prevalence, model.n_labels))
    agreement = np.array(
        [np.trace(pairs[judge, 0]) for judge in range(model.n_humans, pairs.shape[0])]
    )
    sigma2 = float(np.mean(agreement * (1 - agreement)))
    gap = float(np.min(np.diff(np.sort(population_ranking(cell)))))
    m_rank = ranking_items(len(agreement), gap, sigma2, alpha) if gap > 0 else -1
    return m_rank, gap, sigma2
