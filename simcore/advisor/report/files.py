"""The files ``simcore advise`` writes: ``next_round.csv``, ``report.md``, ``report.png``."""

import csv
import math
from pathlib import Path

import numpy as np

from simcore.advisor.channels import is_one_coin
from simcore.advisor.dense import all_dense, misfit_note, risk_basis, risk_text
from simcore.advisor.report.figure import figure_writer
from simcore.advisor.report.plan import (
    budget_lines,
    curve_risk,
    details_lines,
    details_summary,
    recommendation_lines,
    recommendation_text,
    size_words,
    unreachable_text,
)
from simcore.advisor.risk.posterior import RISK_SE_TARGET
from simcore.advisor.scoring_check import (
    scoring_check_lines,
    settled_text,
    unsettled_lines,
    unsettled_note,
)
from simcore.advisor.suspects import suspect_lines, suspect_section
from simcore.markdown_table import markdown_table
from simcore.realdata.label_scale import scale_line


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


def rows_writer(header, rows):
    """Return ``write(stream)`` writing ``header`` and ``rows`` as CSV (for ``write_together``)."""

    def write(stream):
        writer = csv.writer(stream)
        writer.writerow(header)
        writer.writerows(rows)

    return write


def report_markdown(advice):
    """Return the Markdown report of an :class:`simcore.advisor.advice.Advice`."""
    lines = ["# simcore advise", ""]
    if advice.recommendation is not None:
        lines += recommendation_lines(advice)
        lines += unsettled_lines(advice)
    lines += [
        f"Data: `{advice.source}`; humans {', '.join(advice.humans)} (the first is the "
        f"primary); labels {', '.join(advice.labels)}; rule {advice.rule}"
        f"{coefficient_words(advice)}, eps {advice.epsilon:g}; target risk {advice.target:g}.",
        "",
    ]
    lines += [*scale_lines(advice), ""]
    if advice.shape is not None:
        lines += ["```", advice.shape.text(), "```", ""]
    if advice.rule_form is not None:
        lines += [f"The rule ran in its {form_sentence(advice.rule_form)}", ""]
    lines += _verdict_section(advice)
    lines += suspect_section(advice)
    lines += scoring_check_lines(advice)
    lines += _trust_section(advice)
    lines += _next_section(advice)
    lines += _allocation_section(advice)
    return "\n".join(lines)


# --------------------------------------------------------------------------- 1. the verdict


def scale_lines(advice):
    """Return the line naming the labels' scale, the scoring, and the other one checked."""
    if advice.label_scale is None:
        return []
    check = None
    if advice.scoring_check:
        other = next(iter(advice.scoring_check.values()))["scoring"]
        check = f"each verdict also decided under {other}"
    return [scale_line(advice.label_scale, advice.scoring, check)]


def coefficient_words(advice):
    """Return `` scored by C`` for a coefficient other than observed agreement, else ``""``."""
    if advice.rule == "alt_test" or advice.coefficient == "observed":
        return ""
    return f" scored by {advice.coefficient}"


def comparison_sentence(advice):
    """Return the sentence saying what each ``d_k`` of section 1 is."""
    if advice.coefficient == "observed":
        return (
            "Each comparison: d_k = the judge's minus held-out human k's agreement with the "
            "other humans on k's items, with a 95% item-cluster interval; the bar is d_k >= -eps."
        )
    interval = (
        "item-cluster interval"
        if advice.coefficient.startswith("observed")
        else "delete-one-item jackknife interval"
    )
    return (
        f"Each comparison: d_k = {advice.coefficient} of the judge's minus of held-out human "
        f"k's pair table with the other humans on k's items, with a 95% {interval}; the bar "
        "is d_k >= -eps."
    )


def _verdict_section(advice):
    """Return section 1: each judge's verdict, then its comparisons with their intervals."""
    if advice.rule == "alt_test":
        return _alt_test_section(advice)
    lines = [
        "## 1. The verdict on the data as it is",
        "",
    ]
    verdicts = [
        (row["judge"], f"{row['omega']:.2f}", row["effective_k"], row["decision"])
        + (row["interval_verdict"],)
        for row in advice.verdicts
    ]
    header = ("judge", "omega", "effective K", "decision", "interval verdict")
    lines += markdown_table(header, verdicts)
    lines += ["", *sparse_comparison_lines(advice)]
    lines += ["", comparison_sentence(advice), ""]
    comparisons = []
    for row in advice.verdicts:
        for k, comparison in enumerate(row["comparisons"]):
            interval = f"[{_number(comparison['low'])}, {_number(comparison['high'])}]"
            cells = (row["judge"], advice.humans[k], _number(comparison["d"]), interval)
            comparisons.append(
                (*cells, comparison["items"], comparison["pairs"], comparison["verdict"])
            )
    header = ("judge", "held-out human", "d_k", "95% interval", "items", "pairs", "verdict")
    return lines + markdown_table(header, comparisons)


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
    first = advice.verdicts[0] if advice.verdicts else {"scale": "categorical"}
    score = {
        "categorical": "accuracy",
        "numeric": "minus the RMSE of the label values",
        "weighted": f"mean agreement weight ({first.get('weights')} weights)",
    }[first["scale"]]
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
    ]
    rates = [
        (row["judge"], _winning_rate(row), _number(row["advantage_probability"]), row["decision"])
        for row in advice.verdicts
    ]
    header = ("judge", "winning rate (wins/tested)", "advantage probability", "decision")
    lines += [*markdown_table(header, rates), ""]
    tests = []
    for row in advice.verdicts:
        for h, test in enumerate(row["alt_test"]):
            if test["tested"]:
                decision = "win" if test["won"] else "no win"
                pvalue = f"{test['pvalue']:.3g}"
            else:
                decision, pvalue = "skipped (< 30 items)", "n/a"
            cells = (row["judge"], advice.humans[h], test["items"], pvalue, decision)
            tests.append((*cells, _number(test["advantage"])))
    header = ("judge", "held-out human", "items", "p-value", "BY decision", "advantage")
    return lines + markdown_table(header, tests)


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
    ]
    rows = []
    for name, model in advice.models.items():
        accuracy = [
            f"{model.fit.accuracies[r]:.2f} ± {model.errors.accuracies[r]:.2f}"
            for r in range(len(advice.humans) + 1)
        ]
        worst = max(model.diagnostics, key=lambda row: abs(row["z"]), default=None)
        misfit = (
            f"{worst['rater_a']} – {worst['rater_b']}: {worst['observed']:.3f} vs "
            f"{worst['fitted']:.3f}, z {worst['z']:.1f}"
            if worst
            else "n/a"
        )
        margin = advice.recipes[name][0]
        rows.append((name, *accuracy, f"{margin:+.3f}", misfit))
    header = ("judge's model", *advice.humans, "judge", "fitted margin")
    header += ("largest misfit (pair: observed vs fitted, z)",)
    return lines + markdown_table(header, rows)


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
        "also where it sits (docs/explanation/advise-risk.md). Beside it, the interval risk: "
        "the same probability read from the comparison intervals of section 1 alone, each "
        "dense d_k normal around its estimate, the comparisons independent, no model; on the "
        "shipped matrices the two scored alike (docs/explanation/advise-risk.md).",
        "",
    ]
    rows = []
    intervals = {row["judge"]: row.get("interval_risk", math.nan) for row in advice.verdicts}
    for name in advice.risk_now:
        curve = advice.curves[name]
        draws = curve.trials[0] if curve.extra and curve.extra[0] == 0 else 0
        refits = len(advice.models[name].refits)
        interval = intervals.get(name, math.nan)
        shown = "n/a" if math.isnan(interval) else f"{100 * interval:.1f}%"
        rows.append((name, risk_text(advice, name), shown, draws, refits))
    header = ("judge", "risk now", "interval risk", "simulated matrices", "bootstrap refits")
    return lines + markdown_table(header, rows)


# --------------------------------------------------------------------------- 3. what next


def _next_section(advice):
    """Return section 3: the risk curves, the budget's designs, the details of how many."""
    lines = [
        "",
        "## 3. What to label next",
        "",
        f"Risk when each secondary labels `extra` more items chosen by `{advice.curve_design}`:",
        "",
    ]
    lines += _curve_table(advice)
    lines += budget_lines(advice)
    lines += details_lines(advice)
    return lines


def _curve_table(advice):
    """Return the table of every judge's risk at each grid value of extra items."""
    curves = list(advice.curves.values())
    sizes = sorted({extra for curve in curves for extra in curve.extra})
    rows = [
        [size_words(advice, extra)]
        + [curve_risk(advice, c, c.extra.index(extra)) if extra in c.extra else "—" for c in curves]
        for extra in sizes
    ]
    lines = markdown_table(["extra items per secondary", *(c.judge for c in curves)], rows)
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


# --------------------------------------------------------------------------- 4. the allocation


NO_ROUND = {
    "none": "`next_round.csv` lists no items: no labels needed, every verdict's risk is "
    "already below the target.",
    "raises_risk": "`next_round.csv` lists no items: no round of the budget's size is "
    "predicted to lower the risk (the recommendation says why).",
}
"""What section 4 says for a recommendation that proposes no round."""


def _allocation_section(advice):
    """Return section 4: the items ``next_round.csv`` gives each secondary, by which design."""
    per_human = ", ".join(
        f"{advice.humans[h]}: {int(advice.proposal[:, h].sum())}"
        for h in range(1, len(advice.humans))
    )
    if advice.recommendation is not None and advice.recommendation.kind in NO_ROUND:
        return ["", "## 4. The allocation", "", NO_ROUND[advice.recommendation.kind], ""]
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


OUTPUT_FILES = {
    "report.md": "advise-report",
    "next_round.csv": "next-round",
    "report.png": "figure",
}
"""The files ``simcore advise --out DIR`` writes, each with its kind
(:data:`simcore.output_files.KINDS`); a grouped matrix writes ``report_<n>.png`` for the
figures."""


def write_outputs(advice, directory):
    """Write ``next_round.csv``, ``report.md`` and ``report.png`` into ``directory``.

    The three are written together (:func:`simcore.output_files.write_together`): a failed
    write replaces none of them and leaves no folder it created.
    """
    from simcore.output_files import write_together

    directory = Path(directory)
    text = report_markdown(advice) + "\n"
    rows = next_round_rows(advice)
    write_together(
        [
            (directory / "next_round.csv", rows_writer(["human", "item", "design"], rows), False),
            (directory / "report.md", lambda stream: stream.write(text), False),
            (directory / "report.png", figure_writer(advice), True),
        ]
    )
    return directory


def summary(advice):
    """Return the short text ``simcore advise`` prints: the recommendation first."""
    lines = (
        []
        if advice.recommendation is None
        else [f"recommendation: {recommendation_text(advice)}{unsettled_note(advice)}"]
    )
    lines += scale_lines(advice)
    lines += [] if advice.shape is None else [advice.shape.text().splitlines()[0]]
    lines += [] if advice.rule_form is None else [advice.rule_form.text()]
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
            + settled_text(row, advice.scoring_check, advice.scoring)
        )
    lines += suspect_lines(advice)
    lines += [line for line in sparse_comparison_lines(advice) if line.startswith("WARNING")]
    if advice.misfits and not all_dense(advice):
        lines.append(
            f"the fitted models fit {len(advice.misfits)} rater pair(s) poorly: "
            "treat the risks as rough (see report.md)"
        )
    lines.append(details_summary(advice))
    lines.append(
        "next_round.csv: no items (no round recommended)"
        if not advice.proposal.any()
        else f"next_round.csv: {int(advice.proposal.sum())} labels, {advice.extra} items per "
        f"secondary by {advice.design}"
        + (f" (the design chosen for a budget of {advice.budget})" if advice.budget else "")
    )
    return "\n".join(lines)


def form_sentence(form):
    """Return what ``form`` (a :class:`~simcore.model.rule_form.RuleForm`) held out."""
    held_out = {
        "raters": "every human held out in turn",
        "slots": "label positions held out in turn (slot s: the s-th label of each item)",
        "pooled": "humans who share few items pooled into virtual raters, each held out",
    }[form.form]
    return f"form: {form.description()}: {held_out}."
