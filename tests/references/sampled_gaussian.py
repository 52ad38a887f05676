"""One and two steps of the Poisson-subsampled Gaussian mechanism written out for the tests'
quadratures, in the calling thread's mpmath context (the tests set its precision): the pair's
densities and loss, delta of one step by quadrature of (A - e^eps B)_+ split at the crossing,
and delta of two steps by quadrature of the one-step profile over the first step."""

from __future__ import annotations

from tradeoff_algebra.numeric.context import mp


def sampled_gaussian_pair(mu, q, direction):
    """(A, B, loss) of one step: "remove" A = (1 - q) N(0, 1) + q N(mu, 1), B = N(0, 1);
    "add" the two swapped; loss = log(A / B)."""
    mix = lambda x: (1 - q) * mp.npdf(x) + q * mp.npdf(x - mu)  # noqa: E731
    a, b = (mix, mp.npdf) if direction == "remove" else (mp.npdf, mix)
    return a, b, lambda x: mp.log(a(x) / b(x))


def _quad(f, pts):
    """mp.quad of f over the sorted points, f scaled to about 1 first (mp.quad's tolerance is
    absolute: a Gaussian tail of size 1e-60 keeps only 10 digits unscaled)."""
    finite = [x for x in pts if mp.isfinite(x)]
    mids = [(x + y) / 2 for x, y in zip(finite, finite[1:], strict=False)]
    scale = max(abs(f(x)) for x in finite + mids)
    if scale == 0:
        return mp.zero
    return scale * mp.quad(lambda x: f(x) / scale, pts)


def _crossing(loss, y, lo=-60, hi=60):
    """x with loss(x) = y by bisection (the loss is monotone), or None outside its range."""
    f_lo, f_hi = loss(mp.mpf(lo)) - y, loss(mp.mpf(hi)) - y
    if f_lo * f_hi > 0:
        return None
    a, b = mp.mpf(lo), mp.mpf(hi)
    for _ in range(mp.prec + 20):
        m = (a + b) / 2
        if (loss(m) - y) * f_lo > 0:
            a = m
        else:
            b = m
    return (a + b) / 2


def sampled_gaussian_delta_one(mu, q, direction, y):
    """delta(y) of one step at any real y: int (A(x) - e^y B(x))_+ dx by quadrature, split at
    the crossing A = e^y B (found by bisection); 1 - e^y or 0 when the level is outside the
    losses (no crossing)."""
    a, b, loss = sampled_gaussian_pair(mu, q, direction)
    c = _crossing(loss, y)
    if c is None:  # every x on one side: A(L > y) is 1 or 0
        inside = loss(mp.zero) > y
        return 1 - mp.exp(y) if inside else mp.zero
    s = 1 / max(abs(c), 1)  # (the scale of the Gaussian factor beyond c)
    steps = [mp.mpf(2) ** k for k in range(-3, 10)]
    pts = sorted({-mp.inf, mp.inf, c} | {c + s * k for k in steps} | {c - s * k for k in steps})
    return _quad(lambda x: max(mp.zero, a(x) - mp.exp(y) * b(x)), pts)


def sampled_gaussian_delta_halfline(mu, q, direction, y):
    """delta(y) of one step at any real y from the half-line {L > y} (the loss is monotone in
    x): A(L > y) - e^y B(L > y) in ncdf at the threshold x = c solving loss(c) = y."""
    ratio = (mp.exp(y if direction == "remove" else -y) - 1 + q) / q  # e^{mu c - mu^2/2}
    if ratio <= 0:
        return 1 - mp.exp(y) if direction == "remove" else mp.zero
    c = (mp.log(ratio) + mu * mu / 2) / mu
    if direction == "remove":  # L increasing: {L > y} = {x > c}
        a = (1 - q) * mp.ncdf(-c) + q * mp.ncdf(mu - c)
        b = mp.ncdf(-c)
    else:  # L decreasing: {L > y} = {x < c}
        a = mp.ncdf(c)
        b = (1 - q) * mp.ncdf(c) + q * mp.ncdf(c - mu)
    return a - mp.exp(y) * b


def sampled_gaussian_delta_two(mu, q, direction, eps):
    """delta(eps) of two steps: int A(x1) delta_1(eps - loss(x1)) dx1 (delta_1 from the
    half-line), split where eps - loss(x1) leaves the range of the losses (delta_1 is not
    analytic there)."""
    a, _, loss = sampled_gaussian_pair(mu, q, direction)
    edge = mp.log(1 - q) if direction == "remove" else -mp.log(1 - q)
    xb = _crossing(loss, eps - edge)
    pts = [-mp.inf, -6, -3, 0, 3, 6, mp.inf]
    if xb is not None:
        pts = sorted(set(pts) | {xb, xb - 1, xb - mp.mpf(1) / 8})
    return _quad(lambda x: a(x) * sampled_gaussian_delta_halfline(mu, q, direction,
                                                                 eps - loss(x)), pts)


def sampled_gaussian_delta_three(mu, q, direction, eps):
    """delta(eps) of three steps: int A(x1) delta_2(eps - loss(x1)) dx1 (delta_2 of
    :func:`sampled_gaussian_delta_two`, itself a quadrature of the half-line profile: a 3-fold
    numerical convolution), split where eps - loss(x1) meets one or two times the edge of the
    losses (log(1 - q) for remove, -log(1 - q) for add), where delta_1 and delta_2 are not
    analytic."""
    a, _, loss = sampled_gaussian_pair(mu, q, direction)
    edge = mp.log(1 - q) if direction == "remove" else -mp.log(1 - q)
    pts = {-mp.inf, mp.mpf(-6), mp.mpf(-3), mp.zero, mp.mpf(3), mp.mpf(6), mp.inf}
    for k in (1, 2):
        xb = _crossing(loss, eps - k * edge)
        if xb is not None:
            pts |= {xb, xb - 1, xb - mp.mpf(1) / 8}
    return _quad(lambda x: a(x) * sampled_gaussian_delta_two(mu, q, direction, eps - loss(x)),
                 sorted(pts))
