"""``exp`` and ``log`` that give the same bits in every Python: CPython on Linux, macOS, and
Pyodide's WebAssembly build.

Why: ``math.exp`` and ``math.log`` call the platform's C library, and two libraries may round
the last bit differently (glibc and the musl of Pyodide differ on about 1 call in 1,500 for
``exp``). A Unigram trainer calls them hundreds of thousands of times, so a model trained in
the page and one trained in CPython differed in the last digits of a few scores (measured on
the UDHR in six scripts and on taylorswift.txt), breaking the promise that a share link
reproduces the model byte for byte. Additions, products, quotients and ``math.fsum`` are
rounded exactly by IEEE 754 everywhere; only these two functions need care.

How, in two steps per call:

1. the library's result, rounded to 40 significant bits. Each library is within one unit in
   the last place (ulp) of the true value, so two libraries' results are within 2 ulps of
   each other: they round to the same 40-bit number unless they lie near the halfway point
   between two 40-bit numbers (13 bits are dropped: 8,192 ulps between two of them);
2. near that halfway point (within ``_BAND``: 32 ulps, about 1 call in 128), the result is
   computed again from additions and products only (``_exp_series``, ``_log_series``: the
   same bits in every runtime, within a few ulps of the truth) and rounded to 40 bits.

Both runtimes then agree: if both take step 1, they are on the same side of the halfway
point; if one takes step 2, the series value is within a few ulps of the truth, far (more
than 16 ulps) from the halfway point on the side the other runtime's step 1 rounds to.
40 bits (12 significant digits) are far more than a trainer's scores mean.

>>> exp(0.0), log(1.0), exp(-800.0)
(1.0, 0.0, 0.0)
>>> abs(exp(1.0) - 2.718281828459045) < 1e-11, abs(log(10.0) - 2.302585092994046) < 1e-11
(True, True)
"""

from __future__ import annotations

import math
from itertools import compress, repeat
from operator import gt, lt, mul, sub, truediv

_TWO40 = 2.0 ** 40  # results keep 40 significant bits
_BAND = 2.0 ** -8  # near the halfway point (in units of the 40-bit grid): 32 ulps of a double
_EXP_ZERO_BELOW = -690.0  # exp(x) is 0.0 below this (a normal number above it: no subnormal rounding)
# ln 2 in two parts (fdlibm's): _LN2_HI has 32 significant bits, so k * _LN2_HI is exact
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_INV_LN2 = 1.44269504088896338700e+00
_SQRT_HALF = 0.7071067811865476


def _stable(y: float, band: float = _BAND) -> float | None:
    """``y`` rounded to 40 significant bits, or None when it lies within ``band`` of a
    halfway point (in units of the 40-bit grid)."""
    m, e = math.frexp(y)  # y = m * 2**e, 0.5 <= |m| < 1
    q = abs(m) * _TWO40
    f = math.floor(q)
    frac = q - f  # exact: the bits below the 40 kept
    if -band < frac - 0.5 < band:
        return None
    r = math.ldexp(f + 1 if frac > 0.5 else f, e - 40)
    return -r if m < 0 else r


def _round40(y: float) -> float:
    """``y`` rounded to 40 significant bits (used on the series values, the same in every
    runtime, so no band is needed)."""
    return _stable(y, 0.0)  # type: ignore[return-value]  # (a zero band never gives None)


def _exp_series(x: float) -> float:
    """exp(x) from additions and products only: x = k ln2 + r, |r| <= ln2/2, then Taylor's
    series of exp(r) to degree 16 (Horner's rule) and a scaling by 2**k (exact)."""
    k = round(x * _INV_LN2)
    r = (x - k * _LN2_HI) - k * _LN2_LO
    p = 1.0
    for n in range(16, 0, -1):
        p = 1.0 + p * r / n
    return math.ldexp(p, k)


def _log_series(y: float) -> float:
    """log(y) from additions and products only: y = m * 2**e with sqrt(1/2) <= m < sqrt(2),
    log(m) = 2 atanh(s) with s = (m - 1) / (m + 1), |s| < 0.172, summed to s**29."""
    m, e = math.frexp(y)
    if m < _SQRT_HALF:
        m, e = m * 2.0, e - 1
    s = (m - 1.0) / (m + 1.0)
    s2 = s * s
    p = 0.0
    for n in range(29, 1, -2):
        p = (p + 1.0 / n) * s2
    return e * _LN2_HI + (e * _LN2_LO + 2.0 * s * (1.0 + p))


def exp(x: float) -> float:
    """e**x to 40 significant bits, the same in every runtime (see the module docstring)."""
    if x < _EXP_ZERO_BELOW:
        return 0.0
    y = math.exp(x)
    if y > _HUGE:  # (y * _SPLIT would overflow)
        z = _stable(y)
        return _round40(_exp_series(x)) if z is None else z
    # step 1 by Veltkamp's splitting, as ``exps`` does (_round40_all): the same bits as
    # _stable, in a few float operations instead of a call (2x the speed of the Unigram E-step)
    p = y * _SPLIT
    hi = p - (p - y)
    return _round40(_exp_series(x)) if abs((y - hi) / math.ulp(y)) > _NEAR else hi


def log(y: float) -> float:
    """The natural logarithm to 40 significant bits, the same in every runtime. Raises
    ValueError for y <= 0, as ``math.log``."""
    r = math.log(y)
    if r == 0.0:
        return 0.0
    p = r * _SPLIT  # (|r| < 745: no overflow)
    hi = p - (p - r)
    return _round40(_log_series(y)) if abs((r - hi) / math.ulp(r)) > _NEAR else hi


# -- the same over a whole list: a few C-level passes instead of a Python call per value ------

_SPLIT = 2.0 ** 13 + 1.0  # Veltkamp's splitter: y * _SPLIT - (y * _SPLIT - y) is y rounded to 40 bits
_NEAR = 4064.0  # a value within _BAND of a halfway point is over 4,064 ulps from its 40-bit rounding
_HUGE = 2.0 ** 1000


def _round40_all(ys: list[float]) -> tuple[list[float], list[bool]]:
    """Each ``y`` rounded to 40 significant bits, and whether it lies within ``_BAND`` of a
    halfway point: ``_stable``'s answers (None where the flag is set), without a call per value.

    Veltkamp's splitting rounds to nearest with exact IEEE operations; the distance to the
    rounding, in units of y's last place (``math.ulp``, a power of two: the quotient is exact),
    is 4,096 at a halfway point, so "within 32 of it" is "over 4,064" (ties are flagged).
    """
    p = list(map(mul, ys, repeat(_SPLIT)))
    hi = list(map(sub, p, map(sub, p, ys)))
    near = list(map(gt, map(abs, map(truediv, map(sub, ys, hi), map(math.ulp, ys))), repeat(_NEAR)))
    if ys and max(map(abs, ys)) > _HUGE:  # (y * _SPLIT would overflow: those one by one)
        for k in compress(range(len(ys)), map(gt, map(abs, ys), repeat(_HUGE))):
            y = _stable(ys[k])
            hi[k], near[k] = (0.0, True) if y is None else (y, False)
    return hi, near


def exps(xs: list[float]) -> list[float]:
    """``[exp(x) for x in xs]``, the same bits, in C-level passes over the list (a Python
    call per value costs more, and far more in WebAssembly). Example: exps([0.0]) == [1.0]."""
    out, near = _round40_all(list(map(math.exp, xs)))
    if any(near):
        for k in compress(range(len(xs)), near):
            out[k] = _round40(_exp_series(xs[k]))
    if xs and min(xs) < _EXP_ZERO_BELOW:
        for k in compress(range(len(xs)), map(lt, xs, repeat(_EXP_ZERO_BELOW))):
            out[k] = 0.0
    return out


def logs(ys: list[float]) -> list[float]:
    """``[log(y) for y in ys]``, the same bits, in C-level passes over the list. Raises
    ValueError if some y <= 0. Example: logs([1.0]) == [0.0]."""
    rs = list(map(math.log, ys))
    out, near = _round40_all(rs)
    if any(near):
        for k in compress(range(len(ys)), near):
            if rs[k] != 0.0:  # (log's exact 0.0 for y = 1 is never near a halfway point; kept as log does)
                out[k] = _round40(_log_series(ys[k]))
    return out
