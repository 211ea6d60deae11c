"""The model layer: what the engine simulates, in plain NumPy.

The generative model (generative), the overlap designs (designs), the leave-one-out rule
as a plain-NumPy oracle with the population reference (rule), the alternative annotator
test's NumPy reference (alt_test_reference), and the closed-form planning recipes
(recipes). It imports only the engine.
"""
