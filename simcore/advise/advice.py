"""``simcore advise``: audit a sparse validation matrix and plan its next annotation round.

Four steps, each a function here, joined by :func:`advise`:

1. **The verdict as it is** (:func:`comparison_intervals`, :func:`verdicts`): per judge,
   every leave-one-out comparison ``d_k`` with its item-cluster confidence interval and the
   pairs behind it, omega, the effective K (comparisons with at least two items), the point
   rule's decision and the interval verdict (SPEC §5).
2. **How much to trust it** (:func:`simulate_risk`): the synthetic model fitted to the matrix
   (:mod:`simcore.advise.fit`, Dawid-Skene) draws fresh matrices with the data's own overlap
   structure (which human labelled which item), and the rule is run on each one twice:
   on the sparse matrix and on the dense one (every human labels every item). The risk is
   the share of draws whose sparse verdict differs from the dense verdict, with its Monte
   Carlo standard error.
3. **What to label next** (:func:`risk_curve`): the same risk when each secondary labels
   ``extra`` more items chosen by a design (:func:`simcore.advise.next_round.extend_mask`), over a
   grid of ``extra``; the smallest grid value whose risk is under the target, beside the
   Gaussian certification recipe from the fitted model (SPEC §7); with a budget, the risk of
   spending it under each design.
4. **The allocation** (:func:`write_outputs`): ``next_round.csv`` (for each secondary, the
   items to label next), ``report.md`` and ``report.png``.
"""

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from simcore.advise.fit import agreement_diagnostics, fit_dawid_skene, fit_matrix, poor_fit
from simcore.advise.next_round import extend_mask
from simcore.calibration.statistics import wilson_interval
from simcore.engine import kernels
from simcore.engine.coefficients import coefficient_code
from simcore.model.designs import DESIGNS
from simcore.model.recipes import certification_items, recipe_variance
from simcore.model.rule import ACCEPT, INCONCLUSIVE, REJECT, decide, decide_counts

DECISIONS = {ACCEPT: "accept", REJECT: "reject", INCONCLUSIVE: "inconclusive"}
EXTRA_GRID = (0, 10, 25, 50, 100, 200, 400, 800, 1600, 3200)
"""Items per secondary at which the risk curve is simulated (capped by what is unlabelled)."""


# --------------------------------------------------------------------------- the verdict


def comparison_intervals(human_labels, judge_labels, epsilon, confidence=0.95):
    """Return every judge's leave-one-out comparisons with item-cluster intervals.

    For held-out human ``k`` and an item ``i`` it labelled, with ``c_i`` other humans on the
    item, ``D_i = sum_q [judge == q] - [k == q]`` over those humans;
    ``d_k = sum D_i / sum c_i`` (the judge's minus human ``k``'s observed agreement with the
    pool), ``SE = sqrt(n / (n - 1) sum (D_i - d_k c_i)^2) / sum c_i`` over the ``n`` items
    (a ratio estimator with items as clusters). The comparison *clears* the bar ``d_k >=
    -eps`` when ``d_k + eps - z SE >= 0``, *fails* it when ``d_k + eps + z SE < 0``, and is
    *undecided* otherwise or with fewer than two items.

    Parameters
    ----------
    human_labels : numpy.ndarray
        ``(n, K)`` codes, negative where a human did not label the item.
    judge_labels : numpy.ndarray
        ``(n, J)`` codes.
    epsilon : float
        Tolerance eps.
    confidence : float
        Two-sided confidence of each interval.

    Returns
    -------
    list of list of dict
        ``[judge][k]``: ``d``, ``se``, ``low``, ``high`` (interval of ``d_k``), ``items``,
        ``pairs``, ``passes`` (point rule: ``d_k >= -eps``; an empty comparison passes),
        ``verdict`` (``clears``, ``fails``, ``undecided``).
    """
    z = float(stats.norm.ppf(0.5 + confidence / 2))
    observed = human_labels >= 0
    n_humans = human_labels.shape[1]
    result = []
    for judge in range(judge_labels.shape[1]):
        rows = []
        for k in range(n_humans):
            others = observed & (np.arange(n_humans) != k)
            pool = others.sum(axis=1)
            items = observed[:, k] & (pool > 0)
            own = ((human_labels == human_labels[:, [k]]) & others).sum(axis=1)
            agree = ((human_labels == judge_labels[:, [judge]]) & others).sum(axis=1)
            difference = (agree - own)[items].astype(float)
            pairs = pool[items].astype(float)
            n = int(items.sum())
            total_pairs = float(pairs.sum())
            if n == 0:
                rows.append(
                    {
                        "d": math.nan,
                        "se": math.nan,
                        "low": math.nan,
                        "high": math.nan,
                        "items": 0,
                        "pairs": 0,
                        "passes": True,
                        "verdict": "undecided",
                    }
                )
                continue
            d = float(difference.sum() / total_pairs)
            se = (
                math.sqrt(n / (n - 1) * float(((difference - d * pairs) ** 2).sum())) / total_pairs
                if n > 1
                else math.nan
            )
            centre = d + epsilon
            if n > 1 and centre - z * se >= -1e-12:
                verdict = "clears"
            elif n > 1 and centre + z * se < -1e-12:
                verdict = "fails"
            else:
                verdict = "undecided"
            rows.append(
                {
                    "d": d,
                    "se": se,
                    "low": d - z * se,
                    "high": d + z * se,
                    "items": n,
                    "pairs": int(total_pairs),
                    "passes": bool(centre >= -1e-9),
                    "verdict": verdict,
                }
            )
        result.append(rows)
    return result


def alt_test_verdict(human_labels, judge_labels, epsilon, min_items=30, level=0.05):
    """Return ``(wins, tested)`` per judge from the alternative annotator test (SPEC §5b)."""
    n_humans = human_labels.shape[1]
    labels = np.concatenate([np.maximum(human_labels, 0), judge_labels], axis=1).astype(np.int16)
    mask = human_labels >= 0
    wins, tested, _, _ = kernels.alternative_annotator_test(
        labels, mask, n_humans, epsilon, 2, min_items, level, False
    )
    return np.asarray(wins, dtype=np.int64), int(tested)


def verdicts(human_labels, judge_labels, judge_names, rule, epsilon, tau=0.5, confidence=0.95):
    """Return one row per judge: omega, effective K, decision, interval verdict, comparisons."""
    comparisons = comparison_intervals(human_labels, judge_labels, epsilon, confidence)
    n_humans = human_labels.shape[1]
    if rule == "alt_test":
        wins, tested = alt_test_verdict(human_labels, judge_labels, epsilon)
    rows = []
    for judge, name in enumerate(judge_names):
        rows_k = comparisons[judge]
        passes = sum(row["passes"] for row in rows_k)
        clears = sum(row["verdict"] == "clears" for row in rows_k)
        fails = sum(row["verdict"] == "fails" for row in rows_k)
        effective = sum(row["items"] >= 2 for row in rows_k)
        if rule == "alt_test":
            omega = wins[judge] / tested if tested else math.nan
            decision = decide_counts(
                wins[judge], tested - wins[judge], tested, tau, kind="alt_test"
            )
            effective = tested
        else:
            omega = passes / n_humans
            decision = decide(passes, n_humans, tau)
        interval = decide_counts(clears, fails, n_humans, tau, kind="interval")
        rows.append(
            {
                "judge": name,
                "omega": float(omega),
                "effective_k": int(effective),
                "decision": DECISIONS[int(decision)],
                "interval_verdict": DECISIONS[int(interval)],
                "comparisons": rows_k,
            }
        )
    return rows


# --------------------------------------------------------------------------- the risk


def draw_labels(rng, confusions, prevalence, n_trials, n_items):
    """Draw ``(T, n, R)`` int16 labels from the fitted model (truth, then each rater)."""
    n_raters, n_labels, _ = confusions.shape
    truth = rng.choice(n_labels, size=(n_trials, n_items), p=prevalence)
    labels = np.empty((n_trials, n_items, n_raters), dtype=np.int16)
    cdf = np.cumsum(confusions, axis=2)
    cdf[:, :, -1] = 1.0
    for rater in range(n_raters):
        u = rng.random((n_trials, n_items, 1))
        labels[:, :, rater] = (u >= cdf[rater][truth][..., :-1]).sum(axis=-1)
    return labels


def _decisions(labels, mask, n_humans, n_labels, rule, epsilon, tau):
    """Sparse and dense decisions of every drawn trial, ``(T,)`` each."""
    n_trials = labels.shape[0]
    if rule == "alt_test":
        sparse = np.empty(n_trials, dtype=np.int8)
        dense = np.empty(n_trials, dtype=np.int8)
        full = np.ones(mask.shape[1:], dtype=bool)
        for t in range(n_trials):
            for out, this_mask in ((sparse, mask[t]), (dense, full)):
                wins, tested, _, _ = kernels.alternative_annotator_test(
                    labels[t], this_mask, n_humans, epsilon, 2, 30, 0.05, False
                )
                out[t] = decide_counts(
                    int(wins[0]), tested - int(wins[0]), tested, tau, kind="alt_test"
                )
        return sparse, dense
    passes, _, _ = kernels.evaluate(
        labels, mask, n_humans, n_labels, epsilon, coefficient_code("observed")
    )
    return decide(passes[:, 0, 0], n_humans, tau), decide(passes[:, 1, 0], n_humans, tau)


def simulate_risk(
    fit_confusions,
    prevalence,
    available,
    judge,
    rule="point",
    epsilon=0.05,
    tau=0.5,
    trials=400,
    seed=0,
    design=None,
    extra=0,
    labels=None,
    batch=100,
):
    """Estimate how often the sparse verdict differs from the dense one under the fitted model.

    Parameters
    ----------
    fit_confusions : numpy.ndarray
        ``(K + J, L, L)`` fitted confusion matrices, humans first.
    prevalence : numpy.ndarray
        ``(L,)`` fitted label probabilities.
    available : numpy.ndarray
        ``(n, K)`` bool: which human labelled which item (the data's overlap structure).
    judge : int
        Judge index (column ``K + judge`` of the confusions).
    rule : str
        ``point`` or ``alt_test``.
    epsilon, tau : float
        The rule's tolerance and threshold.
    trials : int
        Matrices drawn.
    seed : int
        Seed of the draws (``numpy.random.SeedSequence([seed, judge, extra])``).
    design : str, optional
        With ``extra > 0``: each draw first proposes ``extra`` more items per secondary by
        this design (:func:`simcore.advise.next_round.extend_mask`, from the real ``labels``), and
        the sparse matrix is the current one plus the proposal.
    extra : int
        Items per secondary added.
    labels : numpy.ndarray, optional
        ``(n, K)`` real human labels, needed to stratify a proposal.
    batch : int
        Trials drawn at once.

    Returns
    -------
    tuple
        ``(wrong, trials)``: draws whose sparse decision differs from the dense one
        (accept vs reject; an inconclusive sparse decision counts as differing), and draws.
    """
    n_items, n_humans = available.shape
    n_labels = fit_confusions.shape[1]
    confusions = np.concatenate([fit_confusions[:n_humans], fit_confusions[[n_humans + judge]]])
    rng = np.random.default_rng(np.random.SeedSequence([seed, judge, extra]))
    wrong = 0
    done = 0
    while done < trials:
        size = min(batch, trials - done)
        drawn = draw_labels(rng, confusions, prevalence, size, n_items)
        mask = np.empty((size, n_items, n_humans), dtype=bool)
        for t in range(size):
            mask[t] = available
            if extra > 0:
                mask[t] |= extend_mask(rng, design, extra, labels, available, n_labels)
        sparse, dense = _decisions(drawn, mask, n_humans, n_labels, rule, epsilon, tau)
        wrong += int((sparse != dense).sum())
        done += size
    return wrong, done


def monte_carlo_se(wrong, trials):
    """Return the binomial SE of a risk of ``wrong / trials``, never zero.

    The rate in ``sqrt(r (1 - r) / trials)`` is ``r = (wrong + 0.5) / (trials + 1)``, so that
    0 wrong decisions in ``trials`` still carry an uncertainty (a plain ``p (1 - p) / n``
    would claim none).
    """
    rate = (wrong + 0.5) / (trials + 1)
    return math.sqrt(rate * (1 - rate) / trials)


@dataclass
class RiskCurve:
    """Risk against extra items per secondary for one judge and design."""

    judge: str
    design: str
    extra: list = field(default_factory=list)
    wrong: list = field(default_factory=list)
    trials: list = field(default_factory=list)

    def rate(self, index):
        """Risk at point ``index``."""
        return self.wrong[index] / self.trials[index]

    def se(self, index):
        """Monte Carlo standard error of the risk at ``index`` (:func:`monte_carlo_se`)."""
        return monte_carlo_se(self.wrong[index], self.trials[index])

    def needed(self, target, confidence=0.95):
        """Smallest grid ``extra`` whose risk is under ``target``: ``(point, conservative)``.

        ``conservative`` asks the Wilson upper bound to be under the target too; -1 when no
        grid value is enough.
        """
        point = conservative = -1
        for index, extra in enumerate(self.extra):
            if point < 0 and self.rate(index) <= target:
                point = extra
            upper = wilson_interval(self.wrong[index], self.trials[index], confidence)[1]
            if conservative < 0 and upper <= target:
                conservative = extra
        return point, conservative


def risk_curve(
    fit_confusions, prevalence, available, labels, judge, judge_name, design, grid, **options
):
    """Simulate the risk at each ``extra`` of ``grid`` (:func:`simulate_risk`)."""
    curve = RiskCurve(judge_name, design)
    for extra in grid:
        wrong, trials = simulate_risk(
            fit_confusions,
            prevalence,
            available,
            judge,
            design=design,
            extra=extra,
            labels=labels,
            **options,
        )
        curve.extra.append(int(extra))
        curve.wrong.append(wrong)
        curve.trials.append(trials)
    return curve


def refits(labels, observed, n_labels, n_humans, fit, n_fits=8, seed=0):
    """Return ``n_fits`` Dawid-Skene fits to bootstrap resamples of the items.

    Each starts from the full-data posterior of its resampled items, so its labels line up
    with the full-data fit's.
    """
    rng = np.random.default_rng(np.random.SeedSequence([seed, 7]))
    n_items = labels.shape[0]
    fits = []
    for _ in range(n_fits):
        rows = rng.integers(0, n_items, n_items)
        fits.append(
            fit_dawid_skene(
                labels[rows],
                observed[rows],
                n_labels,
                n_humans=n_humans,
                initial_posterior=fit.posterior[rows],
            )
        )
    return fits


def model_spread(fits, available, judge, trials=100, seed=0, **options):
    """Return the SD of the risk across refitted models, Monte Carlo noise removed.

    ``var_between = var(r_b) - mean(r_b (1 - r_b) / trials)``, floored at 0, over the risks
    ``r_b`` simulated under each refit ``b`` (:func:`refits`) with ``trials`` draws each:
    how much the risk moves with the fitted parameters. ``options`` go to
    :func:`simulate_risk` (rule, eps, tau, design, extra, labels).
    """
    risks = []
    for index, refit in enumerate(fits):
        wrong, count = simulate_risk(
            refit.confusions,
            refit.prevalence,
            available,
            judge,
            trials=trials,
            seed=seed + 1000 + index,
            **options,
        )
        risks.append(wrong / count)
    if len(risks) < 2:
        return 0.0
    risks = np.array(risks)
    noise = float(np.mean(risks * (1 - risks) / trials))
    return math.sqrt(max(0.0, float(np.var(risks, ddof=1)) - noise))


def recipe(fit_confusions, prevalence, n_humans, judge, epsilon, alpha=0.05):
    """Return the Gaussian recipe of the binding comparison: ``(margin, sigma0^2, m_cert, k)``.

    For each held-out human ``k`` with one pool rater ``r`` (the primary, or human 1 when
    ``k`` is the primary): ``margin_k = P(judge = r) - P(k = r) + eps`` under the fitted
    model, ``sigma0^2`` the per-item variance of ``D`` (:func:`simcore.studies.planning.
    recipe_variance`) and ``m_cert = ceil(z^2 sigma0^2 / margin^2)`` co-labelled items
    (SPEC §7). The comparison whose margin is closest to the bar needs the most items and
    decides the verdict's precision; its numbers are returned (``m_cert`` -1 for a zero
    margin).
    """
    confusions = np.concatenate([fit_confusions[:n_humans], fit_confusions[[n_humans + judge]]])
    agreement = np.einsum("y,ayl,byl->ab", prevalence, confusions, confusions)
    binding = None
    for held_out in range(n_humans):
        pool = 1 if held_out == 0 else 0
        margin = float(agreement[-1, pool] - agreement[held_out, pool] + epsilon)
        if binding is None or abs(margin) < abs(binding[0]):
            sigma2 = recipe_variance(confusions, prevalence, judge=-1, held_out=held_out, pool=pool)
            binding = (margin, sigma2, certification_items(margin, sigma2, alpha), held_out)
    return binding


# --------------------------------------------------------------------------- the model


@dataclass
class JudgeModel:
    """The synthetic model fitted to the humans and one judge, with its checks."""

    fit: object
    errors: object
    rater_names: tuple
    diagnostics: list
    refits: list

    @property
    def misfits(self):
        """The rater pairs the model fits poorly (:func:`simcore.advise.fit.poor_fit`)."""
        return poor_fit(self.diagnostics)


def fit_judge_model(matrix, judge, n_boot=30, n_refits=8, seed=0):
    """Fit the humans and one judge (:func:`simcore.advise.fit.fit_matrix`); check and refit it.

    One model per judge: the judges' errors are often correlated with each other (they
    agree beyond what a conditionally independent model allows), so fitting several judges
    together lets them outvote the humans on the latent label. The judge's own labels do
    enter the E-step: leaving them out would estimate its confusion matrix against a soft
    latent label, which attenuates it (the likelihood must include every rater fitted).
    """
    fit, errors, rater_names = fit_matrix(matrix, judges=[judge], n_boot=n_boot, seed=seed)
    column = matrix.judges.index(judge)
    labels = np.concatenate(
        [np.maximum(matrix.human_labels, 0), matrix.judge_labels[:, [column]]], axis=1
    ).astype(np.int64)
    observed = np.concatenate([matrix.available, np.ones((matrix.n_items, 1), bool)], axis=1)
    diagnostics = agreement_diagnostics(labels, observed, fit, rater_names)
    fits = refits(labels, observed, matrix.n_labels, matrix.n_humans, fit, n_refits, seed)
    return JudgeModel(fit, errors, tuple(rater_names), diagnostics, fits)


# --------------------------------------------------------------------------- the whole


@dataclass
class Advice:
    """Everything :func:`advise` found; :func:`write_outputs` turns it into files."""

    source: str
    humans: tuple
    judges: tuple
    labels: tuple
    rule: str
    epsilon: float
    target: float
    design: str
    curve_design: str
    extra: int
    verdicts: list
    models: dict
    risk_now: dict
    risk_model_se: dict
    curves: dict
    recipes: dict
    recommended_extra: int
    budget: int | None
    budget_rows: list
    proposal: np.ndarray
    items: tuple
    co_labelled: np.ndarray

    @property
    def misfits(self):
        """``(judge, row)`` for every rater pair a judge's fitted model fits poorly."""
        return [(name, row) for name, model in self.models.items() for row in model.misfits]


def advise(
    matrix,
    judges=None,
    rule="point",
    epsilon=0.05,
    target=0.05,
    budget=None,
    design="strat",
    trials=300,
    seed=0,
    n_boot=30,
    grid=EXTRA_GRID,
    tau=0.5,
    n_refits=8,
):
    """Audit ``matrix`` and plan its next round; return an :class:`Advice`.

    Parameters
    ----------
    matrix : simcore.realdata.matrix.AnnotationMatrix
        The data as collected (the first human is the primary).
    judges : list of str, optional
        Judges to audit (default: all).
    rule : str
        ``point`` or ``alt_test``.
    epsilon, target : float
        The rule's tolerance; the largest acceptable risk of a wrong verdict.
    budget : int, optional
        Total new labels to spend; each design is then simulated with ``budget // (K - 1)``
        items per secondary and the best one proposes the next round.
    design : str
        The design of the proposal without a budget (default ``strat``: stratified by the
        current labels).
    trials : int
        Simulated matrices per risk estimate.
    seed : int
        Seed of the simulations, the bootstrap and the proposal.
    n_boot : int
        Bootstrap refits for the fitted accuracies' standard errors.
    n_refits : int
        Bootstrap refits over which the risk now is simulated again, for its model
        uncertainty (:func:`model_spread`).
    grid : sequence of int
        Items per secondary at which the risk curve is simulated.
    tau : float
        Acceptance threshold.

    Returns
    -------
    Advice
    """
    names = tuple(judges) if judges else tuple(matrix.judges)
    unknown = [name for name in names if name not in matrix.judges]
    if unknown:
        raise ValueError(
            f"--judge: unknown judge {unknown[0]!r} (judges: {', '.join(matrix.judges)})"
        )
    columns = [matrix.judges.index(name) for name in names]
    human_labels = np.asarray(matrix.human_labels, dtype=np.int64)
    judge_labels = np.asarray(matrix.judge_labels, dtype=np.int64)[:, columns]
    available = human_labels >= 0
    n_humans = matrix.n_humans
    verdict_rows = verdicts(human_labels, judge_labels, names, rule, epsilon, tau)
    models = {name: fit_judge_model(matrix, name, n_boot, n_refits, seed) for name in names}
    options = {"rule": rule, "epsilon": epsilon, "tau": tau, "trials": trials, "seed": seed}
    unlabelled = int((~available[:, 1:]).sum(axis=0).max()) if n_humans > 1 else 0
    grid = sorted({min(int(g), unlabelled) for g in grid})
    curves, recipes, risk_now, risk_model_se = {}, {}, {}, {}
    for name, model in models.items():
        curve = risk_curve(
            model.fit.confusions,
            model.fit.prevalence,
            available,
            human_labels,
            0,
            name,
            design,
            grid,
            **options,
        )
        curves[name] = curve
        risk_now[name] = (
            (curve.rate(0), curve.se(0)) if curve.extra[0] == 0 else (math.nan, math.nan)
        )
        recipes[name] = recipe(model.fit.confusions, model.fit.prevalence, n_humans, 0, epsilon)
        risk_model_se[name] = model_spread(
            model.refits,
            available,
            0,
            trials=max(50, trials // 3),
            seed=seed,
            rule=rule,
            epsilon=epsilon,
            tau=tau,
        )
    needed = [curve.needed(target)[0] for curve in curves.values()]
    recommended = -1 if any(n < 0 for n in needed) else max(needed)
    budget_rows = []
    chosen_design = design
    if budget:
        per_secondary = max(1, budget // max(1, n_humans - 1))
        for candidate in DESIGNS:
            risks = [
                simulate_risk(
                    model.fit.confusions,
                    model.fit.prevalence,
                    available,
                    0,
                    design=candidate,
                    extra=per_secondary,
                    labels=human_labels,
                    **options,
                )
                for model in models.values()
            ]
            rates = [wrong / count for wrong, count in risks]
            worst = int(np.argmax(rates))
            wrong, count = risks[worst]
            budget_rows.append(
                {
                    "design": candidate,
                    "extra": per_secondary,
                    "worst_judge": names[worst],
                    "risk": wrong / count,
                    "se": monte_carlo_se(wrong, count),
                    "mean_risk": float(np.mean(rates)),
                }
            )
        best = min(budget_rows, key=lambda row: (row["risk"], row["mean_risk"]))
        chosen_design = best["design"]
        extra = per_secondary
    else:
        extra = recommended if recommended >= 0 else grid[-1]
    rng = np.random.default_rng(np.random.SeedSequence([seed, 20_261_130]))
    proposal = extend_mask(rng, chosen_design, extra, human_labels, available, matrix.n_labels)
    co_labelled = (available[:, 1:] & available[:, :1]).sum(axis=0)
    return Advice(
        source=str(matrix.source),
        humans=tuple(matrix.humans),
        judges=names,
        labels=tuple(matrix.labels),
        rule=rule,
        epsilon=epsilon,
        target=target,
        design=chosen_design,
        curve_design=design,
        extra=int(extra),
        verdicts=verdict_rows,
        models=models,
        risk_now=risk_now,
        risk_model_se=risk_model_se,
        curves=curves,
        recipes=recipes,
        recommended_extra=recommended,
        budget=budget,
        budget_rows=budget_rows,
        proposal=proposal,
        items=tuple(matrix.items),
        co_labelled=co_labelled,
    )
