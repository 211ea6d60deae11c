"""The rule's forms in the real-data protocol on synthetic crowds and a dense panel of their items.

``python -m experiments.crowd_forms_real --out results/crowd_forms_real`` writes,
for each matrix seed, a crowd (:func:`simcore.realdata.shapes.shape_mask` ``crowd``: 150
humans on 400 items) and a dense panel of three humans on the same items and truth
(:func:`simcore.realdata.shapes.draw_matrix` with the same seed draws the same truth), both
with four judges of accuracy 0.60, 0.65, 0.75 and 0.85 and humans of 0.8 over two labels,
and runs ``kind: real`` on each under every form (``bernoulli`` thinning). The protocol
scores each thinned decision against the full matrix's decision under the same form, so a
form whose full-matrix verdicts are wrong can look stable; the table therefore also shows
whether the full-matrix verdicts match the population rule's (the judges at 0.60 and 0.65
rejected, the others accepted: :func:`experiments.crowd_forms.should_accept`).
"""

import argparse
from pathlib import Path

import numpy as np

from experiments.crowd_forms import HUMAN_ACCURACY, JUDGE_ACCURACIES, should_accept
from simcore.realdata.shapes import draw_matrix, shape_mask, write_long_csv
from simcore.studies import study_for
from simcore.sweep.run import run_sweep

RULES = {
    "dense panel (3 humans)": {"form": "raters"},
    "raters": {"form": "raters"},
    "raters, min_pairs 1": {"form": "raters", "min_pairs": 1},
    "raters, min_pairs 10": {"form": "raters", "min_pairs": 10},
    "slots": {"form": "slots"},
    "auto (pooled)": {},
    "alt_test (30 items per human)": {"kind": "alt_test"},
}
"""The rules compared, by row label (the first runs on the dense panel)."""


def write_matrices(folder, seed):
    """Write ``crowd_SEED.csv`` and ``dense_SEED.csv`` in ``folder``; return their paths."""
    crowd = shape_mask("crowd", seed=seed)
    n_items = crowd.shape[0]
    paths = {}
    for name, labelled in (("crowd", crowd), ("dense", np.ones((n_items, 3), bool))):
        humans, judges = draw_matrix(
            n_items,
            labelled.shape[1],
            len(JUDGE_ACCURACIES),
            2,
            1.0,
            human_accuracy=HUMAN_ACCURACY,
            judge_accuracies=JUDGE_ACCURACIES,
            seed=seed,
            labelled=labelled,
        )
        paths[name] = write_long_csv(humans, judges, Path(folder) / f"{name}_{seed}.csv")
    return paths


def run_rule(path, rule, trials, coverages, seed):
    """Return the ``kind: real`` cube of ``rule`` on the matrix at ``path``."""
    judges = [f"judge{j}" for j in range(len(JUDGE_ACCURACIES))]
    raw = {
        "name": "crowd_forms",
        "kind": "real",
        "data": {"path": str(path), "judges": judges},
        "rule": {"kind": "point", **rule},
        "trials": trials,
        "seed": seed,
        "sweep": {"design": ["bernoulli"], "coverage": list(coverages)},
    }
    return run_sweep(study_for("real").parse(raw, "<crowd_forms>", None))


def summarise(cubes):
    """Return FR, FA, WDR (means over the judges of each class), inconclusive, full-right share."""
    rows = {name: [] for name in ("FR", "FA", "WDR", "inconclusive")}
    right = []
    for cube in cubes:
        classes = cube["judge_class"].values
        rates = {
            "FR": cube["false_rejection_rate"].values[..., classes == 2],
            "FA": cube["false_approval_rate"].values[..., classes == 0],
            "WDR": cube["wrong_decision_rate"].values,
            "inconclusive": cube["inconclusive_rate"].values,
        }
        for name, values in rates.items():
            rows[name].append(values.reshape(values.shape[0], values.shape[1], -1))
        accepts = cube["full_accept"].values.astype(bool)
        right.append(float((accepts == should_accept()).mean()))
    out = {
        name: np.nanmean(np.concatenate(parts, axis=-1), axis=-1)[0]
        if any(p.size for p in parts)
        else np.full(len(cubes[0]["coverage"]), np.nan)
        for name, parts in rows.items()
    }
    return out, float(np.mean(right))


def _cell(rates, column):
    return " / ".join(
        "-" if not np.isfinite(rates[n][column]) else f"{100 * rates[n][column]:.0f}"
        for n in ("FR", "FA", "WDR", "inconclusive")
    )


def table(trials, seeds, coverages, folder):
    """Return the Markdown table of every rule (module docstring)."""
    paths = [write_matrices(folder, seed) for seed in seeds]
    head = "| rule | full-matrix verdicts right | " + " | ".join(
        f"coverage {c:g}: FR / FA / WDR / inc." for c in coverages
    )
    lines = [head + " |", "|---|---|" + "---|" * len(coverages)]
    for label, rule in RULES.items():
        which = "dense" if label.startswith("dense") else "crowd"
        cubes = [
            run_rule(p[which], rule, trials, coverages, seed)
            for p, seed in zip(paths, seeds, strict=True)
        ]
        rates, right = summarise(cubes)
        cells = [_cell(rates, c) for c in range(len(coverages))]
        lines.append(f"| {label} | {100 * right:.0f}% | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None):
    """Write ``OUT.md`` with the real-protocol table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="results/crowd_forms_real")
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--coverages", type=float, nargs="+", default=[0.05, 0.1, 0.25])
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    text = table(args.trials, args.seeds, args.coverages, out)
    (out / "README.md").write_text(
        f"# The rule's forms in the real-data protocol ({args.trials} trials per cell, matrix "
        f"seeds {args.seeds})\n\nFR / FA / WDR / inconclusive in percent, means over the "
        "judges of each full-matrix class and the matrices "
        "(`python -m experiments.crowd_forms_real`).\n\n" + text + "\n"
    )
    print(text)


if __name__ == "__main__":
    main()
