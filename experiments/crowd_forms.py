"""The rule's forms on crowds, truth known: false approval against a dense panel of the same items.

``python -m experiments.crowd_forms --out results/crowd_forms`` (``make
crowd-forms``) draws, per trial, a matrix in a shape of :func:`simcore.realdata.shapes.
shape_mask` (``crowd``: 150 humans on 400 items, each item to each human with probability
0.02, two at least; ``concentrated``: 60 humans on 300 items, two items labelled by all of
them and every other by two) and, on the same items and truth, a dense panel of as many
humans as the matrix has labels per item, rounded (three for the crowd, two for the
concentrated matrix). Truth is uniform over two labels, every human reports it
with accuracy 0.8 and the judges with 0.60, 0.65, 0.75 and 0.85. Both matrices are thinned
as the real-data protocol thins (:func:`simcore.realdata.thinning.thin`, ``bernoulli``: the
primary layer kept, every other label with probability = coverage) and each form of the rule
(:mod:`simcore.realdata.rule_forms`) decides every judge, eps 0.05, tau 0.5.

The population margin of a judge is ``(p_j - p_h)(2 p_h - 1) + eps`` (docs/explanation/model.md,
with L = 2), so the judges at 0.60 and 0.65 should be rejected (margin -0.07, -0.04) and those at
0.75 and 0.85 accepted (+0.02, +0.08). FA is the share of trials accepting a judge that should be
rejected, FR the share rejecting one that should be accepted, WDR the share of decided trials that
decide wrongly (all four judges), each with its binomial SE; inconclusive trials are neither and are
counted apart.
"""

import argparse
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from simcore.engine.coefficients import coefficient_code
from simcore.model.rule import ACCEPT, INCONCLUSIVE, REJECT
from simcore.model.rule_form import MIN_ITEMS, RuleForm, form_for
from simcore.realdata.data_shape import data_shape
from simcore.realdata.rule_forms import evaluate_form, form_decisions
from simcore.realdata.shapes import shape_mask
from simcore.realdata.thinning import thin

HUMAN_ACCURACY = 0.8
JUDGE_ACCURACIES = (0.60, 0.65, 0.75, 0.85)
EPSILON, TAU, N_LABELS = 0.05, 0.5, 2
DENSE_HUMANS = {"crowd": 3, "concentrated": 2}
"""The dense reference panel's humans per shape: about the shape's labels per item."""
COVERAGES = (1.0, 0.25, 0.10, 0.05)

FORMS = {
    "dense panel": RuleForm("raters", 0, 1, "reference"),
    "raters": RuleForm("raters", 0, 1, "given"),
    "raters, min_pairs 1": RuleForm("raters", 1, 1, "given"),
    "raters, min_pairs 3": RuleForm("raters", 3, 1, "given"),
    "raters, min_pairs 10": RuleForm("raters", 10, 1, "given"),
    "slots": RuleForm("slots", 0, 1, "given"),
    "pooled": RuleForm("pooled", 0, 1, "given"),
    "auto": None,
}
"""The forms compared, by row label; the first is the dense-panel reference, and ``auto``
is resolved on each drawn matrix's shape (:func:`simcore.realdata.data_shape.data_shape`)."""


def should_accept(judge_accuracies=JUDGE_ACCURACIES, human=HUMAN_ACCURACY, epsilon=EPSILON):
    """Return which judges the population rule accepts: ``(p_j - p_h)(2 p_h - 1) + eps >= 0``."""
    return (np.asarray(judge_accuracies) - human) * (2 * human - 1) + epsilon >= 0


def _reports(rng, truth, accuracy, columns):
    wrong = rng.random((truth.size, columns)) >= accuracy
    return np.where(wrong, 1 - truth[:, None], truth[:, None])


def _decide(codes, available, judges, form):
    labels = np.concatenate([np.where(available, codes, 0), judges], axis=1).astype(np.int16)
    n_humans = codes.shape[1]
    passes, _, _, _, tested = evaluate_form(
        labels,
        available[None],
        n_humans,
        N_LABELS,
        EPSILON,
        coefficient_code("observed"),
        form,
        MIN_ITEMS,
    )
    return form_decisions(passes, tested[:, None], TAU, form)[0]


def auto_form(available):
    """Return the form ``auto`` picks on a matrix who labels what ``available``."""
    return form_for("point", "auto", data_shape(SimpleNamespace(available=available)))


def crowd_trials(coverage, trials, seed=2026, forms=FORMS, shape="crowd"):
    """Return ``{form label: (trials, J) decisions}`` at ``coverage`` (module docstring)."""
    decisions = {label: [] for label in forms}
    for trial in range(trials):
        rng = np.random.default_rng([seed, trial])
        crowd = shape_mask(shape, seed=seed + trial)
        n_items, n_humans = crowd.shape
        truth = rng.integers(N_LABELS, size=n_items)
        humans = _reports(rng, truth, HUMAN_ACCURACY, n_humans)
        panel = _reports(rng, truth, HUMAN_ACCURACY, DENSE_HUMANS[shape])
        judges = np.concatenate([_reports(rng, truth, p, 1) for p in JUDGE_ACCURACIES], axis=1)
        dense = np.ones((n_items, DENSE_HUMANS[shape]), dtype=bool)
        auto = auto_form(crowd)
        if coverage < 1:
            crowd = thin(rng, "bernoulli", coverage, humans, crowd, N_LABELS)
            dense = thin(rng, "bernoulli", coverage, panel, dense, N_LABELS)
        for label, form in forms.items():
            form = auto if form is None else form
            reference = form.reason == "reference"
            codes, available = (panel, dense) if reference else (humans, crowd)
            decisions[label].append(_decide(codes, available, judges, form))
    return {label: np.array(rows) for label, rows in decisions.items()}


def rates(decision, accept=None):
    """Return FA, FR, WDR, the inconclusive share and their binomial SEs for ``(T, J)`` decisions.

    ``accept`` (default :func:`should_accept`) says which judges the population rule accepts.
    """
    accept = should_accept() if accept is None else np.asarray(accept)
    decided = decision != INCONCLUSIVE
    wrong = decided & ((decision == ACCEPT) != accept[None, :])

    def share(hits, where):
        n = where.sum()
        value = hits[where].mean() if n else np.nan
        return value, np.sqrt(value * (1 - value) / n) if n else np.nan

    bad, good = np.broadcast_to(~accept, decision.shape), np.broadcast_to(accept, decision.shape)
    return {
        "FA": share(decision == ACCEPT, bad),
        "FR": share(decision == REJECT, good),
        "WDR": share(wrong, decided),
        "inconclusive": share(~decided, np.ones_like(decided)),
    }


def table(trials, seed=2026, coverages=COVERAGES, shape="crowd"):
    """Return the Markdown table: one row per form, FA / FR / WDR / inconclusive per coverage."""
    results = {c: crowd_trials(c, trials, seed, shape=shape) for c in coverages}
    head = (
        "| form | " + " | ".join(f"coverage {c:g}: FA / FR / WDR / inc." for c in coverages) + " |"
    )
    lines = [head, "|---|" + "---|" * len(coverages)]
    for label in FORMS:
        cells = []
        for coverage in coverages:
            r = rates(results[coverage][label])
            wdr = "-" if not np.isfinite(r["WDR"][0]) else f"{100 * r['WDR'][0]:.1f}"
            cells.append(
                f"{100 * r['FA'][0]:.1f} ± {100 * r['FA'][1]:.1f} / {100 * r['FR'][0]:.1f} / "
                f"{wdr} / {100 * r['inconclusive'][0]:.0f}"
            )
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None):
    """Write ``OUT.md`` with the crowd table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="results/crowd_forms")
    parser.add_argument("--trials", type=int, default=400)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)
    text = "\n\n".join(
        f"## {shape} (dense panel of {DENSE_HUMANS[shape]} humans; auto: "
        f"{auto_form(shape_mask(shape, seed=args.seed)).form})\n\n"
        + table(args.trials, args.seed, shape=shape)
        for shape in DENSE_HUMANS
    )
    out = Path(args.out).with_suffix(".md")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        f"# The rule's forms on synthetic crowds ({args.trials} trials per coverage, "
        f"seed {args.seed})\n\nFA ± SE / FR / WDR / inconclusive, in percent "
        "(`python -m experiments.crowd_forms`).\n\n" + text + "\n"
    )
    print(text)


if __name__ == "__main__":
    main()
