"""Test cases for every registered rewrite rule (used by tests/test_rule_soundness.py).

FORMAT. ``CASES`` maps a rule name (``Rule.name``; write ``"ClassName.rule_name"`` if two
rules share a name) to a generator ``gen(rng: random.Random) -> Iterable[Case]``. Each
:class:`Case` holds

* ``expr``: an expression **on which the rule fires** (it may contain symbols, so that the
  rule's symbolic output is what gets checked);
* ``subs``: the sampled admissible numbers for those symbols (``{mu: Rational(3, 2)}``);
* ``alphas``: levels to check (SymPy/Fraction rationals in [0, 1]); empty = let the test draw
  two (one in (0, 1) at 1/1000 resolution, one small);
* ``digits``: the significant digits the comparison demands (``None``: exact rational
  equality, for finite objects with rational data); state what the reference route supports;
* ``note``: what the case exercises (shown in failure messages).

The meta-test applies the rule to ``expr``, substitutes ``subs`` into input and output, and
compares the input evaluated by definition (tests/rewrite_reference.py) with the output
evaluated numerically (``ta.evaluate``, else the reference), at every alpha: equal for
``eq`` rules, ``out <= in`` for ``lower``, ``out >= in`` for ``upper``. A rule without an entry
here fails the meta-test. To add cases for a new rule, append below::

    @case("my_rule")
    def _(rng):
        x = Rational(rng.randint(1, 30), 10)
        yield Case(MyNode(G(mu), x), {mu: x}, digits=50, note="...")

Keep each generator cheap (the reference route for a tensor of several Gaussians costs ~3 s
per alpha: one such case per rule is plenty).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import sympy as sp
from sympy import Rational, log

import tradeoff_algebra as ta
from tradeoff_algebra import EpsDelta, G, Group, Id, Inverse, Mix, Tensor, TensorPower, Zero

__all__ = ["Case", "CASES", "case"]


@dataclass
class Case:
    """One expression on which a rule fires, with its sampled parameters."""

    expr: Any
    subs: dict = field(default_factory=dict)
    alphas: tuple = ()
    digits: int | None = 50
    note: str = ""
    tol: Any = None  # approx rules: the largest |input - output| accepted (see the case)


CASES: dict[str, Callable[[random.Random], Iterable[Case]]] = {}


def case(name: str):
    """Register a case generator for the rule called ``name``."""
    def deco(gen):
        if name in CASES:
            raise ValueError(f"cases for {name} are already registered")
        CASES[name] = gen
        return gen
    return deco


# -- symbols and samplers ----------------------------------------------------------------------
mu, nu = sp.symbols("mu nu", nonnegative=True)
eps1, eps2 = sp.symbols("epsilon_1 epsilon_2", nonnegative=True)
delta = sp.Symbol("delta", nonnegative=True)
p = sp.Symbol("p", nonnegative=True)
m, n = sp.symbols("m n", integer=True, nonnegative=True)
k = sp.Symbol("k", integer=True, positive=True)


def r_mu(rng) -> Rational:
    """A Gaussian parameter in [1/10, 3]."""
    return Rational(rng.randint(1, 30), 10)


def r_eps(rng):
    """eps = log(e^eps) with e^eps rational in [1, 4]: finite objects stay exact."""
    return log(Rational(rng.randint(10, 40), 10))


def r_delta(rng) -> Rational:
    return Rational(rng.randint(0, 20), 100)


def r_p(rng) -> Rational:
    return Rational(rng.randint(1, 9), 10)


def asym(rng):
    """A non-symmetric finite trade-off function: (f_{eps,delta})_p = p f + (1 - p) Id."""
    return Mix(EpsDelta(r_eps(rng), r_delta(rng)), r_p(rng))


# -- tensor algebra (operators/tensor.py) -----------------------------------------------------
@case("tensor_zero")
def _(rng):
    yield Case(Tensor(EpsDelta(eps1, delta), Zero, G(mu)),
               {eps1: r_eps(rng), delta: r_delta(rng), mu: r_mu(rng)}, digits=None,
               note="f_{eps,delta} (x) 0 (x) G_mu = 0")
    yield Case(Tensor(asym(rng), Zero), digits=None, note="non-symmetric factor")


@case("tensor_unit")
def _(rng):
    yield Case(Tensor(EpsDelta(eps1), Id, EpsDelta(eps2, delta)),
               {eps1: r_eps(rng), eps2: r_eps(rng), delta: r_delta(rng)}, digits=None,
               note="finite, exact")
    yield Case(Tensor(G(mu), Id, asym(rng)), {mu: r_mu(rng)}, digits=50,
               note="Gaussian x finite, one shift: closed-form Gaussian tails")


@case("tensor_collect")
def _(rng):
    e = r_eps(rng)
    yield Case(Tensor(EpsDelta(eps1), EpsDelta(eps1), TensorPower(EpsDelta(eps1), n),
                      EpsDelta(eps2, delta)),
               {eps1: e, n: rng.randint(0, 2), eps2: r_eps(rng), delta: r_delta(rng)},
               digits=None, note="f (x) f (x) f^{(x) n} (x) g = f^{(x)(n+2)} (x) g, exact")
    f = asym(rng)
    yield Case(Tensor(TensorPower(f, m), TensorPower(f, n)),
               {m: rng.randint(0, 2), n: rng.randint(1, 2)}, digits=None,
               note="f^{(x) m} (x) f^{(x) n}, non-symmetric f")


@case("power_zero")
def _(rng):
    yield Case(TensorPower(asym(rng), 0), digits=None)
    yield Case(TensorPower(G(mu), 0), {mu: r_mu(rng)}, digits=None)


@case("power_one")
def _(rng):
    yield Case(TensorPower(asym(rng), 1), digits=None)
    yield Case(TensorPower(G(mu), 1), {mu: r_mu(rng)}, digits=50)


@case("power_of_power")
def _(rng):
    yield Case(TensorPower(TensorPower(asym(rng), m), n),
               {m: rng.randint(0, 2), n: rng.randint(0, 2)}, digits=None)


@case("power_of_id")
def _(rng):
    yield Case(TensorPower(Id, n), {n: rng.randint(0, 5)}, digits=None)


@case("power_of_zero")
def _(rng):
    yield Case(TensorPower(Zero, k), {k: rng.randint(1, 5)}, digits=None,
               note="k declared positive")
    yield Case(TensorPower(Zero, n + 1), {n: rng.randint(0, 4)}, digits=None,
               note="n + 1 >= 1 for n >= 0")


# -- inverse (operators/unary.py) -----------------------------------------------------------
@case("inverse_involution")
def _(rng):
    yield Case(Inverse(Inverse(asym(rng))), digits=None,
               note="non-symmetric finite f, nested root finding")
    yield Case(Inverse(Inverse(Tensor(asym(rng), EpsDelta(eps1)))), {eps1: r_eps(rng)},
               digits=None, note="a product inside, exact")


@case("inverse_symmetric")
def _(rng):
    yield Case(Inverse(G(mu)), {mu: r_mu(rng)}, digits=50, note="root finding on G_mu")
    yield Case(Inverse(EpsDelta(eps1, delta)), {eps1: r_eps(rng), delta: r_delta(rng)},
               digits=None)


@case("inverse_closed_form")
def _(rng):
    yield Case(Inverse(ta.Laplace(mu)), {mu: r_mu(rng)}, digits=50,
               note="hook of a symmetric family")
    if hasattr(ta, "Discrete"):
        P = (Rational(1, 2), Rational(1, 3), Rational(1, 6))
        Q = (Rational(1, 8), Rational(3, 8), Rational(1, 2))
        yield Case(Inverse(ta.Discrete(P, Q)), digits=None, note="T(P, Q)^{-1} = T(Q, P)")


@case("inverse_tensor")
def _(rng):
    yield Case(Inverse(Tensor(asym(rng), EpsDelta(eps1, delta))),
               {eps1: r_eps(rng), delta: r_delta(rng)}, digits=None,
               note="root finding on the exact product vs the product of swapped pairs")
    yield Case(Inverse(Tensor(asym(rng), G(mu))), {mu: r_mu(rng)}, digits=45,
               alphas=(Rational(rng.randint(100, 900), 1000),),
               note="finite x Gaussian (45 digits: bisection on a closed-form tail sum)")


@case("inverse_power")
def _(rng):
    yield Case(Inverse(TensorPower(asym(rng), n)), {n: rng.randint(0, 3)}, digits=None)


# -- Gaussian (families/gaussian.py) --------------------------------------------------------
@case("gaussian_zero")
def _(rng):
    yield Case(G(0), digits=50, note="G_0 by its closed form, numerically")


@case("normal_pair_equal_variance")
def _(rng):
    yield Case(ta.NormalPair(Rational(1, 3), 2, -1, 2), digits=50,
               note="T(N(1/3, 4), N(-1, 4)) = G_{2/3}")
    yield Case(ta.NormalPair(0, Rational(1, 2), Rational(3, 2), Rational(1, 2)), digits=50,
               note="T(N(0, 1/4), N(3/2, 1/4)) = G_3")


@case("laplace_zero")
def _(rng):
    yield Case(ta.Laplace(0), digits=50, note="L_0 by its closed form, numerically")


@case("gaussian_tensor")
def _(rng):
    yield Case(Tensor(G(mu), G(nu), Id), {mu: r_mu(rng), nu: r_mu(rng)}, digits=50,
               alphas=(Rational(rng.randint(1, 999), 1000),),
               note="N(0,I) vs N((mu,nu),I): 1-D quadrature of the conditional normal CDF")


@case("gaussian_power")
def _(rng):
    yield Case(TensorPower(G(mu), n), {mu: r_mu(rng), n: 3}, digits=50,
               alphas=(Rational(rng.randint(1, 99), 100),),
               note="n = 3 coordinates, quadrature")
    yield Case(TensorPower(G(mu), n), {mu: r_mu(rng), n: 1}, digits=50,
               note="n = 1, closed-form tails")


@case("gaussian_group")
def _(rng):
    yield Case(Group(G(mu), k), {mu: r_mu(rng), k: rng.randint(1, 4)}, digits=50,
               note="k-fold composition of 1 - G_mu")


@case("laplace_group")
def _(rng):
    yield Case(Group(ta.Laplace(mu), k), {mu: r_mu(rng), k: rng.randint(1, 4)}, digits=50,
               note="k-fold composition of 1 - L_mu")


# -- (eps, delta) leaves and Eqs. (10)-(11) (families/epsdelta.py) ----------------------------
# Finite objects here have rational e^eps (exact comparisons); irrational e^eps at 50 digits is
# covered by tests/test_rules_epsdelta.py, test_rules_subsample.py and test_binomial.py.
@case("piecewise_identity")
def _(rng):
    yield Case(ta.PiecewiseLinear([(0, 1), (1, 0)]), digits=None, note="the line 1 - alpha")
    yield Case(ta.PiecewiseLinear([(0.0, 1.0), (1.0, 0.0)]), digits=None, note="float knots")


@case("piecewise_zero")
def _(rng):
    yield Case(ta.PiecewiseLinear([(0, 0), (1, 0)]), digits=None, note="f(0) = 0")


@case("epsdelta_zero_is_id")
def _(rng):
    yield Case(EpsDelta(0, 0), digits=None, note="f_{0,0} = Id")


@case("epsdelta_delta_one_is_zero")
def _(rng):
    yield Case(EpsDelta(eps1, 1), {eps1: r_eps(rng)}, digits=None, note="f_{eps,1} = 0")
    yield Case(EpsDelta(eps1, 1), {eps1: Rational(rng.randint(1, 30), 10)}, digits=50,
               note="irrational e^eps")


@case("epsdelta_tensor_delta")
def _(rng):
    d2 = sp.Symbol("delta_2", nonnegative=True)
    yield Case(Tensor(EpsDelta(0, delta), EpsDelta(0, d2), asym(rng)),
               {delta: r_delta(rng), d2: r_delta(rng)}, digits=None,
               note="Eq. (11) next to a non-symmetric factor")


@case("epsdelta_tensor_absorb_delta")
def _(rng):
    d2 = sp.Symbol("delta_2", nonnegative=True)
    yield Case(Tensor(EpsDelta(eps1, delta), EpsDelta(0, d2)),
               {eps1: r_eps(rng), delta: r_delta(rng), d2: r_delta(rng)}, digits=None,
               note="Eqs. (10)-(11): f_{eps,d1} (x) f_{0,d2}")


# -- the binomial family (families/binomial.py) -------------------------------------------------
@case("epsdelta_power_binomial")
def _(rng):
    yield Case(TensorPower(EpsDelta(eps1), n), {eps1: r_eps(rng), n: rng.randint(0, 6)},
               digits=None, note="f_{eps,0}^{(x) n} = T(B(n, p), B(n, q)), exact")


@case("binomial_power")
def _(rng):
    yield Case(TensorPower(ta.BinomialDP(eps1, m), n),
               {eps1: r_eps(rng), m: rng.randint(0, 3), n: rng.randint(0, 3)}, digits=None)


@case("binomial_tensor")
def _(rng):
    e = r_eps(rng)
    yield Case(Tensor(ta.BinomialDP(eps1, m), EpsDelta(eps1), EpsDelta(eps2, delta)),
               {eps1: e, m: rng.randint(0, 4), eps2: r_eps(rng), delta: r_delta(rng)},
               digits=None, note="f_{eps,0}^{(x) m} (x) f_{eps,0} (x) another factor")


@case("binomial_trivial")
def _(rng):
    yield Case(ta.BinomialDP(eps1, 0), {eps1: r_eps(rng)}, digits=None, note="n = 0")
    yield Case(ta.BinomialDP(0, n), {n: rng.randint(0, 6)}, digits=None, note="eps = 0")


# -- the shuffle model (families/shuffle.py) -----------------------------------------------------
@case("shuffle_trivial")
def _(rng):
    yield Case(ta.ShuffleDP(eps1, 1), {eps1: r_eps(rng)}, digits=None,
               note="one user: randomized response f_{eps0,0}")
    yield Case(ta.ShuffleDP(0, n), {n: rng.randint(1, 6)}, digits=None, note="eps0 = 0: Id")


# -- mixing and subsampling (operators/subsample.py) ---------------------------------------------
@case("mix_one")
def _(rng):
    yield Case(Mix(asym(rng), 1), digits=None)
    yield Case(Mix(G(mu), 1), {mu: r_mu(rng)}, digits=50)


@case("mix_zero")
def _(rng):
    yield Case(Mix(G(mu), 0), {mu: r_mu(rng)}, digits=50)
    yield Case(Mix(asym(rng), 0), digits=None)


@case("mix_id")
def _(rng):
    yield Case(Mix(Id, p), {p: r_p(rng)}, digits=None)


@case("mix_mix")
def _(rng):
    q = sp.Symbol("q", nonnegative=True)
    yield Case(Mix(Mix(EpsDelta(eps1, delta), p), q),
               {eps1: r_eps(rng), delta: r_delta(rng), p: r_p(rng), q: r_p(rng)}, digits=None)
    yield Case(Mix(Mix(G(mu), p), q), {mu: r_mu(rng), p: r_p(rng), q: r_p(rng)}, digits=50)


@case("subsample_zero")
def _(rng):
    yield Case(ta.C(0, asym(rng)), digits=None)


@case("subsample_id")
def _(rng):
    yield Case(ta.C(p, Id), {p: r_p(rng)}, digits=None)


@case("subsample_one_symmetric")
def _(rng):
    yield Case(ta.C(1, EpsDelta(eps1, delta)), {eps1: r_eps(rng), delta: r_delta(rng)},
               digits=None)


@case("subsample_one")
def _(rng):
    yield Case(ta.C(1, asym(rng)), digits=None, note="C_1(f) = C(f) for non-symmetric f")


@case("subsample_zero_function")
def _(rng):
    yield Case(ta.C(p, Zero), {p: r_p(rng)}, digits=None)


@case("subsample_epsdelta")
def _(rng):
    for _ in range(3):
        yield Case(ta.C(p, EpsDelta(eps1, delta)),
                   {p: r_p(rng), eps1: r_eps(rng), delta: Rational(rng.randint(1, 90), 100)},
                   alphas=tuple(Rational(rng.randint(1, 999), 1000) for _ in range(4)),
                   digits=None, note="corrected Eq. (14) against the exact hull (Def. 6)")


# -- maxima (operators/maxgroup.py) ---------------------------------------------------------------
@case("max_drop_zero")
def _(rng):
    yield Case(ta.Max(G(mu), asym(rng), Zero), {mu: r_mu(rng)}, digits=50)


@case("max_id")
def _(rng):
    yield Case(ta.Max(G(mu), Id), {mu: r_mu(rng)}, digits=50)
    yield Case(ta.Max(asym(rng), Id), digits=None)


@case("max_dominated")
def _(rng):
    e1, d1 = Rational(rng.randint(10, 30), 10), r_delta(rng)
    yield Case(ta.Max(EpsDelta(eps1, delta), EpsDelta(eps1 + eps2, delta + p), asym(rng)),
               {eps1: log(e1), eps2: r_eps(rng), delta: d1, p: Rational(rng.randint(0, 9), 100)},
               digits=None, note="the second is dominated")
    yield Case(ta.Max(G(mu), G(mu + 1), ta.Laplace(mu)), {mu: r_mu(rng)}, digits=50,
               note="G_{mu+1} is dominated by G_mu")


# -- symmetrisations (operators/unary.py) -------------------------------------------------
@case("symmetrize_symmetric")
def _(rng):
    yield Case(ta.Symmetrize(EpsDelta(eps1, delta)), {eps1: r_eps(rng), delta: r_delta(rng)},
               digits=None)


@case("symmetrize_inverse")
def _(rng):
    yield Case(ta.Symmetrize(Inverse(asym(rng))), digits=50,
               alphas=(Rational(rng.randint(1, 999), 1000),),
               note="f^{-1} by root finding on both sides")


@case("symmetric_hull_symmetric")
def _(rng):
    yield Case(ta.SymmetricHull(EpsDelta(eps1, delta)),
               {eps1: r_eps(rng), delta: r_delta(rng)}, digits=None)


@case("symmetric_hull_inverse")
def _(rng):
    yield Case(ta.SymmetricHull(Inverse(asym(rng))), digits=50,
               note="both sides by the exact hull of the finite pair (or a numeric route)")


# -- the diagonal translate (operators/shift.py) ---------------------------------------------
@case("shift_zero")
def _(rng):
    yield Case(ta.Shift(G(mu), 0), {mu: r_mu(rng)}, digits=40)


# -- bounds (families/laplace.py, operators/subsample.py, bounds/berry_esseen.py) -------------
@case("laplace_pure_dp")
def _(rng):
    yield Case(ta.Laplace(mu), {mu: r_mu(rng)}, digits=30)


@case("subsample_lower")
def _(rng):
    yield Case(ta.Subsample(asym(rng), p), {p: r_p(rng)}, digits=None,
               note="non-symmetric operand: C_p(f) >= C(f)")
    yield Case(ta.Subsample(EpsDelta(eps1, delta), p),
               {eps1: r_eps(rng), delta: r_delta(rng), p: r_p(rng)}, digits=None)


def _be_cases(rng, upper: bool):
    """Thm. 5's sandwich on exact finite compositions (gamma < 1/2 and beyond)."""
    e = Rational(rng.randint(2, 6), 10)
    alphas = (Rational(1, 1000), Rational(rng.randint(1, 99), 100), Rational(999, 1000))
    yield Case(ta.BinomialDP(e, 40), alphas=alphas, digits=30, note="f_{eps,0}^{(x) 40}")
    yield Case(TensorPower(EpsDelta(e, Rational(1, 50)), 12), alphas=alphas, digits=30,
               note="delta split by Eq. (10)")
    yield Case(Tensor(EpsDelta(Rational(1, 2), 0), EpsDelta(Rational(1, 3), 0),
                      EpsDelta(Rational(1, 4), 0), EpsDelta(Rational(1, 5), 0)),
               alphas=alphas[1:2], digits=30, note="different factors")


for _cls in ("BinomialDP", "TensorPower", "Tensor"):
    def _gen(rng, _cls=_cls, upper=False):
        for c in _be_cases(rng, upper):
            if type(c.expr).__name__ == _cls:
                yield c
    case(f"{_cls}.berry_esseen_lower")(_gen)
    case(f"{_cls}.berry_esseen_upper")(lambda rng, _g=_gen: _g(rng, upper=True))


# -- approximations (bounds/clt.py): the distance to the exact composition at the case's n, with
# the rate the theorems state (Thm. 8: O(1/n) for f_{mu/sqrt(n),0}^{(x) n}, sup gap ~0.125/n at
# mu = 1 (proofs/audit/drs_part1.md); Thm. 5: gamma). Tolerances are the stated error (gamma)
# where the paper gives one.
def _clt_cases(rng, cls_name):
    n_ = rng.choice((25, 36, 49))
    e = 1 / sp.sqrt(n_)
    if cls_name == "BinomialDP":
        yield Case(ta.BinomialDP(e, n_), digits=30, tol=Rational(1, 4 * n_) * 2,
                   note="Thm. 7/8: f_{1/sqrt(n),0}^{(x) n} ~ G_1, gap 0.125/n")
    elif cls_name == "TensorPower":
        yield Case(TensorPower(EpsDelta(e, Rational(1, 100)), n_), digits=30,
                   tol=Rational(1, 4 * n_) * 2, note="Thm. 7 with the exact delta part")
    else:
        yield Case(Tensor(EpsDelta(e, 0) ** 8, EpsDelta(2 * e, 0) ** 2), digits=30,
                   tol=Rational(1, 50), note="Thm. 7, two sizes of eps")


for _cls in ("BinomialDP", "TensorPower", "Tensor"):
    case(f"{_cls}.clt_epsdelta")(lambda rng, _c=_cls: _clt_cases(rng, _c))


def _sym3():
    """A symmetric three-point pair near Id (P and Q mirrored)."""
    P = [Rational(2, 5), Rational(1, 3), Rational(4, 15)]
    return ta.Discrete(P, P[::-1])


def _thm6_cases(rng, cls_name):
    if cls_name == "TensorPower":
        yield Case(TensorPower(_sym3(), 40), digits=20, tol=Rational(1, 50),
                   alphas=(Rational(1, 5), Rational(1, 2)), note="Thm. 6, a three-point pair")
    else:
        yield Case(Tensor(TensorPower(_sym3(), 20), G(Rational(1, 2))),
                   digits=20, tol=Rational(1, 50), alphas=(Rational(1, 5), Rational(1, 2)),
                   note="Thm. 6, mixed factors")


case("TensorPower.clt_tensor")(lambda rng: _thm6_cases(rng, "TensorPower"))
case("Tensor.clt_tensor")(lambda rng: _thm6_cases(rng, "Tensor"))


@case("clt_subsampled")
def _(rng):
    T = rng.choice((64, 100))
    yield Case(TensorPower(ta.Subsample(EpsDelta(log(Rational(3, 2)), 0), 1 / sp.sqrt(T)), T),
               digits=20, tol=Rational(1, 100), alphas=(Rational(1, 10), Rational(1, 2)),
               note="Thm. 11 with p0 = 1: C_p(f_{eps,0})^{(x) T} by the exact product")


# -- rules valid for every trade-off function (rewrite/general.py): a trade-off symbol in the
# expression, concrete trade-off functions substituted for it in the input and the output ----
fsym = ta.TradeOffSymbol("f")
gsym = ta.TradeOffSymbol("g", symmetric=True)


@case("group_one")
def _(rng):
    yield Case(Group(fsym, 1), {fsym: asym(rng)}, digits=None, note="f a finite asymmetric f_p")
    yield Case(Group(fsym, 1), {fsym: G(r_mu(rng))}, digits=40, note="f = G_mu")


@case("group_id")
def _(rng):
    yield Case(Group(Id, k), {k: rng.randint(1, 4)}, digits=None)


@case("group_zero")
def _(rng):
    yield Case(Group(Zero, k), {k: rng.randint(1, 4)}, digits=None)


@case("symbol_le_id")
def _(rng):
    yield Case(fsym, {fsym: asym(rng)}, digits=None, note="f a finite asymmetric f_p")
    yield Case(fsym, {fsym: G(r_mu(rng))}, digits=40, note="f = G_mu")


@case("subsample_le_mix")
def _(rng):
    yield Case(ta.Subsample(fsym, p), {fsym: asym(rng), p: r_p(rng)}, digits=None,
               note="f a finite asymmetric f_p: C_p(f) <= f_p")
    yield Case(ta.Subsample(gsym, p), {gsym: EpsDelta(r_eps(rng), r_delta(rng)), p: r_p(rng)},
               digits=None, note="symmetric f = f_{eps,delta}")


@case("mix_ge_operand")
def _(rng):
    yield Case(Mix(fsym, p), {fsym: asym(rng), p: r_p(rng)}, digits=None)
    yield Case(Mix(fsym, p), {fsym: G(r_mu(rng)), p: r_p(rng)}, digits=40, note="f = G_mu")


@case("tensor_drop_symbols")
def _(rng):
    yield Case(Tensor(fsym, EpsDelta(r_eps(rng), 0)), {fsym: asym(rng)}, digits=None,
               note="f (x) f_{eps,0} <= f_{eps,0}")
