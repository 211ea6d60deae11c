"""Kinds of study: each implements :class:`simcore.studies.protocol.Study`.

A scenario file's ``kind:`` names the study (synthetic, real, coverage); the registry
here maps it to the study object. Everything kind-specific lives in that study's modules.
"""
