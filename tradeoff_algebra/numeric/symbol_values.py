"""A trade-off symbol has no numbers: every numeric dispatch point refuses it by name.

``TradeOffSymbol("f")`` (:mod:`tradeoff_algebra.core.symbol`) stands for an arbitrary trade-off
function (Dong, Roth & Su, Def. 2). Its value, ROC, privacy profile, conjugate, privacy loss
and knots do not exist, so each dispatch point of :mod:`.protocol`, :mod:`.privacy_loss` and
:mod:`.knots` raises :class:`~tradeoff_algebra.core.errors.NoClosedForm` naming the symbol and
saying how to get a number (substitute a concrete trade-off function) — rather than the generic
"no numeric evaluation is available for this node yet".
"""

from __future__ import annotations

from ..core.symbol import TradeOffSymbol, check_no_symbol
from .protocol import (
    arb_delta,
    arb_value,
    exact_value,
    mp_conjugate,
    mp_curve,
    mp_delta,
    mp_epsilon,
    mp_roc,
    mp_value,
    np_value,
)

__all__: list[str] = []


def _refuse(what: str):
    def refuse(f: TradeOffSymbol, *args):
        check_no_symbol(f, what)

    return refuse


for _point, _what in ((mp_value, "the value"), (mp_roc, "the ROC value"),
                      (exact_value, "the exact value"), (arb_value, "the certified value"),
                      (np_value, "the float64 curve"), (mp_curve, "the curve"),
                      (mp_conjugate, "the convex conjugate"), (mp_delta, "delta(eps)"),
                      (arb_delta, "delta(eps)"), (mp_epsilon, "eps(delta)")):
    _point.register(TradeOffSymbol)(_refuse(_what))
