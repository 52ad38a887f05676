"""Subsampling and mixing with the identity.

* ``Mix(f, p)``: f_p = p f + (1 - p) Id (Dong, Roth & Su, Sec. 4.1 / Eq. (13)), the trade-off
  of sampling with probability p under one of the two directions.
* ``Subsample(f, p)`` = ``C(p, f)``: C_p(f) = min{f_p, f_p^{-1}}^{**} (Dong, Roth & Su, Def. 6),
  the subsampling operator of Thm. 9.
"""

from __future__ import annotations

from typing import Any

from ..core.node import PREC_ATOM, TradeOff, register_operator
from ..core.validate import param
from ._base import operand

__all__ = ["Mix", "Subsample", "C"]


@register_operator
class Mix(TradeOff):
    """f_p = p f + (1 - p) Id, 0 <= p <= 1 (Dong, Roth & Su, Sec. 4.1)."""

    def __new__(cls, f: Any, p: Any):
        f = operand(f, "Mix")
        p = param("p", p, lower=0, upper=1, owner="Mix")
        return TradeOff.__new__(cls, f, p)

    @property
    def arg(self) -> TradeOff:
        return self.args[0]

    @property
    def p(self):
        return self.args[1]

    def _eval_at(self, alpha):
        v = self.arg._eval_at(alpha)
        return None if v is None else self.p * v + (1 - self.p) * (1 - alpha)

    def _latex(self, printer):
        return r"%s_{%s}" % (self._latex_parens(printer, self.arg, PREC_ATOM + 1),
                             printer._print(self.p))


@register_operator
class Subsample(TradeOff):
    """C_p(f) = min{f_p, f_p^{-1}}^{**}, 0 <= p <= 1 (Dong, Roth & Su, Def. 6)."""

    def __new__(cls, f: Any, p: Any):
        f = operand(f, "Subsample")
        p = param("p", p, lower=0, upper=1, owner="Subsample")
        return TradeOff.__new__(cls, f, p)

    @property
    def arg(self) -> TradeOff:
        return self.args[0]

    @property
    def p(self):
        return self.args[1]

    @property
    def is_symmetric(self) -> bool:
        return True

    def _sympystr(self, printer):
        return "C(%s, %s)" % (printer._print(self.p), printer._print(self.arg))

    def _latex(self, printer):
        return r"C_{%s}\left(%s\right)" % (printer._print(self.p), printer._print(self.arg))


def C(p: Any, f: Any) -> Subsample:
    """The papers' notation C_p(f) for ``Subsample(f, p)``."""
    return Subsample(f, p)


# -- rewrite rules (applied by ``simplify``; see tradeoff_algebra.rewrite) ---------------------
# Dong, Roth & Su, Sec. 4.1: f_p = p f + (1 - p) Id (before Def. 6), C_p(f) = min{f_p,
# f_p^{-1}}^{**} (Def. 6), the facts listed after Thm. 9, Eq. (13) and Cor. 3 / Eq. (14).
# Eq. (14) is misprinted: see ``subsample_epsdelta`` and proofs/drs_counterexamples.md.

import sympy as sp  # noqa: E402

from ..core.citations import DRS  # noqa: E402
from ..core.rules import rule  # noqa: E402
from ..families.epsdelta import EpsDelta  # noqa: E402
from ..families.trivial import Id, Zero  # noqa: E402
from .maxgroup import Max  # noqa: E402
from .unary import SymmetricHull  # noqa: E402

_MIX = DRS.sec("4.1", note="f_p = p f + (1 - p) Id")


@rule(Mix, cite=_MIX, priority=100)
def mix_one(f: Mix):
    """f_1 = f."""
    return f.arg if (f.p - 1).is_zero is True else None


@rule(Mix, cite=_MIX, priority=100)
def mix_zero(f: Mix):
    """f_0 = Id."""
    return Id if f.p.is_zero is True else None


@rule(Mix, cite=_MIX, priority=95)
def mix_id(f: Mix):
    """Id_p = p Id + (1 - p) Id = Id."""
    return Id if f.arg == Id else None


@rule(Mix, cite=_MIX, priority=90)
def mix_mix(f: Mix):
    """(f_p)_q = q (p f + (1-p) Id) + (1-q) Id = (pq) f + (1 - pq) Id = f_{pq}."""
    return Mix(f.arg.arg, f.arg.p * f.p) if isinstance(f.arg, Mix) else None


@rule(Subsample, cite=DRS.defn(6, note="p = 0: f_0 = Id"), priority=100)
def subsample_zero(f: Subsample):
    """C_0(f) = min{Id, Id^{-1}}^{**} = Id (fact 1 after Thm. 9)."""
    return Id if f.p.is_zero is True else None


@rule(Subsample, cite=DRS.at("Sec. 4.1, fact 3 after Thm. 9"), priority=100)
def subsample_id(f: Subsample):
    """C_p(Id) = Id: Id_p = Id, and min{Id, Id}^{**} = Id."""
    return Id if f.arg == Id else None


@rule(Subsample, cite=DRS.at("Sec. 4.1, fact 1 after Thm. 9", note="f symmetric"),
      priority=95)
def subsample_one_symmetric(f: Subsample):
    """C_1(f) = f for symmetric f (fact 1; it needs the symmetry).

    C_1(f) = min{f, f^{-1}}^{**}, which is f when f = f^{-1} (f is convex). Only when
    ``f.is_symmetric`` is True; see ``subsample_one`` for the general case.
    """
    return f.arg if (f.p - 1).is_zero is True and f.arg.is_symmetric is True else None


@rule(Subsample, cite=DRS.defn(6, note="p = 1: f_1 = f; the hull is Wang et al.'s C(f)"),
      priority=90)
def subsample_one(f: Subsample):
    """C_1(f) = min{f, f^{-1}}^{**} = SymmetricHull(f) for every trade-off function f.

    Fact 1 after Thm. 9 states C_1(f) = f for symmetric f only. For asymmetric f the two
    differ: f(alpha) = max{0, 1 - 4 alpha} = T((3/4, 1/4), (0, 1)) has f^{-1}(alpha) =
    (1 - alpha)/4 and C_1(f)(alpha) = max{0, 1/4 - alpha}, so C_1(f)(1/8) = 1/8 while
    f(1/8) = 1/2.
    """
    return SymmetricHull(f.arg) if (f.p - 1).is_zero is True else None


@rule(Subsample, cite=DRS.at("Eq. (13)", note="f = 0, fixed point 0"), priority=80)
def subsample_zero_function(f: Subsample):
    """C_p(0) = f_{0,p}: by Eq. (13) with x* = 0, C_p(0)(x) = 1 - p - x on [0, 1 - p], then 0.

    (Also Eq. (14) at delta = 1 once corrected.) Checked against the exact convex envelope of
    min{0_p, 0_p^{-1}}.
    """
    return EpsDelta(0, f.p) if f.arg == Zero else None


@rule(Subsample, cite=DRS.at("Cor. 3, Eq. (14)", note="corrected: the linear piece is "
                             "1 - p(e^eps - 1 + 2 delta)/(e^eps + 1) - alpha"), priority=70)
def subsample_epsdelta(f: Subsample):
    """C_p(f_{eps,delta}) = max{f_{eps',delta'}, f_{0,c}} with (corrected Eq. (14))

        eps' = log(1 - p + p e^eps),  delta' = p delta,
        c = p (e^eps - 1 + 2 delta) / (e^eps + 1),

    the linear piece of Eq. (13), x* + f_p(x*) - alpha at the fixed point
    x* = (1 - delta)/(1 + e^eps) of f_{eps,delta}, being 1 - c - alpha = f_{0,c}(alpha) where
    it matters.

    The paper prints the linear piece as 1 - p delta - p (e^eps - 1)/(e^eps + 1) - alpha, i.e.
    c = p delta + p (e^eps - 1)/(e^eps + 1); that is correct only for delta = 0 or eps = 0 and
    otherwise too small (still a valid lower bound, not the identity). Counterexample:
    eps = log 3, delta = 1/2, p = 1/2, alpha = 1/4: the exact lower convex envelope of
    min{f_p, f_p^{-1}} gives C_p(f)(1/4) = 3/8 (= the corrected form), the printed Eq. (14)
    gives 1/4. See proofs/drs_counterexamples.md.
    """
    g = f.arg
    if not isinstance(g, EpsDelta):
        return None
    p, e, d = f.p, sp.exp(g.eps), g.delta
    main = EpsDelta(sp.log(1 - p + p * e), p * d)
    line = EpsDelta(0, p * (e - 1 + 2 * d) / (e + 1))
    return Max(main, line)



# -- numerics of f_p = p f + (1 - p) Id: each term is monotone in f's value (0 <= p <= 1) --------
def _register_mix_numerics() -> None:
    from ..numeric.protocol import exact_value, mp_roc, mp_value, np_value, num

    @mp_value.register(Mix)
    def _(f, a, ac):
        p = num(f.p, "p")
        lo, hi = mp_value(f.arg, a, ac)
        return p * lo + (1 - p) * ac, p * hi + (1 - p) * ac

    @mp_roc.register(Mix)
    def _(f, a, ac):
        # 1 - f_p(alpha) = p (1 - f(alpha)) + (1 - p) alpha
        p = num(f.p, "p")
        lo, hi = mp_roc(f.arg, a, ac)
        return p * lo + (1 - p) * a, p * hi + (1 - p) * a

    @exact_value.register(Mix)
    def _(f, A, Ac):
        if not isinstance(f.p, sp.Rational):
            return None
        v = exact_value(f.arg, A, Ac)
        return None if v is None else f.p * v + (1 - f.p) * Ac

    @np_value.register(Mix)
    def _(f, x):
        p = float(f.p)
        return p * np_value(f.arg, x) + (1 - p) * (1.0 - x)


_register_mix_numerics()
