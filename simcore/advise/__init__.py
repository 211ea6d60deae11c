"""``simcore advise``: audit a sparse validation matrix and plan its next round.

The latent-class fits (fit: Dawid-Skene; one_coin; models: the choice between them and the
bootstrap), the raters' channels as the simulation reads them (channels), the agreement
checks (diagnostics), the next round's
proposals (next_round), the verdict on the data as it is (verdict), the risk of a wrong
verdict (risk), the audit, the budget comparison and the plan that join them (advice), the
report (report, groups) and the SummEval round trip (example).
"""
