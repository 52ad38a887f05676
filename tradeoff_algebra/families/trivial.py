"""The two extreme trade-off functions: Id (perfect privacy) and Zero (blatant non-privacy).

Dong, Roth & Su, Sec. 2.1: ``Id(alpha) = 1 - alpha`` is the trade-off of identical distributions,
the unit of the tensor product (Sec. 3.1, the properties after Def. 5); ``0`` is the
trade-off of mutually singular ones.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from ..core.node import TradeOff
from ..numeric.capability import (
    functional_form,
    gdp_mu_form,
    log_slope,
    profile_form,
    renyi_form,
)
from ..numeric.context import mp
from ..numeric.finite import FiniteLoss
from ..numeric.knots import pl_knots
from ..numeric.privacy_loss import delta_part, loss_views, privacy_loss
from ..numeric.protocol import exact_value, mp_delta, mp_epsilon, mp_roc, mp_value, np_value
from ..numeric.value import CertifiedPair

__all__ = ["IdTradeOff", "ZeroTradeOff", "Id", "Zero"]


class IdTradeOff(TradeOff):
    """Id(alpha) = 1 - alpha: perfect privacy (use the instance ``Id``)."""

    def __new__(cls):
        return TradeOff.__new__(cls)

    @property
    def is_symmetric(self) -> bool:
        return True

    def _eval_at(self, alpha):
        return 1 - alpha

    def _eval_fixed_point(self):
        return sp.S.Half

    def _sympystr(self, printer):
        return "Id"

    def _latex(self, printer):
        return r"\mathrm{Id}"


class ZeroTradeOff(TradeOff):
    """The zero trade-off function: blatant non-privacy (use the instance ``Zero``)."""

    def __new__(cls):
        return TradeOff.__new__(cls)

    @property
    def is_symmetric(self) -> bool:
        return True

    def _eval_at(self, alpha):
        return sp.S.Zero

    def _eval_fixed_point(self):
        return sp.S.Zero

    def _sympystr(self, printer):
        return "Zero"

    def _latex(self, printer):
        return "0"


Id = IdTradeOff()
Zero = ZeroTradeOff()


@exact_value.register(IdTradeOff)
def _(f, A, Ac):
    return Ac


@exact_value.register(ZeroTradeOff)
def _(f, A, Ac):
    return sp.S.Zero


@mp_value.register(IdTradeOff)
def _(f, a, ac):
    return ac, ac


@mp_roc.register(IdTradeOff)
def _(f, a, ac):
    return a, a


@mp_value.register(ZeroTradeOff)
def _(f, a, ac):
    return mp.zero, mp.zero


@mp_roc.register(ZeroTradeOff)
def _(f, a, ac):
    return mp.one, mp.one


@np_value.register(IdTradeOff)
def _(f, x):
    return 1.0 - x


@np_value.register(ZeroTradeOff)
def _(f, x):
    return np.zeros_like(x)


# -- convex conjugates (Dong, Roth & Su, Eq. (7)) -----------------------------------------------
def _register_trivial_conjugates() -> None:
    from ..numeric.protocol import mp_conjugate

    @mp_conjugate.register(IdTradeOff)
    def _(f, y):
        """Id^*(y) = sup_alpha {(y + 1) alpha - 1} = max{y, -1}."""
        v = max(y, -mp.one)
        return v, v

    @mp_conjugate.register(ZeroTradeOff)
    def _(f, y):
        """0^*(y) = sup_alpha {y alpha} = max{y, 0}."""
        v = max(y, mp.zero)
        return v, v


_register_trivial_conjugates()


# -- finite representation, knots and the f_{0,delta} part (numeric.finite, .envelope, .pld) -----
@privacy_loss.register(IdTradeOff)
@loss_views("grid", "exact")
def _(f):
    """Id = T(P, P): the empty product."""
    return FiniteLoss()


@privacy_loss.register(ZeroTradeOff)


@loss_views("grid", "exact")
def _(f):
    """0 = T(P, Q) with P, Q mutually singular."""
    return FiniteLoss.pair([1, 0], [0, 1])


pl_knots.register(IdTradeOff)(lambda f: ((sp.S.Zero, sp.S.One), (sp.S.One, sp.S.Zero)))
pl_knots.register(ZeroTradeOff)(lambda f: ((sp.S.Zero, sp.S.Zero), (sp.S.One, sp.S.Zero)))
delta_part.register(IdTradeOff)(lambda f: (None, 0))


# -- privacy profile, functionals, divergences ----------------------------------------------------
# Id = T(P, P): delta = 0, every divergence 0, AUC 1/2. Zero = T(P, Q) with P, Q mutually
# singular: delta = 1, f' = 0 (log|f'| = -oo, so the log-moments are +oo), TV = AUC = 1.
@mp_delta.register(IdTradeOff)
def _(f, eps):
    return mp.zero, mp.zero


@mp_epsilon.register(IdTradeOff)
def _(f, d):  # delta = 0 everywhere: eps(d) = 0 exactly
    return CertifiedPair(mp.zero, mp.zero)


@mp_delta.register(ZeroTradeOff)
def _(f, eps):
    return mp.one, mp.one


@mp_epsilon.register(ZeroTradeOff)
def _(f, d):
    # delta = 1 everywhere: eps(d) = 0 for d >= 1 and +oo below, exactly
    return CertifiedPair(mp.zero, mp.zero) if d >= 1 else CertifiedPair(mp.inf, mp.inf)


@profile_form.register(IdTradeOff)
def _(f, eps):
    return sp.Integer(0)


@profile_form.register(ZeroTradeOff)
def _(f, eps):
    return sp.Integer(1)


@functional_form.register(IdTradeOff)
def _(f, name):
    return sp.S.Half if name == "auc" else sp.S.Zero


@functional_form.register(ZeroTradeOff)
def _(f, name):
    # (|f'| - 1)_+ = 0; TV = 1; the ROC curve is 1; the log-moments are +oo.
    return {"tv": sp.S.One, "auc": sp.S.One, "chi2_plus": sp.S.Zero}.get(name, sp.oo)


@log_slope.register(IdTradeOff)
def _(f, a, ac):
    return mp.zero


@log_slope.register(ZeroTradeOff)
def _(f, a, ac):
    return mp.ninf


@renyi_form.register(IdTradeOff)
def _(f, a):
    return sp.S.Zero


@renyi_form.register(ZeroTradeOff)
def _(f, a):
    return sp.oo


@gdp_mu_form.register(IdTradeOff)
def _(f):
    return sp.S.Zero


@gdp_mu_form.register(ZeroTradeOff)
def _(f):
    return sp.oo
