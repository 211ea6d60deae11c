"""The calibration study's outputs: ``STEM.csv`` (the cases), ``STEM.md`` and ``STEM.png``.

:func:`score_cases` pools the cases of :mod:`experiments.advise_calibration` into the
reliability table and the three Brier scores
(:mod:`experiments.advise_calibration_scores`); :func:`write_report` writes them.
"""

import csv
import math
from pathlib import Path
from typing import NamedTuple

import numpy as np

from experiments.advise_calibration_scores import (
    MIN_BIN_CASES,
    brier_difference,
    brier_score,
    calibration_in_the_large,
    leave_one_group_out_share,
    reliability_bins,
)

CASE_COLUMNS = (
    "matrix",
    "coverage",
    "replicate",
    "judge",
    "predicted",
    "predicted_se",
    "normal_baseline",
    "constant_baseline",
    "sparse_decision",
    "dense_decision",
    "wrong",
    "effective_k",
    "seconds",
)


class Scores(NamedTuple):
    """The pooled scores of a set of cases."""

    n: int
    realised: float
    mean_predicted: float
    bins: list
    brier: float
    brier_constant: float
    brier_normal: float
    versus_constant: tuple
    versus_normal: tuple
    z_pooled: float
    normal_bins: list

    @property
    def bins_within_2se(self):
        """Whether every bin with at least :data:`MIN_BIN_CASES` cases is within two SEs."""
        return all(row.within_2se for row in self.bins if row.n >= MIN_BIN_CASES)

    @property
    def beats_baselines(self):
        """Whether the risk's Brier score is below both baselines'."""
        return self.brier < self.brier_constant and self.brier < self.brier_normal


def case_arrays(cases):
    """Return ``(predicted, wrong, matrix, normal baseline)`` arrays of the cases."""
    predicted = np.array([case["predicted"] for case in cases], dtype=float)
    wrong = np.array([case["wrong"] for case in cases], dtype=bool)
    groups = np.array([case["matrix"] for case in cases])
    normal = np.array([case["normal_baseline"] for case in cases], dtype=float)
    return predicted, wrong, groups, normal


def score_cases(cases):
    """Return the :class:`Scores` of ``cases``; each case gains its ``constant_baseline``."""
    predicted, wrong, groups, normal = case_arrays(cases)
    constant = leave_one_group_out_share(groups, wrong)
    for case, value in zip(cases, constant, strict=True):
        case["constant_baseline"] = float(value)
    return Scores(
        n=len(cases),
        realised=float(wrong.mean()),
        mean_predicted=float(predicted.mean()),
        bins=reliability_bins(predicted, wrong),
        brier=brier_score(predicted, wrong),
        brier_constant=brier_score(constant, wrong),
        brier_normal=brier_score(normal, wrong),
        versus_constant=brier_difference(predicted, constant, wrong),
        versus_normal=brier_difference(predicted, normal, wrong),
        z_pooled=calibration_in_the_large(predicted, wrong),
        normal_bins=reliability_bins(normal, wrong),
    )


def write_cases(cases, path):
    """Write one CSV row per case (:data:`CASE_COLUMNS`)."""
    with Path(path).open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=CASE_COLUMNS, extrasaction="ignore")
        writer.writeheader()
        for case in cases:
            writer.writerow({key: _csv_value(case[key]) for key in CASE_COLUMNS})


def _csv_value(value):
    if isinstance(value, float):
        return f"{value:.6g}"
    return int(value) if isinstance(value, bool | np.bool_) else value


def _percent(value):
    return "-" if not math.isfinite(value) else f"{100 * value:.1f}%"


def bins_table(bins):
    """Return the reliability table as markdown lines."""
    lines = [
        "| predicted risk | n | mean predicted | realised (Wilson 95%) | SE | within 2 SE |",
        "|---|---|---|---|---|---|",
    ]
    for row in bins:
        closing = "]" if row.high == 1.0 else ")"
        flag = "yes" if row.within_2se else "no"
        if row.n < MIN_BIN_CASES:
            flag += f" (n < {MIN_BIN_CASES}: not held to it)"
        lines.append(
            f"| [{row.low:g}, {row.high:g}{closing} | {row.n} | {_percent(row.mean_predicted)} "
            f"| {_percent(row.realised)} ({_percent(row.wilson_low)}-{_percent(row.wilson_high)})"
            f" | {_percent(row.se)} | {flag} |"
        )
    return lines


def brier_lines(scores):
    """Return the Brier comparison as markdown lines."""
    constant_diff, constant_se = scores.versus_constant
    normal_diff, normal_se = scores.versus_normal
    return [
        "| predictor | Brier score | advise minus it (paired SE) |",
        "|---|---|---|",
        f"| advise's risk now | {scores.brier:.4f} | |",
        f"| constant (share wrong in the other matrices) | {scores.brier_constant:.4f} "
        f"| {constant_diff:+.4f} ({constant_se:.4f}) |",
        f"| normal approximation from the d_k intervals | {scores.brier_normal:.4f} "
        f"| {normal_diff:+.4f} ({normal_se:.4f}) |",
    ]


def per_matrix_lines(cases):
    """Return per matrix and coverage: cases, mean predicted and realised share wrong."""
    lines = ["| matrix | coverage | cases | mean predicted | realised |", "|---|---|---|---|---|"]
    keys = dict.fromkeys((case["matrix"], case["coverage"]) for case in cases)
    for matrix, coverage in keys:
        chosen = [c for c in cases if c["matrix"] == matrix and c["coverage"] == coverage]
        predicted = float(np.mean([c["predicted"] for c in chosen]))
        realised = float(np.mean([c["wrong"] for c in chosen]))
        lines.append(
            f"| {matrix} | {coverage:g} | {len(chosen)} | {_percent(predicted)} "
            f"| {_percent(realised)} |"
        )
    return lines


def _wrong_case(settings):
    """Return the sentence saying when a case is wrong, naming a coefficient but observed."""
    coefficient = settings.get("coefficient", "observed")
    scored = (
        ""
        if coefficient == "observed"
        else f", comparisons scored by {coefficient} in every verdict and every simulated matrix"
    )
    return (
        f"a case is *wrong* when the point rule's decision (eps 0.05, tau 0.5{scored}) on the "
        "thinned matrix differs from its decision on the matrix as given."
    )


def report_text(cases, scores, settings):
    """Return ``STEM.md``: what was run, the reliability table, the Brier scores, the targets."""
    seconds = float(np.mean([case["seconds"] for case in cases]))
    lines = [
        "# Is advise's risk calibrated?",
        "",
        f"{scores.n} cases (matrix x judge x coverage x replicate) on the shared real matrices "
        f"({', '.join(dict.fromkeys(case['matrix'] for case in cases))}). Each matrix's "
        f"secondary labels were thinned by the real-data protocol's `{settings['design']}` "
        f"design (the primary layer keeps every label; every other label kept with probability "
        f"= coverage) at coverages {', '.join(f'{c:g}' for c in settings['coverages'])}, "
        f"{settings['replicates']} replicates each (seed {settings['seed']}). advise's audit "
        f"ran on the thinned matrix: the posterior-predictive risk now, anchored at the "
        f"thinned verdict's comparisons, drawn under "
        f"{settings['n_boot']} or more bootstrap refits (at least {settings['trials']} "
        f"simulated matrices, more until its Monte Carlo SE is at most "
        f"{100 * settings['risk_se']:g} points); " + _wrong_case(settings),
        "",
        f"Realised share wrong {_percent(scores.realised)}, mean predicted risk "
        f"{_percent(scores.mean_predicted)}; pooled z = (wrong - sum of predictions) / "
        f"sqrt(sum p(1-p)) = {scores.z_pooled:+.2f}.",
        "",
        "## Reliability",
        "",
        "SE is the binomial SE of the realised share if the bin's mean prediction were right, "
        "sqrt(pbar (1 - pbar) / n).",
        "",
        *bins_table(scores.bins),
        "",
        "## Brier scores",
        "",
        "The constant baseline predicts, for a case of matrix M, the share wrong among the "
        "cases of every other matrix (leave-one-matrix-out, so it is not fitted in-sample). "
        "The normal baseline takes each leave-one-out comparison of the thinned verdict to "
        "pass densely with probability Phi((d_k + eps) / se_k) (0.5 without an SE), the "
        "comparisons independent, the dense omega Poisson-binomial, and predicts "
        "P(dense decision != thinned decision).",
        "",
        *brier_lines(scores),
        "",
        "The normal baseline's own reliability, for comparison:",
        "",
        *bins_table(scores.normal_bins),
        "",
        "## Targets",
        "",
        f"- every bin with >= {MIN_BIN_CASES} cases within two SEs of its mean prediction: "
        f"{'met' if scores.bins_within_2se else 'NOT met'}",
        f"- Brier score below both baselines: {'met' if scores.beats_baselines else 'NOT met'}",
        "",
        "## Per matrix and coverage",
        "",
        *per_matrix_lines(cases),
        "",
        f"Wall time {settings['wall_seconds']:.0f} s on {settings['workers']} worker(s); "
        f"{seconds:.2f} s of one worker per case (a task's time over its judges).",
        "",
    ]
    return "\n".join(lines)


def reliability_figure(scores, path):
    """Draw the reliability diagram: realised share with its Wilson interval per bin."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(5.6, 5.2))
    axes.plot([0, 1], [0, 1], color="grey", linestyle="--", label="calibrated")
    top = 0.6
    for bins, colour, label, shift in (
        (scores.normal_bins, "tab:orange", "normal baseline", 0.006),
        (scores.bins, "tab:blue", "advise's risk", 0.0),
    ):
        rows = [row for row in bins if row.n > 0]
        x = np.array([row.mean_predicted for row in rows]) + shift
        y = np.array([row.realised for row in rows])
        errors = [y - [row.wilson_low for row in rows], [row.wilson_high for row in rows] - y]
        axes.errorbar(
            x,
            y,
            yerr=errors,
            fmt="o",
            color=colour,
            capsize=3,
            label=label,
            alpha=1.0 if shift == 0 else 0.6,
        )
        for row, px, py in zip(rows, x, y, strict=True):
            if shift == 0:
                axes.annotate(
                    f"n={row.n}", (px, py), textcoords="offset points", xytext=(6, -10), fontsize=8
                )
        top = max(top, *(x + 0.05), *(y + 0.1))
    axes.set_xlim(0, min(1.0, top))
    axes.set_ylim(0, min(1.05, top))
    axes.set_xlabel("advise's predicted risk (bin mean)")
    axes.set_ylabel("share of thinned verdicts that differ from the full one")
    axes.set_title(
        f"Reliability of advise's risk ({scores.n} cases)\n"
        f"Brier {scores.brier:.3f}; constant {scores.brier_constant:.3f}; "
        f"normal {scores.brier_normal:.3f}",
        fontsize=10,
    )
    axes.legend(loc="upper left", fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def write_report(cases, stem, settings):
    """Score ``cases`` and write ``STEM.csv``, ``STEM.md``, ``STEM.png``; return the paths."""
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    scores = score_cases(cases)
    paths = {suffix: stem.with_name(f"{stem.name}.{suffix}") for suffix in ("csv", "md", "png")}
    write_cases(cases, paths["csv"])
    paths["md"].write_text(report_text(cases, scores, settings), encoding="utf-8")
    reliability_figure(scores, paths["png"])
    return {**paths, "scores": scores}
