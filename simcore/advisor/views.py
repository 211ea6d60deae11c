"""The notebook view of an :class:`simcore.advisor.advice.Advice`: tables, text and figure.

:class:`AdviceView` is a base class of ``Advice`` that adds, as properties, the report's
tables as pandas DataFrames (built by :mod:`simcore.advisor.frames`), and the methods
:meth:`~AdviceView.to_markdown` (the text of ``report.md``) and :meth:`~AdviceView.plot`
(the figure of ``report.png``). pandas and matplotlib are imported on first use, so the
command line does not pay for them.
"""


class AdviceView:
    """DataFrames, Markdown and the figure of an advice (a base class of ``Advice``)."""

    @property
    def verdict_table(self):
        """One row per judge: omega, the decision, the interval verdict, ... (a DataFrame)."""
        from simcore.advisor import frames

        return frames.verdict_table(self)

    @property
    def comparison_table(self):
        """Each judge's d_k per held-out human, with its 95% interval (a DataFrame)."""
        from simcore.advisor import frames

        return frames.comparison_table(self)

    @property
    def alt_test_table(self):
        """The alternative annotator test per judge and held-out human (a DataFrame)."""
        from simcore.advisor import frames

        return frames.alt_test_table(self)

    @property
    def risk_table(self):
        """One row per judge: the risk now ± SE, the items needed, the recipe (a DataFrame)."""
        from simcore.advisor import frames

        return frames.risk_table(self)

    @property
    def risk_curve(self):
        """The risk curves in long form: judge, design, extra, risk, se, trials (a DataFrame)."""
        from simcore.advisor import frames

        return frames.risk_curve_table(self)

    @property
    def budget_table(self):
        """The budget's risk under each design (a DataFrame; no rows without a budget)."""
        from simcore.advisor import frames

        return frames.budget_table(self)

    @property
    def model_table(self):
        """Each judge's fitted model: every rater's accuracy ± bootstrap SE (a DataFrame)."""
        from simcore.advisor import frames

        return frames.model_table(self)

    @property
    def next_round(self):
        """The rows of ``next_round.csv``, human, item, design (a DataFrame)."""
        from simcore.advisor import frames

        return frames.next_round_table(self)

    def to_dict(self):
        """Return the advice as one JSON-ready document (``simcore advise --json``).

        ``{"recommendation", "details", "humans", "judges", "coefficient", "scale", "shape",
        "rule_form",
        "verdicts", "comparisons", "risk", "budget", "next_round", "risk_now",
        "suspect_humans"}``:
        ``coefficient`` is the point rule's (with its level or weights, e.g.
        ``cohen_kappa (quadratic)``; None under ``alt_test``); ``scale`` the labels' scale,
        the scoring in words and, on a rating scale, every verdict under the other scoring
        (:func:`simcore.advisor.scoring_check.scoring_document`); ``recommendation`` is the one
        answer (:meth:`simcore.advisor.recommendation.Recommendation.to_dict`, its
        ``text`` included), first; ``details`` the three "how many" figures, each with the sentence
        saying what it bounds (:func:`simcore.advisor.report.plan.details_document`);
        ``shape`` is the matrix's shape
        (:meth:`simcore.realdata.data_shape.DataShape.to_dict`); each table is the list of
        rows of the DataFrame of the same name (``risk`` is ``risk_table``), NaN where a
        number is undefined; ``risk_now`` gives each judge's risk now, SE and basis
        (``dense`` or ``simulated``: :func:`simcore.advisor.dense.risk_now_document`);
        ``suspect_humans`` per judge its pivotal humans and the humans at or below chance
        (:func:`simcore.advisor.suspects.suspects_document`).
        """
        from simcore.advisor.dense import risk_now_document
        from simcore.advisor.scoring_check import scoring_document
        from simcore.advisor.suspects import suspects_document

        tables = {
            "verdicts": self.verdict_table,
            "comparisons": self.comparison_table,
            "risk": self.risk_table,
            "budget": self.budget_table,
            "next_round": self.next_round,
        }
        document = {}
        if self.recommendation is not None:
            from simcore.advisor.report.plan import details_document

            document["recommendation"] = self.recommendation.to_dict()
            document["details"] = details_document(self)
        document["humans"] = list(self.humans)
        document["judges"] = list(self.verdict_table["judge"])
        document["rule"] = {
            "kind": self.rule,
            "epsilon": self.epsilon,
            "tau": self.tau,
            "min_pairs": self.min_pairs,
        }
        document["coefficient"] = None if self.rule == "alt_test" else self.coefficient
        document["scale"] = scoring_document(self)
        document["shape"] = None if self.shape is None else self.shape.to_dict()
        document["rule_form"] = None if self.rule_form is None else self.rule_form.to_dict()
        document.update({name: _records(frame) for name, frame in tables.items()})
        document["risk_now"] = risk_now_document(self)
        document["suspect_humans"] = suspects_document(self)
        return document

    def to_markdown(self):
        """Return the text of ``report.md`` for this advice (one group's, for a group)."""
        from simcore.advisor.report.files import report_markdown

        return report_markdown(self) + "\n"

    def _repr_markdown_(self):
        """Show the report in a notebook."""
        return self.to_markdown()

    def plot(self):
        """Return the figure of ``report.png`` (a matplotlib Figure, closed in pyplot).

        It is displayed as a notebook cell's value; ``figure.savefig(path)`` writes it.
        """
        from simcore.advisor.report.figure import report_plot

        return report_plot(self)


def _records(frame):
    """Return a DataFrame's rows as mappings of plain Python values."""
    return [
        {str(key): value.item() if hasattr(value, "item") else value for key, value in row.items()}
        for row in frame.to_dict(orient="records")
    ]
