"""The trade-off function of a symmetric pair on the integers with a monotone privacy loss:
T(X, X + Delta), X symmetric about 0 with an increasing likelihood ratio (the discrete
Gaussian, the Skellam law).

With U(m) = P(X >= m) the Neyman--Pearson tests reject above a threshold (Dong, Roth & Su,
Appendix A): the knots are (U(k), U(k - Delta)) (Q = law of X + Delta), and on the segment
U(k + 1) <= alpha <= U(k) the function is the line through the knot of k with the slope -e^{L(k)},
L(k) = log P(k - Delta)/P(k):

    f(alpha) = P(X < k - Delta) + (U(k) - alpha) e^{L(k)},
    1 - f(alpha) = U(k - Delta + 1) + (alpha - U(k + 1)) e^{L(k)}.

A family gives its tails and ratios as Arb balls at one precision (:class:`LatticeTails`);
:func:`lattice_ball` finds the segment of alpha (a start from the normal law of the family's
scale, a walk on the balls' midpoints) and returns the union of the lines of every segment the
balls do not exclude, or None where they decide none; :func:`lattice_pair` runs it in the one
precision loop until the ball carries the working precision.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.errors import NumericalError
from .arb_expr import ball_interval
from .context import arb_precision, mp
from .precision_loop import precision_loop

__all__ = ["LatticeTails", "lattice_segment", "lattice_ball", "lattice_pair"]

#: The most steps of the walk from the normal start to the segment of alpha.
MAX_WALK = 100_000


class LatticeTails:
    """The tails of a law on the integers symmetric about 0, as Arb balls at one precision.

    A family subclass gives ``mass(x)`` (the mass of x >= 0 up to the common factor ``norm``),
    ``direct(m)`` (sum_{x >= m} mass(x), m >= 1, with its truncated tail bounded) and
    ``ratio(k, d)`` = e^{L(k)} = P(k - d)/P(k); the tails are kept and reached from a kept
    neighbour above by adding masses (positive terms: no cancellation)."""

    #: The factor that makes the masses a probability (1 when they already are).
    norm: Any = 1

    def __init__(self) -> None:
        self._tails: dict[int, Any] = {}

    def mass(self, x: int) -> Any:  # pragma: no cover - every family overrides
        raise NotImplementedError

    def direct(self, m: int) -> Any:  # pragma: no cover - every family overrides
        raise NotImplementedError

    def ratio(self, k: int, d: int) -> Any:  # pragma: no cover - every family overrides
        raise NotImplementedError

    def tail(self, m: int) -> Any:
        """sum_{x >= m} mass(x) for m >= 1: from the nearest kept tail at most 64 above, else
        :meth:`direct`."""
        v = self._tails.get(m)
        if v is not None:
            return v
        j = next((j for j in range(m + 1, m + 65) if j in self._tails), None)
        if j is None:
            v = self.direct(m)
        else:
            v = self._tails[j]
            for x in range(j - 1, m - 1, -1):
                v = v + self.mass(x)
        self._tails[m] = v
        return v

    def upper(self, m: int) -> tuple:
        """(P(X >= m), P(X < m)), each from its smaller side (full relative accuracy)."""
        if m >= 1:
            u = self.tail(m) / self.norm
            return u, 1 - u
        c = self.tail(1 - m) / self.norm  # P(X < m) = P(X > -m) = P(X >= 1 - m)
        return 1 - c, c


def lattice_segment(S: LatticeTails, a, ac, scale: float, what: str) -> int:
    """The k with U(k + 1) <= alpha <= U(k) on the balls' midpoints: a start from the normal
    law of standard deviation ``scale``, then a walk (the caller proves the result)."""
    from .normal import ncdf_inv

    with mp.workprec(64):
        lo = a.mid() <= ac.mid()
        t = mp.mpf((a if lo else ac).mid().str(20, radius=False))
        z = -ncdf_inv(t) if t > 0 else mp.mpf(40)
        k = int(mp.floor(scale * z)) + 1
        k = k if lo else 1 - k

    def above(m):  # alpha <= U(m), on midpoints
        u, uc = S.upper(m)
        return (a.mid() <= u.mid()) if lo else (uc.mid() <= ac.mid())

    for _ in range(MAX_WALK):
        if not above(k):
            k -= 1
        elif above(k + 1):
            k += 1
        else:
            return k
    raise NumericalError(f"{what}: the segment search did not settle")


def lattice_ball(S: LatticeTails, d: int, a, ac, power: bool, scale: float, what: str):
    """f(alpha) (``power``: 1 - f(alpha)) as an Arb ball from exact balls a = alpha and
    ac = 1 - alpha (module docstring), or None where no segment is decided at this precision."""
    from flint import arb

    if a == 0 or ac == 0:
        one = (a == 0) != power
        return arb(1) if one else arb(0)
    small = a.mid() <= ac.mid()
    k = lattice_segment(S, a, ac, scale, what)

    def diff(j):  # U(j) - alpha, from the side that keeps its digits
        u, uc = S.upper(j)
        return u - a if small else ac - uc

    cands = [j for j in (k - 1, k, k + 1) if not (diff(j) < 0 or diff(j + 1) > 0)]
    if not cands or not diff(min(cands)) >= 0 or not diff(max(cands) + 1) <= 0:
        return None
    out = None
    for j in cands:
        e = S.ratio(j, d)
        if power:
            v = S.upper(j - d + 1)[0] + (-diff(j + 1)) * e
        else:
            v = S.upper(j - d)[1] + diff(j) * e
        out = v if out is None else out.union(v)
    return out


def lattice_pair(make: Callable[[int], Any], what: str) -> tuple:
    """(lo, hi) of the ball ``make(prec)`` at the working precision: the one precision loop from
    40 guard bits, doubling (at most six times) until the ball carries the working precision or
    is an exact 0; at the cap the ball reached is returned as it is, and a segment still
    undecided there is a NumericalError naming ``what``."""
    target = mp.prec

    def compute(prec):
        with arb_precision(prec):
            return make(prec)

    def done(ball, prev) -> bool:
        return ball is not None and ball.is_finite() and (
            ball.rel_accuracy_bits() >= target or ball == 0)

    def give_up(ball, prev, prec):
        if ball is None or not ball.is_finite():
            raise NumericalError(f"{what}: the segment of alpha is not decided at {prec} bits")
        return ball

    ball = precision_loop(compute, target + 40, done=done, max_steps=6, give_up=give_up,
                          what=lambda: f"{what} at {target} bits")
    return ball_interval(ball, target + 10)
