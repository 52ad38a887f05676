"""Certified loss tails of products of few lattice laws with different scales (Laplace factors
Laplace(mu_1) (x) ... (x) Laplace(mu_r), no Gaussian factor), every term summed exactly.

Each factor's loss law (``lattice_parts``: atoms p+ at mu_i and p- at -mu_i, the density
kappa_i e^{lam s} on (-mu_i, mu_i), the same lam for every factor, 1/2 for the Laplace
mechanism) is a sum of three parts, so the product is a sum of 3^r terms: the factors in a set S
contribute their density, the others an atom, at the shift c = sum of the atoms' +-mu_i, with
the weight w = prod of the chosen p+-, kappa_i. The density of the S-part is
e^{lam s} V_S(s), V_S the convolution of the indicators of (-mu_i, mu_i), i in S
(e^{lam s_1} e^{lam s_2} = e^{lam (s_1 + s_2)}: one lam), whose two-sided Laplace transform is
prod (e^{z mu_i} - e^{-z mu_i}) / z^j (j = |S|), so

    V_S(s) = sum_{eps in {0,1}^S} (-1)^{|eps|} (a_eps - s)_+^{j-1} / (j-1)!,
    a_eps = sum_{i in S} (-1)^{eps_i} mu_i

(e^{za} / z^j is the transform of (a - s)_+^{j-1} / (j-1)!, Re z > 0). With x = eps - c, the
term's share of A(L > eps) is w int_{s > x} V_S e^{lam s} ds and of e^eps B(L > eps) (dB = e^{-L}
dA) w e^x int_{s > x} V_S e^{(lam - 1) s} ds. Where x <= -sigma (sigma = sum_{i in S} mu_i, the
piece wholly above eps) these are the moment generating functions prod 2 sinh(nu mu_i) / nu
(nu = lam, lam - 1); where x >= sigma, 0; between, the sum over eps of

    int_x^a (a - s)^n / n! e^{nu s} ds
        = e^{nu a} (1 - e^{-nu y} sum_{r<=n} (nu y)^r / r!) / nu^{n+1},   y = a - x >= 0

(n = j - 1; 0 where x >= a),

a positive integrand's integral (increasing in y, so an undecided a - x gives [0, its value at
the upper end]). The atoms' term (j = 0) is 1{c > eps} (a ball [0, 1] where undecided).
Everything is summed in Arb; nothing is inverted, so there is no remainder and no error bound
beyond the balls. :meth:`MixedTails.estimate` gives the same sums in floats (placement only).

Many factors whose scales lie on one grid (a hundred: 3^100 terms) are answered by the split of
:mod:`.cf_mixed_grid_tails` instead (:class:`MixedTails` hands its points, estimates and error
bounds to a ``GridTails``): the terms with few density components summed on the grid, the rest
inverted.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from flint import arb

from . import budget
from .cf_laws import working_precision
from .cf_mixed_grid import grid_of, lattice_laws
from .cf_mixed_grid_plan import mass_viable
from .cf_mixed_grid_tails import GridTails
from .cf_tails import TailPoint, _clip, _meet, atom_tails

__all__ = ["MixedTails", "MAX_TERMS", "every_term_exact", "mixed_factors"]

#: The most pieces (terms times sign patterns) summed at every eps.
MAX_TERMS = 4000
def mixed_factors(factors: list) -> list | None:
    """:func:`~.cf_mixed_grid.lattice_laws` where the pieces summed at every eps are at most
    :data:`MAX_TERMS` (every term exact), or where the scales lie on one grid
    (:func:`~.cf_mixed_grid.grid_of`: the split of :mod:`.cf_mixed_grid_tails`); else None."""
    laws = lattice_laws(factors)
    if laws is None:
        return None
    if _few(len(laws)):
        return laws
    return laws if grid_of(laws) is not None or mass_viable(laws) else None


def _few(r: int) -> bool:
    """Are the pieces of r factors at most :data:`MAX_TERMS`?"""
    return r <= 8 and sum(math.comb(r, j) * 2 ** (r - j) * 2**j for j in range(r + 1)) \
        <= MAX_TERMS


def every_term_exact(laws: list) -> bool:
    """Whether :class:`MixedTails` of these laws sums every term exactly (few factors), not
    the split of :mod:`.cf_mixed_grid_tails`."""
    return _few(len(laws))


class MixedTails:
    """Certified Neyman-Pearson points (``TailPoint``) of the product of the laws ``laws`` at
    any eps, all 3^r terms summed exactly (module docstring), at the precision for the
    relative width ``rel``."""

    def __init__(self, laws: list, rel: float, first_scale: float = 1.0) -> None:
        self.laws = list(laws)
        r = len(self.laws)
        self._grid = None
        if not _few(r):  # (many factors on one grid: the split, .cf_mixed_grid_tails,
            # its first remainder to first_scale rel: FIRST_SCALE for a whole curve)
            self._grid = GridTails(self.laws, rel, first_scale)
            self.prec = self.eval_prec = self._grid.prec
            self.atoms, self.loss_sup = self._grid.atoms, self._grid.loss_sup
            return
        self.prec = 64 + int(-math.log2(max(rel, 1e-30))) + 8 * r
        self.eval_prec = self.prec
        with working_precision(self.prec):
            parts = [law.lattice_parts() for law in self.laws]
            self.lam = parts[0][4]
            self._terms = []
            for choice in itertools.product(range(3), repeat=r):
                w, c, widths = arb(1), arb(0), []
                for (mu, pp, pm_, kappa, _), ch in zip(parts, choice, strict=True):
                    if ch == 0:
                        w, c = w * pp, c + mu
                    elif ch == 1:
                        w, c = w * pm_, c - mu
                    else:
                        w = w * kappa
                        widths.append(mu)
                self._terms.append((w, c, widths, self._pieces(widths)))
        with working_precision(64):
            mus = [float(p[0].mid()) for p in parts]
            self.lam_f = float(self.lam.mid())
            self._fterms = [(float(w.mid()), float(c.mid()), [float(m.mid()) for m in ws])
                            for w, c, ws, _ in self._terms]
        self.atoms = np.unique(np.array([sum(s * m for s, m in zip(signs, mus, strict=True))
                                         for signs in itertools.product((1, -1), repeat=r)]))
        self.loss_sup = sum(mus)

    def _pieces(self, widths: list) -> tuple:
        """(sigma, [(sign, a_eps)], mgf for lam, mgf for lam - 1) of a set of widths."""
        lam = self.lam
        sigma = sum(widths, arb(0))
        pieces = []
        for eps in itertools.product((0, 1), repeat=len(widths)):
            a = sum(((-1) ** e * m for e, m in zip(eps, widths, strict=True)), arb(0))
            pieces.append(((-1) ** sum(eps), a))
        mg_a, mg_b = arb(1), arb(1)
        for m in widths:
            mg_a *= 2 * (lam * m).sinh() / lam
            mg_b *= 2 * ((lam - 1) * m).sinh() / (lam - 1)
        return sigma, pieces, mg_a, mg_b

    def _tails(self, eps: float) -> tuple[arb, arb]:
        e = arb(eps)
        lam = self.lam
        pa, pb = arb(0), arb(0)
        for w, c, widths, (sigma, pieces, mg_a, mg_b) in self._terms:
            x = e - c
            if not widths:
                got = atom_tails(x)
                if got is None:
                    continue
                a, b = got
            elif x <= -sigma:
                a, b = mg_a, x.exp() * mg_b
            elif x >= sigma:
                continue
            else:
                n = len(widths) - 1
                a, b = arb(0), arb(0)
                for sign, at in pieces:
                    a += sign * _piece(lam, at, x, n)
                    b += sign * _piece(lam - 1, at, x, n)
                b = x.exp() * b
            pa += w * a
            pb += w * b
        return pa, pb

    def point(self, eps: float) -> TailPoint:
        """Certified balls of delta(eps), A(L > eps), B(L > eps)."""
        if self._grid is not None:
            return self._grid.point(eps)
        budget.check()
        with working_precision(self.prec):
            pa, pb = self._tails(eps)
            e = arb(eps)
            zero, one = arb(0), arb(1)
            power = _clip(pa, zero, one)
            alpha = _clip(pb * (-e).exp(), zero, one)
            delta = _clip(pa - pb, zero, one)
            delta = _meet(delta, _clip(power - e.exp() * alpha, zero, one))
            return TailPoint(eps, delta, power, alpha)

    def error(self, eps: np.ndarray) -> np.ndarray:
        """No remainder: every term is summed (the balls carry the rest); many factors: the
        remainder's error bound."""
        if self._grid is not None:
            return self._grid.error(eps)
        return np.zeros(np.asarray(eps).size)

    def estimate(self, eps: np.ndarray) -> tuple[np.ndarray, ...]:
        """Floats (delta, power, alpha, d power / d eps, d alpha / d eps) at the array ``eps``
        (placement only; the atoms' jumps are not in the derivatives)."""
        if self._grid is not None:
            return self._grid.estimate(eps)
        e = np.asarray(eps, dtype=np.float64).ravel()
        lam = self.lam_f
        pa, pb, dens = np.zeros_like(e), np.zeros_like(e), np.zeros_like(e)
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            for w, c, widths in self._fterms:
                x = e - c
                if not widths:
                    pa += np.where(x < 0, w, 0.0)
                    pb += np.where(x < 0, w * np.exp(np.minimum(x, 0.0)), 0.0)
                    continue
                sigma = sum(widths)
                n = len(widths) - 1
                xc = np.clip(x, -sigma, sigma)
                fa, fb, v = np.zeros_like(e), np.zeros_like(e), np.zeros_like(e)
                for eps_ in itertools.product((0, 1), repeat=len(widths)):
                    a = sum((-1) ** s * m for s, m in zip(eps_, widths, strict=True))
                    sign = (-1) ** sum(eps_)
                    y = np.maximum(a - xc, 0.0)
                    fa += sign * _fpiece(lam, a, y, n)
                    fb += sign * _fpiece(lam - 1, a, y, n)
                    v += sign * np.where(y > 0, y**n, 0.0) / math.factorial(n)
                inside = np.abs(x) < sigma
                pa += w * fa
                pb += w * np.exp(np.minimum(x, sigma)) * fb
                dens += w * np.where(inside, v * np.exp(lam * xc), 0.0)
            ee = np.exp(-e)
            power, alpha = pa, ee * pb
            delta = power - np.exp(e) * alpha
        return delta, power, alpha, -dens, -ee * dens


def _piece(nu: arb, a: arb, x: arb, n: int) -> arb:
    """int_x^a (a - s)^n / n! e^{nu s} ds (0 where x >= a), a ball (module docstring)."""
    y = a - x
    if y <= 0:
        return arb(0)
    if not y > 0:  # undecided: the integral increases in y from 0
        return arb(0).union(_piece_at(nu, a, arb(y.upper()), n))
    return _piece_at(nu, a, y, n)


def _piece_at(nu: arb, a: arb, y: arb, n: int) -> arb:
    t = nu * y
    s, term = arb(1), arb(1)
    for r in range(1, n + 1):
        term = term * t / r
        s += term
    return (nu * a).exp() * (1 - (-t).exp() * s) / nu ** (n + 1)


def _fpiece(nu: float, a: float, y: np.ndarray, n: int) -> np.ndarray:
    t = nu * y
    s, term = np.ones_like(y), np.ones_like(y)
    for r in range(1, n + 1):
        term = term * t / r
        s = s + term
    return math.exp(nu * a) * (1 - np.exp(-t) * s) / nu ** (n + 1)
