"""Small numba statistics for the decision rules: Student's t CDF and Benjamini-Yekutieli.

Kept apart from the simulation kernels so that each is tested against SciPy on its own.
"""

import math

from simcore.engine._jit import jit

_TINY = 1e-300
_EPS = 3e-16


@jit
def _beta_continued_fraction(a, b, x):
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    qab = a + b
    qap = a + 1.0
    qam = a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    if abs(d) < _TINY:
        d = _TINY
    d = 1.0 / d
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        if abs(d) < _TINY:
            d = _TINY
        c = 1.0 + aa / c
        if abs(c) < _TINY:
            c = _TINY
        d = 1.0 / d
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        if abs(d) < _TINY:
            d = _TINY
        c = 1.0 + aa / c
        if abs(c) < _TINY:
            c = _TINY
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPS:
            break
    return h


@jit
def regularized_beta(a, b, x):
    """Return the regularized incomplete beta function ``I_x(a, b)``."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (
        math.lgamma(a + b)
        - math.lgamma(a)
        - math.lgamma(b)
        + a * math.log(x)
        + b * math.log(1.0 - x)
    )
    front = math.exp(log_front)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_continued_fraction(a, b, x) / a
    return 1.0 - front * _beta_continued_fraction(b, a, 1.0 - x) / b


@jit
def student_t_cdf(t, df):
    """Return ``P(T <= t)`` for Student's t with ``df`` degrees of freedom.

    ``P(T <= t) = I_{df/(df+t^2)}(df/2, 1/2) / 2`` for ``t < 0``, and one minus that of
    ``-t`` otherwise.
    """
    tail = 0.5 * regularized_beta(0.5 * df, 0.5, df / (df + t * t))
    return tail if t < 0.0 else 1.0 - tail


@jit
def one_sided_t_pvalue(count, total, total_sq, epsilon):
    """Return the p-value of ``H0: mean >= eps`` against ``H1: mean < eps`` (t-test).

    From the count, sum and sum of squares of the sample. With zero variance the test is
    degenerate: the p-value is 0 when the mean is below ``eps`` and 1 otherwise.
    """
    mean = total / count
    variance = (total_sq - count * mean * mean) / (count - 1) if count > 1 else 0.0
    if variance <= 1e-15:
        return 0.0 if mean < epsilon else 1.0
    t = (mean - epsilon) / math.sqrt(variance / count)
    return student_t_cdf(t, count - 1.0)


@jit
def benjamini_yekutieli_rejections(pvalues, count, level, order):
    """Return how many hypotheses Benjamini-Yekutieli rejects at ``level``.

    Sort the ``count`` p-values ascending; with ``c(m) = sum_{i<=m} 1/i``, reject the ``k``
    smallest for the largest ``k`` with ``p_(k) <= k level / (m c(m))``. ``order`` is
    scratch of length ``count`` (insertion sort; m is small).
    """
    for i in range(count):
        order[i] = pvalues[i]
    for i in range(1, count):
        value = order[i]
        j = i - 1
        while j >= 0 and order[j] > value:
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = value
    harmonic = 0.0
    for i in range(1, count + 1):
        harmonic += 1.0 / i
    rejected = 0
    for k in range(1, count + 1):
        if order[k - 1] <= k * level / (count * harmonic):
            rejected = k
    return rejected
