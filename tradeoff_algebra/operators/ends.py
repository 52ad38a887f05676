"""The exact ends of the operators' nodes (``numeric.protocol.exact_ends``): f(0) and the zero
point z = f^{-1}(0) of a product, an inverse, f_p, C_p(f) and a maximum from their operands'.

For f = T(P, Q) (Dong, Roth & Su, Def. 2), f(0) = 1 - Q(P = 0) and z = 1 - P(Q = 0) (the
docstring of :func:`exact_ends`). Each rule below is that identity read through the operator's
definition:

* f^{-1} = T(Q, P) (Lemma A.2): the two ends swap.
* f_1 (x) ... (x) f_k = T(P_1 x ... x P_k, Q_1 x ... x Q_k) (Def. 5): the product vanishes where
  one factor does, so Q(P = 0) = 1 - prod_i (1 - Q_i(P_i = 0)), i.e. f(0) = prod_i f_i(0), and
  likewise z = prod_i z_i.
* f_p = p f + (1 - p) Id (Eq. (12)): f_p(0) = p f(0) + 1 - p; for p < 1, f_p(alpha) >=
  (1 - p)(1 - alpha) > 0 below 1, so z = 1 (p = 1: f's own).
* C_p(f) = min{f_p, f_p^{-1}}^{**} (Def. 6): alpha = 0 is an extreme point of [0, 1], so the
  convex envelope of the continuous min agrees with it there: C_p(f)(0) = min{f_p(0), z(f_p)};
  C_p(f) is symmetric, so its z is the same number.
* C(f) = min{f, f^{-1}}^{**} (Wang et al., Sec. 2; ``AddRemove``): the same argument,
  C(f)(0) = min{f(0), z(f)} = z(C(f)).
* max_i f_i (Prop. 5): pointwise, so f(0) = max_i f_i(0), and it vanishes where every f_i
  does: z = max_i z_i.
"""

from __future__ import annotations

import sympy as sp

from ..numeric.protocol import exact_ends
from .maxgroup import Max
from .subsample import Mix, Subsample
from .tensor import Tensor, TensorPower
from .unary import Inverse, SymmetricHull

__all__ = ["ENDS_BITS"]

#: The largest exact rational end (bits of its numerator and denominator) a product builds (a
#: power 10^6 of 9/10 is not built: None).
ENDS_BITS = 20000


def _rational(x) -> sp.Rational | None:
    x = sp.sympify(x)
    return x if isinstance(x, sp.Rational) else None


def _below_one(p) -> bool | None:
    """p < 1 proved (True), p = 1 (False), else None."""
    if (p - 1).is_zero is True:
        return False
    return True if sp.sympify(p < 1) is sp.true else None


@exact_ends.register(Inverse)
def _(f):
    e, z = exact_ends(f.arg)
    return z, e


def _power(q, n: int):
    """q^n, or None when the rational would pass :data:`ENDS_BITS`."""
    if q is None or q in (0, 1):
        return q
    if n * (int(q.p).bit_length() + int(q.q).bit_length()) > ENDS_BITS:
        return None
    return q ** n


def _times(a, b):
    if a == 0 or b == 0:
        return sp.S.Zero
    if a is None or b is None:
        return None
    out = a * b
    return out if int(out.p).bit_length() + int(out.q).bit_length() <= ENDS_BITS else None


@exact_ends.register(TensorPower)
def _(f):
    if not isinstance(f.n, sp.Integer) or f.n < 0:
        return None, None
    e, z = exact_ends(f.base)
    return _power(e, int(f.n)), _power(z, int(f.n))


@exact_ends.register(Tensor)
def _(f):
    e, z = sp.S.One, sp.S.One
    for g in f.factors:
        ge, gz = exact_ends(g)
        e, z = _times(e, ge), _times(z, gz)
    return e, z


@exact_ends.register(Mix)
def _(f):
    e, z = exact_ends(f.arg)
    below = _below_one(f.p)
    if below is False:
        return e, z
    if e is not None:
        e = sp.S.One if e == 1 else _rational(f.p * e + 1 - f.p)
    return e, (sp.S.One if below else None)


@exact_ends.register(Subsample)
def _(f):
    e, z = exact_ends(Mix(f.arg, f.p))
    if e is None or z is None:
        return None, None
    return min(e, z), min(e, z)


@exact_ends.register(SymmetricHull)
def _(f):
    e, z = exact_ends(f.arg)
    if e is None or z is None:
        return None, None
    return min(e, z), min(e, z)


@exact_ends.register(Max)
def _(f):
    ends = [exact_ends(g) for g in f.args]
    e = [x for x, _ in ends]
    z = [x for _, x in ends]
    return (None if None in e else max(e)), (None if None in z else max(z))
