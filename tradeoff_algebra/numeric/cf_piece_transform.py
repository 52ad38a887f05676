"""The transforms of Chebyshev pieces: int P e^{ity} dy of each piece's interpolant P (a
:class:`~.cf_sampled_poly.ChebPiece` with its error bound), summed over a model's pieces at one t
or on a grid t_k = k h, for the flat views of the Poisson-subsampled Gaussian and of the
replace-one loss (``families/gaussian_sampled_poly.py``, ``families/poisson_replace_poly.py``).

A piece with |t| len below :data:`SERIES_BELOW` is transformed by the power series of
e^{it len tau}, the others by integration by parts (the series in w = 1/(it) of
:mod:`.cf_sampled_poly`'s docstring); each cut is bounded in Arb (:class:`PieceTransform`), and a
piece's sup on its Bernstein ellipse (:func:`ellipse_sup`) bounds the pieces dropped whole.
"""

from __future__ import annotations

import math

from flint import acb, arb, arb_poly

from . import budget
from .cf_laws import pm, working_precision
from .cf_sampled_poly import ChebPiece

__all__ = ["PieceTransform", "ellipse_sup", "pieces_transform", "pieces_transform_grid",
           "truncated_chunks", "split_imaginary", "SERIES_BELOW", "SERIES_LEVELS",
           "BUILD_GUARD", "EXP_RESTART"]

#: |t| times a piece's length below which its transform is a power series, not integration by
#: parts (either loses about 20 bits to cancellation there).
SERIES_BELOW = 12.0
#: The series' cuts kept per piece (for |t| len below SERIES_BELOW / 2^j, j < SERIES_LEVELS).
SERIES_LEVELS = 6
#: Extra bits while the pieces are built: the interpolants in powers of tau magnify the radii of
#: their values (the parameters' balls) about 2.6 bits a degree (T_n(2 tau - 1) has coefficients
#: up to (3 + 2 sqrt 2)^n); degrees stay below about 90.
BUILD_GUARD = 256
#: The nodes between direct exponentials in :func:`pieces_transform_grid`'s recurrences.
EXP_RESTART = 64


class PieceTransform:
    """One piece's interpolant P on [a, a + len] and its transform int P e^{ity} dy by
    integration by parts (|t| len >= :data:`SERIES_BELOW`: the series in w = 1/(it) of the module
    docstring) or by the power series of e^{it len tau} (|t| len < SERIES_BELOW):
    e^{ita} len sum_k (it len)^k m_k / k!, m_k = int_0^1 P(tau) tau^k dtau, cut after K terms:
    |m_k| <= S / (k + 1), S >= sup |P| on [0, 1] (S = M + eta: the interpolant is within eta
    of rho_c, and |rho_c| <= M on the interval inside the ellipse), so the terms left out are at
    most len S sum_{k > K} x^k / k! <= len S e^x x^{K+1} / (K+1)!, x = |t| len < SERIES_BELOW,
    bounded at x = SERIES_BELOW (increasing in x)."""

    def __init__(self, pc: ChebPiece, b: arb) -> None:
        self.a, self.length, self.n = pc.a, pc.length, pc.n
        self.b = b  # (the breakpoint object the next piece starts at: its e^{zb} is shared)
        qa, qb = pc.end_series()
        self.qa, self.qb = arb_poly(qa), arb_poly(qb)
        sup = ellipse_sup(pc) + pc.eta
        target = pc.eta * self.length
        # (the number of terms for each x <= x_j = SERIES_BELOW / 2^j: the tail bound is
        # increasing in x, so the cut chosen at x_j serves every x <= x_j)
        cuts = []
        for j in range(SERIES_LEVELS):
            x = arb(SERIES_BELOW) / 2**j
            k, term = 0, self.length * sup * x.exp()  # (len S e^x x^{k+1} / (k+1)!, k = -1)
            while True:
                k += 1
                term = term * x / k
                if term < target or k >= 400:
                    break
            cuts.append((k - 1, term))
        self.k_max = cuts[0][0]
        # (m_j = int_0^1 tau^j P(tau) dtau = sum_i p_i / (i + j + 1) for all j at once: the
        # coefficients n + j of the product of P's reversed coefficients with sum_k x^k/(k + 1))
        p = pc.poly.coeffs()
        deg = len(p) - 1
        hk = arb_poly([arb(1) / (k + 1) for k in range(deg + self.k_max + 1)])
        prod = (arb_poly(list(reversed(p))) * hk).coeffs()
        co = []
        fact = arb(1)
        for j in range(self.k_max + 1):
            if j:
                fact *= j
            co.append(self.length * prod[deg + j] / fact)
        self.series = [arb_poly(co[:k + 1]) for k, _ in cuts]
        self.err = pc.eta * self.length + max(term for _, term in cuts)

    def series_at(self, x: arb):
        """The cut power series serving |t| len = x < SERIES_BELOW."""
        j = 0
        while j + 1 < SERIES_LEVELS and x < SERIES_BELOW / 2 ** (j + 1):
            j += 1
        return self.series[j]


def ellipse_sup(pc: ChebPiece) -> arb:
    """M >= |rho_c| on the piece's Bernstein ellipse (from its eta = 4 M rho^{-n} / (rho - 1)),
    hence on the piece itself."""
    return pc.eta * (pc.rho - 1) * arb(pc.rho) ** pc.n / 4


def pieces_transform(pieces: list, joined: list, t: arb) -> acb:
    """The sum over the pieces of int_a^b e^{i t y} p(y) dy at the context's precision: a piece
    with |t| len < SERIES_BELOW by its power series, the others by parts (``qa``, ``qb``: the
    antiderivative's end terms), the terms at an end shared by two such pieces as one
    polynomial (``joined[i]``, the end between pieces i - 1 and i, or None)."""
    z = acb(0, t)
    w = 1 / z
    at = abs(t)
    parts = [at * p.length >= SERIES_BELOW for p in pieces]
    tot = acb(0)
    last = len(pieces) - 1
    for i, piece in enumerate(pieces):
        ea = (z * piece.a).exp()
        if not parts[i]:
            tot += ea * piece.series_at(at * piece.length)(z * piece.length)
            continue
        if not (i and parts[i - 1] and joined[i] is not None):
            tot -= ea * piece.qa(w)
        if i < last and parts[i + 1] and joined[i + 1] is not None:
            tot += (z * piece.b).exp() * joined[i + 1](w)
        else:
            tot += (z * piece.b).exp() * piece.qb(w)
    return tot


def pieces_transform_grid(model, h: arb, n: int) -> list[acb]:
    """The sum of a model's pieces' transforms (:func:`pieces_transform`: ``model.pieces``,
    ``model.joined``, at ``model.prec`` bits, the series cut against ``model.m_upper``) at
    t_k = k h for k = 1 .. n (h > 0) at once, the same sums: each
    polynomial evaluated at all its nodes by multipoint calls (flint's ``arb_poly.evaluate``
    of its real and imaginary parts, :func:`_split_imaginary`: its argument is i t len or
    1/(i t), on the imaginary axis), the factors e^{i t_k y} of a breakpoint y by the recurrence
    e^{i t_k y} = e^{i t_{k-1} y} e^{i h y}, restarted from a direct exponential every
    :data:`EXP_RESTART` nodes (ball arithmetic carries the rounding: a radius grows by about
    one ulp a step). A piece takes its power series below k_i (|t| len < SERIES_BELOW: t_k
    increases with k) and its ends' polynomials from k_i on; the terms at an end shared by
    two pieces that both integrate by parts at t_k are one polynomial (``joined``)."""
    with working_precision(model.prec):
        ts = [h * k for k in range(1, n + 1)]
        tot = [acb(0)] * n
        last = len(model.pieces) - 1
        # (k_i: the first node index, 0-based, where piece i integrates by parts)
        first = []
        for p in model.pieces:
            x = float((arb(SERIES_BELOW) / (h * p.length)).upper())
            k = min(n, max(0, math.ceil(x) - 2)) if math.isfinite(x) else n
            while k < n and not ts[k] * p.length >= SERIES_BELOW:
                k += 1
            first.append(k)
        phases: dict[int, list[acb]] = {}

        def phase(y: arb) -> list[acb]:  # e^{i t_k y}, k = 1 .. n
            got = phases.get(id(y))
            if got is None:
                step = acb(0, h * y).exp()
                got, v = [], step
                for k in range(n):
                    if k % EXP_RESTART == 0:
                        v = acb(0, ts[k] * y).exp()
                    got.append(v)
                    v = v * step
                phases[id(y)] = got
            return got

        inv = [1 / t for t in ts]  # (w_k = -i s_k, s_k = 1 / t_k: shared by the ends)
        inv2 = [x * x for x in inv]
        # (the ends' series in w cut where their terms left out are below this: far below
        # the tolerance 2^(24 - caller's prec) m_upper of :meth:`mgf`'s acceptance)
        cut = model.m_upper * arb(2) ** (16 - model.prec)

        def add(poly, ks: range, sign: int, y: arb, length: arb | None = None) -> None:
            if not len(ks):
                return
            e = phase(y)  # (series at i t_k len, ends at w_k = 1 / (i t_k) = -i / t_k)
            if length is not None:
                ss = [ts[k] * length for k in ks]
                chunks = [(ks, poly, ss, [x * x for x in ss], arb(0))]
            else:
                chunks = truncated_chunks(poly, ks, inv, inv2, cut)
            for part, q, ss, us, tail in chunks:
                re, im = split_imaginary(q, 1 if length is not None else -1)
                vr, vi = re.evaluate(us, algorithm="iter"), im.evaluate(us, algorithm="iter")
                if tail != 0:
                    r = pm(tail)
                    vr, vi = [a + r for a in vr], [b + r for b in vi]
                for k, a, b, x in zip(part, vr, vi, ss, strict=True):
                    v = e[k] * acb(a, x * b)
                    tot[k] = tot[k] + v if sign > 0 else tot[k] - v

        for i, piece in enumerate(model.pieces):
            budget.check()  # (a piece's terms at every node: up to 0.1 s at 50 000 nodes)
            ki = first[i]
            # (series below k_i, by the cut serving each node's |t| len)
            by_level: dict[int, list[int]] = {}
            for k in range(ki):
                j = 0
                x = ts[k] * piece.length
                while j + 1 < SERIES_LEVELS and x < SERIES_BELOW / 2 ** (j + 1):
                    j += 1
                by_level.setdefault(j, []).append(k)
            for j, ks in by_level.items():  # (consecutive: |t| len increases with k)
                add(piece.series[j], range(ks[0], ks[-1] + 1), 1, piece.a, piece.length)
            # (the left end: by the left neighbour's joined polynomial where both integrate)
            if i and model.joined[i] is not None:
                add(piece.qa, range(ki, max(ki, first[i - 1])), -1, piece.a)
            else:
                add(piece.qa, range(ki, n), -1, piece.a)
            if i < last and model.joined[i + 1] is not None:
                both = max(ki, first[i + 1])
                add(piece.qb, range(ki, both), 1, piece.b)
                add(model.joined[i + 1], range(both, n), 1, piece.b)
            else:
                add(piece.qb, range(ki, n), 1, piece.b)
            # (piece i's left end is no later piece's: its phases freed, so that two lists
            # of n balls are kept at a time, ~20 MB at 92 000 nodes, not one per breakpoint)
            phases.pop(id(piece.a), None)
        return tot


def truncated_chunks(poly: arb_poly, ks: range, inv: list, inv2: list, cut: arb) -> list:
    """The nodes ``ks`` of an end's polynomial Q(w) = sum_j a_j w^j, w = -i s_k (s_k =
    ``inv[k]`` = 1 / t_k, decreasing in k), in chunks of t_k within a factor 2, each with Q cut
    after the least degree M whose terms left out are at most ``cut`` at the chunk's largest s:
    |sum_{j > M} a_j w^j| <= sum_{j > M} |a_j| s^j, increasing in s, so that bound serves every
    node of the chunk (the ball of each value is widened by it, real and imaginary parts alike).
    Where t len is large (most nodes: t ~ 10^3 to 10^4 on pieces of length up to 1) a few of the
    ~40 terms remain. Items: (nodes, cut polynomial, s's, s^2's, bound)."""
    a = poly.coeffs()
    mags = [arb(abs(x).upper()) for x in a]
    out = []
    k0 = ks.start
    while k0 < ks.stop:
        s0 = inv[k0]
        k1 = k0 + 1
        while k1 < ks.stop and inv[k1] * 2 > s0:
            k1 += 1
        tail, m = arb(0), len(a)
        sp = arb(s0.upper())
        powers = [arb(1)]
        for _ in range(len(a)):
            powers.append(powers[-1] * sp)
        while m > 1:  # (drop a_{m-1} while the dropped terms stay within the cut)
            nxt = tail + mags[m - 1] * powers[m - 1]
            if not nxt <= cut:
                break
            tail, m = nxt, m - 1
        q = arb_poly(a[:m]) if m < len(a) else poly
        out.append((range(k0, k1), q, inv[k0:k1], inv2[k0:k1], arb(tail.upper())))
        k0 = k1
    return out


def split_imaginary(poly: arb_poly, omega: int) -> tuple[arb_poly, arb_poly]:
    """Real polynomials (R, I) with A(omega i s) = R(s^2) + i s I(s^2) for real s, A = ``poly``
    (real coefficients a_j) and omega = +-1: (omega i)^j is (-1)^(j/2) for even j and
    omega i (-1)^((j-1)/2) for odd j. Two real evaluations of half the degree cost about a third
    of one complex evaluation."""
    a = poly.coeffs()
    re = [a[j] if j % 4 == 0 else -a[j] for j in range(0, len(a), 2)]
    im = [omega * (a[j] if j % 4 == 1 else -a[j]) for j in range(1, len(a), 2)]
    return arb_poly(re), arb_poly(im)
