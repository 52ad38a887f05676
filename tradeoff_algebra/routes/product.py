"""The evaluation policy of products: every numeric question about f_1 (x) ... (x) f_n.

The routes are objects (:class:`Route`, kept in order in :data:`ROUTES`; :func:`routes_for`
says which answer a question, :func:`answer` asks them) that answer from the product's plan
(:mod:`.plan`: the identities first, the finite objects, the leaves), in order:

1. the product closed by the rules (the plan's node);
2. exact finite composition (the exact views of the factors' privacy losses) while the exact
   product stays small;
3. factors negligible next to the rest, bounded out;
4. the f_{0,delta} parts of the factors (f_{eps,delta} = f_{eps,0} (x) f_{0,delta}, Dong,
   Roth & Su, Eq. (10); f_{0,d1} (x) f_{0,d2} = f_{0,D} with 1 - D = (1 - d1)(1 - d2),
   Eq. (11)) taken out by Eq. (12)::

       (f (x) f_{0,D})(alpha) = (1 - D) f(alpha/(1 - D)) for alpha <= 1 - D, 0 beyond,
       delta_{f (x) f_{0,D}}(eps) = D + (1 - D) delta_f(eps),

   so that the rest (often a single closed-form factor) is evaluated as tightly as alone; at
   alpha = 0, (f (x) g)(0) = f(0) g(0) (the test of size 0 rejects exactly where P x P' = 0;
   Def. 5), at alpha = 1 the value is 0;
5. finite pairs with lattice losses composed in Arb (``numeric.lattice_power``,
   ``numeric.lattice_tilted``: one lattice; ``numeric.lattice_two``: two incommensurate
   lattices, f_{1/10,0}^n next to RR(log 3, 5)^n), and the exact lattice composition of factors
   whose losses share a lattice of small denominator (``numeric.lattice_product``: discrete
   Gaussians with rational sigma_i^2 of a common denominator), certified;
6. the certified Laplace inversion and 7. the privacy-loss distribution engine
   (:mod:`.engines`). Options (tolerance, grid, progress bar): numeric.pld.pld_options.

This package sits above the nodes and the rewrite layer: it is the one place where a product
meets the rules before any numeric composition; the node classes know nothing of it.
"""

from __future__ import annotations

from flint import arb
from mpmath.libmp import round_ceiling, round_floor
from sympy import Integer

from ..core import trace
from ..core.node import TradeOff
from ..numeric import budget, pld
from ..numeric.arb import arb_endpoint, arb_exact
from ..numeric.arb_expr import arb_ball
from ..numeric.context import arb_precision, mp
from ..numeric.lattice_product import LATTICE_PRODUCT, LatticeProduct, lattice_factor
from ..numeric.lattice_two import TWO_LATTICES, two_lattice_enclosure, two_lattice_product
from ..numeric.protocol import (
    GUARD_DPS,
    arb_value,
    exact_ends,
    exact_value,
    mp_delta,
    mp_epsilon,
    mp_roc,
    mp_value,
    num,
)
from ..numeric.value import CertifiedPair
from ..operators.tensor import Tensor, TensorPower
from ..operators.unary import Inverse, SymmetricHull
from .engines import (
    INVERSION,
    PLD,
    _cf_enclosure,
    _cf_laws,
    certified_delta_part,
    largest_loss,
    lattice_enclosure,
    pld_delta,
    pld_epsilon,
    pld_value,
    zero_above_largest_loss,
)
from .plan import _product, lattice_power, pld_leaves, route

__all__ = ["Route", "ROUTES", "PASS", "QUESTIONS", "routes_for", "answer", "route", "pld_leaves"]


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
    #: True for a route whose enclose notes its own name where it computes (its answer may
    #: come from a part with a name of its own); else :func:`answer` notes ``name``.
    notes_itself: bool = False

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
    questions = ("value", "roc", "delta", "exact", "ball")

    def supports(self, plan, question):
        return (plan[0] == "pld" and question in self.questions
                and bool(pld.split_trivial(plan[1])[1]))

    def enclose(self, f, plan, question, *args):
        rest, deltas = pld.split_trivial(plan[1])
        if question == "exact":
            return _exact_delta_part(rest, deltas, *args)
        if question == "ball":
            return _ball_delta_part(rest, deltas, *args)
        keep, D = _keep(deltas)
        g = _product(rest)
        if question == "delta":
            r = mp_delta(g, *args)
            proved = certified_delta_part(deltas, r)  # (a proved r stays proved, in Arb)
            if proved is not None:
                return proved
            lo, hi = r
            return D + keep * lo, D + keep * hi
        a, ac = args
        lvl = _scaled_level(a, ac, keep, D)
        power = question == "roc"
        if lvl is None:  # alpha >= 1 - D: f (x) f_{0,D} vanishes there
            return (mp.one, mp.one) if power else (mp.zero, mp.zero)
        r = (mp_roc if power else mp_value)(g, *lvl)
        if isinstance(r, CertifiedPair):  # g's answer proved: keep the proof through Eq. (12)
            proved = _certified_scaled(g, deltas, a, power)
            if proved is not None:
                return proved
        lo, hi = r
        if power:  # 1 - (1 - D) f(a') = D + (1 - D)(1 - f(a'))
            return D + keep * lo, D + keep * hi
        return keep * lo, keep * hi


def _certified_scaled(g, deltas, a, power: bool) -> CertifiedPair | None:
    """Eq. (12) proved: (g (x) f_{0,D})(alpha) = K g(alpha/K) with K = 1 - D = prod (1 -
    delta_i)^{n_i} a ball, and the power D + K (1 - g(alpha/K)) = 1 - K g(alpha/K). The level
    alpha/K is a ball [a1, a2] (mpf ends rounded outward); g is non-increasing in alpha (its
    power non-decreasing), so g(a2) <= g(alpha/K) <= g(a1): the ends from g's certified answers
    (CertifiedPairs) at a2 and a1, combined with K in Arb and rounded outward. None where K is
    not decided below alpha's complement or g does not prove both ends."""
    with arb_precision(mp.prec + 64):
        K = arb(1)
        for d, n in deltas:
            K *= arb_ball(1 - d) ** int(n)
        lvl = arb_exact(a) / K
        if not lvl < 1:
            return None
        a1 = arb_endpoint(lvl.lower(), round_floor)
        a2 = arb_endpoint(lvl.upper(), round_ceiling)
    ends = []
    for x in (a1, a2):
        r = (mp_roc if power else mp_value)(g, x, mp.fsub(1, x, exact=True))
        if not isinstance(r, CertifiedPair):
            return None
        ends.append(r)
    with arb_precision(mp.prec + 64):
        if power:  # non-decreasing: [roc(a1).lo, roc(a2).hi]; 1 - K (1 - r)
            lo = 1 - K * (1 - arb_exact(ends[0][0]))
            hi = 1 - K * (1 - arb_exact(ends[1][1]))
        else:  # non-increasing: [g(a2).lo, g(a1).hi]; K g
            lo = K * arb_exact(ends[1][0])
            hi = K * arb_exact(ends[0][1])
        return CertifiedPair(max(arb_endpoint(lo.lower(), round_floor), mp.zero),
                             min(arb_endpoint(hi.upper(), round_ceiling), mp.one))


def _ball_delta_part(rest, deltas, a, ac, power: bool):
    """Eq. (12) in Arb: (rest (x) f_{0,D})(alpha) = (1 - D) g(alpha/(1 - D)) (0 beyond
    alpha = 1 - D), its power D + (1 - D)(1 - g(.)), from g's ball at the scaled level; None
    where g has no ball form or alpha = 1 - D is not decided."""
    from flint import arb

    from ..numeric.arb_expr import arb_ball

    keep = arb(1)
    for d, n in deltas:
        keep *= arb_ball(1 - d) ** int(n)
    if a >= keep:
        return arb(1) if power else arb(0)
    if not a < keep:
        return None
    v = arb_value(_product(rest), a / keep, (keep - a) / keep, power)
    if v is None:
        return None
    return 1 - keep + keep * v if power else keep * v


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


_LATTICE_PRODUCTS: dict = {}


def lattice_product(leaves) -> LatticeProduct | None:
    """The lattice product (``numeric.lattice_product``) of ``leaves`` when every factor has a
    lattice view (``lattice_factor``) and their steps share a denominator up to
    ``MAX_DENOMINATOR``, else None (cached: it keeps its roots)."""
    key = tuple(leaves)
    if key not in _LATTICE_PRODUCTS:
        views = [(lattice_factor(f), n) for f, n in leaves]
        out = None
        if all(v is not None for v, _ in views):
            out = LatticeProduct.build(views)
        if len(_LATTICE_PRODUCTS) > 8:  # (each keeps up to three roots)
            _LATTICE_PRODUCTS.clear()
        _LATTICE_PRODUCTS[key] = out
    return _LATTICE_PRODUCTS[key]


class LatticeProductRoute(Route):
    """Products of factors with losses on one lattice of small denominator, composed exactly
    in integers (``numeric.lattice_product``): discrete Gaussians with rational sigma_i^2.
    A lattice whose root window would exceed ``MAX_WINDOW`` points (sigma_i^2 = (10 + i/10)^2:
    denominators that grow with every factor) is not offered: the former routes answer."""

    name = LATTICE_PRODUCT
    questions = ("delta", "epsilon")
    notes_itself = True  # (a family's shortcut for the whole product answers under its name)

    def supports(self, plan, question):
        if plan[0] != "pld" or question not in self.questions:
            return False
        lp = lattice_product(plan[1])
        return lp is not None and lp.fits()

    def cost(self, plan, question):
        return 0.4

    def enclose(self, f, plan, question, arg):
        # the caller's digits (the working precision less its guard digits), and one more
        rel = 10.0 ** -max(mp.dps - GUARD_DPS + 1, 4)
        with budget.about(question, f):
            try:
                with trace.recording() as names:
                    out = lattice_product(plan[1]).enclosure(question, arg, rel)
            except (OverflowError, ZeroDivisionError):  # (its float plan overflowed: a tilt
                return PASS  # far out in an unbounded factor's tail; the next route answers)
        if not names:  # (the tree and a shortcut name themselves; a grid product does not)
            trace.note(self.name)
        return out


class EndsRoute(Route):
    """The exact value of a product at alpha = 0 from its factors' exact ends
    (``numeric.protocol.exact_ends``, the operators' rules in ``operators.ends``):
    ``(f_1 (x) ... (x) f_k)(0) = prod f_i(0)`` (Dong, Roth & Su, Def. 5). Why: the test of size
    0 of the product rejects at most where P_1 x ... x P_k = 0, i.e. where some P_i = 0, and the
    most powerful such test rejects all of it; its power is the Q-mass of that set, 1 - prod
    (1 - Q_i(P_i = 0)) = 1 - prod f_i(0), because f_i(0) = 1 - Q_i(P_i = 0) for each factor (the
    same argument for one pair). So a product of factors each with f_i(0) = 1 (no outcome with
    P = 0: Laplace, G_mu, RR, the discrete Gaussian, PoissonReplace, f_p, C_p, their inverses)
    has f(0) = 1 exactly; f(1) = 0 always (Prop. 1). Tried first for any plan (a finite table or
    a closed node may have no rational value at 0: f_{1,1/10}^3, f_{1,0}^5); a certified ball
    where a factor's end is one; PASS where a factor has neither or the rational is large."""

    name = "f(0) = prod f_i(0) (Def. 5)"
    questions = ("exact", "ball")

    def supports(self, plan, question):
        return question == "exact" or (question == "ball" and plan[0] == "pld")

    def enclose(self, f, plan, question, *args):
        if question == "ball":  # (a factor's end only as an Arb ball: f_p with p irrational)
            return _ends_ball(plan[1], *args)
        if args[0] != 0:
            return PASS
        q = exact_ends(f)[0]
        return PASS if q is None else q


def _ends_ball(leaves, a, ac, power: bool):
    """The ball prod f_i(0)^{n_i} (power: 1 minus it) of the factors' Arb balls at alpha = 0
    (:class:`EndsRoute`, Def. 5), or PASS (alpha not 0, a factor without a ball)."""
    if not a.is_zero():
        return PASS
    out = arb(1)
    for leaf, n in leaves:
        b = arb_value(leaf, a, ac, False)
        if b is None:
            return PASS
        out *= b ** n
    return 1 - out if power else out


class LossBoundRoute(Route):
    """delta(eps) = E_P[(1 - e^{eps - L})_+] = 0 once eps is at or above the largest privacy
    loss of the product (Dong, Roth & Su, Prop. 6: f_{eps,0} <= f), proved in Arb from the
    factors' largest losses (``engines.largest_loss``); below it the next route answers. (The
    PLD engine refined such a zero to its size limits: Laplace(1) (x) RR(1, 3) at eps = 5.)"""

    name = "above the largest privacy loss"
    questions = ("delta",)

    def supports(self, plan, question):
        return plan[0] == "pld" and question == "delta" and largest_loss(plan[1]) is not None

    def enclose(self, f, plan, question, eps):
        r = zero_above_largest_loss(plan[1], eps)
        return PASS if r is None else r


class InversionRoute(Route):
    """The certified Laplace inversion of the composed moment generating function
    (``numeric.cf``): subsampled Gaussian steps with Gaussian factors (:func:`_cf_enclosure`)."""

    name = INVERSION
    questions = ("delta", "epsilon")

    def supports(self, plan, question):
        return (plan[0] == "pld" and question in self.questions
                and _cf_laws([plan[1]], atoms=True) is not None)

    def cost(self, plan, question):
        return 1.0

    def enclose(self, f, plan, question, arg):
        with budget.about(question, f):
            r = _cf_enclosure([plan[1]], arg, question)
        return PASS if r is None else r


class LatticeRoute(Route):
    """A finite pair with lattice losses composed n times, in Arb (``numeric.lattice_power``:
    one power of an Arb polynomial) where the exact product would multiply huge rationals."""

    name = "Arb lattice composition"
    questions = ("delta", "epsilon")

    def supports(self, plan, question):
        # (two lattices, decided in floats, are no one lattice: the plan's proof that the
        # ratios share no base would call SymPy's simplify, 0.8 s at its first call)
        return (plan[0] == "pld" and question in self.questions
                and two_lattice_product(plan[1]) is None
                and lattice_power(plan[1]) is not None)

    def cost(self, plan, question):
        return 0.5

    def enclose(self, f, plan, question, arg):
        with budget.about(question, f):
            return lattice_enclosure(plan[1], arg, question)


class TwoLatticeRoute(Route):
    """Finite pairs whose likelihood ratios lie on two incommensurate lattices (f_{1/10,0}^n
    next to RR(log 3, 5)^n), composed as the product of the two lattices' tilted windows in Arb
    (``numeric.lattice_two``), where the exact product is not affordable."""

    name = TWO_LATTICES
    questions = ("delta", "epsilon")

    def supports(self, plan, question):
        return (plan[0] == "pld" and question in self.questions
                and two_lattice_product(plan[1]) is not None)

    def cost(self, plan, question):
        return 0.6

    def enclose(self, f, plan, question, arg):
        tol = max(min(pld.options()["tol"], 1e-10) / 4, 1e-15)  # (as the lattice route's)
        with budget.about(question, f):
            return two_lattice_enclosure(two_lattice_product(plan[1]), arg, question, tol)


class PLDRoute(Route):
    """The privacy-loss-distribution engine (``numeric.pld``): pessimistic and optimistic
    discretisations of every factor's loss composed by FFT, refined to the tolerance."""

    name = PLD
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
ROUTES: list[Route] = [EndsRoute(), ClosedRoute(), FiniteRoute(), NegligibleRoute(),
                       DeltaPartRoute(),
                       LossBoundRoute(),
                       LatticeRoute(), TwoLatticeRoute(), LatticeProductRoute(), InversionRoute(),
                       PLDRoute()]


def routes_for(f, question: str) -> list[Route]:
    """The routes that support ``question`` about the product ``f``, in the order tried."""
    if question not in QUESTIONS:
        raise ValueError(f"question must be one of {QUESTIONS}, not {question!r}")
    plan = route(f)
    with trace.recording(keep=False):  # (a route's test of its reach answers nothing: the
        # total variation of a factor, proved by its Arb profile, says it is not negligible)
        ok = [r for r in ROUTES if r.supports(plan, question)]
    return sorted(ok, key=lambda r: r.cost(plan, question))


def answer(f, question: str, *args):
    """The answer of the first route of :func:`routes_for` that does not :data:`PASS` (None
    when none supports the question)."""
    plan = route(f)
    for r in routes_for(f, question):
        with trace.recording(keep=False) as names:  # (a route that passes leaves no trace)
            out = r.enclose(f, plan, question, *args)
        if out is not PASS:
            if out is not None:
                for name in names:
                    trace.note(name)
                if not r.notes_itself:
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


_register_tensor_numerics()


# -- epsilon(delta) of products --------------------------------------------------------------------
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
