"""Limit claims: ``Limit(expr, n, oo)`` and its certified verdict :func:`verify_limit`.

Two kinds of limits, each decided by a named proof with its hypotheses checked:

* **Scalars** (a SymPy expression in the variable, ``Phi`` and ``PhiInv`` rewritten with
  ``erfc``/``erfcinv``): the limit is SymPy's (Gruntz's algorithm, a symbolic computation, as
  SymPy's simplification is for the scalar claims of ``verify``); the claimed value is compared
  exactly, by SymPy's simplification of the difference, or by disjoint Arb balls.
* **Compositions** (a trade-off expression whose factors depend on n: ``f_n^{(x) n}``, tensor
  products of such powers): by the central limit theorems of Dong, Roth & Su with their
  hypotheses proved by SymPy limits of the factors' closed-form functionals —

  - Thm. 7 when every factor is some f_{eps,delta}: sum eps_ni^2 -> mu^2, max eps_ni -> 0,
    sum delta_ni -> delta, max delta_ni -> 0 give the limit G_mu (x) f_{0, 1 - e^-delta};
  - Thm. 6 for symmetric factors with closed-form kl, kappa_2, kappa_3 (G_mu, Laplace, ...):
    sum kl -> K, max kl -> 0, sum kappa_2 -> s^2 > 0, sum kappa_3 -> 0 give G_{2K/s}.

  The theorem used is recorded in the basis (the registered ``approx`` rule that states it). A
  hypothesis that SymPy cannot decide leaves the verdict None.

Evidence at increasing n (10, 100, 1000, or 1/10, 1/100, 1/1000 towards a finite point) is
certified: for a scalar, the Arb enclosure of expr(n) - L; for a composition, Thm. 5's
Berry-Esseen sandwich Shift(G_{mu_n}, gamma_n) <= f_n <= Shift(G_{mu_n}, -gamma_n), with
mu_n - mu and gamma_n enclosed in Arb (the distance to the limit in the shifted sense). Other
free parameters are set to 1 for the evidence (and said so).
"""

from __future__ import annotations

import time
from typing import Any

import sympy as sp

from ..analysis.functionals import kappa2, kappa3, kl
from ..analysis.lazy import Functional
from ..bounds.berry_esseen import berry_esseen, factors
from ..core import trace
from ..core.errors import InvalidParameter, NoClosedForm, TradeOffError
from ..core.node import TradeOff
from ..core.normal import Phi, PhiInv
from ..core.rules import rules
from ..notions.approx import ApproxDP, epsdelta_pair
from ..notions.gdp import GDP
from ..numeric.capability import gaussian_form
from ..numeric.context import mp
from ..numeric.protocol import evaluate
from ..operators.tensor import Tensor, TensorPower
from ..rewrite import simplify
from .interval import Undecidable, enclose
from .monotone import same_node
from .verdict import RELATIONS, Verdict

__all__ = ["Limit", "verify_limit", "scalar_limit", "clt_limit"]


class Limit(sp.Basic):
    """``lim_{var -> point} expr``, unevaluated: ``expr`` a real SymPy expression or a
    trade-off expression of ``var``; ``point`` ``oo`` or a number (approached from
    ``direction`` ``"+"`` or ``"-"``). Decide a claim about it with :func:`verify_limit`."""

    def __new__(cls, expr: Any, var: Any, point: Any = sp.oo, direction: str = "+"):
        if isinstance(expr, (bool, str)) or expr is None:
            raise InvalidParameter("expr", expr, "a SymPy expression or a trade-off expression")
        if not isinstance(expr, TradeOff):
            try:
                expr = sp.sympify(expr, strict=True)
            except (sp.SympifyError, TypeError) as exc:
                raise InvalidParameter("expr", expr, "a SymPy expression or a trade-off "
                                       "expression") from exc
            if not isinstance(expr, sp.Expr):
                raise InvalidParameter("expr", expr, "a real SymPy expression")
        if not isinstance(var, sp.Symbol):
            raise InvalidParameter("var", var, "a SymPy symbol")
        point = sp.sympify(point)
        if point is not sp.oo and not (point.is_number and point.is_finite and point.is_real):
            raise InvalidParameter("point", point, "oo or a real number")
        if isinstance(direction, sp.Symbol):  # rebuilt from args (func(*args), xreplace)
            direction = direction.name
        if direction not in ("+", "-"):
            raise InvalidParameter("direction", direction, "'+' or '-'")
        if point is sp.oo:
            direction = "-"
        return super().__new__(cls, expr, var, point, sp.Symbol(direction))

    @property
    def expr(self) -> Any:
        return self.args[0]

    @property
    def var(self) -> sp.Symbol:
        return self.args[1]

    @property
    def point(self) -> sp.Expr:
        return self.args[2]

    @property
    def direction(self) -> str:
        return self.args[3].name

    @property
    def free_symbols(self) -> set:
        return set(getattr(self.expr, "free_symbols", set())) - {self.var}

    def __str__(self) -> str:
        to = "oo" if self.point is sp.oo else f"{sp.sstr(self.point)}{self.direction}"
        return f"Limit({sp.sstr(self.expr)}, {self.var}, {to})"

    __repr__ = __str__

    def _sympystr(self, printer) -> str:
        return str(self)

    def _latex(self, printer) -> str:
        from ..printing import latex as tex

        to = r"\infty" if self.point is sp.oo else f"{tex(self.point)}^{{{self.direction}}}"
        return rf"\lim_{{{tex(self.var)} \to {to}}} {tex(self.expr)}"


# -- scalar limits ------------------------------------------------------------------------------
def _for_sympy(x: sp.Expr) -> sp.Expr:
    reps = {}
    for p in x.atoms(Phi):
        reps[p] = sp.erfc(-p.args[0] / sp.sqrt(2)) / 2
    for p in x.atoms(PhiInv):
        reps[p] = -sp.sqrt(2) * sp.erfcinv(2 * p.args[0])
    return x.xreplace(reps) if reps else x


def scalar_limit(expr: sp.Expr, var: sp.Symbol, point: Any = sp.oo, direction: str = "+"
                 ) -> sp.Expr | None:
    """SymPy's limit of a scalar expression (Phi, PhiInv rewritten), or None where it returns
    no definite value (an unevaluated limit, accumulation bounds, NaN)."""
    if expr.has(Functional):  # closed forms where known (Functional.doit), else no limit
        expr = expr.xreplace({fn: fn.doit() for fn in expr.atoms(Functional)})
        if expr.has(Functional):
            return None
    try:
        L = sp.limit(_for_sympy(expr), var, point, dir=direction)
    except (NotImplementedError, ValueError, TypeError, RecursionError):
        return None
    if L.has(sp.Limit, sp.AccumBounds, sp.nan, sp.zoo):
        return None
    return L


def _points(lim: Limit) -> list[sp.Expr]:
    if lim.point is sp.oo:
        return [sp.Integer(10), sp.Integer(100), sp.Integer(1000)]
    s = 1 if lim.direction == "+" else -1
    return [lim.point + s * sp.Rational(1, 10**k) for k in (1, 2, 3)]


def _at(x: Any, reps: dict) -> Any:
    return x.xreplace(reps) if isinstance(x, sp.Basic) else x


def _others(lim: Limit) -> dict:
    return {s: sp.Integer(1) for s in lim.free_symbols}


def _scalar_evidence(lim: Limit, L: sp.Expr, dps: int) -> str:
    reps0 = _others(lim)
    parts = []
    for p in _points(lim):
        reps = {**reps0, lim.var: p}
        try:
            d = enclose(_at(lim.expr, reps) - _at(L, reps), dps=dps)
        except Undecidable:
            parts.append(f"{lim.var} = {p}: not enclosed")
            continue
        parts.append(f"{lim.var} = {p}: expr - limit in [{mp.nstr(d[0], 5)}, {mp.nstr(d[1], 5)}]")
    note = (" (with " + ", ".join(f"{k} = 1" for k in reps0) + ")") if reps0 else ""
    return "certified evidence (Arb)" + note + ": " + "; ".join(parts)


def _compare_scalars(L: sp.Expr, rel: str, value: sp.Expr, dps: int) -> bool | None:
    d = sp.simplify(L - value)
    if d == 0:
        return True if rel in ("==", "<=", ">=") else None
    if d.free_symbols:
        if rel == "<=" and d.is_nonpositive or rel == ">=" and d.is_nonnegative:
            return True
        if d.is_zero is False and rel == "==" and (d.is_positive or d.is_negative):
            return False
        return None
    try:
        lo, hi = enclose(d, dps=dps)
    except Undecidable:
        return None
    if rel == "==":
        return False if (lo > 0 or hi < 0) else None
    if rel == "<=":
        return True if hi <= 0 else False if lo > 0 else None
    return True if lo >= 0 else False if hi < 0 else None


# -- limits of compositions (the CLTs) ----------------------------------------------------------
def _rule(cls: type, name: str):
    return next((r for r in rules(cls, relation="approx") if r.name == name), None)


def _lim(x: sp.Expr, n: sp.Symbol) -> sp.Expr | None:
    return scalar_limit(sp.sympify(x), n, sp.oo)


def _finite(x: sp.Expr | None) -> bool:
    return x is not None and x.is_finite is True


def _zero(x: sp.Expr | None) -> bool:
    return x is not None and (x == 0 or sp.simplify(x) == 0)


def clt_limit(f: TradeOff, n: sp.Symbol) -> tuple[TradeOff | None, str, list[str]]:
    """The limit of the composition ``f`` (factors depending on ``n``) as n -> oo by Thm. 7 or
    Thm. 6 of Dong, Roth & Su, with their hypotheses proved by SymPy limits; returns
    ``(limit or None, theorem, the hypotheses as checked, in words)``."""
    fs = factors(f)
    if not fs or not any(n in m.free_symbols or n in g.free_symbols for g, m in fs):
        return None, "", [f"no factor depends on {n}"]
    checked: list[str] = []
    pairs = [(epsdelta_pair(g), m) for g, m in fs]
    if all(p is not None for p, _ in pairs):
        S2 = _lim(sum((m * e**2 for (e, _), m in pairs), sp.Integer(0)), n)
        D = _lim(sum((m * d for (_, d), m in pairs), sp.Integer(0)), n)
        eps_max = [_lim(e, n) for (e, _), _ in pairs]
        del_max = [_lim(d, n) for (_, d), _ in pairs]
        ok = [(_finite(S2), f"sum eps_ni^2 -> mu^2 = {S2}"),
              (all(_zero(e) for e in eps_max), "max eps_ni -> 0"),
              (_finite(D), f"sum delta_ni -> delta = {D}"),
              (all(_zero(d) for d in del_max), "max delta_ni -> 0")]
        checked = [("proved: " if good else "not proved: ") + text for good, text in ok]
        if not all(good for good, _ in ok):
            return None, "Thm. 7", checked
        mu = sp.sqrt(S2)
        out: TradeOff = GDP(mu).to_tradeoff()
        if not _zero(D):
            out = Tensor(out, ApproxDP(0, 1 - sp.exp(-D)).to_tradeoff())
        return out, "Thm. 7", checked
    if not all(g.is_symmetric is True for g, _ in fs):
        return None, "Thm. 6", ["not proved: every factor symmetric"]
    try:
        K = _lim(sum((m * kl(g) for g, m in fs), sp.Integer(0)), n)
        s2 = _lim(sum((m * kappa2(g) for g, m in fs), sp.Integer(0)), n)
        k3 = _lim(sum((m * kappa3(g) for g, m in fs), sp.Integer(0)), n)
        kmax = [_lim(kl(g), n) for g, _ in fs]
    except NoClosedForm as exc:
        return None, "Thm. 6", [f"not proved: closed-form functionals ({exc})"]
    ok = [(True, "symmetric factors"), (_finite(K), f"sum kl -> K = {K}"),
          (all(_zero(k) for k in kmax), "max kl -> 0"),
          (_finite(s2) and s2 is not None and s2.is_positive is True,
           f"sum kappa_2 -> s^2 = {s2} > 0"),
          (_zero(k3), "sum kappa_3 -> 0")]
    checked = [("proved: " if good else "not proved: ") + text for good, text in ok]
    if not all(good for good, _ in ok):
        return None, "Thm. 6", checked
    return GDP(sp.simplify(2 * K / sp.sqrt(s2))).to_tradeoff(), "Thm. 6", checked


def _clt_evidence(lim: Limit, L: TradeOff, dps: int) -> str:
    reps0 = _others(lim)
    mu = gaussian_form(L)
    if mu is None:
        mu = next((gaussian_form(g) for g in L.args if gaussian_form(g) is not None),
                  sp.Integer(0) if L.is_greatest else None)  # Id = G_0
    if mu is None:
        return "no G_mu part in the limit: no Berry-Esseen evidence"
    parts = []
    try:  # once, symbolically in n (the closed forms), then enclosed at each n
        sym = berry_esseen(lim.expr)
    except (TradeOffError, ValueError):
        sym = None
    for p in _points(lim):
        reps = {**reps0, lim.var: p}
        try:
            be = sym if sym is not None else berry_esseen(_at(lim.expr, reps))
            dm = enclose(_at(be.mu - mu, reps), dps=dps)
            g = enclose(_at(be.gamma, reps), dps=dps)
        except (TradeOffError, Undecidable, ValueError) as exc:
            parts.append(f"{lim.var} = {p}: {type(exc).__name__}")
            continue
        parts.append(f"{lim.var} = {p}: mu_n - mu in [{mp.nstr(dm[0], 4)}, {mp.nstr(dm[1], 4)}],"
                     f" gamma_n in [{mp.nstr(g[0], 4)}, {mp.nstr(g[1], 4)}]")
    note = (" (with " + ", ".join(f"{k} = 1" for k in reps0) + ")") if reps0 else ""
    return ("certified evidence (Thm. 5: Shift(G(mu_n), gamma_n) <= f_n <= "
            "Shift(G(mu_n), -gamma_n), Arb)" + note + ": " + "; ".join(parts))


def _record(theorem: str) -> None:
    """The CLT used, into the basis: the registered ``approx`` rule that states it."""
    name = {"Thm. 7": "clt_epsdelta", "Thm. 6": "clt_tensor"}[theorem]
    r = _rule(TensorPower, name)
    if r is not None and trace.recording_basis():
        trace.used(("rule", r))


def _distinct(a: TradeOff, b: TradeOff, dps: int) -> str | None:
    """A level where the two parameter-free trade-off functions differ (certified), or None."""
    for x in (sp.Rational(1, 2), sp.Rational(1, 10), sp.Rational(9, 10)):
        try:
            va, vb = evaluate(a, x, dps=dps), evaluate(b, x, dps=dps)
        except TradeOffError:
            continue
        if va.is_certain and vb.is_certain:
            (a0, a1), (b0, b1) = va.interval(), vb.interval()
            if a1 < b0 or b1 < a0:
                return f"at alpha = {x}: {va} vs {vb}"
    return None


def verify_limit(lim: Limit, rel: str, value: Any, dps: int = 30) -> Verdict:
    """Decide ``lim rel value`` (``rel`` ``"=="``, ``"<="``, ``">="``; ``<=`` and ``>=`` for
    scalar limits): True with the named proof (SymPy's limit; a CLT of Dong, Roth & Su with its
    hypotheses proved), False where the proved limit differs from ``value`` (certified), None
    where the limit or a hypothesis is not proved. The evidence adds certified values at
    increasing n (module docstring)."""
    if not isinstance(lim, Limit):
        raise InvalidParameter("lim", lim, "a Limit(expr, var, point)")
    if not isinstance(rel, str) or rel not in RELATIONS:
        raise InvalidParameter("rel", rel, "one of '==', '<=', '>='")
    if isinstance(dps, bool) or not isinstance(dps, int) or not 5 <= dps <= 1000:
        raise InvalidParameter("dps", dps, "an integer in [5, 1000]")
    t0 = time.perf_counter()
    over: dict = {}

    def verdict(st, method, ev, ce=None):
        return Verdict(lim, rel, value, over, st, method, ev, ce,
                       seconds=time.perf_counter() - t0)

    with mp.workdps(dps + 20):
        if isinstance(lim.expr, TradeOff):
            if not isinstance(value, TradeOff):
                raise InvalidParameter("value", value, "a trade-off expression (the limit of a "
                                       "trade-off expression)")
            if rel != "==":
                raise InvalidParameter("rel", rel, "'==' for a limit of trade-off functions")
            if lim.point is not sp.oo:
                return verdict(None, "limit", "the CLTs are limits as n -> oo")
            L, thm, checked = clt_limit(lim.expr, lim.var)
            if L is None:
                return verdict(None, "limit", f"{thm or 'no CLT'}: hypotheses "
                               + "; ".join(checked))
            _record(thm)
            head = (f"Dong, Roth & Su, {thm}, hypotheses proved by SymPy limits ("
                    + "; ".join(checked) + f"): the limit is {sp.sstr(L)}")
            ev = _clt_evidence(lim, L, dps)
            try:
                sl, sv = simplify(L), simplify(value)
            except TradeOffError:
                sl, sv = L, value
            if sl == sv or same_node(sl, sv):
                return verdict(True, f"limit ({thm})", f"{head}; {ev}")
            if not (sl.free_symbols or sv.free_symbols):
                where = _distinct(sl, sv, dps)
                if where is not None:
                    return verdict(False, f"limit ({thm})",
                                   f"{head}, which differs from {sp.sstr(value)} {where}; {ev}",
                                   {"lhs": sl, "rhs": value})
            return verdict(None, f"limit ({thm})", f"{head}; not proved equal to "
                           f"{sp.sstr(value)}; {ev}")
        if isinstance(value, TradeOff):
            raise InvalidParameter("value", value, "a real scalar (the limit of a scalar)")
        value = sp.sympify(value)
        L = scalar_limit(lim.expr, lim.var, lim.point, lim.direction)
        if L is None:
            return verdict(None, "limit", "SymPy gives no definite limit")
        ev = _scalar_evidence(lim, L, dps) if L.is_finite else "the limit is infinite"
        st = _compare_scalars(L, rel, value, dps)
        head = f"the limit is {sp.sstr(L)} (SymPy's limit, Gruntz's algorithm)"
        if st is True:
            return verdict(True, "limit", f"{head}; {ev}")
        if st is False:
            return verdict(False, "limit", f"{head}, not {rel} {sp.sstr(value)}; {ev}",
                           {"lhs": L, "rhs": value})
        return verdict(None, "limit", f"{head}; its comparison with {sp.sstr(value)} is not "
                       f"decided; {ev}")
