"""The privacy loss of f_p and C_p(g) (``operators.subsample``): the PLD engine's model (f_p's
loss log(1 - p + p e^L), C_p(g)'s by Eq. (13) of Dong, Roth & Su), the Arb law of the
operand's family where it has one (the Poisson-subsampled Gaussian and its symmetric hull), the
exact finite loss built atom by atom (``numeric.finite_subsample``) and, for a symmetric
operand on one lattice too large for SymPy, the ordered Arb balls of ``numeric.subsample_balls``
with their point, level, curve and delta routes."""

from __future__ import annotations

from ..core.errors import NoClosedForm
from ..numeric.curves import CURVE_BANDS
from ..numeric.finite import arb_point, finite_loss
from ..numeric.finite_subsample import hull_finite_loss, mix_finite_loss, subsample_finite_loss
from ..numeric.knots_eval import pl_finite_loss
from ..numeric.pld import leaf_model
from ..numeric.privacy_loss import (
    AtomLoss,
    LazyLoss,
    PrivacyLoss,
    exact_fraction,
    loss_views,
    privacy_loss,
)
from ..numeric.protocol import LEVEL_ROUTES, POINT_ROUTES, arb_delta
from ..numeric.subsample_balls import subsampled_balls
from ._base import SamplingOperator
from .losses import MixLoss, SubsampleLoss
from .subsample import FINITE_VIEWS, Mix, Subsample


# -- privacy-loss model of f_p for the PLD engine (numeric.pld) --------------------------------
def _mixed_loss(f: SamplingOperator):
    """The loss law of f_p (Mix(f.arg, f.p)) for the PLD engine, or None; ``p = 0`` is the
    point mass at loss 0 (Id)."""
    if f.free_symbols:
        return None
    try:
        inner = leaf_model(f.arg)
    except NoClosedForm:
        return None
    p = float(f.p)
    if p == 0:
        return AtomLoss([0.0], [1.0], [1.0])
    return inner if p == 1 else MixLoss(inner, p)


def _mixed_law(f: SamplingOperator):
    """The Arb view of f_p: the operand's family knows it (its loss's ``mixed_law`` hook: the
    Poisson-subsampled Gaussian for G_mu), for an exact p in (0, 1)."""
    q = exact_fraction(f.p)
    inner = privacy_loss(f.arg)
    return None if inner is None or q is None or not 0 < q < 1 else inner.mixed_law(q)


def _hull_law(f: Subsample):
    """The Arb view of C_p(g) for symmetric g: the symmetric hull of f_p's law, which the law
    gives as ``symmetric_hull()`` (the Poisson-subsampled Gaussian's: an atom at loss 0 between
    f_p's losses above 0 and their mirror image, Eq. (13); ``families/gaussian_sampled_hull.py``),
    for an exact p in (0, 1); else None."""
    if f.arg.is_symmetric is not True:
        return None
    law = _mixed_law(f)
    hull = getattr(law, "symmetric_hull", None)
    return None if hull is None else hull()


def _subsample_grid(f: Subsample):
    """C_p(g), g symmetric: f_p above loss 0, an atom at 0, the mirror below (Eq. (13))."""
    if f.arg.is_symmetric is not True:
        return None
    m = _mixed_loss(f)
    return m if m is None or float(f.p) == 0 else SubsampleLoss(m)


_FINITE_MIXED: dict = {}


def _finite_mixed(f: SamplingOperator, hull: bool):
    """The exact finite loss of f_p (``hull``: of C_p(g) for symmetric g) built atom by atom
    from the operand's finite loss (``numeric.finite_subsample``), or None; f_p only where the
    operand's masses are rational. Kept for the last 64 nodes (its tables and balls are the
    loss's own caches: built once, not at every question)."""
    key = (f, hull)
    if key in _FINITE_MIXED:
        return _FINITE_MIXED[key]
    out = _build_finite_mixed(f, hull)
    if len(_FINITE_MIXED) >= 64:
        _FINITE_MIXED.clear()
    _FINITE_MIXED[key] = out
    return out


def _build_finite_mixed(f: SamplingOperator, hull: bool):
    if f.free_symbols:
        return None
    fl = finite_loss(f.arg)
    if fl is None or not fl.affordable():
        return None
    if hull:  # (symmetric: Eq. (13) atom by atom; else the exact hull of rational knots)
        return (subsample_finite_loss(fl, f.p) if f.arg.is_symmetric is True
                else hull_finite_loss(fl, f.p))
    # f_p of irrational masses: its ratios 1 - p + p r are closed forms that a product of such
    # factors would multiply in SymPy (the cost simulation alone took 0.5 s for 50 factors of
    # RR(1, 3)_{1/10}); its values come from the operand's balls (``_arb_mix``) instead
    out = mix_finite_loss(fl, f.p) if fl.is_rational else None
    return out


_BALL_SUBSAMPLE: dict = {}


def _ball_subsample(f: Subsample):
    """C_p(g) of a symmetric finite g on one lattice whose exact table is not built here (too
    many atoms for SymPy: RR(1, 3)^30 and beyond), as ordered Arb balls taken from the
    operand's lattice laws (``numeric.subsample_balls``), or None. Kept for the last 64 nodes."""
    if f in _BALL_SUBSAMPLE:
        return _BALL_SUBSAMPLE[f]
    out = None
    if not f.free_symbols and f.arg.is_symmetric is True and _finite_mixed(f, True) is None:
        fl = finite_loss(f.arg)
        out = None if fl is None else subsampled_balls(fl, f.p)
    if len(_BALL_SUBSAMPLE) >= 64:
        _BALL_SUBSAMPLE.clear()
    _BALL_SUBSAMPLE[f] = out
    return out


def _ball_point(f, A, dps: int, power: bool):
    """C_p(g)(A) (``power``: 1 - C_p(g)(A)) from :func:`_ball_subsample`'s balls (the maximum
    of the segments' lines, ``FiniteValues.arb_value``) as a certified point, or None."""

    if not isinstance(f, Subsample):
        return None
    bl = _ball_subsample(f)
    return None if bl is None else arb_point(bl, A, dps, power,
                                             "C_p(f) as a finite pair from the operand's balls")


def _ball_band(f, alphas, tol: float = 1e-3, progress: bool | None = None):
    """The certified band of C_p(g) at ``alphas`` from :func:`_ball_subsample`'s balls, or
    None (a ``numeric.curves.CURVE_BANDS`` route)."""
    if not isinstance(f, Subsample):
        return None
    bl = _ball_subsample(f)
    return None if bl is None else bl.band(alphas, tol)


def _ball_delta(f, eps):
    """delta of C_p(g) at the ball ``eps`` from :func:`_ball_subsample`'s balls (the
    hockey-stick sum) at Arb's working precision, or None."""
    from flint import ctx

    bl = _ball_subsample(f)
    return None if bl is None else bl.delta_ball(eps, ctx.prec)


_at = next((i + 1 for i, r in enumerate(POINT_ROUTES) if r.__name__ == "_finite_point"),
           len(POINT_ROUTES))
POINT_ROUTES.insert(_at, _ball_point)
_at = next((i + 1 for i, r in enumerate(LEVEL_ROUTES) if r.__name__ == "_finite_point"),
           len(LEVEL_ROUTES))
LEVEL_ROUTES.insert(_at, _ball_point)
CURVE_BANDS.insert(0, _ball_band)
arb_delta.register(Subsample)(_ball_delta)


def _finite_exact(f: SamplingOperator, A, hull: bool):
    """The exact value at the rational A from the exact finite loss of f_p (``hull``: of
    C_p(g)) built atom by atom, where its masses are rational; else None."""
    fl = _finite_mixed(f, hull)
    return None if fl is None else fl.value(A)


@privacy_loss.register(Mix)


@loss_views("grid", "exact", "law")
def _(f) -> PrivacyLoss | None:
    """f_p = T(P, (1 - p) P + p Q): loss log(1 - p + p e^L) (MixLoss); exact from the knots."""
    return LazyLoss(grid=lambda: _mixed_loss(f),
                    exact=lambda: pl_finite_loss(f) or _finite_mixed(f, False),
                    law=lambda: _mixed_law(f))


@privacy_loss.register(Subsample)


@loss_views("grid", "exact", "law")
def _(f) -> PrivacyLoss | None:
    """C_p(g) (SubsampleLoss for symmetric g); exact from the knots; the Arb law of the
    symmetric hull of f_p's law where it has one (G_mu)."""
    return LazyLoss(grid=lambda: _subsample_grid(f),
                    exact=lambda: pl_finite_loss(f) or _finite_mixed(f, True),
                    law=lambda: _hull_law(f))


FINITE_VIEWS.update(exact=_finite_exact, mixed=_finite_mixed, balls=_ball_subsample)
