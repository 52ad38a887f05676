"""Zero-concentrated DP and truncated concentrated DP: notions given by a Renyi curve, which
compose, form groups and bound tails in closed form and convert to (eps, delta) and trade-off
functions through :class:`~.renyi_dp.RDP`.

* ``zCDP(rho, xi=0)``: D_a <= xi + rho a for all a > 1 (Bun & Steinke 2016; Dwork, Def. 4.3).
  ``@``: (xi + xi', rho + rho') (Dwork, Thm. 4.4 (1)); ``group(k)``: k^2 rho for xi = 0
  (Dwork, Remark 4.5).
* ``tCDP(rho, omega)``: D_a <= rho a for a in (1, omega) (Bun, Dwork, Rothblum & Steinke 2018;
  Dwork, Def. 4.5); omega = oo is rho-zCDP. ``@``: (rho + rho', min(omega, omega'))
  (Dwork, Thm. 4.4 (2)); ``group(k)``: (k^2 rho, omega/k) for 1 <= k < omega (Remark 4.5).
"""

from __future__ import annotations

from typing import Any

import sympy as sp
from flint import fmpq

from ..core.errors import InvalidParameter
from ..core.node import TradeOff
from ..core.validate import param
from ..numeric.protocol import expression_value
from ..numeric.value import Value
from .base import Notion
from .renyi_dp import _A, RDP, _dps, _numeric

__all__ = ["zCDP", "tCDP"]


def _fmpq(x: sp.Expr) -> fmpq | None:
    """A SymPy rational as an exact ``fmpq``, else None."""
    return fmpq(int(x.p), int(x.q)) if isinstance(x, sp.Rational) else None


class _RenyiBound(Notion):
    """A notion given by a Renyi curve (zCDP, tCDP): its conversions go through
    :meth:`to_rdp`."""

    def to_rdp(self) -> RDP:  # pragma: no cover - every class overrides
        raise NotImplementedError

    def to_tradeoff(self, orders: Any = None) -> TradeOff:
        """The tightest trade-off function implied at the orders, a RenyiRegion (see
        :meth:`RDP.to_tradeoff`)."""
        return self.to_rdp().to_tradeoff(orders)

    _param_names: tuple = ()

    def epsilon(self, delta: Any, *, method: str = "balle", dps: int = 30) -> Value:
        _numeric(self, f"{type(self).__name__}.epsilon")
        return self.to_rdp().epsilon(delta, method=method, dps=dps)

    def delta(self, eps: Any, *, method: str = "balle", dps: int = 30) -> Value:
        _numeric(self, f"{type(self).__name__}.delta")
        return self.to_rdp().delta(eps, method=method, dps=dps)


class zCDP(_RenyiBound):
    """(xi, rho)-zero-concentrated DP: D_a <= xi + rho a for all a > 1 (Dwork, Def. 4.3)."""

    _param_names = ("rho", "xi")

    def __new__(cls, rho: Any, xi: Any = 0):
        r = param("rho", rho, lower=0, owner="zCDP")
        x = param("xi", xi, lower=0, owner="zCDP")
        return sp.Basic.__new__(cls, r, x)

    @property
    def rho(self) -> sp.Expr:
        return self.args[0]

    @property
    def xi(self) -> sp.Expr:
        return self.args[1]

    def to_rdp(self) -> RDP:
        return RDP(sp.Lambda(_A, self.xi + self.rho * _A))

    def _affine_rdp(self) -> tuple | None:
        """(xi, rho, None): the curve a -> xi + rho a for all a > 1 as exact ``fmpq`` (read at
        many orders at once by ``RDP.of(self, orders)``, no SymPy), None if symbolic."""
        xi, rho = _fmpq(self.xi), _fmpq(self.rho)
        return None if xi is None or rho is None else (xi, rho, None)

    def compose(self, other: Notion) -> Notion:
        """Dwork, Thm. 4.4 (1): (xi + xi', rho + rho')-zCDP; with tCDP or RDP: their RDP sum."""
        if isinstance(other, zCDP):
            return zCDP(self.rho + other.rho, self.xi + other.xi)
        if isinstance(other, tCDP) and self.xi.is_zero:
            return tCDP(self.rho + other.rho, other.omega)
        return self.to_rdp().compose(other)

    def group(self, k: Any) -> zCDP:
        """Dwork, Remark 4.5 (Bun & Steinke 2016, Prop. 27): rho-zCDP gives k^2 rho-zCDP for
        groups of size k (xi = 0)."""
        k = param("k", k, lower=1, integer=True, owner="zCDP.group")
        if not self.xi.is_zero:
            raise InvalidParameter("xi", self.xi, "0 for group privacy", "zCDP.group")
        return zCDP(k**2 * self.rho)

    def epsilon(self, delta: Any, *, method: str = "balle", dps: int = 30) -> Value:
        """eps at delta: ``method="bun_steinke"`` gives xi + rho + 2 sqrt(rho log(1/delta))
        (Bun & Steinke 2016, Prop. 3; = "mironov" at its best order); otherwise the RDP
        conversion at its best order."""
        if isinstance(method, str) and method == "bun_steinke":
            _numeric(self, "zCDP.epsilon")
            d = param("delta", delta, lower=0, upper=1, lower_open=True, owner="zCDP.epsilon",
                      numeric=True)
            dps = _dps(dps, "zCDP.epsilon")
            return expression_value(self.xi + self.rho + 2 * sp.sqrt(self.rho * sp.log(1 / d)),
                                    dps)
        return super().epsilon(delta, method=method, dps=dps)

    def tail_bound(self, t: Any) -> sp.Expr:
        """Dwork, Sec. 4.3, bullet 2: Pr[Z > t + rho] <= e^{-t^2/(4 rho)} for t >= 0 when
        xi = 0. In general Markov's inequality at order a = 1 + s gives
        ``exp(s^2 rho + s (xi - t))``, smallest at s = (t - xi)/(2 rho):
        ``e^{-(t - xi)^2/(4 rho)}`` for t >= xi (and the trivial 1 below)."""
        t = param("t", t, lower=0, owner="zCDP.tail_bound")
        r, x = self.rho, self.xi
        if x.is_zero:
            return sp.exp(-t**2 / (4 * r))
        return sp.Piecewise((sp.exp(-(t - x)**2 / (4 * r)), t >= x), (sp.S.One, True))

    def _sympystr(self, printer) -> str:
        xi = "" if self.xi.is_zero else ", xi=%s" % printer._print(self.xi)
        return "zCDP(%s%s)" % (printer._print(self.rho), xi)

    def _latex(self, printer) -> str:
        if self.xi.is_zero:
            return r"%s\text{-zCDP}" % printer._print(self.rho)
        return r"(%s, %s)\text{-zCDP}" % (printer._print(self.xi), printer._print(self.rho))


class tCDP(_RenyiBound):
    """(rho, omega)-truncated CDP: D_a <= rho a for a in (1, omega) (Dwork, Def. 4.5)."""

    _param_names = ("rho", "omega")

    def __new__(cls, rho: Any, omega: Any):
        r = param("rho", rho, lower=0, owner="tCDP")
        w = param("omega", omega, lower=1, lower_open=True, owner="tCDP", allow_infinite=True)
        return sp.Basic.__new__(cls, r, w)

    @property
    def rho(self) -> sp.Expr:
        return self.args[0]

    @property
    def omega(self) -> sp.Expr:
        return self.args[1]

    def to_rdp(self) -> RDP:
        return RDP(sp.Lambda(_A, self.rho * _A), self.omega)

    def _affine_rdp(self) -> tuple | None:
        """(0, rho, omega): the curve a -> rho a for a in (1, omega) as exact ``fmpq`` (omega
        None for oo), None if symbolic or omega irrational."""
        rho = _fmpq(self.rho)
        w = None if self.omega is sp.oo else _fmpq(self.omega)
        if rho is None or (w is None and self.omega is not sp.oo):
            return None
        return fmpq(0), rho, w

    def compose(self, other: Notion) -> Notion:
        """Dwork, Thm. 4.4 (2): (rho + rho', min(omega, omega'))-tCDP."""
        if isinstance(other, tCDP):
            return tCDP(self.rho + other.rho, sp.Min(self.omega, other.omega))
        if isinstance(other, zCDP) and other.xi.is_zero:
            return tCDP(self.rho + other.rho, self.omega)
        return self.to_rdp().compose(other)

    def group(self, k: Any) -> tCDP:
        """Dwork, Remark 4.5: (k^2 rho, omega/k)-tCDP for groups of size k; the printed range
        k <= omega gives omega/k = 1 at k = omega, outside Def. 4.5: k < omega is required."""
        k = param("k", k, lower=1, integer=True, owner="tCDP.group")
        if (k >= self.omega) is sp.true:
            raise InvalidParameter("k", k, f"an integer in [1, omega) = [1, {self.omega})",
                                   "tCDP.group")
        return tCDP(k**2 * self.rho, self.omega / k)

    def tail_bound(self, t: Any) -> sp.Expr:
        """Dwork, Sec. 4.3, bullet 3: Pr[Z > t + rho] <= e^{-t^2/(4 rho)} for
        t <= 2 rho (omega - 1), and <= e^{(omega - 1)^2 rho - (omega - 1) t} beyond."""
        t = param("t", t, lower=0, owner="tCDP.tail_bound")
        r, w = self.rho, self.omega
        return sp.Piecewise((sp.exp(-t**2 / (4 * r)), t <= 2 * r * (w - 1)),
                            (sp.exp((w - 1)**2 * r - (w - 1) * t), True))

    def _sympystr(self, printer) -> str:
        return "tCDP(%s, %s)" % (printer._print(self.rho), printer._print(self.omega))

    def _latex(self, printer) -> str:
        return r"(%s, %s)\text{-tCDP}" % (printer._print(self.rho), printer._print(self.omega))
