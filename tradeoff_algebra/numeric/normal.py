"""The standard normal CDF Phi and its inverse in mpmath, accurate in both tails.

``ncdf(x) = erfc(-x/sqrt 2)/2`` has full relative accuracy for every real ``x`` (mpmath's erfc
is relatively accurate for large arguments). ``ncdf_inv(p)`` solves ``Phi(x) = p`` by Newton's
method on ``log Phi``; ``log Phi`` is concave, so from the start ``x0 = -sqrt(2 log(1/p))``
(which lies left of the root because ``Phi(-t) <= exp(-t^2/2)/2``) the iterates increase
monotonically to the root. It stays accurate for ``p`` down to the smallest mpf (1e-300 and far
below), and ``ncdf_inv_upper(q) = Phi^{-1}(1 - q)`` takes the complement directly so that
``1 - q`` never has to be formed.
"""

from __future__ import annotations

import statistics

from .context import mp

__all__ = ["ncdf", "ncdf_enclosure", "ncdf_inv", "ncdf_inv_upper", "log_ncdf"]


#: Beyond this |x|, Phi(x) is taken from its asymptotic series (mpmath's erfc overflows a float
#: near |x| = 1e300); beyond :data:`NCDF_MAX`, Phi(-|x|) < 2^(-|x|) < 10^(-10^299) is only
#: bounded (:func:`ncdf_enclosure`), not computed to digits.
NCDF_ASYMPTOTIC = mp.mpf(10) ** 100
NCDF_MAX = mp.mpf(10) ** 300


def ncdf(x):
    """Phi(x) at the current mpmath precision, full relative accuracy in both tails."""
    x = mp.mpf(x)
    if abs(x) <= NCDF_ASYMPTOTIC:
        return mp.erfc(-x / mp.sqrt(2)) / 2
    if mp.isinf(x):
        return mp.one if x > 0 else mp.zero
    if x > 0:  # 1 - Phi(x) < 2^-(x^2/2) is far below the working precision
        return mp.one
    if x < -NCDF_MAX:
        from ..core.errors import NumericalError

        raise NumericalError(f"Phi({mp.nstr(x, 5)}) is below 10^(-10^299) and is not computed "
                             "to digits; the parameters are beyond every practical range "
                             "(reduce mu, eps or the number of compositions)")
    return _ncdf_asymptotic(x)


def ncdf_enclosure(x):
    """(lo, hi) containing Phi(x): the point value, or for x < -NCDF_MAX the bound [0, 2^-k]
    with k = min(2^(mag(x) - 1), 2^60) <= |x| (Phi(x) <= e^{-x^2/2} <= 2^{-|x|} for |x| >= 2;
    the cap keeps the bound printable)."""
    x = mp.mpf(x)
    if x < -NCDF_MAX and mp.isfinite(x):
        return mp.zero, ncdf_tail_bound(x)
    v = ncdf(x)
    return v, v


def ncdf_tail_bound(x):
    """An upper bound 2^-k of Phi(x) for x < -NCDF_MAX (see :func:`ncdf_enclosure`)."""
    return mp.ldexp(1, -min(2 ** (mp.mag(x) - 1), 2**60))


def _ncdf_asymptotic(x):
    """Phi(x) for x < -1e100: phi(x)/|x| sum_k (-1)^k (2k - 1)!!/x^{2k} (Abramowitz & Stegun
    26.2.12); the series is alternating with decreasing terms here, so stopping below 2^-prec
    relative is within the working precision."""
    with mp.workprec(mp.prec + 20):
        z = 1 / (x * x)
        term, total, k = mp.one, mp.one, 1
        tol = mp.ldexp(1, -mp.prec)
        while abs(term) > tol:
            term *= -(2 * k - 1) * z
            total += term
            k += 1
        v = mp.exp(-x * x / 2) / (-x * mp.sqrt(2 * mp.pi)) * total
    return +v


def log_ncdf(x):
    """log Phi(x) without underflow."""
    x = mp.mpf(x)
    return mp.log(ncdf(x))


_FLOAT_NORMAL = statistics.NormalDist()
_FLOAT_TINY = 1e-300


def _ncdf_inv_lower(p):
    """Phi^{-1}(p) for 0 < p <= 1/2 by monotone Newton on log Phi."""
    if p == mp.mpf(0.5):
        return mp.zero
    target = mp.log(p)
    if p > _FLOAT_TINY:  # a float64 start (Wichura's AS241 in the standard library): Newton
        x = mp.mpf(_FLOAT_NORMAL.inv_cdf(float(p)))  # then needs two or three steps
    else:
        x = -mp.sqrt(-2 * target)
    tol = mp.ldexp(1, -mp.prec + 4)
    sqrt2pi = mp.sqrt(2 * mp.pi)
    for _ in range(mp.prec + 200):
        c = ncdf(x)
        h = mp.log(c) - target
        # d/dx log Phi(x) = phi(x) / Phi(x)
        dh = mp.exp(-x * x / 2) / (sqrt2pi * c)
        step = h / dh
        x -= step
        # quadratic convergence: the error left is about step^2 |(log Phi)''| / (2 (log Phi)')
        # <= step^2 (for x <= 0, |(log Phi)''| < 1 and (log Phi)' = phi/Phi > 0.79), so stop
        # once that is below tol (callers confirm the digits at higher precision)
        if abs(step) <= tol * (1 + abs(x)) or step * step <= tol * (1 + abs(x)):
            return x
    raise ArithmeticError(f"Phi^-1({p}) did not converge")  # pragma: no cover


def ncdf_inv(p):
    """Phi^{-1}(p) for 0 <= p <= 1 at the current mpmath precision.

    For ``p`` near 1 the result can only be as accurate as ``1 - p`` is; callers that hold the
    complement exactly should use :func:`ncdf_inv_upper`.
    """
    p = mp.mpf(p)
    if p < 0 or p > 1 or mp.isnan(p):
        raise ValueError(f"Phi^-1 needs 0 <= p <= 1, got {p}")
    if p == 0:
        return mp.ninf
    if p == 1:
        return mp.inf
    if p <= 0.5:
        return _ncdf_inv_lower(p)
    with mp.workprec(mp.prec + 10):
        q = 1 - p  # exact: Sterbenz, p in (1/2, 1)
    return -_ncdf_inv_lower(q)


def ncdf_inv_upper(q):
    """Phi^{-1}(1 - q) from the complement ``q``, accurate when ``q`` is tiny."""
    q = mp.mpf(q)
    if q < 0 or q > 1 or mp.isnan(q):
        raise ValueError(f"Phi^-1(1 - q) needs 0 <= q <= 1, got {q}")
    if q == 0:
        return mp.inf
    if q == 1:
        return mp.ninf
    if q <= 0.5:
        return -_ncdf_inv_lower(q)
    with mp.workprec(mp.prec + 10):
        p = 1 - q
    return _ncdf_inv_lower(p)


def _kernel(fn):
    """``fn`` as a kernel for :mod:`tradeoff_algebra.core.normal`: mpf tuple and precision in
    bits in, mpf tuple out, computed in the calling thread's private context."""

    def run(x_mpf: tuple, prec: int) -> tuple:
        with mp.workprec(prec):
            return mp.mpf(fn(mp.make_mpf(x_mpf)))._mpf_

    return run


def _install_kernels() -> None:
    from ..core import normal as _core_normal

    _core_normal._MP_KERNELS.update(ncdf=_kernel(ncdf), ncdf_inv=_kernel(ncdf_inv),
                                    ncdf_inv_upper=_kernel(ncdf_inv_upper))


_install_kernels()
