"""The capability protocol of a family (docs/architecture.md, "Adding a family").

A family is one module of ``families/``: its node class, whose methods give the closed form
(``_eval_at``), the fixed point (``_eval_fixed_point``) and the notation (``_sympystr``,
``_latex``), and its registrations with the dispatch points of the protocol, each of which
answers one question about a node. The generic layers (analysis, verify, routes) ask through
these points and never name a family; a point's default is the generic answer (from the
node's finite representation where it has one) or None ("not known here").

The points defined here are the symbolic ones and the two that feed quadrature; the numeric
ones live beside the code that uses them (:mod:`.protocol`: values, ROC, conjugate, privacy
profile; :mod:`.knots`, :mod:`.finite`, :mod:`.privacy_loss`: exact representations and the
privacy loss; :mod:`.renyi_orders`: Renyi divergences at many orders as Arb programs).
:data:`CAPABILITIES` lists them all, and :func:`implemented` says which of them
a node class provides: ``tests/test_capabilities.py`` prints the table of families against
capabilities and checks every entry against a reference computed from the family's values.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import singledispatch, update_wrapper
from typing import Any

import sympy as sp

from ..core import trace
from ..core.errors import NoClosedForm
from ..core.node import TradeOff
from .finite import finite_loss
from .knots import pl_knots
from .privacy_loss import declared_views, delta_part, privacy_loss
from .protocol import (
    arb_delta,
    arb_value,
    exact_ends,
    exact_value,
    mp_conjugate,
    mp_delta,
    mp_epsilon,
    mp_roc,
    mp_value,
    np_value,
)
from .renyi_orders import arb_renyi_orders

__all__ = ["functional_form", "renyi_form", "profile_form", "gdp_mu_form", "monotonicity",
           "log_slope", "kinks", "gaussian_form", "CAPABILITIES", "implemented", "FUNCTIONALS"]

#: The functionals of Dong, Roth & Su (Sec. 3.2, Thm. 11, Prop. 6) and Kaissis et al. (AUC)
#: that :func:`functional_form` answers for.
FUNCTIONALS = ("kl", "kappa2", "kappa3", "kappa3_bar", "chi2_plus", "tv", "auc")
_MOMENTS = ("kl", "kappa2", "kappa3", "kappa3_bar", "chi2_plus")


def _closed_form_point(kind: str) -> Callable[[Callable], Any]:
    """A dispatch point whose answer is a closed form the library substitutes: a
    ``singledispatch`` on the node whose every non-None answer is recorded in the basis
    (``core.trace``: the event ``("closed form", kind, node, name)``, ``name`` the functional's
    or ``"delta"``)."""
    def wrap(fn: Callable) -> Any:
        point = singledispatch(fn)

        def call(f: Any, arg: Any) -> Any:
            out = point(f, arg)
            if out is not None and trace.recording_basis():
                trace.used(("closed form", kind, f, arg if kind == "functional" else kind))
            return out
        update_wrapper(call, fn)
        call.register, call.dispatch, call.registry = (point.register, point.dispatch,
                                                       point.registry)
        return call
    return wrap


# -- symbolic -----------------------------------------------------------------------------------
@_closed_form_point("functional")
def functional_form(f: Any, name: str) -> sp.Expr | None:
    """The closed form of the functional ``name`` (one of :data:`FUNCTIONALS`) at ``f`` as a
    SymPy expression, or None. Default: the moments of a finite representation exactly, and
    ``tv = 1 - 2 x*`` for a symmetric f with a closed-form fixed point x*."""
    fl = finite_loss(f)
    if fl is not None and name in _MOMENTS:
        return _finite_moment(fl, name)
    if name == "tv" and f.is_symmetric:
        try:
            return sp.S.One - 2 * f.fixed_point()
        except NoClosedForm:
            return None
    return None


def _finite_moment(fl, name: str) -> sp.Expr | None:
    """The moments of l = log(dQ/dP) under P for a finite pair, exactly: kl additively over the
    factors, the others from the atoms (``(ratio, P-mass, Q-mass)``; atoms without P-mass
    carry no weight in the integrals over [0, 1], atoms without Q-mass give l = -oo)."""
    if name == "kl":
        total = sp.S.Zero
        for pairs, m in fl.leaves():
            for p, q in pairs:
                if p != 0:
                    total += m * (sp.oo if q == 0 else p * sp.log(p / q))
        return total
    if not fl.affordable():
        return None
    atoms = [(r, p) for r, p, _ in fl.atoms() if p != 0]
    if name == "chi2_plus":
        return sp.Add(*[p * (r - 1) ** 2 for r, p in atoms if r > 1])
    if any(r == 0 for r, _ in atoms):
        return sp.oo
    ls = [(sp.log(r), p) for r, p in atoms]
    if name == "kappa2":
        return sp.Add(*[p * l**2 for l, p in ls])
    if name == "kappa3":
        return sp.Add(*[p * abs(l) ** 3 for l, p in ls])
    k = -sp.Add(*[p * l for l, p in ls])
    return sp.Add(*[p * abs(l + k) ** 3 for l, p in ls])


def _finite_sum(pairs, a) -> sp.Expr | None:
    """D_a of one finite pair from its (P-mass, Q-mass) list."""
    if a is sp.oo:
        rs = [p / q for p, q in pairs if p != 0 and q != 0]
        if any(q == 0 and p != 0 for p, q in pairs):
            return sp.oo
        return sp.log(sp.Max(*rs)) if rs else sp.S.Zero
    if any(q == 0 and p != 0 for p, q in pairs):
        gt = sp.Gt(a, 1)
        if gt is sp.true:
            return sp.oo
        if gt is not sp.false:
            return None  # the case split is not decided for a symbolic order
    s = sum((p**a * q**(1 - a) for p, q in pairs if p != 0 and q != 0), sp.S.Zero)
    return sp.log(s) / (a - 1)


@singledispatch
def renyi_form(f: Any, a: sp.Expr) -> sp.Expr | None:
    """D_a(P || Q) for f = T(P, Q) as a SymPy expression (a != 1; ``a = oo`` the max
    divergence), or None. Default: the sum over the factors of a finite representation
    (Renyi divergences add over product pairs, van Erven & Harremoes 2014, Thm. 28)."""
    fl = finite_loss(f)
    if fl is None:
        return None
    total = sp.S.Zero
    for pairs, m in fl.leaves():
        d = _finite_sum(pairs, a)
        if d is None:
            return None
        total += m * d
    return total


@_closed_form_point("delta")
def profile_form(f: Any, eps: sp.Expr) -> sp.Expr | None:
    """The privacy profile delta_f(eps) = 1 + f^*(-e^eps) (Dong, Roth & Su, Prop. 6) as a SymPy
    expression in the parameters, or None (no form, or its case split is not decided for every
    parameter value by SymPy's assumptions)."""
    return None


@singledispatch
def gdp_mu_form(f: Any) -> sp.Expr | None:
    """The smallest mu with f >= G_mu (Dong, Roth & Su, Def. 4) in closed form, or None."""
    return None


@singledispatch
def monotonicity(f: Any) -> tuple | str | None:
    """How each argument of the node moves the function: a tuple with +1 (non-decreasing) or -1
    (non-increasing) per argument, ``"all+"`` for an operator monotone in every operand, or
    None (not known). Used by :func:`~tradeoff_algebra.verify.monotone.dominates`."""
    return None


@singledispatch
def gaussian_form(f: Any) -> sp.Expr | None:
    """``mu`` when ``f`` is G_mu itself (Dong, Roth & Su, Def. 3: T(N(0, 1), N(mu, 1))), else
    None: the results stated for G_mu under an operator (the sampled Gaussian's moments and
    Renyi divergences) ask it instead of naming the family."""
    return None


# -- numeric, for quadrature --------------------------------------------------------------------
@singledispatch
def log_slope(f: Any, a, ac):
    """log|f'(alpha)| (the right derivative at kinks) at the current mpmath precision, from
    alpha and 1 - alpha; ``-inf`` where f' = 0. The integrand of every functional: l(x) has the
    law of log dQ/dP under P for x uniform on [0, 1] (:mod:`..analysis.functionals`)."""
    raise NoClosedForm(f"{type(f).__name__}: no numeric log-slope for quadrature")


@singledispatch
def kinks(f: Any) -> list:
    """The points of (0, 1) where f' jumps (mpf at the current precision), where quadrature
    splits its interval."""
    return []


# -- the table ----------------------------------------------------------------------------------
def _method(name: str) -> Callable[[type], bool]:
    return lambda cls: getattr(cls, name, None) is not getattr(TradeOff, name, None)


def _dispatch(point) -> Callable[[type], bool]:
    default = point.dispatch(object)
    return lambda cls: point.dispatch(cls) is not default


def _view(name: str) -> Callable[[type], bool]:
    return lambda cls: name in declared_views(cls)


#: Every capability a family may provide: name -> (test whether a node class provides it,
#: what it answers). A family provides a capability by defining the method or registering
#: with the dispatch point in its own module.
CAPABILITIES: dict[str, tuple[Callable[[type], bool], str]] = {
    "closed_form": (_method("_eval_at"), "f(alpha) as a SymPy expression"),
    "fixed_point": (_method("_eval_fixed_point"), "the alpha with f(alpha) = alpha"),
    "latex": (_method("_latex"), "the papers' notation"),
    "exact": (_dispatch(exact_value), "rational f(alpha) at a rational alpha"),
    "ends": (_dispatch(exact_ends), "f(0) = 1 - Q(P = 0) and f^{-1}(0) = 1 - P(Q = 0) exactly"),
    "arb": (_dispatch(arb_value), "an Arb ball of f(alpha) and 1 - f(alpha)"),
    "arb_delta": (_dispatch(arb_delta), "an Arb ball of delta(eps)"),
    "value": (_dispatch(mp_value), "an mpmath enclosure of f(alpha)"),
    "roc": (_dispatch(mp_roc), "1 - f(alpha) without cancellation"),
    "float": (_dispatch(np_value), "vectorised float64 f"),
    "conjugate": (_dispatch(mp_conjugate), "the convex conjugate f^*(y)"),
    "delta": (_dispatch(mp_delta), "the privacy profile delta(eps)"),
    "epsilon": (_dispatch(mp_epsilon), "its inverse eps(delta)"),
    "profile_form": (_dispatch(profile_form), "delta(eps) as a SymPy expression"),
    "functional": (_dispatch(functional_form), "kl, kappas, chi2_plus, tv, auc closed forms"),
    "renyi": (_dispatch(renyi_form), "D_a(P || Q) as a SymPy expression"),
    "renyi_orders": (_dispatch(arb_renyi_orders), "D_a(P || Q) at many orders in Arb, no SymPy"),
    "gdp_mu": (_dispatch(gdp_mu_form), "the smallest GDP mu in closed form"),
    "gaussian": (_dispatch(gaussian_form), "mu when f is G_mu itself"),
    "monotone": (_dispatch(monotonicity), "the direction of each parameter"),
    "log_slope": (_dispatch(log_slope), "log|f'| for quadrature"),
    "kinks": (_dispatch(kinks), "where f' jumps"),
    "knots": (_dispatch(pl_knots), "exact knots of a piecewise-linear f"),
    "loss": (_dispatch(privacy_loss), "a privacy loss (numeric.privacy_loss), in the views:"),
    "finite": (_view("exact"), "its exact finite atoms"),
    "grid": (_view("grid"), "its float distribution functions for the PLD grid"),
    "cf": (_view("law"), "its Arb law for the certified Laplace inversion"),
    "delta_part": (_dispatch(delta_part), "the f_{0,delta} factor split off"),
}


def implemented(cls: type) -> frozenset[str]:
    """The capabilities (keys of :data:`CAPABILITIES`) that the node class ``cls`` provides."""
    return frozenset(name for name, (has, _) in CAPABILITIES.items() if has(cls))
