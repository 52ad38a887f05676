"""Conversions between SymPy numbers, mpmath mpf and Arb balls (python-flint), for the routes
that compute with Arb (the shuffle tables, the DP-GD integrals). Call inside
:func:`tradeoff_algebra.numeric.context.arb_precision`.
"""

from __future__ import annotations

from mpmath.libmp import from_man_exp

from .context import MPF, mp

__all__ = ["arb_exact", "arb_endpoint"]


def arb_exact(x: MPF):
    """An mpf as an exact Arb number (powers of 2 are exact)."""
    from flint import arb

    if not x:
        return arb(0)
    man, exp = x.man_exp  # the mantissa without its sign
    out = arb(int(man)) * arb(2) ** int(exp)
    return -out if x < 0 else out


def arb_endpoint(x, rnd) -> MPF:
    """An exact Arb number (an endpoint ``ball.lower()``/``ball.upper()``, or a midpoint) as an
    mpf at the working precision, rounded in the direction ``rnd`` (mpmath.libmp's
    ``round_floor``/``round_ceiling``)."""
    man, exp = x.man_exp()
    return mp.make_mpf(from_man_exp(int(man), int(exp), mp.prec, rnd))
