"""Certified Neyman-Pearson points (the loss tails A(L > eps), B(L > eps) and delta(eps)) of
products of many Laplace factors whose scales lie on one grid, for ``roc``, ``evaluate`` and
``curve`` (through :class:`~.cf_mixed_tails.MixedTails` and ``numeric.cf_lattice_curve``).

The split of :mod:`.cf_mixed_grid`: the terms with at most J density components summed exactly
(``GridPart.tails``: A(L > eps) and e^eps B(L > eps) of that part, Arb balls), plus the
remainder's tails from the tail inversion of :mod:`.cf_tails` (the kernels 1/z and 1/(z + 1)
on the nodes of the remainder's own inverter, its aliasing one-sided by Poisson summation and
its truncation bounded by the remainder's power decay of order J + 1), so that

    A(L > eps) = A_E + A_R,   B(L > eps) = e^-eps (e^eps B)_E + B_R,
    delta(eps) = (A_E - (e^eps B)_E) + delta_R

(the two delta balls met). The remainder is planned at the first threshold asked and again
(up to :data:`PLANS` plans) at a threshold whose float error bound exceeds the share asked;
each point takes the plan with the least error bound there. The float ``estimate`` (placement
only) is the part's ball midpoints, its derivatives from the part's density (the same
moments, ``GridPart.slopes``), plus the remainder's float sums.
"""

from __future__ import annotations

import numpy as np
from flint import arb

from . import budget, cf
from .cf_laws import upper, working_precision
from .cf_mixed_grid import grid_of
from .cf_mixed_grid_plan import grid_split, mass_split, mass_viable
from .cf_tails import TailPoint, _clip, _meet, tail_inverter

__all__ = ["GridTails", "PLANS", "FIRST_SCALE"]

#: Remainders planned for one product (each at a threshold where the others' bounds are wide).
PLANS = 4
#: A whole curve's first remainder (at the mean loss) is planned to this fraction of ``rel``,
#: so that one plan answers every level: its float error bound grows like e^{-c eps} away
#: from the plan while the power falls, and at ``rel`` itself the points far from the mean ask
#: a second plan. Laplace(1/10 + i/10^4), i < 100, rel 1e-11: the plan at the mean (0.53)
#: reached 1.07 rel power at eps 2.64 (the levels 0.98, 0.99) and a second plan of 270 nodes
#: followed; at 0.15 rel the one plan has 618 nodes (486 at rel) and is below the second
#: plan's own bound up to eps 3 (the 101-level curve at tol 1e-9: no level wider than
#: before). One level (roc, a value: the two floats around it) plans at ``rel``: its point
#: at 0.01 (eps 1.9) needs no second plan.
FIRST_SCALE = 0.15
#: Off any usable grid (a thousand factors: a grid of 10^7 points), the mass of the terms with
#: few density components left out may be this fraction of the remainder's relative width
#: (an absolute error of both tails: the powers asked are far above it).
MASS_SHARE = 1.0


class GridTails:
    """Certified points of the product of ``laws`` (one per factor, on one grid) at any
    eps >= 0, each remainder inverted to the relative width ``rel`` of its delta (module
    docstring), the first to ``first_scale`` times it (a whole curve: :data:`FIRST_SCALE`);
    ``atoms`` the atoms' positions at or above 0, ``loss_sup`` the largest loss."""

    def __init__(self, laws: list, rel: float, first_scale: float = 1.0) -> None:
        got = grid_of(laws)
        if got is None and not mass_viable(laws):
            raise ValueError("the Laplace factors' scales lie on no usable common grid")
        self.laws = list(laws)
        self.factors = [(law, 1) for law in laws]
        self.rel = rel
        with working_precision(64):
            self.loss_sup = upper(sum((law.lattice_parts()[0] for law in laws), arb(0)))
        self._plans: list = []  # (eps0, part, tail inverter or None)
        # (the first plan at the mean loss E_A[L] = sum_i d log M_i / dz at 0, the middle of
        # the curve; the levels far from it plan again where their error bounds need it)
        mean = sum(law.cumulants(0.0)[1] for law in laws)
        part = self._plan(min(max(mean, 1e-3), 0.9 * self.loss_sup), first_scale)[1]
        self.atoms = np.zeros(0)
        if got is not None:  # (on a grid: the atoms' positions; else their mass is bounded)
            h, ms = got
            S = sum(ms)
            n = part.atom_offsets()
            self.atoms = np.array([float((2 * int(k) - S) * h) for k in n])
            self.atoms = self.atoms[self.atoms >= 0]
        self.prec = self.eval_prec = max(part.prec, self.eval_prec)

    def _plan(self, eps0: float, scale: float = 1.0):
        """A remainder planned at ``eps0`` to ``scale`` times ``rel``, kept among the plans
        (the split's check of the plan's nodes makes the same plan: ``cf._first_plan`` keeps
        it for the inverter)."""
        budget.check()
        got = grid_split(self.factors, "tails", eps0, scale * self.rel)
        if got is None:  # (no usable grid: the part bounded by its mass, MASS_SHARE of rel)
            got = mass_split(self.laws, eps0, scale * self.rel, MASS_SHARE * self.rel)
        if got is None:
            raise ValueError("the grid split is beyond its planned work")
        rest, part = got
        tails = None
        if rest:
            inv, _ = cf._certified_inverter(rest, eps0, scale * self.rel)
            tails = tail_inverter(rest, inv)
            if tails is None:
                raise ValueError("the remainder's tails are not certified")
            self.eval_prec = max(getattr(self, "eval_prec", 0), tails.eval_prec)
        plan = (eps0, part, tails)
        self._plans.append(plan)
        return plan

    def _errors(self, e: np.ndarray) -> np.ndarray:
        return np.array([np.zeros(e.size) if t is None else t.error(e)
                         for _, _, t in self._plans])

    def error(self, eps: np.ndarray) -> np.ndarray:
        """Float estimate of the absolute error bound at the array ``eps`` (the best plan)."""
        e = np.asarray(eps, dtype=np.float64).ravel()
        return np.min(self._errors(e), axis=0)

    def _best(self, eps: float):
        errs = self._errors(np.array([eps]))[:, 0]
        i = int(np.argmin(errs))
        return self._plans[i], float(errs[i])

    def point(self, eps: float) -> TailPoint:
        """Certified balls of delta(eps), A(L > eps), B(L > eps)."""
        (e0, part, tails), err = self._best(eps)
        if tails is not None and len(self._plans) < PLANS and \
                all(abs(eps - p[0]) > 1e-6 * max(1.0, eps) for p in self._plans):
            power = float(self.estimate(np.array([eps]))[1][0])
            if err > self.rel * max(power, 1e-300):
                try:
                    e0, part, tails = self._plan(eps)
                except budget.TimeLimitExceeded:  # (an ArithmeticError too)
                    raise
                except (ValueError, ArithmeticError, RuntimeError):
                    pass
        pa, pe = part.tails(eps)
        r = None if tails is None else tails.point(eps)
        with working_precision(self.eval_prec):
            e = arb(eps)
            zero, one = arb(0), arb(1)
            power = pa if r is None else pa + r.power
            alpha = pe * (-e).exp() if r is None else pe * (-e).exp() + r.alpha
            power, alpha = _clip(power, zero, one), _clip(alpha, zero, one)
            delta = _clip(power - e.exp() * alpha, zero, one)
            if r is not None:  # (delta of each part too: the narrower meet)
                delta = _meet(delta, _clip(pa - pe + r.delta, zero, one))
            return TailPoint(eps, delta, power, alpha)

    def estimate(self, eps: np.ndarray) -> tuple[np.ndarray, ...]:
        """Floats (delta, power, alpha, d power / d eps, d alpha / d eps) at the array ``eps``
        (placement only; the atoms' jumps are not in the derivatives)."""
        e = np.asarray(eps, dtype=np.float64).ravel()
        power, alpha = np.zeros_like(e), np.zeros_like(e)
        dp, da = np.zeros_like(e), np.zeros_like(e)
        best = np.argmin(self._errors(e), axis=0) if e.size else np.zeros(0, dtype=int)
        for k in set(best.tolist()):
            sel = best == k
            _, part, tails = self._plans[k]
            for i in np.flatnonzero(sel).tolist():
                budget.check()
                power[i], alpha[i], dp[i], da[i] = part.slopes(max(float(e[i]), 0.0))
            if tails is not None:
                _, rp, ra, rdp, rda = tails.estimate(e[sel])
                power[sel] += rp
                alpha[sel] += ra
                dp[sel] += rdp
                da[sel] += rda
        with np.errstate(over="ignore", invalid="ignore"):
            delta = power - np.exp(e) * alpha
        return delta, power, alpha, dp, da
