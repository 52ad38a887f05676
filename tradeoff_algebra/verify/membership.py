"""Family membership with three-valued verdicts: is f some f_{eps,delta}, some G_mu?

f_{eps,delta}(alpha) = max{0, 1 - delta - e^eps alpha, e^{-eps}(1 - delta - alpha)} (Dong,
Roth & Su, Eq. (5)) is piecewise linear with one kink where it is positive; G_mu =
Phi(Phi^{-1}(1 - alpha) - mu) is smooth and, for mu > 0, strictly convex on (0, 1). Decided so:

* a piecewise-linear f with exact knots (``pl_knots``, or the Neyman-Pearson knots of its exact
  finite privacy loss): f(0) = 1 - delta and the slope at 0, -e^eps, determine the only
  candidate f_{eps,delta}; f is a member iff it equals the candidate at the union of both knot
  lists (exact comparison). Against G_mu: a piecewise-linear f other than Id is affine on a
  segment where G_mu (mu > 0) is strictly convex, so it is no member; Id = G_0 is.
* any other f: two strict convexity witnesses on disjoint intervals where f > 0 (certified
  enclosures at six points) show two kinks where f_{eps,delta} has one, so f is not a member;
  against G_mu, the candidate mu = Phi^{-1}(1 - f(1/2)) (enclosed) is compared with f at other
  levels: disjoint enclosures refute membership.
"""

from __future__ import annotations

import time
from typing import Any

import sympy as sp

from ..core.errors import InvalidParameter, NoClosedForm, NumericalError, TradeOffError
from ..core.node import TradeOff
from ..core.normal import Phi, PhiInv
from ..notions.approx import ApproxDP, epsdelta_pair
from ..notions.gdp import GDP
from ..numeric.capability import gaussian_form
from ..numeric.context import mp
from ..numeric.finite import finite_loss
from ..numeric.knots import pl_knots
from ..numeric.protocol import evaluate
from ..rewrite import simplify
from .interval import Undecidable, enclose
from .pieces import ball_iv, compare, midpoint, proved_equal, show_num, split_pieces
from .predicates import PredicateVerdict, is_tradeoff, negate, read_expr

__all__ = ["is_member", "is_not_member", "FAMILIES"]

#: The families by name; the classes are those of the notions' trade-off functions ((eps,
#: delta)-DP is f_{eps,delta}, GDP is G_mu: ``notions``), so that verify names no family.
FAMILIES = {"epsdelta": "epsdelta", "f_eps_delta": "epsdelta", "approxdp": "epsdelta",
            "gaussian": "gaussian", "gdp": "gaussian", "G": "gaussian"}
_NAMES = {"epsdelta": "{f_{eps,delta} : eps >= 0, 0 <= delta <= 1}",
          "gaussian": "{G_mu : mu >= 0}"}
EPSDELTA, GAUSSIAN = "epsdelta", "gaussian"


def _epsdelta(eps: Any, delta: Any) -> TradeOff:
    """f_{eps,delta} (Dong, Roth & Su, Eq. (4)), the trade-off function of (eps, delta)-DP."""
    return ApproxDP(eps, delta).to_tradeoff()


#: The budget of the trade-off test that precedes a membership test of an expression.
MEMBER_CELLS = 150
MEMBER_SECONDS = 3.0


def _family(family: Any) -> str:
    if isinstance(family, str) and family in FAMILIES:
        return FAMILIES[family]
    if family is ApproxDP or (isinstance(family, type)
                              and family is type(_epsdelta(1, 0))):
        return EPSDELTA
    if family is GDP or (isinstance(family, type) and family is type(GDP(1).to_tradeoff())):
        return GAUSSIAN
    raise InvalidParameter("family", family, "ta.EpsDelta, ta.Gaussian (ta.G), ta.ApproxDP, "
                           f"ta.GDP or one of {sorted(FAMILIES)}")


def _params(f: Any, fam: str) -> dict | None:
    """The parameters of f when it is itself the family's node, else None."""
    if fam == EPSDELTA:
        pair = epsdelta_pair(f)
        return None if pair is None else {"eps": pair[0], "delta": pair[1]}
    m = gaussian_form(f)
    return None if m is None else {"mu": m}


def _knots(f: Any) -> list | None:
    """Exact knots ((0, f(0)), ..., (1, 0)) of a parameter-free piecewise-linear f, or None."""
    if not isinstance(f, TradeOff) or f.free_symbols:
        return None
    k = pl_knots(f)
    if k is None:
        try:
            loss = finite_loss(f)
        except TradeOffError:
            loss = None
        if loss is None:
            return None
        k = loss.tradeoff_knots()
    return [(sp.sympify(a), sp.sympify(v)) for a, v in k]


def _expr_knots(e: sp.Expr, t: sp.Symbol) -> list | None:
    """Exact knots of a continuous expression whose pieces are affine in ``t``, or None."""
    try:
        pieces, _ = split_pieces(e, t)
    except Undecidable:
        return None
    if not all(p.g.is_polynomial(t) and sp.degree(p.g, t) <= 1 for p in pieces):
        return None
    knots = [(p.lo, sp.simplify(p.g.subs(t, p.lo))) for p in pieces]
    return knots + [(pieces[-1].hi, sp.simplify(pieces[-1].g.subs(t, pieces[-1].hi)))]


def _pl_eval(knots: list, x: sp.Expr, dps: int) -> sp.Expr:
    """The piecewise-linear function through ``knots`` at x (knots located exactly or by
    certified comparisons)."""
    for (a0, v0), (a1, v1) in zip(knots, knots[1:], strict=False):
        if compare(x, a1, dps) in (-1, 0):
            return v0 + (v1 - v0) * (x - a0) / (a1 - a0)
    return knots[-1][1]


class _Values:
    """Certified values of f at points: a trade-off node by ``evaluate`` (exact or certified
    only), an expression of ``t`` by Arb."""

    def __init__(self, f: Any, t: sp.Symbol | None, dps: int):
        self.f, self.t, self.dps = f, t, dps

    def __call__(self, x: sp.Rational) -> tuple:
        if isinstance(self.f, TradeOff):
            v = evaluate(self.f, x, dps=self.dps)
            if not v.is_certain:
                raise Undecidable(f"{self.f} at {x} is an estimate")
            return v.interval()
        return enclose(self.f.xreplace({self.t: x}), dps=self.dps)


def _strict_chord(vals: _Values, x, y, z, dps) -> bool | None:
    """f(y) strictly below the chord of x, z (certified True), above it (certified False,
    not convex), or None."""
    fx, fy, fz = vals(x), vals(y), vals(z)
    X, Y, Z = sp.Symbol("X"), sp.Symbol("Y"), sp.Symbol("Z")
    d = ball_iv((z - y) * X + (y - x) * Z - (z - x) * Y, {X: fx, Y: fy, Z: fz}, dps)
    if d[0] > 0:
        return True
    if d[1] < 0:
        return False
    return None


def _two_kinks(vals: _Values, dps: int) -> tuple:
    """Two disjoint strict-convexity triples in a region where f > 0 (certified): f has two
    kinks where it is positive, f_{eps,delta} one. Returns (True, witness), (False, witness:
    not convex) or (None, None)."""
    for m in (8, 16, 32, 64):
        found = []
        for k in range(1, m - 1):
            x, y, z = (sp.Rational(k + j, m) for j in (-1, 0, 1))
            if found and x < found[-1][2]:
                continue
            try:
                st = _strict_chord(vals, x, y, z, dps)
            except (Undecidable, NoClosedForm, NumericalError, InvalidParameter):
                continue
            if st is False:
                return False, {"what": "f above its chord (not convex)", "x": x, "y": y, "z": z}
            if st is True:
                found.append((x, y, z))
                if len(found) == 2:
                    try:
                        pos = vals(found[1][2])[0] > 0
                    except (Undecidable, NoClosedForm, NumericalError, InvalidParameter):
                        pos = False
                    if pos:
                        return True, {"triples": tuple(found)}
                    found.pop()
    return None, None


def _member_epsdelta_pl(knots: list, dps: int) -> tuple:
    f0 = knots[0][1]
    if f0 == 0 or proved_equal(f0, 0):
        return True, "f(0) = 0: f = Zero = f_{0,1}", {"eps": 0, "delta": 1}
    (a0, v0), (a1, v1) = knots[0], knots[1]
    slope = sp.simplify((v1 - v0) / (a1 - a0))
    d = sp.simplify(1 - f0)
    if compare(-slope, sp.Integer(1), dps) == -1:
        return False, (f"the slope at 0 is {slope} > -1, while f_{{eps,delta}} starts with "
                       "slope -e^eps <= -1"), {"slope at 0": slope}
    eps = sp.log(sp.nsimplify(-slope)) if (-slope).is_Rational else sp.log(-slope)
    try:
        cand = _epsdelta(eps, d)
    except InvalidParameter as exc:
        return None, f"no candidate f_{{eps,delta}}: {exc}", None
    ck = _knots(cand)
    xs = sorted({*(a for a, _ in knots), *(a for a, _ in ck)}, key=lambda x: midpoint(x))
    for x in xs:
        fv, cv = _pl_eval(knots, x, dps), _pl_eval(ck, x, dps)
        cmp = compare(fv, cv, dps)
        if cmp is None:
            return None, f"cannot compare f and the candidate {cand} at alpha = {x}", None
        if cmp != 0:
            return False, (f"f(0) = {f0} and the slope -e^eps = {slope} at 0 leave one "
                           f"candidate, {sp.sstr(cand)}; at alpha = {sp.sstr(x)} f = "
                           f"{sp.sstr(sp.simplify(fv))} and the candidate = "
                           f"{sp.sstr(sp.simplify(cv))} (exact knots)"), \
                {"alpha": x, "f": fv, "candidate": cv, "eps": eps, "delta": d}
    return True, f"f = {sp.sstr(cand)} (equal at the union of the exact knots)", \
        {"eps": eps, "delta": d}


def _member_gaussian_pl(knots: list, dps: int) -> tuple:
    cmps = [(a, v, compare(v, 1 - a, dps)) for a, v in knots]
    off = [(a, v) for a, v, c in cmps if c in (-1, 1)]
    if not off:
        if any(c is None for _, _, c in cmps):
            return None, "cannot decide whether f = Id at every knot", None
        return True, "f = Id = G_0 (every knot on 1 - alpha)", {"mu": 0}
    # f is affine between consecutive knots; G_mu (mu > 0) is strictly convex on (0, 1)
    for (a0, _), (a1, _) in zip(knots, knots[1:], strict=False):
        if compare(a0, a1, dps) == -1:
            m = (a0 + a1) / 2
            return False, (f"f is affine on [{sp.sstr(a0)}, {sp.sstr(a1)}] (exact knots), "
                           "where G_mu is strictly convex for mu > 0, and f != Id = G_0 (at "
                           f"alpha = {sp.sstr(off[0][0])}, f = {sp.sstr(off[0][1])})"), \
                {"segment": (a0, a1), "midpoint": m}
    return None, "no segment of positive length", None


def _member_gaussian_smooth(vals: _Values, f: Any, dps: int) -> tuple:
    half = vals(sp.Rational(1, 2))
    if not (0 < half[0] and half[1] < 1):
        return None, "f(1/2) is not enclosed inside (0, 1)", None
    mu_s = sp.Symbol("mu_candidate")
    v = sp.Symbol("v")
    mu_iv = ball_iv(PhiInv(1 - v), {v: half}, dps)  # mu = Phi^{-1}(1 - f(1/2))
    if mu_iv[1] < 0:
        return False, "f(1/2) > 1/2 = Id(1/2): above every G_mu", {"alpha": sp.Rational(1, 2)}
    for x in (sp.Rational(1, 10), sp.Rational(1, 4), sp.Rational(3, 4), sp.Rational(9, 10),
              sp.Rational(1, 100)):
        try:
            fx = vals(x)
            gx = ball_iv(Phi(PhiInv(1 - x) - mu_s), {mu_s: mu_iv}, dps)
        except (Undecidable, NoClosedForm, NumericalError, InvalidParameter):
            continue
        if fx[1] < gx[0] or fx[0] > gx[1]:
            return False, (f"f(1/2) in [{show_num(half[0])}, {show_num(half[1])}] leaves only "
                           f"G_mu with mu in [{show_num(mu_iv[0])}, {show_num(mu_iv[1])}]; at "
                           f"alpha = {x} "
                           f"f in [{show_num(fx[0])}, {show_num(fx[1])}] and every such G_mu in "
                           f"[{show_num(gx[0])}, {show_num(gx[1])}] (certified, disjoint)"), \
                {"alpha": x, "f": fx, "G_mu": gx, "mu": mu_iv}
    return None, (f"f agrees with G_mu, mu in [{show_num(mu_iv[0])}, {show_num(mu_iv[1])}], at the "
                  "levels tried"), None


def is_member(f: Any, family: Any, alpha: Any = None, dps: int = 30) -> PredicateVerdict:
    """Is ``f`` (a parameter-free trade-off expression, or a SymPy expression in ``alpha``)
    a member of ``family`` (``ta.EpsDelta`` or ``ta.ApproxDP``: some f_{eps,delta};
    ``ta.Gaussian`` or ``ta.GDP``: some G_mu)?

    Decided exactly from the knots of a piecewise-linear f, otherwise by certified witnesses
    (module docstring). True names the member's parameters in the evidence and
    ``counterexample`` (the witness of membership); False comes with a certified witness."""
    fam = _family(family)
    if isinstance(dps, bool) or not isinstance(dps, int) or not 5 <= dps <= 1000:
        raise InvalidParameter("dps", dps, "an integer in [5, 1000]")
    t0 = time.perf_counter()
    if isinstance(f, TradeOff):
        if f.free_symbols:
            raise InvalidParameter("f", f, "a trade-off expression without free parameters")
        try:
            g = simplify(f)
        except TradeOffError:
            g = f
        shown, t, vals = f, None, _Values(g, None, dps)
    else:
        e, t = read_expr(f, alpha)
        shown, g, vals = sp.sympify(f), e, _Values(e, t, dps)

    def verdict(st, method, ev, ce=None):
        return PredicateVerdict(shown, "in", _NAMES[fam], {}, st, method, ev, ce,
                                seconds=time.perf_counter() - t0)

    with mp.workdps(dps + 20):
        own = _params(g, fam) if isinstance(g, TradeOff) else None
        if own is not None:
            return verdict(True, "rewrite", f"f simplifies to {sp.sstr(g)} by sound rules", own)
        knots = _knots(g) if isinstance(g, TradeOff) else None
        if knots is not None:
            st, ev, ce = (_member_epsdelta_pl(knots, dps) if fam == EPSDELTA
                          else _member_gaussian_pl(knots, dps))
            return verdict(st, "exact", ev, ce)
        if t is not None:
            tv = is_tradeoff(g, t, dps, max_cells=MEMBER_CELLS, seconds=MEMBER_SECONDS)
            if tv.status is False:
                return verdict(False, "counterexample", "not a trade-off function, so no "
                               "member: " + tv.evidence, tv.counterexample)
            knots = _expr_knots(g, t) if tv.status is True else None
            if knots is not None:
                st, ev, ce = (_member_epsdelta_pl(knots, dps) if fam == EPSDELTA
                              else _member_gaussian_pl(knots, dps))
                return verdict(st, "exact", ev + " (f proved a trade-off function: continuous)",
                               ce)
        if fam == EPSDELTA:
            st, ce = _two_kinks(vals, dps)
            if st is True:
                (x1, y1, z1), (x2, y2, z2) = ce["triples"]
                return verdict(False, "certified witness",
                               f"f lies strictly below its chords on [{x1}, {z1}] and on "
                               f"[{x2}, {z2}] (certified at the six points), and f({z2}) > 0: "
                               "two kinks where f > 0; f_{eps,delta} has one (Eq. (5))", ce)
            if st is False:
                return verdict(False, "counterexample", "f is not convex, f_{eps,delta} is: "
                               f"f above its chord at {ce['x']}, {ce['y']}, {ce['z']}", ce)
            return verdict(None, "certified witness", "no two strict-convexity witnesses found "
                           "on the grids tried")
        try:
            st, ev, ce = _member_gaussian_smooth(vals, g, dps)
        except (Undecidable, NoClosedForm, NumericalError) as exc:
            return verdict(None, "certified witness", f"cannot enclose: {exc}")
        return verdict(st, "certified witness" if st is not None else "certified witness",
                       ev, ce)


def is_not_member(f: Any, family: Any, alpha: Any = None, dps: int = 30) -> PredicateVerdict:
    """The negation of :func:`is_member` ("there are no parameters with f = f_{eps,delta}"):
    True with a certified witness, False with the member's parameters."""
    return negate(is_member(f, family, alpha, dps))
