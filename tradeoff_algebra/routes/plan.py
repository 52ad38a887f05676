"""The plan of a product: its factors with multiplicities, read through the registered identities.

``route(f)`` simplifies a product with the registered ``eq`` rules (f (x) 0 = 0, f (x) Id = f,
G_mu (x) G_nu = G_sqrt(mu^2+nu^2), f_{eps,0}^{(x) n} = BinomialDP(eps, n), ...): a product
that becomes another node is evaluated as that node; a factor whose value at 0 is exactly 0 is
Zero (a trade-off function is convex and non-increasing) and absorbs the product; Id factors
drop out; finite objects compose exactly (the exact view of their privacy losses) while the
exact product stays small (``FiniteLoss.cost``); everything else is a list of leaves for the
composing engines (:mod:`.engines`). The routes (:mod:`.product`) answer from the plan.
"""

from __future__ import annotations

import math

from sympy import Basic, Integer, Rational, log
from sympy import simplify as sp_simplify

from ..core.errors import NoClosedForm, TradeOffError
from ..core.node import TradeOff
from ..families.trivial import Id, Zero
from ..numeric.capability import profile_form
from ..numeric.context import mp
from ..numeric.finite import finite_loss
from ..numeric.lattice_power import (
    MAX_SYMBOLIC_SIZE,
    LatticePower,
    lattice_pair,
    symbolic_lattice_pair,
)
from ..numeric.lattice_tilted import TiltedLatticeProduct
from ..numeric.privacy_loss import exact_fraction
from ..numeric.protocol import (
    exact_value,
)
from ..operators.maxgroup import closed_by_rules
from ..operators.tensor import Tensor, TensorPower
from ..rewrite.simplify import simplify

__all__ = ["route", "pld_leaves", "lattice_power"]


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
    if len(acc) == 1:  # (no order to fix: printing a node costs more than the rest)
        return tuple(acc.items())
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


#: The size (bits of the masses' numerators and denominators, times the exponent) above which
#: the self-product of a finite pair with lattice losses is composed in Arb
#: (``numeric.lattice_power``) instead of exactly: k-ary randomized response with a float p
#: (53-bit masses) from T = 100 on, with p = 3/4 (a few bits) up to T = 1000 exactly.
LATTICE_BITS = 4000

_LATTICE: dict = {}


def lattice_power(leaves) -> LatticePower | TiltedLatticeProduct | None:
    """The Arb composition (``numeric.lattice_power``) of ``leaves`` when they are one finite
    pair (its exact view: one factor) whose likelihood ratios are integer powers of one number,
    composed n >= 2 times, and the exact product would be large: rational masses beyond
    :data:`LATTICE_BITS`, closed-form masses (k-ary randomized response with e^eps irrational)
    where the exact product is not affordable (``FiniteLoss.affordable``) and the table holds at
    most ``MAX_SYMBOLIC_SIZE`` points; several leaves: :func:`_lattice_product`; else None."""
    if len(leaves) > 1:
        return _lattice_product(leaves)
    if len(leaves) != 1 or leaves[0][1] < 2:
        return None
    key = tuple(leaves)
    if key not in _LATTICE:
        (f, n), = leaves
        try:
            fl = None if f.free_symbols else finite_loss(f)
        except TradeOffError:
            fl = None
        parts = [] if fl is None else fl.leaves()
        out = None
        if len(parts) == 1 and parts[0][1] == 1:
            P = [exact_fraction(p) for p, _ in parts[0][0]]
            Q = [exact_fraction(q) for _, q in parts[0][0]]
            if all(x is not None for x in P + Q):
                bits = sum(x.numerator.bit_length() + x.denominator.bit_length() for x in P + Q)
                lat = lattice_pair(P, Q) if n * bits > LATTICE_BITS else None
            else:
                lat = _symbolic_lattice(f, n, parts[0][0])
            out = None if lat is None else LatticePower(*lat, n)
        if len(_LATTICE) > 32:
            _LATTICE.clear()
        _LATTICE[key] = out
    return _LATTICE[key]


def _lattice_product(leaves) -> TiltedLatticeProduct | None:
    """The tilted lattice product (``numeric.lattice_tilted``) of several finite pairs whose
    likelihood ratios are integer powers of one number R (RR(log 3, 5) next to f_{log 3,delta}
    or RR(log 9, 3)), each pair's Q-mass where P = 0 kept apart (Eq. (11)); None when a leaf
    is not finite, a part is not a lattice pair, the ratios share no base (the smallest ratio
    whose powers give the others, proved exactly), or the product holds more than
    ``MAX_LATTICE_FACTORS`` factors. Offered on the plans whose exact product is not
    affordable (:func:`route`)."""
    key = ("product", tuple(leaves))
    if key in _LATTICE:
        return _LATTICE[key]
    out = None
    try:
        out = _lattice_product_uncached(leaves)
    except (TradeOffError, TypeError, ValueError):
        out = None
    if len(_LATTICE) > 32:
        _LATTICE.clear()
    _LATTICE[key] = out
    return out


#: The most factors (with multiplicities) of a tilted lattice product.
MAX_LATTICE_FACTORS = 10**7


def _lattice_product_uncached(leaves):
    parts = []  # (base or None, ks, qs, a, multiplicity)
    for f, n in leaves:
        fl = None if f.free_symbols else finite_loss(f)
        if fl is None:
            return None
        for pairs, m in fl.leaves():
            a = sum((q for p, q in pairs if p == 0), Integer(0))
            reg = [(p, q) for p, q in pairs if p != 0 and q != 0]
            if not reg:
                return None
            if all(p == q for p, q in reg):  # (f_{0,delta}: only ratio 1 besides the atoms)
                parts.append((None, [0], [sum((q for _, q in reg), Integer(0))], a, m * n))
                continue
            lat = symbolic_lattice_pair([p for p, _ in reg], [q for _, q in reg])
            if lat is None:
                return None
            parts.append((lat[0], lat[1], lat[2], a, m * n))
    if sum(m for *_, m in parts) > MAX_LATTICE_FACTORS:
        return None
    bases = [b for b, *_ in parts if b is not None]
    if not bases:
        return None
    logs = [float(log(b).evalf(30)) for b in bases]
    base = bases[logs.index(min(logs))]
    lb = min(logs)
    factors, singular = [], []
    for b, ks, qs, a, m in parts:
        r = 1
        if b is not None and b != base:
            r = round(float(log(b).evalf(30)) / lb)
            if r < 1 or (base**r != b and (_apart(r * log(base), log(b))
                                           or sp_simplify(base**r - b) != 0)):
                return None
        factors.append(([k * r for k in ks], qs, m))
        if a != 0:
            singular.append((a, m))
    return TiltedLatticeProduct(base, factors, singular)


def _apart(x, y) -> bool:
    """Whether 30 digits tell x and y apart (then base^r = b is false and SymPy's simplify,
    whose first call imports sympy.physics, is not asked; a pre-test only: an undecided or
    wrong answer here loses the lattice route, never a value)."""
    try:
        d, m = abs(complex((x - y).evalf(30))), abs(complex(y.evalf(30)))
    except (TypeError, ValueError):
        return False
    return d > 1e-20 * max(m, 1e-300)


def _symbolic_lattice(f, n: int, pairs):
    """The symbolic lattice pair of ``pairs`` (P, Q masses) when f^{(x) n}'s exact product is
    not affordable, else None (the exact finite route answers, to any number of digits)."""
    if n >= MAX_SYMBOLIC_SIZE:  # (the table has at least n + 1 points)
        return None
    fl = finite_loss(TensorPower(f, Integer(n)))
    if fl is not None and fl.affordable():
        return None
    lat = symbolic_lattice_pair([p for p, _ in pairs], [q for _, q in pairs])
    if lat is None or n * (max(lat[1]) - min(lat[1])) + 1 > MAX_SYMBOLIC_SIZE:
        return None
    return lat


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
    if len(leaves) == 1 and lattice_power(leaves) is not None:  # (before the exact product's
        # cost is simulated; several pairs on one lattice answer where it is not affordable)
        return "pld", leaves
    fl = _finite(g)
    if fl is not None:
        return "finite", fl
    return "pld", leaves


@profile_form.register(Tensor)
@profile_form.register(TensorPower)
def closed_profile_form(f: TradeOff, eps):
    """delta_f(eps) in closed form for a product the registered identities close into another
    node (G_mu (x) G_nu = G_sqrt(mu^2 + nu^2), Dong, Roth & Su, Cor. 2; Group(G_1, 3)^{(x) 5}
    = G_{3 sqrt 5}): that node's closed-form profile, read by the exact and Arb routes of delta
    and by the certified brackets of epsilon; None for a product that stays one (the composing
    engines answer) or one with free symbols (``analysis.lazy`` simplifies those itself)."""
    if f.free_symbols or (isinstance(eps, Basic) and eps.free_symbols):
        return None
    try:
        kind, g = route(f)
    except TradeOffError:
        return None
    return profile_form(g, eps) if kind == "node" else None

