"""Symbolic closed forms of the privacy profile delta_f(eps) = 1 + f^*(-e^eps), for rewriting.

These are the formulas that :mod:`.profiles` evaluates numerically, as SymPy expressions in the
parameters, so that a claim about ``ta.delta(G(mu), eps)`` can be decided by simplification
(``ta.verify`` expands a :class:`~.lazy.Functional` ``delta`` with :func:`delta_form`). A form is
returned only where its case split is decided for every parameter value (SymPy's assumptions);
otherwise None. ``tests/test_verify.py`` checks each form against the certified numeric profile.

* G_mu, mu > 0 (Dong, Roth & Su, Cor. 1): Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2).
* L_mu (module :mod:`.profiles`): 1 - e^{(eps - mu)/2} for eps <= mu, 0 for eps >= mu.
* f_{eps0,delta0} (Eq. (5)): delta0 for eps >= eps0,
  1 - (1 - delta0)(1 + e^eps)/(1 + e^eps0) for eps <= eps0.
* Id: 0. Zero: 1.
"""

from __future__ import annotations

import sympy as sp

from ..core.normal import Phi
from ..families.epsdelta import EpsDelta
from ..families.gaussian import Gaussian
from ..families.laplace import Laplace
from ..families.trivial import IdTradeOff, ZeroTradeOff

__all__ = ["delta_form"]


def _decided(rel: sp.Basic) -> bool | None:
    """True/False when the relation is decided for all parameter values, else None."""
    if rel in (sp.true, sp.false):
        return bool(rel)
    return None


def delta_form(f: sp.Basic, eps: sp.Expr) -> sp.Expr | None:
    """delta_f(eps) as a SymPy expression, or None (no form, or the case is not decided)."""
    eps = sp.sympify(eps)
    if isinstance(f, IdTradeOff):
        return sp.Integer(0)
    if isinstance(f, ZeroTradeOff):
        return sp.Integer(1)
    if isinstance(f, Gaussian):
        mu = f.args[0]
        if mu.is_positive is not True:
            return None
        return Phi(-eps / mu + mu / 2) - sp.exp(eps) * Phi(-eps / mu - mu / 2)
    if isinstance(f, Laplace):
        mu = f.args[0]
        if _decided(sp.Ge(eps, mu)) is True:
            return sp.Integer(0)
        if _decided(sp.Le(eps, mu)) is True:
            return 1 - sp.exp((eps - mu) / 2)
        return None
    if isinstance(f, EpsDelta):
        e0, d0 = f.args
        if _decided(sp.Ge(eps, e0)) is True:
            return d0
        if _decided(sp.Le(eps, e0)) is True:
            return 1 - (1 - d0) * (1 + sp.exp(eps)) / (1 + sp.exp(e0))
        return None
    return None
