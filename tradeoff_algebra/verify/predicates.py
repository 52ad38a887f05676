"""Predicates with three-valued verdicts: is ``f`` a trade-off function (Dong, Roth & Su,
Prop. 1)? The verdict type of predicates, :class:`PredicateVerdict`, and :func:`negate`.

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

Family membership (f_{eps,delta}, G_mu) is :mod:`.membership`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import sympy as sp

from ..core.errors import InvalidParameter
from ..core.node import TradeOff
from ..numeric.context import mp
from ..printing import latex as tex
from .cover import run_cover
from .interval import Undecidable, enclose
from .pieces import Piece, ball_iv, compare, proved_equal, show_num, split_pieces, value_at
from .verdict import Verdict

__all__ = ["PredicateVerdict", "is_tradeoff", "is_not_tradeoff", "negate"]

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
            out.append("  witness: " + ", ".join(f"{k} = {_fmtball_iv(v)}"
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


def read_expr(expr: Any, alpha: Any) -> tuple[sp.Expr, sp.Symbol]:
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
        return ball_iv(x.xreplace({self.t: c}), None, self.dps)

    def __call__(self, cell: dict) -> tuple:
        t, dps = self.t, self.dps
        lo, hi = cell[t]
        env = self.env(cell)
        try:
            ball_iv(self.g, env, dps)  # defined and finite on the closed cell: continuous there
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
        H = ball_iv(self.h, env, dps)
        if H[1] <= 1:
            return True, None
        c = (lo + hi) / 2
        Hc = self.point(self.h, c)
        if Hc[0] > 1:
            return False, {"alpha": c, "what": "f(alpha) > 1 - alpha",
                           "f": self.point(self.g, c), "1 - alpha": 1 - c}
        D = ball_iv(self.g1 + 1, env, dps)  # h' = f' + 1: h is monotone on the cell
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
        D = ball_iv(self.g1, env, self.dps)
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
        D = ball_iv(self.g2, env, self.dps)
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
    fx = ball_iv((left if left is not None else g).xreplace({t: x}), None, dps)
    fy = ball_iv(g.xreplace({t: y}), None, dps)
    fz = ball_iv((right if right is not None else g).xreplace({t: z}), None, dps)
    FX, FY, FZ = sp.symbols("FX FY FZ")
    lhs = ball_iv((z - x) * FY - (z - y) * FX - (y - x) * FZ, {FX: fx, FY: fy, FZ: fz}, dps)
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
    e, t = read_expr(expr, alpha)
    shown = sp.sympify(expr)

    def verdict(st, method, ev, ce=None):
        return PredicateVerdict(shown, "is", _TRADEOFF, {}, st, method, ev, ce,
                                seconds=time.perf_counter() - t0)

    with mp.workdps(dps + 20):
        try:
            pieces, points = split_pieces(e, t)
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
                                 f"{sp.sstr(p.g)}): [{show_num(min(end, inner))}, "
                                 f"{show_num(max(end, inner))}] undecided")
            res = run_cover({t: (lo, hi)}, dec, max_cells, seconds)
            if res.status is False:
                return verdict(False, "counterexample", _witness_text(res.counterexample),
                               _ce(res.counterexample))
            cells += res.cells
            if res.status is None:
                where = "; ".join(f"[{show_num(c[t][0])}, {show_num(c[t][1])}]"
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


def _inner(p: Piece, t: sp.Symbol, dps: int) -> tuple:
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
    rest = ", ".join(f"{k} = {_fmtball_iv(v)}" for k, v in info.items() if k != "what")
    return f"certified witness: {info['what']} ({rest})"


def _fmtball_iv(v) -> str:
    if isinstance(v, tuple) and len(v) == 2:
        return f"[{show_num(v[0])}, {show_num(v[1])}]"
    return show_num(v)


def _breakpoints(pieces: list[Piece], points: dict, t, dps) -> tuple:
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
            vals.append(("lim f(alpha), alpha -> c-", value_at(left, t, c, "-")))
        if own is not None:
            vals.append(("f(c)", value_at(own, t, c)))
        elif i == 0 or i == len(pieces):
            g = right if i == 0 else left
            vals.append(("f(c)", g.subs(t, c)))
        if right is not None:
            vals.append(("lim f(alpha), alpha -> c+", value_at(right, t, c, "+")))
        for name, v in vals:
            if v.has(sp.nan, sp.zoo) or v.is_extended_real is False or v.is_infinite:
                return False, f"f is not a finite real number near alpha = {c} ({name} = {v})", \
                    {"alpha": c, name: v}
        for (n1, v1), (n2, v2) in zip(vals, vals[1:], strict=False):
            cmp = compare(v1, v2, dps)
            if cmp is None:
                undecided.append(f"continuity at alpha = {c}")
            elif cmp != 0:
                return False, (f"certified witness: f jumps at alpha = {c} ({n1} = {v1}, "
                               f"{n2} = {v2}); a trade-off function is continuous"), \
                    {"alpha": c, n1: v1, n2: v2}
        if c == 1 or proved_equal(c, 1):
            v = vals[-1][1] if own is None else value_at(own, t, c)
            cmp = compare(v, sp.Integer(0), dps)
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
        L = compare(sp.diff(left, t).subs(t, c), sp.diff(right, t).subs(t, c), dps)
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
