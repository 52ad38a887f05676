"""Amplification by shuffling: the closed-form (eps, delta) bound of Feldman, McMillan & Talwar.

Wang, Su, Ye, Shokri & Su (Sec. 4.2, Fig. 1, Tables 1 and 2) compare their Thm. 4.2 with
"Theorem 3.2 in [23]", [23] = Feldman, McMillan & Talwar, *Stronger privacy amplification by
shuffling for Renyi and approximate differential privacy* (SODA 2023). For n users, each
eps0-DP, shuffled, that theorem reads, with ``E = e^eps0`` and ``p = 2/(E + 1)``:

    if  eps0 <= log(n/(8 log(2/delta)) - 1)        (equivalently  n p >= 16 log(2/delta)),
    the shuffled mechanism is (eps, delta)-DP with
    eps = log(1 + (E - 1)/(E + 1) (8 sqrt(log(4/delta)/(n p)) + 8/(n p))).

The hypothesis is the one Wang et al. quote (Remark after Thm. 4.2, captions of Fig. 1 and
Table 2). This form reproduces every number Wang et al. print for [23] (Table 1: delta = 0.1038,
0.0018, 8e-5 at eps = 0.7, 0.9, 1.0; Table 2: eps = 1.014, 1.085 at delta = 5e-5, 3e-6) with
the unrounded eps0 = log(n/(8 log(2 n^1.5)) - 1) = 4.44448 of the Fig. 1 caption, n = 10^4.

Which bound of [23] the tables use. Table 2's row is labelled "Numerical eps upper bound in
[23]", but its entries are the closed form above (1.014, 1.085) and eps0 itself where the
hypothesis fails (delta = 1e-7, 4e-9, 9e-11): what the closed-form routine published with
FMT's earlier paper returns outside its range. The numerical bound of FMT (a binary search on
the hockey-stick divergence of the binomial pair) would lie between the exact eps of the pair,
0.397 at delta = 5e-5 (``ShuffleDP``), and its own upper bracket: nowhere near 1.014. So the
tables use the closed form, which is what this module implements. (The closed form of FMT's
earlier paper "Hiding among the clones", FOCS 2021, Thm. 3.1 -- ``8 sqrt(E log(4/delta)/n) +
8 E/n`` under ``eps0 <= log(n/(16 log(2/delta)))`` -- does not apply at eps0 = 4.444, n = 10^4
for any delta <= 5e-5, and gives 1.25 where it is evaluated anyway.)

Solving the closed form for delta at a given eps: with ``x = (e^eps - 1)(E + 1)/(E - 1) - 8/(n p)
> 0``, ``delta = 4 exp(-n p x^2/64)``; the hypothesis holds for ``delta >= delta_min = 2 exp(-n
p/16)``, so the smallest delta the theorem certifies at eps is ``max(delta(eps), delta_min)``.

As a trade-off function: (eps, delta)-DP is f_{eps,delta}-DP (Dong, Roth & Su, Prop. 3, after
Wasserman & Zhou), and a family of (eps_i, delta_i) guarantees is their pointwise maximum
(Prop. 5, primal-dual); so ``max_i f_{eps_FMT(delta_i), delta_i}`` is a lower bound on the
exact shuffle trade-off ``ShuffleDP(eps0, n)`` wherever the theorem holds (every delta_i meets
the hypothesis). It is a **lower bound**, never an identity.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import sympy as sp

from ..core.citations import Paper
from ..core.errors import InvalidParameter
from ..core.node import TradeOff
from ..core.validate import count, flag, fuzzy_ge, fuzzy_gt, fuzzy_le, items, param
from ..families.epsdelta import EpsDelta
from ..numeric import budget
from ..numeric.arb_expr import closed_value
from ..numeric.protocol import MAX_DPS, certified, num, short
from ..numeric.value import Value
from ..operators.maxgroup import Max

__all__ = ["FMT23", "FMT_THM32", "fmt_eps0_max", "fmt_epsilon", "fmt_delta", "fmt_tradeoff"]

FMT23 = Paper("FMT23", "Feldman, McMillan & Talwar",
              "V. Feldman, A. McMillan, K. Talwar. Stronger privacy amplification by shuffling "
              "for Renyi and approximate differential privacy. SODA 2023, 4966-4981 "
              "(reference [23] of Wang et al.).")
#: The theorem the functions of this module implement.
FMT_THM32 = FMT23.thm("3.2", note="closed-form (eps, delta) amplification by shuffling, "
                                  "eps0 <= log(n/(8 log(2/delta)) - 1)")


# -- validation ----------------------------------------------------------------------------------
def _params(owner: str, eps0: Any, n: Any) -> tuple[sp.Expr, sp.Expr]:
    e0 = param("eps0", eps0, lower=0, owner=owner)
    m = param("n", n, lower=1, integer=True, owner=owner)
    return e0, m


def _delta_param(owner: str, delta: Any, name: str = "delta") -> sp.Expr:
    return param(name, delta, lower=0, upper=1, lower_open=True, owner=owner)


def _np(e0: sp.Expr, n: sp.Expr) -> sp.Expr:
    """n p with p = 2/(e^eps0 + 1): the expected number of clones (FMT, Thm. 3.2)."""
    return 2 * n / (sp.exp(e0) + 1)


def _short(x: sp.Expr) -> str:
    """A number for a message: ``4.44448`` (or the expression when it has symbols)."""
    return str(x) if x.free_symbols else f"{float(sp.N(x, 20)):.6g}"


def _check_hypothesis(owner: str, e0: sp.Expr, n: sp.Expr, d: sp.Expr) -> bool:
    """FMT's hypothesis ``n p >= 16 log(2/delta)`` (i.e. eps0 <= log(n/(8 log(2/delta)) - 1)):
    True if it holds or is undecided (symbols), False if it definitely fails for this eps0;
    raises ``InvalidParameter`` on ``n`` when it fails for every eps0 >= 0 (n < 16 log(2/d))."""
    if fuzzy_ge(n, 16 * sp.log(2 / d)) is False:
        raise InvalidParameter(
            "n", n, f">= 16 log(2/delta) = {_short(16 * sp.log(2 / d))} at delta = {_short(d)}",
            owner, "Below it no eps0 >= 0 meets the hypothesis of Feldman, McMillan & "
                   "Talwar's Thm. 3.2")
    return fuzzy_ge(_np(e0, n), 16 * sp.log(2 / d)) is not False


def _refuse_eps0(owner: str, e0: sp.Expr, n: sp.Expr, d: sp.Expr) -> InvalidParameter:
    top = fmt_eps0_max(n, d)
    return InvalidParameter(
        "eps0", e0, f"<= log(n/(8 log(2/delta)) - 1) = {_short(top)} at n = {n}, "
                    f"delta = {_short(d)}", owner,
        "The hypothesis of Feldman, McMillan & Talwar's Thm. 3.2 (SODA 2023); Wang et al.'s "
        "Thm. 4.2 (shuffle(eps0, n, bound='wang')) and the exact ShuffleDP(eps0, n) need none")


def _value(x: sp.Expr, dps: int, what: str, **params: sp.Expr) -> Value:
    """The Value of the closed form ``x`` at ``dps`` digits: exact or certified by Arb balls,
    an estimate (Ziv loop over mpmath) where a function has no ball rule; a parameter with
    free symbols (of ``params``, by name) is refused, named."""
    dps = count("dps", dps, upper=MAX_DPS, owner=what)
    for name, value in params.items():
        if value.free_symbols:
            raise InvalidParameter(name, value, "a number when dps is given", what,
                                   "substitute numbers first, or omit dps for the expression")
    if x.free_symbols:
        raise InvalidParameter("dps", dps, "None while the parameters are symbols", what,
                               "substitute numbers first, or omit dps for the expression")

    c = closed_value(x, dps)  # exact, or certified by Arb balls
    if c is not None:
        return c

    def compute():  # a function without a ball rule: an estimate
        v = num(x, what)
        return v, v

    return certified(compute, dps, lambda: what)


# -- the closed form and its inverse ------------------------------------------------------------
def fmt_eps0_max(n: Any, delta: Any) -> sp.Expr:
    """The largest eps0 for which Feldman, McMillan & Talwar's Thm. 3.2 (SODA 2023) applies:
    ``log(n/(8 log(2/delta)) - 1)`` (as Wang et al. quote it, Remark after Thm. 4.2; Fig. 1
    caption: 4.444 at n = 10^4, delta = n^-1.5). ``-oo`` when ``n <= 16 log(2/delta)``, where
    no eps0 >= 0 qualifies and the logarithm's argument is below 1."""
    m = param("n", n, lower=1, integer=True, owner="fmt_eps0_max")
    d = _delta_param("fmt_eps0_max", delta)
    arg = m / (8 * sp.log(2 / d)) - 1
    if fuzzy_gt(arg, 0) is False:
        return sp.S.NegativeInfinity
    return sp.log(arg)


@budget.deadline(lambda a: f"fmt_epsilon({short(a['eps0'])}, {short(a['n'])}, {short(a['delta'])})")
def fmt_epsilon(eps0: Any, n: Any, delta: Any, *, dps: int | None = None,
                fallback: bool = False) -> sp.Expr | Value:
    """eps of Feldman, McMillan & Talwar, Thm. 3.2 (SODA 2023; Wang et al.'s [23]): the
    shuffled mechanism (n users, each eps0-DP) is (eps, delta)-DP with

        eps = log(1 + (E - 1)/(E + 1) (8 sqrt(log(4/delta)/(n p)) + 8/(n p))),
        E = e^eps0,  p = 2/(E + 1),

    under the hypothesis ``eps0 <= log(n/(8 log(2/delta)) - 1)`` (:func:`fmt_eps0_max`).

    Returns the exact SymPy expression (symbols allowed: the hypothesis is then checked with
    three-valued logic and refused only where it definitely fails), or with ``dps`` its
    certified :class:`~tradeoff_algebra.numeric.value.Value`. Outside the hypothesis:
    ``InvalidParameter`` naming eps0 (or n, when no eps0 qualifies), unless ``fallback`` is
    True, which returns eps0 itself -- the local guarantee survives shuffling, and it is what
    Wang et al.'s Table 2 prints for [23] where the hypothesis fails. ``0 < delta <= 1``.
    """
    owner = "fmt_epsilon"
    fallback = flag("fallback", fallback, owner)
    e0, m = _params(owner, eps0, n)
    d = _delta_param(owner, delta)
    if not _check_hypothesis(owner, e0, m, d):
        if not fallback:
            raise _refuse_eps0(owner, e0, m, d)
        out = e0
    else:
        E = sp.exp(e0)
        np_ = _np(e0, m)
        out = sp.log(1 + (E - 1) / (E + 1) * (8 * sp.sqrt(sp.log(4 / d) / np_) + 8 / np_))
    return out if dps is None else _value(out, dps, owner, eps0=e0, n=m, delta=d)


def _eps_floor(e0: sp.Expr, n: sp.Expr) -> sp.Expr:
    """The limit of the closed form as delta -> oo formally: ``log(1 + (E-1)/(E+1) 8/(n p))``;
    the closed form is above it for every delta <= 1, so no delta is certified at or below."""
    E = sp.exp(e0)
    return sp.log(1 + (E - 1) / (E + 1) * 8 / _np(e0, n))


@budget.deadline(lambda a: f"fmt_delta({short(a['eps0'])}, {short(a['n'])}, {short(a['eps'])})")
def fmt_delta(eps0: Any, n: Any, eps: Any, *, dps: int | None = None) -> sp.Expr | Value:
    """delta of Feldman, McMillan & Talwar, Thm. 3.2 (SODA 2023), at a given eps: the smallest
    delta whose closed-form eps (:func:`fmt_epsilon`) is at most eps and which meets the
    hypothesis,

        delta = max(4 exp(-n p x^2/64), 2 exp(-n p/16)),
        x = (e^eps - 1)(E + 1)/(E - 1) - 8/(n p),  E = e^eps0,  p = 2/(E + 1)

    (the closed form solved for delta; the second term is the smallest delta the hypothesis
    ``n p >= 16 log(2/delta)`` allows); 1 where the closed form exceeds 1 (no guarantee). For
    eps0 = 0 the closed form is eps = 0 at every delta, so delta = 2 exp(-n/16). This is the
    form behind Wang et al.'s Table 1 row for [23].

    Refused (``InvalidParameter``): eps at or below ``log(1 + (E - 1)/(E + 1) 8/(n p))``, where
    the theorem certifies no delta; eps0 above the hypothesis at delta = 1 (no delta
    qualifies). Exact SymPy expression, or with ``dps`` a certified Value.
    """
    owner = "fmt_delta"
    e0, m = _params(owner, eps0, n)
    e = param("eps", eps, lower=0, owner=owner)
    if not _check_hypothesis(owner, e0, m, sp.S.One):
        raise _refuse_eps0(owner, e0, m, sp.S.One)
    np_ = _np(e0, m)
    d_min = 2 * sp.exp(-np_ / 16)
    E = sp.exp(e0)
    if e0.is_zero is True:
        out = d_min
    else:
        floor = _eps_floor(e0, m)
        if fuzzy_gt(e, floor) is False:
            raise InvalidParameter(
                "eps", e, f"> log(1 + (E - 1)/(E + 1) 8/(n p)) = {_short(floor)} at eps0 = "
                          f"{_short(e0)}, n = {m}", owner,
                "At or below it Feldman, McMillan & Talwar's Thm. 3.2 certifies no delta")
        x = (sp.exp(e) - 1) * (E + 1) / (E - 1) - 8 / np_
        closed = 4 * sp.exp(-np_ * x**2 / 64)
        # closed <= d_min exactly when x^2 >= 4 + 64 log(2)/(n p); with n p >= 16 log 2 (the
        # hypothesis at delta = 1) x^2 >= 8 suffices, and eps >= 2 gives x >= e^2 - 1 -
        # 8/(16 log 2) > 5.6: the floor, without evaluating exp(-exp(eps)^2) (eps = 10^400
        # overflowed mpmath)
        if _decided(lambda: fuzzy_ge(e, 2)) is True and \
                _decided(lambda: fuzzy_ge(np_, 16 * sp.log(2))) is True:
            out = d_min
        else:
            out = _clamp(closed, d_min)
    return out if dps is None else _value(out, dps, owner, eps0=e0, n=m, eps=e)


def _decided(cond) -> bool | None:
    """A three-valued comparison; one SymPy cannot evaluate (``exp(-exp(10**400))``: mpmath
    overflows) is undecided."""
    try:
        return cond()
    except Exception:
        return None


def _clamp(closed: sp.Expr, d_min: sp.Expr) -> sp.Expr:
    """``min(1, max(closed, d_min))``, the comparisons decided where they can be."""
    low = _decided(lambda: fuzzy_ge(closed, d_min))
    out = closed if low is True else d_min if low is False else _unevaluated(sp.Max, closed,
                                                                             d_min)
    high = _decided(lambda: fuzzy_le(out, 1))
    return out if high is True else sp.S.One if high is False else _unevaluated(sp.Min, 1, out)


def _unevaluated(op, *args) -> sp.Expr:
    """``op(*args)``, left unevaluated where SymPy's simplification of it fails."""
    try:
        return op(*args)
    except Exception:
        return op(*args, evaluate=False)


# -- as a trade-off expression ------------------------------------------------------------------
def fmt_tradeoff(eps0: Any, n: Any, deltas: Any) -> TradeOff:
    """The f-DP guarantee implied by Feldman, McMillan & Talwar, Thm. 3.2 (SODA 2023) at the
    given deltas: ``Max(EpsDelta(fmt_epsilon(eps0, n, d), d) for d in deltas)``.

    (eps, delta)-DP at each delta_i is f_{eps_i,delta_i}-DP (Dong, Roth & Su, Prop. 3), and
    holding them all is max_i f_{eps_i,delta_i}-DP (Prop. 5). A **lower bound** on the exact
    shuffle trade-off ``ShuffleDP(eps0, n)`` (it is T(P, Q) of the pair that FMT's proof
    bounds) wherever the theorem holds; every delta must meet the hypothesis
    (``InvalidParameter`` otherwise, naming eps0). ``deltas``: one number or an iterable of
    numbers in (0, 1]; Wang et al.'s Fig. 1 uses the single delta = n^-1.5.
    """
    owner = "fmt_tradeoff"
    ds = [deltas] if not isinstance(deltas, Iterable) or isinstance(deltas, str) \
        or getattr(deltas, "ndim", None) == 0 \
        else items("deltas", deltas, "one delta in (0, 1] or a sequence of them", owner)
    if not ds:
        raise InvalidParameter("deltas", deltas, "at least one delta in (0, 1]", owner)
    parts = []
    for i, d in enumerate(ds):
        dd = _delta_param(owner, d, "deltas" if len(ds) == 1 and d is deltas else f"deltas[{i}]")
        try:
            parts.append(EpsDelta(fmt_epsilon(eps0, n, dd), dd))
        except InvalidParameter as exc:
            raise InvalidParameter(exc.name, exc.value, exc.allowed, owner, exc.hint) from None
    return Max(*parts)
