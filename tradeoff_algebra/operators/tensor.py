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
# One route for every numeric question about a product (``_route``; value, power, delta and,
# through analysis.profiles, epsilon): (1) the cheap sound identities first: ``simplify`` with
# the registered ``eq`` rules (f (x) 0 = 0, f (x) Id = f, G_mu (x) G_nu = G_sqrt(mu^2+nu^2),
# f_{eps,0}^{(x) n} = BinomialDP(eps, n), ...): a product that becomes another node is evaluated
# as that node; then a factor whose value at 0 is exactly 0 is Zero (a trade-off function is
# convex and non-increasing) and absorbs the product, and Id factors drop out; (2) finite
# objects compose exactly (numeric.finite.finite_loss: f_{eps,delta}, Discrete,
# PiecewiseLinear, BinomialDP and their products) while the exact product stays small
# (``FiniteLoss.cost``); (3) the privacy-loss-distribution engine (numeric.pld), an enclosure
# from pessimistic and optimistic discretisations of every factor's loss, composed by FFT.
# On route (3) two exact rules come first: the f_{0,delta} parts of the factors
# (f_{eps,delta} = f_{eps,0} (x) f_{0,delta}, Eq. (10); f_{0,d1} (x) f_{0,d2} = f_{0,D} with
# 1 - D = (1 - d1)(1 - d2), Eq. (11)) are taken out by Eq. (12):
#     (f (x) f_{0,D})(alpha) = (1 - D) f(alpha/(1 - D)) for alpha <= 1 - D, 0 beyond,
#     delta_{f (x) f_{0,D}}(eps) = D + (1 - D) delta_f(eps),
# so that the rest (often a single closed-form factor) is evaluated as tightly as alone; and at
# alpha = 0, (f (x) g)(0) = f(0) g(0) (the test of size 0 rejects exactly where P x P' = 0;
# Def. 5), at alpha = 1 the value is 0. Options (tolerance, grid, progress bar):
# numeric.pld.pld_options.


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


def _product(leaves) -> TradeOff:
    """The product node of ``((leaf, n), ...)`` (Id for none)."""
    return Tensor(*[leaf if n == 1 else TensorPower(leaf, n) for leaf, n in leaves])


def _finite(f):
    """The exact finite loss of f when f is finite and its exact product stays small (at most
    ``numeric.finite.MAX_COST`` elementary products), else None."""
    try:
        from ..numeric.finite import finite_loss
    except ImportError:  # pragma: no cover - the finite route is optional
        return None
    fl = finite_loss(f)
    return fl if fl is not None and fl.affordable() else None


def _simplified(f):
    """f rewritten by the registered identities (the rewrite layer is imported lazily: it
    comes later)."""
    from ..rewrite import simplify

    return simplify(f)


def _is_zero_function(f) -> bool:
    """Is f certainly the zero trade-off function? (f(0) = 0 exactly: f is convex and
    non-increasing on [0, 1], so it vanishes everywhere.)"""
    if f == Zero:
        return True
    from sympy import Integer

    from ..numeric.protocol import exact_value

    if f.free_symbols:
        return False
    try:
        return exact_value(f, Integer(0), Integer(1)) == 0
    except Exception:  # noqa: BLE001 - only a shortcut: any doubt keeps the product
        return False


def _float_bracket(x):
    """Floats (down, up) with down <= x <= up for an mpf x."""
    import math

    from ..numeric.context import mp

    v = float(x)
    if mp.mpf(v) == x:
        return v, v
    return (math.nextafter(v, -math.inf), v) if mp.mpf(v) > x else (v, math.nextafter(v, math.inf))


_ROUTES: dict = {}


def _route(f):
    """('finite', FiniteLoss) | ('node', other node) | ('pld', leaves): the one place where a
    product meets the cheap identities before any numeric composition (see above)."""
    hit = _ROUTES.get(f)
    if hit is not None:
        return hit
    out = _route_uncached(f)
    if len(_ROUTES) > 32:  # (a route may hold a materialised finite table)
        _ROUTES.clear()
    _ROUTES[f] = out
    return out


def _route_uncached(f):
    from ..core.errors import NoClosedForm

    g = _simplified(f)
    if not isinstance(g, (Tensor, TensorPower)):
        return "node", g
    leaves = pld_leaves(g)
    if leaves is None:
        raise NoClosedForm(f"{f}: a tensor power with a symbolic exponent has no numeric value")
    if any(_is_zero_function(x) for x, _ in leaves):
        return "node", Zero  # f (x) 0 = 0 (rule tensor_zero)
    leaves = tuple((x, n) for x, n in leaves if x != Id and n > 0)
    if not leaves:
        return "node", Id
    if len(leaves) == 1 and leaves[0][1] == 1:
        return "node", leaves[0][0]
    fl = _finite(g)
    if fl is not None:
        return "finite", fl
    return "pld", leaves


def split_delta(leaves) -> tuple[tuple, list]:
    """``(rest, deltas)``: the f_{0,delta} parts of the factors taken out (Dong, Roth & Su,
    Eq. (10): f_{eps,delta} = f_{eps,0} (x) f_{0,delta}), ``deltas`` a list of (delta, n) with
    numeric delta > 0, ``rest`` the remaining leaves (f_{eps,0} for eps > 0)."""
    from ..families.epsdelta import EpsDelta

    rest, deltas = [], []
    for x, n in leaves:
        if isinstance(x, EpsDelta) and not x.free_symbols and x.delta.is_zero is False:
            deltas.append((x.delta, n))
            if x.eps.is_zero is not True:
                rest.append((EpsDelta(x.eps, 0), n))
        else:
            rest.append((x, n))
    return tuple(rest), deltas


def _keep(deltas):
    """(1 - D, D) with 1 - D = prod (1 - delta_i)^{n_i} (Eq. (11)), mpf at the current
    precision (plus guard bits), each side with full relative accuracy."""
    from ..numeric.context import mp
    from ..numeric.protocol import num

    with mp.workprec(mp.prec + 20):
        s = mp.zero
        for d, n in deltas:
            dd = num(d, "delta")
            if dd >= 1:
                return mp.zero, mp.one
            s += n * (mp.log1p(-dd) if dd <= 0.5 else mp.log(num(1 - d, "1 - delta")))
        return mp.exp(s), -mp.expm1(s)


def _scaled_level(a, ac, keep, D):
    """(a', 1 - a') = (a/(1 - D), (1 - a - D)/(1 - D)), each side from operands that keep their
    digits; None when a >= 1 - D (the product is 0 there)."""
    from ..numeric.context import mp

    if a >= keep:
        return None
    with mp.workprec(mp.prec + 10):
        rest = ac - D if D <= a else keep - a  # 1 - D - alpha, the operands summing less
        return a / keep, max(rest, mp.zero) / keep


def _at_zero(leaves, power: bool):
    """(f_1 (x) ... )(0) = prod f_i(0)^{n_i} (or its complement) as an enclosure: the test of
    size 0 rejects where P x P' = 0, whose Q x Q'-mass is 1 - prod (1 - Q_i(P_i = 0))^{n_i}
    (Dong, Roth & Su, Def. 5). A point when every f_i(0) is one (computed with guard bits)."""
    from ..numeric.context import mp
    from ..numeric.protocol import mp_roc

    rs = []
    for x, n in leaves:  # r = 1 - f_i(0) = Q_i(P_i = 0)
        r_lo, r_hi = mp_roc(x, mp.zero, mp.one)
        rs.append((max(r_lo, mp.zero), min(r_hi, mp.one), n))
    if any(lo >= 1 for lo, _, _ in rs):  # a factor with f_i(0) = 0: the product is 0 there
        return (mp.one, mp.one) if power else (mp.zero, mp.zero)

    def total(pick):  # sum n log(1 - r): -oo when some r = 1
        s = mp.zero
        for lo, hi, n in rs:
            r = pick(lo, hi)
            if r >= 1:
                return mp.ninf
            s += n * mp.log1p(-r)
        return s

    with mp.workprec(mp.prec + 20):
        s_hi, s_lo = total(lambda lo, hi: lo), total(lambda lo, hi: hi)  # s_lo <= s <= s_hi
        if power:  # 1 - prod = -expm1(sum), increasing in each r
            lo, hi = -mp.expm1(s_hi), -mp.expm1(s_lo)
        else:
            lo, hi = mp.exp(s_lo), mp.exp(s_hi)
    if all(lo == hi for lo, hi, _ in rs):
        return +lo, +lo
    u = mp.ldexp(1, -mp.prec + 4)  # the rounding of the logarithms and exponentials
    return max(lo * (1 - u), mp.zero), min(hi * (1 + u), mp.one)


def _pld_route_value(leaves, a, ac, power: bool):
    """Value (or power) of the product of ``leaves`` on the PLD route: Eq. (12) for the
    f_{0,delta} parts, the value at 0 and 1, then the engine."""
    from ..numeric.context import mp
    from ..numeric.protocol import mp_roc, mp_value

    rest, deltas = split_delta(leaves)
    if deltas:
        keep, D = _keep(deltas)
        lvl = _scaled_level(a, ac, keep, D)
        if lvl is None:  # alpha >= 1 - D: f (x) f_{0,D} vanishes there
            return (mp.one, mp.one) if power else (mp.zero, mp.zero)
        a2, ac2 = lvl
        g = _product(rest)
        if power:  # 1 - (1 - D) f(a') = D + (1 - D)(1 - f(a'))
            lo, hi = mp_roc(g, a2, ac2)
            return D + keep * lo, D + keep * hi
        lo, hi = mp_value(g, a2, ac2)
        return keep * lo, keep * hi
    if a == 0:
        return _at_zero(leaves, power)
    if ac == 0:
        return (mp.one, mp.one) if power else (mp.zero, mp.zero)
    from ..numeric import pld

    bound = _factor_bound(leaves, a, ac, power)
    if bound is not None and (1 - bound if power else bound) <= pld.options()["tail"]:
        # far below what the engine resolves (absolute errors ~ its tail mass): the bound is
        # the answer, at once
        return (bound, mp.one) if power else (mp.zero, bound)
    lo, hi = pld_value((leaves,), a, power)
    if bound is not None and hi - lo > _FACTOR_BOUND_RTOL * abs(hi):
        lo, hi = (max(lo, bound), hi) if power else (lo, min(hi, bound))
    return min(lo, hi), max(lo, hi)


#: A PLD enclosure wider than this (relative) is intersected with the factor bound.
_FACTOR_BOUND_RTOL = 1e-3


def _factor_bound(leaves, a, ac, power: bool):
    """``C <= f_i`` for each leaf ``f_i`` of the product ``C`` (Dong, Roth & Su, Sec. 3.1,
    properties 2 and 3: ``f (x) g <= f (x) Id = f``): the least upper bound of ``C(alpha)``
    (``power``: the greatest lower bound of ``1 - C(alpha)``) over the leaves without
    trade-off arguments (the families, whose values are closed forms or exact), or None. It
    settles products whose value lies far below what float64 resolves (G_40: losses near
    800, beyond ``pld.LOSS_CAP``) and tightens wide engine enclosures."""
    from ..core.node import TradeOff
    from ..numeric.protocol import mp_roc, mp_value

    best = None
    for leaf, _ in leaves:
        if any(isinstance(x, TradeOff) for x in leaf.args):
            continue
        if power:
            b = mp_roc(leaf, a, ac)[0]
            best = b if best is None else max(best, b)
        else:
            b = mp_value(leaf, a, ac)[1]
            best = b if best is None else min(best, b)
    return best


def _register_tensor_numerics() -> None:
    from ..numeric.protocol import exact_value, mp_delta, mp_roc, mp_value

    def value(f, a, ac, power: bool):
        kind, obj = _route(f)
        if kind == "finite":
            return obj.mp_roc(a, ac) if power else obj.mp_value(a, ac)
        if kind == "node":
            return mp_roc(obj, a, ac) if power else mp_value(obj, a, ac)
        return _pld_route_value(obj, a, ac, power)

    def exact(f, A, Ac):
        kind, obj = _route(f)
        if kind == "finite":
            return obj.value(A, Ac)
        if kind == "node":
            return exact_value(obj, A, Ac)
        rest, deltas = split_delta(obj)
        if not deltas or any(not d.is_Rational or n > 64 for d, n in deltas):
            return None
        keep = 1
        for d, n in deltas:
            keep *= (1 - d) ** n
        if A >= keep:
            return A * 0
        v = exact_value(_product(rest), A / keep, (keep - A) / keep)
        return None if v is None else keep * v

    def delta(f, eps):
        kind, obj = _route(f)
        if kind == "finite":
            return obj.mp_delta(eps)
        if kind == "node":
            return mp_delta(obj, eps)
        rest, deltas = split_delta(obj)
        if deltas:  # delta = D + (1 - D) delta_rest (Eq. (12) through Prop. 6)
            keep, D = _keep(deltas)
            lo, hi = mp_delta(_product(rest), eps)
            return D + keep * lo, D + keep * hi
        return pld_delta([obj], eps)

    for cls in (Tensor, TensorPower):
        exact_value.register(cls)(exact)
        mp_value.register(cls)(lambda f, a, ac: value(f, a, ac, False))
        mp_roc.register(cls)(lambda f, a, ac: value(f, a, ac, True))
        mp_delta.register(cls)(delta)


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
