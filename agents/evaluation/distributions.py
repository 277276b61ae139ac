"""The few distribution functions evaluation needs — Student's t and Fisher's F upper tails, the t
quantile and the trimmed mean — from the regularized incomplete beta function, with numpy and the
standard library only.

The desktop bundle carries what the app uses, and these four functions were all it took from SciPy (some
70 MB with its libraries). ``tests/test_eval_distributions.py`` holds them to SciPy's values.

The incomplete beta is the classical continued fraction evaluated by the modified Lentz method, taken on
the side of ``x`` where it converges fast and using the symmetry ``I_x(a, b) = 1 - I_{1-x}(b, a)``
otherwise; tails are computed directly where they are small, so small p-values keep their relative
precision.
"""
from __future__ import annotations

import math

import numpy as np

_TINY = 1e-300
_EPS = 1e-16
_MAX_TERMS = 10_000


def _continued_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of ``I_x(a, b)`` (without its prefactor), by the modified Lentz method."""
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, _MAX_TERMS):
        for num in (m * (b - m) * x / ((a + 2 * m - 1.0) * (a + 2 * m)),            # even step
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1.0))):  # odd step
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + num / c
            c = c if abs(c) > _TINY else _TINY
            h *= d * c
        if abs(d * c - 1.0) < _EPS:
            break
    return h


def _front(a: float, b: float, x: float) -> float:
    """x^a (1-x)^b / B(a, b), in logarithms so large parameters do not overflow."""
    return math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))


def betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function ``I_x(a, b)`` for a, b > 0."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    if x < (a + 1.0) / (a + b + 2.0):
        return _front(a, b, x) * _continued_fraction(a, b, x) / a
    return 1.0 - betainc_upper(a, b, x)


def betainc_upper(a: float, b: float, x: float) -> float:
    """``1 - I_x(a, b)``, computed directly when it is the small side."""
    if x <= 0.0:
        return 1.0
    if x >= 1.0:
        return 0.0
    if x >= (a + 1.0) / (a + b + 2.0):  # (the other side of betainc's test: neither calls back forever)
        return _front(b, a, 1.0 - x) * _continued_fraction(b, a, 1.0 - x) / b
    return 1.0 - betainc(a, b, x)


def t_sf(t: float, df: float) -> float:
    """P(T > t) for Student's t with ``df`` degrees of freedom (``df`` may be fractional, as Welch's)."""
    if math.isnan(t) or math.isnan(df):
        return math.nan
    if math.isinf(t):
        return 0.0 if t > 0 else 1.0
    tail = 0.5 * betainc(df / 2.0, 0.5, df / (df + t * t))
    return tail if t >= 0 else 1.0 - tail


def t_ppf(q: float, df: float) -> float:
    """The ``q`` quantile of Student's t with ``df`` degrees of freedom (bisection on :func:`t_sf`, to the
    last representable digit)."""
    if not 0.0 < q < 1.0:
        return -math.inf if q == 0.0 else math.inf if q == 1.0 else math.nan
    if q == 0.5:
        return 0.0
    if q < 0.5:
        return -t_ppf(1.0 - q, df)
    target = 1.0 - q
    lo, hi = 0.0, 1.0
    while t_sf(hi, df) > target:
        lo, hi = hi, hi * 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if t_sf(mid, df) > target:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def f_sf(f: float, dfn: float, dfd: float) -> float:
    """P(F > f) for Fisher's F with (``dfn``, ``dfd``) degrees of freedom."""
    if math.isnan(f):
        return math.nan
    if f <= 0.0:
        return 1.0
    if math.isinf(f):
        return 0.0
    return betainc(dfd / 2.0, dfn / 2.0, dfd / (dfd + dfn * f))


def trim_mean(x, proportion: float, axis: int | None = None):
    """The mean after cutting ``proportion`` of the values from each end (as many as
    ``int(proportion * n)``), along ``axis`` (None: all values)."""
    a = np.asarray(x, float)
    if axis is None:
        a, axis = a.ravel(), 0
    n = a.shape[axis]
    cut = int(proportion * n)
    if cut >= n - cut:
        raise ValueError(f"trimming {proportion} from each end of {n} values leaves none")
    return np.take(np.sort(a, axis=axis), np.arange(cut, n - cut), axis=axis).mean(axis=axis)


def welch_t(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """Welch's two-sample t statistic and its two-tailed p-value (Welch–Satterthwaite degrees of
    freedom); samples with some variance."""
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    t = (a.mean() - b.mean()) / math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va * va / (a.size - 1) + vb * vb / (b.size - 1))
    return float(t), min(1.0, 2.0 * t_sf(abs(t), df))
