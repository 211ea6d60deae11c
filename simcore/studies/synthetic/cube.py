"""The synthetic cube: its variables, coordinates and attributes, and the rates derived.

One dimension per swept parameter (named as in the scenario's ``sweep``, values as
coordinates); integer counts per cell (per judge where there are several judges), float
sums of quantised per-trial values, a histogram of omega, per-secondary coverage and
per-human skips; rates derived from the counts with their binomial standard errors, and
means and spreads from the sums.
"""

import numpy as np
import xarray as xr

from simcore.engine.bitset.trials import BITSET_STREAMS
from simcore.studies.protocol import Layout, Variable
from simcore.studies.synthetic.cell import COUNT_NAMES, JUDGE_COUNT_NAMES, SUM_NAMES

ENGINE_STREAMS = f"items 1, counts 1, bitset {BITSET_STREAMS}"
"""The version of each engine's random streams, recorded in every synthetic cube."""

STORED_ATTRS = {
    "n_trials": ("trials run", "count"),
    "n_trials_counts_engine": (
        "trials drawn by the counts engine (category counts)",
        "count",
    ),
    "n_trials_bitset_engine": (
        "trials drawn by the bitset engine (labels and masks as bitsets); the rest not drawn "
        "by the counts engine were drawn by the items engine",
        "count",
    ),
    "n_ref_accept": ("trials whose reference decision accepts the judge", "count"),
    "n_ref_reject": ("trials whose reference decision rejects the judge", "count"),
    "n_wrong": (
        "trials whose sparse decision differs from the reference (accept vs reject; "
        "inconclusive excluded)",
        "count",
    ),
    "n_false_reject": ("trials with reference accept and sparse reject", "count"),
    "n_false_accept": ("trials with reference reject and sparse accept", "count"),
    "n_inconclusive": ("trials whose sparse decision is inconclusive", "count"),
    "n_accept": ("trials whose sparse decision accepts the judge", "count"),
    "n_tested": (
        "comparisons made, summed over trials (alt_test: humans tested; point rule: those "
        "with at least rule.min_pairs pairs)",
        "count",
    ),
    "n_untestable": (
        "trials in which alt_test could test no human (point rule: no comparison had "
        "rule.min_pairs pairs)",
        "count",
    ),
    "n_undecided_comparisons": (
        "interval verdict: comparisons neither clearing nor failing "
        "the bar with confidence, summed over trials",
        "count",
    ),
    "n_top1_wrong": ("trials whose best judge differs from the dense matrix's best", "count"),
    "n_top1_wrong_population": ("trials whose best judge is not the truly best", "count"),
    "n_rank_discordant": (
        "judge pairs ordered differently from the dense ranking, summed over trials",
        "count",
    ),
    "n_rank_discordant_population": (
        "judge pairs ordered differently from the true ranking, summed over trials",
        "count",
    ),
    "sum_extra_items": (
        "interval verdict: items per undecided comparison that the recipe "
        "says would settle it (capped at 1e6), summed",
        "items",
    ),
    "n_skipped": ("trials in which alt_test skipped this human (too few items)", "count"),
    "n_empty_comparisons": (
        "leave-one-out comparisons with no eligible pair (each passes), summed over trials",
        "count",
    ),
    "n_degenerate_scores": (
        "sparse comparison scores whose coefficient had a zero "
        "denominator (scored 0), summed over trials",
        "count",
    ),
    "n_shared_panel": ("trials in which every secondary labelled the same items", "count"),
    "n_agreement_defined": (
        "trials whose human-pool agreement is defined on both the sparse and the dense matrix",
        "count",
    ),
    "n_agreement_reliable": (
        "trials whose sparse human-pool agreement is within 0.05 of the dense one",
        "count",
    ),
    "sum_pairwise_overlap": (
        "sum over trials of the mean number of items shared by two secondaries",
        "items",
    ),
    "sum_agreement_estimate": ("sum of the sparse human-pool agreement over defined trials", "1"),
    "sum_agreement_estimate_sq": ("sum of its squares", "1"),
    "sum_agreement_reference": ("sum of the dense human-pool agreement over defined trials", "1"),
    "sum_agreement_error": ("sum of sparse minus dense human-pool agreement", "1"),
    "sum_agreement_error_sq": ("sum of its squares", "1"),
    "omega_hist": (
        "trials by number of comparisons the judge passes (omega * comparisons made)",
        "count",
    ),
    "sum_coverage": ("sum over trials of each secondary's share of the items", "1"),
}
"""long_name and units of every stored count and sum."""

RATE_ATTRS = {
    "wrong_decision_rate": ("n_wrong", "n_trials", "wrong-decision rate"),
    "false_rejection_rate": (
        "n_false_reject",
        "n_ref_accept",
        "false-rejection rate among reference accepts",
    ),
    "false_approval_rate": (
        "n_false_accept",
        "n_ref_reject",
        "false-approval rate among reference rejects",
    ),
    "shared_panel_rate": (
        "n_shared_panel",
        "n_trials",
        "share of trials whose secondaries labelled the same items",
    ),
    "accept_rate": ("n_accept", "n_trials", "share of trials whose sparse decision accepts"),
    "inconclusive_rate": ("n_inconclusive", "n_trials", "share of inconclusive decisions"),
    "untestable_rate": (
        "n_untestable",
        "n_trials",
        "share of trials in which alt_test tested no human (point rule: no comparison made)",
    ),
    "top1_error": (
        "n_top1_wrong",
        "n_trials",
        "share of trials whose best judge differs from the dense matrix's",
    ),
    "top1_error_population": (
        "n_top1_wrong_population",
        "n_trials",
        "share of trials whose best judge is not the truly best",
    ),
    "agreement_reliability": (
        "n_agreement_reliable",
        "n_trials",
        "share of trials whose sparse human-pool agreement is within "
        "0.05 of the dense one (undefined estimates count as "
        "unreliable)",
    ),
}
"""Each binomial rate: ``(numerator count, denominator count, long name)``."""

DERIVED_ATTRS = {
    "mean_coverage": ("mean share of the items each secondary labels", "1"),
    "mean_pairwise_overlap": ("mean number of items two secondaries both label", "items"),
    "agreement_mean": ("mean sparse human-pool agreement", "1"),
    "agreement_reference_mean": ("mean dense human-pool agreement", "1"),
    "agreement_bias": ("mean of sparse minus dense human-pool agreement", "1"),
    "agreement_sd": ("standard deviation of the sparse human-pool agreement", "1"),
    "agreement_variance": ("variance of the sparse human-pool agreement", "1"),
    "effective_k": ("mean number of comparisons made (alt_test: humans tested)", "count"),
    "skipped_rate": ("share of trials in which alt_test skipped each human", "1"),
    "undecided_per_trial": ("interval verdict: undecided comparisons per trial", "count"),
    "mean_extra_items": (
        "interval verdict: mean items the recipe says would settle an undecided comparison",
        "items",
    ),
    "rank_error": ("share of judge pairs ordered differently from the dense ranking", "1"),
    "rank_error_population": (
        "share of judge pairs ordered differently from the true ranking",
        "1",
    ),
    "agreement_error_sd": ("standard deviation of sparse minus dense human-pool agreement", "1"),
}
"""Means and spreads derived from the sums (NaN where nothing was defined)."""

PLOT_VARIABLES = (*RATE_ATTRS, *DERIVED_ATTRS)
"""Variables ``simcore plot`` can draw."""

SWEEP_ATTRS = {
    "p_judge": ("judge accuracy", "1"),
    "p_human": ("human accuracy", "1"),
    "n_items": ("items in the corpus", "count"),
    "n_humans": ("humans K", "count"),
    "n_labels": ("label categories L", "count"),
    "design": ("overlap design", ""),
    "rho": ("per-secondary coverage", "1"),
    "m": ("items per secondary", "count"),
    "margin": ("signed population margin S_j - S_h + eps (sets p_judge)", "1"),
    "skew": ("prevalence of label 0 (the others share the rest evenly)", "1"),
    "n_clusters": ("item clusters", "count"),
    "cluster_spread": ("half-width of the clusters' accuracy shift", "1"),
    "coefficient": ("agreement coefficient", ""),
    "adjacent": ("share of each error on a neighbouring label", ""),
    "level": ("krippendorff_alpha's level of measurement", ""),
    "weights": ("agreement weights of observed, cohen_kappa and gwet_ac1 (AC2)", ""),
    "epsilon": ("tolerance eps", "1"),
    "tau": ("acceptance threshold on omega", "1"),
    "strict": ("accept only when omega > tau", "1"),
    "min_pairs": ("point rule: fewest pairs for a comparison to count (rule.min_pairs)", "count"),
    "rule": ("decision rule", ""),
    "min_items_per_human": ("alt_test: fewest items for a human to be tested", "count"),
    "reference": ("reference decision", ""),
    "engine": ("how trials are drawn (items, counts, bitset, or auto)", ""),
}


def judge_count(scenario):
    """Return the number of judges of ``scenario`` (a list in model.p_judge, else 1)."""
    p_judge = scenario.model.p_judge
    return len(p_judge) if isinstance(p_judge, tuple) else 1


def _max_humans(scenario):
    return max(humans for _, humans, _ in scenario.model_sizes())


def _judge_accuracy_coordinate(scenario):
    """Return the judge accuracy each margin sets, as a coordinate.

    It lies along ``margin`` alone when the other swept dims do not change it (the usual
    case), else along every swept dim.
    """
    accuracy = np.empty(scenario.shape)
    for cell in scenario.cells():
        accuracy[cell.index] = cell.model.p_judge
    axis = scenario.dims.index("margin")
    along = np.moveaxis(accuracy, axis, 0).reshape(scenario.shape[axis], -1)
    attrs = {"long_name": "judge accuracy set by the margin", "units": "1"}
    if (along == along[:, :1]).all():
        return xr.Variable("margin", along[:, 0], attrs)
    return xr.Variable(scenario.dims, accuracy, attrs)


def _axis(name, values, long_name, units):
    return xr.Variable(name, np.asarray(values), {"long_name": long_name, "units": units})


def layout(scenario):
    """Return the synthetic cube's :class:`~simcore.studies.protocol.Layout`.

    Per-judge counts get a ``judge`` dim only with several judges. The per-omega,
    per-secondary and per-human arrays are sized for the largest K of the sweep; cells with
    fewer humans fill only their first entries (the rest stay 0, or NaN for floats).
    """
    max_humans = _max_humans(scenario)
    n_judges = judge_count(scenario)
    coords = {
        "omega": _axis(
            "omega",
            np.arange(max_humans + 1),
            "comparisons passed (omega = value / comparisons made, n_humans unless "
            "rule.min_pairs leaves some out)",
            "count",
        ),
        "secondary": _axis(
            "secondary", np.arange(1, max_humans), "secondary human (1 .. K - 1)", "1"
        ),
        "human": _axis("human", np.arange(max_humans), "human (0 is the primary)", "1"),
    }
    if "margin" in scenario.dims:
        coords["p_judge"] = _judge_accuracy_coordinate(scenario)
    judge_dims, judge_shape = (), ()
    if n_judges > 1:
        judge_dims, judge_shape = ("judge",), (n_judges,)
        coords["judge"] = _axis(
            "judge", np.arange(n_judges), "judge (in the order of model.p_judge)", "1"
        )
        coords["judge_accuracy"] = _axis(
            "judge", list(scenario.model.p_judge), "judge accuracy", "1"
        )

    def variable(name, integer, extra_dims=(), shape=()):
        long_name, units = STORED_ATTRS[name]
        return Variable(name, long_name, units, integer, extra_dims, shape)

    variables = [
        variable(name, True, *((judge_dims, judge_shape) if name in JUDGE_COUNT_NAMES else ()))
        for name in COUNT_NAMES
    ]
    variables += [variable(name, False) for name in SUM_NAMES]
    variables += [
        variable("omega_hist", True, (*judge_dims, "omega"), (*judge_shape, max_humans + 1)),
        variable("sum_coverage", False, ("secondary",), (max_humans - 1,)),
        variable("n_skipped", True, ("human",), (max_humans,)),
    ]
    sweep = tuple((name, tuple(values), *SWEEP_ATTRS[name]) for name, values in scenario.sweep)
    attrs = {
        "reference": scenario.reference,
        "engine": scenario.engine,
        "engine_streams": ENGINE_STREAMS,
    }
    return Layout(sweep=sweep, variables=tuple(variables), coords=coords, attrs=attrs)


def cell_counts(counts, n_judges):
    """Shape one cell's counts as the layout stores them (no judge axis for one judge)."""
    if n_judges > 1:
        return counts
    shaped = dict(counts)
    for name in (*JUDGE_COUNT_NAMES, "omega_hist"):
        shaped[name] = np.asarray(counts[name])[0]
    return shaped


def _ratio(numerator, denominator):
    denominator = denominator.astype(np.float64)
    return numerator / denominator.where(denominator > 0)


def agreement_statistics(cube):
    """Mean, bias and spreads of the human-pool agreement estimate, from a cube's sums.

    Over the ``n = n_agreement_defined`` trials with a defined estimate: mean ``S / n``;
    sample variance ``(S2 - S^2 / n) / (n - 1)``; bias the mean error; SDs the square
    roots; NaN where ``n`` is 0 (or below 2 for spreads). Used by synthetic and real-data
    cubes alike.
    """
    defined = cube["n_agreement_defined"]

    def variance(total, squares):
        spread = cube[squares] - cube[total] ** 2 / defined.where(defined > 0)
        return (spread / (defined - 1).where(defined > 1)).clip(min=0)

    estimate_variance = variance("sum_agreement_estimate", "sum_agreement_estimate_sq")
    return {
        "agreement_mean": _ratio(cube["sum_agreement_estimate"], defined),
        "agreement_bias": _ratio(cube["sum_agreement_error"], defined),
        "agreement_variance": estimate_variance,
        "agreement_sd": np.sqrt(estimate_variance),
        "agreement_error_sd": np.sqrt(variance("sum_agreement_error", "sum_agreement_error_sq")),
    }


def with_rates(cube):
    """Return ``cube`` with every rate and derived statistic.

    Binomial rates (:data:`RATE_ATTRS`): ``rate = count / denominator`` and
    ``rate_se = sqrt(rate (1 - rate) / denominator)``. Agreement statistics over the ``n``
    trials with a defined estimate: mean ``S / n``; sample variance
    ``(S2 - S^2 / n) / (n - 1)``; bias the mean error; SDs the square roots. Everything is
    NaN where its denominator is 0 (or ``n < 2`` for spreads), which the attributes say.
    The new variables join the cube in one assignment (each ``cube[name] = ...`` aligned
    the whole cube again: 85% of a one-cell ``simcore.run``).
    """
    new = {}
    for name, (numerator, denominator, long_name) in RATE_ATTRS.items():
        rate = _ratio(cube[numerator], cube[denominator])
        se = np.sqrt(rate * (1 - rate) / cube[denominator].where(cube[denominator] > 0))
        note = f"{numerator} / {denominator}; NaN where {denominator} is 0"
        new[name] = rate.assign_attrs(long_name=long_name, units="1", description=note)
        new[f"{name}_se"] = se.assign_attrs(
            long_name=f"binomial standard error of the {long_name}",
            units="1",
            description=f"sqrt(rate (1 - rate) / {denominator}); NaN where {denominator} is 0",
        )
    trials = cube["n_trials"]
    derived = {
        "mean_coverage": _ratio(cube["sum_coverage"], trials),
        "mean_pairwise_overlap": _ratio(cube["sum_pairwise_overlap"], trials),
        "agreement_reference_mean": _ratio(
            cube["sum_agreement_reference"], cube["n_agreement_defined"]
        ),
        **agreement_statistics(cube),
    }
    undecided = cube["n_undecided_comparisons"]
    n_judges = cube.sizes.get("judge", 1)
    pairs = trials * (n_judges * (n_judges - 1) // 2)
    derived.update(
        {
            "effective_k": _ratio(cube["n_tested"], trials),
            "skipped_rate": _ratio(cube["n_skipped"], trials),
            "undecided_per_trial": _ratio(undecided, trials),
            "mean_extra_items": _ratio(cube["sum_extra_items"], undecided),
            "rank_error": _ratio(cube["n_rank_discordant"], pairs),
            "rank_error_population": _ratio(cube["n_rank_discordant_population"], pairs),
        }
    )
    for name, (long_name, units) in DERIVED_ATTRS.items():
        new[name] = derived[name].assign_attrs(
            long_name=long_name,
            units=units,
            description="NaN where no trial (or, for spreads, fewer than two) defines it",
        )
    return cube.assign(new)


RANKING_NAMES = (
    "top1_error",
    "top1_error_se",
    "top1_error_population",
    "top1_error_population_se",
    "rank_error",
    "rank_error_population",
)
"""Rates that rank several judges: left out of a cube with one judge."""
ALT_TEST_NAMES = ("untestable_rate", "untestable_rate_se", "skipped_rate")
"""Rates of the original alternative annotator test: left out when no cell runs it."""
INTERVAL_NAMES = ("undecided_per_trial", "mean_extra_items")
"""Statistics of the interval verdict: left out when no cell runs it."""


def meaningless_variables(scenario, cube):
    """Names of the derived rates no cell of ``scenario`` gives a meaning (0 or NaN).

    The stored counts stay (an untestable count of 0 under the point rule is a fact and
    keeps every cube's count variables alike); only rates that would read as findings go.
    """
    kinds = {scenario.rule.kind, *dict(scenario.sweep).get("rule", ())}
    names = []
    if "judge" not in cube.dims:
        names += RANKING_NAMES
    min_pairs = {scenario.rule.min_pairs, *dict(scenario.sweep).get("min_pairs", ())}
    if "alt_test" not in kinds:
        # untestable under the point rule: every comparison left out by rule.min_pairs
        names += ALT_TEST_NAMES if min_pairs == {0} else ALT_TEST_NAMES[2:]
    if "interval" not in kinds:
        names += INTERVAL_NAMES
    return [name for name in names if name in cube]


def derive(scenario, cube):
    """Return ``cube`` with rates, derived statistics and, for planning scenarios, the plan.

    Rates that no cell's rule and judges give a meaning are left out
    (:func:`meaningless_variables`): ranking errors with one judge, the original test's
    skip rates with other rules, the interval verdict's undecided comparisons with other
    rules; the counts behind them stay.
    """
    cube = with_rates(cube)
    cube = cube.drop_vars(meaningless_variables(scenario, cube))
    used = {dim for variable in cube.data_vars.values() for dim in variable.dims}
    cube = cube.drop_vars([name for name, c in cube.coords.items() if not set(c.dims) <= used])
    if "judge" in cube.dims:
        from simcore.studies.planning_table import ranking_recipe

        m_rank, gap, sigma2 = ranking_recipe(next(iter(scenario.cells())))
        cube.attrs.update(
            {
                "ranking_recipe_items": m_rank,
                "ranking_recipe_gap": gap,
                "ranking_recipe_variance": sigma2,
                "ranking_recipe": "m_rank = ceil(2 z_{1-alpha/(J-1)}^2 sigma0^2 / gap^2), alpha "
                "0.05, for the first cell's judges; assumes equal variances and "
                "no covariance between the judges' scores",
            }
        )
    if scenario.planning is not None:
        from simcore.studies.planning_table import add_plan

        cube = add_plan(cube, scenario)
    return cube
