"""The geometry of a factor's certified privacy profile and the two loss laws built on it.

From certified enclosures ``l_j <= D(x_j) <= u_j`` of the profile ``D(x) = delta(log x)`` at
nodes ``x_j = e^{eps_j}`` (Dong, Roth & Su, Prop. 6; D is convex and non-increasing), as set
out in :mod:`.pld_profile`: the tents and valleys between the nodes and the hulls of the two
sides (:func:`_geometry`, :func:`_lower_hull`); the discrete measure whose profile is a given
convex piecewise-linear function (:func:`_measure`, :func:`_profile_at`); and the pessimistic
and optimistic loss laws of the factor (:func:`_pess_model`, :func:`_opt_model`,
:func:`_tame`). Float64 throughout, every derived quantity rounded outward by the relative
margin :data:`GAMMA`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..core.errors import NumericalError
from .privacy_loss import RHO_LIB, U64, AtomLoss

#: Relative outward margin on every derived float quantity.
GAMMA = 1e-12


# ------------------------------------------------------------------------------------------------
# geometry: tents, valleys, hulls (float64, outward margins)
# ------------------------------------------------------------------------------------------------
def _lower_hull(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Indices of the lower convex hull of points sorted by X (equal X: the lowest kept)."""
    idx: list[int] = []
    for k in range(len(X)):
        if idx and X[idx[-1]] == X[k]:
            if Y[k] >= Y[idx[-1]]:
                continue
            idx.pop()
        while len(idx) >= 2:
            o, a = idx[-2], idx[-1]
            cross = (X[a] - X[o]) * (Y[k] - Y[o]) - (Y[a] - Y[o]) * (X[k] - X[o])
            if cross <= 0:
                idx.pop()
            else:
                break
        idx.append(k)
    return np.asarray(idx, dtype=np.int64)


@dataclass
class _Geometry:
    eps: np.ndarray
    l: np.ndarray  # tightened lower bounds
    u: np.ndarray  # tightened upper bounds
    ex: np.ndarray  # normalised excess (upper) per node, for the refinement metric
    c0: float
    wv: list  # W vertices [(lambda, w)], lambda = -inf for x = 0
    w_after: float  # W's constant after its last vertex
    valley: np.ndarray  # valley lambda per interval
    gap: np.ndarray  # pessimistic minus optimistic at each valley
    width: np.ndarray  # larger enclosure width of the interval's two nodes


def _geometry(eps: np.ndarray, lo: np.ndarray, hi: np.ndarray, ex: np.ndarray,
              c0: float) -> _Geometry:
    K = len(eps) - 1
    x = np.exp(eps)
    u = np.minimum.accumulate(np.minimum(hi, 1.0))
    triv = np.where(eps < 0, -np.expm1(eps) * (1 - 4 * U64), 0.0)  # 1 - x, rounded down
    l = np.maximum.reduce([lo, triv, np.full_like(lo, c0)])
    l = np.maximum.accumulate(l[::-1])[::-1]
    l = np.minimum(l, u)  # (certified bounds never cross; guards the float roundings)
    g = GAMMA
    # right-arm relative slopes a_j = A_j x_j (rounded down), left-arm b_j = B_j x_j (up)
    a = np.empty(K + 1)
    a[0] = min(l[0] - 1.0, 0.0) * (1 + g)
    if K:
        den = -np.expm1(eps[:-1] - eps[1:]) * (1 - g)
        a[1:] = np.minimum(l[1:] - u[:-1], 0.0) / den * (1 + g)
    b = np.zeros(K + 1)
    if K:
        den = np.expm1(eps[1:] - eps[:-1])
        bb = (u[1:] - l[:-1]) / den
        b[:-1] = np.where(bb >= 0, bb * (1 + g), bb * (1 - g))

    def tent(j: int, lam: float) -> float:
        """Lower bound of the tent T_j at x = e^lam."""
        t = math.expm1(lam - eps[j])
        s = a[j] if t >= 0 else b[j]
        v = l[j] + s * t
        return v - g * (abs(l[j]) + abs(s * t)) - 1e-300

    # valleys between nodes j, j+1
    valley = np.empty(K)
    vw = np.empty(K)
    gap = np.empty(K)
    for j in range(K):
        rho = math.expm1(eps[j + 1] - eps[j])
        bp = b[j + 1] / (1 + rho)
        dd = a[j] - bp
        ts = (l[j + 1] - l[j] - bp * rho) / dd if dd < 0 else rho / 2
        ts = min(max(ts, 0.0), rho)
        lam = min(max(eps[j] + math.log1p(ts), eps[j]), eps[j + 1])
        w = min(tent(j, lam), tent(j + 1, lam))
        valley[j], vw[j] = lam, w
        t = math.expm1(lam - eps[j])
        U = u[j] + (u[j + 1] - u[j]) * min(t / rho, 1.0)
        gap[j] = max(U - w, 0.0)
    # what refinement cannot remove: the enclosure widths and the float resolution (margins)
    res = (u - l) + 16 * g * np.abs(u)
    width = np.maximum(res[:-1], res[1:]) if K else np.zeros(0)
    # W: (0, 1), v_{-1}, (x_0, l_0), v_0, ..., (x_K, l_K), v_K; then the constant c0_eff
    wv: list = [(-math.inf, 1.0)]
    s = (1 - l[0] + b[0]) / (x[0] + b[0]) if x[0] + b[0] > 0 else 0.5
    if 0 < s < 1:
        lam = eps[0] + math.log(s)
        one_m = -math.expm1(lam)
        w1 = one_m - g * (1 + abs(one_m)) - 1e-300
        wval = min(w1, tent(0, lam))
        if 1.0 - wval <= math.exp(lam):
            wv.append((lam, wval))
        else:
            # The crossing of 1 - x with T_0 lies within the margins of x = 0 (T_0's left arm
            # runs along D from about (0, 1), e.g. D linear on [0, x_0]): the segment from
            # (0, 1) to the valley would be steeper than -1 (P-mass above 1) by the margins
            # alone. Start W on T_0 itself instead: (0, T_0(0)), a lower bound of D(0+) = 1
            # missing only the mass of the crossing's tiny x.
            wv[0] = (-math.inf, min(1.0, tent(0, -math.inf)))
    for j in range(K + 1):
        wv.append((float(eps[j]), float(l[j])))
        if j < K:
            wv.append((float(valley[j]), float(vw[j])))
    c_eff = c0
    if a[K] < 0 and l[K] > c0:
        ts = (c0 - l[K]) / a[K]
        lam = eps[K] + math.log1p(ts)
        wv.append((lam, tent(K, lam)))
    elif a[K] >= 0:
        c_eff = max(c0, l[K])
    # the prefix of W above c_eff, closed by its crossing with c_eff (rounded to the left)
    out = [wv[0]]
    for lam, w in wv[1:]:
        if w > c_eff:
            if lam > out[-1][0]:
                out.append((lam, w))
            elif w < out[-1][1]:
                out[-1] = (lam, w)
            continue
        la, wa = out[-1]
        if la == -math.inf:
            xa, xb = 0.0, math.exp(lam)
            xc = xa + (wa - c_eff) / (wa - w) * (xb - xa)
            lc = math.log(xc) if xc > 0 else -math.inf
        else:
            phi = (wa - c_eff) / (wa - w)
            lc = la + math.log1p(phi * math.expm1(lam - la))
        lc -= 4 * g * (1 + abs(lc)) if math.isfinite(lc) else 0.0
        if lc <= la:
            out[-1] = (la, c_eff)
        else:
            out.append((lc, c_eff))
        break
    else:
        if out[-1][1] > c_eff:  # (cannot happen: the last vertex reaches c_eff)
            out.append((out[-1][0] + 1.0, c_eff))
    return _Geometry(eps, l, u, ex, c0, out, c_eff, valley, gap, width)


def _measure(lam: np.ndarray, Y: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """Atoms (losses, Q-masses) and the +oo mass of the convex piecewise-linear profile with
    vertices ``(e^lam_i, Y_i)`` (``lam_0 = -inf``: x = 0) and constant after the last."""
    M = len(lam) - 1
    # X_i (slope after i) and X_i (slope before i), each scale-free
    after = np.zeros(M + 1)
    before = np.zeros(M + 1)
    for i in range(1, M + 1):
        dl = lam[i] - lam[i - 1] if i > 1 else math.inf
        dy = Y[i] - Y[i - 1]
        # X_i sigma_{i-1} = (Y_i - Y_{i-1}) / (1 - X_{i-1}/X_i)
        before[i] = dy / (-math.expm1(-dl)) if i > 1 else dy
        if i < M:
            after[i] = (Y[i + 1] - Y[i]) / math.expm1(lam[i + 1] - lam[i])
    q = np.maximum(after[1:] - before[1:], 0.0)
    return lam[1:].copy(), q, float(Y[M])


def _profile_at(lam_atoms: np.ndarray, q: np.ndarray, q_inf: float,
                pts: np.ndarray) -> np.ndarray:
    """The measure's profile at x = e^pts (float; relative error <= (n + 200) u + 8 RHO)."""
    out = np.empty(len(pts))
    for s in range(0, len(pts), 512):
        p = pts[s:s + 512, None]
        d = p - lam_atoms[None, :]
        with np.errstate(invalid="ignore"):
            term = np.where(d < 0, -np.expm1(np.minimum(d, 0.0)), 0.0) * q[None, :]
        out[s:s + 512] = term.sum(axis=1) + q_inf
    return out


def _atoms(lam: np.ndarray, q: np.ndarray, q_inf: float, scale: float) -> AtomLoss:
    keep = q > 0
    lam, q = lam[keep], q[keep] * scale
    p = q * np.exp(-lam)
    return AtomLoss(lam, p, q, q_inf * scale, 0.0, rel_err=4 * RHO_LIB)


def _pess_model(geo: _Geometry) -> AtomLoss:
    lam = np.concatenate([[-math.inf], geo.eps])
    Y = np.concatenate([[1.0], geo.u])
    X = np.concatenate([[0.0], np.exp(geo.eps)])
    h = _lower_hull(X, Y)
    lam_h, Y_h = lam[h], Y[h]
    atoms, q, q_inf = _measure(lam_h, Y_h)
    # check: profile >= hull at the hull's vertices, Q-total >= 1, +oo mass >= the last value
    n = len(q)
    beta = (n + 200) * U64 + 8 * RHO_LIB
    val = _profile_at(atoms, q, q_inf, lam_h[1:]) * (1 - beta)
    tot = (q.sum() + q_inf) * (1 - beta)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = np.where(Y_h[1:] > 0, Y_h[1:] / val, 1.0)
    c = max(1.0, float(np.max(ratios, initial=1.0)), 1.0 / tot if tot > 0 else math.inf)
    if not c < 1 + 1e-6:
        raise NumericalError(f"profile factor: the pessimistic measure misses its hull by {c}")
    return _atoms(atoms, q, q_inf, c * (1 + 4 * U64))


def _opt_model(geo: _Geometry) -> AtomLoss:
    lam = np.array([v[0] for v in geo.wv])
    w = np.array([v[1] for v in geo.wv])
    X = np.exp(lam)
    h = _lower_hull(X, w)
    atoms, q, q_inf = _measure(lam[h], w[h])
    # check: profile <= W at W's vertices (the atoms sit on some of them), Q-total <= 1,
    # +oo mass <= W's constant after its last vertex
    n = len(q)
    beta = (n + 200) * U64 + 8 * RHO_LIB
    val = _profile_at(atoms, q, q_inf, lam[1:]) * (1 + beta)
    tot = (q.sum() + q_inf) * (1 + beta)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = np.where(val > 0, w[1:] / val, 1.0)
    c = min(1.0, float(np.min(ratios, initial=1.0)), 1.0 / tot if tot > 0 else 1.0)
    if q_inf > 0:
        c = min(c, geo.w_after / (q_inf * (1 + 4 * U64)))
    if not c > 1 - 1e-6:
        raise NumericalError(f"profile factor: the optimistic measure exceeds its minorant "
                             f"by a factor {1 / c if c > 0 else math.inf}")
    c *= 1 - 4 * U64
    q = _trim_p_total(atoms, q * c, beta) / c
    return _atoms(atoms, q, q_inf, c)


def _trim_p_total(atoms: np.ndarray, q: np.ndarray, beta: float) -> np.ndarray:
    """Q-masses with P-total at most 1, by removing mass from the lowest losses up.

    Removing mass lowers the profile (each atom adds ``m (1 - x e^{-l})_+ >= 0``), so a
    dominated measure stays dominated. The P-total of the optimistic measure is minus W's
    first slope; near ``x = 0`` (losses near -40) W's values sit within float resolution of 1,
    and a rounding of 1e-16 there is a slope (P-mass) of 1e-16 / x, far above 1. That excess
    lies on the lowest atoms, whose Q-mass ``p e^l`` is negligible: trimming them costs the
    profile at most that Q-mass, where rescaling the whole measure would cost a factor."""
    p = q * np.exp(-atoms) * (1 + beta)
    excess = float(p.sum()) - 1
    if not excess > 0:
        return q
    q = q.copy()
    cs = np.cumsum(p)
    k = int(np.searchsorted(cs, excess))  # first k with cs[k] >= excess
    if k >= len(q):
        return np.zeros_like(q)
    q[:k] = 0.0
    q[k] *= max((cs[k] - excess) / p[k], 0.0) * (1 - 4 * U64)
    return q


_TAME = 1e-9


def _tame(opt: AtomLoss, pess: AtomLoss) -> AtomLoss:
    """The optimistic law with its tails inside the pessimistic law's (finite part): atoms above
    the pessimistic top loss are moved down to it (lowering a loss lowers every delta), atoms
    below its bottom are dropped, and in the far lower tail (pessimistic mass below ``_TAME``)
    Q-mass is dropped until the optimistic distribution function is at most the pessimistic
    one. Dropping Q-mass
    keeps a law dominated; the engine reads both sides in the window it chooses for the
    pessimistic side, and this keeps the optimistic side's fold bound within its Chernoff bound
    (without it, float-resolution atoms near x = 0 can dominate a steep tilt)."""
    lam, q = opt.l.copy(), opt.qm.copy()
    if len(lam) == 0 or len(pess.l) == 0:
        return opt
    lam = np.minimum(lam, pess.l[-1])
    q = np.where(lam < pess.l[0], 0.0, q)
    cp = np.cumsum(pess.qm)  # pessimistic Q(L <= l_i)
    Cp = np.where(lam >= pess.l[0], cp[np.clip(np.searchsorted(pess.l, lam, "right") - 1, 0,
                                                  len(cp) - 1)], 0.0) * (1 - 8 * U64)
    kept = 0.0
    for i in range(len(lam)):
        if Cp[i] >= _TAME:
            break
        q[i] = min(q[i], max(Cp[i] - kept, 0.0))
        kept += q[i]
    keep = q > 0
    lam, q = lam[keep], q[keep]
    p = q * np.exp(-lam)
    tot = p.sum() * (1 + (len(p) + 8) * U64)
    if tot > 1:
        q, p = q / tot, p / tot
    return AtomLoss(lam, p, q, opt.q_inf, 0.0, rel_err=4 * RHO_LIB)
