"""One step of the Poisson-subsampled Laplace mechanism written out for the tests' quadratures:
the two densities of the pair (add/remove) and its privacy loss, in the calling thread's mpmath
context (the tests set its precision)."""

from __future__ import annotations

from tradeoff_algebra.numeric.context import mp


def sampled_laplace_pair(mu, p, direction):
    """(A, B, loss) of one step: the Laplace densities of the pair and log(A / B)."""
    P = lambda x: mp.exp(-abs(x)) / 2  # noqa: E731
    Q = lambda x: mp.exp(-abs(x - mu)) / 2  # noqa: E731
    mix = lambda x: (1 - p) * P(x) + p * Q(x)  # noqa: E731
    a, b = (mix, P) if direction == "remove" else (P, mix)
    return a, b, lambda x: mp.log(a(x) / b(x))


def sampled_laplace_x_of_loss(mu, p, direction, v):
    """x in (0, mu) with loss(x) = v, or None (the loss is monotone on [0, mu])."""
    y = (mp.exp(v if direction == "remove" else -v) - 1 + p) / p
    if y <= 0:
        return None
    x = (mp.log(y) + mu) / 2
    return x if 0 < x < mu else None


def sampled_laplace_delta_one(mu, p, direction, y):
    """delta(y) of one step: int (A(x) - e^y B(x))_+ dx over R, split at 0, mu and the
    crossing (mpmath quadrature)."""
    a, b, _ = sampled_laplace_pair(mu, p, direction)
    cross = sampled_laplace_x_of_loss(mu, p, direction, y)
    pts = sorted({-mp.inf, mp.inf, mp.zero, mu} | ({cross} - {None}))
    return mp.quad(lambda x: max(mp.zero, a(x) - mp.exp(y) * b(x)), pts)


def sampled_laplace_delta_two(mu, p, direction, eps):
    """delta(eps) of two steps: int A(x1) delta_1(eps - loss(x1)) dx1, split where
    eps - loss(x1) meets the kinks of delta_1 (the loss at 0 and mu)."""
    a, _, loss = sampled_laplace_pair(mu, p, direction)
    pts = {-mp.inf, mp.inf, mp.zero, mu}
    pts |= {x for v in (eps - loss(mp.zero), eps - loss(mu))
            if (x := sampled_laplace_x_of_loss(mu, p, direction, v)) is not None}
    return mp.quad(lambda x: a(x) * sampled_laplace_delta_one(mu, p, direction, eps - loss(x)),
                   sorted(pts))


def ball_contains(ball, ref, rel, digits: int = 50) -> bool:
    """Whether the Arb ``ball`` holds ``ref`` up to ``rel`` of it (its midpoint read to
    ``digits``)."""
    mid = mp.mpf(ball.mid().str(digits, radius=False))
    rad = mp.mpf(ball.rad().str(10, radius=False))
    return abs(mid - ref) <= rad + rel * abs(ref)
