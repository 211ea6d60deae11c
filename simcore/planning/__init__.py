"""Planning a validation: how many labels to collect before the answer can be trusted.

``simcore plan`` (validation_items): how many co-labelled items a judge's validation needs, by
an adaptive simulation against the population reference beside the Gaussian recipe, on the
synthetic study's planning table (:mod:`simcore.studies.planning_table`). ``simcore calibrate
--plan`` (calibration.labels, asked a PlanRequest for a PlanTarget in calibration.target): how
many calibration labels each interval method of :mod:`simcore.calibration` needs for a target
half-width, simulated with the coverage kernel, and where to spend them (calibration.allocation:
by the judge's label, or from human-labelled pools), for the failure rate plan_theta names (the
one ``simcore calibrate`` reports for the pilot, the stratified one, or one assumed). The
package sits above studies and calibration, below cli and api.

``__all__`` lists the names other packages import from here; each is imported from its
module on first use (:func:`simcore._lazy.attach`).
"""

from simcore._lazy import attach

__all__ = ["ClusterShape", "PlanRequest", "PlanTarget", "plan_result", "validation_items"]

__getattr__, __dir__ = attach(
    __name__,
    {
        "calibration.labels": ("plan_result",),
        "calibration.target": ("ClusterShape", "PlanRequest", "PlanTarget"),
        "validation_items": ("validation_items",),
    },
)
