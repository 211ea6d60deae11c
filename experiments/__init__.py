"""The published studies ``make`` runs: research scripts, each with its own ``main()``.

Run one as ``python -m experiments.NAME``; nothing in simcore imports this package.

- ``real_check`` (``make coverage``): coverage of the corrected failure rate's intervals on
  SummEval's real judges, with its Markdown report (``real_report``);
- ``advise_example`` (``make advise-example``): advise's round trip on SummEval, with the
  check of its choice of design (``advise_round_trip``);
- ``advise_calibration`` (``make advise-calibration``): is advise's risk calibrated on the
  shared real matrices, scored and written by ``advise_calibration_scores`` and
  ``advise_calibration_report``;
- ``advise_crowd_calibration``: the same question on synthetic crowds and sparse panels
  whose every label is known (scored as ``advise_calibration``);
- ``wellposed_study`` (``make wellposed``): does agreement among judges predict calibration;
- ``transport_study`` (``make transport``): a judge's card measured on one criterion and
  applied to another's stream;
- ``card_folder`` (``make cards``): a judge card for every judge and criterion of the shipped
  data, and their summary.

``real_groups`` reads a shipped data set's groups as FAIL flags for the wellposed and
transport studies.
"""

__all__ = []
