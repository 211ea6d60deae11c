"""Kinds of study: each implements :class:`simcore.studies.protocol.Study`.

A scenario file's ``kind:`` names the study (``synthetic`` when absent, ``real``,
``coverage``, ``sequential``, ``coverage-latent``); :func:`study_for` maps it to the study
object, which owns everything specific to that kind. The sweep, the API and the command line
reach a study only through this registry, so a new kind is one module here plus a line in
:data:`KINDS`.
"""

import importlib

from simcore.studies.config import ScenarioError

__all__ = [
    "DEFAULT_KIND",
    "KINDS",
    "ScenarioError",
    "ScenarioKey",
    "scenario_keys",
    "study_for",
    "study_of",
]

KINDS = {
    "synthetic": "simcore.studies.synthetic.study",
    "real": "simcore.studies.real.study",
    "coverage": "simcore.studies.coverage.study",
    "sequential": "simcore.studies.sequential.study",
    "coverage-latent": "simcore.studies.coverage_latent.study",
}
"""``kind:`` value -> the module whose ``STUDY`` implements it."""

DEFAULT_KIND = "synthetic"


def study_for(kind):
    """Return the study object of ``kind`` (``None`` means the default, synthetic).

    Raises
    ------
    KeyError
        For a kind no study implements.
    """
    module = KINDS[DEFAULT_KIND if kind is None else kind]
    return importlib.import_module(module).STUDY


def study_of(scenario):
    """Return the study object of a parsed scenario (its ``kind`` attribute)."""
    return study_for(scenario.kind)


def __getattr__(name):
    """Import :mod:`simcore.studies.key_table`'s names on first use (it reads every kind)."""
    if name in ("ScenarioKey", "scenario_keys"):
        return getattr(importlib.import_module("simcore.studies.key_table"), name)
    raise AttributeError(f"module 'simcore.studies' has no attribute {name!r}")
