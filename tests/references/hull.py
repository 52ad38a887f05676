"""The lower convex hull of points in the plane by Andrew's monotone chain (no
``tradeoff_algebra`` import): the trade-off function of a finite pair is the lower convex
hull of the points (alpha_phi, beta_phi) of its tests (Dong, Roth & Su, Appendix A), and the
symmetrisation C(f) the hull of min{f, f^{-1}} (Def. 6)."""

from __future__ import annotations

__all__ = ["monotone_chain"]


def monotone_chain(points) -> list:
    """The vertices of the lower convex hull of ``points``, tuples ``(x, y, *tags)`` already
    in increasing x (ties in increasing y), left to right: each point pops the last vertex
    while the turn (last but one, last, point) is not strictly counter-clockwise (collinear
    vertices dropped), then is appended. Exact in Fractions; the tags ride along. The caller
    sorts and removes what it must (points of equal x: their lowest only, or all of them)."""
    hull: list = []
    for p in points:
        while len(hull) >= 2:
            (x1, y1, *_), (x2, y2, *_) = hull[-2], hull[-1]
            if (x2 - x1) * (p[1] - y1) - (y2 - y1) * (p[0] - x1) <= 0:
                hull.pop()
            else:
                break
        hull.append(p)
    return hull
