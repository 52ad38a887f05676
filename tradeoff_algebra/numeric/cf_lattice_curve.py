"""Certified bands of whole trade-off curves of symmetric products whose loss tails are summed
exactly (up to an inverted remainder) and whose loss has atoms: few Laplace factors
(``numeric.cf_lattice_tails``) and few Laplace factors of different scales
(``numeric.cf_mixed_tails``), one set of tails for every level.

**The band.** For a symmetric f the power 1 - f is concave and non-decreasing, and every
Neyman-Pearson point (a(eps), p(eps)) = (B(L > eps), A(L > eps)) lies on it, as does its
mirror image (1 - p(eps), 1 - a(eps)) (Dong, Roth & Su, Prop. 6; f = f^{-1}). So the upper
concave hull of certified points (the lower ends of their balls) bounds the power from below,
and the support lines 1 - f(alpha) <= delta(eps) + e^eps alpha and their mirror images bound it
from above (``numeric.profile_band.point_band``). A level whose own point sits at it
(a(eps) = alpha, or p(eps) = 1 - alpha on the mirrored branch) is a vertex of the hull and
touches its own support line: the band there is as wide as the point's balls.

**One plan, all levels.** The tails are planned once (the remainder's inverter at the largest
threshold the levels need, ``LatticeTails``), and only where a point's error bound exceeds its
share of the tolerance (or, at eps = 0 where the two branches part, a percent of a(0)) is
another remainder planned (at that threshold, never twice at one), up to :data:`PLANS`; the
levels are placed again after each plan, each eps from the tails with the least error bound
there. The thresholds of all levels are found together in floats (a grid; the atoms inside a
level's grid bracket decided first, so a level in an atom's jump takes the atom at once; then
safeguarded Newton steps on the tails' float estimates: ``estimate``), and each level costs one
certified point there; a level whose threshold falls on an atom l (its alpha inside the jump of
a(eps), the randomised test) takes the points at l -+ a small step, whose chord is the segment.
Levels left wider than asked because their own points' balls are (the error bounds' floats
were optimistic) take one more plan, a hundred times tighter, at the widest one's threshold,
and their points again (:func:`_tighter`). Levels still wider than asked (float placement off:
the estimates of a point far from the plan) are
placed again by a Newton step on their certified point's midpoint, then bracketed by two points
around it; the band is recomputed from all points each round (it only narrows: more points,
more lines).

Everything certified is an Arb ball (the tails' points) or a ball expression of
``point_band``; the floats only place the points.
"""

from __future__ import annotations

import math

import numpy as np

from . import budget
from .cf_laws import lower, upper, working_precision
from .profile_band import Band, point_band

__all__ = ["tails_band", "PLANS", "POINT_SHARE"]

#: Remainders planned for one curve (each where the points' error bounds need it).
PLANS = 4
#: A point's float error bound may be this fraction of the tolerance times its power.
POINT_SHARE = 0.1
#: Rounds of re-placing the levels still wider than asked.
ROUNDS = 2
#: Float grid on which the thresholds are first bracketed.
GRID = 257
#: The grid where the loss has more than ``DENSE_ATOMS`` atoms, so that the fine grid's brackets
#: hold more than ``ATOM_ROUNDS`` of them on average (the atoms of such brackets are left to
#: the Newton steps, which start from the cubic Hermite interpolant of log value in the
#: bracket): Laplace(1/10 + i/10^4), i < 100, 46 516 atoms, 683 -> 440 estimates for the
#: curve's 99 thresholds at tol 1e-9 (the log-linear start), -> 379 (the Hermite start).
COARSE_GRID = 33
#: The atoms in a level's grid bracket decided one at a time before the Newton steps, at most.
ATOM_ROUNDS = 8
DENSE_ATOMS = ATOM_ROUNDS * GRID
#: A level's Newton steps end where they stop halving a residual below this fraction of its
#: target (the float estimates' own noise, far below the points' share of any tolerance's
#: effect on the band: the hull's chords and the support lines are first and second order in
#: it only through the points' distance to the level).
NOISE = 1e-6


def _values(est: tuple, branch: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The decreasing function of eps whose level is sought and its derivative: a(eps)
    (branch 1) or p(eps) (branch 2, the mirror image)."""
    return np.where(branch == 1, est[2], est[1]), np.where(branch == 1, est[4], est[3])


def _solve(tails, t: np.ndarray, branch: np.ndarray, end: float,
           atoms: np.ndarray, start: np.ndarray | None = None) -> np.ndarray:
    """Floats eps in [0, end] with value(eps) = t (a(eps) on branch 1, p(eps) on branch 2;
    both non-increasing), from a grid and safeguarded Newton steps; at a jump (an atom) the
    eps of the jump, to 1e-10 (the atom's points are placed beside it, :func:`_atom_near`).
    ``start``: where the Newton steps begin where it lies in the grid's bracket (a solution
    from other tails of the same law), else the bracket's midpoint (a loss of more than
    ``DENSE_ATOMS`` atoms: the coarse grid, from the guess of :func:`_hermite_guess`)."""
    dense = atoms.size > DENSE_ATOMS
    grid = np.linspace(0.0, end, COARSE_GRID if dense else GRID)
    est = tails.estimate(grid)
    out = np.empty_like(t)
    lo, hi = np.empty_like(t), np.empty_like(t)
    guess = np.full(t.shape, np.nan)
    for b in (1, 2):
        sel = branch == b
        if not sel.any():
            continue
        v = np.minimum.accumulate(est[2] if b == 1 else est[1])
        idx = np.clip(np.searchsorted(-v, -t[sel], side="left") - 1, 0, grid.size - 2)
        lo[sel], hi[sel] = grid[idx], grid[idx + 1]
        if dense:
            guess[sel] = _hermite_guess(grid, v, (est[4] if b == 1 else est[3]), idx, t[sel])
        beyond = t[sel] <= v[-1]
        hi[np.flatnonzero(sel)[beyond]] = end
        at0 = t[sel] >= v[0]
        lo[np.flatnonzero(sel)[at0]] = hi[np.flatnonzero(sel)[at0]] = 0.0
    e = 0.5 * (lo + hi)
    act = _atoms_first(tails, t, branch, atoms, lo, hi, e)
    if start is None and dense:
        start = guess
    if start is not None:
        inside = (lo[act] < start[act]) & (start[act] < hi[act])
        e[act[inside]] = start[act[inside]]
    best = e.copy()
    prev = np.full(t.shape, np.inf)  # |residual| of the step before (stagnation: noise)
    for _ in range(60):
        budget.check()
        ea, la, ha, ta = e[act], lo[act], hi[act], t[act]
        g, dg = _values(tails.estimate(ea), branch[act])
        g = g - ta
        la = np.where(g > 0, ea, la)
        ha = np.where(g > 0, ha, ea)
        with np.errstate(divide="ignore", invalid="ignore"):
            step = np.where(dg < 0, ea - g / dg, 0.5 * (la + ha))
        new = np.where((la < step) & (step < ha), step, 0.5 * (la + ha))
        # converged: the residual at the floats' rounding, the bracket closed, or Newton's
        # steps no longer halving a small residual (the estimates' own noise: the exact part's
        # B-spline sums lose up to ~1e-8 of a piece; further steps only dither)
        r = np.abs(g)
        done = ((r <= 1e-14 * ta) | (ha - la <= 1e-14 * np.maximum(ha, 1e-300))
                | ((r > 0.5 * prev[act]) & (r <= NOISE * ta)))
        if atoms.size:  # (a bracket narrowed onto an atom: its jump, found)
            k = np.minimum(np.searchsorted(atoms, la), atoms.size - 1)
            done |= (ha - la <= 1e-10 * np.maximum(1.0, ha)) & (atoms[k] >= la) & (atoms[k] <= ha)
        lo[act], hi[act] = la, ha
        # (a stagnating level keeps its better eps of the last two)
        stale = done & (r > prev[act])
        e[act] = np.where(done, np.where(stale, best[act], ea), new)
        best[act] = np.where(r <= prev[act], ea, best[act])
        prev[act] = np.minimum(r, prev[act])
        act = act[~done]
        if not act.size:
            break
    out[:] = np.clip(e, 0.0, end)
    return out


def _hermite_guess(grid: np.ndarray, v: np.ndarray, dv: np.ndarray, idx: np.ndarray,
                   t: np.ndarray) -> np.ndarray:
    """A start for Newton's steps in each bracket [grid[idx], grid[idx + 1]]: where log v(eps)
    = log t on the cubic Hermite interpolant of log v with the slopes dv / v at the bracket's
    ends (a few Newton steps on the cubic from the log-linear guess), else the log-linear
    guess, NaN where neither lies inside (the caller takes the midpoint). Placement only."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        y0, y1 = np.log(v[idx]), np.log(v[idx + 1])
        width = grid[idx + 1] - grid[idx]
        m0, m1 = width * dv[idx] / v[idx], width * dv[idx + 1] / v[idx + 1]
        lt = np.log(t)
        s = (y0 - lt) / (y0 - y1)
        lin = np.where((s > 0) & (s < 1), s, np.nan)
        s = lin.copy()
        for _ in range(4):
            s2, s3 = s * s, s * s * s
            h = ((2 * s3 - 3 * s2 + 1) * y0 + (s3 - 2 * s2 + s) * m0
                 + (-2 * s3 + 3 * s2) * y1 + (s3 - s2) * m1 - lt)
            dh = ((6 * s2 - 6 * s) * y0 + (3 * s2 - 4 * s + 1) * m0
                  + (-6 * s2 + 6 * s) * y1 + (3 * s2 - 2 * s) * m1)
            s = s - h / dh
        s = np.where(np.isfinite(s) & (s > 0) & (s < 1), s, lin)
        return grid[idx] + s * width


def _atoms_first(tails, t: np.ndarray, branch: np.ndarray, atoms: np.ndarray, lo: np.ndarray,
                 hi: np.ndarray, e: np.ndarray) -> np.ndarray:
    """The atoms inside the levels' grid brackets, decided before the Newton steps (a jump
    would otherwise be narrowed by bisection alone): where value(a+) <= t <= value(a-) the
    level's threshold is the atom a (``e`` set to it), else the bracket ``lo``, ``hi`` shrinks
    to the side of the jump holding t (in place). Returns the levels still to search."""
    if not atoms.size:
        return np.arange(t.size)
    # (a bracket holding more atoms than the rounds below decide is left to the Newton steps,
    # which end at a jump they narrow onto: Laplace(1/10 + i/10^4), i < 100, has 46 516 atoms
    # above 0, some 180 in each bracket, and walking the first 8 of each cost 1 500 estimates)
    many = (np.searchsorted(atoms, hi, side="right")
            - np.searchsorted(atoms, lo, side="left")) > ATOM_ROUNDS
    todo = ~many
    searched = many.copy()  # (left to the Newton steps as they were)
    for _ in range(ATOM_ROUNDS):  # (a bracket holding several atoms: one at a time)
        k = np.searchsorted(atoms, lo, side="left")  # (the first atom a >= lo)
        cand = atoms[np.minimum(k, atoms.size - 1)]
        d_all = 1e-10 * np.maximum(1.0, np.abs(cand))
        # (an atom at eps = 0 is left to the branches: nothing is estimated below 0)
        sel = np.flatnonzero(todo & (k < atoms.size) & (cand <= hi) & (cand - d_all > 0))
        if not sel.size:
            break
        a, d = cand[sel], d_all[sel]
        both = _values(tails.estimate(np.concatenate([a - d, a + d])),
                       np.concatenate([branch[sel], branch[sel]]))[0]
        v_minus, v_plus = both[:sel.size], both[sel.size:]
        ts = t[sel]
        jump = (v_plus <= ts) & (ts <= v_minus)
        e[sel[jump]] = a[jump]
        todo[sel[jump]] = False
        left = ~jump & (ts > v_minus) & (a - d > lo[sel])
        hi[sel[left]] = a[left] - d[left]
        right = ~jump & (ts < v_plus) & (a + d < hi[sel])
        lo[sel[right]] = a[right] + d[right]
        todo[sel[~(jump | left | right)]] = False  # (nothing decided: Newton's steps alone)
        searched[sel[~(jump | left | right)]] = True
    rest = np.flatnonzero(todo | searched)
    e[rest] = 0.5 * (lo[rest] + hi[rest])
    return rest


def _atom_near(atoms: np.ndarray, e: np.ndarray, tol: float) -> np.ndarray:
    """For each eps the nearest atom of the loss (a float) where it lies within ``tol``
    (relative), else NaN."""
    if atoms.size == 0:
        return np.full(e.shape, np.nan)
    i = np.clip(np.searchsorted(atoms, e), 1, atoms.size - 1) if atoms.size > 1 else \
        np.zeros(e.shape, dtype=np.int64)
    cand = np.where(np.abs(atoms[i - 1] - e) < np.abs(atoms[i] - e), atoms[i - 1], atoms[i]) \
        if atoms.size > 1 else atoms[i]
    return np.where(np.abs(cand - e) <= tol * np.maximum(1.0, np.abs(e)), cand, np.nan)


class _Best:
    """Float estimates and error bounds from the tails with the least error bound at each eps
    (placement only)."""

    def __init__(self, tails: list):
        self.tails = tails

    def error(self, e: np.ndarray) -> np.ndarray:
        return np.min(np.array([t.error(e) for t in self.tails]), axis=0)

    def which(self, e: np.ndarray) -> np.ndarray:
        """The index of the tails that answer each eps (the least error bound)."""
        e = np.asarray(e, dtype=np.float64).ravel()
        if len(self.tails) == 1:
            return np.zeros(e.shape, dtype=np.int64)
        return np.argmin(np.array([t.error(e) for t in self.tails]), axis=0)

    def estimate(self, e: np.ndarray) -> tuple[np.ndarray, ...]:
        e = np.asarray(e, dtype=np.float64).ravel()
        if len(self.tails) == 1:
            return self.tails[0].estimate(e)
        i = self.which(e)
        out = [np.empty_like(e) for _ in range(5)]
        for k in set(i.tolist()):
            sel = i == k
            for o, v in zip(out, self.tails[k].estimate(e[sel]), strict=True):
                o[sel] = v
        return tuple(out)


class _Points:
    """Certified points of one product from a list of tails (the one with the least error
    bound answers each eps), memoised, with the hull's points and each level's lines."""

    def __init__(self, tails: list):
        self.tails = tails
        self.memo: dict = {}
        self.px: list = []
        self.py: list = []

    def add(self, e: float):
        if e not in self.memo:
            budget.check()
            if len(self.tails) == 1:
                p = self.tails[0].point(e)
            else:
                errs = [float(t.error(np.array([e]))[0]) for t in self.tails]
                p = self.tails[int(np.argmin(errs))].point(e)
            self.memo[e] = p
            # the point and its mirror image, as the corners of their balls below the power
            with working_precision(128):
                self.px += [upper(p.alpha), upper(1 - p.power)]
                self.py += [lower(p.power), lower(1 - p.alpha)]
        return self.memo[e]


def tails_band(make_tails, atoms: np.ndarray, end: float, x: np.ndarray, tol: float,
               e_first: float) -> Band | None:
    """Certified bands of a symmetric product at the levels ``x`` (module docstring), aiming at
    a relative width ``tol`` of the power and an absolute width ``tol`` of f.

    ``make_tails(eps0, scale)`` plans tails at eps0 to ``scale`` times its default relative
    width (an object with ``point(eps)`` -> ``TailPoint``,
    ``estimate(eps_array)`` -> floats (delta, power, alpha, d power, d alpha) and
    ``error(eps_array)``, the float error bounds of its points), or raises ValueError (also
    where ``scale`` asks below the narrowest width it plans);
    ``atoms``: the sorted float positions of the loss's atoms; ``end``: the largest loss (no
    level needs a threshold beyond); ``e_first``: where to plan first (the threshold of the
    least level). None where no tails are planned."""
    flat = np.asarray(x, dtype=np.float64).ravel()
    try:
        first = make_tails(max(e_first, 0.0), 1.0)
    except budget.TimeLimitExceeded:  # (an ArithmeticError too: never a declined route)
        raise
    except (ValueError, ArithmeticError, RuntimeError):
        return None
    best = _Best([first])
    planned = [(max(e_first, 0.0), 1.0)]
    inner = (flat > 0) & (flat < 1)
    xi = flat[inner]
    n = xi.size
    branch, target, eps = np.ones(0, dtype=np.int64), np.zeros(0), np.zeros(0)
    for k in range(PLANS):
        # the branch of each level: a(eps) = alpha up to a(0), else the mirrored
        # p(eps) = 1 - alpha; the thresholds from the best float estimates so far (after a
        # new plan, only the levels it now answers, or whose branch changed, are solved again:
        # the others' estimates are the same functions as before)
        a0 = float(best.estimate(np.array([0.0]))[2][0])
        old = branch
        branch = np.where(xi <= a0, 1, 2)
        target = np.where(branch == 1, xi, 1 - xi)
        if k == 0 or not n:
            eps = _solve(best, target, branch, end, atoms) if n else np.zeros(0)
        else:
            redo = np.flatnonzero((best.which(eps) == len(best.tails) - 1) | (branch != old))
            if redo.size:
                eps[redo] = _solve(best, target[redo], branch[redo], end, atoms, eps[redo])
        if not n or k == PLANS - 1:
            break
        # another remainder where the error bounds exceed the points' share (and at 0, where
        # the branches part, beyond a percent: estimates far from every plan place nothing)
        at = np.append(eps, 0.0)
        est = best.estimate(at)
        need = POINT_SHARE * tol * np.maximum(
            np.where(branch == 1, est[1][:-1], 1 - est[2][:-1]), 1e-300)
        need = np.append(need, 1e-2 * min(max(a0, 0.0), 1.0))  # (a0 only parts the branches)
        errs = best.error(at)
        bad = errs > need
        if not bad.any():
            break
        worst = float(at[int(np.argmax(np.where(bad, errs / need, 0.0)))])
        if any(abs(worst - e0) <= 1e-6 * max(1.0, worst) for e0, _ in planned):
            break  # (planned there already: the band decides whether a tighter plan is due)
        planned.append((worst, 1.0))
        try:
            best.tails.append(make_tails(worst, 1.0))
        except budget.TimeLimitExceeded:  # (an ArithmeticError too: never a declined route)
            raise
        except (ValueError, ArithmeticError, RuntimeError):
            break
    tails = best.tails
    pts = _Points(tails)
    lines: list = [[] for _ in range(n)]
    step = min(2.0**-36, tol * 1e-3)
    atom = _atom_near(atoms, eps, 1e-9)
    for i in np.argsort(eps, kind="stable").tolist():
        _place(pts, lines[i], float(eps[i]), int(branch[i]), atom[i], step)
    band = _band(pts, flat, inner, lines)
    band = _tighter(make_tails, best, pts, lines, band, flat, inner, eps, branch, atoms, tol,
                    planned, step)
    for _ in range(ROUNDS):
        wide = np.flatnonzero(_wide(band, flat, tol)[inner])
        if not wide.size:
            break
        for i in wide.tolist():
            e, b = float(eps[i]), int(branch[i])
            p = pts.add(e)
            v = float((p.alpha if b == 1 else p.power).mid())
            dv = _values(best.estimate(np.array([e])), np.array([b]))[1][0]
            if dv < 0 and math.isfinite(dv):  # a Newton step on the certified midpoint
                e2 = min(max(e - (v - target[i]) / dv, 0.0), end)
            else:
                e2 = e
            h = max(abs(e2 - e), 1e-9 * max(1.0, e2))
            eps[i] = e2
            for e3 in (e2, max(e2 - h, 0.0), min(e2 + h, end)):
                _place(pts, lines[i], e3, b, np.nan, step)
        band = band.intersect(_band(pts, flat, inner, lines))
    return band


def _tighter(make_tails, best: _Best, pts: _Points, lines: list, band: Band, flat: np.ndarray,
             inner: np.ndarray, eps: np.ndarray, branch: np.ndarray, atoms: np.ndarray,
             tol: float, planned: list, step: float) -> Band:
    """Where levels are still wider than ``tol`` because their own points' balls are (wider
    than half the tolerance), one more plan a hundred times tighter than the tightest so far,
    at the threshold of the widest such level, and those levels' points again from the tails
    with the least error bound (the earlier points stay: every point bounds the power)."""
    wide = np.flatnonzero(_wide(band, flat, tol)[inner])
    if not wide.size or len(planned) > PLANS:
        return band
    own, excess = [], []
    for i in wide.tolist():
        p = pts.memo.get(float(eps[i]))
        if p is None:
            continue
        # the level's value and its power (the mirror image: 1 - alpha), relative widths
        r = max(float(b.rad()) / max(abs(float(b.mid())), 1e-300)
                for b in ((p.alpha, p.power) if branch[i] == 1 else (p.power, 1 - p.alpha)))
        if r > 0.5 * tol:
            own.append(i)
            excess.append(r)
    if not own:
        return band
    worst = own[int(np.argmax(excess))]
    scale = min(sc for _, sc in planned) * 1e-2
    try:
        pts.tails.append(make_tails(float(eps[worst]), scale))
    except budget.TimeLimitExceeded:  # (an ArithmeticError too: never a declined route)
        raise
    except (ValueError, ArithmeticError, RuntimeError):
        return band
    planned.append((float(eps[worst]), scale))
    if best.tails is not pts.tails:
        best.tails.append(pts.tails[-1])
    atom = _atom_near(atoms, eps[own], 1e-9)
    for j, i in enumerate(own):
        for w in _where(float(eps[i]), atom[j], step):
            pts.memo.pop(w, None)
        lines[i] = []
        _place(pts, lines[i], float(eps[i]), int(branch[i]), atom[j], step)
    return band.intersect(_band(pts, flat, inner, lines))


def _place(pts: _Points, lines: list, e: float, b: int, atom: float, step: float) -> None:
    """The certified point(s) of one level at the threshold e, and their lines: at an atom
    the two points just beside it (the chord between them is the randomised tests' segment)."""
    for w in _where(e, atom, step):
        p = pts.add(w)
        lines.append((w, upper(p.delta), b))


def _where(e: float, atom: float, step: float) -> list[float]:
    """The thresholds of a level's points: e, or the two just beside its atom."""
    if math.isnan(atom):
        return [e]
    return [max(atom - step * max(1.0, abs(atom)), 0.0), atom + step * max(1.0, abs(atom))]


def _band(pts: _Points, flat: np.ndarray, inner: np.ndarray, lines: list) -> Band:
    """The band at every level: point_band at the inner levels, the ends exact (f(0) = 1 and
    f(1) = 0: the products here have no mass at +oo)."""
    n = flat.size
    f_lo, f_hi = np.zeros(n), np.zeros(n)
    p_lo, p_hi = np.zeros(n), np.zeros(n)
    if inner.any():
        b = point_band(np.array(pts.px), np.array(pts.py), flat[inner], lines)
        f_lo[inner], f_hi[inner], p_lo[inner], p_hi[inner] = b.f_lo, b.f_hi, b.power_lo, \
            b.power_hi
    zero, one = flat <= 0, flat >= 1
    f_lo[zero] = f_hi[zero] = 1.0
    p_lo[one] = p_hi[one] = 1.0
    return Band(f_lo, f_hi, p_lo, p_hi)


def _wide(b: Band, x: np.ndarray, tol: float) -> np.ndarray:
    rel = (b.power_hi - b.power_lo) / np.maximum(b.power_hi, 1e-300)
    return (x > 0) & (x < 1) & ((b.f_hi - b.f_lo > tol) | (rel > tol))
