"""The census row: delta(eps) of a composition of many discrete Gaussians with different sigma
(Canonne, Kamath & Steinke, arXiv:2004.00010), and what of it is certified.

Run from the repository root::

    python benchmarks/bench_census.py                       # print the tables
    python benchmarks/bench_census.py --write benchmarks/RESULTS_census.md

Every timed point runs in a fresh process (import excluded), with its peak RSS growth.

0. The common-denominator row: DG(1, sigma_1) (x) ... (x) DG(1, sigma_1000) with zCDP budgets
   rho_i = 1/(2 sigma_i^2) = k_i/D on a grid (sigma_i^2 = D/(2 k_i) exact, k_i = max(1,
   round(D/(2 (10 + i/10)^2))): the budgets of the row below rounded to the grid), through
   ta.delta(f, 2, dps=30) and ta.epsilon(f, 1e-6, dps=30) (the lattice product's shortcut,
   families/discrete_gaussian_sum.py: one discrete Gaussian up to a proved factor), beside the
   exact integer composition forced (numeric/lattice_product.py, up to --tree-up-to) and
   dp_accounting's PLD of the same discrete Gaussians (from_discrete_gaussian_mechanism,
   pessimistic and optimistic, value discretization 1e-4 and 1e-5), and for n = 1, 2, 3 the
   route against the exact lattice sums of item 4; the grid D = 10^6 with every budget distinct
   (k_i = 1..1000; dp_accounting at 1e-4); and a lattice the shortcut does not take and the
   exact composition refuses at once, naming the limit.

The incommensurate rows: DG(1, sigma_1) (x) ... (x) DG(1, sigma_n), sigma_i = 10 + i/10 (exact
rationals, so the sigma_i^2 share no small denominator). Measured:

0'. delta(2) and eps(1e-6) of the 1000 factors through ta.delta / ta.epsilon at dps = 30 and 60
   (families/discrete_gaussian_offgrid.py: G_mu times N up to an aliasing bound proved by
   Poisson summation and lattice enumeration), beside the PLD engine forced (its route called
   directly, with the time limit) and dp_accounting's PLD of the same 1000 discrete Gaussians
   (from_discrete_gaussian_mechanism, value discretization 1e-4, pessimistic and optimistic;
   ``--only-offgrid`` runs this table alone);
1. the certified Laplace inversion on the product: declined (the mgf of a lattice law returns to
   M(c) at every period 2 pi sigma_i^2, so no truncation bound of the t-integral meets a
   tolerance) and the time it takes to decline;
2. the PLD engine's answer (float64 grids: an estimate) with a time limit;
3. the Gaussian surrogate N delta_G(eps), N = prod 1/sum_k q_i^{k^2}, mu^2 = sum 1/sigma_i^2:
   the k = 0 term of the n-dimensional Poisson summation of the product (an ESTIMATE of the
   lattice product: the other terms are not bounded here), and the certified Chernoff bound
   delta(eps) <= K e^{-c eps} prod M_i(c), K = c^c/(c + 1)^{c + 1}, from the factors' Arb laws;
4. for n = 1, 2, 3 a certified reference computed here, independently of the library: the exact
   lattice sum delta = sum_{x_1..x_{n-1}} [Q_1..Q_{n-1} Q_n(L_n > t) - e^eps P_1..P_{n-1} P_n(L_n >
   t)], t = eps - L_1 - ... - L_{n-1}, each threshold decided in exact rationals, the masses in
   Arb balls with the tails outside the windows bounded (Q(x) <= its Gaussian tail): certified to
   about 40 digits; against it the surrogate's relative error (the lattice effect);
5. the certified single-factor routes that the row rests on: ta.delta(DG(1, sigma), eps, dps=35)
   and ta.epsilon(DG(1, sigma), 1e-6, dps=30) at sigma up to 1e6.
"""

from __future__ import annotations

import argparse
import os
import sys
from fractions import Fraction

from _report import Report, child_json, run_line

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_HEAD = r"""
import json, resource, sys, time, warnings
sys.path.insert(0, {root!r})
import sympy as sp
import tradeoff_algebra as ta
warnings.simplefilter("ignore")
n, eps, limit = {n!r}, sp.Rational({eps!r}), {limit!r}
sig = [10 + sp.Rational(i, 10) for i in range(1, n + 1)]
dgs = [ta.DiscreteGaussian(1, s) for s in sig]
f = ta.Tensor(*dgs) if n > 1 else dgs[0]
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
cpu0 = sum(resource.getrusage(resource.RUSAGE_SELF)[:2])
t0 = time.perf_counter()
"""

_TAIL = r"""
t = time.perf_counter() - t0
ru = resource.getrusage(resource.RUSAGE_SELF)
mem = (ru.ru_maxrss - base) * 1024
print(json.dumps(dict(out, t=t, mem=mem, cpu=ru.ru_utime + ru.ru_stime - cpu0)))
"""

_DECLINE = r"""
from tradeoff_algebra.routes import engines
from tradeoff_algebra.routes.plan import route
from tradeoff_algebra.numeric.context import mp
leaves = route(f)[1]
r = engines._cf_enclosure([leaves], mp.mpf(eps.p) / eps.q, "delta")
out = dict(result="declined" if r is None else str(r))
"""

_PLD = r"""
try:
    with ta.time_limit(limit):
        v = ta.delta(f, eps, dps=10)
    from tradeoff_algebra.numeric.context import mp
    with mp.workdps(40):
        lo, hi = v.interval()  # a point widened by one unit in its last digit
        out = dict(lo=mp.nstr(lo, 30), hi=mp.nstr(hi, 30), g=v.guarantee, route=v.route)
except ta.TimeLimitExceeded as exc:
    out = dict(error=f"time limit of {{limit}} s")
"""

_ONE = r"""
s = sp.Rational({sigma!r})
g = ta.DiscreteGaussian(1, s)
if {what!r} == "delta":
    v = ta.delta(g, eps, dps=35)
else:
    v = ta.epsilon(g, sp.Rational(1, 10**6), dps=30)
out = dict(lo=str(v.lo), hi=str(v.hi), g=v.guarantee, route=v.route)
"""

_OFF = r"""
from tradeoff_algebra.numeric.context import mp
dps = {dps!r}
if {what!r} == "delta":
    v = ta.delta(f, eps, dps=dps)
else:
    v = ta.epsilon(f, sp.Rational(1, 10**6), dps=dps)
with mp.workdps(2 * dps + 20):
    lo, hi = v.interval()  # (a certified point: one unit of its last digit either side)
    out = dict(lo=mp.nstr(lo, dps + 15), hi=mp.nstr(hi, dps + 15), g=v.guarantee, route=v.route,
               rel=float((hi - lo) / hi))
"""

_PLD_FORCED = r"""
from tradeoff_algebra.routes.plan import route
from tradeoff_algebra.routes.product import PLDRoute
from tradeoff_algebra.numeric.context import mp
try:
    with ta.time_limit(limit), mp.workdps(15):
        lo, hi = PLDRoute().enclose(f, route(f), "delta", mp.mpf(eps.p) / eps.q)
        out = dict(lo=mp.nstr(lo, 17), hi=mp.nstr(hi, 17))
except ta.TimeLimitExceeded:
    out = dict(error=f"time limit of {{limit}} s")
"""

_DPA_SIG = r"""
from dp_accounting.pld import privacy_loss_distribution as pldlib
tot = None
for s in sig:
    one = pldlib.from_discrete_gaussian_mechanism(
        sigma=float(s), value_discretization_interval={iv!r}, pessimistic_estimate={pess!r})
    tot = one if tot is None else tot.compose(one)
if {what!r} == "delta":
    out = dict(value=float(tot.get_delta_for_epsilon(float(eps))))
else:
    out = dict(value=float(tot.get_epsilon_for_delta(1e-6)))
"""


def offgrid_rows(r: Report, limit: float) -> None:
    """The incommensurate row certified (families/discrete_gaussian_offgrid.py) through ta.delta
    and ta.epsilon at 30 and 60 digits, beside the PLD engine forced and dp_accounting's PLD of
    the same 1000 discrete Gaussians (fresh processes)."""
    import mpmath

    r.out("## 1000 factors, sigma_i = 10 + i/10 (incommensurate sigma_i^2): certified")
    r.out("")
    r.out("| route | question | answer | guarantee | rel. width | wall time (CPU) | peak RSS "
          "growth |")
    r.out("|---|---|---|---|---|---|---|")
    got = {}
    for what, ques in (("delta", "delta(2)"), ("epsilon", "epsilon(1e-6)")):
        for dps in (30, 60):
            o = child(_OFF.replace("{dps!r}", repr(dps)).replace("{what!r}", repr(what)),
                      n=1000, eps="2")
            if "error" in o:
                r.out(f"| ta | {ques} | {o['error']} | | | | |")
                continue
            got.setdefault(ques, o)
            r.out(f"| ta: {o['route']} | {ques} | [{short(o['lo'], dps + 2)}, "
                  f"{short(o['hi'], dps + 2)}] | {o['g']} | {o['rel']:.1e} | {o['t']:.1f} s "
                  f"({o['cpu']:.1f} s) | {o['mem'] / 2**20:.0f} MiB |")
    p = child(_PLD_FORCED, n=1000, eps="2", limit=limit)
    if "error" in p:
        r.out(f"| ta: privacy-loss distribution (forced) | delta(2) | {p['error']} | | | | |")
    else:
        ref = got.get("delta(2)", {})
        holds = ""
        if "lo" in ref:
            with mpmath.workdps(60):
                ok = (mpmath.mpf(p["lo"]) <= mpmath.mpf(ref["lo"])
                      and mpmath.mpf(ref["hi"]) <= mpmath.mpf(p["hi"]))
            holds = "; holds the certified value" if ok else "; MISSES the certified value"
        r.out(f"| ta: privacy-loss distribution (forced) | delta(2) | [{p['lo']}, {p['hi']}] | "
              f"estimate{holds} | - | {p['t']:.1f} s ({p['cpu']:.1f} s) | "
              f"{p['mem'] / 2**20:.0f} MiB |")
    for what, ques in (("delta", "delta(2)"), ("epsilon", "epsilon(1e-6)")):
        for pess in (True, False):
            o = child(_DPA_SIG.replace("{iv!r}", "1e-4").replace("{pess!r}", repr(pess))
                      .replace("{what!r}", repr(what)), n=1000, eps="2")
            kind = "pessimistic" if pess else "optimistic"
            if "error" in o:
                r.out(f"| dp_accounting PLD, {kind}, interval 1e-4 | {ques} | {o['error']} | | "
                      "| | |")
                continue
            ref = got.get(ques, {})
            agree = ""
            if "lo" in ref:
                with mpmath.workdps(50):
                    rel = (mpmath.mpf(float(o["value"])) - mpmath.mpf(ref["lo"])) / mpmath.mpf(
                        ref["lo"])
                agree = f"rel. diff. from ta {float(rel):+.2e}"
            r.out(f"| dp_accounting PLD, {kind}, interval 1e-4 | {ques} | "
                  f"{float(o['value']):.12g} | estimate ({agree}) | - | {o['t']:.1f} s "
                  f"({o['cpu']:.1f} s) | {o['mem'] / 2**20:.0f} MiB |")
    r.out("")


# -- the common-denominator row: rho_i = k_i/D, sigma_i^2 = D/(2 k_i) -----------------------------
_LHEAD = r"""
import json, resource, sys, time, warnings
sys.path.insert(0, {root!r})
import sympy as sp
import tradeoff_algebra as ta
warnings.simplefilter("ignore")
n, eps, D = {n!r}, sp.Rational({eps!r}), {D!r}
ks = {ks}
dgs = [ta.DiscreteGaussian(1, sp.sqrt(sp.Rational(D, 2 * k))) for k in ks]
f = ta.Tensor(*dgs) if n > 1 else dgs[0]
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
cpu0 = sum(resource.getrusage(resource.RUSAGE_SELF)[:2])
t0 = time.perf_counter()
"""

_LDELTA = r"""
from tradeoff_algebra.numeric.context import mp
v = ta.delta(f, eps, dps=30)
with mp.workdps(60):
    lo, hi = v.interval()  # (a certified point: one unit of its last digit either side)
    out = dict(lo=mp.nstr(lo, 45), hi=mp.nstr(hi, 45), g=v.guarantee, route=v.route,
               rel=float((hi - lo) / hi), ulo=[str(int(lo.man_exp[0])), int(lo.man_exp[1])],
               uhi=[str(int(hi.man_exp[0])), int(hi.man_exp[1])])
"""

_LEPS = r"""
from tradeoff_algebra.numeric.context import mp
v = ta.epsilon(f, sp.Rational(1, 10**6), dps=30)
with mp.workdps(60):
    out = dict(lo=mp.nstr(v.lo, 45), hi=mp.nstr(v.hi, 45), g=v.guarantee, route=v.route,
               rel=float((v.hi - v.lo) / v.hi))
"""

_DPA = r"""
from collections import Counter
from dp_accounting.pld import privacy_loss_distribution as pldlib
tot = None
for k, m in sorted(Counter(ks).items()):
    one = pldlib.from_discrete_gaussian_mechanism(
        sigma=float(sp.sqrt(sp.Rational(D, 2 * k))), value_discretization_interval={iv!r},
        pessimistic_estimate={pess!r})
    part = one.self_compose(m) if m > 1 else one
    tot = part if tot is None else tot.compose(part)
if {what!r} == "delta":
    out = dict(value=float(tot.get_delta_for_epsilon(float(eps))))
else:
    out = dict(value=float(tot.get_epsilon_for_delta(1e-6)))
"""


_TREE = r"""
from fractions import Fraction
from tradeoff_algebra.routes.plan import route
from tradeoff_algebra.routes.product import lattice_product
from tradeoff_algebra.numeric.context import mp
lp = lattice_product(route(f)[1])  # the exact integer composition itself (no shortcut)
if {what!r} == "delta":
    from flint import ctx
    b = lp.delta(Fraction(2), 1e-31)
    ctx.prec = 400  # (the ends exactly)
    out = dict(lo=b.lower().str(45, radius=False), hi=b.upper().str(45, radius=False),
               rel=2 * float(b.rad()) / float(b.mid()))
else:
    lo, hi = lp.epsilon(Fraction(1, 10**6), 1e-31)
    with mp.workdps(60):
        out = dict(lo=mp.nstr(mp.mpf(lo.numerator) / lo.denominator, 45),
                   hi=mp.nstr(mp.mpf(hi.numerator) / hi.denominator, 45),
                   rel=float((hi - lo) / hi))
"""

_REFUSE = r"""
from fractions import Fraction
from tradeoff_algebra.routes.plan import route
from tradeoff_algebra.routes.product import lattice_product, routes_for
offered = [r.name for r in routes_for(f, "delta")]
try:
    lattice_product(route(f)[1]).delta(Fraction(2), 1e-31)
    out = dict(msg="answered")
except ta.TradeOffError as exc:
    out = dict(msg=f"{{type(exc).__name__}}: {{exc}}")
out["offered"] = ", ".join(offered)
"""

_ROUNDED = "[max(1, round(D / (2 * (10 + i / 10) ** 2))) for i in range(1, n + 1)]"


def lchild(body: str, n: int, D: int, eps: str = "2", ks: str = _ROUNDED, **kw) -> dict:
    code = (_LHEAD.format(root=ROOT, n=n, eps=eps, D=D, ks=ks) + body.format(**kw) + _TAIL)
    return child_json(code, 3600)


def ks_of(n: int, D: int) -> list[int]:
    """k_i = max(1, round(D/(2 sigma_i^2))), sigma_i = 10 + i/10: the budgets of the
    incommensurate row rounded to the grid 1/D."""
    return [max(1, round(D / (2 * (10 + i / 10) ** 2))) for i in range(1, n + 1)]


def common_denominator_rows(r: Report, D: int, tree: bool = False, distinct: bool = False,
                            intervals: tuple = (1e-4, 1e-5), few: bool = True) -> None:
    """The 1000-factor row with rho_i = k_i/D (fresh processes), beside dp_accounting (value
    discretizations ``intervals``), the exact integer composition forced (``tree``), and the
    few-factor check of the route against the exact lattice sums (``few``); ``distinct``: k_i =
    i instead of the rounded budgets."""
    import mpmath

    ks = list(range(1, 1001)) if distinct else ks_of(1000, D)
    kexpr = "list(range(1, n + 1))" if distinct else _ROUNDED
    r.out(f"## 1000 factors on a common denominator: rho_i = k_i/{D}, eps = 2 and "
          "delta = 1e-6")
    r.out("")
    if distinct:
        r.out(f"sigma_i^2 = D/(2 k_i) with k_i = i, i = 1 .. 1000: every budget distinct (sum "
              f"rho_i = {sum(ks) / D:g}); the exact integer composition's window would hold "
              "about 1.4e7 lattice points (beyond MAX_WINDOW = 4e6: it refused this row).")
    else:
        r.out(f"sigma_i^2 = D/(2 k_i) with k_i = max(1, round(D/(2 (10 + i/10)^2))): the "
              f"budgets of the incommensurate row below rounded to the grid 1/{D} (k_i from "
              f"{max(ks)} down to {min(ks)}, {len(set(ks))} distinct values, sum rho_i = "
              f"{sum(ks) / D:g}).")
    r.out("")
    r.out("| route | question | answer | guarantee | rel. width | wall time (CPU) | peak RSS "
          "growth |")
    r.out("|---|---|---|---|---|---|---|")
    got = {}
    for what, body in (("delta(2)", _LDELTA), ("epsilon(1e-6)", _LEPS),
                       ("delta(2), dps 40", _LDELTA.replace("dps=30", "dps=40")),
                       ("epsilon(1e-6), dps 40", _LEPS.replace("dps=30", "dps=40"))):
        o = lchild(body, 1000, D, ks=kexpr)
        got[what] = o
        if "error" in o:
            r.out(f"| ta (exact lattice product) | {what} | {o['error']} | | | | |")
            continue
        r.out(f"| ta: {o['route']} | {what} | [{short(o['lo'], 32)}, {short(o['hi'], 32)}] | "
              f"{o['g']} | {o['rel']:.1e} | {o['t']:.1f} s ({o['cpu']:.1f} s) | "
              f"{o['mem'] / 2**20:.0f} MiB |")
    if tree:
        for what, ques in (("delta", "delta(2)"), ("epsilon", "epsilon(1e-6)")):
            o = lchild(_TREE, 1000, D, ks=kexpr, what=what)
            if "error" in o:
                r.out(f"| ta: exact integer composition (the tree, forced) | {ques} | "
                      f"{o['error']} | | | | |")
                continue
            ref = got.get(ques, {})
            agree = ""
            if "lo" in ref:
                with mpmath.workdps(60):
                    meet = (mpmath.mpf(o["lo"]) <= mpmath.mpf(ref["hi"])
                            and mpmath.mpf(ref["lo"]) <= mpmath.mpf(o["hi"]))
                agree = "; intersects the shortcut's" if meet else "; MISSES the shortcut's"
            r.out(f"| ta: exact integer composition (the tree, forced) | {ques} | "
                  f"[{short(o['lo'], 32)}, {short(o['hi'], 32)}] | certified{agree} | "
                  f"{o['rel']:.1e} | {o['t']:.1f} s ({o['cpu']:.1f} s) | "
                  f"{o['mem'] / 2**20:.0f} MiB |")
    for what, ques in (("delta", "delta(2)"), ("epsilon", "epsilon(1e-6)")):
        for iv in intervals:
            for pess in (True, False):
                o = lchild(_DPA, 1000, D, ks=kexpr, iv=iv, pess=pess, what=what)
                kind = "pessimistic" if pess else "optimistic"
                if "error" in o:
                    r.out(f"| dp_accounting PLD, {kind}, interval {iv:g} | {ques} | "
                          f"{o['error']} | | | | |")
                    continue
                ref = got.get(ques, {})
                agree = ""
                if "lo" in ref:
                    with mpmath.workdps(50):
                        mid = (mpmath.mpf(ref["lo"]) + mpmath.mpf(ref["hi"])) / 2
                        rel = (mpmath.mpf(float(o["value"])) - mid) / mid
                    agree = f"rel. diff. from ta {float(rel):+.2e}"
                r.out(f"| dp_accounting PLD, {kind}, interval {iv:g} | {ques} | "
                      f"{float(o['value']):.12g} | estimate ({agree}) | - | {o['t']:.1f} s "
                      f"({o['cpu']:.1f} s) | {o['mem'] / 2**20:.0f} MiB |")
    r.out("")
    if not few:
        return
    r.out(f"Few factors of the same grid (k_1, k_2, k_3 = {ks[0]}, {ks[1]}, {ks[2]}): the route "
          "against the exact lattice sums of this script (independent of the library), eps = "
          "3/10.")
    r.out("")
    r.out("| n | exact lattice sum (Arb) | ta.delta (route) | holds it | rel. width | "
          "wall time |")
    r.out("|---|---|---|---|---|---|")
    from flint import arb, ctx

    for n in (1, 2, 3):
        ref = exact_delta([Fraction(D, 2 * k) for k in ks[:n]], Fraction(3, 10))
        o = lchild(_LDELTA, n, D, eps="3/10")
        if "error" in o:
            r.out(f"| {n} | {fmt(ref, 30)} | {o['error']} | | | |")
            continue
        old, ctx.prec = ctx.prec, 400
        lo, hi = (arb(int(m)) * arb(2) ** int(e) for m, e in (o["ulo"], o["uhi"]))  # exact ends
        holds = "yes" if lo <= ref.upper() and ref.lower() <= hi else "NO"
        ctx.prec = old
        r.out(f"| {n} | {fmt(ref, 30)} | [{short(o['lo'], 30)}, {short(o['hi'], 30)}] "
              f"({o['route']}) | {holds} | {o['rel']:.1e} | {o['t']:.2f} s |")
    r.out("")


_REFUSE2 = r"""
from fractions import Fraction
from tradeoff_algebra.routes.plan import route
from tradeoff_algebra.routes.product import lattice_product, routes_for
g = ta.Tensor(*[ta.DiscreteGaussian(1, sp.sqrt(sp.Rational(p, 300000))) for p in (300007, 300017)])
offered = [r.name for r in routes_for(g, "delta")]
try:
    lattice_product(route(g)[1]).delta(Fraction(1, 2), 1e-31)
    out = dict(msg="answered")
except ta.TradeOffError as exc:
    out = dict(msg=f"{{type(exc).__name__}}: {{exc}}")
out["offered"] = ", ".join(offered)
"""


def refusal_row(r: Report) -> None:
    """A lattice whose root window exceeds MAX_WINDOW and that the shortcut does not take
    (sigma near 1: the lattice terms are real): refused at once, naming the limit."""
    o = lchild(_REFUSE2, 1, 10**4, ks="[1]")
    r.out("A lattice too fine for the exact composition and not taken by the shortcut: sigma_1^2 = "
          "300007/300000, sigma_2^2 = 300017/300000 (sigma near 1, so the lattice terms are "
          "real; D = 2 * 300007 * 300017): the lattice composition refuses in "
          f"{o.get('t', float('nan')):.2f} s wall with `{o.get('msg', o.get('error'))}`; "
          f"ta.delta is then offered the former routes only ({o.get('offered', '-')}).")
    r.out("")


def child(body: str, n: int = 1, eps: str = "2", limit: float = 0, **kw) -> dict:
    code = (_HEAD.format(root=ROOT, n=n, eps=eps, limit=limit) + body.format(**kw) + _TAIL)
    return child_json(code, 3600)


# -- the independent references (Arb, exact thresholds) ------------------------------------------
def _lattice(s2: Fraction, prec: int):
    """(K, P on [-K, K + 1] as Arb balls, the bound b of P(|X| > K) and of Q outside the
    window, h) for sigma^2 = s2: P(x) = e^{-h x^2}/theta, theta by its direct sum with the
    geometric tail."""
    import math

    from flint import arb, fmpq

    h = 1 / (2 * arb(fmpq(s2.numerator, s2.denominator)))
    K = int(math.sqrt(float(s2)) * math.sqrt(2 * math.log(2) * (prec + 20))) + 4
    w = {x: (-h * x * x).exp() for x in range(-K - 1, K + 2)}
    first = (-h * (K + 1) ** 2).exp()  # the terms beyond K decrease with ratio <= e^{-h(2K+3)}
    tail = 2 * first / (1 - (-h * (2 * K + 3)).exp())
    theta = sum((w[x] for x in range(-K, K + 1)), arb(0)) + arb(0, float(tail.upper()) * 2)
    P = {x: w[x] / theta for x in range(-K - 1, K + 2)}
    return K, P, 2 * tail / theta, h


def exact_delta(s2s: list[Fraction], eps: Fraction, prec: int = 160):
    """delta(eps) of DG(1, s_1) (x) ... (x) DG(1, s_n), n <= 3, as an Arb ball (module, 4.),
    from the variances s2s = [s_1^2, ...] (exact rationals)."""
    import itertools

    from flint import arb, ctx, fmpq

    old = ctx.prec
    ctx.prec = prec
    try:
        labs = [_lattice(s, prec) for s in s2s]
        *first, (Kn, Pn, bn, _) = labs
        # tails of the last factor: TP(m) = P_n(X >= m), TQ(m) = Q_n(X >= m) = TP(m - 1)
        tp = {Kn + 2: arb(0, float(bn.upper()))}
        for x in range(Kn + 1, -Kn - 2, -1):
            tp[x] = tp[x + 1] + Pn[x]

        def TP(m):
            if m > Kn + 2:
                return arb(0, float(bn.upper()))
            if m < -Kn - 1:
                return 1 - arb(0, float(bn.upper()))
            return tp[m]

        gamma = arb(fmpq(eps.numerator, eps.denominator)).exp()
        total, outside = arb(0), arb(0)
        ranges = [range(-K, K + 2) for K, _, _, _ in first]
        for xs in itertools.product(*ranges):
            loss = sum((Fraction(2 * x - 1, 2) / s2 for x, s2 in zip(xs, s2s, strict=False)),
                       Fraction(0))
            # the last factor's loss (2 y - 1)/(2 s^2) > eps - loss  iff  y > (eps - loss) s^2 + 1/2
            thr = (eps - loss) * s2s[-1] + Fraction(1, 2)
            m = thr.numerator // thr.denominator + 1
            q, p = arb(1), arb(1)
            for x, (_, P, _, _) in zip(xs, first, strict=True):
                q, p = q * P[x - 1], p * P[x]
            total += q * TP(m - 1) - gamma * p * TP(m)
        for _, _, b, _ in first:  # Q-mass of a factor outside its window: at most its tail
            outside += b
        return total + arb(0, float(outside.upper()))
    finally:
        ctx.prec = old


def surrogate(sigmas: list[Fraction], eps: Fraction, prec: int = 160):
    """N delta_G(eps) (module, 3.) as an Arb ball: the Gaussian term of the Poisson sum."""
    from flint import acb, arb, ctx, fmpq

    from tradeoff_algebra.families.discrete_gaussian_law import _theta_dual

    old = ctx.prec
    ctx.prec = prec
    try:
        mu2 = sum((Fraction(1) / s**2 for s in sigmas), Fraction(0))
        mu = arb(fmpq(mu2.numerator, mu2.denominator)).sqrt()
        e = arb(fmpq(eps.numerator, eps.denominator))

        def Phi(x):
            return (-x / arb(2).sqrt()).erfc() / 2

        dg = Phi(-e / mu + mu / 2) - e.exp() * Phi(-e / mu - mu / 2)
        N = arb(1)
        for s in sigmas:
            N /= _theta_dual(arb(fmpq(s.numerator, s.denominator)), acb(0), 4).real
        return N * dg
    finally:
        ctx.prec = old


def sig(n: int) -> list[Fraction]:
    return [10 + Fraction(i, 10) for i in range(1, n + 1)]


def short(x: str, digits: int = 10) -> str:
    """A decimal string to ``digits`` significant digits, exponent kept."""
    import mpmath

    with mpmath.workdps(digits + 10):
        return mpmath.nstr(mpmath.mpf(x), digits)


def fmt(b, digits: int = 12) -> str:
    return b.str(digits, radius=False)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", metavar="PATH")
    ap.add_argument("--limit", type=float, default=300.0, help="PLD time limit (s)")
    ap.add_argument("--denominators", default="10000,100000",
                    help="D of the common-denominator rows")
    ap.add_argument("--tree-up-to", type=int, default=10000,
                    help="the exact integer composition (forced) beside the route up to this D")
    ap.add_argument("--no-fine", dest="fine", action="store_false",
                    help="leave out the grid D = 10^6 with every budget distinct")
    ap.add_argument("--only-lattice", action="store_true", help="the common-denominator rows only")
    ap.add_argument("--only-offgrid", action="store_true",
                    help="the certified incommensurate row only")
    args = ap.parse_args()
    sys.path.insert(0, ROOT)
    r = Report()
    r.out("# The census row: compositions of discrete Gaussians")
    r.out("")
    r.out(run_line("python benchmarks/bench_census.py", ("python-flint", "numpy"))
          + "; each timed point in a fresh process (import excluded); sigma_i = 10 + i/10, "
          "Delta = 1.")
    r.out("")
    if args.only_offgrid:
        offgrid_rows(r, args.limit)
        r.write(args.write)
        return
    for D in map(int, args.denominators.split(",")):
        common_denominator_rows(r, D, tree=D <= args.tree_up_to)
    if args.fine:
        common_denominator_rows(r, 10**6, distinct=True, intervals=(1e-4,), few=False)
    refusal_row(r)
    if args.only_lattice:
        r.write(args.write)
        return

    offgrid_rows(r, args.limit)
    r.out("## 1000 factors, sigma_i = 10 + i/10: the other routes and bounds, eps = 2")
    r.out("")
    r.out("| route | answer | guarantee | time | peak RSS growth |")
    r.out("|---|---|---|---|---|")
    d = child(_DECLINE, n=1000, eps="2")
    r.out(f"| certified Laplace inversion | {d.get('result', d.get('error'))} | - | "
          f"{d.get('t', float('nan')):.2f} s | {d.get('mem', 0) / 2**20:.0f} MiB |")
    import time

    t0 = time.perf_counter()
    s1000 = surrogate(sig(1000), Fraction(2))
    ts = time.perf_counter() - t0
    r.out(f"| Gaussian surrogate N delta_G (k = 0 Poisson term) | {fmt(s1000, 35)} | estimate "
          f"(the lattice terms are not bounded) | {ts:.2f} s (in process) | - |")
    from tradeoff_algebra.families.discrete_gaussian_law import dg_law
    from tradeoff_algebra.numeric import cf_route

    t0 = time.perf_counter()
    laws = [(dg_law(1, s), 1) for s in sig(1000)]
    c = cf_route._some_c(laws, 2.0)
    bound = cf_route._chernoff(laws, "delta", 2.0, c)  # K e^{-c eps} prod M_i(c), M_i in Arb
    tb = time.perf_counter() - t0
    r.out(f"| Chernoff bound K e^(-c eps) prod M_i(c) at c = {c:.3f} (the Arb laws) | "
          f"delta <= {bound:.6g} | certified upper bound | {tb:.2f} s (in process) | - |")
    r.out("")

    r.out("## Few factors: certified lattice sums against the surrogate and the engines, "
          "eps = 3/10")
    r.out("")
    r.out("| n | certified delta (exact lattice sum, Arb) | rel. radius | time | surrogate "
          "rel. error | ta.delta [lo, hi] | route | time |")
    r.out("|---|---|---|---|---|---|---|---|")
    for n in (1, 2, 3):
        t0 = time.perf_counter()
        ref = exact_delta([x * x for x in sig(n)], Fraction(3, 10))
        te = time.perf_counter() - t0
        sur = surrogate(sig(n), Fraction(3, 10))
        rel = abs((sur - ref) / ref)
        q = child(_PLD, n=n, eps="3/10", limit=args.limit)
        ans = q.get("error") or f"[{short(q['lo'])}, {short(q['hi'])}]"
        inside = ""
        if "lo" in q:
            from flint import arb

            lo, hi = arb(q["lo"]), arb(q["hi"])
            inside = " (holds it)" if lo <= ref.upper() and ref.lower() <= hi else " (MISSES)"
        r.out(f"| {n} | {fmt(ref, 30)} | {float(ref.rad() / ref.mid()):.1e} | {te:.1f} s | "
              f"{float(rel.mid()):.2e} | {ans}{inside} | {q.get('route', '-')} | "
              f"{q.get('t', float('nan')):.1f} s |")
    r.out("")

    r.out("## The certified single-factor routes")
    r.out("")
    r.out("| sigma | question | answer | guarantee | route | time | peak RSS growth |")
    r.out("|---|---|---|---|---|---|---|")
    for sigma in ("10", "10000", "1000000"):
        for what in ("delta", "epsilon"):
            o = child(_ONE.replace("{sigma!r}", repr(sigma)).replace("{what!r}", repr(what)),
                      n=1, eps="1/1000" if sigma != "10" else "1/2")
            if "error" in o:
                r.out(f"| {sigma} | {what} | {o['error']} | | | | |")
                continue
            q = "delta(1/1000)" if sigma != "10" else "delta(1/2)"
            r.out(f"| {sigma} | {q if what == 'delta' else 'epsilon(1e-6)'} | "
                  f"{short(o['lo'], 25)} | {o['g']} | {o['route']} | {o['t']:.2f} s | "
                  f"{o['mem'] / 2**20:.0f} MiB |")
    for line in READING:
        r.out(line)
    r.write(args.write)


READING = """
## Reading

* **Delivered for budgets on a grid: delta(eps) and eps(delta) of 1000 discrete Gaussians with
  different sigma_i, certified to relative width 1e-31, in 0.1 to 1.5 s of CPU on every grid
  tried, in a few MiB** (the tables above, wall times inflated by the load: the grids 1/10^4 and
  1/10^5, and 1/10^6 with all 1000 budgets distinct, which the exact composition refused; at
  1/10^5 the exact composition takes 37 to 52 s of CPU and 0.7 to 0.9 GiB). When the zCDP budgets
  rho_i = 1/(2 sigma_i^2) are rationals of one denominator D, every factor's loss lives on the
  lattice (1/D) Z, and so does the product's: L = (g S + B)/D with S = sum a_i y_i, y_i ~ N_Z(0,
  sigma_i^2) under Q. By Poisson summation (families/discrete_gaussian_sum.py) the law of S is
  exactly N_Z(0, V), V = sum sigma_i^2 a_i^2, times 1 + zeta(s) with |zeta(s)| <= eta = sqrt(2 pi
  V) int_{-1/2}^{1/2} prod_i theta_i(lam) dlam - 1, theta_i the factors' dual theta series; eta is
  the sum of e^{-2 pi^2 Q(m)} over the nonzero classes of Z^n/Z a, bounded in Arb and exact
  integers (three zones around lam = 0 and a branch and bound over dyadic intervals beyond). So
  the product is DiscreteGaussian(sum a_i, sqrt(V)) up to a proved factor, whose profile is
  certified by Euler-Maclaurin with a rigorous remainder in milliseconds; on these rows eta is
  below 2^-512 (the first bound tried). eps(delta) is the one discrete Gaussian's certified
  bracket at the levels delta/factor.
* Where the lattice terms are real (few factors of moderate sigma on a coarse lattice: sigma^2 =
  50, 60 differ from their one discrete Gaussian by 1e-8 relative) the bound says so and the
  product goes to the exact integer composition (numeric/lattice_product.py: the tilted
  fixed-point fmpz_poly tree, certified after the fact by the tilted missing mass), as do
  products with other lattice factors (the discrete Laplace). That tree now cuts every node
  with Gaussian tails to its window (a node was kept whole up to twice its window, meant for
  finite supports): its row beside the shortcut at D = 10^4 and 10^5 (forced, in the tables)
  intersects the shortcut's ball.
* Independent checks: the shortcut against the exact two-factor lattice sums at 60 digits
  (sigma^2 = 800, 1000: delta at three eps and both ends of eps(1e-3)), against brute-force
  enumeration where the lattice terms are visible (held by the proved factor at 2^-10), and
  against the exact composition (k_i = 1 .. 24 on D = 10^4: the balls intersect, the
  shortcut's no wider; eps brackets intersect) in tests/test_lattice_product.py; the exact
  lattice sums of this script hold the route's intervals for n = 1, 2, 3; dp_accounting's PLD
  of the same 1000 discrete Gaussians brackets the certified delta(2) and eps(1e-6) between its
  optimistic and pessimistic estimates on every grid: at value discretization 1e-4 its two
  sides lie 3.5e-2 (D = 10^4) to 1.1e-1 (D = 10^5, 10^6) from the certified delta, for 7 to 40
  times the CPU time; at 1e-5 within 5e-3 to 7e-3, for over 60 times the CPU time and 0.5 GiB.
* Where the time goes now: the shortcut itself takes milliseconds (the bound of eta about 0.1 s
  for 1000 distinct factors, the one profile a few ms); the rest of ta.delta is the product's
  plan and the routes' tests of each distinct factor (routes/, unchanged here), about a second
  of CPU for 1000 distinct factors.
* A lattice is refused at once, naming MAX_WINDOW, only where the shortcut does not take it and
  the window exceeds 4e6 points (the example above: sigma near 1, D = 1.8e11); nor is a product
  a lattice where the sigma_i^2 share no denominator up to MAX_DENOMINATOR = 10^12: products of
  discrete Gaussians there go to the off-grid route (next), the others to the former routes.
* **Delivered for the incommensurate row (sigma_i = 10 + i/10 exactly): delta(2) and eps(1e-6)
  certified to relative width 1e-31 in 1.2 and 1.5 s of CPU through ta.delta and ta.epsilon (of
  which the bound itself takes 0.2 to 0.6 s; the rest is the product's plan), to 1e-61 in 3.0
  and 3.5 s, in a few MiB** (the first incommensurate table; families/discrete_gaussian_offgrid.py).
  The n-dimensional Poisson summation of delta = E_Q[(1 - e^{eps - L})_+] over the noise vector y
  in Z^1000 is exact: delta = N sum_K S_K T_K, N = prod_i 1/N_i (the factors' theta
  normalisers), T_0 = delta_G (the continuous composition G_mu, mu^2 = sum 1/sigma_i^2), T_K the
  Gaussian profile's Fourier coefficient at 2 pi K/mu^2, |T_K| <= A mu^4/(4 pi^2 K^2) (two
  integrations by parts across the kink of (1 - e^{eps - l})_+, A in closed form), and S_K =
  sum over k in Z^n with sum k_i = K of e^{-2 pi^2 Q(k)} <= prod_i theta_i(K/mu^2), the factors'
  dual theta series, which is small unless K/(mu^2 sigma_i^2) is near an integer for every i at
  once. The terms 0 < |K| <= 2^106 are bounded by an exact Fincke-Pohst enumeration (rational
  arithmetic, over an LLL-reduced basis from python-flint) of a lattice of dimension 24 built
  from the 23 largest sigma_i: it visits 140 nodes and finds only the central line |K| <= 58,
  where every factor is near 0 and the terms are below e^{-2 pi^2 580}; every other K there has
  sum_i sigma_i^2 dist(K/(mu^2 sigma_i^2), Z)^2 >= 4, so S_K <= e^{-79}; the terms beyond 2^106
  by the 1/K^2 decay. So the surrogate N delta_G of the table below is the answer, now proved:
  the certified ball is that value widened by 2.4e-32 relative (the truncation at 2^106
  dominates). The PLD engine, forced, answers [0.0141309, 0.0151406] (an estimate, holding the
  certified value 0.0151405015) in 53 s of CPU and 0.5 GiB; dp_accounting's PLD of the same 1000
  factors at value discretization 1e-4 brackets delta(2) (-1.15e-1 and +1.27e-1 relative) and
  eps(1e-6) (-1.08e-2 and +1.08e-2) between its optimistic and pessimistic estimates, in 10 to
  13 s of CPU each and 0.1 GiB.
* Where it stops: the near returns must be absent. Few factors (here n <= 20: the surrogate is
  off by 4.7e-3, 9.6e-4 and 5.5e-5 for n = 1, 2, 3 against the certified lattice sums below) and
  budgets on a grid (exact returns at every multiple of sum k_i, listed and bounded one by one:
  about 2e-7 relative at best on rho_i = i/10^6, where the grid route answers to 1e-31) are
  declined at the
  requested tolerance (the route answers at the looser tolerances its bound reaches, down to
  1e-6, and is offered only where it reaches 2^-100 at eps = 1); the enumeration is capped
  (MAX_NODES = 20000 exact nodes, MAX_LISTED = 4096 values of K). Tested
  (tests/test_discrete_gaussian_offgrid.py) against the exact lattice sums of 1, 2 and 3 factors
  at tolerances 1e-1 and 1e-2 (the lattice terms real, the balls must hold the sums), against
  the grid route on rho_i = i/10^6 (n = 100 and 1000) and the exact integer composition (k_i = 1
  .. 24 on 10^4), against the PLD engine's enclosure of the census row, and the enumeration
  against brute force (every K up to 2^11 with G < B listed; the Fincke-Pohst search against a
  scan of a box).
* Certified for a single factor: delta to 35 digits in milliseconds at any sigma up to 1e6,
  far tails included, by Euler-Maclaurin with a rigorous remainder or the few direct terms;
  eps(delta) as a bracket proved in Arb in 0.3 s at sigma = 1e4; products of discrete
  Gaussians with a factor whose mgf decays (G_mu, the subsampled Gaussian) through the
  certified Laplace inversion (tests/test_discrete_gaussian.py).
""".splitlines()


if __name__ == "__main__":
    main()
