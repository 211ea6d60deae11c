"""What an audit runs with, as four values: the rule, the plan, a simulation's draws, a proposal.

``advise`` takes the user's :class:`simcore.model.decision_rule.Rule` and an
:class:`AuditPlan`; the rule is resolved once on the matrix into an :class:`AuditRule` (the
coefficient's weights from the labels' values, the alt_test's per-item score) and travels down
the audit as one object, as do each risk simulation's :class:`Draws` and the next round's
:class:`Proposal` each draw adds. Where twenty loose scalars went from the audit to the risk
of one judge and into the anchored decisions, these four go.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from simcore.model.decision_rule import Rule

if TYPE_CHECKING:
    from simcore.model.weighted import Scoring

__all__ = [
    "DRAWS_PER_MODEL",
    "EXTRA_GRID",
    "PLAN_KEYWORDS",
    "RULE_KEYWORDS",
    "AuditPlan",
    "AuditRule",
    "Draws",
    "Proposal",
    "audit_settings",
]

EXTRA_GRID = (0, 10, 25, 50, 100, 200, 400, 800, 1600, 3200)
"""Items per secondary at which the risk curve is simulated (capped by what is unlabelled)."""

DRAWS_PER_MODEL = 10
"""Consecutive draws from each model of a posterior-predictive risk
(:func:`simcore.advisor.risk.posterior.posterior_risk`)."""


@dataclass(frozen=True, eq=False)
class AuditRule:
    """The decision rule as the audit runs it on one matrix.

    Attributes
    ----------
    kind : str
        ``point`` (the sparse-overlap paper's rule) or ``alt_test`` (the original
        alternative annotator test).
    epsilon, tau : float
        The tolerance and the acceptance threshold: accept when ``omega >= tau``.
    min_pairs : int
        The point rule leaves out a comparison with fewer pairs (0: every comparison
        counts, an empty one passes).
    scoring : simcore.model.weighted.Scoring or None
        The point rule's coefficient with its weights, resolved on the labels' values; None
        for the paper's observed agreement.
    scale : str
        The alt_test's per-item score: ``categorical``, ``numeric`` or ``weighted``.
    label_values : numpy.ndarray or None
        The labels' numeric values, under ``scale`` numeric.
    """

    kind: str = "point"
    epsilon: float = 0.05
    tau: float = 0.5
    min_pairs: int = 0
    scoring: Scoring | None = None
    scale: str = "categorical"
    label_values: np.ndarray | None = None

    @classmethod
    def on_matrix(cls, rule: Rule, matrix: Any) -> AuditRule:
        """Return ``rule`` resolved on ``matrix``'s labels.

        The coefficient, level and weights become a
        :class:`~simcore.model.weighted.Scoring` (:func:`simcore.advisor.scoring.advise_scoring`,
        refused naming the file where the labels do not say what it needs); under the
        numeric scale every label must be a number
        (:func:`simcore.advisor.verdict.numeric_label_values`).
        """
        from simcore.advisor.scoring import advise_scoring
        from simcore.advisor.verdict import numeric_label_values

        scoring = advise_scoring(matrix, rule.coefficient, rule.level, rule.weights)
        values = numeric_label_values(matrix.labels) if rule.scale == "numeric" else None
        return cls(rule.kind, rule.epsilon, rule.tau, rule.min_pairs, scoring, rule.scale, values)

    @functools.cached_property
    def item_terms(self) -> tuple | None:
        """The alt_test's per-item score for the kernels, ``(numeric, pair_terms)`` or None.

        :func:`simcore.advisor.verdict.alt_test_item_terms` of the scale, values and scoring,
        made once per rule (every batch of every risk simulation reads it).
        """
        from simcore.advisor.verdict import alt_test_item_terms

        return alt_test_item_terms(self.scale, self.label_values, self.scoring)


@dataclass(frozen=True)
class AuditPlan:
    """What the audit simulates and what its plan aims at.

    Attributes
    ----------
    target : float
        The largest acceptable risk of a wrong verdict.
    budget : int or None
        New labels to spend (None: no budget; every design is then compared at it).
    design : str
        The design of the risk curves and of the proposal without a budget.
    trials : int
        Simulated matrices per risk estimate (the risk now draws more, to its SE).
    seed : int
        Seed of the simulations, the bootstrap and the proposal.
    n_boot : int
        Bootstrap refits of the latent-class model.
    grid : tuple of int
        Items per secondary at which the risk curve is simulated.
    model : str
        The latent-class model: ``auto``, ``dawid-skene`` or ``one-coin``.
    """

    target: float = 0.05
    budget: int | None = None
    design: str = "strat"
    trials: int = 300
    seed: int = 0
    n_boot: int = 30
    grid: tuple = EXTRA_GRID
    model: str = "auto"


@dataclass(frozen=True)
class Draws:
    """The draws of one risk simulation.

    Attributes
    ----------
    trials : int
        Most matrices drawn.
    seed : int
        Seed of the draws' counter-based streams.
    batch : int
        Matrices drawn and decided at once.
    stop_at : float or None
        Stop early, after a whole batch, once the risk's 95% Wilson interval lies on one
        side of this target; None runs every trial.
    per_model : int
        Consecutive draws from each model of a posterior-predictive risk.
    first : int
        The first draw: draws ``first ..`` continue an earlier simulation's, same streams.
    """

    trials: int = 400
    seed: int = 0
    batch: int = 100
    stop_at: float | None = None
    per_model: int = DRAWS_PER_MODEL
    first: int = 0

    def but(self, **changes: Any) -> Draws:
        """Return these draws with ``changes`` (``dataclasses.replace``)."""
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True)
class Proposal:
    """The next round each draw adds to the matrix: ``extra`` items per secondary.

    Attributes
    ----------
    design : str or None
        The design the items are proposed by (:data:`simcore.model.designs.DESIGNS`).
    extra : int
        Items per secondary added (0: the matrix as it is).
    labels : numpy.ndarray or None
        ``(n, K)`` real human labels, which a stratified proposal reads.
    pools : dict or None
        Proposal pools shared between simulations, keyed by ``(design, extra, seed)``: they
        depend on the real labels only, so every judge can use the same ones. Filled as
        they are made; left out of comparisons.
    """

    design: str | None = None
    extra: int = 0
    labels: np.ndarray | None = field(default=None, compare=False)
    pools: dict | None = field(default=None, compare=False)


RULE_KEYWORDS = (
    *("scale", "coefficient", "level", "weights", "epsilon", "tau"),
    *("min_pairs", "form", "min_items"),
)
"""advise's keywords that are settings of its :class:`~simcore.model.decision_rule.Rule`
(beside ``rule``, the rule's kind)."""

PLAN_KEYWORDS = tuple(item.name for item in dataclasses.fields(AuditPlan))
"""advise's keywords that are settings of its :class:`AuditPlan`."""


def audit_settings(rule: str = "point", **keywords: Any) -> tuple[Rule, AuditPlan]:
    """Return the :class:`~simcore.model.decision_rule.Rule` and :class:`AuditPlan` of keywords.

    ``rule`` is the rule's kind; each keyword is one of :data:`RULE_KEYWORDS` or
    :data:`PLAN_KEYWORDS`, as ``simcore advise`` names its options.

    Raises
    ------
    TypeError
        A keyword of neither.
    ValueError
        A rule setting out of range (:class:`~simcore.model.decision_rule.Rule`).
    """
    unknown = sorted(set(keywords) - {*RULE_KEYWORDS, *PLAN_KEYWORDS})
    if unknown:
        raise TypeError(f"audit_settings: {unknown[0]}: neither a rule nor a plan setting")
    settings = {name: keywords[name] for name in RULE_KEYWORDS if name in keywords}
    plan = {name: keywords[name] for name in PLAN_KEYWORDS if name in keywords}
    return Rule(kind=rule, **settings), AuditPlan(**plan)
