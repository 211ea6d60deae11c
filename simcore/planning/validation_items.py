"""``simcore plan``: answer one team's question "how many co-labelled items do we need?".

The question is a scenario with one judge at a given margin (or accuracy), a design, a
target wrong-decision rate and a confidence level; the answer is an adaptive simulation
(:func:`simcore.studies.planning_table.search_items`) against the ``population`` reference,
beside the Gaussian recipe. ``simcore calibrate --plan``'s question, how many calibration
labels, is :mod:`simcore.planning.calibration.labels`.
"""

from dataclasses import dataclass

from simcore.model.weighted import is_weighted
from simcore.studies.config import ScenarioError
from simcore.studies.planning_table import RateProbe, recipe_for_cell, search_items
from simcore.studies.synthetic.cell import count_outcomes, simulate_cell
from simcore.studies.synthetic.scenario import scenario_from_dict


@dataclass(frozen=True)
class PlanAnswer:
    """What ``simcore plan`` reports."""

    m: int
    m_conservative: int
    m_optimistic: int
    m_max: int
    advantage: float
    margin: float
    p_judge: float
    recipe_items: int
    recipe_variance: float
    probes: dict
    side: str
    exceeds_corpus: dict
    """Per size field (``m``, ``m_conservative``, ``m_optimistic``, ``recipe_items``): true
    where the answer is more than the corpus's ``m_max`` items (a simulated -1, or a recipe
    larger than the corpus)."""


def corpus_size_text(m, n_items, what="recipe"):
    """Return a size in items per secondary as printed, never beyond the corpus as a plain number.

    ``m > n_items`` prints ``more than the 1,400 items of the corpus (recipe: 3,356,316,136)``
    (``what`` names the number's source); ``m < 0``, a simulated search that never reached
    the target, ``more than the 1,400 items of the corpus``; ``m == n_items`` (the search's
    top) ``1400 (every item of the corpus)``; otherwise the number.
    """
    beyond = f"more than the {n_items:,} items of the corpus"
    if m < 0:
        return beyond
    if m > n_items:
        return f"{beyond} ({what}: {m:,})"
    if m == n_items:
        return f"{m} (every item of the corpus)"
    return str(m)


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
    "model.n_humans": "--n-humans",
    "model.n_labels": "--n-labels",
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


def with_option_names(error, margin_flag="--margin"):
    """Return ``error`` (a ScenarioError) with scenario fields renamed to plan's options.

    ``model.margin`` is named ``margin_flag``: ``--advantage`` where the judge was given by
    its advantage (the margin is the advantage plus eps).
    """
    names = {**OPTIONS, "model.margin": margin_flag}
    problems = []
    for problem in error.problems:
        for field, option in names.items():
            problem = problem.replace(f": {field}:", f": {option}:")
        problems.append(problem)
    return ScenarioError(problems)


def check_margin_scoring(margin, scoring, adjacent, given):
    """Refuse a margin where it cannot set the judge's accuracy (UsageError-like ScenarioError).

    A margin sets ``p_judge`` through observed agreement on the symmetric channel
    (:func:`simcore.model.recipes.judge_accuracy_for_margin`); another coefficient, weights or
    an adjacent-error channel need the judge's accuracy itself. ``given`` names the judge's
    option as the user gave it (``--advantage 0.02``, ``the default --advantage 0``).
    """
    plain = scoring["coefficient"] == "observed" and not is_weighted(
        scoring["level"], scoring["weights"]
    )
    if margin is None or (plain and adjacent is None):
        return
    what = "--adjacent" if plain else f"--coefficient {scoring['coefficient']}"
    raise ScenarioError(
        [
            f"simcore plan: {what}: {given} sets the judge's accuracy for observed agreement "
            "on the symmetric channel; give the judge's accuracy with --p-judge"
        ]
    )


def question_scenario(  # noqa: PLR0913 (a value object is still to come)
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
    advantage=None,
):
    """Return the scenario a planning question describes (one cell; ``m`` set per probe).

    The judge is one of ``advantage``, its expected agreement with the pool minus a
    human's, ``A = S_j - S_h`` (0: as good as the humans), ``margin``, the signed margin
    ``S_j - S_h + eps = A + eps`` the scenario takes, or ``p_judge``, its accuracy.
    ``scoring`` holds the rule's ``coefficient``, ``level`` and ``weights`` (default
    observed agreement); ``adjacent`` the share of errors on a neighbouring label.

    Raises
    ------
    simcore.studies.config.ScenarioError
        For values the scenario rejects (the message names the field).
    ValueError
        ``advantage`` given with ``margin`` or ``p_judge``.
    """
    if advantage is not None and (margin is not None or p_judge is not None):
        raise ValueError(
            "give one of advantage, margin and p_judge "
            f"(got advantage={advantage}, margin={margin}, p_judge={p_judge})"
        )
    if advantage is not None:
        margin = advantage + epsilon
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
    (:func:`simcore.studies.synthetic.memory.cell_bytes`) plus ``trials`` trials' outputs;
    the work is the labels one probe of ``trials`` trials draws, at most :data:`PLAN_LABELS`.

    Raises
    ------
    ScenarioError
        ``simcore plan: --items N, --n-humans K: ... (got ...)`` naming what to lower.
    """
    from simcore.engine.threads import thread_count
    from simcore.realdata.allocation import available_bytes, gib_text
    from simcore.studies.synthetic.memory import cell_bytes

    model = cell.model
    n, humans = model.n_items, model.n_humans
    got = f"(got {n} items, {humans} humans, {model.n_labels} labels)"
    need = cell_bytes(cell, 1, thread_count()) + 2 * trials * (9 * humans + 88)
    available = available_bytes()
    if need > available:
        raise ScenarioError(
            [
                f"simcore plan: --items, --n-humans, --n-labels: the simulated corpus needs about "
                f"{gib_text(need)} of memory and this machine has {gib_text(available)} "
                f"available; lower --items, --n-humans or --n-labels {got}"
            ]
        )
    labels = trials * n * (humans + 1)
    if labels > PLAN_LABELS:
        raise ScenarioError(
            [
                f"simcore plan: --items, --n-humans: a probe of up to {trials} simulated trials "
                f"would draw {labels:.1e} labels, more than plan simulates ({PLAN_LABELS:.0e}, "
                f"about a minute); lower --items or --n-humans {got}"
            ]
        )


def _check_off_the_bar(margin, raw, base, judge_flag):
    """Refuse a judge at the bar, ``|margin| < MARGIN_AT_THE_BAR`` (no finite m answers)."""
    if abs(margin) >= MARGIN_AT_THE_BAR:
        return
    given = raw["model"].get("margin")
    option = f"--margin {given:g}" if given is not None else f"--p-judge {base.model.p_judge:g}"
    raise ScenarioError(
        [
            f"simcore plan: {judge_flag or option}: puts the judge at the bar (advantage "
            f"S_j - S_h = -eps = {-raw['rule']['epsilon']:g}, signed margin S_j - S_h + eps = 0), "
            "where no number of items separates it from the bar: the decision stays a coin "
            "toss; plan for a judge away from the bar, e.g. --advantage 0 (as good as the humans)"
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
    judge_flag=None,
):
    """Search the items per secondary for the question ``raw`` (see :func:`question_scenario`).

    ``progress``, if given, is called with a short message once the question is checked and
    the simulated search starts; ``judge_flag`` names the judge's option as given
    (``--advantage -0.05``) in the refusal of a judge at the bar.

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
    epsilon = raw["rule"]["epsilon"]
    _check_off_the_bar(margin, raw, base, judge_flag)
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
        advantage=margin - epsilon,
        margin=margin,
        p_judge=float(base.model.p_judge),
        recipe_items=m_cert,
        recipe_variance=sigma2,
        probes=found["probes"],
        side="false rejection" if margin >= 0 else "false approval",
        exceeds_corpus={
            "m": found["m"] < 0,
            "m_conservative": found["m_conservative"] < 0,
            "m_optimistic": found["m_optimistic"] < 0,
            "recipe_items": m_cert > m_max,
        },
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


def advantage_words(advantage):
    """Return the judge's ``advantage`` S_j - S_h in words: "better than the humans", ..."""
    if advantage > 0:
        return "better than the humans"
    return "worse than the humans" if advantage < 0 else "as good as the humans"


def describe(result, raw, target, confidence, alpha):
    """Return the text ``simcore plan`` prints for ``result``."""
    model, rule = raw["model"], raw["rule"]

    def items(m):
        return corpus_size_text(m, result.m_max)

    judge = "accepts" if result.margin >= 0 else "rejects"
    advantage = round(result.advantage, 4) + 0.0  # no "-0.0000"
    lines = [
        f"question: K = {model['n_humans']} humans (p_human {model['p_human']:.4g}), "
        f"L = {model['n_labels']}, n = {model['n_items']}, eps = {rule['epsilon']:g}, "
        f"tau = {rule['tau']:g}, design {raw['design']['kind']}{_scoring_text(raw)}",
        f"judge: advantage S_j - S_h = {advantage:+.4f} ({advantage_words(advantage)}); signed "
        f"margin S_j - S_h + eps = {result.margin:+.4f} (p_judge {result.p_judge:.4f}); the "
        f"population decision {judge} it, so a wrong decision is a {result.side}",
        _simulated_line(result, target, confidence),
        _recipe_line(result, alpha),
    ]
    if result.margin < 0:
        lines.append(
            "false approval: the judge is below the bar; the simulated m is what it "
            "takes for the rule to reject it reliably. The recipe's number is an "
            "extension here (items for one comparison to fail with confidence) and "
            "says nothing about the decision's false approval."
        )
    return "\n".join(lines)


def _simulated_line(result, target, confidence):
    """Return the ``simulated:`` line: the answer, its interval, and the rate at the top.

    When no ``m`` up to the corpus reaches the target, the line says so in words and gives
    the wrong-decision rate simulated with every item co-labelled
    (:func:`simcore.printed_rates.rate_text`).
    """
    from simcore.printed_rates import rate_text

    def items(m):
        return corpus_size_text(m, result.m_max)

    trials = sum(t for _, t in result.probes.values())
    probes = f"{len(result.probes)} probe{'s' if len(result.probes) != 1 else ''}"
    if result.exceeds_corpus["m_optimistic"]:  # none of the three answers is in the corpus
        wrong, top = result.probes[result.m_max]
        return (
            f"simulated: m = {items(-1)} per secondary for a wrong-decision rate <= "
            f"{target:g}: with all {result.m_max:,} items co-labelled the rate is "
            f"{rate_text(wrong, top, unit='%')} ({probes}, {trials} trials)"
        )
    return (
        f"simulated: m = {items(result.m)} items per secondary for a wrong-decision rate <= "
        f"{target:g} (at {confidence:.0%} confidence: {items(result.m_optimistic)} to "
        f"{items(result.m_conservative)}; {probes}, {trials} trials)"
    )


def _recipe_line(result, alpha):
    """Return the ``recipe:`` line; a recipe beyond the corpus is said in words first."""
    how = f"Gaussian certification at alpha {alpha:g}, sigma0^2 = {result.recipe_variance:.4f}"
    if result.exceeds_corpus["recipe_items"]:
        size = (
            f"more than the {result.m_max:,} items of the corpus (recipe: "
            f"{result.recipe_items:,}; {how})"
        )
    else:
        size = f"{corpus_size_text(result.recipe_items, result.m_max)} ({how})"
    return f"recipe: m_cert = {size}; it bounds one comparison's false rejection only"
