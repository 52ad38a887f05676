"""The evaluation policy of products: every numeric question about f_1 (x) ... (x) f_n.

The routes are objects (:class:`Route`, kept in order in :data:`ROUTES`; :func:`routes_for`
says which answer a question, :func:`answer` asks them); the plan (:func:`route`) and the
routes, in order:

1. the cheap sound identities first: ``simplify`` with the registered ``eq`` rules (f (x) 0 = 0,
   f (x) Id = f, G_mu (x) G_nu = G_sqrt(mu^2+nu^2), f_{eps,0}^{(x) n} = BinomialDP(eps, n),
   ...): a product that becomes another node is evaluated as that node; then a factor whose
   value at 0 is exactly 0 is Zero (a trade-off function is convex and non-increasing) and
   absorbs the product, and Id factors drop out;
2. finite objects compose exactly (numeric.finite.finite_loss: f_{eps,delta}, Discrete,
   PiecewiseLinear, BinomialDP and their products) while the exact product stays small
   (``FiniteLoss.cost``);
3. the privacy-loss-distribution engine (numeric.pld), an enclosure from pessimistic and
   optimistic discretisations of every factor's loss, composed by FFT. Two exact rules come
   first: the f_{0,delta} parts of the factors (f_{eps,delta} = f_{eps,0} (x) f_{0,delta},
   Dong, Roth & Su, Eq. (10); f_{0,d1} (x) f_{0,d2} = f_{0,D} with 1 - D = (1 - d1)(1 - d2),
   Eq. (11)) are taken out by Eq. (12)::

       (f (x) f_{0,D})(alpha) = (1 - D) f(alpha/(1 - D)) for alpha <= 1 - D, 0 beyond,
       delta_{f (x) f_{0,D}}(eps) = D + (1 - D) delta_f(eps),

   so that the rest (often a single closed-form factor) is evaluated as tightly as alone; at
   alpha = 0, (f (x) g)(0) = f(0) g(0) (the test of size 0 rejects exactly where P x P' = 0;
   Def. 5), at alpha = 1 the value is 0. Options (tolerance, grid, progress bar):
   numeric.pld.pld_options.

The symmetric hull of a product takes the larger of its two directions' profiles (below).
This module sits above the nodes and the rewrite layer: it is the one place where a product
meets the rules before any numeric composition; the node classes know nothing of it.
"""

from __future__ import annotations

import math

from sympy import Integer, Rational

from ..core.errors import NoClosedForm, TradeOffError
from ..core.node import TradeOff
from ..families.trivial import Id, Zero
from ..numeric import budget, pld, trace
from ..numeric.context import mp
from ..numeric.finite import finite_loss
from ..numeric.privacy_loss import privacy_loss
from ..numeric.protocol import (
    arb_value,
    exact_value,
    mp_curve,
    mp_delta,
    mp_epsilon,
    mp_roc,
    mp_value,
    num,
)
from ..numeric.value import CertifiedPair
from ..operators.maxgroup import closed_by_rules
from ..operators.tensor import Tensor, TensorPower
from ..operators.unary import Inverse, SymmetricHull, hull_route
from ..rewrite.simplify import simplify

__all__ = ["route", "pld_leaves", "pld_delta", "pld_epsilon", "pld_value", "hull_directions"]


def pld_leaves(f: TradeOff) -> tuple | None:
    """``((leaf, n), ...)``: the factors of a product with their multiplicities (flattening
    Tensor and TensorPower with integer exponents; factors equal to Id by a registered
    identity are dropped), or None for a symbolic exponent."""
    acc: dict = {}

    def walk(g, mult: int) -> bool:
        if isinstance(g, Tensor):
            return all(walk(x, mult) for x in g.factors)
        if isinstance(g, TensorPower):
            if not isinstance(g.n, Integer):
                return False
            return walk(g.base, mult * int(g.n))
        h = closed_by_rules(g) if g != Id else Id
        if h is None and any(isinstance(x, TradeOff) for x in g.args):
            h = _as_epsdelta(g)
        if h == Id:  # an identity factor (Mix(f, 0), G(0), ...)
            return True
        if h is not None:  # a simpler equal node (Symmetrize of a symmetric f, ...)
            return walk(h, mult)
        acc[g] = acc.get(g, 0) + mult
        return True

    if not walk(f, 1):
        return None
    return tuple(sorted(acc.items(), key=lambda kv: str(kv[0])))


def _as_epsdelta(g):
    """f_{0,d} when the operator node g is exactly max{1 - d - alpha, 0} (its exact knots are
    (0, 1 - d), (1 - d, 0), (1, 0)), else None: such a factor then enters a product by Eq. (12)
    instead of through a grid (C_p of a pair whose only difference is singular mass is one)."""
    from ..families.epsdelta import EpsDelta
    from ..numeric.knots_eval import pl_knots_cached

    try:
        k = pl_knots_cached(g)
    except TradeOffError:
        return None
    if k is None or len(k) != 3 or any(not isinstance(v, Rational) for kn in k for v in kn):
        return None
    (x0, y0), (x1, y1), (x2, y2) = k
    if x0 == 0 and y1 == 0 and x2 == 1 and y2 == 0 and x1 == y0 and 0 < x1 < 1:
        return EpsDelta(0, 1 - x1)
    return None


def _product(leaves) -> TradeOff:
    """The product node of ``((leaf, n), ...)`` (Id for none)."""
    return Tensor(*[leaf if n == 1 else TensorPower(leaf, n) for leaf, n in leaves])


def _finite(f):
    """The exact finite loss of f when f is finite and its exact product stays small (at most
    ``numeric.finite.MAX_COST`` elementary products), else None."""
    fl = finite_loss(f)
    return fl if fl is not None and fl.affordable() else None


def _is_zero_function(f) -> bool:
    """Is f certainly the zero trade-off function? (f(0) = 0 exactly: f is convex and
    non-increasing on [0, 1], so it vanishes everywhere.)"""
    if f == Zero:
        return True
    if f.free_symbols:
        return False
    try:
        return exact_value(f, Integer(0), Integer(1)) == 0
    except Exception:  # noqa: BLE001 - only a shortcut: any doubt keeps the product
        return False


def _float_bracket(x):
    """Floats (down, up) with down <= x <= up for an mpf x."""
    v = float(x)
    if mp.mpf(v) == x:
        return v, v
    return (math.nextafter(v, -math.inf), v) if mp.mpf(v) > x else (v, math.nextafter(v, math.inf))


_ROUTES: dict = {}


def route(f):
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
    g = simplify(f)
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


def _keep(deltas):
    """(1 - D, D) with 1 - D = prod (1 - delta_i)^{n_i} (Eq. (11)), mpf at the current
    precision (plus guard bits), each side with full relative accuracy."""
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
    if a >= keep:
        return None
    with mp.workprec(mp.prec + 10):
        rest = ac - D if D <= a else keep - a  # 1 - D - alpha, the operands summing less
        return a / keep, max(rest, mp.zero) / keep


def _at_zero(leaves, power: bool):
    """(f_1 (x) ... )(0) = prod f_i(0)^{n_i} (or its complement) as an enclosure: the test of
    size 0 rejects where P x P' = 0, whose Q x Q'-mass is 1 - prod (1 - Q_i(P_i = 0))^{n_i}
    (Dong, Roth & Su, Def. 5). A point when every f_i(0) is one (computed with guard bits)."""
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


#: Leaves whose total variation adds up to at most this are bounded out of a product: the
#: sandwich is then far narrower than a privacy-loss grid resolves (~1e-6 relative).
NEGLIGIBLE = 1e-13


def _negligible(leaves):
    """Split off the family leaves that are Id to the working precision or nearly: f >=
    f_{0, TV(f)} (TV = delta(0), Prop. 6), so f^{(x) n} >= f_{0, D} with D = 1 - (1 - TV)^n
    <= n TV; when that is below 2^-(prec + 10), or below :data:`NEGLIGIBLE`, the product lies
    between rest (x) f_{0,D} and rest (f (x) g <= g), an enclosure at most D wide. Returns
    (rest, D) or None (G_mu with mu ~ 1e-272 inside a product has privacy losses far below
    any grid)."""
    tiny = max(mp.ldexp(1, -(mp.prec + 10)), mp.mpf(NEGLIGIBLE))
    rest, D = [], mp.zero
    for leaf, n in leaves:
        t = _tv_bound(leaf)
        if t is not None and n * t <= tiny:
            D += n * t
            continue
        rest.append((leaf, n))
    return (rest, D) if len(rest) < len(leaves) else None


def _tv_bound(f):
    """An upper bound of TV(f) = delta_f(0) (Prop. 6) from the structure, or None: a family's
    own delta(0); p TV(g) for f_p and C_p(g) (the mixture moves mass p); TV(g) for the
    inverse, the symmetrisations and the hull (their profiles at 0 are TV(g)); k TV(g) for
    the group (triangle inequality); the smaller for a maximum (it lies above both)."""
    from ..operators.maxgroup import Group, Max
    from ..operators.subsample import Mix, Subsample
    from ..operators.unary import Symmetrize

    if not any(isinstance(x, TradeOff) for x in f.args):
        return mp_delta(f, mp.zero)[1] if f.args else None
    if isinstance(f, (Mix, Subsample)):
        t = _tv_bound(f.arg)
        return None if t is None else min(mp.mpf(num(f.p, "p")) * t, mp.one)
    if isinstance(f, (Inverse, Symmetrize, SymmetricHull)):
        return _tv_bound(f.args[0])
    if isinstance(f, Group) and isinstance(f.args[1], Integer):
        t = _tv_bound(f.args[0])
        return None if t is None else min(int(f.args[1]) * t, mp.one)
    if isinstance(f, Max):
        ts = [t for t in map(_tv_bound, f.args) if t is not None]
        return min(ts) if ts else None
    return None


def _negligible_value(rest, D, a, ac, power: bool):
    """rest (x) f_{0,D} <= product <= rest (Eq. (12); D a bound on the negligible leaves'
    f_{0,delta} part)."""
    keep = 1 - D
    if not rest:  # f_{0,D} <= product <= Id: the power lies in [alpha, alpha + D]
        return (a, min(a + D, mp.one)) if power else (max(ac - D, mp.zero), ac)
    g = _product(rest)
    lvl = _scaled_level(a, ac, keep, D)
    if power:
        r_lo = mp_roc(g, a, ac)[0]
        r_hi = mp.one if lvl is None else D + keep * mp_roc(g, *lvl)[1]
        return r_lo, min(r_hi, mp.one)
    v_hi = mp_value(g, a, ac)[1]
    v_lo = mp.zero if lvl is None else keep * mp_value(g, *lvl)[0]
    return v_lo, v_hi


def _pld_value_at(leaves, a, ac, power: bool):
    """Value (or power) of the product of ``leaves`` by the engine: exactly at 0 and 1, by the
    factor bound where the value lies far below what the engine resolves, else the engine's
    enclosure (intersected with the factor bound when that is tighter)."""
    if a == 0:
        return _at_zero(leaves, power)
    if ac == 0:
        return (mp.one, mp.one) if power else (mp.zero, mp.zero)
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


# -- the routes: objects that say whether they answer, at what cost, and answer ---------------
#: The questions a route may answer about a product: f(alpha) and 1 - f(alpha) (args a, ac),
#: delta(eps), eps(delta), the exact rational value (A, Ac), an Arb ball (a, ac, power).
QUESTIONS = ("value", "roc", "delta", "epsilon", "exact", "ball")


class Route:
    """One way to answer a numeric question about a product (the manner of dp_accounting's
    ``supports(event)``): :meth:`supports` runs the same traversal as :meth:`enclose` without
    computing, :meth:`cost` orders the routes that support a question (smaller first), and
    :meth:`enclose` (of the product ``f`` and its plan, :func:`route`) answers with an
    enclosure pair (a :class:`CertifiedPair` when proved), a rational for ``exact``, a ball
    for ``ball``, None (no direct answer: the caller's generic route, e.g. the bracketing
    search of eps(delta) on delta), or :data:`PASS` to hand the question to the next route."""

    name: str = ""
    questions: tuple[str, ...] = ()

    def supports(self, plan: tuple, question: str) -> bool:
        return question in self.questions

    def cost(self, plan: tuple, question: str) -> float:
        return 0.0

    def enclose(self, f, plan: tuple, question: str, *args):  # pragma: no cover - abstract
        raise NotImplementedError


#: What :meth:`Route.enclose` returns to hand a question to the next route.
PASS = object()

_NODE_POINTS = {"value": mp_value, "roc": mp_roc, "delta": mp_delta, "epsilon": mp_epsilon,
                "exact": exact_value, "ball": arb_value}


class ClosedRoute(Route):
    """Step 1: the rules closed the product into another node; that node answers."""

    name = "closed by the rules"
    questions = QUESTIONS

    def supports(self, plan, question):
        return plan[0] == "node"

    def enclose(self, f, plan, question, *args):
        return _NODE_POINTS[question](plan[1], *args)


class FiniteRoute(Route):
    """Step 2: a finite product, composed exactly (``numeric.finite``)."""

    name = "exact finite composition"
    questions = ("value", "roc", "delta", "epsilon", "exact")

    def supports(self, plan, question):
        return plan[0] == "finite" and question in self.questions

    def cost(self, plan, question):
        return float(plan[1].cost())

    def enclose(self, f, plan, question, *args):
        fl = plan[1]
        return {"value": fl.mp_value, "roc": fl.mp_roc, "delta": fl.mp_delta,
                "epsilon": fl.mp_epsilon, "exact": fl.value}[question](*args)


class NegligibleRoute(Route):
    """Leaves whose total variation is below what any grid resolves, bounded out
    (:func:`_negligible`): the product lies between rest (x) f_{0,D} and rest."""

    name = "negligible factors bounded out"
    questions = ("value", "roc", "delta", "epsilon")

    def supports(self, plan, question):
        return (plan[0] == "pld" and question in self.questions
                and _negligible(plan[1]) is not None)

    def enclose(self, f, plan, question, *args):
        rest, D = _negligible(plan[1])
        if question == "epsilon":
            return _negligible_epsilon(rest, D, *args)
        if question == "delta":  # delta_rest <= delta <= D + (1 - D) delta_rest
            if not rest:
                return mp.zero, min(D, mp.one)
            lo, hi = mp_delta(_product(rest), *args)
            return lo, min(D + (1 - D) * hi, mp.one)
        return _negligible_value(rest, D, *args, question == "roc")


class DeltaPartRoute(Route):
    """The f_{0,delta} parts of the factors taken out exactly by Eq. (12) (Dong, Roth & Su):
    ``(f (x) f_{0,D})(alpha) = (1 - D) f(alpha/(1 - D))``, ``delta = D + (1 - D) delta_f``."""

    name = "f_{0,delta} parts by Eq. (12)"
    questions = ("value", "roc", "delta", "exact")

    def supports(self, plan, question):
        return (plan[0] == "pld" and question in self.questions
                and bool(pld.split_trivial(plan[1])[1]))

    def enclose(self, f, plan, question, *args):
        rest, deltas = pld.split_trivial(plan[1])
        if question == "exact":
            return _exact_delta_part(rest, deltas, *args)
        keep, D = _keep(deltas)
        g = _product(rest)
        if question == "delta":
            lo, hi = mp_delta(g, *args)
            return D + keep * lo, D + keep * hi
        a, ac = args
        lvl = _scaled_level(a, ac, keep, D)
        power = question == "roc"
        if lvl is None:  # alpha >= 1 - D: f (x) f_{0,D} vanishes there
            return (mp.one, mp.one) if power else (mp.zero, mp.zero)
        if power:  # 1 - (1 - D) f(a') = D + (1 - D)(1 - f(a'))
            lo, hi = mp_roc(g, *lvl)
            return D + keep * lo, D + keep * hi
        lo, hi = mp_value(g, *lvl)
        return keep * lo, keep * hi


def _exact_delta_part(rest, deltas, A, Ac):
    """The exact value of rest (x) f_{0,D} by Eq. (12) for rational deltas, or None."""
    if any(not d.is_Rational or n > 64 for d, n in deltas):
        return None
    keep = 1
    for d, n in deltas:
        keep *= (1 - d) ** n
    if A >= keep:
        return A * 0
    v = exact_value(_product(rest), A / keep, (keep - A) / keep)
    return None if v is None else keep * v


class InversionRoute(Route):
    """The certified Laplace inversion of the composed moment generating function
    (``numeric.cf``): subsampled Gaussian steps with Gaussian factors (:func:`_cf_enclosure`)."""

    name = "certified Laplace inversion"
    questions = ("delta", "epsilon")

    def supports(self, plan, question):
        return (plan[0] == "pld" and question in self.questions
                and _cf_laws([plan[1]]) is not None)

    def cost(self, plan, question):
        return 1.0

    def enclose(self, f, plan, question, arg):
        with budget.about(question, f):
            r = _cf_enclosure([plan[1]], arg, question)
        return PASS if r is None else r


class PLDRoute(Route):
    """The privacy-loss-distribution engine (``numeric.pld``): pessimistic and optimistic
    discretisations of every factor's loss composed by FFT, refined to the tolerance."""

    name = "privacy-loss distribution"
    questions = ("value", "roc", "delta", "epsilon")

    def supports(self, plan, question):
        return plan[0] == "pld" and question in self.questions

    def cost(self, plan, question):
        return 10.0

    def enclose(self, f, plan, question, *args):
        leaves = plan[1]
        with budget.about(question, f):
            if question == "delta":
                return pld_delta([leaves], *args, inversion=False)
            if question == "epsilon":
                return pld_epsilon([leaves], *args, inversion=False)
            return _pld_value_at(leaves, *args, question == "roc")


#: The routes of a product, in order; the policy takes the cheapest that supports a question
#: (the order breaks ties) and passes on to the next when a route answers None.
ROUTES: list[Route] = [ClosedRoute(), FiniteRoute(), NegligibleRoute(), DeltaPartRoute(),
                       InversionRoute(), PLDRoute()]


def routes_for(f, question: str) -> list[Route]:
    """The routes that support ``question`` about the product ``f``, in the order tried."""
    if question not in QUESTIONS:
        raise ValueError(f"question must be one of {QUESTIONS}, not {question!r}")
    plan = route(f)
    ok = [r for r in ROUTES if r.supports(plan, question)]
    return sorted(ok, key=lambda r: r.cost(plan, question))


def answer(f, question: str, *args):
    """The answer of the first route of :func:`routes_for` that does not :data:`PASS` (None
    when none supports the question)."""
    plan = route(f)
    for r in routes_for(f, question):
        out = r.enclose(f, plan, question, *args)
        if out is not PASS:
            if out is not None:
                trace.note(r.name)
            return out
    return None


def _register_tensor_numerics() -> None:
    for cls in (Tensor, TensorPower):
        arb_value.register(cls)(lambda f, a, ac, power: answer(f, "ball", a, ac, power))
        exact_value.register(cls)(lambda f, A, Ac: answer(f, "exact", A, Ac))
        mp_value.register(cls)(lambda f, a, ac: answer(f, "value", a, ac))
        mp_roc.register(cls)(lambda f, a, ac: answer(f, "roc", a, ac))
        mp_delta.register(cls)(lambda f, eps: answer(f, "delta", eps))
        mp_epsilon.register(cls)(lambda f, d: answer(f, "epsilon", d))


def _refinements(leaf_sets, arg, kind: str) -> list:
    """PLD refinements of delta(eps) (kind 'delta') or eps(delta) ('epsilon') at the exact
    argument ``arg`` (an mpf, bracketed by floats) for each product in ``leaf_sets``."""
    o = pld.options()
    dn, up = _float_bracket(arg)
    make = pld.delta_refinement if kind == "delta" else pld.epsilon_refinement
    return [make(leaves, dn, up, o["h"], o["tail"], o["progress"]) for leaves in leaf_sets]


def _cf_laws(leaf_sets) -> list | None:
    """The products as lists of (law, n) for the Laplace inversion (numeric.cf: the Arb views of
    the factors' privacy losses), or None when a factor has no law there, an f_{0,delta} part,
    a fixed grid step was asked for, or every law is closed under the tensor product (such
    products have closed forms)."""
    if pld.options()["h"] is not None:
        return None
    out = []
    for leaves in leaf_sets:
        rest, deltas = pld.split_trivial(pld._check_leaves(leaves))
        specs = [(_law(f), n) for f, n in rest]
        if deltas or not specs or any(s is None for s, _ in specs):
            return None
        out.append(specs)
    if all(law.closed_under_tensor for specs in out for law, _ in specs):
        return None
    return out


def _law(f):
    pl = privacy_loss(f)
    return None if pl is None else pl.law()


def _cf_enclosure(leaf_sets, arg, kind: str):
    """The certified Laplace inversion's enclosure (mpf lo, hi) of the quantity of
    :func:`pld_delta` / :func:`pld_epsilon`, or None (the PLD engine answers): subsampled
    Gaussian steps with Gaussian factors, where it reaches widths of 1e-9 and below in tens of
    milliseconds (Fourier inversion of the composed moment generating function on a certified
    trapezoidal rule, numeric.cf)."""
    sets = _cf_laws(leaf_sets)
    if sets is None or arg == mp.inf:
        return None
    from ..numeric import cf

    dn, up = _float_bracket(arg)
    r = cf.route_enclosure(sets, kind, dn, up, pld.options()["tol"])
    if r is None:
        return None
    trace.note(InversionRoute.name)
    return CertifiedPair(mp.mpf(r[0]), mp.mpf(r[1]))  # Arb-proved


def pld_delta(leaf_sets: list, eps, inversion: bool = True):
    """Enclosure (mpf lo, hi) of ``max_i delta_i(eps)`` over the products in ``leaf_sets`` (one
    product, or the two directions of a symmetric hull) by the PLD engine, refined to the
    relative tolerance of ``pld_options`` (or by the Laplace inversion, :func:`_cf_enclosure`,
    where it applies)."""
    o = pld.options()
    r = _cf_enclosure(leaf_sets, eps, "delta") if inversion else None
    if r is not None:
        return r
    if eps == mp.inf:  # delta(oo) = Q(L = +oo), carried exactly enough by both sides
        cs = [pld._composed(pld._check_leaves(x), o["h"] or pld.H_START, o["tail"], 0.0,
                            o["progress"]) for x in leaf_sets]
        return mp.mpf(max(c.opt.inf for c in cs)), mp.mpf(max(c.pess.inf for c in cs))
    lo, hi = pld.max_enclosure(_refinements(leaf_sets, eps, "delta"), o["tol"])
    trace.note(PLDRoute.name)
    return mp.mpf(lo), mp.mpf(hi)


def pld_epsilon(leaf_sets: list, d, inversion: bool = True):
    """Enclosure (mpf lo, hi) of ``max_i eps_i(d)`` over the products in ``leaf_sets``
    (``inversion``: the Laplace inversion first, where it applies)."""
    r = _cf_enclosure(leaf_sets, d, "epsilon") if inversion else None
    if r is not None:
        return r
    lo, hi = pld.max_enclosure(_refinements(leaf_sets, d, "epsilon"), pld.options()["tol"])
    trace.note(PLDRoute.name)
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
    o = pld.options()
    dn, up = _float_bracket(a)
    r = pld.value_refinement(leaf_sets, dn, up, power, o["h"], o["tail"], o["progress"])
    lo, hi = pld.max_enclosure([r], o["tol"])
    trace.note(PLDRoute.name)
    return mp.mpf(lo), mp.mpf(hi)


def pld_hull_value(f, a, power: bool):
    """:func:`pld_value` of ``f = SymmetricHull(g)`` for a product g (its two directions), or
    None when f is not such a hull."""
    dirs = hull_directions(f)
    return None if dirs is None else pld_value(dirs, a, power)


def _hull_route(g, f, kind: str, x):
    """The PLD route of ``f = SymmetricHull(g)`` for a product g: the larger of the profiles of
    its two directions (``kind`` "delta"), or the hull's value or power at alpha = x."""
    if kind == "delta":
        dirs = hull_directions(f)
        return None if dirs is None else pld_delta(list(dirs), x)
    return pld_hull_value(f, x, kind == "roc")


hull_route.register(Tensor)(_hull_route)
hull_route.register(TensorPower)(_hull_route)


# -- epsilon(delta) of products and of their symmetric hulls --------------------------------------
def _negligible_epsilon(rest, D, d):
    """delta_rest <= delta <= D + (1 - D) delta_rest (:func:`_negligible`), hence
    eps_rest(d) <= eps(d) <= eps_rest((d - D) / (1 - D)); None (the generic search on
    ``mp_delta``) when the rest has no direct eps route or d is not above D."""
    if not rest or d <= D:
        return None
    g = _product(rest)
    lo = mp_epsilon(g, d)
    hi = None if lo is None else mp_epsilon(g, (d - D) / (1 - D))
    return None if hi is None else (lo[0], hi[1])


@mp_epsilon.register(SymmetricHull)
def _(f, d):
    """eps_C(delta) = the larger of the two directions' (delta_C is the larger profile)."""
    dirs = hull_directions(f)
    if dirs is None:
        return mp_epsilon(f.arg, d) if f.arg.is_symmetric is True else None
    with budget.about("epsilon", f):
        return pld_epsilon(list(dirs), d)


# -- whole curves: one composed grid for every level -----------------------------------------
def _curve_of(leaf_sets, x):
    o = pld.options()
    return pld.curve_enclosure(leaf_sets, x, o["tail"], o["tol"], o["progress"])


def _product_curve(f, x):
    kind, obj = route(f)
    return _curve_of([obj], x) if kind == "pld" else None


mp_curve.register(Tensor)(_product_curve)
mp_curve.register(TensorPower)(_product_curve)


@mp_curve.register(SymmetricHull)
def _(f, x):
    dirs = hull_directions(f)
    return None if dirs is None else _curve_of(list(dirs), x)
