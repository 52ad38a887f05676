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
