"""The judge as a measured instrument: its card, the human ceiling, transport, well-posedness.

A judge card records a judge's TPR and TNR on one criterion of one population with an expiry
(card, written and read by card_file, checked against new data by card_check, with the
criterion's human ceiling of card_ceiling); what FAIL means on a criterion
(fail_definitions); the human ceilings of a multi-rater matrix (ceiling, on the grouped
Spearman/kappa scores of grouped_scores) and the ``simcore ceiling`` report
(ceiling_report); what transporting a card to another population costs (transport); and
whether a criterion is well posed, from the judges' agreement on unlabelled items
(wellposed, wellposed_data, wellposed_report). It uses the statistics of
:mod:`simcore.calibration` and the matrices of :mod:`simcore.realdata`; calibration never
imports it.
"""
