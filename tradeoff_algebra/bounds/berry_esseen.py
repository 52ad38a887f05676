"""The Berry–Esseen sandwich of a composition (Dong, Roth & Su, Thm. 5, Eq. (9); Cor. 5).

For symmetric trade-off functions f_1, ..., f_n with kappa_3(f_i) < oo,

    mu    = 2 ||kl||_1 / sqrt(||kappa_2||_1 - ||kl||_2^2),
    gamma = 0.56 ||bar kappa_3||_1 / (||kappa_2||_1 - ||kl||_2^2)^(3/2),

and G_mu(alpha + gamma) - gamma <= f_1 (x) ... (x) f_n(alpha) <= G_mu(alpha - gamma) + gamma.
The paper states the sandwich on [gamma, 1 - gamma] under gamma < 1/2; its proof (the
Berry–Esseen bound on the law of the log-likelihood ratio under both hypotheses, which have the
same law up to sign for symmetric f) gives it for every alpha once G_mu is extended by 1 on
(-oo, 0) and by 0 on (1, oo), which is Cor. 5's form and the arXiv version's footnote; the audit
(proofs/audit/drs_part1.md, Thm. 5) checks both on exact compositions. As trade-off expressions:
``lower = Shift(G_mu, gamma)`` and ``upper = Shift(G_mu, -gamma)`` (the greatest trade-off
function below the upper translate; ``operators.shift``).

A factor f_{eps,delta} with delta > 0 has kappa_3 = oo; it is split as f_{eps,0} (x) f_{0,delta}
(Eq. (10)) and the f_{0,delta} parts are carried exactly: the composition is
(f_{eps_1,0} (x) ...) (x) f_{0,1 - prod(1 - delta_i)} (Eq. (11)), and tensoring with f_{0,d} is
monotone, so the sandwich of the first factor gives one of the whole.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy as sp

from ..analysis.functionals import kappa2, kappa3, kappa3_bar, kl
from ..core.citations import DRS
from ..core.errors import InvalidParameter, NoClosedForm
from ..core.node import TradeOff
from ..core.rules import rule
from ..core.validate import mpf_rational, param, to_sympy
from ..families.binomial import BinomialDP
from ..families.epsdelta import EpsDelta
from ..families.gaussian import Gaussian
from ..families.trivial import Id, Zero
from ..numeric import budget
from ..operators.shift import Shift
from ..operators.subsample import Subsample
from ..operators.tensor import Tensor, TensorPower

__all__ = ["BerryEsseen", "berry_esseen", "factors"]

#: The constant of the Berry–Esseen bound used by Thm. 5 (Shevtsova's 0.56).
C_BE = sp.Rational(56, 100)

THM5 = DRS.thm(5, note="Berry-Esseen: G_mu(a + gamma) - gamma <= f_1 (x) ... (x) f_n(a) "
                       "<= G_mu(a - gamma) + gamma")


@dataclass(frozen=True)
class BerryEsseen:
    """The quantities of Thm. 5 and the sandwich ``lower <= f_1 (x) ... (x) f_n <= upper``."""

    mu: sp.Expr
    gamma: sp.Expr
    kl: sp.Expr
    kappa2: sp.Expr
    kappa3_bar: sp.Expr
    delta: sp.Expr
    lower: TradeOff
    upper: TradeOff
    mu_bounds: tuple | None = None  # (lo, hi) when the functionals are enclosures

    @property
    def applies(self) -> bool | None:
        """The paper's hypothesis gamma < 1/2 (three-valued while gamma has symbols); outside
        it the sandwich still holds but says little."""
        return bool(self.gamma < sp.Rational(1, 2)) if self.gamma.is_number else None

    def __str__(self) -> str:
        return (f"Berry-Esseen (Dong, Roth & Su, Thm. 5): mu = {self.mu}, gamma = {self.gamma}"
                f"\n  {self.lower} <= f <= {self.upper}")


def factors(f: Any) -> list[tuple[TradeOff, sp.Expr]]:
    """The factors of a composition as (factor, multiplicity): a tensor product, a tensor
    power, ``BinomialDP(eps, n)`` (= f_{eps,0}^{(x) n}, Kairouz et al.), or a single f."""
    if isinstance(f, Tensor):
        out: list[tuple[TradeOff, sp.Expr]] = []
        for g in f.args:
            out.extend(factors(g))
        return out
    if isinstance(f, TensorPower):
        return [(g, m * f.args[1]) for g, m in factors(f.args[0])]
    if isinstance(f, BinomialDP):
        return [(EpsDelta(f.args[0], 0), f.args[1])]
    return [(f, sp.Integer(1))]


def _split(fs: list[tuple[TradeOff, sp.Expr]]) -> tuple[list, sp.Expr]:
    """Factors without their f_{0,delta} parts (Eq. (10)), and the delta of those parts
    (Eq. (11)); Id factors dropped."""
    keep, survive = [], sp.Integer(1)
    for g, m in fs:
        if isinstance(g, EpsDelta) and g.args[1] != 0:
            survive *= (1 - g.args[1]) ** m
            g = EpsDelta(g.args[0], 0)
        if g == Id or (isinstance(g, EpsDelta) and g.args[0] == 0 and g.args[1] == 0):
            continue
        keep.append((g, m))
    return keep, 1 - survive


def _moments(g: TradeOff) -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    _moments_checked(g)
    return kl(g), kappa2(g), kappa3_bar(g)


def _moments_checked(g: TradeOff) -> None:
    """Thm. 5's hypotheses on a factor: symmetric, kappa_3 < oo."""
    if g.is_symmetric is not True:
        raise InvalidParameter("f", g, "symmetric trade-off functions (Thm. 5 assumes "
                               "f = f^{-1}; take the symmetric hull C(f) first)",
                               "berry_esseen")
    try:
        k3 = kappa3(g)
    except NoClosedForm:
        if _subsampled_gaussian(g):
            return
        raise
    if k3 is sp.oo or k3 == sp.zoo or (k3.is_number and not k3.is_finite):
        raise InvalidParameter("f", g, "factors with kappa_3 < oo (f(0) = 1)", "berry_esseen")


def _subsampled_gaussian(g: TradeOff) -> bool:
    """C_p(G_mu): kappa_3 < oo (its log-slope has Gaussian tails), certified moments."""
    return isinstance(g, Subsample) and isinstance(g.arg, Gaussian)


def _shown(a: dict) -> str:
    from ..numeric.protocol import short

    return f"berry_esseen({short(a['f'])}, {short(a.get('n'))})"


@budget.deadline(_shown)
def berry_esseen(f: Any, n: Any = None) -> BerryEsseen:
    """Thm. 5 of Dong, Roth & Su for a composition: ``berry_esseen(f, n)`` for f^{(x) n},
    ``berry_esseen([f_1, ..., f_k])`` for f_1 (x) ... (x) f_k, or ``berry_esseen(expr)`` for a
    product expression (``Tensor``, ``TensorPower``, ``BinomialDP``).

    Returns :class:`BerryEsseen` with ``mu``, ``gamma`` (SymPy expressions, symbols allowed)
    and the sandwich ``lower <= composition <= upper`` as trade-off expressions. For
    f_{eps,0}: ``mu = 2 sqrt(n) sinh(eps/2)``. Factors without closed-form functionals but
    with certified ones (C_p(G_mu), Lemma 4 corrected: Cor. 5 for NoisySGD) give exact
    bounds on mu and gamma (``mu_bounds``) from which the sandwich stays guaranteed;
    otherwise :class:`NoClosedForm`.
    """
    if isinstance(f, (list, tuple)):
        if n is not None:
            raise InvalidParameter("n", n, "None when a list of factors is given", "berry_esseen")
        fs = []
        for g in f:
            if not isinstance(g, TradeOff):
                raise InvalidParameter("f", g, "trade-off functions", "berry_esseen")
            fs.extend(factors(g))
    elif isinstance(f, TradeOff):
        fs = factors(f)
        if n is not None:
            n = param("n", n, lower=1, integer=True, owner="berry_esseen")
            fs = [(g, m * n) for g, m in fs]
    else:
        raise InvalidParameter("f", f, "a trade-off function or a list of them", "berry_esseen")
    fs, delta = _split(fs)
    if not fs:
        raise InvalidParameter("f", f, "a composition with a factor other than Id and "
                               "f_{0,delta}", "berry_esseen")
    try:
        moments = [(_moments(g), m) for g, m in fs]
    except NoClosedForm:
        return _certified(f, fs, delta)
    s_kl = s_k2 = s_kl2 = s_k3 = sp.Integer(0)
    for (a, b, c), m in moments:
        s_kl += m * a
        s_k2 += m * b
        s_kl2 += m * a**2
        s_k3 += m * c
    var = s_k2 - s_kl2
    for x in (s_kl, var, s_k3):  # exp(10**400) from eps = 10**400: comparisons never end
        try:
            to_sympy("f", x, "", "berry_esseen")
        except InvalidParameter as exc:
            raise InvalidParameter("f", f, "a composition whose moments can be compared",
                                   "berry_esseen", exc.hint) from None
    if var.is_zero:
        raise InvalidParameter("f", f, "a composition whose log-likelihood ratio is not "
                               "constant (f != Id)", "berry_esseen")
    mu = tidy_mu(2 * s_kl / sp.sqrt(var))
    gamma = tidy_mu(C_BE * s_k3 / var ** sp.Rational(3, 2))
    lower, upper = _sandwich(mu, gamma, delta)
    return BerryEsseen(mu, gamma, s_kl, s_k2, s_k3, delta, lower, upper)


#: Digits of the certified functionals used when a factor has no closed form.
CERTIFIED_DPS = 30


def _bounds(g: TradeOff, name: str) -> tuple[sp.Rational, sp.Rational]:
    """Rational bounds of a functional of g: its certified enclosure, or its closed form
    widened by the 10^-dps relative error a point value allows."""
    v = {"kl": kl, "kappa2": kappa2, "kappa3_bar": kappa3_bar}[name](g, dps=CERTIFIED_DPS)
    lo, hi = mpf_rational(v.lo), mpf_rational(v.hi)
    if v.is_point:
        slack = abs(hi) * sp.Rational(1, 10 ** (CERTIFIED_DPS - 1))
        lo, hi = lo - slack, hi + slack
    return lo, hi


def _outward(x: sp.Expr, up: bool, digits: int = 16) -> sp.Rational:
    """A short rational above (``up``) or below x: x to 40 digits, moved outward by a relative
    10^-digits (far beyond the evaluation's error), rounded to ``digits`` significant digits in
    the same direction."""
    v = sp.N(x, 40)
    if v == 0:
        return sp.Integer(0)
    e = int(sp.floor(sp.log(abs(v), 10))) - digits
    scale = sp.Integer(10) ** (-e) if e < 0 else sp.Rational(1, 10**e)
    m = v * scale * (1 + sp.Rational(1, 10**digits) * (1 if up else -1))
    q = sp.ceiling(m) if up else sp.floor(m)
    return sp.Rational(q) / scale


def _certified(f: Any, fs: list, delta: sp.Expr) -> BerryEsseen:
    """Thm. 5 from certified enclosures of the functionals (factors without closed forms, such
    as C_p(G_mu): Cor. 5). mu and gamma are exact rationals-with-roots bounding the true
    values: the lower side uses the largest mu and gamma the enclosures allow, the upper side
    the smallest mu (G_mu and Shift are monotone), so the sandwich stays guaranteed."""
    kl_lo = kl_hi = k2_lo = k2_hi = k3_hi = kl2_lo = kl2_hi = sp.Integer(0)
    for g, m in fs:
        if g.free_symbols or not m.is_Integer:
            raise NoClosedForm(f"berry_esseen({f}): numeric parameters are needed for the "
                               "certified functionals")
        _moments_checked(g)
        a, b = _bounds(g, "kl")
        c, d = _bounds(g, "kappa2")
        _, e = _bounds(g, "kappa3_bar")
        a = max(a, sp.Integer(0))
        kl_lo, kl_hi = kl_lo + m * a, kl_hi + m * b
        kl2_lo, kl2_hi = kl2_lo + m * a**2, kl2_hi + m * b**2
        k2_lo, k2_hi = k2_lo + m * c, k2_hi + m * d
        k3_hi += m * e
    var_lo, var_hi = k2_lo - kl2_hi, k2_hi - kl2_lo
    if not var_lo > 0:
        raise NoClosedForm(f"berry_esseen({f}): the variance of the log-likelihood ratio is not "
                           "separated from 0 at the functionals' precision")
    mu_hi = _outward(2 * kl_hi / sp.sqrt(var_lo), up=True)
    mu_lo = _outward(2 * kl_lo / sp.sqrt(var_hi), up=False)
    gamma = _outward(C_BE * k3_hi / var_lo ** sp.Rational(3, 2), up=True)
    lower, _ = _sandwich(mu_hi, gamma, delta)
    _, upper = _sandwich(mu_lo, gamma, delta)
    mid = lambda lo, hi: (lo + hi) / 2  # noqa: E731
    return BerryEsseen(mu_hi, gamma, mid(kl_lo, kl_hi), mid(k2_lo, k2_hi), k3_hi, delta,
                       lower, upper, mu_bounds=(mu_lo, mu_hi))


def tidy_mu(x: sp.Expr) -> sp.Expr:
    """A shorter equal form of a small parameter expression (logs of reciprocals merged), or
    ``x``."""
    if sp.count_ops(x) >= 60:
        return x
    y = sp.simplify(sp.expand_log(x, force=True))
    return y if sp.count_ops(y) <= sp.count_ops(x) else x


def _sandwich(mu: sp.Expr, gamma: sp.Expr, delta: sp.Expr) -> tuple[TradeOff, TradeOff]:
    if (gamma >= 1) is sp.true:
        lo, hi = Zero, Id
    else:
        lo, hi = Shift(Gaussian(mu), gamma), Shift(Gaussian(mu), -gamma)
    if delta != 0:
        lo, hi = Tensor(lo, EpsDelta(0, delta)), Tensor(hi, EpsDelta(0, delta))
    return lo, hi


# -- the sandwich as registered bounds of products -------------------------------------------------
def _sandwich_of(f: TradeOff) -> BerryEsseen | None:
    try:
        be = berry_esseen(f)
    except (InvalidParameter, NoClosedForm):
        return None
    if not all(m.is_integer is True or m.is_Symbol for _, m in factors(f)):
        return None
    # as a rule, only under the paper's hypothesis gamma < 1/2 (undecided while symbolic): a
    # larger gamma gives a valid but nearly trivial sandwich, and the parts may do better
    return None if be.applies is False else be


_HYP = ("symmetric factors with kappa_3 < oo and closed-form kl, kappa_2, bar kappa_3 "
        "(f_{eps,delta} factors split by Eq. (10))")


def _lower(f: TradeOff) -> TradeOff | None:
    """f_1 (x) ... (x) f_n >= Shift(G_mu, gamma) (Thm. 5's lower side, extended to all alpha;
    for f_{eps,0}^{(x) n}, mu = 2 sqrt(n) sinh(eps/2))."""
    be = _sandwich_of(f)
    return None if be is None else be.lower


def _upper(f: TradeOff) -> TradeOff | None:
    """f_1 (x) ... (x) f_n <= Shift(G_mu, -gamma) (Thm. 5's upper side, as the greatest
    trade-off function below G_mu(alpha - gamma) + gamma)."""
    be = _sandwich_of(f)
    return None if be is None else be.upper


# the products: a tensor product, a tensor power, and BinomialDP(eps, n) = f_{eps,0}^{(x) n}
for _cls in (TensorPower, Tensor, BinomialDP):
    rule(_cls, cite=THM5, relation="lower", priority=10, hypotheses=_HYP,
         name="berry_esseen_lower")(_lower)
    rule(_cls, cite=THM5, relation="upper", priority=10, hypotheses=_HYP,
         name="berry_esseen_upper")(_upper)
