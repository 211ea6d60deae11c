"""Is advise's risk calibrated? The study on the shared real matrices (``make advise-calibration``).

For every real matrix (:data:`MATRICES`; SummEval's four dimensions are four matrices),
coverage and replicate, a *task*:

1. thins the secondary humans' labels by the real-data protocol's ``bernoulli`` design
   (:func:`simcore.realdata.thinning.thin`: the primary layer keeps every label, every other
   label is kept with probability ``coverage``), seeded from ``(seed, matrix, coverage,
   replicate)`` (:func:`task_seed`), so nothing depends on the number of workers;
2. runs advise's audit on the thinned matrix for every judge
   (:func:`simcore.advisor.advice.audit_judges`, grid ``[0]``, no target: only the risk now)
   and reads each judge's risk ``audit.risks[judge].now``;
3. records, per judge, that risk beside whether the thinned verdict (the point rule,
   eps 0.05, tau 0.5) differs from the verdict on the matrix as given, and the normal
   baseline's risk: the thinned verdict's ``interval_risk``
   (:func:`simcore.advisor.interval_risk.normal_approximation_risk`).

With ``--coefficient`` (and ``--level`` or ``--weights``) every verdict, the thinned and the
dense, and every simulated matrix of the risk score the comparisons by that coefficient
(:func:`simcore.advisor.scoring.advise_scoring`); only the rating-scale matrices
(:data:`RATING_SCALES`) take one.

Tasks run on ``--workers`` processes (:mod:`concurrent.futures`); the cases come back in task
order. :mod:`experiments.advise_calibration_report` scores them and writes the report.
"""

import argparse
import dataclasses
import functools
import sys
import time
import zlib
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context
from pathlib import Path

import numpy as np

from experiments.advise_calibration_report import write_report
from simcore.advisor.advice import audit_judges
from simcore.advisor.scoring import NOMINAL, advise_scoring
from simcore.advisor.settings import AuditPlan, AuditRule
from simcore.advisor.verdict import verdicts
from simcore.command_options import COEFFICIENT_CHOICES
from simcore.model.weighted import LEVELS, WEIGHTS, misplaced_message, scoring_name
from simcore.realdata.matrix import DataError
from simcore.realdata.readers import read_annotations
from simcore.realdata.thinning import thin

MATRICES = {
    "wax": ("wax", {"humans": ["10", "9", "5", "3", "4", "7", "8", "6"]}, None),
    "cebab_aspects": (
        "cebab_aspects",
        {"humans": ["w10", "w8", "w27", "w12", "w11", "w32", "w5", "w1", "w29", "w14"]},
        None,
    ),
    "cebab_stars": (
        "cebab_stars",
        {
            "humans": ["w197", "w2", "w40", "w198", "w168", "w162", "w152", "w44", "w65", "w91"],
            "ordinal": True,
        },
        None,
    ),
    **{
        f"summeval_{dimension}": (
            "summeval",
            {"humans": ["e0", "e1", "e2"], "ordinal": True, "group_separator": "__"},
            dimension,
        )
        for dimension in ("coherence", "consistency", "fluency", "relevance")
    },
    "lesion": ("lesion", {}, None),
}
"""Matrix name -> (folder under the data path, loader options, group). The human orders are
those of ``scenarios/real_*.yaml``; lesion's is the loader's default (most labels first)."""

RATING_SCALES = (
    "cebab_stars",
    "summeval_coherence",
    "summeval_consistency",
    "summeval_fluency",
    "summeval_relevance",
    "lesion",
)
"""The matrices whose labels are ordered numbers: the ones a weighted coefficient scores."""

COVERAGES = (0.05, 0.10, 0.25)
DESIGN = "bernoulli"
RULE = AuditRule(kind="point", epsilon=0.05, tau=0.5, min_pairs=0)


@dataclasses.dataclass(frozen=True)
class StudyOptions:
    """What every task shares: the data folder, the simulation sizes and the root seed."""

    data: str
    trials: int = 200
    seed: int = 2026
    n_boot: int = 30
    risk_se: float = 0.02
    scoring: tuple = NOMINAL
    """``(coefficient, level, weights)`` of the point rule's comparisons."""


@functools.cache
def load_matrix(data, name):
    """Return the full matrix ``name`` of :data:`MATRICES` from ``data`` (cached per process)."""
    folder, options, group = MATRICES[name]
    matrix = read_annotations(Path(data) / folder, **options)
    return matrix.subset(group) if group else matrix


def task_seed(seed, name, coverage, replicate):
    """Return the task's :class:`numpy.random.SeedSequence` of (seed, matrix, coverage, replicate).

    The matrix enters by the CRC-32 of its name and the coverage in basis points, so a task's
    draws do not depend on which other tasks run or on their order.
    """
    return np.random.SeedSequence(
        [seed, zlib.crc32(name.encode()), round(coverage * 10_000), replicate]
    )


def point_decisions(matrix, labels, with_omega=False, scoring=None):
    """Return the point rule's decision per judge on ``labels`` (the matrix's judges).

    With ``with_omega``, each judge's ``(decision, omega)``; ``scoring`` (a
    :class:`simcore.model.weighted.Scoring`) scores the comparisons.
    """
    rows = verdicts(
        np.asarray(labels, dtype=np.int64),
        np.asarray(matrix.judge_labels, dtype=np.int64),
        tuple(matrix.judges),
        dataclasses.replace(RULE, scoring=scoring),
    )
    if with_omega:
        return {row["judge"]: (row["decision"], row["omega"]) for row in rows}
    return {row["judge"]: row["decision"] for row in rows}


def predicted_risk(audit, judge):
    """Return ``(risk, Monte Carlo SE)``: advise's risk now for ``judge``."""
    risk, se = audit.risks[judge].now
    return float(risk), float(se)


def thinned_matrix(matrix, coverage, rng):
    """Return ``matrix`` thinned by :data:`DESIGN` at ``coverage`` (the primary layer kept)."""
    labels = np.asarray(matrix.human_labels, dtype=np.int64)
    keep = thin(rng, DESIGN, coverage, labels, labels >= 0, matrix.n_labels)
    return dataclasses.replace(matrix, human_labels=np.where(keep, labels, -1).astype(np.int16))


def run_task(options, name, coverage, replicate):
    """Return the cases (one dict per judge) of one (matrix, coverage, replicate) task."""
    start = time.perf_counter()
    matrix = load_matrix(options.data, name)
    sequence = task_seed(options.seed, name, coverage, replicate)
    thin_stream, sim_stream = sequence.spawn(2)
    sparse = thinned_matrix(matrix, coverage, np.random.default_rng(thin_stream))
    audit_seed = int(sim_stream.generate_state(1)[0])
    scoring = advise_scoring(matrix, *options.scoring)
    plan = AuditPlan(
        target=None, design="strat", trials=options.trials, seed=audit_seed, n_boot=options.n_boot
    )
    judges = tuple(matrix.judges)
    audit = audit_judges(
        sparse,
        judges,
        dataclasses.replace(RULE, scoring=scoring),
        dataclasses.replace(plan, grid=(0,)),
        risk_se=options.risk_se,
    )
    dense = point_decisions(matrix, matrix.human_labels, scoring=scoring)
    seconds = (time.perf_counter() - start) / len(judges)
    cases = []
    for row in audit.verdicts:
        judge = row["judge"]
        risk, risk_se = predicted_risk(audit, judge)
        cases.append(
            {
                "matrix": name,
                "coverage": coverage,
                "replicate": replicate,
                "judge": judge,
                "predicted": risk,
                "predicted_se": risk_se,
                "normal_baseline": row["interval_risk"],
                "sparse_decision": row["decision"],
                "dense_decision": dense[judge],
                "wrong": row["decision"] != dense[judge],
                "effective_k": row["effective_k"],
                "seconds": seconds,
            }
        )
    return cases


def study_tasks(names, coverages, replicates):
    """Return the tasks ``(matrix, coverage, replicate)`` in their fixed order."""
    return [
        (name, coverage, replicate)
        for replicate in range(replicates)
        for name in names
        for coverage in coverages
    ]


def run_study(
    options, names=tuple(MATRICES), coverages=COVERAGES, replicates=1, workers=2, say=None
):
    """Run every task on ``workers`` processes; return the cases in task order.

    ``say`` is called with a progress line as each task finishes. With one worker the tasks
    run in this process.
    """
    say = say or (lambda message: None)
    tasks = study_tasks(names, coverages, replicates)
    results = {}
    start = time.perf_counter()

    def done(task, cases):
        results[task] = cases
        elapsed = time.perf_counter() - start
        say(
            f"[{len(results)}/{len(tasks)}] {task[0]} coverage {task[1]:g} replicate "
            f"{task[2]}: {len(cases)} judges, {elapsed:.0f} s elapsed"
        )

    if workers == 1:
        for task in tasks:
            done(task, run_task(options, *task))
    else:
        with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
            futures = {pool.submit(run_task, options, *task): task for task in tasks}
            for future in as_completed(futures):
                done(futures[future], future.result())
    return [case for task in tasks for case in results[task]]


# --------------------------------------------------------------------------- command line


def scoring_problems(args):
    """Return the problems of ``--coefficient/--level/--weights`` and the matrices they score.

    A level or weights the coefficient does not take, and a level or weights on a matrix
    outside :data:`RATING_SCALES` (whose labels have no order).
    """
    scored = (args.coefficient, args.level, args.weights)
    misplaced = misplaced_message(*scored)
    problems = [f"--{misplaced}"] if misplaced else []
    if scored[1:] != NOMINAL[1:]:
        problems += [
            f"--matrices: {name} has unordered labels; a level or weights takes "
            f"{', '.join(RATING_SCALES)}"
            for name in args.matrices
            if name not in RATING_SCALES
        ]
    return problems


def parse_arguments(argv):
    """Parse and validate the command line; exit 2 with a message on bad input."""
    parser = argparse.ArgumentParser(
        prog="python -m experiments.advise_calibration", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--data", required=True, help="the alttest folder (../shared/data/alttest)")
    parser.add_argument(
        "--out",
        default="results/advise_calibration",
        help="output stem: writes STEM.md, STEM.png, STEM.csv",
    )
    parser.add_argument(
        "--replicates", type=int, default=4, help="thinnings per matrix and coverage"
    )
    parser.add_argument("--workers", type=int, default=2, help="processes")
    parser.add_argument("--trials", type=int, default=200, help="simulated matrices per risk")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--coverages", type=float, nargs="+", default=list(COVERAGES))
    parser.add_argument("--matrices", nargs="+", default=list(MATRICES), help="matrix names")
    parser.add_argument("--n-boot", type=int, default=30, help="bootstrap refits of each fit")
    parser.add_argument(
        "--risk-se", type=float, default=0.02, help="Monte Carlo SE each risk is drawn to"
    )
    parser.add_argument(
        "--coefficient",
        default=NOMINAL[0],
        choices=COEFFICIENT_CHOICES,
        help="the point rule's coefficient (rating-scale matrices only with a level or weights)",
    )
    parser.add_argument(
        "--level", default=NOMINAL[1], choices=LEVELS, help="Krippendorff's alpha's level"
    )
    parser.add_argument(
        "--weights", default=NOMINAL[2], choices=WEIGHTS, help="kappa's, AC2's, observed's"
    )
    args = parser.parse_args(argv)
    problems = []
    for key in ("replicates", "workers", "trials"):
        if getattr(args, key) < 1:
            problems.append(f"--{key}: must be at least 1 (got {getattr(args, key)})")
    if args.n_boot < 2:
        problems.append(f"--n-boot: must be at least 2 (got {args.n_boot})")
    if not 0 < args.risk_se < 0.5:
        problems.append(f"--risk-se: must be in (0, 0.5) (got {args.risk_se})")
    problems += [
        f"--coverages: each must be in (0, 1] (got {c})" for c in args.coverages if not 0 < c <= 1
    ]
    problems += [
        f"--matrices: unknown matrix {name!r} (known: {', '.join(MATRICES)})"
        for name in args.matrices
        if name not in MATRICES
    ]
    if len(set(args.matrices)) < 2:
        problems.append("--matrices: the leave-one-matrix-out baseline needs 2 or more matrices")
    problems += scoring_problems(args)
    if not Path(args.data).is_dir():
        problems.append(f"--data: no such folder (got {args.data!r})")
    if problems:
        parser.error("; ".join(problems))
    return args


def main(argv=None):
    """Run the study from the command line and write its report; return the exit status."""
    args = parse_arguments(argv)
    scoring = (args.coefficient, args.level, args.weights)
    options = StudyOptions(args.data, args.trials, args.seed, args.n_boot, args.risk_se, scoring)
    names = tuple(dict.fromkeys(args.matrices))
    try:
        for name in names:
            load_matrix(args.data, name)
    except DataError as error:
        print(f"calibration study: {error}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    cases = run_study(
        options,
        names,
        tuple(args.coverages),
        args.replicates,
        args.workers,
        say=lambda message: print(message, file=sys.stderr, flush=True),
    )
    wall = time.perf_counter() - start
    settings = {
        **dataclasses.asdict(options),
        "coefficient": scoring_name(*scoring),
        "design": DESIGN,
        "coverages": args.coverages,
        "replicates": args.replicates,
        "workers": args.workers,
        "wall_seconds": wall,
    }
    paths = write_report(cases, args.out, settings)
    print(paths["md"].read_text(encoding="utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
