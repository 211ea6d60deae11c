"""The words of advise's plan: the one recommendation, the details behind it, the budget.

:func:`recommendation_text` says the :class:`simcore.advise.recommendation.Recommendation`
in one paragraph (the first thing the summary, ``report.md`` and the JSON give);
:func:`details_lines` is the report's *details* section, the three "how many" figures each
with what it bounds; :func:`budget_lines` the budget's design comparison with its ties;
:func:`unreachable_text` the plain statement of a target out of reach.
"""

import math

from simcore.advise.recommendation import SIMPLICITY, TIE_SES


def percent_text(rate, se):
    """Return ``12.3% ± 1.0`` (percentage points), ``n/a`` for NaN."""
    if math.isnan(rate):
        return "n/a"
    return f"{100 * rate:.1f}% ± {100 * se:.1f}"


# --------------------------------------------------------------------------- the answer


def recommendation_text(advice):
    """Return the one recommendation of ``advice`` as one plain paragraph."""
    answer = advice.recommendation
    if answer.kind == "none":
        text = (
            f"no labels needed: the risk of every verdict is already below the target "
            f"{answer.target:g} (the largest, {answer.judge}'s, "
            f"{percent_text(answer.risk, answer.se)}); next_round.csv lists no items"
        )
        return text + (
            f"; the budget of {advice.budget} labels is not needed" if advice.budget else ""
        )
    if answer.kind == "unreachable":
        return unreachable_text(advice)
    driving = ", ".join(answer.above_target)
    if answer.kind == "budget":
        side = "under" if answer.risk <= answer.target else "still above"
        text = (
            f"spend the budget: buy {answer.labels} labels, {answer.per_secondary} more items "
            f"per secondary by {answer.design} (judges above the target now: {driving}); "
            f"predicted worst-judge risk after the round {percent_text(answer.risk, answer.se)} "
            f"({answer.judge}), {side} the target {answer.target:g}"
        )
        if answer.tie:
            text += (
                f"; {', '.join(answer.tie)} tie within noise, so the simplest, "
                f"{answer.design}, is recommended"
            )
        if advice.reach is not None and not advice.reach.reachable:
            text += "; the target itself is not reachable short of labelling every item"
    else:
        text = (
            f"buy {answer.labels} labels: {answer.per_secondary} more items per secondary by "
            f"{answer.design} bring every judge's risk under {answer.target:g} (judges above "
            f"the target now: {driving}; {answer.judge}'s risk there "
            f"{percent_text(answer.risk, answer.se)}); {_range_text(answer)}"
        )
    return text + _capping_text(answer)


def _range_text(answer):
    """Return the recommendation's range of sizes, from the curves' 95% intervals."""
    where = "where the risk curve's 95% interval straddles the target"
    low = f"{answer.low} ({answer.labels_low} labels)"
    if answer.high < 0:
        return (
            f"uncertain from {low} items per secondary to more than the largest size "
            f"simulated, {where}"
        )
    if answer.labels_high >= answer.unlabelled:
        upper = f"{answer.high} (every unlabelled item, {answer.labels_high} labels)"
    else:
        upper = f"{answer.high} ({answer.labels_high} labels)"
    return f"uncertain between {low} and {upper} items per secondary, {where}"


def _capping_text(answer):
    """Return the sentences on capped secondaries and the share of the unlabelled cells."""
    text = ""
    if answer.capped:
        text += (
            f"; {answer.capped} of {answer.secondaries} secondaries have fewer than "
            f"{answer.per_secondary} unlabelled items left and label all they have, so the "
            f"round buys {answer.labels} labels, not "
            f"{answer.per_secondary * answer.secondaries}"
        )
    if answer.labels:
        text += f"; {answer.share:.1%} of the {answer.unlabelled} unlabelled cells"
        if answer.nearly_all:
            text += ": nearly every unlabelled cell, so the sparse design is almost abandoned"
    return text


def unreachable_text(advice):
    """Return the plain statement that the target is out of reach, with the best risks."""
    reach = advice.reach
    blocking = {
        name: best for name, best in reach.best.items() if best[1] > advice.target
    } or reach.best
    best = "; ".join(
        f"{name} {percent_text(rate, se)} at {extra} items per secondary"
        for name, (extra, rate, se) in blocking.items()
    )
    text = (
        f"target risk {advice.target:g} not reachable by labelling this corpus short of "
        f"every item ({reach.n_items} items, at the sizes simulated): best achievable risk "
        f"{best}; with every item "
        "labelled the verdict is the dense one, so no next round is proposed"
    )
    beyond = {name: m for name, m in reach.beyond_corpus.items() if name in blocking}
    if beyond:
        text += "; the Gaussian recipe needs more co-labelled items than the corpus has (" + (
            ", ".join(f"{name}: {m}" for name, m in beyond.items()) + ")"
        )
    return text


def recommendation_lines(advice):
    """Return the report's opening section: the recommendation, in bold."""
    return ["## Recommendation", "", f"**{_capitalised(recommendation_text(advice))}.**", ""]


def _capitalised(text):
    """Return ``text`` with its first letter upper case."""
    return text[:1].upper() + text[1:]


# --------------------------------------------------------------------------- the details

FIGURES = {
    "simulated": (
        "the first simulated size whose estimated risk is at most the target, for every "
        "judge above it: what the recommendation buys. It takes the fitted model's spread of "
        "the comparisons as right and is itself uncertain by the curve's Monte Carlo SE."
    ),
    "conservative": (
        "the first size whose 95% Wilson upper bound is at most the target: there the risk "
        "is under the target with 95% confidence over the simulation's noise (the model "
        "taken as right); the upper end of the recommendation's range."
    ),
    "gaussian_recipe": (
        "m_cert = ceil(z^2 sigma0^2 / margin^2) co-labelled items for the binding "
        "comparison (the one closest to the bar) to clear the bar by its fitted margin "
        "under a normal approximation (docs/howto/plan.md): it bounds only that comparison's "
        "chance to land on the wrong side, not the decision over all comparisons nor a false "
        "approval, and counts co-labelled items per comparison, not new items per secondary."
    ),
}
"""What each "how many" figure of the details bounds or assumes, one sentence each."""


def details_lines(advice):
    """Return the details section: each judge's three "how many" figures and their meaning."""
    lines = [
        "",
        '### Details: the three "how many" figures',
        "",
        *(f"- *{name.replace('_', ' ')}*: {meaning}" for name, meaning in FIGURES.items()),
        "",
        "| judge | simulated | conservative | Gaussian recipe, binding comparison: held-out "
        "human, margin, sigma0^2, co-labelled items m_cert |",
        "|---|---|---|---|",
    ]
    for curve in advice.curves.values():
        point, conservative = curve.needed(advice.target)
        margin, sigma2, m_cert, held_out = advice.recipes[curve.judge]
        recipe = (
            "none (no human shares an item with another)"
            if held_out < 0
            else f"{advice.humans[held_out]}, {margin:+.3f}, {sigma2:.3f}, "
            + ("none (margin 0)" if m_cert < 0 else f"{m_cert}")
        )
        if advice.reach is not None and curve.judge in advice.reach.beyond_corpus:
            recipe += f" (more than the corpus's {advice.reach.n_items} items)"
        lines.append(
            f"| {curve.judge} | {_grid_size(point)} | {_grid_size(conservative)} | {recipe} |"
        )
    co_labelled = ", ".join(
        f"{advice.humans[h + 1]}: {int(c)}" for h, c in enumerate(advice.co_labelled)
    )
    lines += ["", f"Items each secondary now shares with the primary: {co_labelled}.", ""]
    return lines


def details_document(advice):
    """Return the details as JSON: ``{figure: {"means": sentence, "per_judge": {judge: n}}}``.

    ``simulated`` and ``conservative`` are items per secondary (-1 beyond the grid),
    ``gaussian_recipe`` co-labelled items ``m_cert`` of the binding comparison (-1: none).
    """
    values = {name: {} for name in FIGURES}
    for curve in advice.curves.values():
        point, conservative = curve.needed(advice.target)
        values["simulated"][curve.judge] = int(point)
        values["conservative"][curve.judge] = int(conservative)
        values["gaussian_recipe"][curve.judge] = int(advice.recipes[curve.judge][2])
    return {name: {"means": FIGURES[name], "per_judge": values[name]} for name in FIGURES}


def _grid_size(size):
    """Return a grid size in words (-1: beyond the grid)."""
    return "beyond the grid" if size < 0 else f"{size}"


def details_summary(advice):
    """Return the summary's one line of details: each judge's three figures."""
    parts = []
    for curve in advice.curves.values():
        point, conservative = curve.needed(advice.target)
        m_cert = advice.recipes[curve.judge][2]
        parts.append(
            f"{curve.judge} simulated {_grid_size(point)}, conservative "
            f"{_grid_size(conservative)}, Gaussian recipe "
            + ("none" if m_cert < 0 else f"{m_cert} co-labelled")
        )
    return "details (items per secondary; report.md says what each bounds): " + "; ".join(parts)


# --------------------------------------------------------------------------- the budget


def budget_lines(advice):
    """Return the table of the budget's risk under each design, with its ties."""
    if not advice.budget_rows:
        return []
    lines = [
        "",
        f"Budget {advice.budget} labels ({advice.budget_rows[0]['extra']} per secondary), "
        "risk by design (worst audited judge, ± SE; and the mean over judges):",
        "",
        "| design | risk (worst judge) | worst judge | mean risk | choice |",
        "|---|---|---|---|---|",
    ]
    for row in advice.budget_rows:
        choice = "recommended" if row.get("recommended") else ""
        if row.get("tie"):
            choice = (choice + ", tie").lstrip(", ")
        lines.append(
            f"| {row['design']} | {percent_text(row['risk'], row['se'])} | {row['worst_judge']} "
            f"| {100 * row['mean_risk']:.1f}% | {choice} |"
        )
    lines += ["", tie_sentence(advice.budget_rows)]
    return lines


def tie_sentence(rows):
    """Return the sentence that says the budget's choice: a tie, or a clear winner."""
    chosen = next(row for row in rows if row.get("recommended"))
    tied = [row["design"] for row in rows if row.get("tie")]
    rule = f"within {TIE_SES:g} combined Monte Carlo SEs of the lowest worst-judge risk"
    if tied:
        return (
            f"Tie: {', '.join(tied)} are {rule}, so the simplest, {chosen['design']}, is "
            f"recommended (simplest first: {', '.join(SIMPLICITY)})."
        )
    return f"Clear winner: {chosen['design']}; no other design is {rule}."
