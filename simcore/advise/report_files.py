"""The files ``simcore advise`` writes: ``next_round.csv``, ``report.md``, ``report.png``."""

import csv
import math
from pathlib import Path

import numpy as np

from simcore.advise.channels import is_one_coin
from simcore.advise.dense import all_dense, misfit_note, risk_basis, risk_text
from simcore.advise.report_figure import report_figure
from simcore.advise.risk import RISK_SE_TARGET


def _percent(rate, se):
    if math.isnan(rate):
        return "n/a"
    return f"{100 * rate:.1f}% ± {100 * se:.1f}"


def _number(value, digits=3):
    return "n/a" if value is None or math.isnan(value) else f"{value:.{digits}f}"


def next_round_rows(advice):
    """Return ``[human, item, design]`` rows: the items each secondary is to label next."""
    rows = np.argwhere(advice.proposal)
    return [
        [advice.humans[human], advice.items[item], advice.design]
        for human in range(1, len(advice.humans))
        for item in sorted(rows[rows[:, 1] == human][:, 0])
    ]


def write_next_round(advice, path):
    """Write ``human,item,design`` rows: the items each secondary is to label next."""
    rows = next_round_rows(advice)
    with Path(path).open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["human", "item", "design"])
        writer.writerows(rows)
    return len(rows)


def report_markdown(advice):
    """Return the Markdown report of an :class:`simcore.advise.advice.Advice`."""
    lines = [
        "# simcore advise",
        "",
        f"Data: `{advice.source}`; humans {', '.join(advice.humans)} (the first is the "
        f"primary); labels {', '.join(advice.labels)}; rule {advice.rule}, eps "
        f"{advice.epsilon:g}; target risk {advice.target:g}.",
        "",
    ]
    if advice.shape is not None:
        lines += ["```", advice.shape.text(), "```", ""]
    lines += _verdict_section(advice)
    lines += _trust_section(advice)
    lines += _next_section(advice)
    lines += _allocation_section(advice)
    return "\n".join(lines)


# --------------------------------------------------------------------------- 1. the verdict


def _verdict_section(advice):
    """Return section 1: each judge's verdict, then its comparisons with their intervals."""
    if advice.rule == "alt_test":
        return _alt_test_section(advice)
    lines = [
        "## 1. The verdict on the data as it is",
        "",
        "| judge | omega | effective K | decision | interval verdict |",
        "|---|---|---|---|---|",
    ]
    for row in advice.verdicts:
        lines.append(
            f"| {row['judge']} | {row['omega']:.2f} | {row['effective_k']} | {row['decision']} "
            f"| {row['interval_verdict']} |"
        )
    lines += ["", *sparse_comparison_lines(advice)]
    lines += [
        "",
        "Each comparison: d_k = the judge's minus held-out human k's agreement with the other "
        "humans on k's items, with a 95% item-cluster interval; the bar is d_k >= -eps.",
        "",
        "| judge | held-out human | d_k | 95% interval | items | pairs | verdict |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in advice.verdicts:
        for k, comparison in enumerate(row["comparisons"]):
            lines.append(
                f"| {row['judge']} | {advice.humans[k]} | {_number(comparison['d'])} "
                f"| [{_number(comparison['low'])}, {_number(comparison['high'])}] "
                f"| {comparison['items']} | {comparison['pairs']} | {comparison['verdict']} |"
            )
    return lines


SPARSE_WARNING_SHARE = 0.10
"""Warn when more than this share of the leave-one-out comparisons has no pair."""


def sparse_comparison_lines(advice):
    """Return the lines on empty and left-out comparisons, with a warning when they are many.

    A held-out human who shares no item with another human has a comparison with no pair;
    by the paper's convention it passes, for every judge, so in a crowd of sparse raters
    omega says more about the overlap than about the judge.
    """
    if advice.rule == "alt_test" or not advice.verdicts:
        return []
    row = advice.verdicts[0]  # the pairs depend on who labelled what, not on the judge
    n_humans = len(row["comparisons"])
    empty, left_out = row["empty"], row["left_out"]
    lines = [
        f"Comparisons with no pair: {empty} of {n_humans} ({empty / n_humans:.0%}); "
        + (
            f"left out by min_pairs {advice.min_pairs}: {left_out}, so omega is over "
            f"{n_humans - left_out} comparisons."
            if advice.min_pairs > 0
            else "each passes by the paper's convention (min_pairs 0)."
        )
    ]
    if advice.min_pairs == 0 and empty > SPARSE_WARNING_SHARE * n_humans:
        lines.append(
            f"WARNING: {empty / n_humans:.0%} of the comparisons have no pair and pass for "
            "every judge whatever its labels; --min-pairs 1 (or more) leaves them out of "
            "omega."
        )
    return lines


def _winning_rate(row):
    """Return ``wins/tested = rate`` with three decimals (7/13 and 8/13 read apart)."""
    if not row["tested"]:
        return "no human tested"
    return f"{row['wins']}/{row['tested']} = {row['omega']:.3f}"


def _alt_test_section(advice):
    """Return section 1 under ``--rule alt_test``: winning rate, advantage, per-human tests."""
    scale = advice.verdicts[0]["scale"] if advice.verdicts else "categorical"
    score = "accuracy" if scale == "categorical" else "minus the RMSE of the label values"
    lines = [
        "## 1. The verdict on the data as it is",
        "",
        "The alternative annotator test (Calderon, Reichart & Dror, ACL 2025): items with "
        "fewer than 2 human labels dropped; for each held-out human with at least 30 items, "
        f"per item the judge's and the human's {score} against the other humans; "
        "d_i = [human >= judge] - [judge >= human]; one-sided t-test of mean(d) >= eps "
        f"(eps {advice.epsilon:g}); Benjamini-Yekutieli at q = 0.05 over the tested humans. "
        "A rejected human is a win for the judge. Winning rate = wins / humans tested "
        "(pass iff >= 0.5). Advantage probability = the mean over the tested humans of the "
        "share of items on which the judge scores at least as well as the human (higher is "
        "better; for comparing judges).",
        "",
        "| judge | winning rate (wins/tested) | advantage probability | decision |",
        "|---|---|---|---|",
    ]
    for row in advice.verdicts:
        lines.append(
            f"| {row['judge']} | {_winning_rate(row)} "
            f"| {_number(row['advantage_probability'])} | {row['decision']} |"
        )
    lines += [
        "",
        "| judge | held-out human | items | p-value | BY decision | advantage |",
        "|---|---|---|---|---|---|",
    ]
    for row in advice.verdicts:
        for h, test in enumerate(row["alt_test"]):
            if test["tested"]:
                decision = "win" if test["won"] else "no win"
                pvalue = f"{test['pvalue']:.3g}"
            else:
                decision, pvalue = "skipped (< 30 items)", "n/a"
            lines.append(
                f"| {row['judge']} | {advice.humans[h]} | {test['items']} | {pvalue} "
                f"| {decision} | {_number(test['advantage'])} |"
            )
    return lines


# --------------------------------------------------------------------------- 2. the trust


def _trust_section(advice):
    """Return section 2: the fitted models, how well they fit, and the risk now."""
    lines = ["", "## 2. How much to trust it", ""]
    lines += _model_table(advice)
    lines.append("")
    lines.append(_misfit_note(advice))
    lines += _risk_now_table(advice)
    return lines


def _model_table(advice):
    """Return the table of each judge's model: accuracies ± SE, margin, largest misfit."""
    lines = [
        f"One model per judge, fitted to the humans and that judge ({_model_kind(advice)}). "
        "Accuracy = sum over labels of prevalence x the confusion matrix's diagonal "
        "(one-coin: the probability of reporting the true label), "
        "± bootstrap SE over items. The fitted margin is that of the binding comparison "
        "(held-out human k closest to the bar): the mean over k's pool of "
        "P(judge = r) - P(k = r), each pool human r weighted by its share of the pairs "
        "(k, r) co-labelled, plus eps.",
        "",
        "| judge's model | "
        + " | ".join(advice.humans)
        + " | judge | fitted margin | largest misfit (pair: observed vs fitted, z) |",
        "|---|" + "---|" * (len(advice.humans) + 3),
    ]
    for name, model in advice.models.items():
        accuracy = " | ".join(
            f"{model.fit.accuracies[r]:.2f} ± {model.errors.accuracies[r]:.2f}"
            for r in range(len(advice.humans) + 1)
        )
        worst = max(model.diagnostics, key=lambda row: abs(row["z"]), default=None)
        misfit = (
            f"{worst['rater_a']} – {worst['rater_b']}: {worst['observed']:.3f} vs "
            f"{worst['fitted']:.3f}, z {worst['z']:.1f}"
            if worst
            else "n/a"
        )
        margin = advice.recipes[name][0]
        lines.append(f"| {name} | {accuracy} | {margin:+.3f} | {misfit} |")
    return lines


def _model_kind(advice):
    """Return which latent-class model the judges' fits are, in words."""
    fits = [model.fit for model in advice.models.values()]
    if fits and all(is_one_coin(fit.raters) for fit in fits):
        return (
            f"one-coin EM: one accuracy per rater, errors spread evenly over the other "
            f"{len(advice.labels) - 1} labels"
        )
    return "Dawid-Skene EM: one confusion matrix per rater"


def _misfit_note(advice):
    """Return the paragraph on the rater pairs the models fit poorly, or that none is."""
    if misfit_note(advice):
        return misfit_note(advice)
    if advice.misfits:
        return (
            "**These models fit some rater pairs poorly** (observed vs fitted agreement; "
            "|z| > 4 and a gap above 0.05), so treat their risks below as rough: "
            + "; ".join(
                f"{name}'s model, {row['rater_a']} – {row['rater_b']} ({row['observed']:.3f} "
                f"vs {row['fitted']:.3f}, z {row['z']:.1f})"
                for name, row in advice.misfits
            )
            + "."
        )
    return (
        "Every model reproduces every rater pair's observed agreement within the limits "
        "(|z| <= 4 or a gap <= 0.05)."
    )


def _risk_now_table(advice):
    """Return the table of each judge's posterior-predictive risk now, ± Monte Carlo SE."""
    lines = [
        "",
        "Risk that the verdict differs from the one a dense matrix (every human labels every "
        "item) would give, simulated at the data's overlap structure under bootstrap refits "
        "of the fitted model, each run of draws under its own refit, so the fit's "
        "uncertainty is inside the risk (± Monte Carlo SE; drawn until the SE is at most "
        f"{100 * RISK_SE_TARGET:.0f} percentage point). Under the point rule the simulated "
        "comparisons are anchored at the observed d_k of section 1: the model supplies how "
        "far they move; on a crowd (20 or more comparisons), for a comparison on few items, "
        "also where it sits (README, *Thin comparisons*). Beside it, the interval risk: the same "
        "probability read from the comparison intervals of section 1 alone, each dense d_k "
        "normal around its estimate, the comparisons independent, no model; on the shipped "
        "matrices the two scored alike (README, *Is advise's risk calibrated?*).",
        "",
        "| judge | risk now | interval risk | simulated matrices | bootstrap refits |",
        "|---|---|---|---|---|",
    ]
    intervals = {row["judge"]: row.get("interval_risk", math.nan) for row in advice.verdicts}
    for name in advice.risk_now:
        curve = advice.curves[name]
        draws = curve.trials[0] if curve.extra and curve.extra[0] == 0 else 0
        refits = len(advice.models[name].refits)
        interval = intervals.get(name, math.nan)
        shown = "n/a" if math.isnan(interval) else f"{100 * interval:.1f}%"
        lines.append(f"| {name} | {risk_text(advice, name)} | {shown} | {draws} | {refits} |")
    return lines


# --------------------------------------------------------------------------- 3. what next


def _next_section(advice):
    """Return section 3: the risk curves, the items needed, the recommendation, the budget."""
    lines = [
        "",
        "## 3. What to label next",
        "",
        f"Risk when each secondary labels `extra` more items chosen by `{advice.curve_design}`:",
        "",
    ]
    lines += _curve_table(advice)
    lines += _needed_table(advice)
    lines.append(_recommendation(advice))
    lines += _budget_table(advice)
    return lines


def _curve_table(advice):
    """Return the table of every judge's risk at each grid value of extra items."""
    curves = list(advice.curves.values())
    lines = ["| extra items per secondary | " + " | ".join(c.judge for c in curves) + " |"]
    lines.append("|---|" + "---|" * len(curves))
    sizes = sorted({extra for curve in curves for extra in curve.extra})
    for extra in sizes:
        cells = [
            _percent(c.rate(c.extra.index(extra)), c.se(c.extra.index(extra)))
            if extra in c.extra
            else "—"
            for c in curves
        ]
        lines.append(f"| {extra} | " + " | ".join(cells) + " |")
    if any(len(curve.extra) < len(sizes) for curve in curves):
        lines += [
            "",
            "— : not simulated; the curve stops once the risk is under the target with 95% "
            "confidence.",
        ]
    lines += [
        "",
        "Points after the risk now stop early once their side of the target is settled, so "
        "their SEs differ; where every secondary labels every item the risk is 0 exactly.",
    ]
    return lines


def _needed_table(advice):
    """Return the items each judge needs (simulated, by the recipe) and the co-labelled now."""
    lines = [
        "",
        "| judge | items per secondary for risk <= target (simulated; conservative) "
        "| Gaussian recipe, binding comparison: held-out human, margin, sigma0^2, "
        "co-labelled items m_cert |",
        "|---|---|---|",
    ]
    for curve in advice.curves.values():
        point, conservative = curve.needed(advice.target)
        margin, sigma2, m_cert, held_out = advice.recipes[curve.judge]
        shown = "beyond the grid" if point < 0 else f"{point}"
        careful = "beyond the grid" if conservative < 0 else f"{conservative}"
        recipe = (
            "none (no human shares an item with another)"
            if held_out < 0
            else f"{advice.humans[held_out]}, {margin:+.3f}, {sigma2:.3f}, "
            + ("none (margin 0)" if m_cert < 0 else f"{m_cert}")
        )
        if advice.reach is not None and curve.judge in advice.reach.beyond_corpus:
            recipe += f" (more than the corpus's {advice.reach.n_items} items)"
        lines.append(f"| {curve.judge} | {shown}; {careful} | {recipe} |")
    co_labelled = ", ".join(
        f"{advice.humans[h + 1]}: {int(c)}" for h, c in enumerate(advice.co_labelled)
    )
    lines += [
        "",
        f"Items each secondary now shares with the primary: {co_labelled}. The recipe's "
        "m_cert counts co-labelled items per comparison; the simulation counts new items per "
        "secondary under the design, with every judge's risk under the target.",
        "",
    ]
    return lines


def _recommendation(advice):
    """Return the recommended items per secondary, or why the target is out of reach."""
    if advice.reach is not None and not advice.reach.reachable:
        return "**Recommendation:** " + unreachable_text(advice) + "."
    if advice.recommended_extra >= 0:
        return (
            f"**Recommendation:** {advice.recommended_extra} more items per secondary "
            f"(design `{advice.curve_design}`) bring every audited judge's risk under "
            f"{advice.target:g}."
        )
    largest = list(advice.curves.values())[0].extra[-1]
    return (
        f"**Recommendation:** no grid value up to {largest} items per "
        f"secondary brings every judge's risk under {advice.target:g}; label the "
        "proposal and re-run advise, or accept a larger risk."
    )


def unreachable_text(advice):
    """Return the plain statement that the target is out of reach, with the best risks."""
    reach = advice.reach
    blocking = {
        name: best for name, best in reach.best.items() if best[1] > advice.target
    } or reach.best
    best = "; ".join(
        f"{name} {_percent(rate, se)} at {extra} items per secondary"
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


def _budget_table(advice):
    """Return the table of the budget's risk under each design (none without a budget)."""
    if not advice.budget_rows:
        return []
    lines = [
        "",
        f"Budget {advice.budget} labels ({advice.budget_rows[0]['extra']} per secondary), "
        "risk by design (worst audited judge, ± SE; and the mean over judges):",
        "",
        "| design | risk (worst judge) | worst judge | mean risk |",
        "|---|---|---|---|",
    ]
    for row in advice.budget_rows:
        lines.append(
            f"| {row['design']} | {_percent(row['risk'], row['se'])} | {row['worst_judge']} "
            f"| {100 * row['mean_risk']:.1f}% |"
        )
    return lines


# --------------------------------------------------------------------------- 4. the allocation


def _allocation_section(advice):
    """Return section 4: the items ``next_round.csv`` gives each secondary, by which design."""
    per_human = ", ".join(
        f"{advice.humans[h]}: {int(advice.proposal[:, h].sum())}"
        for h in range(1, len(advice.humans))
    )
    if advice.reach is not None and not advice.reach.reachable and not advice.proposal.any():
        return [
            "",
            "## 4. The allocation",
            "",
            "`next_round.csv` lists no items: " + unreachable_text(advice) + ".",
            "",
        ]
    return [
        "",
        "## 4. The allocation",
        "",
        f"`next_round.csv` lists {int(advice.proposal.sum())} items for the secondaries "
        f"({per_human}), chosen by `{advice.design}` among the items each has not labelled "
        "yet.",
        "",
    ]


def write_outputs(advice, directory):
    """Write ``next_round.csv``, ``report.md`` and ``report.png`` into ``directory``."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    write_next_round(advice, directory / "next_round.csv")
    (directory / "report.md").write_text(report_markdown(advice) + "\n", encoding="utf-8")
    report_figure(advice, directory / "report.png")
    return directory


def summary(advice):
    """Return the short text ``simcore advise`` prints."""
    lines = [] if advice.shape is None else [advice.shape.text().splitlines()[0]]
    for row in advice.verdicts:
        verdict = (
            f"winning rate {_winning_rate(row)}, advantage probability "
            f"{_number(row['advantage_probability'])}, {row['decision']}"
            if advice.rule == "alt_test"
            else f"omega {row['omega']:.2f}, {row['decision']} (interval verdict "
            f"{row['interval_verdict']}, effective K {row['effective_k']})"
        )
        dense = risk_basis(advice, row["judge"]) == "dense"
        lines.append(
            f"{row['judge']}: {verdict}; risk of a wrong verdict {risk_text(advice, row['judge'])}"
            + ("" if dense else " (model uncertainty included)")
        )
    lines += [line for line in sparse_comparison_lines(advice) if line.startswith("WARNING")]
    if advice.misfits and not all_dense(advice):
        lines.append(
            f"the fitted models fit {len(advice.misfits)} rater pair(s) poorly: "
            "treat the risks as rough (see report.md)"
        )
    if advice.reach is not None and not advice.reach.reachable:
        lines.append(unreachable_text(advice))
    elif advice.recommended_extra >= 0:
        lines.append(
            f"items needed: {advice.recommended_extra} per secondary by "
            f"{advice.curve_design} bring every judge's risk under {advice.target:g}"
        )
    else:
        lines.append(
            f"items needed: more than {list(advice.curves.values())[0].extra[-1]} per "
            f"secondary by {advice.curve_design} to reach {advice.target:g}"
        )
    lines.append(
        f"next_round.csv: {advice.extra} items per secondary by {advice.design}"
        + (f" (the best design for a budget of {advice.budget})" if advice.budget else "")
    )
    return "\n".join(lines)
