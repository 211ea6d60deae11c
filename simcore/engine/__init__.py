"""The numerical engine: numba kernels on arrays, nothing above them.

Counter-based random streams (rng), exact discrete samplers (samplers), the agreement
coefficients (coefficients), the codes and array layouts the kernels share (layout), the
items engine (kernels, which draws each trial through draws), the rules that decide a
trial (point_rule, alt_test, interval, and decide, which both engines call), the counts
engine (counts), the statistics kernels of the original test (stats_kernels), and the
calibration statistics' scalar twins and coverage trials (interval_twins, ppi_twins). Arrays
and scalars in, arrays out; no configuration, scheduling or storage. numba is imported
nowhere else: the layers above set and read its threads and version through threads.
"""
