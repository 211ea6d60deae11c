"""Every command's options, declared once (:class:`simcore.options.Option`).

The command line adds its arguments from these declarations and the Python functions check
their keywords with them, so a default, a range or a help text is written in one place. The
data options (:data:`DATA_OPTIONS`) are the one reader's; the others are each command's own.
Like :mod:`simcore.options`, this module imports nothing heavy, so every layer may use it.
"""

import datetime

from simcore.options import Option, count_number, finite_number, iso_date, label_list

MERGE_LABEL_VARIANTS = Option(
    "merge_label_variants",
    "--merge-label-variants",
    bool,
    False,
    "merge labels that differ only in case or surrounding spaces ('Yes', 'yes') into "
    "their most frequent spelling (ties: the first in sorted order); without it such "
    "labels are refused",
)
"""The one reader's answer to labels differing only in case
(:mod:`simcore.realdata.label_spellings`)."""

DATA_OPTIONS = (
    Option("humans", "--humans", object, None, "human ids, primary first", allow_none=True),
    Option("judges", "--judges", object, None, "judge names", allow_none=True),
    Option("judges_file", "--judges-file", object, None, "judge labels file", allow_none=True),
    Option(
        "group_separator", "--group-separator", str, None, "JSON group separator", allow_none=True
    ),
    Option("columns", "--item-column etc.", dict, None, "long table column names", allow_none=True),
    Option("slots", "--slots", bool, False, "the human columns are label positions, not people"),
    Option(
        "label_order",
        "--label-order",
        object,
        None,
        "the labels in their order, lowest first (a rating scale of text labels)",
        allow_none=True,
    ),
    MERGE_LABEL_VARIANTS,
)
"""The one reader's keywords (the command line's data arguments,
:func:`simcore.cli.common.add_data_arguments`); checked by the reader itself."""

READER_KEYS = tuple(option.name for option in DATA_OPTIONS)
"""The one reader's keyword names (``humans``, ``judges``, ``judges_file``, ...)."""

BOOT = Option("boot", "--boot", int, 1000, "bootstrap replicates over items", low=0)
CEILING_BOOT = Option(
    "boot",
    "--boot",
    int,
    1000,
    "bootstrap replicates over items (a judge's position is read against their interval)",
    low=1,
)
SEED_2026 = Option("seed", "--seed", int, 2026, "bootstrap root seed", low=0)
LEVEL = Option(
    "level",
    "--level",
    str,
    "nominal",
    "Krippendorff's alpha's level of measurement (ordinal, interval and ratio read the "
    "labels' numbers; ordinal also a declared order)",
    choices=("nominal", "ordinal", "interval", "ratio"),
)
"""Krippendorff's alpha's level of measurement, wherever a coefficient is chosen."""

WEIGHTS = Option(
    "weights",
    "--weights",
    str,
    "identity",
    "agreement weights of cohen_kappa, gwet_ac2 and observed (linear and quadratic read "
    "the labels' numbers, or their declared order)",
    choices=("identity", "linear", "quadratic"),
)
"""The agreement weights of kappa, AC2 and observed agreement, wherever one is chosen."""

COEFFICIENT_CHOICES = ("observed", "cohen_kappa", "krippendorff_alpha", "gwet_ac1", "gwet_ac2")
"""The agreement coefficients a command takes (with ``--level`` or ``--weights``)."""

PAIR_COEFFICIENT = Option(
    "coefficient",
    "--coefficient",
    str,
    None,
    "score each rater pair with this agreement coefficient (with --level or --weights) "
    "instead of Spearman's rho or Cohen's kappa",
    choices=COEFFICIENT_CHOICES,
    allow_none=True,
)
"""A pair statistic chosen among the agreement coefficients (``wellposed``)."""

GRADED = Option(
    "graded",
    "--graded/--categorical",
    bool,
    None,
    "ordered scores (Spearman) or categories (Cohen's kappa); None: Spearman when every "
    "label is a number with at least 3 values",
    allow_none=True,
)

CEILING_OPTIONS = (
    GRADED,
    Option("criterion", "--criterion", list, None, "report only these groups", allow_none=True),
    Option(
        "judge_scores",
        "--judge-scores",
        str,
        None,
        "published per-judge scores: CSV with model (or judge), criterion (optional) and "
        "the score column",
        allow_none=True,
        metavar="FILE",
    ),
    Option(
        "score_column", "--score-column", str, "spearman", "--judge-scores column holding the score"
    ),
    PAIR_COEFFICIENT,
    LEVEL,
    WEIGHTS,
    CEILING_BOOT,
    SEED_2026,
    Option(
        "min_shared",
        "--min-shared",
        int,
        3,
        "fewest shared items a rater pair needs for its Spearman or kappa to enter r-hat "
        "(and scored items a rater needs for the benchmark and LOO ceilings)",
        low=1,
        metavar="N",
    ),
)
"""``simcore ceiling`` / :func:`simcore.ceiling`."""

WELLPOSED_OPTIONS = (
    Option(
        "judges",
        "--judges",
        object,
        None,
        "comma-separated judges, e.g. gpt-4o-mini,llama-31,mistral-v03 (default: every "
        "judge of the folder or JSON file; a CSV: every rater in it)",
        allow_none=True,
    ),
    Option(
        "group_separator",
        "--group-separator",
        str,
        None,
        "JSON input: item id separator before the group",
        allow_none=True,
    ),
    Option("criterion", "--criterion", str, None, "measure this group only", allow_none=True),
    MERGE_LABEL_VARIANTS,
    GRADED,
    PAIR_COEFFICIENT,
    LEVEL,
    WEIGHTS,
    BOOT,
    SEED_2026,
)
"""``simcore wellposed`` / :func:`simcore.wellposed`."""

CONFIDENCE = Option(
    "confidence",
    "--confidence",
    float,
    0.95,
    "confidence of the intervals",
    low=0,
    high=1,
    open_low=True,
    open_high=True,
)
YOUDEN_FLOOR = Option(
    "youden_floor",
    "--youden-floor",
    float,
    0.15,
    "refuse to correct when Se + Sp - 1 is below this",
    low=0,
    high=1,
)
LABELS = Option(
    "labels",
    "--labels",
    tuple,
    None,
    "labels a judge answer must be one of to parse (default: those the humans use)",
    allow_none=True,
    parse=label_list,
)

FAIL_AT_MOST = Option(
    "fail_at_most",
    "--fail-at-most",
    float,
    None,
    "FAIL = numeric label <= X",
    allow_none=True,
    parse=finite_number,
)
FAIL_LABELS = Option(
    "fail_labels",
    "--fail-labels",
    tuple,
    None,
    "FAIL = one of these labels A,B",
    allow_none=True,
    parse=label_list,
)
"""What FAIL means, for ``card`` and ``calibrate --data`` (exactly one of the two)."""

TRUTH = Option(
    "truth",
    "--truth",
    str,
    "majority",
    "what the judge is measured against: majority (the humans' majority label per item, "
    "ties left out; the published default) or latent (the true label of a latent-class fit "
    "of the humans and the judge, which lets the humans err)",
    choices=("majority", "latent"),
)
TRUTH_MODEL = Option(
    "truth_model",
    "--truth-model",
    str,
    "auto",
    "--truth latent: the humans' channel: auto (Dawid-Skene when every human labels at least "
    "20 items per label, else one-coin), dawid-skene or one-coin",
    choices=("auto", "dawid-skene", "one-coin"),
)
TRUTH_BOOT = Option(
    "boot",
    "--boot",
    int,
    1000,
    "bootstrap refits over items of the judge's error (--truth latent, --all-labels)",
    low=100,
)
TRUTH_OPTIONS = (TRUTH, TRUTH_MODEL, TRUTH_BOOT, SEED_2026)
"""How the truth a judge is measured against is formed (``calibrate``, ``card``)."""

ALL_LABELS = Option(
    "all_labels",
    "--all-labels",
    bool,
    False,
    "instead of a FAIL rate: correct the production distribution of every label of the "
    "humans' scale through the judge's confusion matrix",
)

CARD_OPTIONS = (
    Option("judge", "--judge", str, None, "the judge the card is for", allow_none=True),
    Option(
        "criterion",
        "--criterion",
        str,
        None,
        "the criterion: a group name when the data has groups",
        allow_none=True,
    ),
    Option(
        "population",
        "--population",
        str,
        None,
        "label of the population DATA comes from",
        allow_none=True,
    ),
    FAIL_AT_MOST,
    FAIL_LABELS,
    LABELS,
    Option(
        "date",
        "--date",
        datetime.date,
        None,
        "measurement date YYYY-MM-DD (default today)",
        allow_none=True,
        parse=iso_date,
    ),
    Option("expires_days", "--expires-days", int, 30, "days until the card expires", low=0),
    Option(
        "expires_on_alarm",
        "--expires-on-alarm",
        bool,
        False,
        "instead of --expires-days: the card stays valid until simcore monitor alarms on it "
        "(monitor --expire-card then dates its expiry)",
    ),
    CONFIDENCE,
    YOUDEN_FLOOR,
    *TRUTH_OPTIONS,
)
"""``simcore card`` / :func:`simcore.card` (``judge``, ``criterion`` and ``population`` are
required; exactly one of ``fail_at_most`` and ``fail_labels``; ``truth`` what the judge is
measured against)."""

CHECK_OPTIONS = (
    LABELS,
    Option(
        "drop",
        "--drop",
        float,
        0.15,
        "--check: the rate drop the power is for",
        low=0,
        high=1,
        open_low=True,
        open_high=True,
    ),
    Option(
        "alpha",
        "--alpha",
        float,
        0.05,
        "--check: level of each test",
        low=0,
        high=1,
        open_low=True,
        open_high=True,
    ),
)
"""``simcore card --check`` / :func:`simcore.card_check`."""

CALIBRATE_OPTIONS = (
    Option(
        "method",
        "--method",
        str,
        "lr",
        "lr: Rogan-Gladen with the Lang-Reiczigel interval (the default report); naive, ppi, "
        "ppi++ (power-tuned), strat-ppi (strata = judge label), strat-wilson (strat-ppi with a "
        "MOVER-Wilson interval), or all: each method's estimate and interval side by side, "
        "with its assumptions",
        choices=("lr", "naive", "ppi", "ppi++", "strat-ppi", "strat-wilson", "all"),
    ),
    Option(
        "confidence",
        "--confidence",
        float,
        0.95,
        "two-sided confidence of the intervals",
        low=0,
        high=1,
        open_low=True,
        open_high=True,
    ),
    Option(
        "youden_floor",
        "--youden-floor",
        float,
        0.15,
        "refuse to correct when Se + Sp - 1 is below this (report the observed rate)",
        low=0,
        high=1,
    ),
)
"""``simcore calibrate`` / :func:`simcore.calibrate` (the method, confidence and floor)."""

PLAN_THETA_SOURCES = ("reported", "stratified")
"""``--plan-theta``'s named choices (besides a failure rate)."""


def plan_theta_choice(value):
    """Return a checked ``--plan-theta``: ``reported``, ``stratified`` or a rate in (0, 1).

    A text that reads as a number becomes a float; at a rate of 0 or 1 the plan is
    degenerate (no failures, or no passes, to find), so both are refused.

    Raises
    ------
    ValueError
        ``must be reported, stratified or a failure rate in (0, 1) (got VALUE)``.
    """
    import numbers

    if isinstance(value, str) and value.strip().lower() in PLAN_THETA_SOURCES:
        return value.strip().lower()
    rate = value
    if isinstance(value, str):
        try:
            rate = float(value)
        except ValueError:
            rate = None
    if isinstance(rate, bool) or not isinstance(rate, numbers.Real) or not 0 < rate < 1:
        raise ValueError(
            f"must be reported, stratified or a failure rate in (0, 1) (got {value!r})"
        )
    return float(rate)


def _plan_theta_text(text):
    """Parse ``--plan-theta`` on the command line (an ``argparse`` type)."""
    import argparse

    try:
        return plan_theta_choice(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


PLAN_TRIALS = Option(
    "plan_trials",
    "--plan-trials",
    int,
    2000,
    "simulated trials per calibration size",
    low=1,
    parse=count_number,
)
"""``simcore calibrate --plan`` / :func:`simcore.plan_calibration`: trials per size tried."""

PLAN_THETA = Option(
    "plan_theta",
    "--plan-theta",
    object,
    "reported",
    "the failure rate a plan from a pilot is for: reported (the estimate simcore calibrate reports "
    "for the pilot with --method), stratified (valid only if the calibration rows are a "
    "random production sample), or a rate in (0, 1)",
    metavar="reported|stratified|RATE",
    parse=_plan_theta_text,
)
"""``calibrate --plan``'s failure rate (:mod:`simcore.planning.plan_theta`)."""


AGREEMENT_COEFFICIENT = Option(
    "coefficient",
    "--agreement",
    str,
    "krippendorff_alpha",
    "the agreement coefficient over the chosen raters",
    choices=COEFFICIENT_CHOICES,
)
"""What :func:`simcore.agreement` scores (``simcore inspect --agreement COEF``)."""

AGREEMENT_OPTIONS = (
    LEVEL,
    WEIGHTS,
    Option(
        "raters",
        "--raters",
        object,
        None,
        "comma-separated raters to score, humans or judges (default every human)",
        allow_none=True,
    ),
    BOOT,
    SEED_2026,
    CONFIDENCE,
)
"""``simcore inspect --agreement`` / :func:`simcore.agreement` (besides the coefficient)."""

MONITOR_OPTIONS = (
    Option(
        "confidence",
        "--confidence",
        float,
        0.95,
        "level of the failure rate's confidence sequence, valid at every look at once",
        low=0,
        high=1,
        open_low=True,
        open_high=True,
    ),
    Option(
        "alarm_alpha",
        "--alarm-alpha",
        float,
        0.05,
        "the drift alarm's bound on the probability of any false alarm over the whole horizon",
        low=0,
        high=1,
        open_low=True,
        open_high=True,
    ),
)
"""``simcore monitor`` / :func:`simcore.monitor`."""

SETTLE_DESIGNS = ("bernoulli", "exact_m", "shared_panel", "strat", "seq_refined", "seq_coverage")
"""The designs of a proposed round (:data:`simcore.model.designs.DESIGNS`, written out so that
parsing the command line does not import NumPy; a test keeps the two equal)."""

SETTLE_OPTIONS = (
    Option(
        "rule",
        "--rule",
        str,
        "point",
        "sequential rule: the sparse-overlap paper's leave-one-out point comparison, or the "
        "original alternative annotator test (e-values per human with e-BH)",
        choices=("point", "alt_test"),
    ),
    Option("epsilon", "--eps", float, 0.05, "tolerance eps", low=0, high=1, open_high=True),
    Option(
        "alpha",
        "--alpha",
        float,
        0.05,
        "probability of a wrong settled verdict over every look (point), or the e-BH "
        "false discovery rate (alt_test)",
        low=0,
        high=0.5,
        open_low=True,
        open_high=True,
    ),
    Option(
        "tau",
        "--tau",
        float,
        0.5,
        "share of the held-out humans the judge must be settled in favour of",
        low=0,
        high=1,
        open_low=True,
    ),
    Option(
        "design",
        "--design",
        str,
        "bernoulli",
        "design of the proposed next round (docs: designs)",
        choices=SETTLE_DESIGNS,
    ),
    Option(
        "power",
        "--power",
        float,
        0.8,
        "probability with which the proposed round should settle every open judge",
        low=0,
        high=1,
        open_low=True,
        open_high=True,
    ),
    Option(
        "trials",
        "--trials",
        int,
        200,
        "simulated rounds per size tried when sizing the next round",
        low=20,
    ),
    Option(
        "replay",
        "--replay",
        int,
        None,
        "replay the matrix in this many random orders of rounds instead: the labels the "
        "sequential verdict would have spent, against the fixed plan (point rule only)",
        low=1,
        allow_none=True,
    ),
    Option(
        "round_size",
        "--round-size",
        int,
        10,
        "with --replay: labels each secondary reveals per round",
        low=1,
    ),
    Option(
        "seed", "--seed", int, 2026, "root seed of the proposal, its sizing and --replay", low=0
    ),
)
"""``simcore settle`` / :func:`simcore.settle`."""
