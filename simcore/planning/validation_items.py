"""``simcore plan``: answer one team's question "how many co-labelled items do we need?".

The question is a scenario with one judge at a given margin (or accuracy), a design, a
target wrong-decision rate and a confidence level; the answer is an adaptive simulation
(:func:`simcore.studies.planning_table.search_items`) against the ``population`` reference,
beside the Gaussian recipe. ``simcore calibrate --plan``'s question, how many calibration
labels, is :mod:`simcore.planning.calibration_labels`.
"""

from dataclasses import dataclass

from simcore.model.weighted import is_weighted
from simcore.studies.config import ScenarioError
from simcore.studies.planning_table import RateProbe, recipe_for_cell, search_items
from simcore.studies.synthetic_cell import count_outcomes, simulate_cell
from simcore.studies.synthetic_scenario import scenario_from_dict


@dataclass(frozen=True)
class PlanAnswer:
    """What ``simcore plan`` reports."""

    m: int
    m_conservative: int
    m_optimistic: int
    m_max: int
    margin: float
    p_judge: float
    recipe_items: int
    recipe_variance: float
    probes: dict
    side: str


def human_accuracy_from_agreement(agreement, n_labels):
    """Return the human accuracy whose pairwise observed agreement is ``agreement``.

    Solves ``A = p^2 + (1 - p)^2 / (L - 1)`` for the root ``p >= 1 / L`` (symmetric noise,
    equal humans).

    Raises
    ------
    ValueError
        When ``agreement`` is below chance, ``1 / L``, or above 1.
    """
    chance = 1.0 / n_labels
    if not chance <= agreement <= 1.0:
        raise ValueError(f"must be between chance, 1/L = {chance:g}, and 1 (got {agreement})")
    # L p^2 - 2 p + 1 - (L - 1) A = 0 scaled: p = (1 + sqrt(1 - L (1 - (L - 1) A))) / L
    root = max(0.0, 1.0 - n_labels * (1.0 - (n_labels - 1) * agreement))
    return (1.0 + root**0.5) / n_labels


MARGIN_AT_THE_BAR = 1e-9
"""A margin this close to 0 is the bar itself: no finite m answers the question."""

OPTIONS = {
    "model.margin": "--margin",
    "model.p_judge": "--p-judge",
    "model.p_human": "--p-human",
    "model.n_items": "--items",
    "model.n_humans": "--humans",
    "model.n_labels": "--labels",
    "rule.epsilon": "--epsilon",
    "rule.tau": "--tau",
    "rule.coefficient": "--coefficient",
    "rule.level": "--level",
    "rule.weights": "--weights",
    "model.adjacent": "--adjacent",
    "design.kind": "--design",
    "design.m": "--items",
    "design.rho": "--items",
}
"""The scenario field behind each ``simcore plan`` option, to name the option in errors."""


def with_option_names(error):
    """Return ``error`` (a ScenarioError) with scenario fields renamed to plan's options."""
    problems = []
    for problem in error.problems:
        for field, option in OPTIONS.items():
            problem = problem.replace(f": {field}:", f": {option}:")
        problems.append(problem)
    return ScenarioError(problems)


def check_margin_scoring(margin, scoring, adjacent, explicit):
    """Refuse a margin where it cannot set the judge's accuracy (UsageError-like ScenarioError).

    A margin sets ``p_judge`` through observed agreement on the symmetric channel
    (:func:`simcore.model.recipes.judge_accuracy_for_margin`); another coefficient, weights or
    an adjacent-error channel need the judge's accuracy itself.
    """
    plain = scoring["coefficient"] == "observed" and not is_weighted(
        scoring["level"], scoring["weights"]
    )
    if margin is None or (plain and adjacent is None):
        return
    what = "--adjacent" if plain else f"--coefficient {scoring['coefficient']}"
    given = f"--margin {margin:g}" if explicit else "the default --margin 0.05"
    raise ScenarioError(
        [
            f"simcore plan: {what}: {given} sets the judge's accuracy for observed agreement "
            "on the symmetric channel; give the judge's accuracy with --p-judge"
        ]
    )


def question_scenario(
    n_items,
    n_humans,
    n_labels,
    p_human,
    epsilon,
    tau,
    design,
    margin=None,
    p_judge=None,
    seed=0,
    scoring=None,
    adjacent=None,
):
    """Return the scenario a planning question describes (one cell; ``m`` set per probe).

    ``scoring`` holds the rule's ``coefficient``, ``level`` and ``weights`` (default
    observed agreement); ``adjacent`` the share of errors on a neighbouring label.

    Raises
    ------
    simcore.studies.config.ScenarioError
        For values the scenario rejects (the message names the field).
    """
    model = {"n_items": n_items, "n_humans": n_humans, "n_labels": n_labels, "p_human": p_human}
    if margin is not None:
        model["margin"] = margin
    else:
        model["p_judge"] = p_judge
    if adjacent is not None:
        model["adjacent"] = adjacent
    rule = {"epsilon": epsilon, "tau": tau, **(scoring or {})}
    return {
        "model": model,
        "design": {"kind": design, "rho": 0.5}
        if design == "bernoulli"
        else {"kind": design, "m": 1},
        "rule": rule,
        "reference": "population",
        "trials": 1,
        "seed": seed,
    }


def _cell_at(raw, m):
    """Return the question's cell at ``m`` items per secondary (``rho = m / n`` for bernoulli)."""
    raw = {**raw, "design": dict(raw["design"])}
    if raw["design"]["kind"] == "bernoulli":
        raw["design"]["rho"] = m / raw["model"]["n_items"]
    else:
        raw["design"]["m"] = m
    (cell,) = scenario_from_dict(raw, source="simcore plan").cells()
    return cell


PLAN_LABELS = 2 * 10**10
"""The most labels one probe of ``simcore plan`` draws (trials x items x raters): about a
minute of simulation on a few cores; the published questions draw a hundredth of it."""


def check_plan_size(cell, trials):
    """Refuse a question whose probes cannot fit in memory or would simulate for hours.

    The memory is the synthetic cell's kernel scratch on every numba thread
    (:func:`simcore.studies.synthetic_memory.cell_bytes`) plus ``trials`` trials' outputs;
    the work is the labels one probe of ``trials`` trials draws, at most :data:`PLAN_LABELS`.

    Raises
    ------
    ScenarioError
        ``simcore plan: --items N, --humans K: ... (got ...)`` naming what to lower.
    """
    from simcore.engine.threads import thread_count
    from simcore.realdata.allocation import available_bytes, gib_text
    from simcore.studies.synthetic_memory import cell_bytes

    model = cell.model
    n, humans = model.n_items, model.n_humans
    got = f"(got {n} items, {humans} humans, {model.n_labels} labels)"
    need = cell_bytes(cell, 1, thread_count()) + 2 * trials * (9 * humans + 88)
    available = available_bytes()
    if need > available:
        raise ScenarioError(
            [
                f"simcore plan: --items, --humans, --labels: the simulated corpus needs about "
                f"{gib_text(need)} of memory and this machine has {gib_text(available)} "
                f"available; lower --items, --humans or --labels {got}"
            ]
        )
    labels = trials * n * (humans + 1)
    if labels > PLAN_LABELS:
        raise ScenarioError(
            [
                f"simcore plan: --items, --humans: a probe of up to {trials} simulated trials "
                f"would draw {labels:.1e} labels, more than plan simulates ({PLAN_LABELS:.0e}, "
                f"about a minute); lower --items or --humans {got}"
            ]
        )


def answer(
    raw,
    target=0.05,
    confidence=0.95,
    alpha=0.05,
    first_trials=400,
    max_trials=25_600,
    progress=None,
):
    """Search the items per secondary for the question ``raw`` (see :func:`question_scenario`).

    ``progress``, if given, is called with a short message once the question is checked and
    the simulated search starts.

    Returns
    -------
    PlanAnswer
    """
    if not 0 < target < 1:
        raise ScenarioError([f"simcore plan: --target: must be in (0, 1) (got {target})"])
    if not 0 < confidence < 1:
        raise ScenarioError([f"simcore plan: --confidence: must be in (0, 1) (got {confidence})"])
    m_max = raw["model"]["n_items"]
    base = _cell_at(raw, m_max)  # validates the question once
    check_plan_size(base, max_trials)
    seed = raw["seed"]

    def simulate(m, start, stop):
        cell = _cell_at(raw, m)
        outputs = simulate_cell(cell, seed, start, stop)
        return int(count_outcomes(cell, outputs)["n_wrong"][0])

    margin, sigma2, m_cert = recipe_for_cell(base, alpha)
    if abs(margin) < MARGIN_AT_THE_BAR:
        given = raw["model"].get("margin")
        option = f"--margin {given:g}" if given is not None else f"--p-judge {base.model.p_judge:g}"
        raise ScenarioError(
            [
                f"simcore plan: {option}: puts the judge at the bar (margin S_j - S_h + eps = 0), "
                "where no number of items separates it from the bar: the decision stays a "
                "coin toss; plan for a margin away from 0, e.g. --margin 0.02"
            ]
        )
    if progress is not None:  # the question is valid: say what the seconds go to
        progress(
            "searching the items per secondary by simulation (bisection on m, probes of "
            f"{first_trials} to {max_trials} trials, then a recheck of larger m)"
        )
    probe = RateProbe(simulate, target, confidence, first_trials, max_trials)
    found = search_items(probe, m_max)
    return PlanAnswer(
        m=found["m"],
        m_conservative=found["m_conservative"],
        m_optimistic=found["m_optimistic"],
        m_max=m_max,
        margin=margin,
        p_judge=float(base.model.p_judge),
        recipe_items=m_cert,
        recipe_variance=sigma2,
        probes=found["probes"],
        side="false rejection" if margin >= 0 else "false approval",
    )


def _scoring_text(raw):
    """Return ``, coefficient C (level or weights), adjacent a`` where the question sets them."""
    rule, model = raw["rule"], raw["model"]
    coefficient = rule.get("coefficient", "observed")
    level, weights = rule.get("level", "nominal"), rule.get("weights", "identity")
    text = ""
    if coefficient != "observed" or is_weighted(level, weights):
        text = f", coefficient {coefficient}"
        text += f" ({level})" if level != "nominal" else ""
        text += f" ({weights})" if weights != "identity" else ""
    if "adjacent" in model:
        text += f", adjacent {model['adjacent']:g}"
    return text


def describe(result, raw, target, confidence, alpha):
    """Return the text ``simcore plan`` prints for ``result``."""
    model, rule = raw["model"], raw["rule"]

    def items(m):
        if m > result.m_max:
            return f"{m} (more than the corpus's {result.m_max} items)"
        return f"> {result.m_max}" if m < 0 else str(m)

    judge = "accepts" if result.margin >= 0 else "rejects"
    lines = [
        f"question: K = {model['n_humans']} humans (p_human {model['p_human']:.4g}), "
        f"L = {model['n_labels']}, n = {model['n_items']}, eps = {rule['epsilon']:g}, "
        f"tau = {rule['tau']:g}, design {raw['design']['kind']}{_scoring_text(raw)}",
        f"judge: margin {result.margin:+.4f} (p_judge {result.p_judge:.4f}); the population "
        f"decision {judge} it, so a wrong decision is a {result.side}",
        f"simulated: m = {items(result.m)} items per secondary for a wrong-decision rate <= "
        f"{target:g} (at {confidence:.0%} confidence: {items(result.m_optimistic)} to "
        f"{items(result.m_conservative)}; {len(result.probes)} probes, "
        f"{sum(t for _, t in result.probes.values())} trials)",
        f"recipe: m_cert = {items(result.recipe_items)} (Gaussian certification at alpha "
        f"{alpha:g}, sigma0^2 = {result.recipe_variance:.4f}); it bounds one comparison's "
        "false rejection only",
    ]
    if result.margin < 0:
        lines.append(
            "false approval: the judge is below the bar; the simulated m is what it "
            "takes for the rule to reject it reliably. The recipe's number is an "
            "extension here (items for one comparison to fail with confidence) and "
            "says nothing about the decision's false approval."
        )
    return "\n".join(lines)
