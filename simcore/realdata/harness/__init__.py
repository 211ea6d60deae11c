"""Evaluation harnesses as inputs: Inspect AI eval logs and MLflow tracking stores.

Each harness module tells its sources apart without its library and reads them with it
(an optional extra): Inspect AI logs, whose scorers are judges and score edits' authors
humans (inspect_log); MLflow stores, whose LLM_JUDGE feedback is the judges' and HUMAN
feedback the humans' (mlflow_store). Both read into one value object of labels with their
roles (labels), which becomes the annotation matrix through the long-table loader, a judge's
production or a dated stream for the monitor (source). The one reader
(:func:`simcore.realdata.readers.read_annotations`) asks :func:`harness_for` first.

``__all__`` lists the names other packages import from here; each is imported from its
module on first use (:func:`simcore._lazy.attach`).
"""

from simcore._lazy import attach

__all__ = [
    "HARNESSES",
    "Harness",
    "HarnessLabel",
    "HarnessLabels",
    "dated_labels",
    "harness_for",
    "harness_matrix",
    "judge_production",
    "judge_table",
    "label_text",
]

__getattr__, __dir__ = attach(
    __name__,
    {
        "labels": ("HarnessLabel", "HarnessLabels", "label_text"),
        "source": (
            "HARNESSES",
            "Harness",
            "dated_labels",
            "harness_for",
            "harness_matrix",
            "judge_production",
            "judge_table",
        ),
    },
)
