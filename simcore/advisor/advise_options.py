"""The options of ``simcore advise`` and :func:`simcore.advise`, declared once.

Each :class:`~simcore.options.Option` carries the keyword, the flag, the type, the default,
the range and the help; the command line adds its arguments from :data:`OPTIONS` and
:func:`simcore.api.audit.check_options` checks the Python keywords with the same list.
"""

from simcore.command_options import COEFFICIENT_CHOICES, LEVEL, WEIGHTS
from simcore.options import Option

FORM_NAMES = ("auto", "raters", "slots", "pooled")
"""The rule's forms (:data:`simcore.model.rule_form.FORMS`), written out for the same
reason (a test keeps the two equal)."""

DESIGN_NAMES = ("bernoulli", "exact_m", "shared_panel", "strat", "seq_refined", "seq_coverage")
"""The designs a proposal may use: :data:`simcore.model.designs.DESIGNS`, written out so that
parsing the command line does not import NumPy (a test keeps the two equal)."""

OPTIONS = (
    Option(
        "rule",
        "--rule",
        str,
        "point",
        "decision rule: the sparse-overlap paper's point comparison or the original "
        "alternative annotator test",
        choices=("point", "alt_test"),
    ),
    Option(
        "scale",
        "--scale",
        str,
        "categorical",
        "alt_test: per-item score is accuracy (categorical), minus the RMSE of the "
        "label values (numeric) or the mean agreement weight (weighted, with --weights)",
        choices=("categorical", "numeric", "weighted"),
    ),
    Option(
        "coefficient",
        "--coefficient",
        str,
        "observed",
        "point rule: the agreement coefficient of each comparison (docs: rule.coefficient); "
        "a rating scale takes a level or weights",
        choices=COEFFICIENT_CHOICES,
    ),
    LEVEL,
    WEIGHTS,
    Option("epsilon", "--eps", float, 0.05, "tolerance eps", low=0.0, high=1.0),
    Option(
        "min_pairs",
        "--min-pairs",
        int,
        0,
        "point rule: leave out comparisons with fewer pairs (0: an empty one passes)",
        low=0,
    ),
    Option(
        "form",
        "--form",
        str,
        "auto",
        "point rule: who it holds out: raters (every human), slots (label positions) or "
        "pooled (thin comparisons pooled); auto: by the matrix's shape (docs: rule.form)",
        choices=FORM_NAMES,
    ),
    Option(
        "min_items",
        "--min-items",
        int,
        10,
        "slots and pooled: the fewest items a virtual rater shares with the others",
        low=2,
    ),
    Option(
        "target",
        "--target",
        float,
        0.05,
        "largest acceptable risk",
        low=0.0,
        high=1.0,
        open_low=True,
        open_high=True,
    ),
    Option("budget", "--budget", int, None, "total new labels to spend", low=1, allow_none=True),
    Option(
        "design",
        "--design",
        str,
        "strat",
        "design of the proposal without a budget (docs: designs)",
        choices=DESIGN_NAMES,
    ),
    Option(
        "trials",
        "--trials",
        int,
        300,
        "simulated matrices per point of the risk curve; the risk now starts there and "
        "draws more (up to 10x) until its Monte Carlo SE is at most one point",
        low=20,
    ),
    Option("seed", "--seed", int, 0, "root seed of the simulations", low=0),
    Option(
        "model",
        "--model",
        str,
        "auto",
        "latent-class model: auto is one-coin above 10 labels, else Dawid-Skene",
        choices=("auto", "dawid-skene", "one-coin"),
    ),
)
"""``simcore advise``'s options (the data options are the one reader's)."""
