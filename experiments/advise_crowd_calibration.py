"""Is advise's risk calibrated on crowds? The study on synthetic matrices with a known truth.

The shipped matrices (:mod:`experiments.advise_calibration`) have a few humans each
on many items; a crowd has many humans each on a few items, so every leave-one-out
comparison rests on a handful of items. Here the truth is known: the symmetric-channel
generator (:func:`simcore.realdata.shapes.draw_matrix`) gives *every* human's label on every
item, and the matrix advise sees keeps only those of the shape's mask
(:func:`simcore.realdata.shapes.shape_mask`: ``crowd``, 150 humans on 400 items at 2%
density, about 8 items each; ``sparse_panel``, 6 humans on 500 items at 30%). Per task
(shape, replicate):

1. the mask and the labels are drawn from ``SeedSequence([seed, shape, replicate])``
   (:func:`task_seed`): binary labels, every human at accuracy :data:`HUMAN_ACCURACY`,
   :data:`JUDGES` judges with accuracies uniform within :data:`JUDGE_SPREAD` of the
   knife-edge accuracy (:func:`knife_edge_accuracy`: the one whose expected comparison
   sits on the bar, ``d + eps = 0``), so the verdicts range from sure to knife-edge;
2. advise's audit runs on the sparse matrix (:func:`simcore.advisor.advice.audit_judges`,
   grid ``[0]``: the risk now only) and its risk is read per judge;
3. a case is *wrong* when the point rule's decision (eps 0.05, tau 0.5) on the sparse
   matrix differs from the dense verdict, the same rule on every human's label of every
   item (the convention advise's risk itself uses).

The cases are scored as the shipped study's
(:func:`experiments.advise_calibration_report.score_cases`: reliability bins with
Wilson intervals, Brier scores against the leave-one-shape-out constant and the normal
approximation); ``--out STEM`` writes ``STEM.md`` and ``STEM.csv``.
"""

import argparse
import dataclasses
import math
import sys
import time
import zlib
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context
from pathlib import Path

import numpy as np

from experiments.advise_calibration import RULE, point_decisions
from experiments.advise_calibration_report import (
    bins_table,
    brier_lines,
    per_matrix_lines,
    score_cases,
    write_cases,
)
from experiments.advise_calibration_scores import MIN_BIN_CASES
from simcore.advisor.advice import audit_judges
from simcore.advisor.settings import AuditPlan
from simcore.realdata.annotation import AnnotationMatrix
from simcore.realdata.shapes import draw_matrix, shape_mask

SHAPES = {"crowd": 0.02, "sparse_panel": 0.3}
"""The shapes drawn (:func:`simcore.realdata.shapes.shape_mask`) and their label density."""

HUMAN_ACCURACY = 0.85
JUDGES = 3
JUDGE_SPREAD = 0.08


@dataclasses.dataclass(frozen=True)
class StudyOptions:
    """What every task shares: the simulation sizes and the root seed."""

    trials: int = 200
    seed: int = 2026
    n_boot: int = 30
    risk_se: float = 0.02


def knife_edge_accuracy(human_accuracy, epsilon):
    """Return the judge accuracy whose expected binary comparison sits on the bar.

    With two labels, humans at accuracy ``p`` agree with each other with probability
    ``p^2 + (1 - p)^2`` and a judge at ``q`` agrees with a human with ``q p + (1 - q)(1 - p)``;
    ``d = q p + (1 - q)(1 - p) - p^2 - (1 - p)^2 = -eps`` gives
    ``q = (p^2 + (1 - p)^2 - eps - (1 - p)) / (2 p - 1)``.
    """
    p = human_accuracy
    return (p**2 + (1 - p) ** 2 - epsilon - (1 - p)) / (2 * p - 1)


def task_seed(seed, shape, replicate):
    """Return the task's :class:`numpy.random.SeedSequence` of ``(seed, shape, replicate)``."""
    return np.random.SeedSequence([seed, zlib.crc32(shape.encode()), replicate])


def draw_task(shape, sequence):
    """Return ``(sparse, dense, judge accuracies)``: one task's matrices, the truth known.

    The mask is the shape's (:func:`simcore.realdata.shapes.shape_mask`), the labels every
    human's on every item (:func:`simcore.realdata.shapes.draw_matrix` with ``labelled`` all
    true); ``sparse`` keeps the mask's labels, ``dense`` all of them.
    """
    mask_word, label_word, judge_word = (int(s.generate_state(1)[0]) for s in sequence.spawn(3))
    mask = shape_mask(shape, mask_word)
    centre = knife_edge_accuracy(HUMAN_ACCURACY, RULE.epsilon)
    rng = np.random.default_rng(judge_word)
    accuracies = centre + rng.uniform(-JUDGE_SPREAD, JUDGE_SPREAD, JUDGES)
    n_items, n_humans = mask.shape
    humans, judges = draw_matrix(
        n_items,
        n_humans,
        JUDGES,
        2,
        1.0,
        human_accuracy=HUMAN_ACCURACY,
        judge_accuracies=accuracies,
        seed=label_word,
        labelled=np.ones_like(mask),
    )
    items = [f"item{i:05d}" for i in range(n_items)]

    def codes(raters):
        return np.array([[int(raters[r][i][1:]) for r in raters] for i in items], np.int16)

    human_codes, judge_codes = codes(humans), codes(judges)

    def matrix(labels):
        return AnnotationMatrix(
            "synthetic", items, list(humans), list(judges), ("l0", "l1"), False, labels,
            judge_codes,
        )  # fmt: skip

    sparse = matrix(np.where(mask, human_codes, -1).astype(np.int16))
    return sparse, matrix(human_codes), accuracies


def run_task(options, shape, replicate):
    """Return the cases (one dict per judge) of one (shape, replicate) task."""
    start = time.perf_counter()
    sequence = task_seed(options.seed, shape, replicate)
    draw_stream, audit_stream = sequence.spawn(2)
    sparse, dense, accuracies = draw_task(shape, draw_stream)
    plan = AuditPlan(
        target=None,
        design="strat",
        trials=options.trials,
        seed=int(audit_stream.generate_state(1)[0]),
        n_boot=options.n_boot,
        grid=(0,),
    )
    judges = tuple(sparse.judges)
    audit = audit_judges(sparse, judges, RULE, plan, risk_se=options.risk_se)
    truth = point_decisions(dense, dense.human_labels, with_omega=True)
    seconds = (time.perf_counter() - start) / len(judges)
    cases = []
    for row, accuracy in zip(audit.verdicts, accuracies, strict=True):
        judge = row["judge"]
        risk, risk_se = audit.risks[judge].now
        decision, omega = truth[judge]
        cases.append(
            {
                "matrix": shape,
                "coverage": SHAPES[shape],
                "replicate": replicate,
                "judge": judge,
                "judge_accuracy": float(accuracy),
                "predicted": float(risk),
                "predicted_se": float(risk_se),
                "normal_baseline": row["interval_risk"],
                "sparse_decision": row["decision"],
                "dense_decision": decision,
                "dense_omega": omega,
                "wrong": row["decision"] != decision,
                "effective_k": row["effective_k"],
                "seconds": seconds,
            }
        )
    return cases


def run_study(options, shapes=tuple(SHAPES), replicates=1, workers=2, say=None):
    """Run every (shape, replicate) task on ``workers`` processes; return the cases in order."""
    say = say or (lambda message: None)
    tasks = [(shape, replicate) for replicate in range(replicates) for shape in shapes]
    results = {}
    if workers == 1:
        for task in tasks:
            results[task] = run_task(options, *task)
            say(f"[{len(results)}/{len(tasks)}] {task[0]} replicate {task[1]}")
    else:
        with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
            futures = {pool.submit(run_task, options, *task): task for task in tasks}
            for future in as_completed(futures):
                results[futures[future]] = future.result()
                task = futures[future]
                say(f"[{len(results)}/{len(tasks)}] {task[0]} replicate {task[1]}")
    return [case for task in tasks for case in results[task]]


def report_text(cases, scores, settings):
    """Return ``STEM.md``: the setting, the reliability table, the Brier scores, the target."""
    return "\n".join(
        [
            "# Is advise's risk calibrated on crowds?",
            "",
            f"{scores.n} cases (shape x replicate x judge), synthetic binary matrices with "
            f"every human's label known (humans at accuracy {HUMAN_ACCURACY:g}; {JUDGES} "
            f"judges per matrix, accuracies uniform within {JUDGE_SPREAD:g} of the "
            f"knife-edge {knife_edge_accuracy(HUMAN_ACCURACY, RULE.epsilon):.3f}); "
            f"{settings['replicates']} replicates per shape, seed {settings['seed']}; the risk "
            f"now drawn under {settings['n_boot']} or more bootstrap refits, at least "
            f"{settings['trials']} simulated matrices, until its SE is at most "
            f"{100 * settings['risk_se']:g} points. A case is wrong when the sparse verdict "
            "(point rule, eps 0.05, tau 0.5) differs from the dense one.",
            "",
            f"Realised share wrong {100 * scores.realised:.1f}%, mean predicted "
            f"{100 * scores.mean_predicted:.1f}%, pooled z {scores.z_pooled:+.2f}.",
            "",
            *bins_table(scores.bins),
            "",
            *brier_lines(scores),
            "",
            f"Every bin with >= {MIN_BIN_CASES} cases within two SEs: "
            f"{'met' if scores.bins_within_2se else 'NOT met'}.",
            "",
            *per_matrix_lines(cases),
            "",
            f"Wall time {settings['wall_seconds']:.0f} s on {settings['workers']} worker(s).",
            "",
        ]
    )


def main(argv=None):
    """Run the study from the command line, write ``STEM.md`` and ``STEM.csv``; return 0."""
    parser = argparse.ArgumentParser(
        prog="python -m experiments.advise_crowd_calibration",
        description=__doc__.splitlines()[0],
    )
    parser.add_argument("--out", default="results/advise_crowd_calibration", help="output stem")
    parser.add_argument("--replicates", type=int, default=40, help="matrices per shape")
    parser.add_argument("--workers", type=int, default=2, help="processes")
    parser.add_argument("--trials", type=int, default=200, help="simulated matrices per risk")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--shapes", nargs="+", default=list(SHAPES), choices=list(SHAPES))
    args = parser.parse_args(argv)
    for key in ("replicates", "workers", "trials"):
        if getattr(args, key) < 1:
            parser.error(f"--{key}: must be at least 1 (got {getattr(args, key)})")
    options = StudyOptions(args.trials, args.seed)
    start = time.perf_counter()
    say = lambda message: print(message, file=sys.stderr, flush=True)  # noqa: E731
    cases = run_study(
        options, tuple(dict.fromkeys(args.shapes)), args.replicates, args.workers, say
    )
    settings = {
        **dataclasses.asdict(options),
        "replicates": args.replicates,
        "workers": args.workers,
        "wall_seconds": time.perf_counter() - start,
    }
    stem = Path(args.out)
    stem.parent.mkdir(parents=True, exist_ok=True)
    if len({case["matrix"] for case in cases}) < 2:  # the constant baseline leaves a shape out
        write_cases(
            [{**case, "constant_baseline": math.nan} for case in cases],
            stem.with_name(f"{stem.name}.csv"),
        )
        print(f"{len(cases)} cases written; the scores need both shapes", file=sys.stderr)
        return 0
    scores = score_cases(cases)
    write_cases(cases, stem.with_name(f"{stem.name}.csv"))
    text = report_text(cases, scores, settings)
    stem.with_name(f"{stem.name}.md").write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
