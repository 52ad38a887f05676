"""Unary operators on one trade-off function: inverse, symmetrisation, symmetric hull.

* ``Inverse(f)``: f^{-1}(alpha) = inf{t in [0,1] : f(t) <= alpha} (Dong, Roth & Su, Eq. (3)),
  the trade-off function of the swapped pair: T(P,Q)^{-1} = T(Q,P).
* ``Symmetrize(f)``: f^S = max{f, f^{-1}} (Dong, Roth & Su, Prop. 2 discussion).
* ``SymmetricHull(f)``: C(f) = min{f, f^{-1}}^{**}, the lower convex envelope of the pointwise
  minimum (Wang, Su, Ye, Shokri & Su, Sec. 2; Dong, Roth & Su, Def. 6 uses it for C_p).
"""

from __future__ import annotations

from ..core.node import PREC_ATOM, PREC_POSTFIX, TradeOff, register_operator
from ._base import UnaryOperator

__all__ = ["Inverse", "Symmetrize", "SymmetricHull"]


@register_operator
class Inverse(UnaryOperator):
    """f^{-1} (Dong, Roth & Su, Eq. (3)); ``f.inverse()``."""

    _precedence = PREC_POSTFIX

    @property
    def is_symmetric(self) -> bool | None:
        return self.arg.is_symmetric

    def _eval_inverse(self):
        return self.arg

    def _eval_at(self, alpha):
        g = self.arg._eval_inverse()
        return None if g is None or isinstance(g, Inverse) else g._eval_at(alpha)

    def _latex(self, printer):
        return r"%s^{-1}" % self._latex_parens(printer, self.arg, PREC_ATOM)


@register_operator
class Symmetrize(UnaryOperator):
    """f^S = max{f, f^{-1}} (Dong, Roth & Su, Prop. 2)."""

    @property
    def is_symmetric(self) -> bool:
        return True

    def _latex(self, printer):
        return r"%s^{\mathrm{S}}" % self._latex_parens(printer, self.arg, PREC_ATOM)


@register_operator
class SymmetricHull(UnaryOperator):
    """C(f) = min{f, f^{-1}}^{**} (Wang et al., Sec. 2)."""

    @property
    def is_symmetric(self) -> bool:
        return True

    def _latex(self, printer):
        return r"\mathcal{C}\left(%s\right)" % printer._print(self.arg)


# -- numeric evaluation: see the NUMERIC EVALUATION section at the end of this module ----------


# -- rewrite rules (applied by ``simplify``; see tradeoff_algebra.rewrite) ---------------------
# Dong, Roth & Su, Eq. (3) defines f^{-1}; the discussion after Prop. 2 shows f^{-1} = T(Q, P)
# when f = T(P, Q). Hence (f^{-1})^{-1} = T(P, Q) = f for every trade-off function, and
# Sec. 3.1, property 4 gives (f (x) g)^{-1} = f^{-1} (x) g^{-1}.

from ..core.citations import DRS  # noqa: E402
from ..core.rules import rule  # noqa: E402

_SWAP = DRS.eq(3, note="f^{-1} = T(Q, P) for f = T(P, Q)")


@rule(Inverse, cite=_SWAP, priority=100)
def inverse_involution(f: Inverse):
    """(f^{-1})^{-1} = f for a trade-off function f = T(P, Q): both equal T(P, Q).

    (For a general non-increasing function the double inverse is only its lower semicontinuous
    hull; trade-off functions are continuous on [0, 1], Prop. 1, so it is f itself.)
    """
    return f.arg.arg if isinstance(f.arg, Inverse) else None


@rule(Inverse, cite=DRS.at("Sec. 2.1, after Prop. 2", note="symmetric: f = f^{-1}"),
      priority=95)
def inverse_symmetric(f: Inverse):
    """f^{-1} = f when f is symmetric (``is_symmetric`` is True), as G_mu, f_{eps,delta}, Id."""
    return f.arg if f.arg.is_symmetric is True else None


@rule(Inverse, cite=_SWAP, priority=50)
def inverse_closed_form(f: Inverse):
    """f^{-1} in closed form when the family knows it (its ``_eval_inverse`` hook)."""
    g = f.arg._eval_inverse()
    return None if g is None or isinstance(g, Inverse) else g


def _register_tensor_inverse_rules() -> None:
    from .tensor import Tensor, TensorPower

    @rule(Inverse, cite=DRS.at("Sec. 3.1, property 4"), priority=40)
    def inverse_tensor(f: Inverse):
        """(f (x) g)^{-1} = f^{-1} (x) g^{-1}: T(P x P', Q x Q')^{-1} = T(Q x Q', P x P')."""
        if isinstance(f.arg, Tensor):
            return Tensor(*[Inverse(g) for g in f.arg.factors])
        return None

    @rule(Inverse, cite=DRS.at("Sec. 3.1, property 4"), priority=40)
    def inverse_power(f: Inverse):
        """(f^{(x) n})^{-1} = (f^{-1})^{(x) n} (property 4 applied n - 1 times)."""
        if isinstance(f.arg, TensorPower):
            return TensorPower(Inverse(f.arg.base), f.arg.n)
        return None


_register_tensor_inverse_rules()


# -- rules for the symmetrisations (f^S and C(f)) ------------------------------------------------
# Dong, Roth & Su, Prop. 2: f^S = max{f, f^{-1}}; Wang et al., Sec. 4 (before Thm. 4.2):
# C(f) = min{f, f^{-1}}^{**}. Both are symmetric in f and f^{-1}, and both return f when f is
# symmetric (f = f^{-1}; f is convex, so min{f, f}^{**} = f).

from ..core.citations import WANG  # noqa: E402

_SYM = DRS.prop(2, note="f^S = max{f, f^{-1}}")
_HULL = WANG.at("Sec. 4, before Thm. 4.2", note="C(f) = min{f, f^{-1}}^{**}")


@rule(Symmetrize, cite=_SYM, priority=100)
def symmetrize_symmetric(f: Symmetrize):
    """f^S = f when f is symmetric (``is_symmetric`` True)."""
    return f.arg if f.arg.is_symmetric is True else None


@rule(Symmetrize, cite=_SYM, priority=90)
def symmetrize_inverse(f: Symmetrize):
    """(f^{-1})^S = max{f^{-1}, f} = f^S ((f^{-1})^{-1} = f for trade-off functions)."""
    return Symmetrize(f.arg.arg) if isinstance(f.arg, Inverse) else None


@rule(SymmetricHull, cite=_HULL, priority=100)
def symmetric_hull_symmetric(f: SymmetricHull):
    """C(f) = f when f is symmetric (``is_symmetric`` True)."""
    return f.arg if f.arg.is_symmetric is True else None


@rule(SymmetricHull, cite=_HULL, priority=90)
def symmetric_hull_inverse(f: SymmetricHull):
    """C(f^{-1}) = min{f^{-1}, f}^{**} = C(f)."""
    return SymmetricHull(f.arg.arg) if isinstance(f.arg, Inverse) else None


# ================================================================================================
# NUMERIC EVALUATION of Inverse, Symmetrize and SymmetricHull (registered with numeric.protocol)
# ================================================================================================
# f^{-1}(alpha) = inf{t in [0, 1] : f(t) <= alpha} (Dong, Roth & Su, Eq. (3)). A closed-form
# inverse (the operand's ``_eval_inverse`` hook: symmetric families, nested inverses) evaluates
# as that closed form. Otherwise the infimum is bracketed on the level t with the operand's own
# enclosures (numeric.roots.bracket_level): only certified comparisons f(t) > alpha or
# f(t) <= alpha move the bracket, so the result [L, H] always contains f^{-1}(alpha). For
# alpha > 1/2 the comparison is made on the power, 1 - f(t) < 1 - alpha, so that both tails keep
# their relative accuracy; the power 1 - f^{-1}(alpha) is the complement of the bracket, carried
# exactly by the levels (no cancellation).

import numpy as np  # noqa: E402

from ..numeric.context import mp  # noqa: E402


def _closed_inverse(f: Inverse) -> TradeOff | None:
    """The closed-form f^{-1} of ``Inverse(f)`` from the operand's hook, or ``None``."""
    g = f.arg._eval_inverse()
    return None if g is None or isinstance(g, Inverse) else g


def inverse_bracket(f: TradeOff, a, ac):
    """Levels ``(L, H)`` with ``L[0] <= f^{-1}(alpha) <= H[0]`` (and ``H[1] <= 1 - f^{-1} <=
    L[1]``), alpha given as ``(a, ac) = (alpha, 1 - alpha)`` (Dong, Roth & Su, Eq. (3))."""
    from ..numeric.protocol import mp_roc, mp_value
    from ..numeric.roots import bracket_level, widen

    if a <= ac:
        def probe(t):
            lo, hi = mp_value(f, *t)
            k = 1 if lo > a else (-1 if hi <= a else 0)
            return k, (lo + hi) / 2 - a
    else:
        def probe(t):  # f(t) > alpha  <=>  1 - f(t) < 1 - alpha
            lo, hi = mp_roc(f, *t)
            k = 1 if hi < ac else (-1 if lo >= ac else 0)
            return k, ac - (lo + hi) / 2
    zero = (mp.zero, mp.one)
    if probe(zero)[0] < 0:  # f(0) <= alpha: the infimum is 0
        return zero, zero
    L, H = bracket_level(probe)
    return widen(L, H)


def inverse_np(f: TradeOff, x: np.ndarray) -> np.ndarray:
    """f^{-1} at many alphas in float64 by vectorised bisection on t (Eq. (3))."""
    from ..numeric.protocol import np_value

    x = np.asarray(x, dtype=np.float64)
    lo, hi = np.zeros_like(x), np.ones_like(x)
    at0 = np.asarray(np_value(f, np.zeros_like(x))) <= x
    for _ in range(64):
        m = (lo + hi) / 2
        below = np.asarray(np_value(f, m)) <= x
        hi, lo = np.where(below, m, hi), np.where(below, lo, m)
    return np.where(at0, 0.0, hi)


def _register_unary_numerics() -> None:
    from ..numeric.envelope import (
        hull_mp,
        hull_np,
        pl_exact,
        pl_hull_exact,
        pl_hull_mp,
        pl_hull_np,
        pl_knots,
        pl_mp_value,
    )
    from ..numeric.protocol import exact_value, mp_roc, mp_value, np_value
    from ..numeric.roots import c_bounds, t_bounds

    def _pl_inverse_knots(f: Inverse):
        """Exact knots of f^{-1} when the operand is piecewise linear (mirrored graph, Eq. (3))."""
        return pl_knots(f)

    @mp_value.register(Inverse)
    def _(f, a, ac):
        g = _closed_inverse(f)
        if g is not None:
            return mp_value(g, a, ac)
        k = _pl_inverse_knots(f)
        if k is not None:
            return pl_mp_value(k, a, ac)
        return t_bounds(*inverse_bracket(f.arg, a, ac))

    @mp_roc.register(Inverse)
    def _(f, a, ac):
        g = _closed_inverse(f)
        if g is not None:
            return mp_roc(g, a, ac)
        k = _pl_inverse_knots(f)
        if k is not None:
            return pl_mp_value(k, a, ac, power=True)
        return c_bounds(*inverse_bracket(f.arg, a, ac))

    @np_value.register(Inverse)
    def _(f, x):
        g = _closed_inverse(f)
        return np_value(g, x) if g is not None else inverse_np(f.arg, x)

    @exact_value.register(Inverse)
    def _(f, A, Ac):
        g = _closed_inverse(f)
        if g is not None:
            return exact_value(g, A, Ac)
        k = _pl_inverse_knots(f)
        return None if k is None else pl_exact(k, A)

    # f^S = max{f, f^{-1}} (Dong, Roth & Su, Prop. 2): monotone in both, so the enclosure is
    # (max of the lows, max of the highs); the power is the min of the powers.
    def _sym_parts(f: Symmetrize):
        g = f.arg
        return (g,) if g.is_symmetric is True else (g, Inverse(g))

    @mp_value.register(Symmetrize)
    def _(f, a, ac):
        vs = [mp_value(g, a, ac) for g in _sym_parts(f)]
        return max(v[0] for v in vs), max(v[1] for v in vs)

    @mp_roc.register(Symmetrize)
    def _(f, a, ac):
        vs = [mp_roc(g, a, ac) for g in _sym_parts(f)]
        return min(v[0] for v in vs), min(v[1] for v in vs)

    @np_value.register(Symmetrize)
    def _(f, x):
        parts = _sym_parts(f)
        out = np.asarray(np_value(parts[0], x), dtype=np.float64)
        for g in parts[1:]:
            out = np.maximum(out, np_value(g, x))
        return out

    @exact_value.register(Symmetrize)
    def _(f, A, Ac):
        vs = [exact_value(g, A, Ac) for g in _sym_parts(f)]
        return None if any(v is None for v in vs) else max(vs)

    # C(f) = min{f, f^{-1}}^{**} (Wang et al., Sec. 4): f itself for symmetric f; C(f^{-1}) =
    # C(f); C(f_p) = C_p(f) (Dong, Roth & Su, Def. 6) for f_p = Mix(f, p), evaluated by Eq. (13)
    # when f is symmetric. Any other operand goes through numeric.envelope: the exact hull of
    # the knots when it is piecewise linear, else the certified envelope enclosure.
    def _hull_operand(f: SymmetricHull) -> TradeOff:
        g = f.arg
        while isinstance(g, Inverse):
            g = g.arg
        return g

    def _hull_target(f: SymmetricHull):
        from .subsample import Mix, Subsample

        g = _hull_operand(f)
        if g.is_symmetric is True:
            return g
        if isinstance(g, Mix) and g.arg.is_symmetric is True:
            return Subsample(g.arg, g.p)
        return None

    def _hull_eval(f: SymmetricHull, a, ac, power: bool):
        t = _hull_target(f)
        if t is not None:
            return mp_roc(t, a, ac) if power else mp_value(t, a, ac)
        g = _hull_operand(f)
        k = pl_knots(g)
        if k is not None:
            return pl_hull_mp(k, a, ac, power)
        from .tensor import pld_hull_value  # a product: its two directions' profiles

        v = pld_hull_value(f, a, power)
        return v if v is not None else hull_mp(g, a, ac, power, inverse_bracket)

    mp_value.register(SymmetricHull)(lambda f, a, ac: _hull_eval(f, a, ac, False))
    mp_roc.register(SymmetricHull)(lambda f, a, ac: _hull_eval(f, a, ac, True))

    @np_value.register(SymmetricHull)
    def _(f, x):
        t = _hull_target(f)
        if t is not None:
            return np_value(t, x)
        g = _hull_operand(f)
        k = pl_knots(g)
        return pl_hull_np(k, x) if k is not None else hull_np(g, x)

    @exact_value.register(SymmetricHull)
    def _(f, A, Ac):
        k = pl_knots(_hull_operand(f))
        v = None if k is None else pl_hull_exact(k, A)
        if v is not None:
            return v
        t = _hull_target(f)
        return None if t is None else exact_value(t, A, Ac)


_register_unary_numerics()
