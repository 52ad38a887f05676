"""The terms with at most J density components of a product of many Laplace factors on no
usable grid of scales, bounded by their mass instead of summed (``numeric.cf_mixed_grid``'s
module docstring; :func:`~.cf_mixed_grid_plan.mass_split` chooses it): the part with the
interface of :class:`~.cf_mixed_grid.GridPart` whose delta and tails lie in [0, m]."""

from __future__ import annotations

from flint import arb, arb_poly, fmpq

from .cf_laws import working_precision
from .cf_mixed_grid import _factor_consts, _Support, _tree, scales_of

__all__ = ["MassPart"]


def _low_mass(cs: list, mus: list, J: int) -> arb:
    """The A'-mass of the structured law's terms with at most J density components:
    sum_{j<=J} [y^j] prod_i (a_i + u_i y), a_i = 2 c_i cosh(mu_i/2) the atoms' mass under A
    (e^{s/2} at +-mu_i), u_i = 2 c_i sinh(mu_i/2) the density's."""
    polys = []
    for c, m in zip(cs, mus, strict=True):
        mu = arb(fmpq(m.numerator, m.denominator))
        polys.append(arb_poly([2 * c * (mu / 2).cosh(), 2 * c * (mu / 2).sinh()]))
    coeffs = _tree(polys).coeffs()
    return sum(coeffs[:J + 1], arb(0))


class MassPart:
    """The terms with at most ``J`` density components of a product of Laplace factors on no
    usable grid (or one too fine), bounded by their mass instead of summed: a positive measure
    of A-mass m (:func:`_low_mass`, plus the total-variation bound), so its delta, A(L > eps)
    and e^eps B(L > eps) lie in [0, m] (their integrands lie in [0, 1] on L > eps) and
    d delta / d eps = -e^eps B(L > eps) in [-m, 0]. Where m is far below the share asked (a
    thousand factors: the probability that no factor contributes its density is 6.3e-23) the
    remainder's inversion carries the digits. The interface of :class:`GridPart`."""

    def __init__(self, laws: list, J: int, prec: int = 128) -> None:
        mus = scales_of(laws)
        if mus is None:
            raise ValueError("the factors are not Laplace laws with exact scales")
        self.mus, self.J, self.k = mus, int(J), 1
        self.laws = list(laws)
        self.law = _Support(mus)
        self.prec = prec
        with working_precision(prec):
            self._cs, tv = _factor_consts(laws)
            self.mass = arb((_low_mass(self._cs, mus, self.J) + tv).upper())

    def tails(self, eps: float) -> tuple[arb, arb]:
        box = arb(0).union(self.mass)
        return box, box

    def terms(self, eps: float, derivative: bool = True) -> tuple[arb, arb]:
        box = arb(0).union(self.mass)
        return box, -box

    def slopes(self, eps: float) -> tuple[float, float, float, float]:
        """Floats for placement: the part's tails taken as 0 (at most its tiny mass)."""
        return 0.0, 0.0, 0.0, 0.0
