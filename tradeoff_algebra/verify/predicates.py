"""Predicates with three-valued verdicts: is ``f`` a trade-off function (Dong, Roth & Su,
Prop. 1), is it a member of a family (f_{eps,delta}, G_mu).

**Trade-off functions** (:func:`is_tradeoff`). Prop. 1: a function f on [0, 1] is a trade-off
function iff it is convex, continuous, non-increasing and f(alpha) <= 1 - alpha. For a SymPy
expression in alpha (``Max``, ``Min``, ``Abs`` and ``Piecewise`` are split into pieces) the four
conditions are decided on a certified cover of [0, 1] (:func:`~.cover.run_cover`): on each cell
of each piece, Arb ball enclosures (:func:`~.interval.enclose`, alpha carried as an interval) of
f, f' and f'' prove f <= 1 - alpha, f' <= 0 and f'' >= 0 (a finite enclosure of f over a closed
cell also proves that f is defined and continuous there); at each break point the one-sided
values are compared (exactly, by SymPy's simplification of the difference to 0, or by disjoint
balls) and the one-sided slopes must not decrease; f(1) = 0. A verdict is False only with a
certified witness: a point where f > 1 - alpha, a pair a < b with f(a) < f(b), three points
x < y < z with f(y) above the chord, a jump, or a point where f' > 0 or f'' < 0 on a whole cell
(an enclosure of the derivative of one sign). Cells that no enclosure decides (at the minimum
width, for instance next to an end where the derivative is unbounded) leave the verdict None,
with their location. A trade-off expression node is a trade-off function by construction (the
families are T(P, Q) of their pairs; the operators preserve trade-off functions).

**Family membership** (:func:`is_member`). f_{eps,delta}(alpha) = max{0, 1 - delta - e^eps
alpha, e^{-eps}(1 - delta - alpha)} (Dong, Roth & Su, Eq. (5)) is piecewise linear with one kink
where it is positive; G_mu = Phi(Phi^{-1}(1 - alpha) - mu) is smooth and, for mu > 0, strictly
convex on (0, 1). Decided so:

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
from dataclasses import dataclass
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
from ..printing import latex as tex
from ..rewrite import simplify
from .cover import run_cover
from .interval import Undecidable, enclose
from .verdict import Verdict

__all__ = ["PredicateVerdict", "is_tradeoff", "is_member", "is_not_member", "is_not_tradeoff",
           "negate", "FAMILIES"]

#: The budget of the cover of one piece: cells and seconds.
MAX_CELLS = 3000
SECONDS = 30.0


@dataclass(frozen=True)
class PredicateVerdict(Verdict):
    """A :class:`~.verdict.Verdict` of a predicate: ``lhs`` the function, ``rel`` the
    predicate (``"is"``, ``"is not"``, ``"in"``, ``"not in"``), ``rhs`` what it is claimed to
    be (``"a trade-off function"``, ``"{f_{eps,delta}}"``); ``counterexample`` holds the
    certified witness of a False verdict (or, for True, the parameters of the member in
    ``evidence``)."""

    def claim_latex(self) -> str:
        rel = {"is": r"\text{ is }", "is not": r"\text{ is not }", "in": r"\in",
               "not in": r"\notin"}.get(self.rel, self.rel)
        rhs = _RHS_LATEX.get(self.rhs, r"\text{%s}" % _text(str(self.rhs)))
        return f"{tex(self.lhs)} {rel} {rhs}"

    def latex(self) -> str:
        """The claim, its verdict and its evidence (the proof or the witness, in words) as a
        LaTeX display."""
        head = {True: r"\text{holds}", False: r"\text{fails}",
                None: r"\text{undecided}"}[self.status]
        lines = [self.claim_latex(), head + r" \quad (\text{%s})" % _text(self.method),
                 r"\text{%s}" % _text(self.evidence[:300])]
        return "\\begin{gather*}\n%s\n\\end{gather*}" % " \\\\\n".join(lines)


    def __str__(self) -> str:
        out = [f"{_show_f(self.lhs)} {self.rel} {self.rhs}",
               f"  {self.word.upper()} ({self.method}): {self.evidence}"]
        if self.counterexample:
            out.append("  witness: " + ", ".join(f"{k} = {_fmt_iv(v)}"
                                                 for k, v in self.counterexample.items()))
        return "\n".join(out)


def _show_f(f: Any) -> str:
    return sp.sstr(f) if isinstance(f, sp.Basic) else str(f)


_RHS_LATEX = {"a trade-off function": r"\text{a trade-off function}",
              "{f_{eps,delta} : eps >= 0, 0 <= delta <= 1}":
                  r"\{f_{\varepsilon,\delta} : \varepsilon \ge 0, 0 \le \delta \le 1\}",
              "{G_mu : mu >= 0}": r"\{G_\mu : \mu \ge 0\}"}


def _text(s: str) -> str:
    """Plain text for ``\\text{...}`` (LaTeX's special characters escaped)."""
    out = s.replace("\\", r"\textbackslash ")
    for c in "_{}&%#$":
        out = out.replace(c, "\\" + c)
    return out.replace("^", r"\^{}").replace("~", r"\~{}")


_NEG = {"is": "is not", "is not": "is", "in": "not in", "not in": "in"}


def negate(v: Verdict) -> PredicateVerdict:
    """The verdict of the negated predicate: True where ``v`` is False (its certified witness
    is the proof, kept in ``counterexample`` and ``evidence``), False where ``v`` is True (the
    proof of ``v`` refutes the negation), None where ``v`` is None."""
    st = None if v.status is None else not v.status
    rel = _NEG.get(v.rel, "not " + v.rel)
    return PredicateVerdict(v.lhs, rel, v.rhs, v.over, st, v.method, v.evidence,
                            v.counterexample, v.derivations, v.seconds)


# -- trade-off functions ------------------------------------------------------------------------
_TRADEOFF = "a trade-off function"


def _variable(expr: sp.Expr, alpha: Any) -> sp.Symbol:
    free = expr.free_symbols
    if alpha is None:
        if len(free) > 1:
            raise InvalidParameter("alpha", alpha, "the variable of the expression (it has "
                                   f"the symbols {sorted(map(str, free))})")
        return next(iter(free)) if free else sp.Symbol("alpha")
    if isinstance(alpha, str):
        alpha = sp.Symbol(alpha)
    if not isinstance(alpha, sp.Symbol):
        raise InvalidParameter("alpha", alpha, "a SymPy symbol")
    by_name = [s for s in free if s.name == alpha.name]
    extra = free - set(by_name)
    if extra:
        raise InvalidParameter("expr", expr, f"an expression in {alpha} alone (it has "
                               f"{sorted(map(str, extra))}); substitute the parameters first")
    return by_name[0] if by_name else alpha


def _read(expr: Any, alpha: Any) -> tuple[sp.Expr, sp.Symbol]:
    """The expression in a real variable ``t`` standing for alpha, floats exact."""
    if isinstance(expr, bool) or expr is None or isinstance(expr, str):
        raise InvalidParameter("expr", expr, "a SymPy expression in alpha or a trade-off "
                               "expression")
    try:
        e = sp.sympify(expr, strict=True)
    except (sp.SympifyError, TypeError) as exc:
        raise InvalidParameter("expr", expr, "a SymPy expression in alpha") from exc
    if not isinstance(e, sp.Expr) or e.has(sp.I):
        raise InvalidParameter("expr", expr, "a real SymPy expression in alpha")
    a = _variable(e, alpha)
    t = sp.Dummy("alpha", real=True)
    e = e.xreplace({a: t})
    floats = [f for f in e.atoms(sp.Float)]
    if floats:
        e = e.xreplace({f: sp.Rational(f) for f in floats})
    return e, t


@dataclass
class _Piece:
    lo: sp.Expr
    hi: sp.Expr
    g: sp.Expr


def _atoms_of(s: sp.Set) -> list:
    return list(s.args) if isinstance(s, sp.Union) else [s]


_SPLIT = (sp.Max, sp.Min, sp.Abs, sp.Piecewise, sp.Heaviside)


def _crossings(d: sp.Expr, t: sp.Symbol) -> list | None:
    """The roots of the polynomial ``d`` in (0, 1) as exact numbers, or None (not a
    polynomial, or roots without an explicit form)."""
    if not d.is_polynomial(t):
        return None
    poly = sp.Poly(d, t)
    if poly.is_zero or poly.degree() <= 0:
        return []
    roots = sp.roots(poly)
    if sum(roots.values()) != poly.degree():
        return None
    out = []
    for r in roots:
        if r.is_real is False:
            continue
        if r.has(sp.I):  # real roots written with complex radicals: not decided here
            return None
        if _compare(r, sp.Integer(0), 30) == 1 and _compare(r, sp.Integer(1), 30) == -1:
            out.append(r)
        elif _compare(r, sp.Integer(0), 30) is None or _compare(r, sp.Integer(1), 30) is None:
            return None
    return out


def _max_pieces(e: sp.Expr, t: sp.Symbol) -> list[_Piece] | None:
    """The pieces of a ``Max``/``Min`` of smooth polynomial-crossing arguments on [0, 1]: the
    break points are the exact crossings of the arguments; on each interval between them the
    largest (smallest) argument is picked at the midpoint by certified enclosures. None where
    this does not apply (SymPy's general splitting is used instead)."""
    if not isinstance(e, (sp.Max, sp.Min)) or any(a.has(*_SPLIT) for a in e.args):
        return None
    args = list(e.args)
    cuts = [sp.Integer(0), sp.Integer(1)]
    for i, g in enumerate(args):
        for h in args[i + 1:]:
            c = _crossings(sp.expand(g - h), t)
            if c is None:
                return None
            cuts += c
    cuts = sorted(cuts, key=_mid)
    uniq = [cuts[0]]
    for c in cuts[1:]:
        if not _equal(c, uniq[-1]):
            uniq.append(c)
    big = isinstance(e, sp.Max)
    pieces: list[_Piece] = []
    for lo, hi in zip(uniq, uniq[1:], strict=False):
        m = (lo + hi) / 2
        ivs = [enclose(g.xreplace({t: m}), dps=30) for g in args]
        pick = None
        for k, iv in enumerate(ivs):
            ok = True
            for j, jv in enumerate(ivs):
                if j == k or (iv[0] >= jv[1] if big else iv[1] <= jv[0]):
                    continue
                if (iv[1] < jv[0] if big else iv[0] > jv[1]) or not _equal(args[k], args[j]):
                    ok = False
                    break
            if ok:
                pick = args[k]
                break
        if pick is None:
            return None
        if pieces and pieces[-1].g == pick:
            pieces[-1].hi = hi
        else:
            pieces.append(_Piece(lo, hi, pick))
    return pieces


def _pieces(e: sp.Expr, t: sp.Symbol) -> tuple[list[_Piece], dict]:
    """The pieces of ``e`` on [0, 1] (intervals of positive length, sorted) and the values at
    the points that a piece of zero length holds."""
    try:
        quick = _max_pieces(e, t)
    except Undecidable:
        quick = None
    if quick is not None:
        return quick, {}
    e = sp.piecewise_fold(e.rewrite(sp.Piecewise)) if e.has(sp.Max, sp.Min, sp.Abs,
                                                               sp.Piecewise, sp.Heaviside) else e
    if not isinstance(e, sp.Piecewise):
        return [_Piece(sp.Integer(0), sp.Integer(1), e)], {}
    pieces, points = [], {}
    for g, s in e.as_expr_set_pairs(sp.Interval(0, 1)):
        for a in _atoms_of(s):
            if isinstance(a, sp.FiniteSet):
                for p in a:
                    points[p] = g
            elif isinstance(a, sp.Interval):
                if a.measure == 0:
                    points[a.start] = g
                else:
                    pieces.append(_Piece(a.start, a.end, g))
            elif a is not sp.S.EmptySet:
                raise Undecidable(f"a piece on {a}")
    pieces.sort(key=lambda p: _mid(p.lo))
    for p, q in zip(pieces, pieces[1:], strict=False):
        if not _equal(p.hi, q.lo):
            raise Undecidable(f"pieces that do not meet ({p.hi}, {q.lo})")
    if not pieces or not (_equal(pieces[0].lo, 0) and _equal(pieces[-1].hi, 1)):
        raise Undecidable("the pieces do not cover [0, 1]")
    return pieces, points


def _mid(x: sp.Expr):
    lo, hi = enclose(x, dps=30)
    return (lo + hi) / 2


def _equal(a: sp.Expr, b: sp.Expr) -> bool:
    """a == b proved: identical, a polynomial difference that expands to 0, or SymPy's
    simplification of the difference to 0 (a difference that Arb separates from 0 first)."""
    if a == b:
        return True
    d = a - b
    if d.is_Rational:
        return d == 0
    if d.is_number:
        try:
            lo, hi = enclose(d, dps=30)
            if lo > 0 or hi < 0:
                return False
        except Undecidable:
            pass
    elif d.is_polynomial(*d.free_symbols):
        return sp.expand(d) == 0
    try:
        return sp.simplify(d) == 0
    except Exception:  # noqa: BLE001 - SymPy's simplify may fail on exotic input
        return False


def _compare(a: sp.Expr, b: sp.Expr, dps: int) -> int | None:
    """-1, 0, +1 for a < b, a == b, a > b, proved (exact, SymPy, or disjoint Arb balls), or
    None."""
    if isinstance(a, sp.Rational) and isinstance(b, sp.Rational):
        return int(bool(a > b)) - int(bool(a < b))
    if _equal(a, b):
        return 0
    try:
        A, B = enclose(a, dps=dps), enclose(b, dps=dps)
    except Undecidable:
        return None
    if A[1] < B[0]:
        return -1
    if A[0] > B[1]:
        return +1
    return None


def _value_at(g: sp.Expr, t: sp.Symbol, c: sp.Expr, side: str | None = None) -> sp.Expr:
    """g at c, or its one-sided limit there when the substitution is not a finite number."""
    v = g.subs(t, c)
    if v.is_finite and v.is_extended_real is not False and not v.has(sp.nan, sp.zoo):
        return v
    if side is None:
        return v
    return sp.limit(g, t, c, dir=side)


def _iv(x: sp.Expr, env: dict | None, dps: int) -> tuple:
    return enclose(x, env, dps=dps)


def _show(x) -> str:
    return mp.nstr(x, 8) if isinstance(x, mp.mpf) else sp.sstr(x)


class _Decider:
    """The cell decision of one piece: f <= 1 - alpha, f' <= 0, f'' >= 0 on the cell."""

    def __init__(self, g: sp.Expr, t: sp.Symbol, dps: int):
        self.g, self.t, self.dps = g, t, dps
        self.h = sp.expand(g + t) if g.is_polynomial(t) else g + t
        self.g1 = sp.diff(g, t)
        self.g2 = sp.diff(self.g1, t)

    def env(self, cell: dict) -> dict:
        lo, hi = cell[self.t]
        return {self.t: (enclose(lo, dps=self.dps)[0], enclose(hi, dps=self.dps)[1])}

    def point(self, x: sp.Expr, c: sp.Expr) -> tuple:
        return _iv(x.xreplace({self.t: c}), None, self.dps)

    def __call__(self, cell: dict) -> tuple:
        t, dps = self.t, self.dps
        lo, hi = cell[t]
        env = self.env(cell)
        try:
            _iv(self.g, env, dps)  # defined and finite on the closed cell: continuous there
        except Undecidable:
            return None, None
        out = []
        for check in (self._bound, self._decreasing, self._convex):
            try:
                st, info = check(cell, env, lo, hi)
            except Undecidable:
                st, info = None, None
            if st is False:
                return False, info
            out.append(st)
        return (True, "") if all(s is True for s in out) else (None, None)

    def _bound(self, cell, env, lo, hi):
        dps = self.dps
        H = _iv(self.h, env, dps)
        if H[1] <= 1:
            return True, None
        c = (lo + hi) / 2
        Hc = self.point(self.h, c)
        if Hc[0] > 1:
            return False, {"alpha": c, "what": "f(alpha) > 1 - alpha",
                           "f": self.point(self.g, c), "1 - alpha": 1 - c}
        D = _iv(self.g1 + 1, env, dps)  # h' = f' + 1: h is monotone on the cell
        if D[0] >= 0 or D[1] <= 0:
            end = hi if D[0] >= 0 else lo
            He = self.point(self.h, end)
            if He[1] <= 1:
                return True, None
            if He[0] > 1:
                return False, {"alpha": end, "what": "f(alpha) > 1 - alpha",
                               "f": self.point(self.g, end), "1 - alpha": 1 - end}
        return None, None

    def _decreasing(self, cell, env, lo, hi):
        D = _iv(self.g1, env, self.dps)
        if D[1] <= 0:
            return True, None
        if D[0] > 0:
            A, B = self.point(self.g, lo), self.point(self.g, hi)
            ce = {"what": "f increases", "a": lo, "b": hi, "f(a)": A, "f(b)": B}
            if not A[1] < B[0]:
                ce = {"what": "f' > 0 on the cell", "cell": (lo, hi), "f'": D}
            return False, ce
        if D[1] > 0:  # undecided: an increasing pair among the centre and the ends?
            c = (lo + hi) / 2
            A, C, B = (self.point(self.g, x) for x in (lo, c, hi))
            for (x, X), (y, Y) in (((lo, A), (c, C)), ((c, C), (hi, B)), ((lo, A), (hi, B))):
                if X[1] < Y[0]:
                    return False, {"what": "f increases", "a": x, "b": y, "f(a)": X, "f(b)": Y}
        return None, None

    def _convex(self, cell, env, lo, hi):
        D = _iv(self.g2, env, self.dps)
        if D[0] >= 0:
            return True, None
        if D[1] < 0:
            ce = _chord_violation(self.g, self.t, lo, (lo + hi) / 2, hi, self.dps)
            return False, ce or {"what": "f'' < 0 on the cell", "cell": (lo, hi), "f''": D}
        if D[0] < 0:  # undecided: is f above its chord at the centre?
            ce = _chord_violation(self.g, self.t, lo, (lo + hi) / 2, hi, self.dps)
            if ce is not None:
                return False, ce
        return None, None


def _chord_violation(g, t, x, y, z, dps, left=None, right=None) -> dict | None:
    """Three points x < y < z with (z - x) f(y) > (z - y) f(x) + (y - x) f(z), certified, or
    None. ``left``/``right``: the expressions of f at x and z when f is piecewise."""
    fx = _iv((left if left is not None else g).xreplace({t: x}), None, dps)
    fy = _iv(g.xreplace({t: y}), None, dps)
    fz = _iv((right if right is not None else g).xreplace({t: z}), None, dps)
    FX, FY, FZ = sp.symbols("FX FY FZ")
    lhs = _iv((z - x) * FY - (z - y) * FX - (y - x) * FZ, {FX: fx, FY: fy, FZ: fz}, dps)
    if lhs[0] > 0:
        return {"what": "f above its chord (not convex)", "x": x, "y": y, "z": z,
                "f(x)": fx, "f(y)": fy, "f(z)": fz}
    return None


def _tradeoff_node(f: TradeOff) -> PredicateVerdict:
    if f.free_symbols:
        return PredicateVerdict(f, "is", _TRADEOFF, {}, None, "construction",
                                "a trade-off expression with free parameters "
                                f"{sorted(map(str, f.free_symbols))}: a trade-off function "
                                "for the parameter values its constructor accepts, which are "
                                "not decided here")
    return PredicateVerdict(f, "is", _TRADEOFF, {}, True, "construction",
                            "a trade-off expression node: the families are T(P, Q) of their "
                            "pairs and the operators map trade-off functions to trade-off "
                            "functions (Dong, Roth & Su, Sec. 2-4), by construction")


def is_tradeoff(expr: Any, alpha: Any = None, dps: int = 30, max_cells: int = MAX_CELLS,
                seconds: float = SECONDS) -> PredicateVerdict:
    """Is ``expr`` a trade-off function of ``alpha`` on [0, 1]? (Dong, Roth & Su, Prop. 1:
    convex, continuous, non-increasing, f(alpha) <= 1 - alpha.)

    ``expr`` is a SymPy expression in ``alpha`` (``Max``, ``Min``, ``Abs``, ``Piecewise``
    allowed) or a trade-off expression (True by construction). Returns a
    :class:`PredicateVerdict`: True with the certified cover (module docstring), False with a
    certified witness in ``counterexample``, None with the cells or points left undecided."""
    if isinstance(expr, TradeOff):
        return _tradeoff_node(expr)
    if isinstance(dps, bool) or not isinstance(dps, int) or not 5 <= dps <= 1000:
        raise InvalidParameter("dps", dps, "an integer in [5, 1000]")
    t0 = time.perf_counter()
    e, t = _read(expr, alpha)
    shown = sp.sympify(expr)

    def verdict(st, method, ev, ce=None):
        return PredicateVerdict(shown, "is", _TRADEOFF, {}, st, method, ev, ce,
                                seconds=time.perf_counter() - t0)

    with mp.workdps(dps + 20):
        try:
            pieces, points = _pieces(e, t)
        except Undecidable as exc:
            return verdict(None, "certified cover", f"cannot split into pieces: {exc}")
        st, ev, ce = _breakpoints(pieces, points, t, dps)
        if st is False:
            return verdict(False, "counterexample", ev, ce)
        notes = [ev] if st is None else []
        cells = 0
        for p in pieces:
            dec = _Decider(p.g, t, dps)
            lo, hi = _inner(p, t, dps)
            for end, inner in ((p.lo, lo), (p.hi, hi)):
                if end != inner:
                    notes.append(f"f is not enclosed at alpha = {end} (the piece "
                                 f"{sp.sstr(p.g)}): [{_show(min(end, inner))}, "
                                 f"{_show(max(end, inner))}] undecided")
            res = run_cover({t: (lo, hi)}, dec, max_cells, seconds)
            if res.status is False:
                return verdict(False, "counterexample", _witness_text(res.counterexample),
                               _ce(res.counterexample))
            cells += res.cells
            if res.status is None:
                where = "; ".join(f"[{_show(c[t][0])}, {_show(c[t][1])}]"
                                  for c in res.undecided[:3])
                notes.append(f"{len(res.undecided)} cells of the piece {sp.sstr(p.g)} "
                             f"undecided ({where}{', ...' if len(res.undecided) > 3 else ''})")
    if notes:
        return verdict(None, "certified cover", "; ".join(notes))
    return verdict(True, "certified cover",
                   f"continuous, non-increasing, convex and f <= 1 - alpha on [0, 1]: "
                   f"{len(pieces)} piece(s), {cells} cells (Arb ball enclosures of f, f', f''), "
                   "one-sided values and slopes at the break points compared, f(1) = 0; a "
                   "trade-off function by Dong, Roth & Su, Prop. 1")


#: The sliver left undecided at an end of a piece where f is not enclosed (relative width).
SLIVER = sp.Rational(1, 2**30)


def _inner(p: _Piece, t: sp.Symbol, dps: int) -> tuple:
    """The piece's ends, each moved inward by a sliver where f, f' or f'' is not enclosed at
    the end itself (an unbounded slope at alpha = 0 or 1): no cell of the cover could decide
    there, so the sliver is reported undecided at once."""
    w = (p.hi - p.lo) * SLIVER
    out = []
    for end, step in ((p.lo, w), (p.hi, -w)):
        try:
            for x in (p.g, sp.diff(p.g, t), sp.diff(p.g, t, 2)):
                enclose(x.xreplace({t: end}), dps=dps)
            out.append(end)
        except (Undecidable, TypeError, ValueError):
            out.append(end + step)
    return out[0], out[1]


def _ce(info: dict) -> dict:
    return {k: v for k, v in info.items() if k != "what"}


def _witness_text(info: dict) -> str:
    rest = ", ".join(f"{k} = {_fmt_iv(v)}" for k, v in info.items() if k != "what")
    return f"certified witness: {info['what']} ({rest})"


def _fmt_iv(v) -> str:
    if isinstance(v, tuple) and len(v) == 2:
        return f"[{_show(v[0])}, {_show(v[1])}]"
    return _show(v)


def _breakpoints(pieces: list[_Piece], points: dict, t, dps) -> tuple:
    """Continuity and the slope order at the ends of the pieces; f(1) = 0.
    Returns (status, evidence, counterexample)."""
    ends = [p.lo for p in pieces] + [pieces[-1].hi]
    undecided = []
    for i, c in enumerate(ends):
        left = pieces[i - 1].g if i > 0 else None
        right = pieces[i].g if i < len(pieces) else None
        own = points.get(c)
        vals = []
        if left is not None:
            vals.append(("lim f(alpha), alpha -> c-", _value_at(left, t, c, "-")))
        if own is not None:
            vals.append(("f(c)", _value_at(own, t, c)))
        elif i == 0 or i == len(pieces):
            g = right if i == 0 else left
            vals.append(("f(c)", g.subs(t, c)))
        if right is not None:
            vals.append(("lim f(alpha), alpha -> c+", _value_at(right, t, c, "+")))
        for name, v in vals:
            if v.has(sp.nan, sp.zoo) or v.is_extended_real is False or v.is_infinite:
                return False, f"f is not a finite real number near alpha = {c} ({name} = {v})", \
                    {"alpha": c, name: v}
        for (n1, v1), (n2, v2) in zip(vals, vals[1:], strict=False):
            cmp = _compare(v1, v2, dps)
            if cmp is None:
                undecided.append(f"continuity at alpha = {c}")
            elif cmp != 0:
                return False, (f"certified witness: f jumps at alpha = {c} ({n1} = {v1}, "
                               f"{n2} = {v2}); a trade-off function is continuous"), \
                    {"alpha": c, n1: v1, n2: v2}
        if c == 1 or _equal(c, 1):
            v = vals[-1][1] if own is None else _value_at(own, t, c)
            cmp = _compare(v, sp.Integer(0), dps)
            if cmp is None:
                undecided.append("f(1) = 0")
            elif cmp > 0:
                return False, f"certified witness: f(1) = {v} > 0 = 1 - alpha", \
                    {"alpha": 1, "f": v}
            elif cmp < 0:
                return False, f"certified witness: f(1) = {v} < 0, outside [0, 1]", \
                    {"alpha": 1, "f": v}
        if left is not None and right is not None:
            st = _slopes(left, right, t, c, dps, pieces[i - 1].lo, pieces[i].hi)
            if st is None:
                undecided.append(f"the slopes at alpha = {c}")
            elif st is not True:
                return False, _witness_text(st), _ce(st)
    if undecided:
        return None, "undecided: " + ", ".join(undecided), None
    return True, "", None


def _slopes(left, right, t, c, dps, lo, hi):
    """The left slope at the break point c must not exceed the right slope (convexity):
    True, a witness dict, or None."""
    try:
        L = _compare(sp.diff(left, t).subs(t, c), sp.diff(right, t).subs(t, c), dps)
    except (Undecidable, TypeError):
        return None
    if L is None:
        return None
    if L <= 0:
        return True
    for k in range(1, 40):  # three points c - h, c, c + h with f(c) above the chord
        h = min(c - lo, hi - c) / 2**k
        try:
            ce = _chord_violation(right, t, c - h, c, c + h, dps, left=left, right=right)
        except Undecidable:
            ce = None
        if ce is not None:
            return ce
    return {"what": "the slope decreases at a break point (not convex)", "alpha": c}


def is_not_tradeoff(expr: Any, alpha: Any = None, dps: int = 30) -> PredicateVerdict:
    """The negation of :func:`is_tradeoff`: True with a certified witness."""
    return negate(is_tradeoff(expr, alpha, dps))


# -- family membership --------------------------------------------------------------------------
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
        pieces, _ = _pieces(e, t)
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
        if _compare(x, a1, dps) in (-1, 0):
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
    d = _iv((z - y) * X + (y - x) * Z - (z - x) * Y, {X: fx, Y: fy, Z: fz}, dps)
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
    if f0 == 0 or _equal(f0, 0):
        return True, "f(0) = 0: f = Zero = f_{0,1}", {"eps": 0, "delta": 1}
    (a0, v0), (a1, v1) = knots[0], knots[1]
    slope = sp.simplify((v1 - v0) / (a1 - a0))
    d = sp.simplify(1 - f0)
    if _compare(-slope, sp.Integer(1), dps) == -1:
        return False, (f"the slope at 0 is {slope} > -1, while f_{{eps,delta}} starts with "
                       "slope -e^eps <= -1"), {"slope at 0": slope}
    eps = sp.log(sp.nsimplify(-slope)) if (-slope).is_Rational else sp.log(-slope)
    try:
        cand = _epsdelta(eps, d)
    except InvalidParameter as exc:
        return None, f"no candidate f_{{eps,delta}}: {exc}", None
    ck = _knots(cand)
    xs = sorted({*(a for a, _ in knots), *(a for a, _ in ck)}, key=lambda x: _mid(x))
    for x in xs:
        fv, cv = _pl_eval(knots, x, dps), _pl_eval(ck, x, dps)
        cmp = _compare(fv, cv, dps)
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
    cmps = [(a, v, _compare(v, 1 - a, dps)) for a, v in knots]
    off = [(a, v) for a, v, c in cmps if c in (-1, 1)]
    if not off:
        if any(c is None for _, _, c in cmps):
            return None, "cannot decide whether f = Id at every knot", None
        return True, "f = Id = G_0 (every knot on 1 - alpha)", {"mu": 0}
    # f is affine between consecutive knots; G_mu (mu > 0) is strictly convex on (0, 1)
    for (a0, _), (a1, _) in zip(knots, knots[1:], strict=False):
        if _compare(a0, a1, dps) == -1:
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
    mu_iv = _iv(PhiInv(1 - v), {v: half}, dps)  # mu = Phi^{-1}(1 - f(1/2))
    if mu_iv[1] < 0:
        return False, "f(1/2) > 1/2 = Id(1/2): above every G_mu", {"alpha": sp.Rational(1, 2)}
    for x in (sp.Rational(1, 10), sp.Rational(1, 4), sp.Rational(3, 4), sp.Rational(9, 10),
              sp.Rational(1, 100)):
        try:
            fx = vals(x)
            gx = _iv(Phi(PhiInv(1 - x) - mu_s), {mu_s: mu_iv}, dps)
        except (Undecidable, NoClosedForm, NumericalError, InvalidParameter):
            continue
        if fx[1] < gx[0] or fx[0] > gx[1]:
            return False, (f"f(1/2) in [{_show(half[0])}, {_show(half[1])}] leaves only G_mu "
                           f"with mu in [{_show(mu_iv[0])}, {_show(mu_iv[1])}]; at alpha = {x} "
                           f"f in [{_show(fx[0])}, {_show(fx[1])}] and every such G_mu in "
                           f"[{_show(gx[0])}, {_show(gx[1])}] (certified, disjoint)"), \
                {"alpha": x, "f": fx, "G_mu": gx, "mu": mu_iv}
    return None, (f"f agrees with G_mu, mu in [{_show(mu_iv[0])}, {_show(mu_iv[1])}], at the "
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
        e, t = _read(f, alpha)
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
