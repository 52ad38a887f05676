"""The discrete Laplace (geometric) mechanism: T(L_Z(0, t), L_Z(Delta, t)) on the integers.

Ghosh, Roughgarden & Sundararajan, "Universally utility-maximizing privacy mechanisms" (STOC
2009; GRS below), the geometric mechanism, and Canonne, Kamath & Steinke (arXiv:2004.00010),
Sec. 2.2 (the discrete Laplace): ``L_Z(mu, t)(x) = c r^{|x - mu|}`` for x in Z, with
``r = e^{-1/t}`` and ``c = (1 - r)/(1 + r)``. Adding L_Z(0, t) to an integer query of
sensitivity Delta (a positive integer) gives the pair P = L_Z(0, t), Q = L_Z(Delta, t), and

    L(x) = log Q(x)/P(x) = (|x| - |x - Delta|)/t
         = -Delta/t (x <= 0),   (2x - Delta)/t (0 <= x <= Delta),   Delta/t (x >= Delta):

non-decreasing in x and taking the Delta + 1 values l_j = (2j - Delta)/t, j = 0..Delta, on a
lattice of step 2/t in [-Delta/t, Delta/t]. The pair is therefore *finite* for hypothesis
testing: its atoms are (the P- and Q-masses of {L = l_j})

    j = Delta:      P = r^Delta/(1 + r),  Q = 1/(1 + r)        (x >= Delta)
    0 < j < Delta:  P = c r^j,            Q = c r^{Delta - j}  (x = j)
    j = 0:          P = 1/(1 + r),        Q = r^Delta/(1 + r)  (x <= 0)

(the geometric tails: P(X >= m) = r^m/(1 + r) for m >= 1). Rejecting the atoms of the largest
ratio first (Neyman-Pearson; Dong, Roth & Su, Appendix A) gives the knots

    (0, 1),  (U(m), U(Delta + 1 - m)) for m = Delta, ..., 1,  (1, 0),   U(m) = r^m/(1 + r),

so f is piecewise linear with Delta + 1 segments; on the segment m (U(m+1) <= alpha <= U(m),
U(Delta + 1) = 0, U(0) = 1) its slope is -e^{l_m} and

    f(alpha)     = U(Delta + 1 - m) + (U(m) - alpha) e^{l_m},
    1 - f(alpha) = (1 - U(Delta - m)) + (alpha - U(m + 1)) e^{l_m},

each a sum of non-negative terms (1 - U(k) >= 1/2 for k >= 1; 1 - U(k) = 0 for k <= 0).
For Delta = 1 the atoms are those of randomized response: DiscreteLaplace(1, t) = f_{1/t,0}.

**Symmetry.** x -> Delta - x maps (P, Q) onto (Q, P) (|.| is even), so f = f^{-1}; the fixed
point is U((Delta + 1)/2) = r^{(Delta+1)/2}/(1 + r) for odd Delta (a knot on the diagonal) and
r^{Delta/2}/2 for even Delta (the middle of the segment of slope -1).

**Privacy profile** (Dong, Roth & Su, Prop. 6): with k = floor((eps t + Delta)/2) + 1, the
first atom of loss above eps,

    delta(eps) = Q(X >= k) - e^eps P(X >= k)
               = 1 - (r^{Delta + 1 - k} + e^eps r^k)/(1 + r)   (1 <= k <= Delta),

0 for k > Delta (eps >= Delta/t: the mechanism is (Delta/t)-DP, GRS) and 1 - e^eps for k <= 0.
Certified values sum the non-negative terms Q_j (1 - e^{eps - l_j}) over l_j > eps instead.

**Renyi divergences.** sum_x P(x)^a Q(x)^{1-a} = c [(r^{(1-a) Delta} + r^{a Delta})/(1 - r)
+ r^{(1-a) Delta} s (1 - s^{Delta - 1})/(1 - s)] with s = r^{2a - 1} (the three ranges of x;
the last sum is Delta - 1 at a = 1/2), and D_a = log(that)/(a - 1); D_oo = Delta/t.

**Numerics.** Everything comes from these closed forms: Arb balls of r = e^{-1/t} give the
certified values (``arb_value``, ``arb_delta``); ``mp_value`` and ``mp_roc`` are those balls'
ends at the working precision. The exact view of the loss is the finite pair above
(:class:`~..numeric.finite.FiniteLoss`) where it composes fast: e^{1/t} rational (the scale
t = 1/log q, dp_accounting's ``parameter`` log q: rational masses, exact products) or
Delta = 1 (randomized response); for other scales the loss offers its float atoms only.
For a rational scale t the loss (2y - Delta)/t of the clipped output y = min(max(x, 0), Delta)
is a lattice factor (:class:`DiscreteLaplaceLattice`, ``numeric.lattice_product``): powers, and
products with discrete Gaussians of rational sigma^2 on one lattice of small denominator, are
composed exactly in integers and certified (DiscreteLaplace(3, 2)^10000 in about 0.2 s);
other products go to the PLD engine.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import sympy as sp

from ..core.citations import Paper
from ..core.errors import NumericalError
from ..core.node import TradeOff
from ..core.validate import param
from ..numeric.arb import arb_exact
from ..numeric.arb_expr import arb_ball, ball_interval
from ..numeric.capability import kinks, log_slope, profile_form, renyi_form
from ..numeric.cf_atoms import AtomLaw
from ..numeric.context import arb_precision, mp
from ..numeric.finite import FiniteLoss
from ..numeric.knots import clean_knots, pl_knots
from ..numeric.lattice_product import lattice_factor
from ..numeric.privacy_loss import (
    U64,
    AtomLoss,
    LazyLoss,
    PrivacyLoss,
    loss_views,
    privacy_loss,
)
from ..numeric.protocol import (
    arb_delta,
    arb_value,
    exact_value,
    mp_delta,
    mp_roc,
    mp_value,
    np_value,
    num,
    register_ends,
)

__all__ = ["DiscreteLaplace", "GRS"]

GRS = Paper("GRS", "Ghosh, Roughgarden & Sundararajan",
            "A. Ghosh, T. Roughgarden, M. Sundararajan. Universally utility-maximizing privacy "
            "mechanisms. STOC 2009; SIAM J. Comput. 41(6), 2012.")

#: The largest sensitivity whose Delta + 1 atoms (the exact loss, the knots, the closed form as
#: a Piecewise) are built; the Arb values and the profile need no atoms and take any Delta.
MAX_ATOMS = 4096
#: The largest Delta for which f(alpha) is returned as an explicit SymPy expression.
CLOSED_FORM_MAX = 64


class DiscreteLaplace(TradeOff):
    """T(L_Z(0, t), L_Z(Delta, t)), L_Z(mu, t)(x) proportional to e^{-|x - mu|/t} on Z: the
    discrete Laplace (geometric) mechanism on an integer query of sensitivity Delta (a positive
    integer), scale t > 0 (GRS; see the module)."""

    def __new__(cls, sensitivity: Any, scale: Any):
        d = param("sensitivity", sensitivity, lower=1, integer=True, owner="DiscreteLaplace")
        t = param("scale", scale, lower=0, lower_open=True, owner="DiscreteLaplace")
        return TradeOff.__new__(cls, d, t)

    @property
    def sensitivity(self) -> sp.Expr:
        return self.args[0]

    @property
    def scale(self) -> sp.Expr:
        return self.args[1]

    @property
    def is_symmetric(self) -> bool:
        """True: x -> Delta - x swaps L_Z(0, t) and L_Z(Delta, t) (module)."""
        return True

    def _r(self) -> sp.Expr:
        return sp.exp(-1 / self.scale)

    def _eval_fixed_point(self) -> sp.Expr | None:
        """r^{(Delta+1)/2}/(1 + r) (odd Delta), r^{Delta/2}/2 (even Delta) (module)."""
        d, r = self.sensitivity, self._r()
        if d.is_odd:
            return r ** ((d + 1) / 2) / (1 + r)
        if d.is_even:
            return r ** (d / 2) / 2
        return None

    def _eval_at(self, alpha: sp.Expr) -> sp.Expr | None:
        """f(alpha) as an exact expression in r = e^{-1/t} at a numeric alpha (the segment
        decided at 60 digits; None where that is not decisive, for symbols, or Delta above
        CLOSED_FORM_MAX)."""
        if self.free_symbols or not alpha.is_number or int(self.sensitivity) > CLOSED_FORM_MAX:
            return None
        d, r = int(self.sensitivity), self._r()
        if alpha == 0 or alpha == 1:
            return sp.S.One - alpha
        if isinstance(r, sp.Rational) and isinstance(alpha, sp.Rational):
            return _exact(self, alpha)  # (knots are rational: alpha may be one)
        with mp.workdps(60):
            a = mp.mpf(sp.N(alpha, 70))
            U = [_mp_U(num(self.scale, "scale"), m, d) for m in range(d + 2)]
            tol = mp.mpf(10) ** -50
            for m in range(d + 1):  # segment m: U(m + 1) <= alpha <= U(m)
                if U[m + 1] + tol < a < U[m] - tol:
                    break
            else:
                return None

        def u(k):
            return sp.S.Zero if k > d else (sp.S.One if k <= 0 else r**k / (1 + r))
        return u(d + 1 - m) + (u(m) - alpha) * sp.exp(sp.Integer(2 * m - d) / self.scale)

    def _sympystr(self, printer):
        return "DiscreteLaplace(%s, %s)" % (printer._print(self.sensitivity),
                                            printer._print(self.scale))

    def _latex(self, printer):
        t = printer._print(self.scale)
        return (r"T\left(\mathcal{L}_{\mathbb{Z}}(0, %s), \mathcal{L}_{\mathbb{Z}}(%s, %s)\right)"
                % (t, printer._print(self.sensitivity), t))


def _mp_U(t, m: int, d: int):
    """U(m) = P(X >= m) = r^m/(1 + r) for 1 <= m <= Delta, 0 beyond, 1 for m <= 0 (mpmath)."""
    if m > d:
        return mp.zero
    if m <= 0:
        return mp.one
    return mp.exp(-m / t) / (1 + mp.exp(-1 / t))


def _check_numeric(f: DiscreteLaplace) -> int:
    num(f.scale, "scale")  # symbols: a clear error
    if not isinstance(f.sensitivity, sp.Integer):
        num(f.sensitivity, "sensitivity")
    return int(f.sensitivity)


# -- certified values in Arb ---------------------------------------------------------------------
class _Balls:
    """r = e^{-1/t}, U(m) and the losses l_m as Arb balls at the current precision."""

    def __init__(self, f: DiscreteLaplace):
        self.d = int(f.sensitivity)
        self.inv_t = 1 / arb_ball(f.scale)
        self.r = (-self.inv_t).exp()
        self.one_r = 1 + self.r

    def U(self, m: int):
        from flint import arb

        if m > self.d:
            return arb(0)
        if m <= 0:
            return arb(1)
        return (-m * self.inv_t).exp() / self.one_r

    def Uc(self, m: int):
        """1 - U(m), formed without cancellation (>= 1/2 for m >= 1)."""
        from flint import arb

        if m > self.d:
            return arb(1)
        if m <= 0:
            return arb(0)
        return (self.one_r - (-m * self.inv_t).exp()) / self.one_r

    def loss(self, m: int):
        return (2 * m - self.d) * self.inv_t


def _segment_guess(B: _Balls, a) -> int:
    """The m with U(m+1) <= alpha <= U(m), from the midpoints (the caller proves it)."""
    with mp.workprec(64):
        x = mp.mpf(a.mid().str(20, radius=False))
        r = mp.mpf(B.r.mid().str(20, radius=False))
        if x >= r / (1 + r):
            return 0
        if x <= 0:
            return B.d
        m = int(mp.floor(mp.log(x * (1 + r)) / mp.log(r)))
    return min(max(m, 1), B.d)


def _ball(f: DiscreteLaplace, a, ac, power: bool):
    """f(alpha) (``power``: 1 - f(alpha)) as an Arb ball from exact balls a = alpha and
    ac = 1 - alpha, or None where the segment is not decided at this precision."""
    from flint import arb

    if a == 0 or ac == 0:
        one = (a == 0) != power
        return arb(1) if one else arb(0)
    B = _Balls(f)
    d = B.d
    m0 = _segment_guess(B, a)

    def above(j):  # U(j) - alpha
        if j <= 0:
            return ac
        return B.U(j) - a

    cands = [j for j in (m0 - 1, m0, m0 + 1)
             if 0 <= j <= d and not (above(j) < 0 or above(j + 1) > 0)]
    if not cands or not above(min(cands)) >= 0 or not above(max(cands) + 1) <= 0:
        return None
    out = None
    for m in cands:
        e = B.loss(m).exp()
        if power:
            v = B.Uc(d - m) + (-above(m + 1)) * e
        else:
            v = B.U(d + 1 - m) + above(m) * e
        out = v if out is None else out.union(v)
    return out


@arb_value.register(DiscreteLaplace)
def _(f, a, ac, power):
    """The certified ball of f(alpha) or 1 - f(alpha) (the segment formulas of the module)."""
    from flint import ctx

    with arb_precision(ctx.prec + 16):
        return _ball(f, a, ac, power)


def _mp_pair(f: DiscreteLaplace, make) -> tuple:
    """(lo, hi) of the ball ``make()`` at the working precision (plus guard bits, doubled
    until the ball carries the working precision)."""
    _check_numeric(f)
    target = mp.prec
    prec = target + 40
    ball = None
    for _ in range(6):
        with arb_precision(prec):
            ball = make()
            if ball is not None and ball.is_finite() and (
                    ball.rel_accuracy_bits() >= target or ball == 0):
                return ball_interval(ball, target + 10)
        prec *= 2
    if ball is None or not ball.is_finite():
        raise NumericalError(f"{f}: the segment of alpha is not decided at {prec} bits")
    return ball_interval(ball, target + 10)


def _level_value(f, a, ac, power):
    return _mp_pair(f, lambda: _ball(f, arb_exact(a), arb_exact(ac), power))


@exact_value.register(DiscreteLaplace)
def _exact(f, A, Ac=None):
    """The exact rational f(A) when r = e^{-1/t} is rational (t = 1/log q): the segment
    formula with U(m) = r^m/(1 + r) and e^{l_m} = r^{Delta - 2m}; None otherwise."""
    r_s = f._r()
    if f.free_symbols or not isinstance(r_s, sp.Rational) or int(f.sensitivity) > MAX_ATOMS:
        return None
    d, r, A = int(f.sensitivity), Fraction(int(r_s.p), int(r_s.q)), Fraction(int(A.p), int(A.q))

    def U(m):
        return Fraction(0) if m > d else (Fraction(1) if m <= 0 else r**m / (1 + r))
    m = 0
    while m < d and A < U(m + 1):  # the segment m: U(m + 1) <= A <= U(m)
        m += 1
    v = U(d + 1 - m) + (U(m) - A) * r ** (d - 2 * m)
    return sp.Rational(v.numerator, v.denominator)


mp_value.register(DiscreteLaplace)(lambda f, a, ac: _level_value(f, a, ac, False))
mp_roc.register(DiscreteLaplace)(lambda f, a, ac: _level_value(f, a, ac, True))


@np_value.register(DiscreteLaplace)
def _(f, x):
    """Interpolation of the knots (U(m), U(Delta + 1 - m)) in float64 (those with U(m) > 0)."""
    d, t = int(f.sensitivity), float(f.scale)
    lr = -1.0 / t
    one_r = 1.0 + math.exp(lr)
    ms = np.arange(min(d, int(745 * t) + 2), 0, -1)  # U(m) > 0 in float64
    a = np.exp(lr * ms) / one_r
    v = np.exp(lr * (d + 1 - ms)) / one_r
    a = np.concatenate([[0.0], a, [1.0]])
    v = np.concatenate([[1.0], v, [0.0]])
    return np.interp(np.asarray(x, dtype=np.float64), a, v)


# -- the privacy profile -------------------------------------------------------------------------
def delta_ball(f: DiscreteLaplace, eps):
    """delta(eps) as an Arb ball (``eps`` a ball): sum over l_j > eps of Q_j (1 - e^{eps - l_j}),
    the atoms below a certified threshold left out (module docstring)."""
    from flint import arb

    B = _Balls(f)
    d = B.d
    thr = (eps / B.inv_t + d) / 2  # l_j > eps iff j > thr
    lo = thr.lower()
    start = 0 if lo < 0 else int(lo.floor().unique_fmpz())
    if start > d:
        return arb(0)
    c = (1 - B.r) / B.one_r
    total = arb(0)
    for j in range(start, d + 1):
        if j == d:
            q = 1 / B.one_r
        elif j == 0:
            q = (-d * B.inv_t).exp() / B.one_r
        else:
            q = c * (-(d - j) * B.inv_t).exp()
        total += q * (-(eps - B.loss(j)).expm1()).max(arb(0))
    return total


@arb_delta.register(DiscreteLaplace)
def _(f, eps):
    """delta(eps) as a certified ball (:func:`delta_ball`)."""
    if int(f.sensitivity) > 10**6:
        return None
    return delta_ball(f, eps)


@mp_delta.register(DiscreteLaplace)
def _(f, eps):
    """delta(eps) from :func:`delta_ball` at the working precision."""
    if eps == mp.inf:
        return mp.zero, mp.zero
    if int(f.sensitivity) > 10**6:
        raise NumericalError(f"{f}: delta is summed over the Delta + 1 atoms; Delta = "
                             f"{f.sensitivity} is above 10^6")
    return _mp_pair(f, lambda: delta_ball(f, arb_exact(eps)))


@profile_form.register(DiscreteLaplace)
def _(f, eps):
    """delta(eps) = 1 - (r^{Delta+1-k} + e^eps r^k)/(1 + r), k = floor((eps t + Delta)/2) + 1
    (module docstring), at a numeric eps; None for symbols."""
    if f.free_symbols or not sp.sympify(eps).is_number:
        return None
    d, t = f.sensitivity, f.scale
    k = sp.floor((eps * t + d) / 2) + 1
    if not k.is_Integer:
        return None
    k = int(k)
    r = sp.exp(-1 / t)
    if k > d:
        return sp.S.Zero
    if k <= 0:
        return 1 - sp.exp(eps)
    return 1 - (r ** (d + 1 - k) + sp.exp(eps) * r**k) / (1 + r)


# -- the exact finite loss and the knots ---------------------------------------------------------
def atoms(f: DiscreteLaplace) -> list[tuple[sp.Expr, sp.Expr, sp.Expr]]:
    """(ratio e^{l_j}, P-mass, Q-mass) of the Delta + 1 atoms, exact (module docstring)."""
    d, t = int(f.sensitivity), f.scale
    r = sp.exp(-1 / t)
    c = (1 - r) / (1 + r)
    out = []
    for j in range(d, -1, -1):
        if j == d:
            p, q = r**d / (1 + r), 1 / (1 + r)
        elif j == 0:
            p, q = 1 / (1 + r), r**d / (1 + r)
        else:
            p, q = c * r**j, c * r ** (d - j)
        out.append((sp.exp(sp.Integer(2 * j - d) / t), p, q))
    return out


def _float_loss(f: DiscreteLaplace) -> AtomLoss:
    """The Delta + 1 atoms in float64, each from its closed form at 80 bits (one rounding):
    the PLD grid's view where the exact one is not offered."""
    d = int(f.sensitivity)
    ls, ps, qs = [], [], []
    with mp.workprec(80):
        t = num(f.scale, "scale")
        r = mp.exp(-1 / t)
        c = -mp.expm1(-1 / t) / (1 + r)
        for j in range(d, -1, -1):
            if j == d:
                p, q = mp.exp(-d / t) / (1 + r), 1 / (1 + r)
            elif j == 0:
                p, q = 1 / (1 + r), mp.exp(-d / t) / (1 + r)
            else:
                p, q = c * mp.exp(-j / t), c * mp.exp(-(d - j) / t)
            ls.append(float((2 * j - d) / t))
            ps.append(float(p))
            qs.append(float(q))
    return AtomLoss(ls, ps, qs, rel_err=4 * U64)


@privacy_loss.register(DiscreteLaplace)
@loss_views("grid")
def _(f) -> PrivacyLoss | None:
    """The finite pair of the Delta + 1 atoms: exact (:class:`FiniteLoss`, whose ``exact()`` is
    itself) when e^{1/t} is rational (t = 1/log q: rational masses, exact composition) or
    Delta = 1 (randomized response f_{1/t,0}, whose exact products the finite tables build by
    the binomial recurrence); otherwise its float atoms only (products of symbolic masses in
    e^{1/t} would be slow: those go to the PLD engine, and their Arb law to the certified
    inversion next to a factor with a density). Only the grid view is declared, since
    the exact one depends on the scale. None for symbolic parameters or Delta above
    MAX_ATOMS."""
    if f.free_symbols or int(f.sensitivity) > MAX_ATOMS:
        return None
    if f.sensitivity == 1:
        return FiniteLoss.epsdelta(1 / f.scale)
    if isinstance(f._r(), sp.Rational):
        return FiniteLoss.from_atoms(atoms(f))
    # the float atoms for the PLD grid, and the Arb law of the same atoms for the certified
    # inversion next to a factor with a density (DiscreteLaplace(3, 2) (x) G_1)
    return LazyLoss(grid=lambda: _float_loss(f), law=lambda: AtomLaw(atoms(f)))


@pl_knots.register(DiscreteLaplace)
def _(f):
    """(0, 1), (U(m), U(Delta + 1 - m)) for m = Delta..1, (1, 0) (module docstring)."""
    if f.free_symbols or int(f.sensitivity) > MAX_ATOMS:
        return None
    d, r = int(f.sensitivity), sp.exp(-1 / f.scale)
    ks = [(sp.S.Zero, sp.S.One)]
    ks += [(r**m / (1 + r), r ** (d + 1 - m) / (1 + r)) for m in range(d, 0, -1)]
    ks.append((sp.S.One, sp.S.Zero))
    return clean_knots(ks)


# -- Renyi divergences ---------------------------------------------------------------------------
@renyi_form.register(DiscreteLaplace)
def _(f, a):
    """D_a(P || Q) from the geometric sums of the module docstring; D_oo = Delta/t."""
    d, t = f.sensitivity, f.scale
    if a is sp.oo:
        return d / t
    r = sp.exp(-1 / t)
    c = (1 - r) / (1 + r)
    s = r ** (2 * a - 1)
    mid_general = r ** ((1 - a) * d) * s * (1 - s ** (d - 1)) / (1 - s)
    mid_half = r ** ((1 - a) * d) * (d - 1)
    half = sp.Eq(a, sp.S.Half)
    if half is sp.true:
        mid = mid_half
    elif half is sp.false:
        mid = mid_general
    else:
        mid = sp.Piecewise((mid_half, half), (mid_general, True))
    total = c * ((r ** ((1 - a) * d) + r ** (a * d)) / (1 - r) + mid)
    return sp.log(total) / (a - 1)


# -- quadrature: the slope and the knots ---------------------------------------------------------
@log_slope.register(DiscreteLaplace)
def _(f, a, ac):
    """log|f'| = l_m = (2m - Delta)/t on the segment m of alpha (the right derivative at a
    knot): Delta/t at alpha = 0, -Delta/t at alpha = 1."""
    d = _check_numeric(f)
    t = num(f.scale, "scale")
    if a == 0:
        return d / t
    if ac == 0:
        return -d / t
    with arb_precision(mp.prec + 40):
        m = _segment_guess(_Balls(f), arb_exact(a))
    return (2 * m - d) / t


@kinks.register(DiscreteLaplace)
def _(f):
    """The knots U(m), m = 1..Delta, in [1/64, 63/64] (at most MAX_ATOMS of them; nearer the
    ends they are left to the quadrature of the end pieces, as for the discrete Gaussian)."""
    d = _check_numeric(f)
    t = num(f.scale, "scale")
    edge = mp.mpf(1) / 64
    out = []
    for m in range(1, min(d, MAX_ATOMS) + 1):
        u = _mp_U(t, m, d)
        if u < edge:
            break
        if u < 1 - edge:
            out.append(u)
    return sorted(out)



# -- the lattice view: products composed exactly in integers (numeric.lattice_product) -----------
class DiscreteLaplaceLattice:
    """The discrete Laplace loss as a lattice factor (``numeric.lattice_product``): under Q the
    loss is l_y = (2y - Delta)/t = u y + v with y = min(max(x, 0), Delta) in {0, ..., Delta}
    (the clipped output), u = 2/t, v = -Delta/t rational for a rational scale t, and the
    Q-masses of the module docstring: r^Delta/(1 + r) at y = 0, c r^{Delta - y} for 0 < y <
    Delta, 1/(1 + r) at y = Delta (r = e^{-1/t}, c = (1 - r)/(1 + r)). The support is finite,
    so the mgf M(c) = sum_y q(y) e^{c l_y} is an exact finite sum in Arb (no tail), and the
    tilted masses are Arb balls of e^{log q(y) + c l_y}/scale rounded down to integers."""

    def __init__(self, d: int, t: Fraction) -> None:
        self.d, self.t = int(d), Fraction(t)
        self.step = 2 / self.t
        self.offset = -Fraction(self.d) / self.t
        self.loss_max = Fraction(self.d) / self.t  # (the loss is clipped: Delta/t at most)

    def __repr__(self) -> str:
        return f"DiscreteLaplaceLattice({self.d}, t={self.t})"

    def _log_q_float(self) -> np.ndarray:
        """log q(y), y = 0..Delta, in floats (planning)."""
        d, it = self.d, 1 / float(self.t)
        lr1 = math.log1p(math.exp(-it))  # log(1 + r)
        y = np.arange(d + 1, dtype=float)
        lq = math.log(-math.expm1(-it)) - lr1 - (d - y) * it
        lq[0] = -d * it - lr1
        lq[d] = -lr1
        return lq

    def plan(self, c: float) -> tuple[float, float, float]:
        """(log M(c), tilted mean of y, its sd) in floats (planning only)."""
        y = np.arange(self.d + 1, dtype=float)
        e = self._log_q_float() + c * (float(self.step) * y + float(self.offset))
        m = float(e.max())
        w = np.exp(e - m)
        s = float(w.sum())
        mean = float((w * y).sum()) / s
        var = max(float((w * y * y).sum()) / s - mean * mean, 0.0)
        return m + math.log(s), mean, max(math.sqrt(var), 0.5)

    def _log_q_ball(self, y: int):
        """log q(y) as an Arb ball at the working precision (module docstring)."""
        from flint import arb, fmpq

        it = arb(fmpq(self.t.denominator, self.t.numerator))  # 1/t
        l1 = (1 + (-it).exp()).log()  # log(1 + r)
        if y == self.d:
            return -l1
        if y == 0:
            return -self.d * it - l1
        return (-(-it).expm1()).log() - l1 - (self.d - y) * it

    def _loss_ball(self, y: int):
        from flint import arb, fmpq

        v = self.step * y + self.offset
        return arb(fmpq(v.numerator, v.denominator))

    def mgf_ball(self, c):
        """M(c) = sum_{y=0}^{Delta} q(y) e^{c l_y}: the exact finite sum in Arb."""
        from flint import arb

        total = arb(0)
        for y in range(self.d + 1):
            total += (self._log_q_ball(y) + c * self._loss_ball(y)).exp()
        return total

    def tilted(self, c: float, prec: int, ylo: int, yhi: int, scale: Fraction) -> list[int]:
        """Integers I(y) <= 2^prec q(y) e^{c l_y}/scale for y = ylo..yhi (0 outside the
        support 0..Delta), each the floor of the lower end of its Arb ball."""
        from flint import arb, fmpq

        out = [0] * (yhi - ylo + 1)
        with arb_precision(prec + 64):
            cc = arb(fmpq(*Fraction(c).as_integer_ratio()))
            ls = arb(fmpq(scale.numerator, scale.denominator)).log()
            one = arb(2) ** prec
            for y in range(max(ylo, 0), min(yhi, self.d) + 1):
                b = (self._log_q_ball(y) + cc * self._loss_ball(y) - ls).exp() * one
                lo = b.lower()
                out[y - ylo] = int(lo.floor().unique_fmpz()) if lo > 0 else 0
        return out


@lattice_factor.register(DiscreteLaplace)
def _(f) -> DiscreteLaplaceLattice | None:
    """The lattice view of the loss (:class:`DiscreteLaplaceLattice`: l = (2/t) y - Delta/t,
    y the clipped output in 0..Delta) for a rational scale t and Delta up to MAX_ATOMS:
    powers and products with other lattice factors (discrete Gaussians with rational sigma^2)
    whose steps share a small denominator are composed exactly (``numeric.lattice_product``);
    None otherwise."""
    if f.free_symbols or not isinstance(f.scale, sp.Rational) or int(f.sensitivity) > MAX_ATOMS:
        return None
    t = f.scale
    return DiscreteLaplaceLattice(int(f.sensitivity), Fraction(int(t.p), int(t.q)))


# both laws charge every integer (e^{-|k - mu|/t} > 0): no loss of +-oo, f(0) = 1 = z exactly
# (Dong, Roth & Su, Def. 2: f(0) = 1 - Q(P = 0))
register_ends(DiscreteLaplace)
