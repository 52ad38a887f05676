"""The privacy loss of one trade-off function: the one interface every family's loss implements.

For ``f = T(P, Q)`` the privacy loss is ``L = log(dQ/dP)``; ``L = +oo`` where ``P = 0 < Q``
and ``L = -oo`` where ``Q = 0 < P``. The hockey-stick form of Dong, Roth & Su, Prop. 6 is

    delta(eps) = 1 + f^*(-e^eps) = sup_S {Q(S) - e^eps P(S)} = E_Q[(1 - e^{eps - L})_+],

with ``(1 - e^{eps - oo})_+ = 1`` (the Q-mass where P = 0 counts fully), valid for every real
``eps``, and ``f(alpha) = max{0, sup_eps 1 - delta(eps) - e^eps alpha}`` (the conjugate duality
behind Prop. 6) recovers f on [0, 1]. So f is determined by the law of L under Q and P.

A family (or an operator) registers one :func:`privacy_loss`: a :class:`PrivacyLoss` object,
in the manner of dp_accounting's ``PrivacyLoss`` (one subclass per mechanism), with up to three
views of the same law:

* the **float view** for the PLD grid (:meth:`PrivacyLoss.grid`, the object itself unless it is
  exact only): vectorised float64 distribution functions ``cdf(t, which, left)`` -> ``(F, S)``
  with ``F = M(L <= t)``, ``S = M(L > t)`` for ``M = P`` or ``Q`` (``left=True``: ``M(L < t)``
  and ``M(L >= t)``), each in its own tail, atoms at +-oo included; ``rel_err``, a bound on the
  relative error of those values (the accuracy of scipy's ``ndtr`` and ``exp`` in float64 is an
  assumption about these library functions, stated per model); ``edge_err(t)``, how far (in
  loss units) the evaluated cut may sit from the exact one; ``support(tau)``, a hint for the
  grid; ``q_inf = Q(L = +oo)``, ``p_ninf = P(L = -oo)``; ``heavy_atoms()``, the heaviest finite
  atoms (for grid alignment);
* the **exact view** (:meth:`PrivacyLoss.exact`): the finite pair's exact atoms
  (:class:`~.finite.FiniteLoss`, exact composition and profiles), or None;
* the **Arb view** (:meth:`PrivacyLoss.law`): the law with a rigorous moment generating
  function for the certified Laplace inversion (:class:`~.cf_laws.LossLaw`), or None.

Operators build their losses from their operands' (``Mix``: ``log(1 - p + p e^L)``; ``Inverse``:
``-L`` with P and Q swapped; ``C_p``), and ask an operand's loss for what only its family knows
through hooks of this interface (:meth:`PrivacyLoss.mixed_law`: the law of the mixture, e.g.
the Poisson-subsampled Gaussian).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import singledispatch
from typing import Any

import numpy as np

from ..core.errors import NoClosedForm

__all__ = ["PrivacyLoss", "LazyLoss", "AtomLoss", "privacy_loss", "loss_views", "declared_views",
           "delta_part", "leaf_model", "exact_fraction", "U64", "RHO_LIB", "VIEWS"]

#: Unit roundoff of float64.
U64 = 2.0**-53
#: Assumed relative accuracy of scipy.special.ndtr / exp / expm1 / log1p in float64 (Cephes
#: documents peak errors of a few 1e-16; the bound leaves an order of magnitude of room).
RHO_LIB = 5e-15


@singledispatch
def privacy_loss(f: Any) -> PrivacyLoss | None:
    """The privacy loss of a trade-off expression (see the module), or None: families and
    operators register theirs in their own modules."""
    return None


#: The views a loss may offer: the float view for the PLD grid, the exact atoms, the Arb law.
VIEWS = ("grid", "exact", "law")


def loss_views(*names: str) -> Callable:
    """Declare which views (of :data:`VIEWS`) the losses of a :func:`privacy_loss` registration
    offer (for numerical parameters): the capability table reads the declaration and its test
    checks it on the family's instances."""
    bad = set(names) - set(VIEWS)
    if bad:
        raise ValueError(f"views {sorted(bad)} are not among {VIEWS}")

    def mark(fn: Callable) -> Callable:
        fn.views = frozenset(names)
        return fn
    return mark


def declared_views(cls: type) -> frozenset[str]:
    """The views declared by the :func:`privacy_loss` registration for ``cls`` (empty without
    one)."""
    fn = privacy_loss.dispatch(cls)
    return frozenset() if fn is privacy_loss.dispatch(object) else getattr(fn, "views", frozenset())


def exact_fraction(x: Any) -> Fraction | None:
    """A SymPy Rational, or a Float as its exact binary value, as a Fraction; None otherwise
    (irrational or symbolic parameters)."""
    import sympy as sp

    if isinstance(x, sp.Rational):
        return Fraction(int(x.p), int(x.q))
    if isinstance(x, sp.Float) and x.is_finite:
        r = sp.Rational(x)
        return Fraction(int(r.p), int(r.q))
    return None


@singledispatch
def delta_part(f: Any) -> tuple[Any, Any]:
    """``(rest, delta)`` with ``f = rest (x) f_{0,delta}`` (Dong, Roth & Su, Eq. (10):
    f_{eps,delta} = f_{eps,0} (x) f_{0,delta}), ``rest`` None when it is Id. The f_{0,delta}
    part re-enters a composition exactly (Eq. (12)) instead of through a grid. Default
    ``(f, 0)``; families register theirs (f_{eps,delta}, Id)."""
    return f, 0


class PrivacyLoss:
    """The privacy loss L = log dQ/dP of T(P, Q) under P and Q, in its three views (see the
    module). The base class is the float view's interface; a subclass implements what it can."""

    q_inf: float = 0.0
    p_ninf: float = 0.0
    rel_err: float = RHO_LIB
    #: The parts of q_inf and p_ninf that are certainly there (a model may park a dropped tail
    #: of at most tau at +-oo: right for the pessimistic side, not for the optimistic one);
    #: None means all of it.
    q_inf_sure: float | None = None
    p_ninf_sure: float | None = None

    def sure_q_inf(self) -> float:
        """The Q-mass at +oo that the optimistic side may keep."""
        return self.q_inf if self.q_inf_sure is None else self.q_inf_sure

    def sure_p_ninf(self) -> float:
        return self.p_ninf if self.p_ninf_sure is None else self.p_ninf_sure

    def cdf(self, t: np.ndarray, which: str, left: bool = False):
        raise NotImplementedError

    def edge_err(self, t: np.ndarray) -> float:
        """The bound (loss units) on how far the cuts ``t`` move by rounding: a function of the
        largest finite |t| only, non-decreasing in it (``operators.losses.MixLoss`` passes on
        only the points that attain it)."""
        return 8 * U64 * (1.0 + float(np.max(np.abs(t[np.isfinite(t)]), initial=0.0)))

    def support(self, tau: float) -> tuple[float, float]:
        raise NotImplementedError

    def grid(self) -> PrivacyLoss | None:
        """The float view for the PLD grid (this object; an exact-only loss builds one)."""
        return self

    def exact(self) -> Any:
        """The exact view: the finite pair's atoms (a :class:`~.finite.FiniteLoss`), or None."""
        return None

    def law(self) -> Any:
        """The Arb view: a :class:`~.cf_laws.LossLaw` for the certified Laplace inversion, or
        None."""
        return None

    def mixed_law(self, p: Fraction) -> Any:
        """The Arb view of the mixture ``T(P, (1 - p) P + p Q)`` (the Mix operator's hook), or
        None: only the operand's family knows it."""
        return None

    def heavy_atoms(self) -> list[tuple[float, float]]:
        """(loss, Q-mass) of the law's heaviest finite atoms (a few at most): the engine puts
        the heaviest of all factors on a grid point (``pld._aligned_step``), where the
        optimistic side does not have to round it down."""
        return []


class LazyLoss(PrivacyLoss):
    """A privacy loss whose views are built on demand, each by its own function (returning the
    view or None), at most once: for a node whose views come from different constructions (an
    operator's float view from its operand's, its exact view from its knots) or cost much (the
    float atoms of a large shuffle), so that asking for one view never builds another."""

    def __init__(self, grid: Callable[[], PrivacyLoss | None] | None = None,
                 exact: Callable[[], Any] | None = None, law: Callable[[], Any] | None = None):
        self._make = {"grid": grid, "exact": exact, "law": law}
        self._made: dict[str, Any] = {}

    def _view(self, name: str) -> Any:
        if name not in self._made:
            make = self._make[name]
            self._made[name] = None if make is None else make()
        return self._made[name]

    def grid(self) -> PrivacyLoss | None:
        g = self._view("grid")
        return None if g is None else g.grid()

    def exact(self) -> Any:
        return self._view("exact")

    def law(self) -> Any:
        return self._view("law")

    def mixed_law(self, p: Fraction) -> Any:
        g = self._view("grid")
        return None if g is None else g.mixed_law(p)


class AtomLoss(PrivacyLoss):
    """Finitely many atoms: losses ``l_i`` (finite) with P-masses and Q-masses, plus
    ``q_inf = Q(L = +oo)`` and ``p_ninf = P(L = -oo)`` (a finite pair, e.g. f_{eps,delta})."""

    def __init__(self, losses, pm, qm, q_inf=0.0, p_ninf=0.0, rel_err=4 * U64,
                 q_inf_sure=None, p_ninf_sure=None):
        self.q_inf_sure, self.p_ninf_sure = q_inf_sure, p_ninf_sure
        order = np.argsort(losses)
        self.l = np.asarray(losses, dtype=np.float64)[order]
        self.pm = np.asarray(pm, dtype=np.float64)[order]
        self.qm = np.asarray(qm, dtype=np.float64)[order]
        self.q_inf, self.p_ninf = float(q_inf), float(p_ninf)
        self._rel = float(rel_err) + 4 * U64 * (len(self.l) + 2)
        self._cum = {}
        for w, m, atom_lo, atom_hi in (("P", self.pm, self.p_ninf, 0.0),
                                       ("Q", self.qm, 0.0, self.q_inf)):
            pre = np.concatenate([[0.0], np.cumsum(m)]) + atom_lo
            suf = np.concatenate([np.cumsum(m[::-1])[::-1], [0.0]]) + atom_hi
            self._cum[w] = (pre, suf)

    def cdf(self, t, which, left=False):
        pre, suf = self._cum[which]
        k = np.searchsorted(self.l, np.asarray(t, dtype=np.float64),
                            side="left" if left else "right")
        return pre[k], suf[k]

    @property
    def rel_err(self) -> float:
        return self._rel

    def edge_err(self, t):
        return 0.0

    def support(self, tau):
        if len(self.l) == 0:
            return 0.0, 0.0
        return float(self.l[0]), float(self.l[-1])

    def heavy_atoms(self):
        q = np.where(self.l != 0, self.qm, 0.0)
        top = np.argsort(q)[::-1][:8]
        return [(float(self.l[i]), float(q[i])) for i in top if q[i] > 0]


# ------------------------------------------------------------------------------------------------
# the model of one factor
# ------------------------------------------------------------------------------------------------
def leaf_model(f) -> PrivacyLoss:
    """The float view of one factor's privacy loss, else :class:`NoClosedForm`."""
    pl = privacy_loss(f)
    m = None if pl is None else pl.grid()
    if m is not None:
        return m
    raise NoClosedForm(f"{f}: no privacy-loss distribution is known for this factor (families "
                       "G, Laplace, finite objects, Mix and Inverse of these have one)")
