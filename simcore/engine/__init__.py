"""The numerical engine: numba kernels on arrays, nothing above them.

Counter-based random streams (rng), exact discrete samplers (samplers), the agreement
coefficients (coefficients), the per-item simulation and rule kernels (kernels), the
counts engine (counts) and the statistics kernels of the original test (stats_kernels).
Arrays and scalars in, arrays out; no configuration, scheduling or storage.
"""
