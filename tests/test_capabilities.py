"""The capability table: every family against every capability of the protocol
(tradeoff_algebra/numeric/capability.py), and one checker per capability.

A family provides a capability by a method or a registration in its own module. For every
family, :func:`table` lists what it provides; ``docs/capabilities.md`` is that table, and the
test fails when the document is stale, when a family has no example with numbers, or when a
capability has no checker here. Each checker ``check_<capability>(f)`` compares the capability
at one instance with the family's independent reference (tests/references: the defining pair
(P, Q) with exact Neyman-Pearson sums, threshold tests, hockey-stick regions and quadrature;
RenyiRegion from its constraints), never with the library's own values. The family suite
(tests/test_families.py) runs every checker the table asks for on each family's samples.
"""

from __future__ import annotations

import importlib
import pathlib
import pkgutil
from fractions import Fraction

import pytest
import sympy as sp
from node_examples import EXAMPLES
from references import functionals as R_
from references import reference
from references.finite import Finite, pl_value
from references.gauss import GaussRef

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
                 "loss": [ta.BinomialDP(R(1, 2), 200_000)],
                 "grid": [ta.BinomialDP(R(1, 2), 200_000)],
                 # (BinomialDP's Arb value applies above the exact table's n = 4000)
                 "arb": [ta.BinomialDP(R(1, 2), 4001)]}


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


# -- the shared references (tests/references) -----------------------------------------------
_REFS: dict = {}


def ref_of(f):
    """The family's independent reference (tests/references/families.py), one per instance."""
    if f not in _REFS:
        _REFS[f] = reference(f)
    return _REFS[f]


def val(f, x):
    """f(x) from the family's reference (never from the library)."""
    return R_.value(ref_of(f), _frac(x) if isinstance(x, sp.Rational) else x)


def kinks_of(f) -> list:
    return [k for k in cap.kinks(f) if 0 < k < 1]


LEVELS = [R(1, 20), R(1, 3), R(1, 2), R(7, 10), R(19, 20)]


def close(a, b, rel: float = 1e-8):
    return abs(a - b) <= mpmath.mpf(rel) * (1 + abs(b))


def _frac(x):
    """A SymPy or Python rational as a Fraction (None for anything else)."""
    x = sp.sympify(x)
    return Fraction(int(x.p), int(x.q)) if x.is_Rational else None


# -- one checker per capability ------------------------------------------------------------------
def check_closed_form(f):
    for A in LEVELS:
        form = answer(f._eval_at(A))
        assert close(mpmath.mpf(sp.N(form, DPS + 10)), val(f, A), 1e-15)


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
    ref = ref_of(f)
    for A in LEVELS:
        v = answer(proto.exact_value(f, A, 1 - A))
        if isinstance(ref, Finite) and ref.exact:  # both exact: equal as rationals
            assert Fraction(int(v.p), int(v.q)) == ref.exact_value(_frac(A))
        else:
            assert close(mpmath.mpf(v.p) / v.q, val(f, A), 1e-15)


def check_ends(f):
    """f(0) equals the reference's value at 0; at the zero point z the reference is 0 and just
    below it positive (z = inf{alpha : f(alpha) = 0})."""
    e, z = proto.exact_ends(f)
    if e is None and z is None:
        raise Declined
    if e is not None:
        assert close(mpmath.mpf(e.p) / e.q, val(f, sp.S.Zero), 1e-15)
    if z is not None:
        zm = mpmath.mpf(z.p) / z.q
        assert close(val(f, z), 0, 1e-15)
        assert z == 0 or val(f, zm * (1 - mpmath.mpf(10) ** -6)) > 0


def check_arb(f):
    import flint

    from tradeoff_algebra.numeric.context import arb_precision

    for A in LEVELS:
        with arb_precision(200):
            a = flint.arb(flint.fmpq(int(A.p), int(A.q)))
            ac = flint.arb(flint.fmpq(int(A.q - A.p), int(A.q)))
            for power in (False, True):
                ball = answer(proto.arb_value(f, a, ac, power))
                ref = R_.roc(ref_of(f), A) if power else val(f, A)
                lo, hi = ball.lower(), ball.upper()
                assert mpmath.mpf(lo.str(40, radius=False)) - mpmath.mpf(10) ** -25 <= ref
                assert ref <= mpmath.mpf(hi.str(40, radius=False)) + mpmath.mpf(10) ** -25


def check_value(f):
    for A in LEVELS:
        x = mpmath.mpf(A)
        lo, hi = proto.mp_value(f, x, 1 - x)
        assert close((lo + hi) / 2, val(f, A), 1e-15)


def check_roc(f):
    for A in LEVELS:
        x = mpmath.mpf(A)
        lo, hi = proto.mp_roc(f, x, 1 - x)
        assert close((lo + hi) / 2, R_.roc(ref_of(f), A), 1e-15)


def check_float(f):
    import numpy as np

    xs = np.array([float(A) for A in LEVELS])
    ys = proto.np_value(f, xs)
    for x, y in zip(xs, ys, strict=True):
        assert abs(y - float(val(f, mpmath.mpf(x)))) <= 1e-9


def check_conjugate(f):
    for y in (mpmath.mpf(-3), mpmath.mpf(-1) / 2):
        lo, hi = proto.mp_conjugate(f, y)
        assert close((lo + hi) / 2, R_.conjugate(ref_of(f), y))


def check_arb_delta(f):
    import flint

    from tradeoff_algebra.numeric.context import arb_precision

    for eps in (mpmath.mpf(0), mpmath.mpf(1) / 2, mpmath.mpf(1)):
        with arb_precision(200):
            ball = answer(proto.arb_delta(f, flint.arb(flint.fmpq(int(eps * 2), 2))))
            lo = mpmath.mpf(ball.lower().str(40, radius=False))
            hi = mpmath.mpf(ball.upper().str(40, radius=False))
        ref = R_.delta(ref_of(f), eps)  # (the shared reference at the test's precision)
        assert lo - mpmath.mpf(10) ** -25 <= ref <= hi + mpmath.mpf(10) ** -25
        assert hi - lo <= mpmath.mpf(10) ** -25 * (1 + ref)  # the ball is a point at 200 bits


def check_gaussian(f):
    """f is G_mu itself: equal to the reference of G_mu at every level."""
    mu = answer(cap.gaussian_form(f))
    for A in LEVELS:
        assert close(val(f, A), val(ta.G(mu), A), 1e-25)


def check_delta(f):
    for eps in (mpmath.mpf(0), mpmath.mpf(1)):
        lo, hi = proto.mp_delta(f, eps)
        ref = R_.delta(ref_of(f), eps)
        assert lo - mpmath.mpf(10) ** -8 <= ref <= hi + mpmath.mpf(10) ** -8


def check_epsilon(f):
    for d in (mpmath.mpf(10) ** -3, mpmath.mpf(1) / 10):
        r = answer(proto.mp_epsilon(f, d))
        e = (r[0] + r[1]) / 2
        if e == mpmath.inf:
            assert R_.delta(ref_of(f), 30) > d
        elif e == 0:
            assert R_.delta(ref_of(f), e) <= d + mpmath.mpf(10) ** -8
        else:
            assert close(R_.delta(ref_of(f), e), d)


def check_profile_form(f):
    for eps in (0, R(1, 2), 2):
        form = answer(cap.profile_form(f, sp.sympify(eps)))
        assert close(mpmath.mpf(sp.N(form, DPS)), R_.delta(ref_of(f), mpmath.mpf(eps)))


def check_functional(f):
    forms = {n: cap.functional_form(f, n) for n in cap.FUNCTIONALS}
    if all(v is None for v in forms.values()):
        raise Declined
    for name, form in forms.items():
        if form is None:
            continue
        ref = R_.functional(ref_of(f), name)
        if form is sp.oo:
            assert ref == mpmath.inf, (name, ref)
            continue
        assert close(mpmath.mpf(sp.N(form, DPS)), ref, 1e-9), (name, form, ref)


def check_renyi(f):
    for a in (R(1, 2), 2, 3):
        form = answer(cap.renyi_form(f, sp.sympify(a)))
        ref = R_.renyi(ref_of(f), mpmath.mpf(a))
        if form is sp.oo:  # a > 1: f' = 0 on an interval; a < 1: P and Q mutually singular
            assert ref == mpmath.inf
            continue
        assert close(mpmath.mpf(sp.N(form, DPS)), ref, 1e-9)


def check_renyi_orders(f):
    from flint import fmpq

    from tradeoff_algebra.numeric.renyi_orders import renyi_orders

    orders = [2, 3, fmpq(5, 2), 7]
    vals = answer(renyi_orders(f, orders, DPS))
    for a, v in zip(orders, vals, strict=True):
        ref = R_.renyi(ref_of(f), mpmath.mpf(int(a.p)) / int(a.q) if isinstance(a, fmpq)
                       else mpmath.mpf(a))
        if v is None:
            continue
        if isinstance(v, fmpq):
            assert close(mpmath.mpf(int(v.p)) / int(v.q), ref, 1e-9), (a, v, ref)
        else:  # a ball of relative width below 10^-DPS around the reference
            assert v.rel_accuracy_bits() >= 66, (a, v)
            assert close(mpmath.mpf(v.mid().str(30, radius=False)), ref, 1e-9), (a, v, ref)


def check_gdp_mu(f):
    mu = answer(cap.gdp_mu_form(f))
    if mu is sp.oo:
        assert val(f, mpmath.mpf(0)) < 1
        return
    m = mpmath.mpf(sp.N(mu, DPS))
    g = GaussRef(m**2)  # Phi(PhiInv(1 - x) - mu) with its own quantile
    xs = [mpmath.mpf(i) / 200 for i in range(1, 200)]
    try:  # a symmetric f touches G_mu at the fixed point when mu is the smallest
        xs.append(mpmath.mpf(sp.N(f.fixed_point(), DPS + 5)))
    except ta.NoClosedForm:
        pass
    gap = min(val(f, x) - R_.value(g, x) for x in xs)
    assert gap >= -mpmath.mpf(10) ** -12  # f >= G_mu
    assert gap <= mpmath.mpf(10) ** -8 or m == 0  # and no smaller mu: it touches


def check_monotone(f):
    dirs = answer(cap.monotonicity(f))
    for i, d in enumerate(dirs):
        args = list(f.args)
        args[i] = args[i] + (1 if args[i].is_integer else R(1, 100))  # (integer parameters)
        g = type(f)(*args)
        for A in LEVELS:
            diff = val(g, A) - val(f, A)
            assert d * diff >= -mpmath.mpf(10) ** -25


def check_log_slope(f):
    ks = cap.kinks(f)
    for A in LEVELS:
        x = mpmath.mpf(A)
        if any(abs(x - k) < mpmath.mpf(10) ** -3 for k in ks):
            continue
        s = R_.slope(ref_of(f), x)
        ell = cap.log_slope(f, x, 1 - x)
        assert (s == 0 and ell == mpmath.ninf) or close(ell, mpmath.log(s), 1e-6)


def check_kinks(f):
    """Each kink is a point of (0, 1) where f' or f'' jumps (one-sided differences of the
    reference)."""
    h = mpmath.mpf(10) ** -5
    for k in answer(cap.kinks(f) or None):
        assert 0 < k < 1
        v = [val(f, k + i * h) for i in (-2, -1, 0, 1, 2)]
        d1 = (v[2] - v[1]) / h, (v[3] - v[2]) / h
        d2 = (v[2] - 2 * v[1] + v[0]) / h**2, (v[4] - 2 * v[3] + v[2]) / h**2
        assert abs(d1[0] - d1[1]) > 10 * h or abs(d2[0] - d2[1]) > 1e-2 * (1 + abs(d2[0]))


def check_knots(f):
    """The knots interpolate the reference (exactly, when both are rational)."""
    ks = answer(pl_knots(f))
    ref = ref_of(f)
    exact = [(_frac(a), _frac(v)) for a, v in ks]
    if isinstance(ref, Finite) and ref.exact and all(a is not None and v is not None
                                                     for a, v in exact):
        for A in LEVELS:
            assert pl_value(exact, _frac(A)) == ref.exact_value(_frac(A))
        return
    pts = [(mpmath.mpf(sp.N(a, DPS)), mpmath.mpf(sp.N(v, DPS))) for a, v in ks]
    for A in LEVELS:
        x = mpmath.mpf(A)
        assert close(pl_value(pts, x), val(f, A), 1e-15)


def _atoms_ref(fl) -> Finite:
    """Exact Neyman-Pearson on the atoms ``(ratio, P-mass, Q-mass)`` of a finite loss."""
    P = [_frac(p) for _, p, _ in fl.atoms()]
    Q = [_frac(q) for _, _, q in fl.atoms()]
    if all(x is not None for x in P + Q):
        return Finite(True, lambda: (P, Q), "pair")
    Pm = [mpmath.mpf(sp.N(p, DPS + 10)) for _, p, _ in fl.atoms()]
    Qm = [mpmath.mpf(sp.N(q, DPS + 10)) for _, _, q in fl.atoms()]
    return Finite(False, lambda: (Pm, Qm), "pair")


def check_finite(f):
    fl = answer(finite_loss(f))
    if not fl.affordable():
        raise Declined
    mine, ref = _atoms_ref(fl), ref_of(f)
    for A in LEVELS:
        if mine.exact and isinstance(ref, Finite) and ref.exact:
            assert mine.exact_value(_frac(A)) == ref.exact_value(_frac(A))
        else:
            assert close(R_.value(mine, mpmath.mpf(A)), val(f, A), 1e-15)


def _large(f) -> bool:
    """A finite family with more than 10^4 atoms (its reference pair is too slow to build)."""
    return type(f).__name__ in ("BinomialDP", "ShuffleDP") and f.args[1] > 10**4


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
        # a law too large for exact sums (BinomialDP(1/2, 200000)): the family's own profile,
        # checked against the reference on the small examples (check_delta)
        ref = (sum(proto.mp_delta(f, e)) / 2 if _large(f) else R_.delta(ref_of(f), e))
        assert abs(d - float(ref)) <= 1e-9


def check_cf(f):
    import flint

    law = answer(answer(privacy_loss(f)).law())
    m = law.mgf(flint.acb(1))  # E_Q[e^L] = E_P[(dQ/dP)^2]
    assert close(mpmath.mpf(m.real.mid().str(30, radius=False)), R_.second_moment(ref_of(f)),
                 1e-9)


def check_delta_part(f):
    rest, d = delta_part(f)
    g = Tensor(rest if rest is not None else Id, EpsDelta(0, d))
    for A in LEVELS:
        assert close(ta.evaluate(g, A, dps=DPS).mid, val(f, A), 1e-15)


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


if __name__ == "__main__":  # pragma: no cover - writes docs/capabilities.md
    DOC.write_text(table())
    print(f"wrote {DOC}")
