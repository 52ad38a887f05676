"""``verify(lhs, rel, rhs, over=None, dps=30)``: a claim and its certified verdict.

The order of the routes, for a claim between trade-off functions (pointwise in alpha):

1. rewriting: both sides simplified by the sound rules to one canonical form (True, with the
   derivations), or an order proof from monotonicity and the order structure
   (:mod:`.monotone`), valid for every parameter value in the box; f >= f_{eps,delta} by the
   duality of Prop. 6;
2. without free parameters, the decision procedures of :mod:`.pointwise`;
3. with free parameters, a certified cover of the box (the sides compared at opposite corners
   of each cell), after the box's readable points were tried for a counterexample
   (:mod:`.refute`: the largest certified gap); then sample points, which only refute —
   numbers at finitely many parameter values never prove a claim over a box;
4. where these leave it undecided, claims that decide it: f == g by f >= g and g >= f, f >=
   max{g_i} by f >= g_i for every i, and f >= f_{eps,delta} refuted by a certified
   delta_f(eps) > delta (Prop. 6).

For scalar claims: SymPy simplification of the difference (and its assumptions, after the
closed forms of the functionals), then interval arithmetic (:mod:`.interval`) at the point or,
with parameters, over the box with subdivision (:mod:`.box`), then sample points.

A verdict is reached within the time limit (``ta.time_limit``; the library's default
otherwise): at the limit it is None, with what was computed.
"""

from __future__ import annotations

import math
import time
from typing import Any

import sympy as sp

from ..analysis.lazy import Functional
from ..core.errors import InvalidParameter, NoClosedForm, NumericalError, TradeOffError
from ..core.node import TradeOff
from ..core.normal import Phi, PhiInv
from ..notions.approx import epsdelta_pair
from ..numeric import budget
from ..numeric.capability import profile_form
from ..numeric.context import mp
from ..numeric.protocol import evaluate, short
from ..numeric.value import Value
from ..operators.maxgroup import Max
from ..rewrite import derive, simplify
from .box import make_box, prove_nonneg, sample_points
from .cover import corner_node, has_directions, run_cover
from .interval import EstimateOnly, Undecidable, enclose, functional_value
from .monotone import dominates, same_node
from .pointwise import decide_eq, decide_ge
from .refute import best_counterexample
from .symbolic import contains_symbol, symbolic_claim
from .verdict import RELATIONS, Verdict

__all__ = ["verify"]


def _free(x: Any) -> set:
    return set(x.free_symbols) if isinstance(x, sp.Basic) else set()


def _exact_floats(x: sp.Basic) -> sp.Basic:
    """Floats replaced by the exact binary rationals they hold (the library's convention), so
    that no SymPy simplification rounds them."""
    floats = [f for f in x.atoms(sp.Float) if f.is_finite]
    return x.xreplace({f: sp.Rational(f) for f in floats}) if floats else x


def _scalar(x: Any, side: str) -> Any:
    if isinstance(x, Value):
        if any(mp.isnan(e) for e in (x.lo, x.hi, x.mid)) or x.lo > x.hi:
            raise InvalidParameter(side, x, "a Value holding a number (lo <= hi, no NaN)")
        return sp.Rational(x.exact) if x.exact is not None else x
    if isinstance(x, bool) or x is None:
        raise InvalidParameter(side, x, "a trade-off expression or a real scalar expression")
    if isinstance(x, float) and math.isnan(x):
        raise InvalidParameter(side, x, "a real number or expression (oo allowed)")
    if isinstance(x, float) and math.isinf(x):  # sp.Rational(inf) is 0
        return sp.oo if x > 0 else -sp.oo
    if isinstance(x, (int, float)):
        # a float is the exact binary rational it holds (sp.Rational(float) rounds at
        # mpmath's global precision)
        return sp.Rational(*x.as_integer_ratio())
    if isinstance(x, str):
        raise InvalidParameter(side, x, "an expression object (parse strings with "
                               "tradeoff_algebra.parse.parse_expr)")
    try:
        out = _exact_floats(sp.sympify(x, strict=True))
    except (sp.SympifyError, TypeError) as exc:
        raise InvalidParameter(side, x, "a trade-off expression or a real scalar "
                               "expression") from exc
    if not isinstance(out, sp.Expr) or out.has(sp.nan, sp.zoo, sp.I) \
            or out.is_extended_real is False:
        raise InvalidParameter(side, x, "a real number or expression (oo allowed)",
                               hint="NaN, complex numbers and notions (GDP, RDP, ...) are not "
                               "real scalars; compare notions through their conversions")
    return out


def verify(lhs: Any, rel: str, rhs: Any, over: dict | None = None, dps: int = 30) -> Verdict:
    """Decide the claim ``lhs rel rhs`` (``rel`` one of ``"=="``, ``"<="``, ``">="``).

    Both sides are trade-off expressions (the claim holds pointwise, for every alpha in
    [0, 1]) or both are real scalars (numbers, SymPy expressions, the library's functionals —
    ``ta.delta(G(mu), eps)`` stays unevaluated while ``mu`` is a symbol — or computed
    ``Value``s). ``over`` maps free symbols (or their names) to closed intervals ``(lo, hi)``;
    without it a symbol ranges over what its assumptions allow.

    The :class:`Verdict` is True only with a proof, False only with a certified
    counterexample (``verdict.counterexample``), None otherwise, with the evidence.
    """
    if not isinstance(rel, str) or rel not in RELATIONS:
        raise InvalidParameter("rel", rel, "one of '==', '<=', '>='")
    if over is not None and not isinstance(over, dict):
        raise InvalidParameter("over", over, "a dict {symbol: (lo, hi)}")
    if isinstance(dps, bool) or not isinstance(dps, int) or not 5 <= dps <= 1000:
        raise InvalidParameter("dps", dps, "an integer in [5, 1000]")
    t0 = time.perf_counter()
    tl, tr = isinstance(lhs, TradeOff), isinstance(rhs, TradeOff)
    if tl != tr:
        raise InvalidParameter("rhs" if tl else "lhs", rhs if tl else lhs,
                               "the same kind as the other side (both trade-off expressions "
                               "or both scalars)")
    if not tl:
        lhs, rhs = _scalar(lhs, "lhs"), _scalar(rhs, "rhs")
    symbols = _free(lhs) | _free(rhs)
    box = make_box(symbols, over)
    shown_over = {k: box[k] for k in sorted(box, key=lambda s: s.name)}
    with mp.workdps(dps + 20), budget.call(lambda: f"verify({short(lhs)} {rel} {short(rhs)})"):
        try:
            if contains_symbol(lhs, rhs):  # a claim for every trade-off function (.symbolic)
                res = symbolic_claim(lhs, rel, rhs, box, over, dps, verify)
            elif tl:
                res = _tradeoff_claim(lhs, rel, rhs, box, dps)
            else:
                res = _scalar_claim(lhs, rel, rhs, box, dps)
        except Undecidable as exc:  # a part no certified computation encloses
            res = (None, "interval arithmetic", f"cannot enclose: {exc}", None, ())
        except budget.TimeLimitExceeded as exc:  # undecided within the time limit
            res = (None, "time limit", f"undecided at the time limit ({exc})", None, ())
    status, method, evidence, ce, ders = res
    return Verdict(lhs, rel, rhs, shown_over, status, method, evidence, ce, ders,
                   time.perf_counter() - t0)


# -- trade-off claims ---------------------------------------------------------------------------
def _derivations(*exprs) -> tuple:
    """The derivations of the sides that some rule rewrote."""
    return tuple(d for d in (derive(e) for e in exprs) if len(d))


def _tradeoff_claim(lhs, rel, rhs, box, dps, depth: int = 0):
    """The verdict tuple of a claim between trade-off expressions: the routes of
    :func:`_tradeoff_routes`, then, where they leave it undecided, the claim split into parts
    that decide it (:func:`_by_parts`)."""
    if rel != "==" and depth < 2 and isinstance(lhs if rel == "<=" else rhs, Max):
        parts = _by_parts(lhs, rel, rhs, box, dps, depth)  # the arguments first: cheap
        if parts is not None:
            return parts
    try:
        res = _tradeoff_routes(lhs, rel, rhs, box, dps)
    except Undecidable as exc:  # a part no certified computation encloses
        res = (None, "interval arithmetic", f"cannot enclose: {exc}", None, ())
    if res[0] is None and depth < 2:
        parts = _by_parts(lhs, rel, rhs, box, dps, depth)
        if parts is not None:
            return parts
    return res


def _by_parts(lhs, rel, rhs, box, dps, depth):
    """Claims that other claims decide, each proved or refuted by the routes:

    * f == g iff f >= g and g >= f (antisymmetry of the pointwise order);
    * f >= max{g_1, ..., g_k} iff f >= g_i for every i (Max is the pointwise maximum);
    * without parameters, f >= f_{eps,delta} fails when delta < delta_f(eps) or delta <
      delta_{f^-1}(eps), certified (Dong, Roth & Su, Prop. 6: the converse of the duality
      route), which refutes the claim where f has no certified values at the levels alpha."""
    try:
        sl, sr = simplify(lhs), simplify(rhs)
    except TradeOffError:
        sl, sr = lhs, rhs
    if rel == "==":
        first = _tradeoff_claim(sl, ">=", sr, box, dps, depth + 1)
        if first[0] is False:
            return first
        second = _tradeoff_claim(sl, "<=", sr, box, dps, depth + 1)
        if second[0] is False:
            return second
        if first[0] is True and second[0] is True:
            return (True, "antisymmetry", f"both inequalities proved: {first[1]} ("
                    f"{first[2]}); {second[1]} ({second[2]})", None, ())
        return None
    big, small = (sl, sr) if rel == ">=" else (sr, sl)
    if isinstance(small, Max) and not isinstance(big, Max):
        outs = []
        for g in small.args:
            out = _tradeoff_claim(big, ">=", g, box, dps, depth + 1)
            if out[0] is not True:
                return None  # (a part that fails does not refute: max{...} may still be lower)
            outs.append(f"{out[1]}")
        return (True, "parts", "the larger side lies above every argument of the maximum ("
                + ", ".join(outs) + ")", None, ())
    if not box:
        return _profile_refutation(big, small)
    return None


def _both_directions(big, small):
    """(eps, delta, [f, f^-1]) for a claim f >= f_{eps,delta} (Prop. 6 compares the profiles
    of both directions), or None where small is not f_{eps,delta} or f has no inverse node."""
    pair = epsdelta_pair(small)
    if pair is None:
        return None
    try:
        inv = simplify(big.inverse())
    except (TradeOffError, AttributeError):
        return None
    return pair[0], pair[1], list(dict.fromkeys((big, inv)))


def _profile_refutation(big, small):
    both = _both_directions(big, small)
    if both is None:
        return None
    eps, d, sides = both
    for g in sides:
        st = _scalar_claim(d, ">=", Functional("delta", g, eps), {}, 30)
        if st[0] is False and st[3]:
            ce = {"eps": eps, "delta": st[3]["lhs"], "delta_g": st[3]["rhs"], "g": g}
            return (False, "duality", f"Prop. 6: f >= f_{{eps,delta}} needs delta >= "
                    f"delta_g(eps) for g = f and g = f^-1; for g = {short(g)} at eps = {eps}, "
                    "delta < delta_g(eps) (certified)", ce, ())
    return None


def _tradeoff_routes(lhs, rel, rhs, box, dps):
    try:
        sl, sr = simplify(lhs), simplify(rhs)
    except TradeOffError:
        sl, sr = lhs, rhs
    if sl == sr:
        return (True, "rewrite", "both sides simplify to " + sp.sstr(sl) + " by sound rules",
                None, _derivations(lhs, rhs))
    if same_node(sl, sr):
        return (True, "rewrite", "both sides simplify to " + sp.sstr(sl) + " by sound rules, "
                "up to the form of their parameters (proved equal by SymPy's simplification)",
                None, _derivations(lhs, rhs))
    if rel != "==":
        big, small = (sl, sr) if rel == ">=" else (sr, sl)
        if dominates(big, small, box):
            return (True, "monotonicity",
                    "ordered by the monotonicity of the families in their parameters and of "
                    "the operators in their operands", None, _derivations(lhs, rhs))
    if rel != "==":
        big, small = (sl, sr) if rel == ">=" else (sr, sl)
        dual = _duality(big, small, box)
        if dual is not None:
            return dual
    if not box:
        return _decide(sl, rel, sr, dps, {})
    best = _refute(sl, rel, sr, box, dps, True)
    if best is not None:
        return best
    shown = ""
    if rel != "==":
        res = _node_cover(sl, rel, sr, box, dps)
        if res is not None and res[0] is False:
            return _refute(sl, rel, sr, box, dps, True, res[3]) or res
        if res is not None and res[0] is not None:
            return res
        shown = f"; {res[2]}" if res is not None else ""
    held = 0
    undecided = []
    points = sample_points(box, limit=12)
    for p in points:
        try:
            l2, r2 = sl.xreplace(p), sr.xreplace(p)
            if l2.free_symbols or r2.free_symbols:
                continue
            st, method, ev, ce, _ = _decide(l2, rel, r2, dps, p, full=False)
        except EstimateOnly as exc:  # the next points would take as long to say so again
            undecided.append(f"{_pt(p)} (only estimates: {exc})")
            break
        except (InvalidParameter, NoClosedForm, NumericalError, Undecidable):
            continue
        if st is False:
            return _refute(sl, rel, sr, box, dps, True, ce) \
                or (False, method, f"fails at {_pt(p)}: {ev}", ce, ())
        if st is True:
            held += 1
        else:
            undecided.append(_pt(p))
    ev = (f"no proof for the whole parameter box; at {len(points)} sample points the claim "
          f"was proved at {held}")
    if undecided:
        ev += f" and undecided at {len(undecided)} ({undecided[0]}, ...)"
    return (None, "sample points", ev + shown, None, ())


#: The budget of a cover of a claim between trade-off functions over a box.
NODE_COVER_CELLS = 400
NODE_COVER_SECONDS = 60.0
#: Cells examined before a cover that has proved none gives up.
NODE_COVER_PROBE = 24


def _node_cover(l, rel, r, box, dps):
    """A certified cover of the parameter box for ``l rel r`` (pointwise in alpha): on each
    cell the larger side at its smallest corner is compared with the smaller side at its
    largest corner (:func:`~.cover.corner_node`: the proved directions of the families and
    operators in their parameters) by the decision procedures of :mod:`.pointwise`, which
    cover alpha in [0, 1]; a face where both corners are the same node is decided by
    structure. None when a direction is not proved or the box is unbounded."""
    if any(not (sp.sympify(lo).is_finite and sp.sympify(hi).is_finite)
           for lo, hi in box.values()):
        return None
    big, small = (l, r) if rel == ">=" else (r, l)
    if not (has_directions(big) and has_directions(small)):
        return None
    found: dict = {}
    tally = {"seen": 0, "proved": 0}

    def decide(cell):
        tally["seen"] += 1
        if tally["seen"] > NODE_COVER_PROBE and not tally["proved"]:
            raise Undecidable("no cell proved")  # the corners never separate: give up early
        b, s_ = corner_node(big, cell, -1, dps), corner_node(small, cell, +1, dps)
        if b is None or s_ is None:  # a parameter's direction not proved on this cell
            return _centre_ce(cell)
        if same_node(b, s_):
            tally["proved"] += 1
            return True, "face"
        try:  # the corners in canonical form: an identity (G_a (x) G_b = G_c) or an order
            b, s_ = simplify(b), simplify(s_)
        except TradeOffError:
            pass
        if same_node(b, s_):
            tally["proved"] += 1
            return True, "face"
        if dominates(b, s_, {}):
            tally["proved"] += 1
            return True, ""
        try:
            if decide_ge(b, s_, dps).status is True:
                tally["proved"] += 1
                return True, ""
        except EstimateOnly:
            raise  # a side without certified values: no cell will close (ends the cover)
        except (NoClosedForm, NumericalError, Undecidable):
            pass
        return _centre_ce(cell)

    def _centre_ce(cell):
        p = {k: (lo + hi) / 2 for k, (lo, hi) in cell.items()}
        try:
            out = _decide(l.xreplace(p), rel, r.xreplace(p), dps, p, full=False)
        except EstimateOnly:
            raise
        except (InvalidParameter, NoClosedForm, NumericalError, Undecidable):
            return None, None
        if out[0] is False:
            found["ce"] = out
            return False, out[3]
        return None, None

    try:
        res = run_cover(box, decide, NODE_COVER_CELLS, NODE_COVER_SECONDS)
    except Undecidable:
        return None
    if res.status is False:
        out = found["ce"]
        return (False, out[1], f"fails inside the box: {out[2]}", out[3], ())
    if res.status is True:
        return (True, "certified cover",
                res.evidence + ": on each cell the larger side at its smallest corner lies "
                "above the smaller side at its largest corner (monotone directions proved; "
                "decided pointwise on [0, 1])", None, ())
    return (None, "certified cover", res.evidence, None, ())


def _duality(big, small, box):
    """f >= f_{eps,delta} iff delta >= delta_f(eps) and delta >= delta_{f^-1}(eps) (Dong, Roth &
    Su, Prop. 6 and its proof: the two affine pieces of f_{eps,delta}, each below f iff its
    intercept is below the infimum of e^eps x + f(x), resp. of x + e^eps f(x)). Used when both
    scalar claims are proved (closed-form profiles); otherwise the other routes decide."""
    both = _both_directions(big, small)
    if both is None:
        return None
    eps, d, sides = both
    parts = []
    for g in sides:
        st = _scalar_claim(d, ">=", Functional("delta", g, eps), box, 30, inner=True)
        if st[0] is not True or st[1] == "sample points":
            return None
        parts.append(st[2])
    return (True, "duality", "f >= f_{eps,delta} reduced to delta >= delta_f(eps) and "
            "delta >= delta_{f^-1}(eps) (Prop. 6); " + "; ".join(parts), None, ())


def _refute(lhs, rel, rhs, box, dps, tradeoff: bool, found: dict | None = None):
    """The most convincing certified counterexample among the readable points of the box
    (:func:`.refute.best_counterexample`); for trade-off claims the level alpha is then chosen
    at that point among the levels a reader recognises (:func:`.pointwise.search_violation`).
    None when no candidate refutes the claim."""
    if tradeoff:
        def at(l2, r2, p):
            return _decide(l2, rel, r2, dps, p, full=False)

        def refine(l2, r2, p):
            return _decide(l2, rel, r2, dps, p)
    else:
        def at(l2, r2, p):
            return _scalar_point(l2, rel, r2, dps, {str(k): v for k, v in p.items()})
        refine = None
    best = best_counterexample(lhs, rel, rhs, box, at, refine, found)
    if best is None:
        return None
    p, out = best
    return (False, out[1], f"fails at {_pt(p)} (the largest certified gap among the box's "
            f"corners, centre and quarter points): {out[2]}", out[3], ())


def _pt(p: dict) -> str:
    return ", ".join(f"{k} = {v}" for k, v in p.items())


def _decide(l, rel, r, dps, params, full=True):
    if rel == "==":
        out = decide_eq(l, r, dps)
        big, small = l, r
    else:
        big, small = (l, r) if rel == ">=" else (r, l)
        out = decide_ge(big, small, dps, full=full)
    ce = None
    if out.status is False:
        vb, vs = out.values
        if vs is None:
            vs = small_value(small, out.alpha, dps)
        if isinstance(vb, sp.Basic):
            vb = Value.from_exact(vb, dps) if vb.is_Rational else _num_value(vb, dps)
        if isinstance(vs, sp.Basic):
            vs = Value.from_exact(vs, dps) if vs.is_Rational else _num_value(vs, dps)
        left, right = (vb, vs) if big is l else (vs, vb)
        ce = {**{str(k): v for k, v in params.items()}, "alpha": out.alpha,
              "lhs": left, "rhs": right}
    return out.status, out.method, out.evidence, ce, ()


def small_value(f, alpha, dps) -> Value:
    return evaluate(f, alpha, dps=dps)


def _num_value(x: sp.Expr, dps: int) -> Value:
    lo, hi = enclose(x, dps=dps)  # Arb balls (interval.enclose)
    return Value.enclosure(lo, hi, dps, guarantee="certified")


# -- scalar claims ------------------------------------------------------------------------------
def _holds(lo_l, hi_l, lo_r, hi_r, rel):
    """Decide from enclosures: True, False or None."""
    if rel == "<=":
        return True if hi_l <= lo_r else False if lo_l > hi_r else None
    if rel == ">=":
        return True if lo_l >= hi_r else False if hi_l < lo_r else None
    return False if (hi_l < lo_r or hi_r < lo_l) else None


def _expand(x):
    """``x`` with each ``delta`` functional that has a closed form (a family's ``profile_form``)
    replaced by it; also returns whether anything was replaced."""
    if not isinstance(x, sp.Basic):
        return x, False
    reps = {}
    for fn in x.atoms(Functional):
        if fn.name in ("evaluate", "roc") and not fn.scalars[0].has(Functional):
            form = _level_form(fn)
            if form is not None:
                reps[fn] = form
            continue
        if fn.name == "delta":
            try:
                f = simplify(fn.operand)
            except TradeOffError:
                continue
            form = profile_form(f, fn.scalars[0])
            if form is not None:
                reps[fn] = form
    return (x.xreplace(reps), True) if reps else (x, False)


def _level_form(fn: Functional):
    """The closed form of f(alpha) (``evaluate``) or 1 - f(alpha) (``roc``) from the node's
    own formula (e.g. G_mu(alpha) = Phi(Phi^-1(1 - alpha) - mu), Eq. (6)), or None."""
    try:
        f = simplify(fn.operand)
        a = fn.scalars[0]
        if not (a.is_number and a.is_comparable and bool(0 < a < 1)):
            return None  # the ends, and levels with parameters, by the other routes
        form = f._eval_at(a)
    except (TradeOffError, TypeError, ValueError, ArithmeticError):
        return None
    if form is None or not isinstance(form, sp.Expr):
        return None
    return form if fn.name == "evaluate" else 1 - form


def _phi_canonical(x: sp.Basic) -> sp.Basic:
    """One form for the symmetry of the standard normal, so that SymPy's simplification sees
    it: PhiInv(p) -> -PhiInv(1 - p) where 1 - p is the shorter expression (PhiInv(1 - x) =
    -PhiInv(x) on [0, 1], the ends included as -oo and oo), then Phi(-a) -> 1 - Phi(a)
    wherever the argument has a leading minus sign."""
    reps = {}
    for q in x.atoms(PhiInv):
        c = sp.expand(1 - q.args[0])
        if sp.count_ops(c) < sp.count_ops(q.args[0]):
            reps[q] = -PhiInv(c)
    if reps:
        x = x.xreplace(reps)
    reps = {p: 1 - Phi(-p.args[0]) for p in x.atoms(Phi) if p.args[0].could_extract_minus_sign()}
    return x.xreplace(reps) if reps else x


def _symbolic(lhs, rel, rhs):
    """(status, evidence, counterexample) when SymPy decides ``lhs rel rhs``, else None."""
    d = _phi_canonical(lhs - rhs)
    sym = " (after the symmetry of N(0, 1): Phi(-a) = 1 - Phi(a), PhiInv(1 - p) = -PhiInv(p))" \
        if d != lhs - rhs else ""
    try:
        ds = sp.simplify(d)
    except Exception:  # noqa: BLE001 - SymPy's simplify may fail on exotic input
        ds = d
    if ds == 0:
        return True, f"the difference simplifies to 0{sym}", None
    # the sign from SymPy's assumptions, only where it is symbolic reasoning (for a number,
    # SymPy decides the sign by a low-precision evaluation: interval arithmetic does it instead)
    if ds.free_symbols and (rel == "<=" and ds.is_nonpositive
                            or rel == ">=" and ds.is_nonnegative):
        return True, f"the difference {sp.sstr(ds)} has the claimed sign (SymPy's " \
            "assumptions)", None
    if rel == "==" and ds.is_zero is False and not ds.free_symbols \
            and not ds.has(Functional) and ds.is_finite:
        return False, f"the difference {sp.sstr(ds)} is non-zero", {"lhs": lhs, "rhs": rhs}
    return None


#: Seconds the cover of a scalar claim may take inside another route (the duality route's
#: profile claims), which gives up on it otherwise.
INNER_COVER_SECONDS = 10.0


def _scalar_claim(lhs, rel, rhs, box, dps, inner: bool = False):
    """The verdict tuple of a scalar claim; ``inner``: a part of another route, decided by
    proofs only (no sample points) and with the cover's budget of :data:`INNER_COVER_SECONDS`."""
    lv, rv = isinstance(lhs, Value), isinstance(rhs, Value)
    if not (lv or rv):
        (el, xl), (er, xr) = _expand(lhs), _expand(rhs)
        if xl or xr:
            st = _symbolic(el, rel, er)
            if st is not None and st[0] is True:
                return (True, "rewrite", st[1] + " after the closed forms of the functionals "
                        "(privacy profiles: Dong, Roth & Su, Cor. 1 and Eq. (5); values: the "
                        "families' formulas)", None, ())
        st = _symbolic(lhs, rel, rhs)
        if st is not None:
            if st[0] is False and not box:  # the counterexample as certified enclosures
                num = _scalar_point(lhs, rel, rhs, dps, {})
                if num[0] is False:
                    return (False, "rewrite", st[1] + "; " + num[2], num[3], ())
            return (st[0], "rewrite", st[1], st[2], ())
    if not box:
        return _scalar_point(lhs, rel, rhs, dps, {})
    if rel != "==" and not (lv or rv):
        d = lhs - rhs if rel == ">=" else rhs - lhs
        st, ev = prove_nonneg(d, box, dps, seconds=INNER_COVER_SECONDS if inner else None)
        if st is True:
            return True, "interval arithmetic", ev, None, ()
        if st is False:
            p = ev
            return _refute(lhs, rel, rhs, box, dps, False, {str(k): v for k, v in p.items()}) \
                or _scalar_point(lhs.xreplace(p), rel, rhs.xreplace(p), dps,
                                 {str(k): v for k, v in p.items()})
    if inner:
        return None, "interval arithmetic", "not proved over the box", None, ()
    held = 0
    points = sample_points(box)
    for p in points:
        try:
            st, method, ev, ce, _ = _scalar_point(
                lhs.xreplace(p) if isinstance(lhs, sp.Basic) else lhs, rel,
                rhs.xreplace(p) if isinstance(rhs, sp.Basic) else rhs, dps,
                {str(k): v for k, v in p.items()})
        except (InvalidParameter, NoClosedForm, NumericalError):
            continue
        if st is False:
            if isinstance(lhs, sp.Basic) and isinstance(rhs, sp.Basic):
                better = _refute(lhs, rel, rhs, box, dps, False, ce)
                if better is not None:
                    return better
            return st, method, f"fails at {_pt(p)}: {ev}", ce, ()
        held += st is True
    return (None, "sample points", f"no proof for the whole parameter box; proved at {held} of "
            f"{len(points)} sample points", None, ())


def _exactify(x: Any, dps: int) -> Any:
    """Functionals without free parameters whose value is exact, replaced by it."""
    if not isinstance(x, sp.Basic):
        return x
    reps = {}
    for fn in x.atoms(Functional):
        if not fn.free_symbols:
            try:
                v = functional_value(fn, dps)
            except (TradeOffError, ArithmeticError):
                continue
            if v.exact is not None:
                reps[fn] = sp.Rational(v.exact)
    return x.xreplace(reps) if reps else x


def _scalar_point(lhs, rel, rhs, dps, params):
    lhs, rhs = _exactify(lhs, dps), _exactify(rhs, dps)
    if isinstance(lhs, sp.Rational) and isinstance(rhs, sp.Rational):
        ok = {"==": lhs == rhs, "<=": lhs <= rhs, ">=": lhs >= rhs}[rel]
        ce = None if ok else {**params, "lhs": lhs, "rhs": rhs}
        return bool(ok), "exact", "rational arithmetic", ce, ()
    try:
        L = enclose(lhs, dps=dps)
        R = enclose(rhs, dps=dps)
    except Undecidable as exc:
        return None, "interval arithmetic", f"cannot enclose: {exc}", None, ()
    if L[0] == L[1] == R[0] == R[1] and mp.isinf(L[0]):  # both sides exactly the same infinity
        return True, "exact", "both sides are " + str(L[0]), None, ()
    st = _holds(*L, *R, rel)
    width = max(L[1] - L[0], R[1] - R[0])
    scale = max(abs(L[0]), abs(R[0]), mp.mpf(10) ** -300)
    # digits of agreement (an infinite end or width: none to report)
    digits = dps if width == 0 else (int(-mp.log10(width / scale))
                                     if mp.isfinite(width) and mp.isfinite(scale) else 0)
    if st is False:
        # the enclosures rounded outward to the fewest digits (from dps on) that keep them
        # disjoint: the counterexample certifies itself (exp(pi sqrt 163) is 7.5e-13 below an
        # integer of 18 digits, which 30 digits do not separate)
        for d in (dps, dps + 10, dps + 20):
            lv, rv = (Value.from_exact(x, d) if isinstance(x, sp.Rational)
                      else Value.enclosure(*X, d, guarantee="certified")
                      for x, X in ((lhs, L), (rhs, R)))
            if _holds(*lv.interval(), *rv.interval(), rel) is False:
                break
        ce = {**params, "lhs": lv, "rhs": rv}
        return False, "interval arithmetic", "the enclosures are disjoint", ce, ()
    if st is True:
        return True, "interval arithmetic", "certified enclosures", None, ()
    return (None, "interval arithmetic",
            f"the sides agree to about {digits} digits; equality of numbers that are not "
            "exact cannot be certified numerically", None, ())
