"""The tensor product f (x) g: composition of mechanisms (Dong, Roth & Su, Def. 5).

``T(P, Q) (x) T(P', Q') = T(P x P', Q x Q')``; the product is well defined, commutative and
associative with unit Id (the properties listed after Def. 5 in Sec. 3.1, proved in Appendix D).
Construction flattens nested tensors and sorts the factors
(cheap canonicalisation); it does not simplify.
"""

from __future__ import annotations

from typing import Any

from ..core.node import PREC_POSTFIX, PREC_TENSOR, TradeOff, register_operator
from ..core.validate import param
from ..numeric.context import mp
from ._base import all_symmetric, operand, sorted_operands

__all__ = ["Tensor", "TensorPower"]


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
            from ..families.trivial import Id

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


# -- rewrite rules (applied by ``simplify``; see tradeoff_algebra.rewrite) ---------------------
# Dong, Roth & Su, Sec. 3.1 lists the properties of the tensor product after Def. 5: (1) it is
# commutative and associative, (2) monotone, (3) f (x) Id = Id (x) f = f, (4) (f (x) g)^{-1} =
# f^{-1} (x) g^{-1}. Commutativity and associativity are used at construction (flattening and
# sorting); the rules below use the unit, the zero, and the definition of f^{(x) n} as the
# n-fold product (f^{(x) 0} = Id, the empty product).

from sympy import S  # noqa: E402
from sympy.core.logic import fuzzy_and  # noqa: E402

from ..core.citations import DRS  # noqa: E402
from ..core.rules import rule  # noqa: E402
from ..families.trivial import Id, Zero  # noqa: E402

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
    return Id if p.n.is_zero is True else None


@rule(TensorPower, cite=_POWER, priority=100)
def power_one(p: TensorPower):
    """f^{(x) 1} = f."""
    return p.base if (p.n - 1).is_zero is True else None


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


# ================================================================================================
# NUMERIC EVALUATION of Tensor and TensorPower (registered with numeric.protocol)
# ================================================================================================
# Order of routes: (1) finite objects compose exactly (numeric.finite.finite_loss: f_{eps,delta},
# Discrete, PiecewiseLinear, BinomialDP and their products); (2) the rewrite rules, when they
# turn the product into a node that is not a product (G_mu (x) G_nu = G_sqrt(mu^2+nu^2)); (3) the
# privacy-loss-distribution engine (numeric.pld), an enclosure from pessimistic and optimistic
# discretisations of every factor's loss (families G, Laplace, finite objects, Mix and Inverse of
# these), composed by FFT. Options (tolerance, grid, progress bar): numeric.pld.pld_options.


def pld_leaves(f: TradeOff) -> tuple | None:
    """``((leaf, n), ...)``: the factors of a product with their multiplicities (flattening
    Tensor and TensorPower with integer exponents), or None for a symbolic exponent."""
    from sympy import Integer

    acc: dict = {}

    def walk(g, mult: int) -> bool:
        if isinstance(g, Tensor):
            return all(walk(x, mult) for x in g.factors)
        if isinstance(g, TensorPower):
            if not isinstance(g.n, Integer):
                return False
            return walk(g.base, mult * int(g.n))
        acc[g] = acc.get(g, 0) + mult
        return True

    if not walk(f, 1):
        return None
    return tuple(sorted(acc.items(), key=lambda kv: str(kv[0])))


def _finite(f):
    try:
        from ..numeric.finite import finite_loss
    except ImportError:  # pragma: no cover - the finite route is optional
        return None
    return finite_loss(f)


def _simplified(f):
    """A non-product node equal to f by the rewrite rules, else the (partly) simplified
    product (the rewrite layer is imported lazily: it comes later)."""
    from ..rewrite import simplify

    g = simplify(f)
    return g


def _float_bracket(x):
    """Floats (down, up) with down <= x <= up for an mpf x."""
    import math

    from ..numeric.context import mp

    v = float(x)
    if mp.mpf(v) == x:
        return v, v
    return (math.nextafter(v, -math.inf), v) if mp.mpf(v) > x else (v, math.nextafter(v, math.inf))


def _route(f):
    """('finite', FiniteLoss) | ('node', other node) | ('pld', leaves)."""
    from ..core.errors import NoClosedForm

    fl = _finite(f)
    if fl is not None:
        return "finite", fl
    g = _simplified(f)
    if g != f and not isinstance(g, (Tensor, TensorPower)):
        return "node", g
    leaves = pld_leaves(g)
    if leaves is None:
        raise NoClosedForm(f"{f}: a tensor power with a symbolic exponent has no numeric value")
    return "pld", leaves


def _register_tensor_numerics() -> None:
    from ..numeric.protocol import exact_value, mp_delta, mp_roc, mp_value

    def value(f, a, ac, power: bool):
        kind, obj = _route(f)
        if kind == "finite":
            return obj.mp_roc(a, ac) if power else obj.mp_value(a, ac)
        if kind == "node":
            return mp_roc(obj, a, ac) if power else mp_value(obj, a, ac)
        return pld_value((obj,), a, power)

    def exact(f, A, Ac):
        fl = _finite(f)
        return None if fl is None else fl.value(A, Ac)

    for cls in (Tensor, TensorPower):
        exact_value.register(cls)(exact)
        mp_value.register(cls)(lambda f, a, ac: value(f, a, ac, False))
        mp_roc.register(cls)(lambda f, a, ac: value(f, a, ac, True))

        @mp_delta.register(cls)
        def _(f, eps):
            kind, obj = _route(f)
            if kind == "finite":
                return obj.mp_delta(eps)
            if kind == "node":
                return mp_delta(obj, eps)
            return pld_delta([obj], eps)


def _refinements(leaf_sets, arg, kind: str) -> list:
    """PLD refinements of delta(eps) (kind 'delta') or eps(delta) ('epsilon') at the exact
    argument ``arg`` (an mpf, bracketed by floats) for each product in ``leaf_sets``."""
    from ..numeric import pld

    o = pld.options()
    dn, up = _float_bracket(arg)
    make = pld.delta_refinement if kind == "delta" else pld.epsilon_refinement
    return [make(leaves, dn, up, o["h"], o["tail"], o["progress"]) for leaves in leaf_sets]


def pld_delta(leaf_sets: list, eps):
    """Enclosure (mpf lo, hi) of ``max_i delta_i(eps)`` over the products in ``leaf_sets`` (one
    product, or the two directions of a symmetric hull) by the PLD engine, refined to the
    relative tolerance of ``pld_options``."""
    from ..numeric import pld
    from ..numeric.context import mp

    o = pld.options()
    if eps == mp.inf:  # delta(oo) = Q(L = +oo), carried exactly enough by both sides
        cs = [pld._composed(pld._check_leaves(x), o["h"] or pld.H_START, o["tail"], 0.0,
                            o["progress"]) for x in leaf_sets]
        return mp.mpf(max(c.opt.inf for c in cs)), mp.mpf(max(c.pess.inf for c in cs))
    lo, hi = pld.max_enclosure(_refinements(leaf_sets, eps, "delta"), o["tol"])
    return mp.mpf(lo), mp.mpf(hi)


def pld_epsilon(leaf_sets: list, d):
    """Enclosure (mpf lo, hi) of ``max_i eps_i(d)`` over the products in ``leaf_sets``."""
    from ..numeric import pld
    from ..numeric.context import mp

    lo, hi = pld.max_enclosure(_refinements(leaf_sets, d, "epsilon"), pld.options()["tol"])
    return mp.mpf(lo), mp.mpf(hi)


_register_tensor_numerics()


# -- the symmetric hull of a product: delta_C(eps) = max(delta_f(eps), delta_{f^-1}(eps)) ------
# C(f) = min{f, f^{-1}}^{**} (Wang et al., Sec. 4) has the conjugate C(f)^* = max{f^*,
# (f^{-1})^*} (the conjugate of a lower convex envelope of a minimum is the maximum of the
# conjugates), so by Prop. 6 of Dong, Roth & Su its profile is the larger of the two profiles:
# the "remove" and the "add" neighbouring relations of NoisySGD. Likewise eps_C(delta) =
# max(eps_f(delta), eps_{f^-1}(delta)).


def hull_directions(f) -> tuple | None:
    """The two products (leaves of f, leaves of f^{-1}) behind ``SymmetricHull(f)``, or None."""
    from .unary import Inverse

    g = f.arg
    while isinstance(g, Inverse):
        g = g.arg
    if not isinstance(g, (Tensor, TensorPower)) or g.is_symmetric is True:
        return None
    leaves = pld_leaves(g)
    if leaves is None:
        return None
    inv = tuple((x if x.is_symmetric is True else Inverse(x), n) for x, n in leaves)
    return leaves, inv


def pld_value(leaf_sets: tuple, a, power: bool):
    """Enclosure (mpf lo, hi) of C(alpha) (``power``: 1 - C(alpha)) at the exact alpha (an mpf,
    bracketed by floats), C the product for one product in ``leaf_sets`` or the symmetric hull
    for a product and its inverse (numeric.pld.hull_roc_bounds)."""
    from ..numeric import pld
    from ..numeric.context import mp

    o = pld.options()
    dn, up = _float_bracket(a)
    r = pld.value_refinement(leaf_sets, dn, up, power, o["h"], o["tail"], o["progress"])
    lo, hi = pld.max_enclosure([r], o["tol"])
    return mp.mpf(lo), mp.mpf(hi)


def pld_hull_value(f, a, power: bool):
    """:func:`pld_value` of ``f = SymmetricHull(g)`` for a product g (its two directions), or
    None when f is not such a hull."""
    dirs = hull_directions(f)
    return None if dirs is None else pld_value(dirs, a, power)


def _register_hull_delta() -> None:

    from ..numeric.protocol import mp_conjugate, mp_delta
    from .unary import Inverse, SymmetricHull

    @mp_delta.register(SymmetricHull)
    def _(f, eps):
        dirs = hull_directions(f)
        if dirs is None:
            if f.arg.is_symmetric is True:  # C(f) = f
                return mp_delta(f.arg, eps)
            lo, hi = mp_conjugate(f, -mp.exp(eps))
            return 1 + lo, 1 + hi
        return pld_delta(list(dirs), eps)

    from ..numeric.pld import leaf_model
    from ..numeric.pld_models import InverseLoss, loss_model

    @loss_model.register(Inverse)
    def _(f):
        """f^{-1} = T(Q, P): the loss -L with P and Q exchanged (see InverseLoss)."""
        from ..core.errors import NoClosedForm

        try:
            return InverseLoss(leaf_model(f.arg))
        except NoClosedForm:
            return None


_register_hull_delta()
