"""Renyi DP and its conversions (zero-concentrated and truncated concentrated DP, which
convert through it, are in :mod:`.concentrated`).

* ``RDP(curve, omega=oo)``: D_a(M(x) || M(x')) <= eps(a) for every order a in (1, omega) and
  every pair of neighbours (Mironov 2017, Def. 4; Dwork, Def. 4.4; Kaissis et al., Def. 4).
  ``curve`` is a function of the order (a SymPy ``Lambda`` or a Python callable of a SymPy
  symbol) or a mapping ``{order: eps}`` for finitely many orders. ``@`` adds the curves
  (Dwork, Thm. 4.4 (3): D_a is additive over product pairs).
* ``zCDP(rho, xi=0)``: D_a <= xi + rho a for all a > 1 (Bun & Steinke 2016; Dwork, Def. 4.3).
  ``@``: (xi + xi', rho + rho') (Dwork, Thm. 4.4 (1)); ``group(k)``: k^2 rho for xi = 0
  (Dwork, Remark 4.5).
* ``tCDP(rho, omega)``: D_a <= rho a for a in (1, omega) (Bun, Dwork, Rothblum & Steinke 2018;
  Dwork, Def. 4.5); omega = oo is rho-zCDP. ``@``: (rho + rho', min(omega, omega'))
  (Dwork, Thm. 4.4 (2)); ``group(k)``: (k^2 rho, omega/k) for 1 <= k < omega (Remark 4.5).

Conversion of one order (a, tau) to (eps, delta), for a > 1 (``method=``):

* ``"mironov"``: eps = tau + log(1/delta)/(a - 1) (Mironov 2017, Prop. 3; Kaissis et al.,
  Cor. 11, Eq. (29)); delta = exp((a - 1)(tau - eps)).
* ``"optimal"``: through :meth:`RDP.to_tradeoff`, the tightest trade-off function the
  guarantee implies at the orders (``families.renyi_region``): the best conversion possible
  from those RDP values (Balle et al. 2020; Asoodeh et al. 2021), a certified enclosure,
  slower (0.5 s for delta and 18 s for epsilon at the 63 orders 2..64).
* ``"balle"`` (default): eps = tau + log((a - 1)/a) - (log delta + log a)/(a - 1) (Balle et al.
  2020, Thm. 21; Kaissis et al., Cor. 12, Eq. (30); the same as Canonne, Kamath & Steinke
  2020, Prop. 12); delta = exp((a - 1)(tau - eps + log((a - 1)/a)) - log a). A negative eps
  is reported as 0: the hockey-stick divergence E_gamma decreases in gamma, so
  E_1 <= E_{e^eps} <= delta.

``epsilon(delta)`` and ``delta(eps)`` take the best order: the minimum over the given orders
(for rational orders and bounds, "balle" and "mironov": chosen in floats, near ties decided in
Arb, the value a certified point from Arb balls of the exact inputs, no SymPy expression),
or, for a curve given as a function, a numeric minimisation over a in (1, omega) (a geometric
scan refined by golden section). Every order gives a valid guarantee, so the returned value —
the formula at the order found, to ``dps`` digits — is valid; ``best_order`` reports it.
Tail bounds of the privacy loss Z (Dwork, Sec. 4.3): ``tail_bound(t)`` bounds Pr[Z > t + c].
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import sympy as sp
from flint import fmpq
from mpmath.libmp import to_rational

from ..analysis.conversions import delta as _delta
from ..analysis.conversions import epsilon as _epsilon
from ..analysis.renyi_batch import closed_renyi_orders, dyadic
from ..core.errors import InvalidParameter, NumericalError, brief
from ..core.node import TradeOff
from ..core.validate import count, fuzzy_gt, param
from ..core.validate import items as _items
from ..families.renyi_region import RenyiRegion
from ..numeric import budget
from ..numeric.arb_expr import ball_point
from ..numeric.concave import golden_section
from ..numeric.context import arb_precision, lambdify_modules, mp
from ..numeric.protocol import GUARD_DPS, MAX_DPS, expression_value, num, short
from ..numeric.renyi_wor import WBK_CITE
from ..numeric.value import Value, dps_to_prec
from ..operators.mechanism import AddRemove
from ..operators.unary import Inverse
from .approx import ApproxDP
from .base import Notion
from .renyi_curve import (
    _bound_orders,
    _capability_orders,
    _int_orders,
    _largest_upper,
    _number_dict,
    _PendingCurve,
    affine_values,
    quick_batch,
)

__all__ = ["RDP", "rdp_to_epsilon", "rdp_to_delta", "METHODS"]

METHODS = ("balle", "mironov", "optimal")
#: Largest eps at which ``RDP.delta`` computes: the conversions take e^eps to the working
#: precision, which costs seconds beyond 10^1000 and minutes at exp(10^5).
MAX_DELTA_EPS = sp.Integer(10) ** 1000

#: Orders used where a curve given as a function must be sampled (``to_tradeoff``).
DEFAULT_ORDERS = tuple(sp.Rational(x) for x in (
    "5/4", "3/2", "7/4", "2", "5/2", "3", "4", "5", "6", "8", "10", "12", "16", "20", "24", "32",
    "48", "64", "128", "256"))
_A = sp.Dummy("a", positive=True)


def _check_method(method: str) -> str:
    if not isinstance(method, str) or method not in METHODS:
        raise InvalidParameter("method", method, " or ".join(map(repr, METHODS)))
    return method


def _dps(dps: Any, owner: str) -> int:
    """The number of digits of a numeric conversion: an integer in [1, MAX_DPS] (a Python int
    in range is taken as it is: ``count`` asks SymPy)."""
    if type(dps) is int and 1 <= dps <= MAX_DPS:
        return dps
    return count("dps", dps, upper=MAX_DPS, owner=owner)


def _order_list(orders: Any, owner: str) -> list:
    """``orders`` as a non-empty list of orders a > 1 (``oo`` allowed), each checked."""
    allowed = "a non-empty sequence of orders > 1, such as [2, 4, 8]"
    items = _items("orders", orders, allowed, owner)
    if not items:
        raise InvalidParameter("orders", orders, allowed, owner)
    return [sp.Integer(a) if type(a) is int and a > 1 else  # (a Python int > 1: nothing to ask)
            _exact_float(float(a)) if type(a) in (float, np.float64) and 1 < a < math.inf else
            param(f"orders[{i}]", a, lower=1, lower_open=True, owner=owner, allow_infinite=True)
            for i, a in enumerate(items)]  # (nor a float > 1, NumPy's float64 included)


def _exact_float(a: float) -> sp.Rational:
    """A finite Python float as the exact binary rational it is (what ``param`` gives it):
    ``as_integer_ratio`` is in lowest terms with a power of 2 below, so SymPy's gcd is not
    needed (``dyadic``)."""
    n, d = a.as_integer_ratio()
    return dyadic(n, -(d.bit_length() - 1)) if n > 0 else sp.Rational(n, d)


def _tau(value: Any, order: Any, owner: str) -> sp.Expr:
    """A bound eps(order) of the curve: a real number >= 0 or +oo (a Renyi divergence is never
    negative), symbols allowed."""
    return param(f"curve({order})", value, lower=0, owner=owner, allow_infinite=True)


def rdp_to_epsilon(order: Any, tau: Any, delta: Any, method: str = "balle") -> sp.Expr:
    """eps of (eps, delta)-DP implied by (order, tau)-RDP, order > 1 (module docstring); a
    SymPy expression (symbols allowed), not clamped at 0."""
    a = param("order", order, lower=1, lower_open=True, owner="rdp_to_epsilon",
              allow_infinite=True)
    d = param("delta", delta, lower=0, upper=1, lower_open=True, owner="rdp_to_epsilon")
    tau = param("tau", tau, lower=0, owner="rdp_to_epsilon", allow_infinite=True)
    if _check_method(method) == "optimal":
        raise InvalidParameter("method", method, "'balle' or 'mironov' (one order in closed "
                               "form; 'optimal' is RDP(...).epsilon(delta, method='optimal'))")
    if a is sp.oo:  # D_oo <= tau is pure tau-DP (both forms tend to tau)
        return tau
    if method == "mironov":
        return tau + sp.log(1 / d) / (a - 1)
    return tau + sp.log((a - 1) / a) - (sp.log(d) + sp.log(a)) / (a - 1)


def rdp_to_delta(order: Any, tau: Any, eps: Any, method: str = "balle") -> sp.Expr:
    """delta of (eps, delta)-DP implied by (order, tau)-RDP (the inverse of
    :func:`rdp_to_epsilon` in delta), not capped at 1. The exponential is left unevaluated
    (SymPy would expand it into powers such as 2**(10**400) for a huge eps)."""
    a = param("order", order, lower=1, lower_open=True, owner="rdp_to_delta",
              allow_infinite=True)
    e = param("eps", eps, lower=0, owner="rdp_to_delta")
    tau = param("tau", tau, lower=0, owner="rdp_to_delta", allow_infinite=True)
    if _check_method(method) == "optimal":
        raise InvalidParameter("method", method, "'balle' or 'mironov'")
    if a is sp.oo:  # pure tau-DP: delta 0 at eps >= tau; nothing (1) below
        return sp.Piecewise((sp.S.Zero, e >= tau), (sp.S.One, True))
    if method == "mironov":
        return sp.exp((a - 1) * (tau - e), evaluate=False)
    return sp.exp((a - 1) * (tau - e + sp.log((a - 1) / a)) - sp.log(a), evaluate=False)


def _curve(curve: Any) -> sp.Basic:
    if isinstance(curve, sp.Lambda):
        if len(curve.variables) != 1:
            raise InvalidParameter("curve", curve, "a function of one variable (the order)",
                                   "RDP")
        _tau(curve(_A), "a", "RDP")
        return curve
    if isinstance(curve, (Mapping, sp.Dict)):
        items = {}
        for k, v in dict(curve).items():
            a = param("order", k, lower=1, lower_open=True, owner="RDP", allow_infinite=True)
            items[a] = _tau(v, a, "RDP")
        if not items:
            raise InvalidParameter("curve", curve, "at least one order", "RDP")
        return sp.Dict(items)
    if callable(curve):
        try:
            value = curve(_A)
        except Exception as exc:
            raise InvalidParameter("curve", curve, "a callable of a SymPy symbol (the order), "
                                   "a SymPy Lambda or a mapping {order: eps}", "RDP",
                                   f"calling it on a symbol failed with {type(exc).__name__}"
                                   ) from exc
        return sp.Lambda(_A, _tau(value, "a", "RDP"))
    raise InvalidParameter("curve", curve, "a callable of the order, a SymPy Lambda or a "
                           "mapping {order: eps}", "RDP")


class RDP(Notion):
    """Renyi differential privacy with the curve a -> eps(a) on (1, omega) (module docstring)."""

    def __new__(cls, curve: Any, omega: Any = sp.oo):
        c = _curve(curve)
        w = param("omega", omega, lower=1, lower_open=True, owner="RDP", allow_infinite=True)
        return sp.Basic.__new__(cls, c, w)

    @classmethod
    def of(cls, f: Any, orders: Any = (2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 48, 64),
           dps: int = 20) -> RDP:
        """The RDP curve of a mechanism with trade-off expression f on finitely many orders:
        eps(a) = max{D_a(P || Q), D_a(Q || P)} for f = T(P, Q) (Mironov 2017, Def. 3, over both
        orders of a neighbouring pair), each the upper end of a certified enclosure
        (``ta.renyi``), as an exact rational. ``AddRemove(g)`` (add/remove neighbours, e.g.
        Poisson DP-SGD from ``noisy_sgd``) takes the two directions of g; a symmetric f needs
        one. Orders with no certified value are refused with the reason. Products of sampled
        Gaussians (Poisson DP-SGD) take their integer orders from the binomial sums in Arb, all
        orders at once (``analysis.renyi_sampled``: the other direction bounded below them), and
        their other orders up to 64 from the series on regions of ``analysis.renyi_mixture``,
        also all at once, beyond from one Arb integral each, where that bound decides the larger
        side. A mechanism whose divergence has a closed form in the order (Laplace, randomized
        response, finite pairs, G_mu, the discrete Gaussian) takes all its orders from that one
        form compiled to Arb operations (``analysis.renyi_batch``). The bounds are the exact
        upper ends of the Arb balls (of relative width below 10^-dps); an order answered by
        ``ta.renyi`` as a certified point (within one unit of its last digit) takes the upper
        end of that unit, at dps + 2 digits. The whole call runs under one deadline
        (``numeric.budget.call``, as ``budget.deadline`` would, without binding the arguments
        for the message unless it is needed), except the bounded work of
        ``renyi_curve.quick_batch``: at most ``CHUNK`` Python int orders, dps at most 50,
        every order answered by the sides' programs (microseconds an order).

        Integer orders given as Python ints are taken as they are; where every order is
        answered by the sides' capability "renyi_orders" (``numeric.renyi_orders``: the
        Laplace pair, G_mu, the discrete Gaussian at integer orders), the values are Arb
        balls (or exact rationals) computed and checked in the call, and the curve's SymPy
        ``Dict`` of their upper ends is formed on first reading (:meth:`_pending`).

        f may also be a notion with an RDP curve (``zCDP``, ``tCDP``, ``RDP``): its curve at
        the orders, exact rationals xi + rho a for the affine ones (no SymPy in the call).
        Where no enclosure of the divergence is known but a certified upper bound is
        registered (``numeric.renyi_wor``: C_p(f) of a symmetric f with a program, the
        trade-off function of sampling without replacement under replace-one neighbours, by
        Wang, Balle & Kasiviswanathan's Thm. 9), the values are that bound's upper ends and
        :attr:`bound` names it; otherwise :attr:`bound` is None."""
        if type(dps) is int:
            quick = quick_batch(f, orders, dps)
            if quick is not None:
                return cls._pending(*quick[:2], dps, quick[2])
        with budget.call(lambda: f"RDP.of({short(f)})"):
            return cls._of(f, orders, dps)

    @classmethod
    def _of(cls, f: Any, orders: Any, dps: Any) -> RDP:
        """The body of :meth:`of`."""
        if not isinstance(f, TradeOff):
            if not isinstance(f, Notion) or not hasattr(f, "to_rdp"):
                raise InvalidParameter("f", f, "a trade-off expression or a notion with an RDP "
                                       "curve (zCDP, tCDP, RDP)", "RDP.of")
            dps = _dps(dps, "RDP.of")
            orders = _order_list(orders, "RDP.of")
            vals = affine_values(f, orders)
            if vals is not None:
                return cls._pending(orders, [vals], dps)
            r = f.to_rdp()
            return RDP({a: r.at(a) for a in orders})
        dps = _dps(dps, "RDP.of")
        g = f.arg if isinstance(f, AddRemove) else f
        sides = [g] if g.is_symmetric else [g, Inverse(g)]
        keys = _int_orders(orders)  # Python ints > 1: nothing to ask SymPy
        orders = _order_list(orders, "RDP.of") if keys is None else keys
        batch = _capability_orders(sides, orders, dps, keys is not None)
        if batch is not None and all(v is not None for vals in batch for v in vals):
            return cls._pending(orders, batch, dps)
        if batch is None and len(sides) == 1:
            bounds = _bound_orders(g, orders, dps, keys is not None)
            if bounds is not None:
                return cls._pending(orders, bounds, dps, WBK_CITE)
        from ..analysis.renyi import renyi
        from ..analysis.renyi_sampled import (
            sampled_rdp_integer,
            sampled_rdp_order,
            sampled_rdp_orders,
        )

        if keys is not None:
            orders = [sp.Integer(a) for a in keys]
        per_order = [] if batch is None else zip(*batch, strict=True)
        fast = {a: _largest_upper(vs, dps) for a, vs in zip(orders, per_order, strict=False)
                if None not in vs}
        ints = [int(a) for a in orders if a.is_Integer and a not in fast]
        if ints and len(sides) == 2:
            fast.update(sampled_rdp_integer(g, ints, dps, upper=True))
        reals = [a for a in orders if a.is_Rational and not a.is_Integer and a not in fast]
        if reals and len(sides) == 2:  # the exact upper ends of the Arb balls
            fast.update(sampled_rdp_orders(g, reals, dps))
        rest = [a for a in orders if a.is_Rational and a not in fast
                and not (a.is_Integer and int(a) in fast)]
        if rest:  # closed forms in the order, compiled once and run in Arb at each order
            curves = [closed_renyi_orders(h, rest, dps) for h in sides]
            for a in rest:
                if all(a in c for c in curves):
                    fast[a] = max(c[a] for c in curves)
        items = {}
        for a in orders:
            budget.check()  # an order left to the general route costs ~30 ms
            if a.is_Integer and int(a) in fast:  # the exact upper end of the Arb ball
                items[a] = fast[int(a)]
                continue
            if a in fast:
                items[a] = fast[a]
                continue
            v = sampled_rdp_order(g, a, dps) if a.is_finite and len(sides) == 2 else None
            items[a] = _dyadic(v.hi) if v is not None else \
                max(_upper(renyi(h, a, dps=dps + 2)) if a.is_finite else sp.oo
                    for h in sides)
        if all(t is sp.oo or (isinstance(t, sp.Rational) and t.p >= 0) for t in items.values()):
            # checked orders and exact bounds >= 0: what _curve would ask SymPy, decided here
            return sp.Basic.__new__(cls, _number_dict(items), sp.oo)
        return cls(items)

    @classmethod
    def _pending(cls, orders: list, batch: list, dps: int, bound: str | None = None) -> RDP:
        """The RDP of :meth:`of` whose values are all Arb balls or exact ``fmpq`` (the
        capability "renyi_orders", a registered bound, an affine curve): computed and
        certified already; the curve's SymPy ``Dict`` of the balls' upper ends as exact
        rationals is formed when first read (``args``: equality, hashing, printing,
        :meth:`at`, the conversions), not before. ``bound``: what the values bound when they
        are not enclosures of the divergences (:attr:`bound`)."""
        obj = sp.Basic.__new__(cls)
        d = obj.__dict__
        d["_built_args"] = None
        d["_curve_of"] = _PendingCurve(orders, batch, dps)
        if bound is not None:
            d["_bound"] = bound
        return obj

    @property
    def bound(self) -> str | None:
        """None when each value of :meth:`of` is the upper end of an enclosure of the
        divergence max{D_a(P || Q), D_a(Q || P)} itself; else the theorem whose certified
        upper bound it is (e.g. Wang, Balle & Kasiviswanathan's Thm. 9 for C_p(f)): a bound,
        not the divergence. Outside the value: equality and hashing ignore it."""
        return self.__dict__.get("_bound")

    @property
    def _args(self) -> tuple:
        """``args`` (SymPy's slot, overridden): formed on first reading for a curve of
        :meth:`_pending`, else as given to ``Basic.__new__``."""
        d = self.__dict__
        args = d.get("_built_args")
        if args is None:
            args = d["_built_args"] = (d["_curve_of"](), sp.oo)
        return args

    @_args.setter
    def _args(self, value: tuple) -> None:
        self.__dict__["_built_args"] = value

    @property
    def curve(self) -> sp.Basic:
        return self.args[0]

    @property
    def omega(self) -> sp.Expr:
        return self.args[1]

    @property
    def orders(self) -> tuple | None:
        """The orders of a curve given on finitely many orders, else None."""
        c = self.curve
        return tuple(sorted(c.keys(), key=lambda x: sp.N(x, 30))) if isinstance(c, sp.Dict) \
            else None

    def at(self, order: Any) -> sp.Expr:
        """eps(order): the bound on D_order."""
        a = param("order", order, lower=1, lower_open=True, owner="RDP.at",
                  allow_infinite=True)
        c = self.curve
        if isinstance(c, sp.Dict):
            if a not in c:
                raise InvalidParameter("order", order, f"one of the orders {self.orders}",
                                       "RDP.at")
            return c[a]
        if (a >= self.omega) is sp.true:
            raise InvalidParameter("order", order, f"an order below omega = {self.omega}",
                                   "RDP.at")
        return _tau(c(a), a, "RDP.at")

    def to_rdp(self) -> RDP:
        return self

    def compose(self, other: Notion) -> RDP:
        """Dwork, Thm. 4.4 (3): the curves add (on the common orders)."""
        if not hasattr(other, "to_rdp"):
            raise self._refuse(other, "an RDP, zCDP or tCDP")
        o = other.to_rdp()
        w = sp.Min(self.omega, o.omega)
        c1, c2 = self.curve, o.curve
        if isinstance(c1, sp.Lambda) and isinstance(c2, sp.Lambda):
            return RDP(sp.Lambda(_A, c1(_A) + c2(_A)), w)
        orders = set(self.orders or ()) | set(o.orders or ())
        common = [a for a in orders if _covers(self, a) and _covers(o, a)]
        if not common:
            raise self._refuse(other, "an RDP guarantee on at least one common order")
        return RDP({a: self.at(a) + o.at(a) for a in common})

    # -- conversions -------------------------------------------------------------------------
    def _candidates(self, orders) -> list | None:
        if orders is not None:
            return _order_list(orders, "RDP")
        return list(self.orders) if self.orders is not None else None

    _param_names = ("curve", "omega")

    def _optimise(self, objective: Callable, orders, dps: int,
                  mirror: tuple | None = None) -> tuple:
        """(best value, best order) of ``objective(a, tau)`` (SymPy) over the orders.
        ``mirror = (kind, method, x)``: the same conversion in mpmath (:func:`_conversion_mp`)
        chooses the order, and only the chosen one is formed in SymPy."""
        cands = self._candidates(orders)
        if cands is not None:
            best = None
            curve = self.curve if isinstance(self.curve, sp.Dict) else {}
            with mp.workdps(dps + GUARD_DPS):
                x = num(mirror[2], "value") if mirror is not None else None
                for a in cands:
                    if not _covers(self, a):
                        continue
                    # (an order of the curve itself is validated already)
                    tau = curve[a] if a in curve else self.at(a)
                    v = None if mirror is None else _conversion_mp(mirror[0], mirror[1], a,
                                                                   tau, x)
                    expr = None
                    if v is None:
                        expr = objective(a, tau)
                        v = num(expr, "value")
                    if best is None or v < best[0]:
                        best = (v, a, expr)
            if best is None:
                raise InvalidParameter("orders", orders, f"orders below omega = {self.omega}")
            a = best[1]
            return (best[2] if best[2] is not None else objective(a, self.at(a))), a
        _numeric(self, type(self).__name__)
        f = sp.lambdify(_A, objective(_A, self.curve(_A)), lambdify_modules())
        with mp.workdps(15 + GUARD_DPS):
            a = _minimise(f, self.omega)
        a = sp.Rational(str(mp.nstr(a, 12)))
        return objective(a, self.at(a)), a

    def epsilon(self, delta: Any, *, method: str = "balle", orders: Any = None,
                dps: int = 30) -> Value:
        """eps with (eps, delta)-DP implied, minimised over the orders (module docstring)."""
        _numeric(self, "RDP.epsilon")
        d = param("delta", delta, lower=0, upper=1, lower_open=True, owner="RDP.epsilon",
                  numeric=True)
        dps = _dps(dps, "RDP.epsilon")
        if _check_method(method) == "optimal":
            return _epsilon(self.to_tradeoff(self._with_best(orders, d)), d, dps=dps)
        fast = self._arb_conversion("epsilon", method, orders, d, dps)
        if fast is not None:
            return fast[0]
        expr, _ = self._optimise(lambda a, t: rdp_to_epsilon(a, t, d, method), orders, dps,
                                 ("epsilon", method, d))
        return expression_value(expr, dps, floor=0)

    def delta(self, eps: Any, *, method: str = "balle", orders: Any = None,
              dps: int = 30) -> Value:
        """delta with (eps, delta)-DP implied, minimised over the orders, capped at 1."""
        _numeric(self, "RDP.delta")
        e = param("eps", eps, lower=0, owner="RDP.delta", numeric=True)
        dps = _dps(dps, "RDP.delta")
        if fuzzy_gt(e, MAX_DELTA_EPS):
            raise NumericalError(f"RDP.delta at eps = {brief(e)}: numeric values are available "
                                 "for eps <= 10^1000 (MAX_DELTA_EPS)")
        if _check_method(method) == "optimal":
            return _delta(self.to_tradeoff(orders), e, dps=dps)
        fast = self._arb_conversion("delta", method, orders, e, dps)
        if fast is not None:
            return fast[0]
        expr, _ = self._optimise(lambda a, t: rdp_to_delta(a, t, e, method), orders, dps,
                                 ("delta", method, e))
        return expression_value(expr, dps, cap=1)

    def _arb_conversion(self, kind: str, method: str, orders: Any, x: sp.Expr,
                        dps: int) -> tuple[Value, sp.Expr] | None:
        """(value, order) of :meth:`epsilon` (``kind="epsilon"``, x = delta) or :meth:`delta`
        (x = eps) for a curve on finitely many rational orders with rational bounds and a
        rational x, the "balle" or "mironov" conversion: the order chosen in floats among all,
        then in Arb among those within the floats' error of the least (ties to the smaller
        order), and the value at that order a certified point from Arb balls of the exact
        inputs (:func:`_conversion_ball`); None otherwise (the SymPy route of
        :meth:`_optimise`)."""
        c = self.curve
        if not isinstance(c, sp.Dict) or not x.is_Rational or method not in ("balle", "mironov"):
            return None
        if orders is None:
            pairs = list(c.items())
        else:
            pairs = [(a, c[a]) for a in _order_list(orders, "RDP") if a in c]
            if not pairs:
                raise InvalidParameter("orders", orders, f"orders below omega = {self.omega}")
        if not all(a.is_Rational and t.is_Rational for a, t in pairs):
            return None
        try:  # (int / int is the correctly rounded float, without SymPy)
            xf = x.p / x.q
            fl = [(a.p / a.q, t.p / t.q) for a, t in pairs]
        except OverflowError:
            return None
        if kind == "epsilon" and not xf > 0:  # (a delta below the floats' range)
            return None
        vals, scale, bal = [], 0.0, method != "mironov"
        for af, tf in fl:  # the conversion in floats (a log of delta for "delta")
            la, l1 = (math.log(af), math.log1p(-1 / af)) if bal else (0.0, 0.0)
            if kind == "epsilon":
                lg = (math.log(xf) + la) / (af - 1)
                vals.append(tf - lg + l1)
                scale = max(scale, abs(tf) + abs(lg) + 1)
            else:
                vals.append((af - 1) * (tf - xf + l1) - la)
                scale = max(scale, (af - 1) * (abs(tf) + abs(xf) + 1) + abs(la))
        least = min(vals)
        near = [i for i, v in enumerate(vals) if v <= least + 1e-12 * scale]
        from flint import arb

        prec = dps_to_prec(dps) + 40
        with arb_precision(prec):
            balls = [(_conversion_ball(kind, method, *pairs[i], x), pairs[i][0]) for i in near]
            best = min(balls, key=lambda b: (b[0].mid(), b[1]))
            # ties (overlapping balls at this precision) go to the smaller order
            best = min((b for b in balls if not arb(b[0].upper()) < arb(best[0].lower())),
                       key=lambda b: b[1])
        a, t = best[1], c[best[1]]
        v = ball_point(lambda prec: _with_prec(prec, _conversion_ball, kind, method, a, t, x),
                       dps)
        if v is None:
            return None
        with mp.workprec(dps_to_prec(dps) + 20):
            if kind == "epsilon" and v.mid < 0:  # a negative eps is reported as 0
                v = Value.point(mp.zero, dps, guarantee=v.guarantee)
            elif kind == "delta" and v.mid > 1:  # delta is capped at 1
                v = Value.point(mp.one, dps, guarantee=v.guarantee)
        return v, a

    def _with_best(self, orders: Any, d: Any) -> Any:
        """For a curve given as a function and no orders: the default orders and the best
        order of the "balle" conversion at ``d`` (so "optimal" is never worse than it)."""
        if orders is not None or self.orders is not None:
            return orders
        best = self.best_order(d)
        return sorted({a for a in DEFAULT_ORDERS if _covers(self, a)} | {best},
                      key=lambda x: sp.N(x, 30))

    def to_tradeoff(self, orders: Any = None, *, symmetric: bool = True) -> RenyiRegion:
        """The tightest trade-off function implied by the guarantee at the orders (its own for
        a finite curve, :data:`DEFAULT_ORDERS` below omega for a function; ``orders=`` to
        choose): :class:`~tradeoff_algebra.families.renyi_region.RenyiRegion`. ``symmetric``:
        the bound holds for both orders of each neighbouring pair (Renyi DP of a mechanism)."""
        cands = self._candidates(orders)
        if cands is None:
            cands = [a for a in DEFAULT_ORDERS if _covers(self, a)]
        bounds = {a: self.at(a) for a in cands if _covers(self, a)}
        if not bounds:
            raise InvalidParameter("orders", orders, f"orders below omega = {self.omega}",
                                   "RDP.to_tradeoff")
        return RenyiRegion(bounds, symmetric)

    def best_order(self, delta: Any, *, method: str = "balle", orders: Any = None) -> sp.Expr:
        """The order at which :meth:`epsilon` takes its value."""
        _numeric(self, "RDP.best_order")
        d = param("delta", delta, lower=0, upper=1, lower_open=True, owner="RDP.best_order",
                  numeric=True)
        fast = self._arb_conversion("epsilon", _check_method(method), orders, d, 15)
        if fast is not None:
            return fast[1]
        return self._optimise(lambda a, t: rdp_to_epsilon(a, t, d, method), orders, 15,
                              ("epsilon", method, d))[1]

    def to_approx_dp(self, delta: Any, **kw) -> ApproxDP:
        """The (eps, delta)-DP guarantee of :meth:`epsilon`, eps rounded up (an exact rational
        just above the 30-digit value)."""
        v = self.epsilon(delta, dps=30, **kw)
        hi = sp.Rational(*to_rational(v.hi._mpf_))
        return ApproxDP(hi * (1 + sp.Rational(1, 10**28)), delta)

    def tail_bound(self, order: Any, t: Any) -> sp.Expr:
        """Dwork, Sec. 4.3, bullet 4: Pr[Z > t + eps(order)] <= e^{-(order - 1) t}, t >= 0."""
        a = param("order", order, lower=1, lower_open=True, owner="RDP.tail_bound")
        t = param("t", t, lower=0, owner="RDP.tail_bound")
        return sp.exp(-(a - 1) * t)

    def _sympystr(self, printer) -> str:
        w = "" if self.omega is sp.oo else ", omega=%s" % printer._print(self.omega)
        return "RDP(%s%s)" % (printer._print(self.curve), w)

    def _latex(self, printer) -> str:
        c = self.curve
        if isinstance(c, sp.Dict):
            body = ", ".join(r"(%s, %s)" % (printer._print(a), printer._print(c[a]))
                             for a in self.orders)
            return r"\text{RDP}\{%s\}" % body
        a = sp.Symbol(r"\alpha")
        return r"(\alpha, %s)\text{-RDP}" % printer._print(c(a))


def _upper(v: Value) -> sp.Expr:
    """An upper bound of the truth that ``v`` encloses, as an exact rational (or +oo): the
    upper end of an enclosure, and for a point value (``lo = hi``, within one unit of its last
    digit) the end of :meth:`Value.interval` (a point's ``hi`` is its rounded value, which may
    lie below the truth)."""
    from ..core.validate import mpf_rational

    if isinstance(v.exact, sp.Rational):
        return v.exact
    if not mp.isfinite(v.hi):
        return sp.oo
    with mp.workprec(dps_to_prec(v.dps) + 40):
        return mpf_rational(v.interval()[1])


def _dyadic(x) -> sp.Rational:
    """The exact rational a finite mpf holds (``mpf_rational`` without SymPy's powers)."""
    p, q = to_rational(x._mpf_)
    return sp.Rational(p, q)


def _conversion_mp(kind: str, method: str, a: sp.Expr, tau: sp.Expr, x) -> Any:
    """:func:`rdp_to_epsilon` (``kind="epsilon"``, x = delta) or :func:`rdp_to_delta` (x = eps)
    in mpmath at the working precision, for rational a > 1 and tau >= 0 (None otherwise): the
    choice of the best order only; the value at that order is the SymPy expression's."""
    if not (a.is_Rational and tau.is_Rational):
        return None
    A, t = mp.mpf(a.p) / a.q, mp.mpf(tau.p) / tau.q
    if kind == "epsilon":
        if method == "mironov":
            return t - mp.log(x) / (A - 1)
        return t + mp.log((A - 1) / A) - (mp.log(x) + mp.log(A)) / (A - 1)
    if method == "mironov":
        return mp.exp((A - 1) * (t - x))
    return mp.exp((A - 1) * (t - x + mp.log((A - 1) / A)) - mp.log(A))


def _conversion_ball(kind: str, method: str, a: sp.Rational, tau: sp.Rational,
                     x: sp.Rational):
    """:func:`rdp_to_epsilon` (x = delta) or :func:`rdp_to_delta` (x = eps) as an Arb ball at
    the current precision, from the exact rationals (Mironov 2017, Prop. 3; Balle et al. 2020,
    Thm. 21)."""
    from flint import arb

    A, t, X = (arb(fmpq(int(r.p), int(r.q))) for r in (a, tau, x))
    bal = method != "mironov"
    if kind == "epsilon":
        e = t - ((X * A).log() if bal else X.log()) / (A - 1)
        return e + ((A - 1) / A).log() if bal else e
    s = (A - 1) * (t - X + ((A - 1) / A).log()) - A.log() if bal else (A - 1) * (t - X)
    return s.exp()


def _with_prec(prec: int, fn: Callable, *args):
    with arb_precision(prec):
        return fn(*args)


def _numeric(notion: Notion, owner: str) -> None:
    """Refuse a guarantee with free symbols where a number is computed, naming the parameter
    that holds them (``_param_names``: the names of the notion's ``args``)."""
    for name, value in zip(notion._param_names, notion.args, strict=True):
        if isinstance(value, sp.Dict) and all(x.is_Number for kv in value.args for x in kv.args):
            continue  # a curve on finitely many orders with numeric bounds
        if value.free_symbols:
            syms = ", ".join(sorted(map(str, value.free_symbols)))
            raise InvalidParameter(name, value, "a number for a numeric conversion", owner,
                                   f"substitute values for the symbols {syms} first "
                                   "(.subs)")


def _covers(r: RDP, a: sp.Expr) -> bool:
    if isinstance(r.curve, sp.Dict):
        return a in r.curve
    return (a < r.omega) is sp.true or r.omega is sp.oo


def _minimise(f: Callable, omega: sp.Expr):
    """argmin of f over a in (1, omega): geometric scan of a - 1, then golden section. A point
    where f fails or is not a finite real number counts as +oo."""
    def safe(a):
        try:
            v = f(a)
            if v.imag != 0 or not mp.isfinite(v.real):
                return mp.inf
            return v.real
        except (ZeroDivisionError, ValueError, OverflowError, TypeError, AttributeError):
            return mp.inf

    top = mp.mpf(10) ** 6 if omega is sp.oo else mp.mpf(sp.N(omega, 30)) - 1
    lo = min(mp.mpf(10) ** -4, top / 1000)
    n = 400
    xs = [lo * (top / lo) ** (mp.mpf(k) / n) for k in range(n + 1)]
    xs = [x for x in xs if 1 + x < (mp.inf if omega is sp.oo else mp.mpf(sp.N(omega, 30)))]
    vals = [safe(1 + x) for x in xs]
    i = min(range(len(vals)), key=lambda k: vals[k])
    a, b = xs[max(i - 1, 0)], xs[min(i + 1, len(xs) - 1)]
    x, v = golden_section(lambda x: safe(1 + x), a, b, iters=80)
    return 1 + (x if v <= vals[i] else xs[i])
