"""Exact count samplers on the per-trial counter-based streams.

The counts engine draws how many items fall in each category rather than drawing every
item. The samplers here produce those counts exactly (no normal or Poisson approximation)
and draw only from the xoshiro256** ``state`` of one trial (:mod:`simcore.engine.rng`), never from
``np.random``, so a trial's category counts depend only on its key: not on the thread that
runs it, the batching, or the other trials.

Stream use (part of the stream definition, like the draw order in :mod:`simcore.engine.draws`):

* A draw whose answer is forced (empty sample, probability 0 or 1, one-point support)
  consumes no uniforms.
* :func:`binomial` of at most :data:`BERNOULLI_LIMIT` trials consumes one uniform per trial.
* :func:`binomial` by inversion and :func:`hypergeometric` consume exactly one uniform;
  :func:`binomial` by BTRS consumes two uniforms per proposal, a random number of times.
* :func:`multinomial` and :func:`multivariate_hypergeometric` make one univariate draw per
  category, in category order, and stop once the whole sample is placed.

All arithmetic is double precision; the log-probabilities use :func:`math.lgamma` (through a
table of log-factorials the caller builds once, :func:`log_factorial_table`), whose
absolute error grows with the size of its argument, so the samplers are exact up to
rounding of order ``1e-16 * log(n!)`` in the log-probabilities.
"""

import math

import numpy as np

from simcore.engine._jit import jit
from simcore.engine.rng import uniform

INVERSION_LIMIT = 10.0
"""Largest ``trials * min(p, 1 - p)`` (exclusive) drawn by inversion; above it, BTRS."""

BERNOULLI_LIMIT = 16
"""Binomials of at most this many trials count ``trials`` uniforms below ``p`` directly."""


@jit
def log_factorial_table(largest):
    """Return ``log(k!)`` for ``k = 0 .. largest`` (``math.lgamma(k + 1)``), float64.

    The samplers look log-factorials up here instead of calling ``lgamma`` in their inner
    loops; arguments past the table's end fall back to ``lgamma``.
    """
    table = np.empty(largest + 1)
    for k in range(largest + 1):
        table[k] = math.lgamma(k + 1.0)
    return table


@jit
def _log_factorial(k, table):
    """Return ``log(k!)`` from ``table`` when it reaches ``k``, else from ``lgamma``."""
    if k < table.shape[0]:
        return table[int(k)]
    return math.lgamma(k + 1.0)


# --------------------------------------------------------------------------- binomial


@jit
def _binomial_inversion(state, trials, probability):
    """Draw Binomial(``trials``, ``probability``) by sequential inversion from 0.

    One uniform ``u``; the pmf is walked upwards from ``P(0) = q**trials`` with
    ``P(k) = P(k - 1) (trials - k + 1) / k * p / q`` until the cdf exceeds ``u``. If rounding
    keeps the cdf below ``u`` (or the pmf underflows), the last value reached is returned.
    Expected cost ``O(1 + trials p)``; meant for ``trials p < 10``.
    """
    u = uniform(state)
    odds = probability / (1.0 - probability)
    mass = math.exp(trials * math.log1p(-probability))
    cumulative = mass
    count = 0
    while u >= cumulative and count < trials:
        count += 1
        mass *= (trials - count + 1) / count * odds
        if mass <= 0.0:
            break
        cumulative += mass
    return count


@jit
def _binomial_btrs(state, trials, probability, log_factorials):
    """Draw Binomial(``trials``, ``probability``) by Hörmann's BTRS, for ``p <= 0.5``.

    Transformed rejection with squeeze (W. Hörmann, "The generation of binomial random
    variates", J. Stat. Comput. Simul. 46, 1993, pp. 101-110); valid for ``trials p >= 10``.
    With ``spq = sqrt(n p q)``, ``b = 1.15 + 2.53 spq``, ``a = -0.0873 + 0.0248 b + 0.01 p``,
    ``c = n p + 0.5`` and ``v_r = 0.92 - 4.2 / b``, it proposes
    ``k = floor((2 a / us + b) u + c)`` from ``u ~ U(-1/2, 1/2)``, ``us = 0.5 - |u|``,
    accepts at once when ``us >= 0.07`` and ``v <= v_r``, and otherwise compares
    ``log(v alpha / (a / us**2 + b))`` against the log pmf ratio to the mode computed with
    ``lgamma``. Its expected number of proposals is bounded (about 1.15) uniformly in
    ``n`` and ``p``.

    Everything is computed in float64: the rounding of ``lgamma`` near ``n`` perturbs the
    acceptance test by about ``1e-16 n log n`` (1e-8 at ``n = 1e7``, 1e-6 at ``n = 1e9``), and
    beyond ``2**53`` trials the counts themselves are no longer representable.
    """
    n = float(trials)
    q = 1.0 - probability
    spq = math.sqrt(n * probability * q)
    b = 1.15 + 2.53 * spq
    a = -0.0873 + 0.0248 * b + 0.01 * probability
    c = n * probability + 0.5
    v_r = 0.92 - 4.2 / b
    alpha = (2.83 + 5.1 / b) * spq
    log_odds = math.log(probability / q)
    mode = math.floor((n + 1.0) * probability)
    h = _log_factorial(mode, log_factorials) + _log_factorial(n - mode, log_factorials)
    while True:
        u = uniform(state) - 0.5
        v = uniform(state)
        us = 0.5 - abs(u)
        if us <= 0.0:  # u == -0.5 exactly: the hat is unbounded there
            continue
        x = (2.0 * a / us + b) * u + c
        if not (x >= 0.0 and x < n + 1.0):  # k = floor(x) outside 0 .. n (or NaN)
            continue
        k = math.floor(x)
        if us >= 0.07 and v <= v_r:
            return int(k)
        if v <= 0.0:
            return int(k)
        log_v = math.log(v * alpha / (a / (us * us) + b))
        log_ratio = (
            h
            - _log_factorial(k, log_factorials)
            - _log_factorial(n - k, log_factorials)
            + (k - mode) * log_odds
        )
        if log_v <= log_ratio:
            return int(k)


@jit
def binomial(state, trials, probability, log_factorials):
    """Draw one exact Binomial(``trials``, ``probability``) count from ``state``.

    Parameters
    ----------
    state : numpy.ndarray
        The trial's xoshiro256** state (4 uint64 words), advanced in place.
    trials : int
        Number of Bernoulli trials; ``trials <= 0`` gives 0.
    probability : float
        Success probability; ``<= 0`` gives 0 and ``>= 1`` gives ``trials``.
    log_factorials : numpy.ndarray
        :func:`log_factorial_table` (any length; may be empty).

    Returns
    -------
    int
        The number of successes, in ``0 .. trials``.

    Raises
    ------
    ValueError
        If ``probability`` is NaN.

    Notes
    -----
    Up to :data:`BERNOULLI_LIMIT` trials it counts uniforms below ``probability`` (``trials``
    uniforms, ``p`` resolved to 2**-53). Otherwise the draw uses
    ``p = min(probability, 1 - probability)`` and returns ``trials - k`` when
    the probability was flipped. With ``trials p < 10`` it inverts the cdf sequentially from
    0 (one uniform, expected cost ``O(1 + trials p)``, :func:`_binomial_inversion`).
    Otherwise it uses Hörmann's BTRS transformed rejection with squeeze
    (:func:`_binomial_btrs`), whose expected number of proposals is bounded (about 1.15)
    uniformly in ``n`` and ``p``. Everything is computed in float64; :func:`_binomial_btrs`
    says what that costs in accuracy.
    """
    if math.isnan(probability):
        raise ValueError("binomial probability is NaN")
    if trials <= 0 or probability <= 0.0:
        return 0
    if probability >= 1.0:
        return trials
    if trials <= BERNOULLI_LIMIT:
        count = 0
        for _ in range(trials):
            if uniform(state) < probability:
                count += 1
        return count
    flipped = probability > 0.5
    small = 1.0 - probability if flipped else probability
    if trials * small < INVERSION_LIMIT:
        count = _binomial_inversion(state, trials, small)
    else:
        count = _binomial_btrs(state, trials, small, log_factorials)
    if flipped:
        return trials - count
    return count


# --------------------------------------------------------------------------- hypergeometric


@jit
def _log_choose(n, k, table):
    """Return ``log(n choose k)`` from the log-factorial ``table`` (:func:`_log_factorial`)."""
    return _log_factorial(n, table) - _log_factorial(k, table) - _log_factorial(n - k, table)


@jit
def hypergeometric(state, good, bad, sample, log_factorials):
    """Draw how many ``good`` items are among ``sample`` drawn without replacement.

    Parameters
    ----------
    state : numpy.ndarray
        The trial's xoshiro256** state (4 uint64 words), advanced in place.
    good, bad : int
        Sizes of the two parts of the population (non-negative).
    sample : int
        Number of items drawn without replacement, ``0 .. good + bad``.
    log_factorials : numpy.ndarray
        :func:`log_factorial_table` (any length; may be empty).

    Returns
    -------
    int
        The number ``k`` of good items drawn, in ``max(0, sample - bad) .. min(sample, good)``,
        with probability ``P(k) = C(good, k) C(bad, sample - k) / C(good + bad, sample)``.

    Raises
    ------
    ValueError
        If a size is negative or ``sample`` exceeds ``good + bad``.

    Notes
    -----
    Inversion by search from the mode ``floor((sample + 1)(good + 1) / (good + bad + 2))``:
    ``P(mode)`` comes from ``lgamma``, then one uniform ``u`` is compared with the mass
    accumulated while walking outwards, alternately one step down and one step up, with

    ``P(k + 1) / P(k) = (good - k)(sample - k) / ((k + 1)(bad - sample + k + 1))``.

    The expected number of steps is of the order of the standard deviation. If rounding
    leaves the total mass below ``u``, the walk ends once both tails are exhausted (or
    underflow) and the last value visited is returned. ``P(mode)`` carries the ``lgamma``
    rounding, a relative error of about ``1e-16 N log N`` for a population of ``N``. A
    one-point support (``sample`` 0 or
    ``good + bad``, ``good`` 0, ``bad`` 0) is returned without consuming a uniform.
    """
    low, high = _hypergeometric_support(good, bad, sample)
    if low == high:
        return low
    g = float(good)
    r = float(bad)
    s = float(sample)
    mode = int((s + 1.0) * (g + 1.0) / (g + r + 2.0))
    mode = min(max(mode, low), high)
    mass_at_mode = _hypergeometric_mass(g, r, s, mode, log_factorials)
    u = uniform(state)
    if u < mass_at_mode:
        return mode
    return _walk_from_mode(u, mode, mass_at_mode, low, high, g, r, s)


@jit
def _hypergeometric_support(good, bad, sample):
    """Check the sizes and return the support ``(low, high)`` of the hypergeometric draw."""
    if good < 0 or bad < 0 or sample < 0:
        raise ValueError("hypergeometric sizes and sample must be non-negative")
    if sample > good + bad:
        raise ValueError("hypergeometric sample exceeds the population")
    return max(0, sample - bad), min(sample, good)


@jit
def _hypergeometric_mass(g, r, s, k, log_factorials):
    """Return ``P(k) = C(g, k) C(r, s - k) / C(g + r, s)`` from the log-factorials."""
    return math.exp(
        _log_choose(g, float(k), log_factorials)
        + _log_choose(r, s - k, log_factorials)
        - _log_choose(g + r, s, log_factorials)
    )


@jit
def _walk_from_mode(u, mode, mass_at_mode, low, high, g, r, s):
    """Invert the hypergeometric cdf at ``u`` by walking outwards from the mode.

    Alternately one step down and one step up from ``mode`` (whose mass is already counted
    and below ``u``), accumulating the pmf by its ratio recurrence, until the mass passes
    ``u``; returns the last value visited once both tails are exhausted or underflow.
    """
    cumulative = mass_at_mode
    down = mode  # last value reached below (inclusive of the mode)
    up = mode  # last value reached above
    mass_down = mass_at_mode
    mass_up = mass_at_mode
    last = mode
    while True:
        can_go_down = down > low and mass_down > 0.0
        can_go_up = up < high and mass_up > 0.0
        if not (can_go_down or can_go_up):
            return last
        if can_go_down:
            k = float(down)
            mass_down *= k * (r - s + k) / ((g - k + 1.0) * (s - k + 1.0))
            down -= 1
            last = down
            cumulative += mass_down
            if u < cumulative:
                return down
        if can_go_up:
            k = float(up)
            mass_up *= (g - k) * (s - k) / ((k + 1.0) * (r - s + k + 1.0))
            up += 1
            last = up
            cumulative += mass_up
            if u < cumulative:
                return up


# --------------------------------------------------------------------------- multivariate


@jit
def multinomial(state, trials, probabilities, out, log_factorials):
    """Draw exact Multinomial(``trials``, ``probabilities``) counts into ``out``.

    Parameters
    ----------
    state : numpy.ndarray
        The trial's xoshiro256** state (4 uint64 words), advanced in place.
    trials : int
        Number of items to place; ``trials <= 0`` gives all zeros.
    probabilities : numpy.ndarray
        Non-negative category weights, float64; normalised by their sum, which need not
        be exactly 1.
    out : numpy.ndarray
        Integer array of the same length, overwritten with the counts.
    log_factorials : numpy.ndarray
        :func:`log_factorial_table` (any length; may be empty).

    Raises
    ------
    ValueError
        If ``out`` has the wrong length, a weight is negative or NaN, or ``trials > 0``
        and the weights do not have a positive finite sum.

    Notes
    -----
    Conditional binomials, in category order: ``out[j] = binomial(remaining,
    p_j / (p_j + ... + p_last))``; once nothing remains the other categories get 0. The
    last category with positive weight receives what remains, so categories of weight 0
    always get 0 and ``out`` always sums to ``trials``.
    """
    n_categories = probabilities.shape[0]
    if out.shape[0] != n_categories:
        raise ValueError("multinomial out must have one slot per category")
    total_mass, last_positive = _total_mass(probabilities)
    for category in range(n_categories):
        out[category] = 0
    if trials <= 0:
        return
    if last_positive < 0 or not total_mass < math.inf:
        raise ValueError("multinomial probabilities must have a positive finite sum")
    remaining = trials
    remaining_mass = total_mass
    for category in range(last_positive):
        weight = probabilities[category]
        if weight > 0.0:
            share = weight / remaining_mass if remaining_mass > weight else 1.0
            count = binomial(state, remaining, share, log_factorials)
            out[category] = count
            remaining -= count
            if remaining == 0:
                return
        remaining_mass -= weight
    out[last_positive] = remaining


@jit
def _total_mass(probabilities):
    """Return the weights' sum and the last category of positive weight (-1 for none).

    Raises ValueError at a negative or NaN weight.
    """
    total_mass = 0.0
    last_positive = -1
    for category in range(probabilities.shape[0]):
        weight = probabilities[category]
        if not weight >= 0.0:
            raise ValueError("multinomial probabilities must be non-negative numbers")
        if weight > 0.0:
            last_positive = category
        total_mass += weight
    return total_mass, last_positive


@jit
def multivariate_hypergeometric(state, sizes, sample, out, log_factorials):
    """Draw how many of ``sample`` items drawn without replacement come from each group.

    Parameters
    ----------
    state : numpy.ndarray
        The trial's xoshiro256** state (4 uint64 words), advanced in place.
    sizes : numpy.ndarray
        Non-negative group sizes, int64.
    sample : int
        Number of items drawn without replacement, ``0 .. sizes.sum()``.
    out : numpy.ndarray
        Integer array of the same length, overwritten with the counts: ``out[j] <=
        sizes[j]`` and ``out.sum() == sample``.
    log_factorials : numpy.ndarray
        :func:`log_factorial_table` (any length; may be empty).

    Raises
    ------
    ValueError
        If ``out`` has the wrong length, a size or ``sample`` is negative, or ``sample``
        exceeds the population.

    Notes
    -----
    Sequential conditional draws, in group order: ``out[j] = hypergeometric(sizes[j],
    sizes[j + 1] + ... + sizes[-1], remaining)``; once nothing remains the other groups
    get 0, and the last group takes the rest without a draw.
    """
    n_groups = sizes.shape[0]
    if out.shape[0] != n_groups:
        raise ValueError("multivariate_hypergeometric out must have one slot per group")
    population = 0
    for group in range(n_groups):
        if sizes[group] < 0:
            raise ValueError("multivariate_hypergeometric sizes must be non-negative")
        population += sizes[group]
    if sample < 0:
        raise ValueError("multivariate_hypergeometric sample must be non-negative")
    if sample > population:
        raise ValueError("multivariate_hypergeometric sample exceeds the population")
    for group in range(n_groups):
        out[group] = 0
    remaining = sample
    remaining_population = population
    for group in range(n_groups):
        if remaining == 0:
            return
        remaining_population -= sizes[group]
        count = hypergeometric(state, sizes[group], remaining_population, remaining, log_factorials)
        out[group] = count
        remaining -= count
