"""Unary operators on one trade-off function: inverse, symmetrisation, symmetric hull.

* ``Inverse(f)``: f^{-1}(alpha) = inf{t in [0,1] : f(t) <= alpha} (Dong, Roth & Su, Eq. (3)),
  the trade-off function of the swapped pair: T(P,Q)^{-1} = T(Q,P).
* ``Symmetrize(f)``: f^S = max{f, f^{-1}} (Dong, Roth & Su, Prop. 2 discussion).
* ``SymmetricHull(f)``: C(f) = min{f, f^{-1}}^{**}, the lower convex envelope of the pointwise
  minimum (Wang, Su, Ye, Shokri & Su, Sec. 2; Dong, Roth & Su, Def. 6 uses it for C_p).
"""

from __future__ import annotations

from typing import Any

from ..core.node import PREC_ATOM, PREC_POSTFIX, TradeOff, register_operator
from ._base import operand

__all__ = ["Inverse", "Symmetrize", "SymmetricHull"]


@register_operator
class Inverse(TradeOff):
    """f^{-1} (Dong, Roth & Su, Eq. (3)); ``f.inverse()``."""

    _precedence = PREC_POSTFIX

    def __new__(cls, f: Any):
        return TradeOff.__new__(cls, operand(f, "Inverse"))

    @property
    def arg(self) -> TradeOff:
        return self.args[0]

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
class Symmetrize(TradeOff):
    """f^S = max{f, f^{-1}} (Dong, Roth & Su, Sec. 2.3)."""

    def __new__(cls, f: Any):
        return TradeOff.__new__(cls, operand(f, "Symmetrize"))

    @property
    def arg(self) -> TradeOff:
        return self.args[0]

    @property
    def is_symmetric(self) -> bool:
        return True

    def _latex(self, printer):
        return r"%s^{\mathrm{S}}" % self._latex_parens(printer, self.arg, PREC_ATOM)


@register_operator
class SymmetricHull(TradeOff):
    """C(f) = min{f, f^{-1}}^{**} (Wang et al., Sec. 2)."""

    def __new__(cls, f: Any):
        return TradeOff.__new__(cls, operand(f, "SymmetricHull"))

    @property
    def arg(self) -> TradeOff:
        return self.args[0]

    @property
    def is_symmetric(self) -> bool:
        return True

    def _latex(self, printer):
        return r"\mathcal{C}\left(%s\right)" % printer._print(self.arg)


# -- numeric evaluation: an inverse with a closed form evaluates as that closed form --------------
def _closed_inverse(f: Inverse) -> TradeOff:
    from ..numeric.protocol import _no_route

    g = f.arg._eval_inverse()
    if g is None or isinstance(g, Inverse):
        raise _no_route(f, "evaluation")
    return g


def _register_inverse_numerics() -> None:
    from ..numeric.protocol import exact_value, mp_roc, mp_value, np_value

    mp_value.register(Inverse)(lambda f, a, ac: mp_value(_closed_inverse(f), a, ac))
    mp_roc.register(Inverse)(lambda f, a, ac: mp_roc(_closed_inverse(f), a, ac))
    np_value.register(Inverse)(lambda f, x: np_value(_closed_inverse(f), x))

    @exact_value.register(Inverse)
    def _(f, A, Ac):
        g = f.arg._eval_inverse()
        return None if g is None or isinstance(g, Inverse) else exact_value(g, A, Ac)


_register_inverse_numerics()


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
