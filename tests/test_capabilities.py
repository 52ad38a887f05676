"""The capability table: every family against every capability of the protocol
(tradeoff_algebra/numeric/capability.py), each entry checked against a reference.

A family provides a capability by a method or a registration in its own module. For every
family, :func:`table` lists what it provides; ``docs/capabilities.md`` is that table, and the
test fails when the document is stale, when a family has no example with numbers, or when a
provided capability has no checker here. Each checker compares the capability with a reference
computed by another route from the family's own values, f(alpha) (``mp_value``): brute-force
minimisation for the conjugate and the privacy profile (Dong, Roth & Su, Prop. 6), tanh-sinh
quadrature of |f'| (by differences of f) for the functionals and the Renyi divergences, the
Neyman-Pearson lemma on the atoms of a finite law, interpolation of the knots.
"""

from __future__ import annotations

import importlib
import pathlib
import pkgutil

import pytest
import sympy as sp
from node_examples import EXAMPLES

import tradeoff_algebra as ta
from tradeoff_algebra import EpsDelta, Id, Tensor
from tradeoff_algebra.core.node import TradeOff
from tradeoff_algebra.numeric import capability as cap
from tradeoff_algebra.numeric import protocol as proto
from tradeoff_algebra.numeric.context import mp as mpmath  # the library's working context
from tradeoff_algebra.numeric.finite import finite_loss
from tradeoff_algebra.numeric.knots import pl_knots
from tradeoff_algebra.numeric.privacy_loss import (
    PrivacyLoss,
    declared_views,
    delta_part,
    privacy_loss,
)

R = sp.Rational
DPS = 20
DOC = pathlib.Path(__file__).resolve().parents[1] / "docs" / "capabilities.md"


def families() -> list[type]:
    """Every node class defined in a module of ``tradeoff_algebra.families``."""
    pkg = importlib.import_module("tradeoff_algebra.families")
    out = []
    for info in pkgutil.iter_modules(pkg.__path__):
        mod = importlib.import_module(f"tradeoff_algebra.families.{info.name}")
        out += [c for c in vars(mod).values() if isinstance(c, type) and issubclass(c, TradeOff)
                and c.__module__ == mod.__name__]
    return sorted(out, key=lambda c: c.__name__)


FAMILIES = families()


def table() -> str:
    """The capability table as a Markdown document."""
    names = list(cap.CAPABILITIES)
    lines = ["# Capabilities of the families", "",
             "What each family of `tradeoff_algebra/families/` provides, by a method or a "
             "registration in its own module (`tradeoff_algebra/numeric/capability.py`). "
             "Written by `python tests/test_capabilities.py`; `tests/test_capabilities.py` "
             "checks every entry against a reference.", "",
             "| capability | what it answers |", "|---|---|"]
    lines += [f"| `{n}` | {what} |" for n, (_, what) in cap.CAPABILITIES.items()]
    lines += ["", "| family | " + " | ".join(f"`{n}`" for n in names) + " |",
              "|---|" + "---|" * len(names)]
    for c in FAMILIES:
        has = cap.implemented(c)
        lines.append(f"| `{c.__name__}` | " + " | ".join("x" if n in has else "" for n in names)
                     + " |")
    return "\n".join(lines) + "\n"


#: Instances beyond tests/node_examples.py for the capabilities that answer only for some
#: parameters: exact values need rational likelihood ratios, and the binomial loss model serves n
#: above the size whose atoms are enumerated.
_CLOSED = [ta.NormalPair(0, 1, 1, 1), ta.GaussianMixturePair([1], [0], [1])]
MORE_EXAMPLES = {"exact": [ta.BinomialDP(sp.log(2), 3), ta.Laplace(sp.log(2)),
                           ta.ShuffleDP(sp.log(2), 5),
                           ta.GaussianMixturePair([R(1, 2), R(1, 2)], [0, 1], [1, 0])],
                 "closed_form": _CLOSED, "fixed_point": _CLOSED, "value": _CLOSED,
                 "loss": [ta.BinomialDP(R(1, 2), 200_000)]}


def examples(cls: type, name: str | None = None) -> list[TradeOff]:
    """The examples of ``cls`` with numbers (tests/node_examples.py, and MORE_EXAMPLES of the
    capability ``name``)."""
    pool = EXAMPLES + MORE_EXAMPLES.get(name, [])
    return [f for f in pool if type(f) is cls and not f.free_symbols]


class Declined(Exception):
    """The capability answers None for this instance (it may for others)."""


def answer(x):
    if x is None:
        raise Declined
    return x


# -- references from f's values ------------------------------------------------------------------
def val(f, x):
    """f(x) from the family's mpmath route (midpoint of its enclosure)."""
    lo, hi = proto.mp_value(f, x, 1 - x)
    return (lo + hi) / 2


def slope(f, x):
    """|f'(x)| by a central difference with a relative step of 1e-9."""
    d = min(x, 1 - x) / 10**9
    return abs(val(f, x + d) - val(f, x - d)) / (2 * d)


def pieces(f) -> list:
    ks = [k for k in cap.kinks(f) if 0 < k < 1]
    return [mpmath.mpf(0)] + sorted(ks) + [mpmath.mpf(1)]


def quad_slope(f, g):
    """int_0^1 g(|f'(x)|) dx by tanh-sinh quadrature, split at the kinks (a difference that
    rounds to 0 next to an end, where |f'| is finite and positive, adds nothing)."""
    def integrand(x):
        s = slope(f, x)
        return g(s) if s > 0 else 0

    return mpmath.quad(integrand, pieces(f), maxdegree=6)


def vanishes_early(f) -> bool:
    """f = 0 on an interval [1 - c, 1] (f' = 0 there: log|f'| = -oo on a set of positive
    length)."""
    return val(f, mpmath.mpf(1) - 1e-6) == 0


def brute_min(f, c, lo=0.0, hi=1.0):
    """min over [lo, hi] of c x + f(x) (a convex function): the minimiser located in floats on
    f's float curve (a grid, then golden section), the minimum evaluated there by f's mpmath
    route. Near a smooth minimum an error dx in the place moves the value by O(dx^2); at a kink
    or an end by O(dx) ~ 1e-16: both far below the tolerances of the checks. A minimiser placed
    wrongly can only raise the minimum, so a wrong curve fails a check, never passes one."""
    import numpy as np

    if cap.CAPABILITIES["float"][0](type(f)):
        def g(x):
            return c * x + proto.np_value(f, np.atleast_1d(np.asarray(x, dtype=float)))[0]
        n, steps = 257, 80
    else:  # no float curve: the same search on the mpmath values, coarser
        def g(x):
            return c * mpmath.mpf(x) + val(f, mpmath.mpf(x))
        n, steps = 9, 30

    xs = np.linspace(lo, hi, n)
    i = int(np.argmin([g(x) for x in xs]))
    a, b = xs[max(i - 1, 0)], xs[min(i + 1, len(xs) - 1)]
    r = (5**0.5 - 1) / 2
    u, v = b - r * (b - a), a + r * (b - a)
    gu, gv = g(u), g(v)
    for _ in range(steps):
        if gu <= gv:
            b, v, gv = v, u, gu
            u = b - r * (b - a)
            gu = g(u)
        else:
            a, u, gu = u, v, gv
            v = a + r * (b - a)
            gv = g(v)
    cands = {lo, hi, xs[i], a, b, (a + b) / 2}
    return min(c * mpmath.mpf(x) + val(f, mpmath.mpf(x)) for x in cands)


def fast_or_slow(f, points, few):
    """``points`` for a family with a float curve, ``few`` for one whose values are slow."""
    return points if cap.CAPABILITIES["float"][0](type(f)) else few


def brute_delta(f, eps):
    """delta(eps) = 1 - inf_x {e^eps x + f(x)} (Dong, Roth & Su, Prop. 6)."""
    return 1 - brute_min(f, mpmath.exp(eps))


LEVELS = [R(1, 20), R(1, 3), R(1, 2), R(7, 10), R(19, 20)]


def close(a, b, rel: float = 1e-8):
    return abs(a - b) <= mpmath.mpf(rel) * (1 + abs(b))


# -- one checker per capability ------------------------------------------------------------------
def check_closed_form(f):
    for A in LEVELS:
        form = answer(f._eval_at(A))
        assert close(mpmath.mpf(sp.N(form, DPS + 10)), val(f, mpmath.mpf(A)), 1e-15)


def check_fixed_point(f):
    try:
        x = mpmath.mpf(sp.N(f.fixed_point(), DPS + 10))
    except ta.NoClosedForm:
        raise Declined from None
    assert close(val(f, x), x, 1e-15)


def check_latex(f):
    s = ta.latex(f)
    assert isinstance(s, str) and s and s != str(f)


def check_exact(f):
    for A in LEVELS:
        v = answer(proto.exact_value(f, A, 1 - A))
        assert close(mpmath.mpf(v.p) / v.q, val(f, mpmath.mpf(A)), 1e-15)


def check_arb(f):
    import flint

    from tradeoff_algebra.numeric.context import arb_precision

    for A in LEVELS:
        with arb_precision(200):
            a = flint.arb(flint.fmpq(int(A.p), int(A.q)))
            ac = flint.arb(flint.fmpq(int(A.q - A.p), int(A.q)))
            for power in (False, True):
                ball = answer(proto.arb_value(f, a, ac, power))
                ref = val(f, mpmath.mpf(A))
                ref = 1 - ref if power else ref
                lo, hi = ball.lower(), ball.upper()
                assert mpmath.mpf(lo.str(40, radius=False)) - mpmath.mpf(10) ** -25 <= ref
                assert ref <= mpmath.mpf(hi.str(40, radius=False)) + mpmath.mpf(10) ** -25


def check_value(f):
    # mp_value against the exact NP value (finite laws) or the closed form, else the floats
    fl = finite_loss(f)
    for A in LEVELS:
        x = mpmath.mpf(A)
        if fl is not None and fl.affordable():
            ref = np_from_atoms(fl.atoms(), x)
        elif f._eval_at(A) is not None:
            ref = mpmath.mpf(sp.N(f._eval_at(A), DPS + 10))
        elif cap.CAPABILITIES["float"][0](type(f)):
            ref = mpmath.mpf(float(proto.np_value(f, __import__("numpy").array([float(A)]))[0]))
            assert close(val(f, x), ref, 1e-9)
            continue
        else:  # no second route here (the profile and conjugate checks use the values)
            raise Declined
        assert close(val(f, x), ref, 1e-15)


def check_roc(f):
    for A in LEVELS:
        x = mpmath.mpf(A)
        lo, hi = proto.mp_roc(f, x, 1 - x)
        assert close((lo + hi) / 2, 1 - val(f, x), 1e-15)


def check_float(f):
    import numpy as np

    xs = np.array([float(A) for A in LEVELS])
    ys = proto.np_value(f, xs)
    for A, y in zip(LEVELS, ys, strict=True):
        assert abs(y - float(val(f, mpmath.mpf(A)))) <= 1e-9


def check_conjugate(f):
    for y in fast_or_slow(f, (mpmath.mpf(-3), mpmath.mpf(-1) / 2), (mpmath.mpf(-2),)):
        lo, hi = proto.mp_conjugate(f, y)
        ref = -brute_min(f, -y)
        assert close((lo + hi) / 2, ref)


def check_arb_delta(f):
    import flint

    from tradeoff_algebra.numeric.context import arb_precision

    for eps in (mpmath.mpf(0), mpmath.mpf(1) / 2, mpmath.mpf(1)):
        with arb_precision(200):
            ball = answer(proto.arb_delta(f, flint.arb(flint.fmpq(int(eps * 2), 2))))
            lo = mpmath.mpf(ball.lower().str(40, radius=False))
            hi = mpmath.mpf(ball.upper().str(40, radius=False))
        ref = brute_delta(f, eps)  # (a numeric minimisation: good to about 1e-15)
        assert lo - mpmath.mpf(10) ** -13 <= ref <= hi + mpmath.mpf(10) ** -13
        assert hi - lo <= mpmath.mpf(10) ** -25 * (1 + ref)  # the ball is a point at 200 bits


def check_delta(f):
    for eps in fast_or_slow(f, (mpmath.mpf(0), mpmath.mpf(1)), (mpmath.mpf(1),)):
        lo, hi = proto.mp_delta(f, eps)
        ref = brute_delta(f, eps)
        assert lo - mpmath.mpf(10) ** -8 <= ref <= hi + mpmath.mpf(10) ** -8


def check_epsilon(f):
    for d in (mpmath.mpf(10) ** -3, mpmath.mpf(1) / 10):
        r = answer(proto.mp_epsilon(f, d))
        e = (r[0] + r[1]) / 2
        if e == mpmath.inf:
            assert brute_delta(f, mpmath.mpf(30)) > d
        elif e == 0:
            assert brute_delta(f, e) <= d + mpmath.mpf(10) ** -8
        else:
            assert close(brute_delta(f, e), d)


def check_profile_form(f):
    for eps in (0, R(1, 2), 2):
        form = answer(cap.profile_form(f, sp.sympify(eps)))
        assert close(mpmath.mpf(sp.N(form, DPS)), brute_delta(f, mpmath.mpf(eps)))


def _log_moment(f, name: str):
    """One log-moment of l = log|f'| over [0, 1] by quadrature (kappa3_bar centres at kl)."""
    def ell(s):
        return mpmath.log(s) if s > 0 else mpmath.ninf

    if name == "kl":
        return -quad_slope(f, ell)
    if name == "kappa2":
        return quad_slope(f, lambda s: ell(s) ** 2)
    if name == "kappa3":
        return quad_slope(f, lambda s: abs(ell(s)) ** 3)
    if name == "kappa3_bar":
        kl = _log_moment(f, "kl")
        return quad_slope(f, lambda s: abs(ell(s) + kl) ** 3)
    return quad_slope(f, lambda s: max(s - 1, 0) ** 2)  # chi2_plus


def check_functional(f):
    forms = {n: cap.functional_form(f, n) for n in cap.FUNCTIONALS}
    if all(v is None for v in forms.values()):
        raise Declined
    for name, form in forms.items():
        if form is None:
            continue
        if form is sp.oo:
            assert vanishes_early(f) and name not in ("tv", "auc", "chi2_plus")
            continue
        v = mpmath.mpf(sp.N(form, DPS))
        if name == "tv":
            ref = 1 - brute_min(f, 1)
        elif name == "auc":
            ref = 1 - mpmath.quad(lambda x: val(f, x), pieces(f))
        else:
            ref = _log_moment(f, name)
        assert close(v, ref, 1e-6), (name, v, ref)


def check_renyi(f):
    for a in (R(1, 2), 2, 3):
        form = answer(cap.renyi_form(f, sp.sympify(a)))
        if form is sp.oo:  # a > 1: f' = 0 on an interval; a < 1: P and Q mutually singular
            assert vanishes_early(f) if a > 1 else val(f, mpmath.mpf(10) ** -6) == 0
            continue
        A = mpmath.mpf(a)
        ref = mpmath.log(quad_slope(f, lambda s, A=A: s ** (1 - A) if s > 0 else
                                    (mpmath.inf if A > 1 else 0))) / (A - 1)
        assert close(mpmath.mpf(sp.N(form, DPS)), ref, 1e-6)


def check_gdp_mu(f):
    mu = answer(cap.gdp_mu_form(f))
    if mu is sp.oo:
        assert val(f, mpmath.mpf(0)) < 1
        return
    m = mpmath.mpf(sp.N(mu, DPS))
    g = ta.G(sp.Float(sp.N(mu, DPS + 5), DPS + 5))
    xs = [mpmath.mpf(i) / 200 for i in range(1, 200)]
    try:  # a symmetric f touches G_mu at the fixed point when mu is the smallest
        xs.append(mpmath.mpf(sp.N(f.fixed_point(), DPS + 5)))
    except ta.NoClosedForm:
        pass
    gap = min(val(f, x) - val(g, x) for x in xs)
    assert gap >= -mpmath.mpf(10) ** -12  # f >= G_mu
    assert gap <= mpmath.mpf(10) ** -8 or m == 0  # and no smaller mu: it touches


def check_monotone(f):
    dirs = answer(cap.monotonicity(f))
    for i, d in enumerate(dirs):
        args = list(f.args)
        args[i] = args[i] + (1 if args[i].is_integer else R(1, 100))  # (integer parameters)
        g = type(f)(*args)
        for A in LEVELS:
            x = mpmath.mpf(A)
            diff = val(g, x) - val(f, x)
            assert d * diff >= -mpmath.mpf(10) ** -25


def check_log_slope(f):
    ks = cap.kinks(f)
    for A in LEVELS:
        x = mpmath.mpf(A)
        if any(abs(x - k) < mpmath.mpf(10) ** -3 for k in ks):
            continue
        s = slope(f, x)
        ell = cap.log_slope(f, x, 1 - x)
        assert (s == 0 and ell == mpmath.ninf) or close(ell, mpmath.log(s), 1e-6)


def check_kinks(f):
    """Each kink is a point of (0, 1) where f' or f'' jumps (one-sided differences)."""
    h = mpmath.mpf(10) ** -5
    for k in answer(cap.kinks(f) or None):
        assert 0 < k < 1
        v = [val(f, k + i * h) for i in (-2, -1, 0, 1, 2)]
        d1 = (v[2] - v[1]) / h, (v[3] - v[2]) / h
        d2 = (v[2] - 2 * v[1] + v[0]) / h**2, (v[4] - 2 * v[3] + v[2]) / h**2
        assert abs(d1[0] - d1[1]) > 10 * h or abs(d2[0] - d2[1]) > 1e-2 * (1 + abs(d2[0]))


def check_knots(f):
    ks = answer(pl_knots(f))
    pts = [(mpmath.mpf(sp.N(a, DPS)), mpmath.mpf(sp.N(v, DPS))) for a, v in ks]
    for A in LEVELS:
        x = mpmath.mpf(A)
        for (a0, v0), (a1, v1) in zip(pts, pts[1:], strict=False):
            if a0 <= x <= a1:
                ref = v0 + (v1 - v0) * (x - a0) / (a1 - a0)
                assert close(val(f, x), ref, 1e-15)
                break


def np_from_atoms(atoms, x):
    """T(P, Q)(x) by the Neyman-Pearson lemma: reject the outcomes of largest ratio Q/P first,
    the last one in part (atoms ``(ratio, P-mass, Q-mass)``)."""
    order = sorted(((mpmath.mpf(sp.N(p, DPS + 10)), mpmath.mpf(sp.N(q, DPS + 10)))
                    for _, p, q in atoms),
                   key=lambda pq: -(pq[1] / pq[0]) if pq[0] else -mpmath.inf)
    size, power = mpmath.mpf(0), mpmath.mpf(0)
    for p, q in order:
        if size + p <= x:
            size, power = size + p, power + q
        else:
            power += q * (x - size) / p
            break
    return 1 - power


def check_finite(f):
    fl = answer(finite_loss(f))
    if not fl.affordable():
        raise Declined
    for A in LEVELS:
        x = mpmath.mpf(A)
        assert close(np_from_atoms(fl.atoms(), x), val(f, x), 1e-15)


def check_loss(f):
    """The loss is one object whose declared views are all there."""
    pl = answer(privacy_loss(f))
    assert isinstance(pl, PrivacyLoss)
    views = {"grid": pl.grid, "exact": pl.exact, "law": pl.law}
    for v in declared_views(type(f)):
        assert views[v]() is not None, (f, v)


def check_grid(f):
    import numpy as np

    model = answer(answer(privacy_loss(f)).grid())
    for eps in (0.0, 0.5, 2.0):
        _, sq = model.cdf(np.array([eps]), "Q")
        _, sp_ = model.cdf(np.array([eps]), "P")
        d = float(sq[0]) - np.exp(eps) * float(sp_[0])  # (S counts the atom at +oo)
        e = mpmath.mpf(eps)
        # a large law: its own profile (checked against brute force on the small examples)
        ref = (sum(proto.mp_delta(f, e)) / 2 if cap.CAPABILITIES["delta"][0](type(f))
               else brute_delta(f, e))
        assert abs(d - float(ref)) <= 1e-9


def check_cf(f):
    import flint

    law = answer(answer(privacy_loss(f)).law())
    m = law.mgf(flint.acb(1))  # E_Q[e^L] = E_P[(dQ/dP)^2] = int_0^1 |f'|^2
    ref = quad_slope(f, lambda s: s**2)
    assert close(mpmath.mpf(m.real.mid().str(30, radius=False)), ref, 1e-6)


def check_delta_part(f):
    rest, d = delta_part(f)
    g = Tensor(rest if rest is not None else Id, EpsDelta(0, d))
    for A in LEVELS:
        assert close(ta.evaluate(g, A, dps=DPS).mid, val(f, mpmath.mpf(A)), 1e-15)


CHECKS = {name[len("check_"):]: fn for name, fn in dict(globals()).items()
          if name.startswith("check_")}


# -- the tests -----------------------------------------------------------------------------------
def test_every_capability_has_a_checker():
    assert set(cap.CAPABILITIES) == set(CHECKS)


@pytest.mark.parametrize("cls", FAMILIES, ids=lambda c: c.__name__)
def test_every_family_has_an_example_with_numbers(cls):
    assert examples(cls)


def test_the_capability_table_is_documented():
    print(table())
    assert DOC.read_text() == table(), "regenerate with: python tests/test_capabilities.py"


CASES = [(cls, name) for cls in FAMILIES for name in sorted(cap.implemented(cls))]


@pytest.mark.parametrize("cls,name", CASES, ids=[f"{c.__name__}-{n}" for c, n in CASES])
def test_capability_against_its_reference(cls, name):
    for f in examples(cls, name):  # the first example for which the capability answers
        with mpmath.workdps(DPS + 10):
            try:
                CHECKS[name](f)
            except Declined:
                continue
        return
    raise AssertionError(f"{cls.__name__} declares {name!r} but answers for none of its "
                         "examples")


if __name__ == "__main__":  # pragma: no cover - writes docs/capabilities.md
    DOC.write_text(table())
    print(f"wrote {DOC}")
