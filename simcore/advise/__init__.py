"""``simcore advise``: audit a sparse validation matrix and plan its next round.

The latent-class fit (fit), the next round's proposals (next_round), the verdict, its
risk and the budget comparison (advice), the report (report) and the SummEval round trip
(example).
"""
