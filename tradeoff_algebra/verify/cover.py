"""Certified covers of a parameter box: a claim ``lhs rel rhs`` decided on every sub-box.

The box is split into sub-boxes (cells); on each cell both sides are enclosed with Arb ball
arithmetic (:mod:`.interval`, the symbols carried as intervals), and the cell is **proved**
when the enclosures are ordered. Before enclosing, each symbol in which the claim's difference
is monotone on the cell is fixed at its worst end (the *face*), which is both the classical
monotonicity test of interval methods and the way a box end where the two sides touch is
decided: at a face where the sides are the same expression (SymPy's simplification of the
difference to 0, or the same node) a non-strict claim holds by structure, not by a gap.

Monotonicity in a symbol is proved, never assumed:

* a smooth closed form (no ``Abs``, ``Max``, ``Piecewise``, ...) by the sign of its derivative,
  enclosed over the cell;
* a trade-off expression by the registered directions of its families and operators in their
  parameters and operands (``numeric.capability.monotonicity``: G_mu non-increasing in mu, Dong,
  Roth & Su, Sec. 2.2; f_{eps,delta} in eps and delta, Eq. (5); the operators by Lemma 4 and
  Sec. 4.1) composed with the derivative signs of the parameter expressions;
* a functional of a trade-off expression with free symbols
  (:class:`~tradeoff_algebra.analysis.lazy.Functional`): ``f(alpha)`` is non-decreasing in f and
  non-increasing in alpha; ``1 - f(alpha)`` the reverse; ``delta_f(eps)`` and ``eps_f(delta)`` are
  non-increasing in f and in their scalar argument. Over a cell such a functional is enclosed by
  its certified values at the two extreme corners.

A cell that no enclosure decides is tested at its centre (a certified point evaluation of both
sides: a **counterexample** when they are disjoint in the wrong order), then bisected: the
symbol of largest relative width, at the geometric mean when the cell spans decades of a
positive symbol. What remains undecided when the budget runs out is reported, never counted as
proved. :func:`cover` is the scalar form; ``verify`` uses it for scalar claims over a box
(``box.prove_nonneg``) and, through :func:`run_cover` with its own cell decision, for claims
between trade-off functions over a box (pointwise in alpha at the extreme corners).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import sympy as sp

from ..analysis.lazy import FUNCTIONALS, Functional
from ..core.errors import InvalidParameter, NoClosedForm, NumericalError
from ..core.node import TradeOff
from ..core.normal import Phi
from ..core.validate import mpf_rational
from ..numeric import budget
from ..numeric.arb import arb_exact
from ..numeric.arb_expr import enclose_interval, interval
from ..numeric.capability import monotonicity
from ..numeric.context import arb_precision, mp
from ..numeric.value import dps_to_prec
from .interval import Undecidable, _value_interval, enclose, functional_value

__all__ = ["Cover", "cover", "run_cover", "node_direction", "scalar_direction",
           "corner_node", "has_directions", "split_cell"]

#: Default budget of a cover: cells examined and seconds.
MAX_CELLS = 4000
SECONDS = 120.0
#: The narrowest cell split further, relative to the box.
MIN_WIDTH = 2.0**-40

#: Functions whose closed forms are not smooth: no derivative test through them.
_NONSMOOTH = (sp.Abs, sp.Max, sp.Min, sp.Piecewise, sp.floor, sp.ceiling, sp.sign,
              sp.Heaviside)

#: How a functional moves with its operand f (pointwise order) and with its scalar argument.
_FUNCTIONAL_DIRS = {"evaluate": (+1, -1), "roc": (-1, +1), "delta": (-1, -1),
                    "epsilon": (-1, -1)}


@dataclass
class Cover:
    """The outcome of a cover: ``status`` True (every cell decided), False (a certified
    counterexample, ``counterexample``: the point and both sides' enclosures) or None (the
    ``undecided`` cells, each a dict symbol -> (lo, hi)); ``cells``: the cells proved;
    ``faces``: the cells decided at a face where the sides are the same expression."""

    status: bool | None
    cells: int = 0
    faces: int = 0
    undecided: list = field(default_factory=list)
    counterexample: dict | None = None
    seconds: float = 0.0

    @property
    def evidence(self) -> str:
        if self.status is True:
            s = f"certified cover of the box by {self.cells} cells (Arb ball arithmetic"
            s += (f"; {self.faces} decided at a face where the sides coincide)" if self.faces
                  else ")")
            return s
        if self.status is False:
            pt = ", ".join(f"{k} = {v}" for k, v in self.counterexample.items()
                           if k not in ("lhs", "rhs"))
            return f"certified counterexample at {pt}"
        where = "; ".join(_show_cell(c) for c in self.undecided[:3])
        return (f"certified cover: {self.cells} cells proved, {len(self.undecided)} undecided "
                f"({where}{', ...' if len(self.undecided) > 3 else ''})")


def _show_cell(cell: dict) -> str:
    return ", ".join(f"{k} in [{_num(lo)}, {_num(hi)}]" if lo != hi else f"{k} = {_num(lo)}"
                     for k, (lo, hi) in cell.items())


def _num(x: sp.Expr) -> str:
    s = sp.sstr(x)
    return s if len(s) <= 14 else mp.nstr(mp.mpf(sp.Float(x, 20)), 6)


# -- directions -----------------------------------------------------------------------------------
def _env(cell: dict, dps: int) -> dict:
    """The cell as mpf intervals, rounded outward."""
    return {s: (enclose(lo, dps=dps)[0], enclose(hi, dps=dps)[1])
            for s, (lo, hi) in cell.items()}


def _combine(ds: list) -> int | None:
    if any(d is None for d in ds):
        return None
    signs = {d for d in ds if d != 0}
    if len(signs) > 1:
        return None
    return signs.pop() if signs else 0


_DIFF: dict = {}


def scalar_direction(x: Any, s: sp.Symbol, cell: dict, dps: int = 20) -> int | None:
    """+1 if the scalar ``x`` is proved non-decreasing in ``s`` on ``cell``, -1 non-increasing,
    0 if it does not depend on ``s``, None if not proved. Sums and products by numbers combine
    their terms; a functional by its operand and argument (module docstring); any other
    expression by the enclosed sign of its derivative (smooth closed forms only)."""
    if not isinstance(x, sp.Basic) or s not in x.free_symbols:
        return 0
    if isinstance(x, Functional):
        return _functional_direction(x, s, cell, dps)
    if x.has(Functional):
        if isinstance(x, sp.Add):
            return _combine([scalar_direction(a, s, cell, dps) for a in x.args])
        if isinstance(x, sp.Mul):
            coeff, rest = x.as_independent(s, as_Add=False)
            if coeff.is_number and coeff.is_comparable and not rest.is_Mul:
                d = scalar_direction(rest, s, cell, dps)
                return None if d is None else (d if coeff > 0 else -d)
        return None
    if x.has(*_NONSMOOTH):
        return None
    key = (x, s)
    d = _DIFF.get(key)
    if d is None:
        d = _DIFF[key] = sp.diff(x, s)
        if len(_DIFF) > 4096:
            _DIFF.clear()
    if d == 0:
        return 0
    if _inside_assumptions(cell):
        # the sign of the derivative from SymPy's assumptions on the symbols (the cell lies in
        # their domain, up to its closure, where the closed form is continuous)
        if d.is_nonnegative is True:
            return +1
        if d.is_nonpositive is True:
            return -1
    return _sign_over(d, cell, dps, SIGN_DEPTH)


#: Derivatives taken by :func:`_sign_over` when an enclosure alone does not fix a sign.
SIGN_DEPTH = 2


def _inside_assumptions(cell: dict) -> bool:
    """Every symbol of ``cell`` has a range its assumptions allow, up to the closure, and none
    is an integer (a sign SymPy derives at the integers says nothing between them)."""
    for s, (lo, hi) in cell.items():
        if s.is_integer:
            return False
        if (s.is_nonnegative or s.is_positive) and not bool(lo >= 0):
            return False
        if (s.is_nonpositive or s.is_negative) and not bool(hi <= 0):
            return False
    return True


def _is_zero(x: sp.Expr) -> bool:
    """``x == 0`` proved exactly (SymPy's simplification; numbers alone never prove it)."""
    if x == 0:
        return True
    if not isinstance(x, sp.Expr) or sp.count_ops(x) > 200:
        return False
    try:
        return sp.simplify(x) == 0
    except Exception:  # noqa: BLE001 - SymPy's simplify may fail on exotic input
        return False


def _sign_over(e: sp.Expr, cell: dict, dps: int, depth: int) -> int | None:
    """+1 if ``e >= 0`` on ``cell`` (proved), -1 if ``e <= 0``, None if not proved.

    Its Arb enclosure over the cell decides when it keeps one sign. Where ``e`` touches 0 (the
    derivative of a difference at a point of tangency: 1 - cos x at x = 0), the enclosure
    straddles 0 however fine the cell; then, with one symbol varying, ``e`` is monotone on the
    cell when its own derivative has a proved sign (recursively, ``depth`` times), so its range
    lies between its values at the two ends, each decided exactly (0 by SymPy's
    simplification) or by its enclosure."""
    env = _env(cell, dps)
    try:
        lo, hi = enclose(e, env, dps=dps)
    except Undecidable:
        try:  # cosh, ... in exponentials (the ball rules know exp)
            lo, hi = enclose(e.rewrite(sp.exp), env, dps=dps)
        except Undecidable:
            lo = hi = None
    if lo is not None:
        if lo >= 0:
            return +1
        if hi <= 0:
            return -1
    if depth <= 0 or e.has(*_NONSMOOTH) or e.has(Functional):
        return None
    moving = [s for s in e.free_symbols if s in cell and cell[s][0] != cell[s][1]]
    if len(moving) != 1:
        return None
    s = moving[0]
    if _sign_over(sp.diff(e, s), cell, dps, depth - 1) is None:
        return None
    rest = {k: v for k, v in cell.items() if k != s}
    ends = []
    for end in cell[s]:
        v = e.xreplace({s: end})
        ends.append(0 if _is_zero(v) else _sign_over(v, rest, dps, 0))
    if None in ends:
        return None
    if min(ends) >= 0:
        return +1
    if max(ends) <= 0:
        return -1
    return None


def _functional_direction(x: Functional, s, cell, dps) -> int | None:
    dirs = _FUNCTIONAL_DIRS.get(x.name)
    if dirs is None or len(x.scalars) != 1:
        return None
    df = node_direction(x.operand, s, cell, dps)
    dx = scalar_direction(x.scalars[0], s, cell, dps)
    if df is None or dx is None:
        return None
    return _combine([dirs[0] * df, dirs[1] * dx])


def node_direction(f: Any, s: sp.Symbol, cell: dict, dps: int = 20) -> int | None:
    """+1 if the trade-off expression ``f`` is proved non-decreasing in ``s`` on ``cell`` (in
    the pointwise order of trade-off functions), -1 non-increasing, 0 independent, None not
    proved: the registered directions of the node in its arguments composed with the
    directions of the arguments in ``s``."""
    if s not in f.free_symbols:
        return 0
    dirs = monotonicity(f)
    if dirs is None:
        return None
    if dirs == "all+":
        dirs = (+1,) * len(f.args)
    if len(dirs) != len(f.args):
        return None
    out = []
    for a, d in zip(f.args, dirs, strict=True):
        if not isinstance(a, sp.Basic) or s not in a.free_symbols:
            continue
        sub = (node_direction(a, s, cell, dps) if isinstance(a, TradeOff)
               else scalar_direction(a, s, cell, dps))
        if sub is None or d is None:
            return None
        out.append(d * sub)
    return _combine(out)


def has_directions(f: Any) -> bool:
    """Whether every node of ``f`` with free symbols has registered directions (so that
    :func:`node_direction` can succeed once its parameter expressions are proved monotone)."""
    if not isinstance(f, TradeOff) or not f.free_symbols:
        return True
    if monotonicity(f) is None:
        return False
    return all(has_directions(a) for a in f.args if isinstance(a, TradeOff))


def _scalar_end(a: sp.Expr, cell: dict, sign: int, dps: int) -> sp.Expr | None:
    """The largest (``sign > 0``) or smallest value of the scalar ``a`` on ``cell``, or a
    bound beyond it: exact at a corner where ``a`` is proved monotone in every symbol, else
    the end of its Arb enclosure as a rational."""
    reps = {}
    for s, (lo, hi) in cell.items():
        if s not in a.free_symbols:
            continue
        d = scalar_direction(a, s, cell, dps) if lo != hi else 0
        if d is None:
            break
        reps[s] = (hi if d * sign > 0 else lo) if d != 0 else lo
    else:
        return a.xreplace(reps)
    try:
        lo, hi = enclose(a, _env(cell, dps), dps=dps)
    except Undecidable:
        return None
    return _rational(hi if sign > 0 else lo)


def corner_node(f: TradeOff, cell: dict, want: int, dps: int = 20) -> TradeOff | None:
    """A parameter-free trade-off expression below (``want = -1``) or above (``want = +1``)
    ``f`` for every parameter value in ``cell``, or None: each argument of each node moved to
    the end of its range on the cell where the node is smallest (largest), by the node's
    registered directions; a parameter expression's range is exact at a corner where it is
    proved monotone in the symbols, else its enclosure."""
    if not f.free_symbols:
        return f
    dirs = monotonicity(f)
    if dirs is None:
        return None
    if dirs == "all+":
        dirs = (+1,) * len(f.args)
    if len(dirs) != len(f.args):
        return None
    args = []
    for a, d in zip(f.args, dirs, strict=True):
        if not isinstance(a, sp.Basic) or not a.free_symbols:
            args.append(a)
            continue
        if d is None:
            return None
        v = (corner_node(a, cell, want * d, dps) if isinstance(a, TradeOff)
             else _scalar_end(a, cell, want * d, dps))
        if v is None:
            return None
        args.append(v)
    try:
        return f.func(*args)
    except (InvalidParameter, ValueError, TypeError):
        return None


# -- enclosures over a cell -----------------------------------------------------------------------
def _rational(x) -> sp.Rational:
    return mpf_rational(mp.mpf(x))


class _Encloser:
    """Enclosures of the scalar sides over cells; functionals with free symbols by their
    certified values at the extreme corners (cached)."""

    def __init__(self, dps: int):
        self.dps = dps
        self.cache: dict = {}

    def value(self, name: str, f: TradeOff, x: sp.Expr) -> tuple:
        key = (name, f, x)
        iv = self.cache.get(key)
        if iv is None:
            func, _ = FUNCTIONALS[name]
            try:
                iv = _value_interval(func(f, x, dps=self.dps))
            except (NoClosedForm, InvalidParameter) as exc:
                raise Undecidable(f"{name}({f}, {x}): {exc}") from exc
            except NumericalError as exc:
                if isinstance(exc, Undecidable):
                    raise
                raise Undecidable(f"{name}({f}, {x}): {exc}") from exc
            self.cache[key] = iv
            if len(self.cache) > 20000:
                self.cache.clear()
        return iv

    def functional(self, x: Functional, cell: dict, env: dict) -> tuple:
        dirs = _FUNCTIONAL_DIRS.get(x.name)
        if dirs is None or len(x.scalars) != 1:
            raise Undecidable(f"{x}: no monotone enclosure of this functional over a box")
        arg = x.scalars[0]
        if arg.has(Functional):
            raise Undecidable(f"{x}: a functional inside the argument")
        if arg.free_symbols:
            a_lo, a_hi = enclose(arg, env, dps=self.dps)
            a_lo, a_hi = _rational(a_lo), _rational(a_hi)
            if x.name in ("evaluate", "roc"):  # a level outside [0, 1] is clipped to it
                a_lo, a_hi = max(a_lo, sp.Integer(0)), min(a_hi, sp.Integer(1))
        else:
            a_lo = a_hi = arg
        f_lo = corner_node(x.operand, cell, -1, self.dps)
        f_hi = corner_node(x.operand, cell, +1, self.dps)
        if f_lo is None or f_hi is None:
            raise Undecidable(f"{x}: no proved monotone direction of the operand")
        # the smallest value: the smaller operand if the functional grows with f, the
        # argument end where it is smallest
        lo = self.value(x.name, f_lo if dirs[0] > 0 else f_hi, a_hi if dirs[1] < 0 else a_lo)
        hi = self.value(x.name, f_hi if dirs[0] > 0 else f_lo, a_lo if dirs[1] < 0 else a_hi)
        return lo[0], hi[1]

    def enclose(self, x: Any, cell: dict) -> tuple:
        env = _env(cell, self.dps)
        if isinstance(x, Functional) and x.free_symbols:
            return self.functional(x, cell, env)
        if not (isinstance(x, sp.Basic) and (x.has(Functional) or x.has(Phi))
                and x.free_symbols):
            return enclose(x, env, dps=self.dps)
        prec = dps_to_prec(self.dps + 20)
        arb = arb_exact(mp.zero).__class__

        def leaf(node):
            if isinstance(node, Phi):  # a probability: its ball clipped to [0, 1]
                t = sp.Dummy("t")
                iv = enclose_interval(node.args[0], balls, prec, leaf)
                with mp.workprec(prec), arb_precision(prec):
                    inner = interval(arb_exact(mp.mpf(iv[0])), arb_exact(mp.mpf(iv[1])))
                lo, hi = enclose_interval(Phi(t), {t: inner}, prec)
                with mp.workprec(prec), arb_precision(prec):
                    return interval(arb_exact(max(mp.mpf(lo), mp.zero)),
                                    arb_exact(min(mp.mpf(hi), mp.one)) if hi <= 1 else arb(1))
            if isinstance(node, Functional):
                iv = (self.functional(node, cell, env) if node.free_symbols
                      else _value_interval(functional_value(node, self.dps)))
                if not (mp.isfinite(iv[0]) and mp.isfinite(iv[1])):
                    raise Undecidable("an infinite value inside arithmetic")
                return interval(arb_exact(mp.mpf(iv[0])), arb_exact(mp.mpf(iv[1])))
            return None

        with mp.workprec(prec), arb_precision(prec):
            balls = {k: interval(arb_exact(mp.mpf(v[0])), arb_exact(mp.mpf(v[1])))
                     for k, v in env.items()}
            return enclose_interval(x, balls, prec, leaf)


# -- splitting ------------------------------------------------------------------------------------
def _short_between(lo: sp.Rational, hi: sp.Rational, target) -> sp.Rational:
    """A short rational strictly inside (lo, hi), near ``target`` (an mpf)."""
    for digits in range(2, 60):
        q = sp.Rational(mp.nstr(target, digits))
        if lo < q < hi:
            return q
    return (lo + hi) / 2


def split_cell(cell: dict, full: dict) -> list[dict]:
    """Two halves of ``cell`` along the symbol of largest relative width (measured against
    the whole box ``full``), at the geometric mean when a positive symbol spans more than a
    factor 4 (decades are split evenly), else at the midpoint."""
    best, best_w, geo = None, -1.0, False
    for s, (lo, hi) in cell.items():
        if lo == hi:
            continue
        FL, FH = full[s]
        use_geo = bool(lo > 0) and bool(hi > 4 * lo)
        if bool(FL > 0) and bool(FH > 4 * FL):
            w = math.log(float(hi / lo)) / math.log(float(FH / FL))
        else:
            w = float((hi - lo) / (FH - FL))
        if w < MIN_WIDTH:
            continue  # no finer cells: left undecided
        if w > best_w:
            best, best_w, geo = s, w, use_geo
    if best is None:
        return []
    lo, hi = cell[best]
    if lo.is_Rational and hi.is_Rational:
        t = mp.sqrt(mp.mpf(lo.p) / lo.q * mp.mpf(hi.p) / hi.q) if geo else \
            (mp.mpf(lo.p) / lo.q + mp.mpf(hi.p) / hi.q) / 2
        m = _short_between(lo, hi, t)
    else:
        m = (lo + hi) / 2
    return [{**cell, best: (lo, m)}, {**cell, best: (m, hi)}]


def _exact_box(box: dict) -> dict:
    """The box with SymPy ends, refused where unbounded (a cover needs finite cells)."""
    out = {}
    for s, (lo, hi) in box.items():
        lo, hi = sp.sympify(lo), sp.sympify(hi)
        if not (lo.is_finite and hi.is_finite):
            raise Undecidable(f"the box is unbounded in {s}")
        out[s] = (lo, hi)
    return out


# -- the generic loop -----------------------------------------------------------------------------
def run_cover(box: dict, decide: Callable[[dict], tuple], max_cells: int = MAX_CELLS,
              seconds: float = SECONDS) -> Cover:
    """Cover ``box`` (symbol -> (lo, hi), rational ends) with cells decided by
    ``decide(cell) -> (status, info)``: ``(True, "face" or "")`` proved, ``(False, ce)`` a
    certified counterexample in the cell, ``(None, _)`` split. Depth-first; stops at
    ``max_cells`` cells or ``seconds``, reporting the cells left."""
    t0 = time.perf_counter()
    full = _exact_box(box)
    stack = [dict(full)]
    out = Cover(None)
    n = 0
    while stack:
        budget.check()
        cell = stack.pop()
        n += 1
        if n > max_cells or time.perf_counter() - t0 > seconds:
            out.undecided = [cell] + stack[::-1]
            out.seconds = time.perf_counter() - t0
            return out
        st, info = decide(cell)
        if st is True:
            out.cells += 1
            out.faces += info == "face"
            continue
        if st is False:
            out.status, out.counterexample = False, info
            out.seconds = time.perf_counter() - t0
            return out
        halves = split_cell(cell, full)
        if not halves:
            out.undecided.append(cell)
            continue
        stack += halves[::-1]
    out.status = None if out.undecided else True
    out.seconds = time.perf_counter() - t0
    return out


def _holds(L: tuple, R: tuple, rel: str) -> bool | None:
    if rel == ">=":
        return True if L[0] >= R[1] else False if L[1] < R[0] else None
    return True if L[1] <= R[0] else False if L[0] > R[1] else None


def face(lhs: Any, rhs: Any, rel: str, cell: dict, dps: int) -> tuple[dict, dict]:
    """The symbols fixed at their worst end on ``cell`` (where the difference lhs - rhs,
    or rhs - lhs for ``<=``, is proved monotone) and the cell that remains."""
    fixed, rest = {}, {}
    for s, (lo, hi) in cell.items():
        if lo == hi:
            fixed[s] = lo
            continue
        dl, dr = scalar_direction(lhs, s, cell, dps), scalar_direction(rhs, s, cell, dps)
        if rel == "<=":
            dl, dr = dr, dl  # the claim big >= small with big = rhs
        if dl is not None and dr is not None and dl <= 0 <= dr:
            fixed[s] = hi   # big - small non-increasing in s: smallest at the upper end
        elif dl is not None and dr is not None and dl >= 0 >= dr:
            fixed[s] = lo
        else:
            rest[s] = (lo, hi)
    return fixed, rest


def _same(a: Any, b: Any) -> bool:
    if a == b:
        return True
    try:
        return sp.simplify(a - b) == 0
    except Exception:  # noqa: BLE001 - SymPy's simplify may fail on exotic input
        return False


def cover(lhs: Any, rel: str, rhs: Any, box: dict, dps: int = 20,
          max_cells: int = MAX_CELLS, seconds: float = SECONDS) -> Cover:
    """A certified cover of ``box`` for the scalar claim ``lhs rel rhs`` (``rel`` ``"<="`` or
    ``">="``; both sides SymPy expressions, functionals allowed): see the module docstring."""
    if rel not in ("<=", ">="):
        raise InvalidParameter("rel", rel, "'<=' or '>=' (a cover proves inequalities)")
    enc = _Encloser(dps)
    syms = (getattr(lhs, "free_symbols", set()) | getattr(rhs, "free_symbols", set()))
    box = {s: box[s] for s in box if s in syms}

    def decide(cell):
        try:
            if _holds(enc.enclose(lhs, cell), enc.enclose(rhs, cell), rel) is True:
                return True, ""
        except Undecidable:
            pass
        try:
            fixed, rest = face(lhs, rhs, rel, cell, dps)
        except Undecidable:
            fixed, rest = {}, cell
        if not fixed:
            return _centre(lhs, rhs, rel, cell, enc)
        sub = {s: v for s, v in fixed.items()}
        l2 = lhs.xreplace(sub) if isinstance(lhs, sp.Basic) and sub else lhs
        r2 = rhs.xreplace(sub) if isinstance(rhs, sp.Basic) and sub else rhs
        if fixed and _same(l2, r2):
            return True, "face"
        red = {**{s: (v, v) for s, v in fixed.items()}, **rest}
        try:
            st = _holds(enc.enclose(l2, red), enc.enclose(r2, red), rel)
        except Undecidable:
            st = None
        if st is True:
            return True, ""
        return _centre(lhs, rhs, rel, cell, enc)

    return run_cover(box, decide, max_cells, seconds)


def _centre(lhs, rhs, rel, cell, enc) -> tuple:
    """A certified counterexample at the cell's centre, or (None, None)."""
    p = {s: (lo + hi) / 2 for s, (lo, hi) in cell.items()}
    pc = {s: (v, v) for s, v in p.items()}
    try:
        L = enc.enclose(lhs.xreplace(p) if isinstance(lhs, sp.Basic) else lhs, pc)
        R = enc.enclose(rhs.xreplace(p) if isinstance(rhs, sp.Basic) else rhs, pc)
    except Undecidable:
        return None, None
    if _holds(L, R, rel) is False:
        return False, {**{str(s): v for s, v in p.items()}, "lhs": L, "rhs": R}
    return None, None
