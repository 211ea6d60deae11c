"""The codes, array layouts and tolerances that the kernels share.

The design and rule codes, where each value sits in the ``rule`` parameter array, the
columns of the per-trial counters and values, the rule's comparison tolerances, and how
many trials one parallel task runs. Arrays pass between the drawing, rule and simulation
modules in these layouts. So the layouts live here, below all of those modules, and
:mod:`simcore.engine.kernels` re-exports them under their old names.
"""

TIE_TOLERANCE = 1e-9
"""Slack in the count comparison; far below 1 / n_pairs for any realistic corpus."""

SCORE_TOLERANCE = 1e-12
"""Slack in score comparisons of the chance-corrected coefficients."""

BERNOULLI, EXACT_M, SHARED_PANEL, STRAT, SEQ_REFINED, SEQ_COVERAGE = range(6)
"""Design codes, in the order of :data:`simcore.model.designs.DESIGNS`."""

# Columns of the per-trial integer counters returned by simulate/evaluate.
EMPTY, DEGENERATE, DEGENERATE_DENSE, SHARED, POOL_UNDEFINED, POOL_UNDEFINED_DENSE = range(6)
UNDECIDED = 6
# Comparisons with fewer than ``rule.min_pairs`` pairs, left out of omega (sparse, dense).
THIN, THIN_DENSE = 7, 8
N_COUNTERS = 9
# Columns of the per-trial float values.
POOL_SPARSE, POOL_DENSE, PAIRWISE_OVERLAP, EXTRA_ITEMS = range(4)
N_VALUES = 4

POINT, ALT_TEST, INTERVAL = range(3)
"""Rule codes, in the order of :data:`simcore.studies.config.RULE_KINDS`."""
# Entries of the ``rule`` parameter array of :func:`simcore.engine.kernels.simulate`.
(
    RULE_KIND,
    RULE_EPSILON,
    RULE_COEFFICIENT,
    RULE_Z,
    RULE_MIN_HUMANS,
    RULE_MIN_ITEMS,
    RULE_Q,
    RULE_NUMERIC,
    RULE_MIN_PAIRS,
    RULE_SKIP,
) = range(10)
N_RULE = 10

UNWEIGHTED, WEIGHTED, ORDINAL = range(3)
"""Weightings of the point rule's coefficient: none, agreement weights ``W`` (alpha's metric
``1 - W``), alpha's ordinal metric from each comparison's marginal frequencies. A weighted
rule's weights reach the kernels beside the rule array, as ``weighting``
(:func:`simcore.engine.weighted_scores.weighting_of`); None for an unweighted one, whose
kernels then compile without the weighted rule."""

# Bits of ``rule[RULE_SKIP]``: per-trial outputs a cell does not ask for, left uncomputed
# (their columns stay 0). 0 computes everything.
SKIP_OVERLAP, SKIP_AGREEMENT, SKIP_RANKING = 1, 2, 4

TRIAL_CHUNK = 64
"""Trials per parallel task: each task allocates its scratch once for this many trials."""
