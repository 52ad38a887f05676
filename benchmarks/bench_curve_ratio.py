"""The cost of the power roc(alpha) and of a whole curve against one eps call, for every
mechanism family (issue 29's target: roc and whole curves at most 2x one eps call at equal
tolerance, certified).

For each mechanism and each tolerance (``pld_options(tol=5e-4)``, the default, and ``1e-9``),
three calls, each in a fresh process (imports and construction excluded; CPU seconds by
``time.process_time``; peak resident memory above the imports):

* ``ta.epsilon(f, 1e-6)``;
* ``ta.roc(f, 1/100)``;
* ``ta.curve(f, numpy.linspace(0, 1, 101), bounds=True)`` (its shown value: the power at 0.01;
  its relative width: the largest of (hi - lo)/(1 - lo) over the interior levels).

The ratios roc/eps and curve/eps are CPU over CPU; a ratio above 2 is flagged. Each answer is
checked against a reference computed here, independent of the library:

* mechanisms dp_accounting covers (DP-SGD, subsampled Laplace, products of Gaussians and
  Laplaces, the discrete Gaussian and Laplace, and the subsampled randomized response from its
  symmetric hull's finite pair built here in float64 and handed to
  ``create_from_rounded_probability``): its pessimistic and optimistic PLDs at grid 1e-4 give
  an eps bracket (``get_epsilon_for_delta``) and a power bracket, the power being
  1 - f(alpha) = inf over eps of delta(eps) + e^eps alpha (Dong, Roth & Su, Prop. 6 / the
  envelope of the privacy profile; a grid of eps, then golden section in v = e^eps, where
  delta(log v) + alpha v is convex): the pessimistic end is an upper bound up to float errors,
  the optimistic end a lower bound up to float errors and the search's last step;
* G(k) (Group of G(1)), Mix(G(2), 1/10), Max(G(1), Laplace(1)), PoissonReplace(1, 1/100):
  30-digit mpmath closed forms (the Neyman-Pearson threshold test of each pair; Max by the
  minimum of the two powers, its profile by golden section over alpha of a concave function);
* ShuffleDP(1, 10^4): the closed-form pair of Feldman, McMillan & Talwar summed in float64 log
  space (``bench_issue29.shuffle_delta_ref``, an estimate): delta at our eps ends, and the
  power as the infimum over eps in (0, eps0) of delta(eps) + e^eps alpha.

    nice python benchmarks/bench_curve_ratio.py [--only TEXT [--exact]] [--write PATH]
"""

from __future__ import annotations

import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _report import Report, child_json, run_line  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIMIT = 120  # seconds a call may run (its process is killed past it: a row behind)
ALPHA, DELTA = 0.01, 1e-6

_OURS = r"""
import json, resource, sys, time, warnings
sys.path.insert(0, {root!r})
import numpy as np
import sympy as sp
import tradeoff_algebra as ta
from tradeoff_algebra.numeric.context import mp
R = sp.Rational
f = {expr}
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    t0 = time.process_time()
    with ta.pld_options(tol={tol}):
        {call}
    cpu = time.process_time() - t0
mem = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024
warned = sorted({{type(w.message).__name__ for w in caught}})
print(json.dumps(dict(cpu=cpu, mem=mem, warned=warned, **out)))
"""

_EPS = r"""v = ta.epsilon(f, R(1, 10**6))
    with mp.workdps(30):
        out = dict(lo=float(v.lo), hi=float(v.hi), g=v.guarantee, route=str(v.route))"""
_ROC = r"""v = ta.roc(f, R(1, 100))
    with mp.workdps(30):
        out = dict(lo=float(v.lo), hi=float(v.hi), g=v.guarantee, route=str(v.route))"""
_CURVE = r"""x = np.linspace(0, 1, 101)
        lo, hi = ta.curve(f, x, bounds=True)
    i = 1  # alpha = 0.01
    pw = np.maximum(1 - lo[1:-1], 1e-300)
    out = dict(lo=float(1 - hi[i]), hi=float(1 - lo[i]),
               rel=float(np.max((hi - lo)[1:-1] / pw)),
               g="curve, bounds=True", route="ta.curve, 101 levels")"""

#: dp_accounting's pessimistic and optimistic PLDs: the eps bracket at DELTA and the power
#: bracket at ALPHA (inf over eps of delta(eps) + e^eps alpha on a refined grid of eps).
_PLD = r"""
import functools, json, math, resource, sys, time, warnings
import numpy as np
warnings.simplefilter("ignore")
resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
from dp_accounting.pld import privacy_loss_distribution as P
h = {h}
out = {{}}
t0 = time.process_time()
for pess in (True, False):
    pld = {build}
    e = float(pld.get_epsilon_for_delta({delta}))
    grid = np.linspace(-3.0, 2 * e + 3, 801)
    val = np.asarray(pld.get_delta_for_epsilon(grid)) + np.exp(grid) * {alpha}
    k = int(np.argmin(val))
    # delta(log v) + alpha v is convex in v = e^eps: golden section in v (it finds a kink of a
    # lattice law's profile to float precision, where a grid of eps would miss it)
    def g(v):
        return float(pld.get_delta_for_epsilon(math.log(v))) + v * {alpha}
    a, b = math.exp(grid[max(k - 1, 0)]), math.exp(grid[min(k + 1, 800)])
    r = (math.sqrt(5) - 1) / 2
    for _ in range(90):
        m1, m2 = b - r * (b - a), a + r * (b - a)
        if g(m1) < g(m2):
            b = m2
        else:
            a = m1
    best = min(g(a), g(b), float(val[k]))
    out["pess" if pess else "opt"] = dict(eps=e, power=best, at=math.log((a + b) / 2))
out["cpu"] = time.process_time() - t0
print(json.dumps(out))
"""


def _dpa(mech: str) -> str:
    return mech + ", pessimistic_estimate=pess, value_discretization_interval=h"


_GAUSS_STEP = "P.from_gaussian_mechanism(1.1, sensitivity=1, sampling_prob=256 / 60000, "
_HET_G = "[ta.G(R(1, 3) + R(i, 1000)) for i in range(100)]"
_HET_L = "[ta.Laplace(R(1, 10) + R(i, 10**4)) for i in range(100)]"

#: name, our expression, dp_accounting's PLD (None: an mpmath reference below).
ROWS = [
    ("DP-SGD sigma=1.1 q=256/60000 T=10", "ta.noisy_sgd(R(11, 10), R(256, 60000), 10)",
     _dpa(_GAUSS_STEP[:-2]) + ").self_compose(10)"),
    ("DP-SGD sigma=1.1 q=256/60000 T=1000", "ta.noisy_sgd(R(11, 10), R(256, 60000), 1000)",
     _dpa(_GAUSS_STEP[:-2]) + ").self_compose(1000)"),
    ("DP-SGD sigma=1.1 q=256/60000 T=14063", "ta.noisy_sgd(R(11, 10), R(256, 60000), 14063)",
     _dpa(_GAUSS_STEP[:-2]) + ").self_compose(14063)"),
    ("Poisson-subsampled Laplace q=0.01 b=1 T=10^4",
     "ta.laplace_mechanism(1, 1, sampling='poisson', p=R(1, 100)) ** 10000",
     _dpa("P.from_laplace_mechanism(1.0, sensitivity=1, sampling_prob=0.01")
     + ").self_compose(10000)"),
    ("G(1/3+i/1000) (x) Laplace(1/10+i/10^4), i<100", f"ta.Tensor(*({_HET_G} + {_HET_L}))",
     "functools.reduce(lambda a, b: a.compose(b), "
     "[P.from_gaussian_mechanism(1 / (1 / 3 + i / 1000), sensitivity=1, "
     "pessimistic_estimate=pess, value_discretization_interval=h) for i in range(100)] + "
     "[P.from_laplace_mechanism(1 / (1 / 10 + i / 10**4), sensitivity=1, "
     "pessimistic_estimate=pess, value_discretization_interval=h) for i in range(100)])"),
    ("G(1) (x) Laplace(1)", "ta.Tensor(ta.G(1), ta.Laplace(1))",
     _dpa("P.from_gaussian_mechanism(1.0, sensitivity=1") + ").compose("
     + _dpa("P.from_laplace_mechanism(1.0, sensitivity=1") + "))"),
    ("DiscreteGaussian(1, sigma=10)^100", "ta.TensorPower(ta.DiscreteGaussian(1, 10), 100)",
     _dpa("P.from_discrete_gaussian_mechanism(10.0, sensitivity=1") + ").self_compose(100)"),
    ("DiscreteLaplace(1, t=10)^1000", "ta.TensorPower(ta.DiscreteLaplace(1, 10), 1000)",
     _dpa("P.from_discrete_laplace_mechanism(0.1, sensitivity=1") + ").self_compose(1000)"),
    ("ShuffleDP(eps0=1, n=10^4)", "ta.ShuffleDP(1, 10**4)", None),
    ("PoissonReplace(1, 1/100)", "ta.PoissonReplace(1, R(1, 100))", None),
    ("Mix(G(2), 1/10)", "ta.Mix(ta.G(2), R(1, 10))", None),
    ("Max(G(1), Laplace(1))", "ta.Max(ta.G(1), ta.Laplace(1))", None),
    ("Laplace(1/10+i/10^4), i<100", f"ta.Tensor(*{_HET_L})",
     "functools.reduce(lambda a, b: a.compose(b), [P.from_laplace_mechanism("
     "1 / (0.1 + i / 1e4), sensitivity=1, pessimistic_estimate=pess, "
     "value_discretization_interval=h) for i in range(100)])"),
    ("Subsample(RR(1, 3), 1/10)^100",
     "ta.TensorPower(ta.Subsample(ta.randomized_response(1, 3), R(1, 10)), 100)",
     "rr_hull_pld(pess, h).self_compose(100)"),
    ("Group(G(1), 3)", "ta.Group(ta.G(1), 3)", None),
    ("C(1/10, G(1))^10", "ta.C(R(1, 10), ta.G(1)) ** 10", "hull_g_pld(pess, h).self_compose(10)"),
    ("Mix(Laplace(1), 1/3)^10 (asymmetric)", "ta.Mix(ta.Laplace(1), R(1, 3)) ** 10",
     "P.PrivacyLossDistribution(" + _dpa("P.from_laplace_mechanism(1.0, sensitivity=1, "
                                         "sampling_prob=1 / 3")
     + ")._pmf_remove).self_compose(10)"),
]

#: The symmetric hull C_p(G_mu) for dp_accounting (float64): its loss under the measure whose
#: loss is taken (Dong, Roth & Su, Eq. (13); f_p = T(B, A), B = N(0, 1), A = (1 - p) N(0, 1) +
#: p N(mu, 1), L(x) = log(1 - p + p e^{mu x - mu^2/2}) increasing): the law of L under A on
#: L > 0, an atom m0 = 1 - A(L > 0) - B(L > 0) at 0, the law of -L under B (L > 0) below 0;
#: cell masses of ((i - 1) h, i h] from normal tails at the thresholds x(l), rounded up
#: (pessimistic, the tail past the window at +oo) or down (optimistic, the tail dropped).
_HULL_G = r"""
def hull_g_pld(pess, h, mu=1.0, p=0.1, l_max=12.0):
    from scipy.stats import norm
    n = int(math.ceil(l_max / h))
    edges = h * np.arange(n + 1)
    x = (np.log(np.expm1(edges) + p) - math.log(p) + mu * mu / 2) / mu
    x[0] = mu / 2
    a_sf = (1 - p) * norm.sf(x) + p * norm.sf(x - mu)
    b_sf = norm.sf(x)
    pos, neg = -np.diff(a_sf), -np.diff(b_sf)
    pmf = {0: 1 - a_sf[0] - b_sf[0]}
    for i in range(1, n + 1):
        k = i if pess else i - 1
        pmf[k] = pmf.get(k, 0.0) + float(pos[i - 1])
        k = -(i - 1) if pess else -i
        pmf[k] = pmf.get(k, 0.0) + float(neg[i - 1])
    return P.PrivacyLossDistribution.create_from_rounded_probability(
        pmf, float(a_sf[-1]) if pess else 0.0, h, pessimistic_estimate=pess)
"""

#: The symmetric hull C_p(RR(1, 3)) as a finite pair, for dp_accounting (float64): the lower
#: convex hull of the knots of f_p and of its inverse (the convex envelope of the minimum of two
#: convex piecewise-linear functions is the hull of their knots), each segment of slope -s and
#: width w a pair of atoms P = w, Q = s w with the loss log s, rounded up (pessimistic) or down.
_RR_HULL = r"""
def rr_hull_pld(pess, h, eps=1.0, k=3, p=0.1):
    e = math.exp(eps)
    Pm = np.array([e] + [1.0] * (k - 1)) / (e + k - 1)
    Qm = np.array([1.0, e] + [1.0] * (k - 2)) / (e + k - 1)
    Qm = (1 - p) * Pm + p * Qm                     # f_p = T(P, (1 - p) P + p Q)
    def knots(A, B):                               # T(A, B): tests by decreasing B/A
        o = np.argsort(-(B / A))
        return list(zip(np.concatenate([[0], np.cumsum(A[o])]),
                        1 - np.concatenate([[0], np.cumsum(B[o])])))
    pts = sorted(set(knots(Pm, Qm)) | {(b, a) for a, b in knots(Pm, Qm)})
    hull = []
    for q in pts:                                  # lower convex hull (monotone chain)
        while len(hull) >= 2 and ((hull[-1][0] - hull[-2][0]) * (q[1] - hull[-2][1])
                                  - (hull[-1][1] - hull[-2][1]) * (q[0] - hull[-2][0])) <= 0:
            hull.pop()
        hull.append(q)
    pmf = {}
    for (a0, b0), (a1, b1) in zip(hull, hull[1:]):
        w, s = a1 - a0, (b0 - b1) / (a1 - a0)
        if w <= 0 or s <= 0:
            continue
        i = math.ceil(math.log(s) / h) if pess else math.floor(math.log(s) / h)
        pmf[i] = pmf.get(i, 0.0) + s * w           # the loss law under Q (dp_accounting's upper)
    return P.PrivacyLossDistribution.create_from_rounded_probability(
        pmf, 0.0, h, pessimistic_estimate=pess)
"""


# ---------------------------------------------------------------- mpmath references (30 digits)

def _mp():
    import mpmath

    return mpmath


def _phi(mp, x):
    return mp.ncdf(x)


def _g_power(mp, mu, a):
    """1 - G_mu(a) = Phi(Phi^{-1}(a) + mu)... as the upper tail: Phi(mu - z_{1-a})."""
    z = -mp.sqrt(2) * mp.erfinv(2 * a - 1)  # z = Phi^{-1}(1 - a)
    return _phi(mp, mu - z)


def _g_delta(mp, mu, e):
    return _phi(mp, -e / mu + mu / 2) - mp.exp(e) * _phi(mp, -e / mu - mu / 2)


def _eps_root(mp, delta_fn, lo=0, hi=60):
    """The eps with delta(eps) = DELTA by bisection (delta is non-increasing in eps)."""
    lo, hi = mp.mpf(lo), mp.mpf(hi)
    for _ in range(120):
        m = (lo + hi) / 2
        lo, hi = (m, hi) if delta_fn(m) > DELTA else (lo, m)
    return (lo + hi) / 2


def ref_group_g():
    """Group(G(1), 3) = G(3) (Dong, Roth & Su, Thm. 3 / the Gaussian case 1 - (1 - G_1)^{o3})."""
    mp = _mp()
    with mp.workdps(30):
        mu = mp.mpf(3)
        return (float(_eps_root(mp, lambda e: _g_delta(mp, mu, e))),
                float(_g_power(mp, mu, mp.mpf(ALPHA))), "G(3) closed forms, 30 digits")


def ref_mix():
    """Mix(G(2), 1/10) = T(N(0,1), (1-p) N(0,1) + p N(mu,1)): the power p (1 - G_mu(a)) +
    (1 - p) a; delta(eps) = Q(X > x) - e^eps P(X > x) at the likelihood-ratio threshold
    (1 - p) + p e^{mu x - mu^2/2} = e^eps (for eps >= 0; the ratio is increasing in x)."""
    mp = _mp()
    with mp.workdps(30):
        mu, p, a = mp.mpf(2), mp.mpf(1) / 10, mp.mpf(ALPHA)

        def delta(e):
            r = (mp.exp(e) - (1 - p)) / p
            if r <= 0:
                return 1 - mp.exp(e)
            x = (mp.log(r) + mu**2 / 2) / mu
            q = (1 - p) * _phi(mp, -x) + p * _phi(mp, mu - x)
            return q - mp.exp(e) * _phi(mp, -x)

        return (float(_eps_root(mp, delta)), float(p * _g_power(mp, mu, a) + (1 - p) * a),
                "30-digit closed form of the mixture pair")


def ref_max():
    """Max(G(1), Laplace(1)): its power is the smaller of the two powers (both concave in a),
    its profile delta(eps) = sup_a min(power_G(a), power_L(a)) - e^eps a by golden section
    (a concave function of a)."""
    mp = _mp()
    with mp.workdps(30):
        mu = mp.mpf(1)

        def lap_power(a):
            if a < mp.exp(-mu) / 2:
                return mp.exp(mu) * a
            if a <= mp.mpf(1) / 2:
                return 1 - mp.exp(-mu) / (4 * a)
            return 1 - mp.exp(-mu) * (1 - a)

        def power(a):
            return min(_g_power(mp, mu, a), lap_power(a))

        def delta(e):
            lo, hi = mp.mpf(0), mp.mpf(1)
            g = (mp.sqrt(5) - 1) / 2
            for _ in range(150):
                m1, m2 = hi - g * (hi - lo), lo + g * (hi - lo)
                if power(m1) - mp.exp(e) * m1 < power(m2) - mp.exp(e) * m2:
                    lo = m1
                else:
                    hi = m2
            m = (lo + hi) / 2
            return max(power(m) - mp.exp(e) * m, mp.mpf(0))

        return (float(_eps_root(mp, delta, 0, 10)), float(power(mp.mpf(ALPHA))),
                "30-digit min of the two powers; profile by golden section")


def ref_poisson_replace():
    """PoissonReplace(1, 1/100) = T(P, Q), P = (1-q) N(0,1) + q N(mu,1), Q = (1-q) N(0,1) +
    q N(-mu,1): Q/P decreases in x, so the tests reject below a threshold t: level P(X < t),
    power Q(X < t); delta(eps) = Q(X < t) - e^eps P(X < t) at Q/P = e^eps (the pair is
    symmetric under x -> -x, so this direction is the profile)."""
    mp = _mp()
    with mp.workdps(30):
        mu, q = mp.mpf(1), mp.mpf(1) / 100

        def cdf_p(t):
            return (1 - q) * _phi(mp, t) + q * _phi(mp, t - mu)

        def cdf_q(t):
            return (1 - q) * _phi(mp, t) + q * _phi(mp, t + mu)

        def ratio(t):
            d0 = mp.npdf(t)
            return ((1 - q) * d0 + q * mp.npdf(t + mu)) / ((1 - q) * d0 + q * mp.npdf(t - mu))

        def threshold(fn, target, lo=-40, hi=40):
            lo, hi = mp.mpf(lo), mp.mpf(hi)
            for _ in range(150):
                m = (lo + hi) / 2
                lo, hi = (m, hi) if fn(m) < target else (lo, m)
            return (lo + hi) / 2

        t = threshold(cdf_p, mp.mpf(ALPHA))
        power = cdf_q(t)

        def delta(e):
            s = threshold(lambda x: -ratio(x), -mp.exp(e))  # ratio decreasing: ratio(s) = e^eps
            return cdf_q(s) - mp.exp(e) * cdf_p(s)

        return (float(_eps_root(mp, delta, 0, 1)), float(power),
                "30-digit threshold test of the mixture pair")


def ref_shuffle():
    """ShuffleDP(1, 10^4): delta(eps) of the closed-form pair in float64 log space
    (bench_issue29.shuffle_delta_ref, an estimate); eps by bisection on it; the power as the
    infimum over eps in (0, 1) of delta(eps) + e^eps alpha by golden section (convex in eps)."""
    from bench_issue29 import shuffle_delta_ref

    def delta(e):
        return shuffle_delta_ref(1.0, 10**4, e)

    lo, hi = 1e-6, 1 - 1e-6
    for _ in range(45):
        m = (lo + hi) / 2
        lo, hi = (m, hi) if delta(m) > DELTA else (lo, m)
    eps = (lo + hi) / 2
    a, b = 1e-6, 1 - 1e-6
    g = (math.sqrt(5) - 1) / 2
    for _ in range(45):
        m1, m2 = b - g * (b - a), a + g * (b - a)
        if delta(m1) + math.exp(m1) * ALPHA < delta(m2) + math.exp(m2) * ALPHA:
            b = m2
        else:
            a = m1
    m = (a + b) / 2
    return eps, delta(m) + math.exp(m) * ALPHA, ("float64 log-space sum of the closed-form pair "
                                                  "(estimate; power: inf over eps in (0, 1))")


MP_REFS = {"Group(G(1), 3)": ref_group_g, "Mix(G(2), 1/10)": ref_mix,
           "Max(G(1), Laplace(1))": ref_max, "PoissonReplace(1, 1/100)": ref_poisson_replace,
           "ShuffleDP(eps0=1, n=10^4)": ref_shuffle}


def reference(name: str, build: str | None) -> dict:
    """{"eps": (lo, hi), "power": (lo, hi), "what": text, "kind": "bracket"|"value"}."""
    if build is None:
        try:
            e, p, what = MP_REFS[name]()
        except Exception as exc:  # (a failed reference is a row without a check)
            return {"error": f"{type(exc).__name__}: {exc}"[:120]}
        return {"eps": (e, e), "power": (p, p), "what": what, "kind": "value"}
    code = _PLD.format(h=1e-4, delta=DELTA, alpha=ALPHA, build=build)
    for helper, text in (("rr_hull_pld", _RR_HULL), ("hull_g_pld", _HULL_G)):
        if helper in build:
            code = code.replace("t0 = time", text + "\nt0 = time", 1)
    o = child_json(code, 900)
    if "error" in o:
        return o
    pe, op = o["pess"], o["opt"]
    return {"eps": (op["eps"], pe["eps"]), "power": (op["power"], pe["power"]),
            "what": f"dp_accounting PLDs at grid 1e-4, [optimistic, pessimistic] "
                    f"({o['cpu']:.1f} s)", "kind": "bracket"}


def check(lo: float, hi: float, ref: tuple[float, float], kind: str, rel: float) -> str:
    """How our [lo, hi] stands to the reference: a bracket is met when the intervals meet up to
    1e-9 relative (their float rounding); a value is contained up to the same slack or, for an
    estimate reference, lies within the reference's stated accuracy ``rel``."""
    slack = 1e-9 * max(abs(lo), abs(hi), 1e-300) + 1e-15
    r0, r1 = ref
    if kind == "bracket":
        if r0 - slack <= lo and hi <= r1 + slack:
            return "inside the bracket"
        if lo <= r1 + slack and hi >= r0 - slack:
            return "meets the bracket"
        gap = min(abs(lo - r1), abs(hi - r0)) / max(abs(r0), 1e-300)
        return f"**OUTSIDE the bracket by {gap:.1e}**"
    if lo - slack <= r0 <= hi + slack:
        return "contains"
    gap = min(abs(lo - r0), abs(hi - r0)) / max(abs(r0), 1e-300)
    return f"within {gap:.1e}" if gap <= rel else f"**OFF by {gap:.1e}**"


_PROFILE = r"""
import cProfile, io, pstats
pr = cProfile.Profile()
pr.enable()
"""


def profile(row: str, call: str, tol: str, top: int = 25) -> None:
    """cProfile of one call in a fresh process (imports and construction outside the
    profile): the functions by cumulative time, then by own time."""
    import subprocess

    name, expr, _ = next((x for x in ROWS if row == x[0]), None) or next(
        x for x in ROWS if row in x[0])  # (an exact name first: "Laplace(...), i<100")
    body = {"eps": _EPS, "roc": _ROC, "curve": _CURVE}[call]
    code = _OURS.format(root=ROOT, expr=expr, tol=tol, call=body)
    code = code.replace("    t0 = time.process_time()\n",
                        "    t0 = time.process_time()\n" + _PROFILE.replace("\n", "\n    ")
                        + "\n", 1)
    code = code.replace("    cpu = time.process_time() - t0\n",
                        "    cpu = time.process_time() - t0\n    pr.disable()\n", 1)
    code += ("s = io.StringIO()\nst = pstats.Stats(pr, stream=s)\n"
             f"st.sort_stats('cumulative').print_stats({top})\n"
             f"st.sort_stats('tottime').print_stats({top})\nprint(s.getvalue())\n")
    print(f"# {name}, {call}, tol {tol}")
    subprocess.run([sys.executable, "-c", code], timeout=600)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", metavar="PATH")
    ap.add_argument("--only", default=None, help="the rows whose name holds this text")
    ap.add_argument("--exact", action="store_true",
                    help="--only names whole rows, ';'-separated (T=10 without T=1000)")
    ap.add_argument("--tols", default="5e-4,1e-9")
    ap.add_argument("--profile", nargs=3, metavar=("ROW", "CALL", "TOL"),
                    help="cProfile one call (CALL: eps, roc or curve) of the row named ROW, else "
                         "the first whose name holds ROW, in a fresh process; print the top "
                         "functions")
    args = ap.parse_args()
    if args.profile:
        profile(*args.profile)
        return
    r = Report()
    r.out("# roc(0.01) and whole curves against one eps(1e-6) call, every mechanism family "
          "(fresh processes)")
    r.out("")
    r.out(run_line("nice python benchmarks/bench_curve_ratio.py",
                   ("dp-accounting", "python-flint", "numpy", "mpmath")))
    r.out("")
    r.out(__doc__.split("\n\n    nice")[0].replace("\n", " "))
    r.out("")
    r.out(f"Each call limited to {LIMIT} s (a call past it: `> {LIMIT} s`, a row behind). "
          "guarantee: the Value's label (curve: `curve, bounds=True`; the warnings raised are "
          "listed). rel. width: (hi - lo)/hi of the answer (curve: the largest relative width "
          "of the power over the 101 levels). ratio: CPU over the eps call's CPU at the same "
          "tolerance; **bold** above 2.")
    r.out("")
    r.out("| mechanism | tol | call | value (eps or power at 0.01) | guarantee | warnings | "
          "rel. width | CPU | ratio to eps | memory | check | route |")
    r.out("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, expr, build in ROWS:
        if args.only and (name not in args.only.split(";") if args.exact
                          else args.only not in name):
            continue
        ref = reference(name, build)
        for tol in args.tols.split(","):
            eps_cpu = None
            for what, call in (("eps(1e-6)", _EPS), ("roc(0.01)", _ROC),
                               ("curve, 101 levels", _CURVE)):
                o = child_json(_OURS.format(root=ROOT, expr=expr, tol=tol, call=call), LIMIT)
                if "error" in o:
                    r.out(f"| {name} | {tol} | {what} | {o['error'][:100]} | | | | | | | | |")
                    continue
                if what == "eps(1e-6)":
                    eps_cpu = o["cpu"]
                    ratio = "1"
                elif eps_cpu:
                    x = o["cpu"] / max(eps_cpu, 1e-3)
                    ratio = f"**{x:.1f}**" if x > 2 else f"{x:.1f}"
                else:
                    ratio = "- (eps call failed)"
                rel = o.get("rel", (o["hi"] - o["lo"]) / max(abs(o["hi"]), 1e-300))
                if "error" in ref:
                    chk = f"no reference ({ref['error'][:60]})"
                else:
                    key = "eps" if what == "eps(1e-6)" else "power"
                    acc = 1e-6 if ref["what"].startswith("float64") else 1e-12
                    chk = check(o["lo"], o["hi"], ref[key], ref["kind"], acc)
                warned = ", ".join(o.get("warned", [])) or "none"
                r.out(f"| {name} | {tol} | {what} | [{o['lo']:.12g}, {o['hi']:.12g}] | {o['g']} "
                      f"| {warned} | {rel:.1e} | {o['cpu']:.2f} s | {ratio} | {o['mem']:.0f} MiB "
                      f"| {chk} | {o.get('route', '')[:90]} |")
        if "error" in ref:
            r.out(f"| {name} | reference | - | {ref['error'][:100]} | | | | | | | | |")
        else:
            r.out(f"| {name} | reference | eps / power | eps [{ref['eps'][0]:.12g}, "
                  f"{ref['eps'][1]:.12g}], power [{ref['power'][0]:.12g}, "
                  f"{ref['power'][1]:.12g}] | {ref['what']} | | | | | | | |")
        r.write(args.write)  # (after every mechanism: a run cut short keeps its rows)


if __name__ == "__main__":
    main()
