"""The composing engines behind the product routes, for one product or for the two directions
of a symmetric hull: the certified Laplace inversion of the composed moment generating function
(numeric.cf, over the Arb views of the factors' privacy losses) and the privacy-loss
distribution engine (numeric.pld, over their float views), for delta(eps), eps(delta), values
at a level and whole curves.

The symmetric hull C(f) = min{f, f^{-1}}^{**} (Wang et al., Sec. 4) has the conjugate
C(f)^* = max{f^*, (f^{-1})^*} (the conjugate of a lower convex envelope of a minimum is the
maximum of the conjugates), so by Prop. 6 of Dong, Roth & Su its profile is the larger of the
two profiles: the "remove" and the "add" neighbouring relations of NoisySGD. Likewise
eps_C(delta) = max(eps_f(delta), eps_{f^-1}(delta)).
"""

from __future__ import annotations

import math
import warnings
from contextlib import nullcontext

from flint import arb
from mpmath.libmp import round_ceiling, round_floor

from ..core import trace
from ..core.errors import ToleranceWarning
from ..numeric import budget, pld
from ..numeric.arb import arb_endpoint, arb_exact
from ..numeric.arb_expr import arb_ball
from ..numeric.cf_atoms import DeltaLaw, has_decay
from ..numeric.cf_sampled_poly import share_relative
from ..numeric.context import arb_precision, mp
from ..numeric.offer import Engine, settle
from ..numeric.options import DEFAULT_TOL
from ..numeric.privacy_loss import privacy_loss
from ..numeric.protocol import (
    mp_curve,
    mp_epsilon,
)
from ..numeric.value import CertifiedPair
from ..operators.tensor import Tensor, TensorPower
from ..operators.unary import Inverse, SymmetricHull, hull_route
from .plan import _float_bracket, lattice_power, pld_leaves, route

__all__ = ["pld_delta", "pld_epsilon", "pld_value", "hull_directions", "lattice_enclosure",
           "certified_delta_part", "largest_loss", "zero_above_largest_loss", "looser_tolerances",
           "INVERSION", "PLD", "HULL_EPSILON", "HULL_DELTA"]

#: The names the engines' answers carry (``Value.route``).
INVERSION = "certified Laplace inversion"
PLD = "privacy-loss distribution"


def _refinements(leaf_sets, arg, kind: str) -> list:
    """PLD refinements of delta(eps) (kind 'delta') or eps(delta) ('epsilon') at the exact
    argument ``arg`` (an mpf, bracketed by floats) for each product in ``leaf_sets``."""
    o = pld.options()
    dn, up = _float_bracket(arg)
    make = pld.delta_refinement if kind == "delta" else pld.epsilon_refinement
    return [make(leaves, dn, up, o["h"], o["tail"], o["progress"]) for leaves in leaf_sets]


def _cf_laws(leaf_sets, atoms: bool = False) -> list | None:
    """The products as lists of (law, n) for the Laplace inversion (numeric.cf: the Arb views of
    the factors' privacy losses), or None when a factor has no law there, a fixed grid step was
    asked for, every law is closed under the tensor product (such products have closed forms),
    or no law's mgf decays (atoms alone: the inversion's t-range never closes;
    ``numeric.cf_atoms.has_decay``). With ``atoms`` (the routes of numeric.cf_route, which add
    the mass at +oo by Eq. (12)) the laws of atoms (``numeric.cf_atoms``) and the f_{0,delta}
    parts (``DeltaLaw``) are given too; without it (the curves of ``inversion_curve``, which
    invert the laws as they are) a product with either is None."""
    if pld.options()["h"] is not None:
        return None
    out = []
    for leaves in leaf_sets:
        rest, deltas = pld.split_trivial(pld._check_leaves(leaves))
        specs = [(_law(f), n) for f, n in rest]
        if not specs or any(s is None for s, _ in specs) or not has_decay(specs):
            return None
        if not atoms and (deltas or not all(getattr(s, "decays", True) for s, _ in specs)):
            return None
        specs += [(DeltaLaw(d), n) for d, n in deltas]
        out.append(specs)
    if all(law.closed_under_tensor for specs in out for law, _ in specs):
        return None
    return out


def _law(f):
    """The Arb view of f's loss: its ``law()``, else the law of its exact view (a finite pair:
    ``FiniteLoss.law``, the atoms of ``numeric.cf_atoms``; BinomialDP beyond its float atoms
    keeps the exact view only)."""
    pl = privacy_loss(f)
    if pl is None:
        return None
    law = pl.law()
    if law is None:
        ex = pl.exact()
        law = None if ex is None or ex is pl else ex.law()
    return law


#: Where the inversion cannot afford a tighter tolerance, it is asked for this one before the
#: PLD engine is (see :func:`_cf_enclosure`).
CF_FALLBACK_TOL = 1e-10


def _affordable(sets, kind: str, dn: float, tol: float) -> bool:
    """Is the plain plan at ``tol`` within ``cf_route.MAX_WORK`` for every product (one trial
    plan each, at the point and relative width the route plans at, kept by ``numeric.cf`` for
    the route's own call)? True for products with a law of their own ladder (``lattice_parts``,
    ``lattice_split``: ``cf_route`` chooses their widths) and for those ``cf_route`` answers
    from their law's own profile (``answers_from_profile``)."""
    from ..numeric import cf, cf_route
    from ..numeric.cf_laws import working_precision

    rel = max(tol / 4, cf_route.REL_MIN)
    with working_precision(64):
        for specs in sets:
            factors = [(law, int(n)) for law, n in specs]
            if any(hasattr(law, "lattice_parts") or hasattr(law, "lattice_split")
                   for law, _ in factors) or cf_route.answers_from_profile(factors):
                return True
            try:
                at = max(dn, 0.0) if kind == "delta" else cf._saddle_epsilon(factors, dn)
                if at > 0 and cf_route._work(factors, at, rel) > cf_route.MAX_WORK:
                    return False
            except budget.TimeLimitExceeded:  # (an ArithmeticError too: never a declined plan)
                raise
            except (ValueError, ArithmeticError, RuntimeError):
                return True  # (the route decides)
    return True


def looser_tolerances(tol: float) -> list[float]:
    """The tolerances a route tries, in order, after declining ``tol``: ten times looser each
    step up to the default (:data:`DEFAULT_TOL`), so that a tighter tolerance answers with the
    nearest looser one's enclosure and is never wider than it."""
    out, k = [], 1
    while tol * 10**k < DEFAULT_TOL:
        out.append(float(f"{tol * 10**k:.12g}"))  # (1e-9 * 10^3 is 1e-6 itself)
        k += 1
    return out + ([DEFAULT_TOL] if tol < DEFAULT_TOL else [])


#: The eps' > 0 of the fallback of delta(0) (:func:`_delta0_by_shift`): 2^-40, where the
#: inversion's threshold is off the point eps = 0 yet expm1(eps') ~ 9.1e-13 moves little.
DELTA0_SHIFT = mp.mpf(2) ** -40


def _cf_enclosure(leaf_sets, arg, kind: str):
    """:func:`_cf_direct`, and for delta at eps = 0 where it fails or is wider than the
    tolerance asked, the proved enclosure from delta(eps') (:func:`_delta0_by_shift`),
    intersected with the direct one when both exist (two certified enclosures of one number)."""
    if not (kind == "delta" and arg == 0):
        return _cf_direct(leaf_sets, arg, kind)
    asked = pld.options()["tol"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = _cf_direct(leaf_sets, arg, kind)
    if r is None or r[1] - r[0] > asked * abs(r[1]):
        s = _delta0_by_shift(leaf_sets)
        if s is not None:
            if r is not None:
                s = CertifiedPair(max(r[0], s[0]), min(r[1], s[1]))
            r, caught = s, []
            if r[1] - r[0] > asked * abs(r[1]):
                warnings.warn(f"delta(0) from delta(2^-40) by the Laplace inversion: the "
                              f"certified enclosure [{mp.nstr(r[0], 8)}, {mp.nstr(r[1], 8)}] "
                              f"is wider than the relative tolerance {asked:g}",
                              ToleranceWarning, stacklevel=4)
    for w in caught:  # (the direct route's own warnings, where its answer stands)
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return r


def _delta0_by_shift(leaf_sets) -> CertifiedPair | None:
    """delta(0) enclosed from a certified enclosure of delta(eps') at eps' = 2^-40
    (:data:`DELTA0_SHIFT`), where the inversion at the point eps = 0 fails or stays wide:

        delta(eps') <= delta(0) <= delta(eps') + expm1(eps').

    Proof. delta(e) = E_Q[(1 - e^{e - L})_+] (Dong, Roth & Su, Prop. 6; L the privacy loss,
    +oo where P = 0), non-increasing in e: the lower end. For 0 <= e < e' and each L, the
    integrand moves by g(e) - g(e') <= e^{-L}(e^{e'} - e^e) 1{L > e}: for L <= e it is 0; for
    e < L <= e', 1 - e^{e - L} = e^{-L}(e^L - e^e) <= e^{-L}(e^{e'} - e^e); for L > e',
    exactly e^{-L}(e^{e'} - e^e). Taking E_Q, E_Q[e^{-L} 1{L > e}] = P(L > e) <= 1 (the part
    of Q where L = +oo contributes 0), so delta(e) - delta(e') <= (e^{e'} - e^e) P(L > e) <=
    e^{e'} - 1 at e = 0. The bound expm1(2^-40) is rounded up in Arb; the sum outward. For
    the maximum over a hull's two products (leaf sets) the same holds for each, hence for
    the maximum. None where the inversion does not certify delta(eps')."""
    r = _cf_direct(leaf_sets, DELTA0_SHIFT, "delta")
    if r is None:
        return None
    with arb_precision(mp.prec + 64):
        up = arb_endpoint(arb_exact(DELTA0_SHIFT).expm1().upper(), round_ceiling)
    hi = min(mp.fadd(r[1], up, rounding="u"), mp.one)
    trace.note("delta(0) <= delta(2^-40) + expm1(2^-40) (Prop. 6)")
    return CertifiedPair(mp.mpf(r[0]), hi)


def _cf_direct(leaf_sets, arg, kind: str):
    """The certified Laplace inversion's enclosure (mpf lo, hi) of the quantity of
    :func:`pld_delta` / :func:`pld_epsilon`, or None (the PLD engine answers): subsampled
    Gaussian steps with Gaussian factors, where it reaches widths of 1e-9 and below in tens of
    milliseconds (Fourier inversion of the composed moment generating function on a certified
    trapezoidal rule, numeric.cf). Below :data:`CF_FALLBACK_TOL`, a tolerance whose plan is
    beyond the route's work is replaced by that one before anything is computed (one plan, not
    one at the tolerance asked and then another)."""
    sets = _cf_laws(leaf_sets, atoms=True)
    if sets is None or arg == mp.inf:
        return None
    from ..numeric import cf_route

    dn, up = _float_bracket(arg)
    asked = pld.options()["tol"]
    tol = asked
    if asked < CF_FALLBACK_TOL and not _affordable(sets, kind, dn, asked):
        # A tighter tolerance never gives a wider result: where the inversion cannot afford
        # the width asked, its enclosure at CF_FALLBACK_TOL is still far narrower than the PLD
        # engine's (whose float64 floor lies near 1e-6 to 1e-10).
        tol = CF_FALLBACK_TOL
    with trace.recording() as named, (share_relative() if kind == "delta" else nullcontext()):
        # (a route of cf_route that names itself: its own label; delta asked itself: the
        # subsampled Laplace split's interpolants as fine as its tolerance needs)
        r = cf_route.route_enclosure(sets, kind, dn, up, tol)
        for looser in looser_tolerances(tol):
            if r is not None:
                break
            # (declined by a path the trial does not see): the enclosure of the nearest looser
            # tolerance the route affords, never the PLD engine's wider one
            tol = looser
            r = cf_route.route_enclosure(sets, kind, dn, up, tol)
    if r is None or (r[0] <= 0 and r[1] >= (1 if kind == "delta" else math.inf)):
        return None  # (nothing learnt, [0, 1] or [0, oo]: the next route answers or refuses)
    if tol > asked and r[1] - r[0] > asked * abs(r[1]):
        warnings.warn(f"the Laplace inversion cannot afford the relative width {asked:g}; it "
                      f"returns its enclosure at {tol:g} (guaranteed, wider than asked)",
                      ToleranceWarning, stacklevel=4)
    if not named:
        trace.note(INVERSION)
    return CertifiedPair(mp.mpf(r[0]), mp.mpf(r[1]))  # Arb-proved


def largest_loss(leaves):
    """An Arb upper bound of the product's largest privacy loss, sum n_i ess sup L_i (each
    factor's law: ``loss_sup``), or None where a factor has no law, its loss is unbounded or
    it has mass at +oo (an f_{0,delta} part). The factors' laws as they are: not the
    inversion's selection (``_cf_laws`` drops products without a decaying factor)."""
    rest, deltas = pld.split_trivial(pld._check_leaves(leaves))
    if deltas or not rest:
        return None
    total = arb(0)
    for f, n in rest:
        law = _law(f)
        s = None if law is None else law.loss_sup()
        at_inf = getattr(law, "mass_at_infinity", None)
        if s is None or (at_inf is not None and not at_inf() == 0):
            return None
        total += int(n) * s
    return total


def zero_above_largest_loss(leaves, eps) -> CertifiedPair | None:
    """delta(eps) = 0 proved (the pair (0, 0)) when eps is at or above the product's largest
    privacy loss (:func:`largest_loss`, compared in Arb), else None."""
    with arb_precision(mp.prec + 64):
        top = largest_loss(leaves)
        if top is not None and arb_exact(eps) >= top:  # (True only when proved)
            return CertifiedPair(mp.zero, mp.zero)
    return None


def certified_delta_part(deltas, r) -> CertifiedPair | None:
    """delta = D + (1 - D) delta_rest = 1 - (1 - D)(1 - delta_rest) (Dong, Roth & Su, Eq. (12))
    from a proved enclosure ``r`` of delta_rest (a CertifiedPair; else None), 1 - D =
    prod (1 - delta_i)^{n_i} (Eq. (11)) as an Arb ball 64 bits beyond the working precision,
    the ends rounded outward to mpf: the f_{0,delta} parts keep a certified value certified."""
    if not isinstance(r, CertifiedPair):
        return None
    lo, hi = r
    with arb_precision(mp.prec + 64):
        keep = arb(1)
        try:
            for d, n in deltas:
                keep *= arb_ball(1 - d) ** int(n)
        except ValueError:  # (no Arb enclosure of a delta: the mpmath combination answers)
            return None
        b_lo = 1 - keep * (1 - arb_exact(lo))
        b_hi = 1 - keep * (1 - arb_exact(hi))
        out_lo = max(arb_endpoint(b_lo.lower(), round_floor), mp.zero)
        out_hi = min(arb_endpoint(b_hi.upper(), round_ceiling), mp.one)
    return CertifiedPair(out_lo, out_hi)  # Arb-proved


def lattice_enclosure(leaves, arg, kind: str):
    """delta(eps) (``kind`` "delta") or eps(delta) of a finite pair with lattice losses composed
    n times, in Arb (``numeric.lattice_power``, :func:`.plan.lattice_power`), at the relative
    width of ``pld_options`` (at least 1e-10, as the inversion)."""
    lp = lattice_power(leaves)
    tol = max(min(pld.options()["tol"], 1e-10) / 4, 1e-15)
    dn, up = _float_bracket(arg)
    if kind == "delta":  # (delta is non-increasing: the float bracket of eps)
        lo, hi = lp.delta(up, tol)[0], lp.delta(dn, tol)[1]
    else:
        lo, hi = lp.epsilon(dn, up, tol)
    return CertifiedPair(mp.mpf(lo), mp.mpf(hi))  # Arb-proved


def pld_delta(leaf_sets: list, eps, inversion: bool = True):
    """Enclosure (mpf lo, hi) of ``max_i delta_i(eps)`` over the products in ``leaf_sets`` (one
    product, or the two directions of a symmetric hull) by the PLD engine, refined to the
    relative tolerance of ``pld_options`` (or by the Laplace inversion, :func:`_cf_enclosure`,
    where it applies)."""
    o = pld.options()
    r = _cf_enclosure(leaf_sets, eps, "delta") if inversion else None
    if r is not None:
        return r
    if eps == mp.inf:  # delta(oo) = Q(L = +oo), carried exactly enough by both sides
        cs = [pld._composed(pld._check_leaves(x), o["h"] or pld.H_START, o["tail"], 0.0,
                            o["progress"]) for x in leaf_sets]
        return mp.mpf(max(c.opt.inf for c in cs)), mp.mpf(max(c.pess.inf for c in cs))
    lo, hi = pld.max_enclosure(_refinements(leaf_sets, eps, "delta"), o["tol"])
    trace.note(PLD)
    return mp.mpf(lo), mp.mpf(hi)


def pld_epsilon(leaf_sets: list, d, inversion: bool = True):
    """Enclosure (mpf lo, hi) of ``max_i eps_i(d)`` over the products in ``leaf_sets``
    (``inversion``: the Laplace inversion first, where it applies)."""
    r = _cf_enclosure(leaf_sets, d, "epsilon") if inversion else None
    if r is not None:
        return r
    lo, hi = pld.max_enclosure(_refinements(leaf_sets, d, "epsilon"), pld.options()["tol"])
    trace.note(PLD)
    return mp.mpf(lo), mp.mpf(hi)


def hull_directions(f) -> tuple | None:
    """The two products (leaves of f, leaves of f^{-1}) behind ``SymmetricHull(f)``, or None."""
    g = f.arg
    while isinstance(g, Inverse):
        g = g.arg
    if not isinstance(g, (Tensor, TensorPower)) or g.is_symmetric is True:
        return None
    leaves = pld_leaves(g)
    if leaves is None:
        return None
    inv = tuple((x if x.is_symmetric is True else Inverse(x), n) for x, n in leaves)
    return leaves, inv


def pld_value(leaf_sets: tuple, a, power: bool):
    """Enclosure (mpf lo, hi) of C(alpha) (``power``: 1 - C(alpha)) at the exact alpha (an mpf,
    bracketed by floats), C the product for one product in ``leaf_sets`` or the symmetric hull
    for a product and its inverse (numeric.pld.hull_roc_bounds)."""
    o = pld.options()
    dn, up = _float_bracket(a)
    r = pld.value_refinement(leaf_sets, dn, up, power, o["h"], o["tail"], o["progress"])
    lo, hi = pld.max_enclosure([r], o["tol"])
    trace.note(PLD)
    return mp.mpf(lo), mp.mpf(hi)


def pld_hull_value(f, a, power: bool):
    """:func:`pld_value` of ``f = SymmetricHull(g)`` for a product g (its two directions), or
    None when f is not such a hull."""
    dirs = hull_directions(f)
    return None if dirs is None else pld_value(dirs, a, power)


def _hull_route(g, f, kind: str, x):
    """The PLD route of ``f = SymmetricHull(g)`` for a product g: the larger of the profiles of
    its two directions (``kind`` "delta"), or the hull's value or power at alpha = x."""
    if kind == "delta":
        dirs = hull_directions(f)
        return None if dirs is None else _hull_delta(f, dirs, x)
    return pld_hull_value(f, x, kind == "roc")


hull_route.register(Tensor)(_hull_route)
hull_route.register(TensorPower)(_hull_route)



def _single_factor_epsilon(f, d):
    """eps_C(d) of ``f = SymmetricHull(g)`` for one factor g that is not a product (AddRemove(
    Mix(G_mu, q)): one Poisson-subsampled Gaussian step) whose two directions' loss laws give
    their profile themselves (``cf_route.answers_from_profile``: a closed form in Phi), as
    the power ``g^1`` would be (the larger of the two directions' eps, certified); None where
    they do not or the route declines (the bracketing search on the hull's profile answers)."""
    from ..numeric import cf_route

    g = f.arg
    if isinstance(g, (Tensor, TensorPower)) or g.is_symmetric is True:
        return None
    dirs = [((g, 1),), ((Inverse(g), 1),)]
    sets = _cf_laws(dirs, atoms=True)
    if sets is None or not all(cf_route.answers_from_profile([(law, int(n)) for law, n in s])
                               for s in sets):
        return None
    return _cf_enclosure(dirs, d, "epsilon")


#: Routes of eps_C(delta) of a hull of a product tried before the engines, ``route(f, d)`` ->
#: a CertifiedPair that meets the tolerance, an ``numeric.offer.Offer`` of one that does not,
#: or None (registered by later modules: ``routes.hull_cells``, the cells of a few subsampled
#: Laplace steps composed on a lattice; ``routes.hull_tilted``, both directions' cells).
HULL_EPSILON: list = []
#: Routes of delta_C(eps) of a hull of a product, as :data:`HULL_EPSILON`: asked before the
#: engines, each declining where the engines are fast (``routes.hull_tilted``).
HULL_DELTA: list = []
#: The note where such a route's bracket narrows the engines' answer or stands for it.
HULL_CELLS = "certified bracket of the loss's cells (symmetric hull eps)"
#: The note where a route of :data:`HULL_DELTA` narrows the engines' delta or stands for it.
HULL_CELLS_DELTA = "certified bracket of the loss's cells (symmetric hull delta)"


def _hull_epsilon(f, dirs, d):
    """eps_C(d): the first answer of :data:`HULL_EPSILON` (intersected with the offers before
    it); else the engines' enclosure (:func:`pld_epsilon`), intersected with the offers
    (certified enclosures of one number), with the engines' warnings where theirs is the
    narrower, the narrowest offer's ToleranceWarning where that is; the offers alone where the
    engines give an estimate (the PLD grid) (``numeric.offer.settle`` with the engines as its
    :class:`~..numeric.offer.Engine`: the rule of :func:`_hull_delta`)."""
    return _settle(HULL_EPSILON, f, d, lambda: pld_epsilon(list(dirs), d), HULL_CELLS)


def _hull_delta(f, dirs, eps):
    """delta_C(eps): the first answer of :data:`HULL_DELTA` (intersected with the offers before
    it; its routes apply only where the engines are slow, high per-step losses); else the
    engines' enclosure (:func:`pld_delta`), intersected with the offers' (certified enclosures
    of one number), with the engines' warnings where theirs is the narrower, the narrowest
    offer's ToleranceWarning where that is; the offers alone where the engines give an
    estimate (``numeric.offer.settle`` with the engines as its
    :class:`~..numeric.offer.Engine`)."""
    return _settle(HULL_DELTA, f, eps, lambda: pld_delta(list(dirs), eps), HULL_CELLS_DELTA)


def _settle(routes, f, x, answer, note: str):
    """``numeric.offer.settle`` of ``route(f, x)`` for the routes, the engines' ``answer()``
    behind them (certified: a CertifiedPair; a plain pair is the PLD grid's estimate), at the
    relative tolerance of ``pld_options``."""
    engine = Engine(answer, lambda r: isinstance(r, CertifiedPair), lambda: trace.note(note))
    return settle(routes, lambda route_, _tol: route_(f, x), pld.options()["tol"],
                  _relative_width, stacklevel=5, engine=engine)


def _relative_width(r) -> float:
    """(hi - lo) / |hi| of an enclosure (lo, hi): the measure of the engines' tolerance."""
    lo, hi = r
    if hi == 0:
        return 0.0 if lo == hi else math.inf
    return (hi - lo) / abs(hi)


@mp_epsilon.register(SymmetricHull)
def _(f, d):
    """eps_C(delta) = the larger of the two directions' (delta_C is the larger profile)."""
    dirs = hull_directions(f)
    if dirs is None:
        if f.arg.is_symmetric is True:
            return mp_epsilon(f.arg, d)
        with budget.about("epsilon", f):
            return _single_factor_epsilon(f, d)
    with budget.about("epsilon", f):
        return _hull_epsilon(f, dirs, d)


# -- whole curves: one composed grid for every level -----------------------------------------
def _curve_of(leaf_sets, x):
    o = pld.options()
    return pld.curve_enclosure(leaf_sets, x, o["tail"], o["tol"], o["progress"])


def _product_curve(f, x):
    kind, obj = route(f)
    return _curve_of([obj], x) if kind == "pld" else None


mp_curve.register(Tensor)(_product_curve)
mp_curve.register(TensorPower)(_product_curve)


@mp_curve.register(SymmetricHull)
def _(f, x):
    dirs = hull_directions(f)
    return None if dirs is None else _curve_of(list(dirs), x)
