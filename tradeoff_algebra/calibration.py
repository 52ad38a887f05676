"""Calibration: the parameter value at which a mechanism meets a privacy target, certified.

``calibrate(build, epsilon=..., delta=...)`` searches one parameter x of ``build(x)`` (a
trade-off expression: noise sigma, steps, sampling rate, ...) for the value that meets the
target with the least privacy to spare. The target is met when the *certified upper bound*
of the privacy measure is at most the target:

* ``epsilon`` and ``delta``: delta_f(epsilon) <= delta, i.e. (epsilon, delta)-DP (Dong, Roth &
  Su, Prop. 6; equivalent to epsilon(delta) <= epsilon and cheaper: one profile value);
* ``tpr`` at ``fpr``: the attacker's power 1 - f(fpr) <= tpr (Kaissis et al.; riskcal);
* ``advantage``: the total variation delta_f(0) = max_alpha (1 - alpha - f(alpha)) <=
  advantage (the membership advantage TPR - FPR of the best test).

The measure must be monotone in x; the direction is found from two probes. The bracket is found
automatically by geometric expansion from ``start`` (no fixed interval: a sigma of 50 or a step
count of 10^7 is found the same way) inside ``domain``, then narrowed to a relative width
``rel_tol`` (default 1e-4) by the secant on log(measure) against log x, with bisection (geometric
for positive ranges, on integers for ``integer=True``) where the secant does not halve the bracket
every three probes (:func:`numeric.roots.expand_bracket` and :func:`numeric.roots.findroot`, its
``"collapse"`` method). A point whose enclosure straddles the target counts as not meeting it, so
the returned value always meets the target with certainty; ``other`` is the nearest value found
that certainly does not.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sympy as sp

from .analysis.conversions import delta as _delta
from .core.errors import InvalidParameter, NumericalError
from .core.node import TradeOff, tex
from .core.validate import count, flag, param
from .numeric import budget
from .numeric.context import mp
from .numeric.progress import bar, check_progress
from .numeric.protocol import MAX_DPS, roc, short
from .numeric.roots import Bracket, Probe, expand_bracket, findroot
from .numeric.value import Value, _as_rational

__all__ = ["calibrate", "Calibration"]

MAX_PROBES = 200
#: Default relative width of the final bracket of a real parameter.
REL_TOL = sp.Rational(1, 10**4)
#: Smallest rel_tol: the trials are formed to 20 digits, so a narrower bracket is never
#: reached (the search would run through its MAX_PROBES evaluations without progress).
MIN_REL_TOL = sp.Rational(1, 10**15)
#: Smallest magnitude of a nonzero start (and the reciprocal the largest): the secant steps are
#: taken in float64, and MAX_PROBES doublings move no further than a factor 2^200.
MIN_START = sp.Rational(1, 10**300)


@dataclass(frozen=True)
class Calibration:
    """The calibrated ``value`` (meets the target with certainty), the measure there
    (``achieved``, a Value whose upper end is at most ``target``), the nearest ``other``
    value that certainly fails, and the number of ``probes``."""

    value: sp.Rational
    achieved: Value
    target: sp.Expr
    measure: str
    other: sp.Rational | None
    probes: int

    def __float__(self) -> float:
        return float(self.value)

    def __repr__(self) -> str:
        other = "None" if self.other is None else f"{float(self.other):.10g}"
        return (f"Calibration(value={float(self.value):.10g}, {self.measure} = {self.achieved} "
                f"<= {_show(self.target)}, other={other}, probes={self.probes})")

    def latex(self) -> str:
        """A LaTeX display (``\\begin{gather*}``, as ``Verdict`` and ``Derivation``): the value,
        the measure there against the target, and the nearest value that fails. The value is
        printed to 10 digits rounded towards the side that meets the target (away from
        ``other``; the measure is monotone), so the printed value meets it too."""
        up = None if self.other is None else self.other < self.value
        x = _tex_number(self.value, up)
        m = _measure_latex(self.measure)
        body = self.achieved.latex()
        estimate = body.startswith(r"\approx ")
        body = body.removeprefix(r"\approx ")
        rel = r"\in" if not self.achieved.is_point else r"\approx" if estimate else "="
        lines = [r"x = %s \quad %s %s %s \le %s%s" % (
            x, m, rel, body, tex(self.target), r"\ (\text{estimate})" if estimate else "")]
        tail = r"\text{%d probes}" % self.probes
        if self.other is not None:
            tail = r"x = %s\ \text{fails} \quad (%s)" % (_tex_number(self.other, None), tail)
        lines.append(tail)
        return "\\begin{gather*}\n%s\n\\end{gather*}" % " \\\\\n".join(lines)

    def _repr_latex_(self) -> str:
        return self.latex()


def _tex_number(x: sp.Rational, up: bool | None) -> str:
    """x to 10 significant digits: rounded up, down, or to nearest (``up`` None)."""
    import decimal

    rounding = {True: decimal.ROUND_CEILING, False: decimal.ROUND_FLOOR,
                None: decimal.ROUND_HALF_EVEN}[up]
    ctx = decimal.Context(prec=10, rounding=rounding)
    d = ctx.divide(decimal.Decimal(int(x.p)), decimal.Decimal(int(x.q)))
    return sp.latex(sp.Float(str(d), 10)) if d != x else tex(x)


def _measure_latex(measure: str) -> str:
    """The measure's name in LaTeX: delta(eps), the power at an FPR, the advantage."""
    name, _, arg = measure.partition("(")
    arg = arg.rstrip(")")
    if arg.lstrip("-").isdigit() or "/" in arg:
        a = sp.latex(sp.Rational(arg))
    else:
        try:
            a = sp.latex(sp.Float(arg, 6))
        except (TypeError, ValueError):
            a = r"\text{%s}" % arg
    if name == "delta":
        return r"\delta(%s)" % a
    if name == "tpr":
        return r"1 - f(%s)" % a
    return r"\mathrm{TPR} - \mathrm{FPR}"


def _show(x: sp.Expr) -> str:
    """A parameter as the user wrote it: small fractions exactly, floats as floats."""
    if isinstance(x, sp.Rational) and x.q < 10**6:
        return str(x)
    return f"{float(x):.6g}"


def _measure(epsilon, delta, tpr, fpr, advantage, dps) -> tuple[str, sp.Expr, Callable]:
    given = [epsilon is not None and delta is not None, tpr is not None and fpr is not None,
             advantage is not None]
    if sum(given) != 1 or (epsilon is None) != (delta is None) or (tpr is None) != (fpr is None):
        raise InvalidParameter("target", None, "exactly one of: epsilon= and delta=; tpr= and "
                               "fpr=; advantage=", "calibrate")
    if given[0]:
        e = param("epsilon", epsilon, lower=0, owner="calibrate", numeric=True)
        d = param("delta", delta, lower=0, upper=1, owner="calibrate", numeric=True)
        return f"delta({_show(e)})", d, lambda f: _delta(f, e, dps=dps)
    if given[1]:
        a = param("fpr", fpr, lower=0, upper=1, owner="calibrate", numeric=True)
        t = param("tpr", tpr, lower=0, upper=1, owner="calibrate", numeric=True)
        return f"tpr({_show(a)})", t, lambda f: roc(f, a, dps=dps)
    v = param("advantage", advantage, lower=0, upper=1, owner="calibrate", numeric=True)
    return "advantage", v, lambda f: _delta(f, 0, dps=dps)


def _domain(domain: Any) -> tuple[sp.Expr, sp.Expr]:
    """``domain`` as two numbers lo < hi (``-oo``/``oo`` allowed)."""
    allowed = "a pair (lo, hi) of numbers with lo < hi (oo allowed)"
    try:
        if isinstance(domain, (str, bytes)):
            raise TypeError
        lo, hi = domain
    except Exception:
        raise InvalidParameter("domain", domain, allowed, "calibrate") from None
    lo, hi = (param(f"domain[{i}]", x, owner="calibrate", allow_infinite=True, numeric=True)
              for i, x in enumerate((lo, hi)))
    if (lo < hi) is not sp.true:
        raise InvalidParameter("domain", domain, allowed, "calibrate")
    return lo, hi


@budget.deadline(lambda a: "calibrate(" + ", ".join(
    f"{k}={short(v)}" for k, v in a.items() if k not in ("build", "start", "domain")) + ")")
def calibrate(build: Callable[[Any], TradeOff], *, epsilon: Any = None, delta: Any = None,
              tpr: Any = None, fpr: Any = None, advantage: Any = None, start: Any = 1,
              domain: tuple = (0, sp.oo), integer: bool = False,
              rel_tol: Any = None,
              dps: int = 10, progress: bool | None = None) -> Calibration:
    """The value x at which ``build(x)`` meets the privacy target (module docstring).

    ``ta.calibrate(lambda s: ta.noisy_sgd(s, p, T, sampling="poisson"), epsilon=3,
    delta=1e-5)`` returns the smallest noise multiplier; with ``integer=True`` and
    ``lambda T: ...`` the largest number of steps. ``progress``: a bar counting the probes
    (``numeric.progress``: True at once, None after a few seconds on a terminal, False never);
    the search runs under the call's time limit (``ta.time_limit``).
    """
    if not callable(build):
        raise InvalidParameter("build", build, "a function of the parameter returning a "
                               "trade-off expression", "calibrate")
    integer = flag("integer", integer, "calibrate")
    dps = count("dps", dps, upper=MAX_DPS, owner="calibrate")
    name, target, measure = _measure(epsilon, delta, tpr, fpr, advantage, dps)
    lo_dom, hi_dom = _domain(domain)
    tol = REL_TOL if rel_tol is None else param("rel_tol", rel_tol, lower=MIN_REL_TOL, upper=1,
                                                 upper_open=True, owner="calibrate",
                                                 numeric=True)
    x0 = param("start", start, owner="calibrate", numeric=True, integer=integer)
    if x0 != 0 and not (MIN_START <= abs(x0) <= 1 / MIN_START):
        raise InvalidParameter("start", start, "0 or a number of magnitude in [1e-300, 1e300]",
                               "calibrate", "The search steps from start in float64")
    if not x0.is_Rational:  # sqrt(2), exp(-5): the trials are exact rationals
        x0 = sp.Rational(sp.Float(sp.N(x0, 20)))
    if not (lo_dom < x0 < hi_dom):
        raise InvalidParameter("start", start, f"a number inside domain = ({lo_dom}, {hi_dom})",
                               "calibrate")
    progress = check_progress(progress, "calibrate")
    with bar(None, f"calibrate ({name})", progress, unit="probe") as prog:
        return _search(build, name, target, measure, lo_dom, hi_dom, tol, x0, integer, domain,
                       prog)


def _search(build, name, target, measure, lo_dom, hi_dom, tol, x0, integer, domain,
            prog) -> Calibration:
    """The bracket and the secant search of :func:`calibrate` (validated arguments)."""
    cache: dict = {}

    def probe(x):
        x = sp.Integer(x) if integer else sp.Rational(x)
        if x not in cache:
            if len(cache) >= MAX_PROBES:
                raise NumericalError(f"calibrate: no bracket after {MAX_PROBES} probes; give "
                                     "start= near the answer or a narrower domain=")
            f = build(x)
            if not isinstance(f, TradeOff):
                raise InvalidParameter("build", build, "a function returning a trade-off "
                                       "expression", "calibrate")
            if f.free_symbols:
                syms = ", ".join(sorted(map(str, f.free_symbols)))
                raise InvalidParameter("build", build, "a function returning a trade-off "
                                       "expression without free symbols", "calibrate",
                                       f"build({_show(x)}) = {f} still holds the symbols "
                                       f"{syms}: substitute values for them")
            v = measure(f)
            prog.update()
            # (value, meets, fails), compared exactly: ``mpf <= Rational`` rounds the Rational
            # at the precision of mpmath's global context (what another thread may have set)
            cache[x] = (v, _as_rational(v.hi) <= target, _as_rational(v.lo) > target)
        return x, *cache[x]

    def step(x, up: bool):
        if integer:
            nx = max(x * 2, x + 1) if up else x // 2
        elif lo_dom >= 0:
            nx = x * 2 if up else x / 2
        else:
            nx = x + max(abs(x), 1) if up else x - max(abs(x), 1)
        return nx if lo_dom < nx < hi_dom else None

    # direction: does the measure decrease as x grows (noise) or increase (steps, rate)?
    x1 = step(x0, True) or step(x0, False)
    if x1 is None:
        raise InvalidParameter("domain", domain, "a range with room around start", "calibrate")
    a, b = sorted([x0, x1])
    va, vb = probe(a)[1], probe(b)[1]
    decreasing = va.mid >= vb.mid
    # the sign of a point: +1 meets the target, -1 does not; the side left of the crossing
    # fails where the measure decreases (noise), meets where it increases (steps, rate)
    sa = -1 if decreasing else 1

    def side(x) -> Probe:
        x, v, meets, _ = probe(x)
        return Probe(1 if meets else -1, _log_gap(v, target, meets))

    def trial(L, H, last, i):  # from start, doubling away from the side found
        if last is None:
            return x0
        ok = H if decreasing else L
        return step(last, up=(decreasing if ok is None else not decreasing))

    found = expand_bracket(side, trial, sa=sa, max_iter=MAX_PROBES,
                           fail=lambda L, H: Bracket(L, H))
    ok, bad = (found.hi, found.lo) if decreasing else (found.lo, found.hi)
    if ok is None:
        raise NumericalError(f"calibrate: no value in {domain} meets {name} <= {target} "
                             "with certainty")
    if bad is None:  # the whole searched range meets the target: its end is the answer
        return Calibration(ok, cache[ok][0], target, name, None, len(cache))
    # narrowed by the collapsing secant on log(measure) against log x (x for a range reaching
    # 0 or below), bisection as the safeguard, to hi - lo <= rel_tol max(|lo|, |hi|)
    with mp.workdps(30):  # the trials as binary rationals of about 100 bits
        r = findroot(side, (int(found.lo), int(found.hi)) if integer else (found.lo, found.hi),
                     method="collapse", ends=(found.plo, found.phi), rtol=0 if integer else tol,
                     split="integer" if integer else "geometric" if lo_dom >= 0 else "arithmetic",
                     max_iter=MAX_PROBES)
    lo_, hi_ = (sp.Integer(r.lo), sp.Integer(r.hi)) if integer else (r.lo, r.hi)
    ok, bad = (hi_, lo_) if decreasing else (lo_, hi_)
    return Calibration(ok, cache[ok][0], target, name, bad, len(cache))


def _log_gap(v: Value, target: sp.Expr, meets: bool) -> float | None:
    """The secant's estimate log(target) - log(measure) (positive where the target is met),
    from the midpoint of the enclosure; a failing point whose midpoint is below the target
    (its enclosure holds the target, the crossing is next to it) gets a tiny negative value.
    None where a logarithm is not defined."""
    m = float(v.mid)
    if not (m > 0 and math.isfinite(m)) or not target > 0:
        return None
    g = math.log(float(target)) - math.log(m)
    if meets:
        return g if g > 0 else 1e-300
    return g if g < 0 else -1e-300
