"""``simcore plan``: how many co-labelled items per secondary a validation needs.

``--json`` prints ``{"command": "plan", "question": {...the options...}, "answer": {...}}``:
the answer's fields are :class:`simcore.planning.validation_items.PlanAnswer`'s (``m``,
``m_conservative``, ``m_optimistic``, ``m_max``, the judge's advantage and signed margin, the
recipe, ...), or with ``--rank`` ``m_rank`` and ``sigma2``. Counts are ``--n-humans``,
``--n-labels`` and ``--n-judges`` (in the data commands ``--humans``, ``--judges`` and
``--labels`` are names and label values); the judge is ``--advantage`` (S_j - S_h),
``--margin`` (S_j - S_h + eps) or ``--p-judge``.
"""

from simcore.cli.common import (
    UsageError,
    add_json,
    add_renamed,
    phase_printer,
    print_json,
    subcommand,
)
from simcore.options import count_number as count
from simcore.options import finite_number as finite

NAME = "plan"

RENAMED = {
    "--humans": "--humans is now --n-humans (the number of humans K); --humans names the "
    "humans in the data commands",
    "--judges": "--judges is now --n-judges (the number of judges J to rank); --judges names "
    "the judges in the data commands",
    "--labels": "--labels is now --n-labels (the number of label categories L); --labels "
    "lists label values (simcore card)",
}
"""plan's retired flags and what they answer (exit 2): counts are ``--n-*``, since the same
names are lists of names or labels in the other commands."""


def add(commands):
    """Add ``plan`` to the subparsers ``commands``."""
    plan = subcommand(
        commands,
        NAME,
        "how many items per secondary a validation needs (simulation + recipe)",
        [
            "simcore plan --n-humans 4 --items 2000 --advantage 0",
            "simcore plan --p-judge 0.8 --p-human 0.85 --target 0.1 --json",
            "simcore plan --rank --n-judges 3 --gap 0.05",
        ],
    )
    plan.add_argument("--n-humans", type=count, default=4, help="number of humans K")
    accuracy = plan.add_mutually_exclusive_group()
    accuracy.add_argument("--p-human", type=finite, help="human accuracy (default 0.85)")
    accuracy.add_argument(
        "--human-agreement",
        type=finite,
        help="measured pairwise observed agreement between humans",
    )
    plan.add_argument("--n-labels", type=count, default=2, help="number of label categories L")
    _add_scoring(plan)
    plan.add_argument("--epsilon", type=finite, default=0.05, help="tolerance")
    plan.add_argument("--tau", type=finite, default=0.5, help="acceptance threshold")
    plan.add_argument("--design", default="exact_m", help="allocation design")
    plan.add_argument("--items", type=count, default=2000, help="corpus size n")
    _add_judge(plan)
    plan.add_argument(
        "--target", type=finite, default=0.05, help="largest acceptable wrong-decision rate"
    )
    plan.add_argument(
        "--confidence", type=finite, default=0.95, help="confidence of the answer's bounds"
    )
    plan.add_argument(
        "--alpha", type=finite, default=0.05, help="two-sided level of the Gaussian recipe"
    )
    plan.add_argument("--seed", type=int, default=0, help="root seed")
    plan.add_argument("--quiet", action="store_true", help="no progress, only the answer")
    plan.add_argument(
        "--rank",
        action="store_true",
        help="the ranking recipe m_rank instead (needs --n-judges and --gap)",
    )
    plan.add_argument("--n-judges", type=count, help="number of judges J to rank")
    plan.add_argument(
        "--gap",
        type=finite,
        help="smallest gap in agreement with the pool between two judges",
    )
    add_json(plan)
    for flag, message in RENAMED.items():
        add_renamed(plan, flag, message)


def _add_judge(plan):
    """Add the judge's three forms to ``plan``: advantage, signed margin or accuracy."""
    judge = plan.add_mutually_exclusive_group()
    judge.add_argument(
        "--advantage",
        type=finite,
        help="the judge's expected agreement with the pool minus a human's, S_j - S_h: 0 is "
        "a judge as good as the humans, 0.05 one 0.05 better, negative worse (default 0)",
    )
    judge.add_argument(
        "--margin",
        type=finite,
        help="instead: the judge's signed margin S_j - S_h + eps, the advantage plus the "
        "tolerance (--margin 0.05 at eps 0.05 is --advantage 0)",
    )
    judge.add_argument("--p-judge", type=finite, help="instead: the judge's accuracy")


def _add_scoring(plan):
    """Add the rule's coefficient and the rating-scale channel to ``plan``'s arguments."""
    plan.add_argument(
        "--adjacent",
        type=finite,
        help="rating scales: share of each rater's errors on a neighbouring label",
    )
    plan.add_argument(
        "--coefficient",
        default="observed",
        help="agreement coefficient of the rule (observed, cohen_kappa, krippendorff_alpha, "
        "gwet_ac1, gwet_ac2)",
    )
    plan.add_argument(
        "--level", default="nominal", help="krippendorff_alpha's level (ordinal, interval)"
    )
    plan.add_argument(
        "--weights",
        default="identity",
        help="agreement weights of observed, cohen_kappa, gwet_ac2 (linear, quadratic)",
    )


def _question(args, p_human, advantage, margin):
    """Return the ``question`` of plan's JSON document: the options as given or defaulted."""
    keys = ("n_humans", "n_labels", "epsilon", "tau", "design", "items", "target", "confidence")
    keys += ("alpha", "seed", "p_judge", "coefficient", "level", "weights", "adjacent")
    question = {key: getattr(args, key) for key in keys}
    return {**question, "p_human": p_human, "advantage": advantage, "margin": margin}


def _judge_flag(args):
    """Return the judge's option as given (``--advantage 0.02``), for plan's messages."""
    for flag, value in (
        ("--advantage", args.advantage),
        ("--margin", args.margin),
        ("--p-judge", args.p_judge),
    ):
        if value is not None:
            return f"{flag} {value:g}"
    return "the default --advantage 0"


def _p_human(args):
    from simcore.planning import validation_items as plan

    if args.n_labels < 2:
        raise UsageError(f"--n-labels: must be >= 2 (got {args.n_labels})")
    if args.human_agreement is None:
        return args.p_human if args.p_human is not None else 0.85
    try:
        return plan.human_accuracy_from_agreement(args.human_agreement, args.n_labels)
    except ValueError as error:
        raise UsageError(f"--human-agreement: {error}") from None


def _check_rank(args, p_judge, p_human):
    """Refuse a ranking question without an answer (UsageError naming the option)."""
    if args.n_judges is None or args.gap is None or args.n_judges < 2 or not args.gap > 0:
        raise UsageError(
            f"--rank needs --n-judges J >= 2 and --gap > 0 (got {args.n_judges}, {args.gap})"
        )
    if args.gap > 1:
        raise UsageError(f"--gap: must be in (0, 1], a difference of agreements (got {args.gap})")
    for flag, value in (("--p-human", p_human), ("--p-judge", p_judge)):
        if not 0 <= value <= 1:
            raise UsageError(f"{flag}: must be in [0, 1] (got {value})")


def _rank(args, p_human):
    """Print (or return as JSON) the ranking recipe."""
    from simcore.model.generative import pair_agreement
    from simcore.model.recipes import ranking_items

    p_judge = args.p_judge if args.p_judge is not None else p_human
    _check_rank(args, p_judge, p_human)
    agreement = float(pair_agreement(p_judge, p_human, args.n_labels))
    sigma2 = agreement * (1 - agreement)
    try:
        m_rank = ranking_items(args.n_judges, args.gap, sigma2, args.alpha)
    except (OverflowError, ZeroDivisionError):
        raise UsageError(
            f"--gap: too small for any corpus: the ranking recipe's items overflow (got {args.gap})"
        ) from None
    if args.json:
        print_json(
            {
                "command": NAME,
                "question": {
                    "rank": True,
                    "n_judges": args.n_judges,
                    "gap": args.gap,
                    "alpha": args.alpha,
                    "p_judge": p_judge,
                    "p_human": p_human,
                    "n_labels": args.n_labels,
                    "items": args.items,
                },
                "answer": {
                    "m_rank": int(m_rank),
                    "sigma2": sigma2,
                    "exceeds_corpus": bool(m_rank > args.items),
                },
            }
        )
        return
    size = f"{m_rank} items per secondary"
    if m_rank > args.items:
        size = (
            f"more than the {args.items:,} items of the corpus (recipe: {m_rank:,} per secondary)"
        )
    print(
        f"ranking recipe: m_rank = {size} to order {args.n_judges} "
        f"judges whose agreement with the pool differs by at least {args.gap:g} "
        f"(alpha {args.alpha:g}; sigma0^2 = {sigma2:.4f}, the per-item variance of "
        f"[judge == r1] at p_judge {p_judge:g}).\nIt assumes equal variances and no "
        "covariance between the judges' scores (judges who err on the same items need "
        "fewer), and it does not simulate the rule."
    )
    if m_rank > args.items:
        print(
            "No validation on this corpus orders these judges at this gap; a larger corpus "
            "(--items) or a larger --gap is needed."
        )


def run(args):
    """Answer the planning question (or the ranking recipe) and print it."""
    import dataclasses

    from simcore.planning import validation_items as plan
    from simcore.studies.config import ScenarioError

    if not 0 < args.alpha < 1:
        raise UsageError(f"--alpha: must be in (0, 1) (got {args.alpha})")
    p_human = _p_human(args)
    if args.rank:
        _rank(args, p_human)
        return 0
    advantage = args.advantage
    if args.p_judge is None and args.margin is None and advantage is None:
        advantage = 0.0  # a judge as good as the humans
    scoring = {"coefficient": args.coefficient, "level": args.level, "weights": args.weights}
    raw = plan.question_scenario(
        args.items,
        args.n_humans,
        args.n_labels,
        p_human,
        args.epsilon,
        args.tau,
        args.design,
        margin=args.margin,
        p_judge=args.p_judge,
        seed=args.seed,
        scoring=scoring,
        adjacent=args.adjacent,
        advantage=advantage,
    )
    margin = raw["model"].get("margin")
    judge_flag = _judge_flag(args)
    plan.check_margin_scoring(margin, scoring, args.adjacent, judge_flag)
    progress = None if args.quiet or args.json else phase_printer("plan")
    try:
        result = plan.answer(
            raw,
            target=args.target,
            confidence=args.confidence,
            alpha=args.alpha,
            progress=progress,
            judge_flag=judge_flag,
        )
    except ScenarioError as error:
        flag = "--margin" if args.margin is not None else "--advantage"
        raise plan.with_option_names(error, margin_flag=flag) from None
    if args.json:
        question = _question(args, p_human, advantage, margin)
        print_json({"command": NAME, "question": question, "answer": dataclasses.asdict(result)})
    else:
        print(plan.describe(result, raw, args.target, args.confidence, args.alpha))
    return 0
