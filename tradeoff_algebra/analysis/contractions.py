"""Contractions (1-Lipschitz maps) of projected gradient descent, exactly (Dwork, Sec. 6.3).

Dwork, Def. 6.1: a map psi: R^d -> R^d is *contractive* if it is 1-Lipschitz. Prop. 6.1 states
that the two steps of projected gradient descent are: (1) the projection onto a convex set K,
(2) the gradient step w -> w - eta grad f(w) of a convex beta-smooth f for eta <= 2/beta. This
module computes the instances exactly (SymPy, exact rationals):

* projections: onto an interval (:func:`clamp`), a box (:func:`project_box`, coordinatewise),
  a Euclidean ball (:func:`project_ball`, with :func:`ball_projection_sq_distance`: the squared
  distance of the projections of two points in terms of their norms and the cosine of their
  angle, which reduces the ball to three scalars in every dimension);
* the Lipschitz constant of a continuous piecewise-linear function of one variable built from
  Min, Max and Abs (:func:`pl_lipschitz`: the largest |slope| between consecutive
  breakpoints; for a continuous function this is its Lipschitz constant);
* affine maps x -> A x + b (:func:`affine_is_contraction`: ||A||_2 <= 1 iff I - A^T A is
  positive semidefinite, decided exactly; :func:`operator_norm`);
* the gradient step of a quadratic f(w) = w^T H w/2 + c^T w, whose Jacobian I - eta H has the
  eigenvalues 1 - eta lambda (:func:`quadratic_step_lipschitz`); for Hessian eigenvalues in
  [0, beta] the set of step sizes that make it 1-Lipschitz is [0, 2/beta]
  (:func:`gradient_step_contraction_range`, SymPy's ``solveset``; the same set for every
  twice differentiable convex beta-smooth f, whose Jacobian is symmetric with eigenvalues
  1 - eta lambda, lambda in [0, beta], by the mean value inequality), and
  :func:`gradient_step_counterexample` gives the exact pair of points that a step size
  eta > 2/beta moves apart.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import sympy as sp

from ..core.errors import InvalidParameter, NoClosedForm
from ..core.validate import items, param

__all__ = ["clamp", "project_box", "project_ball", "ball_projection_sq_distance",
           "pl_lipschitz", "operator_norm", "affine_is_contraction",
           "quadratic_step_lipschitz", "gradient_step_contraction_range",
           "gradient_step_counterexample"]


def _interval(lo: Any, hi: Any, owner: str) -> tuple[sp.Expr, sp.Expr]:
    lo = param("lo", lo, owner=owner)
    hi = param("hi", hi, owner=owner)
    if (hi < lo) is sp.true:
        raise InvalidParameter("hi", hi, f"a number >= lo = {lo}", owner)
    return lo, hi


def clamp(x: Any, lo: Any, hi: Any) -> sp.Expr:
    """The projection Pi_K(x) = argmin_{y in K} |x - y| onto K = [lo, hi] (Dwork, Prop. 6.1
    (1) in one dimension): min(max(x, lo), hi), a SymPy expression (``x`` may be a symbol)."""
    lo, hi = _interval(lo, hi, "clamp")
    return sp.Min(sp.Max(sp.sympify(x), lo), hi)


def _vector(name: str, v: Any, owner: str) -> list[sp.Expr]:
    out = [param(f"{name}[{i}]", x, owner=owner)
           for i, x in enumerate(items(name, v, "a sequence of real numbers", owner))]
    if not out:
        raise InvalidParameter(name, v, "a non-empty sequence of real numbers", owner)
    return out


def project_box(x: Sequence, lows: Sequence, highs: Sequence) -> tuple[sp.Expr, ...]:
    """The projection onto the box prod_i [lows_i, highs_i]: :func:`clamp` coordinatewise
    (the squared distance to the box is a sum over the coordinates, minimised in each)."""
    x = _vector("x", x, "project_box")
    lows, highs = _vector("lows", lows, "project_box"), _vector("highs", highs, "project_box")
    if not len(x) == len(lows) == len(highs):
        raise InvalidParameter("highs", highs, f"{len(x)} bounds, one per coordinate of x",
                               "project_box")
    return tuple(clamp(xi, lo, hi) for xi, lo, hi in zip(x, lows, highs, strict=True))


def project_ball(x: Sequence, center: Sequence, radius: Any) -> tuple[sp.Expr, ...]:
    """The projection onto the ball {y : ||y - center||_2 <= radius}: x itself inside the
    ball, else center + radius (x - center)/||x - center|| (exact; square roots stay
    symbolic)."""
    x, c = _vector("x", x, "project_ball"), _vector("center", center, "project_ball")
    if len(x) != len(c):
        raise InvalidParameter("center", center, f"a point of R^{len(x)}", "project_ball")
    r = param("radius", radius, lower=0, owner="project_ball")
    v = [xi - ci for xi, ci in zip(x, c, strict=True)]
    norm = sp.sqrt(sum(vi**2 for vi in v))
    inside = sp.simplify(norm - r)
    if inside.is_number and inside <= 0:
        return tuple(x)
    if not inside.is_number:
        raise InvalidParameter("x", x, "a point with numeric coordinates (the case, inside or "
                               "outside the ball, must be decidable)", "project_ball")
    return tuple(sp.radsimp(ci + r * vi / norm) for ci, vi in zip(c, v, strict=True))


def ball_projection_sq_distance(a: Any, b: Any, c: Any, r: Any) -> sp.Expr:
    """||Pi(x) - Pi(y)||^2 for the projection onto the ball of radius r around 0, in terms of
    a = ||x||, b = ||y|| and c = cos of the angle between x and y (valid in every dimension:
    Pi(x) = min(1, r/a) x), with the law of cosines:
    ``p^2 + q^2 - 2 p q c`` where p = min(a, r), q = min(b, r).
    The squared distance of x and y themselves is the same with p = a, q = b."""
    a = param("a", a, lower=0, owner="ball_projection_sq_distance")
    b = param("b", b, lower=0, owner="ball_projection_sq_distance")
    c = param("c", c, lower=-1, upper=1, owner="ball_projection_sq_distance")
    r = param("r", r, lower=0, owner="ball_projection_sq_distance")
    p, q = sp.Min(a, r), sp.Min(b, r)
    return p**2 + q**2 - 2 * p * q * c


def _linear_on(f: sp.Expr, x: sp.Symbol, lo: sp.Expr, hi: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    """(slope, intercept) of ``f`` on a segment where it is linear, from two exact values."""
    u, v = (lo + hi) / 2, (lo + 2 * hi) / 3
    fu, fv = f.subs(x, u), f.subs(x, v)
    slope = (fv - fu) / (v - u)
    return slope, fu - slope * u


def _points(bps: list) -> list[tuple[sp.Expr, sp.Expr]]:
    """The segments between the sorted breakpoints, the two unbounded ones as finite stand-ins
    (one unit beyond the outermost breakpoint: the function is linear there)."""
    if not bps:
        return [(sp.Integer(-1), sp.Integer(1))]
    ends = [bps[0] - 1] + bps + [bps[-1] + 1]
    return list(zip(ends, ends[1:], strict=False))


def _breakpoints(f: sp.Expr, x: sp.Symbol) -> list[sp.Expr]:
    """Every point where the continuous piecewise-linear ``f`` (built from x, numbers, +,
    multiplication by numbers, Min, Max, Abs) may change slope, sorted (a superset)."""
    if x not in f.free_symbols:
        return []
    if f == x:
        return []
    if isinstance(f, sp.Add) or (isinstance(f, sp.Mul) and sum(x in a.free_symbols
                                                               for a in f.args) == 1):
        return sorted(set().union(*(_breakpoints(a, x) for a in f.args)))
    if isinstance(f, (sp.Min, sp.Max, sp.Abs)):
        args = list(f.args) if not isinstance(f, sp.Abs) else [f.args[0], -f.args[0]]
        bps = sorted(set().union(*(_breakpoints(a, x) for a in args)))
        new = set(bps)
        for lo, hi in _points(bps):
            lines = [_linear_on(a, x, lo, hi) for a in args]
            for (s1, c1), (s2, c2) in itertools.combinations(lines, 2):
                if s1 != s2:  # (a crossing outside the segment only adds a spare point)
                    new.add((c2 - c1) / (s1 - s2))
        return sorted(new)
    raise NoClosedForm(f"pl_lipschitz: {f} is not built from x, numbers, +, *, Min, Max and Abs")


def pl_lipschitz(f: Any, x: sp.Symbol) -> sp.Expr:
    """The Lipschitz constant of a continuous piecewise-linear function ``f`` of the real
    variable ``x``, built from ``x``, numbers, sums, multiplication by numbers, Min, Max and
    Abs (continuous by construction): the largest |slope| over the segments between its
    breakpoints (the crossings of the arguments of each Min and Max and the zeros inside each
    Abs, found recursively and exactly), the slope of each segment from two exact values.
    Anything else raises :class:`NoClosedForm`. Exact."""
    if not isinstance(x, sp.Symbol):
        raise InvalidParameter("x", x, "a SymPy Symbol", "pl_lipschitz")
    f = sp.sympify(f)
    if f.free_symbols - {x}:
        raise NoClosedForm(f"pl_lipschitz: {f} has other symbols than {x}")
    for node in sp.preorder_traversal(f):
        if isinstance(node, sp.Pow) and x in node.free_symbols:
            raise NoClosedForm(f"pl_lipschitz: {f} is not piecewise linear in {x}")
    bps = _breakpoints(f, x)
    slopes = []
    for lo, hi in _points(bps):
        slope, _ = _linear_on(f, x, lo, hi)
        w = lo + (hi - lo) / 5
        if f.subs(x, w) != slope * w + _:  # a third point on the same line
            raise NoClosedForm(f"pl_lipschitz: {f} is not linear between {lo} and {hi}")
        slopes.append(abs(slope))
    return sp.Max(*slopes)


def _matrix(A: Any, owner: str) -> sp.Matrix:
    try:
        M = sp.Matrix(A)
    except (TypeError, ValueError, sp.SympifyError) as exc:
        raise InvalidParameter("A", A, "a real matrix (a list of rows)", owner) from exc
    if M.free_symbols or any(e.is_real is False for e in M):
        raise InvalidParameter("A", A, "a matrix of real numbers (no symbols)", owner)
    return M


def operator_norm(A: Any) -> sp.Expr:
    """||A||_2 = sqrt of the largest eigenvalue of A^T A, exact: the largest real root of its
    characteristic polynomial (a radical or a SymPy ``CRootOf``; small matrices)."""
    M = _matrix(A, "operator_norm")
    lam = sp.Symbol("lambda")
    roots = sp.Poly((M.T * M).charpoly(lam).as_expr(), lam).real_roots()
    return sp.sqrt(max(roots))


def affine_is_contraction(A: Any) -> bool:
    """Whether x -> A x + b is 1-Lipschitz (Dwork, Def. 6.1), for any b: iff ||A||_2 <= 1 iff
    I - A^T A is positive semidefinite, decided exactly (SymPy, rational entries)."""
    M = _matrix(A, "affine_is_contraction")
    G = sp.eye(M.cols) - M.T * M
    psd = G.is_positive_semidefinite
    if psd is None:
        raise NoClosedForm("affine_is_contraction: SymPy could not decide whether I - A^T A "
                           "is positive semidefinite")
    return bool(psd)


def quadratic_step_lipschitz(H: Any, eta: Any) -> sp.Expr:
    """The Lipschitz constant of the gradient step w -> w - eta (H w + c) of the quadratic
    f(w) = w^T H w/2 + c^T w (H symmetric): the operator norm of I - eta H, that is
    max_i |1 - eta lambda_i| over the eigenvalues of H (exact)."""
    M = _matrix(H, "quadratic_step_lipschitz")
    if M != M.T:
        raise InvalidParameter("H", H, "a symmetric matrix (a Hessian)",
                               "quadratic_step_lipschitz")
    eta = param("eta", eta, lower=0, owner="quadratic_step_lipschitz")
    return sp.Max(*[abs(1 - eta * lam) for lam in M.eigenvals()])


def gradient_step_contraction_range(beta: Any) -> sp.Set:
    """The step sizes eta >= 0 for which max_{lambda in [0, beta]} |1 - eta lambda| <= 1, the
    Jacobian condition of the gradient step of a convex beta-smooth f (Dwork, Prop. 6.1 (2);
    Hessian eigenvalues in [0, beta]): |1 - eta lambda| is convex in lambda, so its maximum
    over [0, beta] is at lambda = 0 (value 1) or lambda = beta, and the set is SymPy's
    ``solveset`` of |1 - eta beta| <= 1 over the reals: [0, 2/beta] (``beta`` may be a
    positive symbol)."""
    beta = param("beta", beta, lower=0, lower_open=True, owner="gradient_step_contraction_range")
    eta = sp.Symbol("eta", real=True)
    return sp.solveset(sp.Abs(1 - eta * beta) <= 1, eta, sp.S.Reals)


def gradient_step_counterexample(beta: Any, eta: Any) -> dict:
    """For eta > 2/beta: f(w) = beta w^2/2 (convex, beta-smooth), the step psi(w) =
    (1 - eta beta) w and the points 0 and 1, |psi(1) - psi(0)| = |1 - eta beta| > 1 = |1 - 0|:
    the exact pair of points the step moves apart."""
    beta = param("beta", beta, lower=0, lower_open=True, numeric=True,
                 owner="gradient_step_counterexample")
    eta = param("eta", eta, lower=2 / beta, lower_open=True, numeric=True,
                owner="gradient_step_counterexample")
    w = sp.Symbol("w", real=True)
    f = beta * w**2 / 2
    psi = sp.Lambda(w, w - eta * sp.diff(f, w))
    return {"f": f, "points": (sp.Integer(0), sp.Integer(1)),
            "distance_before": sp.Integer(1), "distance_after": abs(psi(1) - psi(0))}
