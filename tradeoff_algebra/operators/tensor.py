"""The tensor product f (x) g: composition of mechanisms (Dong, Roth & Su, Def. 5).

``T(P, Q) (x) T(P', Q') = T(P x P', Q x Q')``; the product is well defined, commutative and
associative with unit Id (the properties listed after Def. 5 in Sec. 3.1, proved in Appendix D).
Construction flattens nested tensors and sorts the factors
(cheap canonicalisation); it does not simplify.
"""

from __future__ import annotations

from typing import Any

from sympy import Integer, S
from sympy.core.logic import fuzzy_and

from ..core.citations import DRS
from ..core.node import PREC_POSTFIX, PREC_TENSOR, TradeOff, register_operator
from ..core.rules import bind_hook, rule
from ..core.validate import fuzzy_equals, param
from ..families.trivial import Id, Zero
from ..numeric.finite import FiniteLoss, finite_loss
from ..numeric.finite_small import pure_power, register_pure_power
from ..numeric.privacy_loss import loss_views, privacy_loss
from ._base import all_symmetric, operand, sorted_operands

__all__ = ["Tensor", "TensorPower", "unit_power_base"]


def _str_exponent(printer, n) -> str:
    s = printer._print(n)
    return s if (n.is_Atom or n.is_Function) else "(%s)" % s


@register_operator
class Tensor(TradeOff):
    """f_1 (x) f_2 (x) ... (x) f_n (Dong, Roth & Su, Def. 5); ``f @ g``."""

    _precedence = PREC_TENSOR

    def __new__(cls, *factors: Any):
        flat: list[TradeOff] = []
        for f in factors:
            f = operand(f, "Tensor")
            flat.extend(f.args if isinstance(f, Tensor) else (f,))
        if len(flat) == 1:
            return flat[0]
        if not flat:
            return Id
        return TradeOff.__new__(cls, *sorted_operands(flat))

    @property
    def factors(self) -> tuple[TradeOff, ...]:
        return self.args

    @property
    def is_symmetric(self) -> bool | None:
        # The product of symmetric trade-off functions is symmetric (Dong, Roth & Su, Sec. 3.1).
        return True if all_symmetric(self.args) else None

    def _sympystr(self, printer):
        return " @ ".join(self._str_parens(printer, f, PREC_TENSOR + 1) for f in self.args)

    def _latex(self, printer):
        return r" \otimes ".join(self._latex_parens(printer, f, PREC_TENSOR + 1)
                                 for f in self.args)


@register_operator
class TensorPower(TradeOff):
    """f^{(x) n}: n-fold composition, n a non-negative integer or an integer symbol; ``f ** n``."""

    _precedence = PREC_POSTFIX

    def __new__(cls, base: Any, n: Any):
        base = operand(base, "TensorPower", "base")
        n = param("n", n, lower=0, integer=True, owner="TensorPower")
        return TradeOff.__new__(cls, base, n)

    @property
    def base(self) -> TradeOff:
        return self.args[0]

    @property
    def n(self):
        return self.args[1]

    @property
    def is_symmetric(self) -> bool | None:
        return True if self.base.is_symmetric else None

    def _sympystr(self, printer):
        return "%s**%s" % (self._str_parens(printer, self.base, PREC_POSTFIX + 1),
                           _str_exponent(printer, self.n))

    def _latex(self, printer):
        return r"%s^{\otimes %s}" % (self._latex_parens(printer, self.base, PREC_POSTFIX + 1),
                                     self._latex_exponent(printer, self.n))


def unit_power_base(g: Any) -> Any:
    """The base of g where g = h^{(x) 1} (a TensorPower of exponent 1 is its base: Dong, Roth &
    Su, Def. 5), else g itself: ``laplace_mechanism(...)**1`` is the one-step hull."""
    while isinstance(g, TensorPower) and g.n == 1:
        g = g.base
    return g


# -- rewrite rules (applied by ``simplify``; see tradeoff_algebra.rewrite) ---------------------
# Dong, Roth & Su, Sec. 3.1 lists the properties of the tensor product after Def. 5: (1) it is
# commutative and associative, (2) monotone, (3) f (x) Id = Id (x) f = f, (4) (f (x) g)^{-1} =
# f^{-1} (x) g^{-1}. Commutativity and associativity are used at construction (flattening and
# sorting); the rules below use the unit, the zero, and the definition of f^{(x) n} as the
# n-fold product (f^{(x) 0} = Id, the empty product).

_UNIT = DRS.at("Sec. 3.1, property 3")
_POWER = DRS.at("Sec. 3.1, Def. 5 and property 1")


@rule(Tensor, cite=DRS.defn(5), priority=110)
def tensor_zero(t: Tensor):
    """f (x) 0 = 0: Zero absorbs every factor.

    By Def. 5, if 0 = T(P, Q) with P, Q mutually singular (P(A) = 1, Q(A) = 0), then
    P x P' and Q x Q' are mutually singular too (the set A x Y separates them), so
    T(P x P', Q x Q') = 0 for every f = T(P', Q').
    """
    return Zero if any(f == Zero for f in t.factors) else None


@rule(Tensor, cite=_UNIT, priority=100)
def tensor_unit(t: Tensor):
    """f (x) Id = f: the identity trade-off function is the unit; drop every Id factor."""
    rest = [f for f in t.factors if f != Id]
    return Tensor(*rest) if len(rest) < len(t.factors) else None


def _base_exp(f):
    return (f.base, f.n) if isinstance(f, TensorPower) else (f, S.One)


@rule(Tensor, cite=_POWER, priority=10)
def tensor_collect(t: Tensor):
    """f^{(x) m} (x) f^{(x) n} = f^{(x)(m+n)}: collect equal factors into one power.

    Covers f (x) f (x) g = f^{(x) 2} (x) g and f (x) f^{(x) n} = f^{(x)(n+1)}; it follows from
    associativity and commutativity (property 1) and the definition of f^{(x) n}.
    """
    groups: dict = {}
    for f in t.factors:
        b, n = _base_exp(f)
        groups.setdefault(b, []).append(n)
    if all(len(ns) == 1 for ns in groups.values()):
        return None
    return Tensor(*[TensorPower(b, S.Zero + sum(ns, S.Zero)) if len(ns) > 1 or ns[0] != 1
                    else b for b, ns in groups.items()])


@rule(TensorPower, cite=_POWER, priority=100)
def power_zero(p: TensorPower):
    """f^{(x) 0} = Id: the empty tensor product is the unit (property 3)."""
    return Id if fuzzy_equals(p.n, 0) is True else None


@rule(TensorPower, cite=_POWER, priority=100)
def power_one(p: TensorPower):
    """f^{(x) 1} = f."""
    return p.base if fuzzy_equals(p.n, 1) is True else None


@rule(TensorPower, cite=_POWER, priority=90)
def power_of_power(p: TensorPower):
    """(f^{(x) m})^{(x) n} = f^{(x) mn} (associativity, property 1)."""
    if isinstance(p.base, TensorPower):
        return TensorPower(p.base.base, p.base.n * p.n)
    return None


@rule(TensorPower, cite=_UNIT, priority=95)
def power_of_id(p: TensorPower):
    """Id^{(x) n} = Id for every n >= 0 (property 3)."""
    return Id if p.base == Id else None


@rule(TensorPower, cite=DRS.defn(5), priority=95)
def power_of_zero(p: TensorPower):
    """0^{(x) n} = 0 for n >= 1 (and Id for n = 0, by ``power_zero``).

    Fires only when n >= 1 is certain (three-valued logic): for a symbol n that may be 0 the
    value is either 0 or Id, so nothing is rewritten.
    """
    if p.base != Zero:
        return None
    return Zero if fuzzy_and([p.n.is_integer, (p.n - 1).is_nonnegative]) else None


# -- hooks the families answer (core.rules.hook): their knowledge of products and powers --------
def _tensor_hook(t: Tensor, func):
    """A ``"tensor"`` hook maps the factors to new factors (or None)."""
    out = func(t.factors)
    return None if out is None else Tensor(*out)


bind_hook("tensor", Tensor, _tensor_hook)
bind_hook("tensor_power", TensorPower, lambda p, func: func(p.base, p.n))


# -- exact finite representation (numeric.finite) -----------------------------------------------
@privacy_loss.register(Tensor)
@loss_views("grid", "exact")
def _(f):
    """The product of the factors' finite losses (None if a factor is not finite)."""
    out = FiniteLoss()
    for g in f.factors:
        h = finite_loss(g)
        if h is None:
            return None
        out = out.tensor(h)
    return out


@privacy_loss.register(TensorPower)


@loss_views("grid", "exact")
def _(f):
    if not isinstance(f.n, Integer):
        return None
    h = finite_loss(f.base)
    return None if h is None else h.power(int(f.n))


@register_pure_power(TensorPower)
def _(f):
    """(f_{eps0,0}^{(x) j})^{(x) n} = f_{eps0,0}^{(x) jn} (Dong, Roth & Su, Sec. 3.1, Def. 5)."""
    base, n = f.args
    got = pure_power(base) if isinstance(n, Integer) and n.p >= 1 else None
    return None if got is None else (got[0], got[1] * int(n))
