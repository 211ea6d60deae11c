"""``simcore plan``: how many co-labelled items per secondary a validation needs.

``--json`` prints ``{"command": "plan", "question": {...the options...}, "answer": {...}}``:
the answer's fields are :class:`simcore.planning.validation_items.PlanAnswer`'s (``m``,
``m_conservative``, ``m_optimistic``, ``m_max``, the margin, the recipe, ...), or with
``--rank`` ``m_rank`` and ``sigma2``.
"""

from simcore.cli.common import UsageError, add_json, phase_printer, print_json, subcommand
from simcore.options import count_number as count
from simcore.options import finite_number as finite

NAME = "plan"


def add(commands):
    """Add ``plan`` to the subparsers ``commands``."""
    plan = subcommand(
        commands,
        NAME,
        "how many items per secondary a validation needs (simulation + recipe)",
        [
            "simcore plan --humans 4 --items 2000 --margin 0.05",
            "simcore plan --p-judge 0.8 --p-human 0.85 --target 0.1 --json",
            "simcore plan --rank --judges 3 --gap 0.05",
        ],
    )
    plan.add_argument("--humans", type=count, default=4, help="humans K")
    accuracy = plan.add_mutually_exclusive_group()
    accuracy.add_argument("--p-human", type=finite, help="human accuracy (default 0.85)")
    accuracy.add_argument(
        "--human-agreement",
        type=finite,
        help="measured pairwise observed agreement between humans",
    )
    plan.add_argument("--labels", type=count, default=2, help="label categories L")
    _add_scoring(plan)
    plan.add_argument("--epsilon", type=finite, default=0.05, help="tolerance")
    plan.add_argument("--tau", type=finite, default=0.5, help="acceptance threshold")
    plan.add_argument("--design", default="exact_m", help="allocation design")
    plan.add_argument("--items", type=count, default=2000, help="corpus size n")
    judge = plan.add_mutually_exclusive_group()
    judge.add_argument(
        "--margin",
        type=finite,
        help="the judge's expected signed margin S_j - S_h + eps (default +0.05)",
    )
    judge.add_argument("--p-judge", type=finite, help="the judge's accuracy instead")
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
        help="the ranking recipe m_rank instead (needs --judges and --gap)",
    )
    plan.add_argument("--judges", type=count, help="judges J to rank")
    plan.add_argument(
        "--gap",
        type=finite,
        help="smallest gap in agreement with the pool between two judges",
    )
    add_json(plan)


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


def _question(args, p_human, margin):
    """Return the ``question`` of plan's JSON document: the options as given."""
    keys = ("humans", "labels", "epsilon", "tau", "design", "items", "target", "confidence")
    keys += ("alpha", "seed", "p_judge", "coefficient", "level", "weights", "adjacent")
    return {**{key: getattr(args, key) for key in keys}, "p_human": p_human, "margin": margin}


def _p_human(args):
    from simcore.planning import validation_items as plan

    if args.labels < 2:
        raise UsageError(f"--labels: must be >= 2 (got {args.labels})")
    if args.human_agreement is None:
        return args.p_human if args.p_human is not None else 0.85
    try:
        return plan.human_accuracy_from_agreement(args.human_agreement, args.labels)
    except ValueError as error:
        raise UsageError(f"--human-agreement: {error}") from None


def _check_rank(args, p_judge, p_human):
    """Refuse a ranking question without an answer (UsageError naming the option)."""
    if args.judges is None or args.gap is None or args.judges < 2 or not args.gap > 0:
        raise UsageError(
            f"--rank needs --judges J >= 2 and --gap > 0 (got {args.judges}, {args.gap})"
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
    agreement = float(pair_agreement(p_judge, p_human, args.labels))
    sigma2 = agreement * (1 - agreement)
    try:
        m_rank = ranking_items(args.judges, args.gap, sigma2, args.alpha)
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
                    "judges": args.judges,
                    "gap": args.gap,
                    "alpha": args.alpha,
                    "p_judge": p_judge,
                    "p_human": p_human,
                    "labels": args.labels,
                    "items": args.items,
                },
                "answer": {
                    "m_rank": int(m_rank),
                    "sigma2": sigma2,
                    "more_than_corpus": bool(m_rank > args.items),
                },
            }
        )
        return
    print(
        f"ranking recipe: m_rank = {m_rank} items per secondary to order {args.judges} "
        f"judges whose agreement with the pool differs by at least {args.gap:g} "
        f"(alpha {args.alpha:g}; sigma0^2 = {sigma2:.4f}, the per-item variance of "
        f"[judge == r1] at p_judge {p_judge:g}).\nIt assumes equal variances and no "
        "covariance between the judges' scores (judges who err on the same items need "
        "fewer), and it does not simulate the rule."
    )
    if m_rank > args.items:
        print(
            f"That is more than the corpus's {args.items} items (--items): no validation "
            "on this corpus orders these judges at this gap; a larger corpus or a larger "
            "--gap is needed."
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
    margin = None
    if args.p_judge is None:
        margin = args.margin if args.margin is not None else 0.05
    scoring = {"coefficient": args.coefficient, "level": args.level, "weights": args.weights}
    plan.check_margin_scoring(margin, scoring, args.adjacent, explicit=args.margin is not None)
    raw = plan.question_scenario(
        args.items,
        args.humans,
        args.labels,
        p_human,
        args.epsilon,
        args.tau,
        args.design,
        margin=margin,
        p_judge=args.p_judge,
        seed=args.seed,
        scoring=scoring,
        adjacent=args.adjacent,
    )
    progress = None if args.quiet or args.json else phase_printer("plan")
    try:
        result = plan.answer(
            raw, target=args.target, confidence=args.confidence, alpha=args.alpha, progress=progress
        )
    except ScenarioError as error:
        raise plan.with_option_names(error) from None
    if args.json:
        question = _question(args, p_human, margin)
        print_json({"command": NAME, "question": question, "answer": dataclasses.asdict(result)})
    else:
        print(plan.describe(result, raw, args.target, args.confidence, args.alpha))
    return 0
