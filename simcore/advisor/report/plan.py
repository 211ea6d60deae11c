"""The words of advise's plan: the one recommendation, the details behind it, the budget.

:func:`recommendation_text` says the :class:`simcore.advisor.recommendation.Recommendation`
in one paragraph (the first thing the summary, ``report.md`` and the JSON give);
:func:`details_lines` is the report's *details* section, the three "how many" figures each
with what it bounds; :func:`budget_lines` the budget's design comparison with its ties;
:func:`unreachable_text` the plain statement of a target out of reach.
"""

from simcore.advisor.recommendation import SIMPLICITY, TIE_SES
from simcore.markdown_table import markdown_table
from simcore.printed_rates import share_text

FIGURE_COLUMNS = (
    *("judge", "simulated", "conservative"),
    "Gaussian recipe, binding comparison: held-out human, margin, sigma0^2, co-labelled items "
    "m_cert",
)
"""The columns of the details' table of the three "how many" figures, one row per judge."""


def risk_share(rate, se, trials):
    """Return a risk of ``trials`` simulated matrices as :func:`simcore.printed_rates.share_text`.

    ``r% ± se`` with ten or more wrong verdicts and right ones, else the exact 95% interval
    (``< 3.0%`` for none of 100); a risk of no simulated matrix that is 0 (a dense
    matrix's, 0 exactly) prints ``0%``.
    """
    if trials == 0 and rate == 0:
        return "0%"
    return share_text(rate, se, trials, unit="%")


def every_item(advice, extra):
    """Whether ``extra`` items per secondary by the curves' design label every item."""
    answer = advice.recommendation
    if answer is None or extra <= 0:
        return False
    if extra >= len(advice.items):
        return True
    return advice.curve_design != "shared_panel" and extra >= answer.most_unlabelled


def size_words(advice, extra):
    """Return a curve size in words: ``every unlabelled item (46)`` where it labels every item."""
    return f"every unlabelled item ({extra})" if every_item(advice, extra) else f"{extra}"


def curve_risk(advice, curve, index):
    """Return a curve's point as printed: ``0% (every item labelled)``, else :func:`risk_share`."""
    if every_item(advice, curve.extra[index]) and curve.wrong[index] == 0:
        return "0% (every item labelled)"
    return risk_share(curve.rate(index), curve.se(index), curve.trials[index])


# --------------------------------------------------------------------------- the answer


def recommendation_text(advice):
    """Return the one recommendation of ``advice`` as one plain paragraph."""
    answer = advice.recommendation
    if answer.kind == "none":
        text = (
            f"no labels needed: the risk of every verdict is already below the target "
            f"{answer.target:g} (the largest, {answer.judge}'s, "
            f"{risk_share(answer.risk, answer.se, answer.trials)}); next_round.csv lists no items"
        )
        return text + (
            f"; the budget of {advice.budget} labels is not needed" if advice.budget else ""
        )
    if answer.kind == "unreachable":
        return unreachable_text(advice)
    if answer.kind == "raises_risk":
        return (
            f"no round of the budget of {advice.budget} labels is recommended: {answer.reason}; "
            "next_round.csv lists no items"
        )
    driving = ", ".join(answer.above_target)
    if answer.kind == "budget":
        side = "under" if answer.risk <= answer.target else "still above"
        text = (
            f"spend the budget: buy {answer.labels} labels, {answer.per_secondary} more items "
            f"per secondary by {answer.design} (judges above the target now: {driving}); "
            "predicted worst-judge risk after the round "
            f"{risk_share(answer.risk, answer.se, answer.trials)} ({answer.judge}; now "
            f"{risk_share(answer.risk_now, answer.risk_now_se, answer.risk_now_trials)}), "
            f"{side} the target {answer.target:g}"
        )
        if answer.tie:
            text += (
                f"; {', '.join(answer.tie)} tie within noise, so the simplest"
                f"{_not_above(advice.budget_rows)}, {answer.design}, is recommended"
            )
        if advice.reach is not None and not advice.reach.reachable:
            text += "; the target itself is not reachable short of labelling every item"
    else:
        text = (
            f"buy {answer.labels} labels: {answer.per_secondary} more items per secondary by "
            f"{answer.design} bring every judge's risk under {answer.target:g} (judges above "
            f"the target now: {driving}; {answer.judge}'s risk there "
            f"{risk_share(answer.risk, answer.se, answer.trials)}); {_range_text(answer)}"
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
        f"{name} {curve_risk(advice, advice.curves[name], advice.curves[name].extra.index(extra))}"
        f" at {extra} items per secondary"
        for name, (extra, _, _) in blocking.items()
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
    ]
    rows = []
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
        rows.append(
            (curve.judge, _grid_size(advice, point), _grid_size(advice, conservative), recipe)
        )
    lines += markdown_table(FIGURE_COLUMNS, rows)
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


def _grid_size(advice, size):
    """Return a grid size in words (-1: beyond the grid; every item: :func:`size_words`)."""
    return "beyond the grid" if size < 0 else size_words(advice, size)


def details_summary(advice):
    """Return the summary's one line of details: each judge's three figures."""
    parts = []
    for curve in advice.curves.values():
        point, conservative = curve.needed(advice.target)
        m_cert = advice.recipes[curve.judge][2]
        parts.append(
            f"{curve.judge} simulated {_grid_size(advice, point)}, conservative "
            f"{_grid_size(advice, conservative)}, Gaussian recipe "
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
    ]
    rows = []
    for row in advice.budget_rows:
        choice = "recommended" if row.get("recommended") else ""
        if row.get("tie"):
            choice = (choice + ", tie").lstrip(", ")
        if row.get("raises_risk"):
            choice = (choice + ", above the risk now").lstrip(", ")
        mean = risk_share(row["mean_risk"], row.get("mean_se", 0.0), row.get("trials", 0))
        risk = risk_share(row["risk"], row["se"], row.get("trials", 0))
        rows.append((row["design"], risk, row["worst_judge"], mean, choice))
    header = ("design", "risk (worst judge)", "worst judge", "mean risk", "choice")
    lines += markdown_table(header, rows)
    lines += ["", tie_sentence(advice.budget_rows)]
    return lines


def tie_sentence(rows):
    """Return the sentence that says the budget's choice: a tie, a clear winner, or none.

    No design is recommended when every one is above the worst risk now
    (:func:`simcore.advisor.recommendation.choose_design`'s ceiling).
    """
    chosen = next((row for row in rows if row.get("recommended")), None)
    if chosen is None:
        return (
            "None recommended: every design's worst-judge risk is above the worst risk now, "
            "so no round of this size is predicted to lower it."
        )
    tied = [row["design"] for row in rows if row.get("tie")]
    rule = f"within {TIE_SES:g} combined Monte Carlo SEs of the lowest worst-judge risk"
    if tied:
        return (
            f"Tie: {', '.join(tied)} are {rule}, so the simplest{_not_above(rows)}, "
            f"{chosen['design']}, is recommended (simplest first: {', '.join(SIMPLICITY)})."
        )
    return f"Clear winner: {chosen['design']}; no other design is {rule}."


def _not_above(rows):
    """Return `` not above the risk now`` when a tied design is above it, else ``""``."""
    return (
        " not above the risk now"
        if any(r.get("tie") and r.get("raises_risk") for r in rows)
        else ""
    )
