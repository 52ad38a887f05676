"""Mixture mechanisms: joint concavity and advanced joint concavity of trade-off functions.

Wang, Su, Ye, Shokri & Su, "Unified enhancement of privacy bounds for mixture mechanisms via
f-DP" (cited as Wang et al.).

* **Lemma 3.1 (joint concavity).** For ``P_w = sum_i w_i P_i`` and ``Q_w = sum_i w_i Q_i``,
  ``T(P_w, Q_w) >= T((X|I, I), (Y|I, I))``: releasing the index I is a post-processing in
  reverse, so the joint pair in which I is observed is harder to beat. Its trade-off function
  is the weighted infimal convolution of the components,

      T_joint(alpha) = min { sum_i w_i f_i(alpha_i) : sum_i w_i alpha_i = alpha },   (J)

  f_i = T(P_i, Q_i), attained where every f_i has the same slope -e^s (the common
  log-likelihood-ratio threshold s of the Neyman--Pearson test on the joint). Its convex
  conjugate is ``sum_i w_i f_i^*`` and its privacy profile ``sum_i w_i delta_{f_i}`` (an exact
  identity: the hockey-stick divergence of a pair with a common observed index is the average
  of the components' divergences). :func:`joint_concavity` returns the joint pair:
  a :class:`~tradeoff_algebra.families.discrete.Discrete` node over the outcomes (i, x) for
  finite components, a :class:`GaussianJoint` node for Gaussian ones.
* **GaussianJoint.** Components N(0, 1) against N(mu_i, 1) (f_i = G_{|mu_i|}): the test with
  threshold s rejects ``mu_i x - mu_i^2/2 > s`` in component i, so with
  ``t_i = s/|mu_i| + |mu_i|/2``

      alpha(s) = sum_i w_i Phi(-t_i),   T_joint(alpha(s)) = sum_i w_i Phi(t_i - |mu_i|),

  the display of Wang et al., Thm. 5.1, for a finite index (their t is -s, their indicator
  terms are the same two formulas written for mu_I <= 0). Components with mu_i = 0 (Id) add the
  segment of slope -1 at s = 0.
* **Prop. 6.4** needs T(P0, Q0) symmetric (the shuffle pair is); for an asymmetric pair it fails
  (:data:`PROP64_COUNTEREXAMPLE`). :func:`prop64_bound` gives the corrected statement
  ``T(P, Q) >= C(2w Id + (1 - 2w) C(T(P0, Q0)))``: T(P, Q) is a function of T(P0, Q0) alone,
  non-decreasing in it (a kernel that maps (P0, Q0) to (P0', Q0') maps (P, Q) to (P', Q')), and
  C(f) is the largest symmetric trade-off function below f, to which the printed statement
  applies; for symmetric T(P0, Q0) it is the printed bound.
* **Lemma 6.3 (advanced joint concavity)** as corrected in ``proofs/audit/wang.md``: the cross
  terms are f_{1,2} = T(P2, Q1) and f_{2,1} = T(P1, Q2), and the case gamma = eta = w reads
  ``C((1-w) T(Q, P1) + w T(Q, P2))``: :func:`advanced_joint_concavity`.

The certified numerics of the parametric curves (alpha(s), beta(s)) of joint pairs are shared
with ``bounds.initialisation`` (:func:`parametric_enclosure`): a bracket of the threshold
certified by enclosures of alpha(s), then the value enclosed from above by the chord and the
monotone bound, from below by the tangent lines of slope -e^s (valid everywhere, as the curve is
convex), so the width is of second order in the bracket.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import sympy as sp
from mpmath.libmp import round_nearest
from sympy import Tuple

from ..core.citations import WANG
from ..core.errors import InvalidParameter, NumericalError
from ..core.node import TradeOff
from ..core.validate import param, probability_vector
from ..families.discrete import Discrete
from ..families.gaussian import Gaussian
from ..families.piecewise import PiecewiseLinear
from ..numeric.context import mp
from ..numeric.curve_enclosure import curve_enclosure, level_probe
from ..numeric.normal import ncdf
from ..numeric.protocol import (
    arb_value,
    mp_conjugate,
    mp_delta,
    num,
    register_value_and_power,
)
from ..numeric.roots import expand_bracket, findroot
from ..operators.subsample import Mix
from ..operators.unary import SymmetricHull

__all__ = ["GaussianJoint", "joint_concavity", "mixture_pair", "shuffle_mixture",
           "prop64_bound", "prop64_printed", "advanced_joint_concavity",
           "parametric_enclosure", "CurvePoint", "PROP64_COUNTEREXAMPLE",
           "LEMMA31_CITE", "PROP64_CITE", "LEMMA63_CITE"]

#: The sources.
LEMMA31_CITE = WANG.lemma("3.1", note="T(P_w, Q_w) >= T((X|I, I), (Y|I, I))")
PROP64_CITE = WANG.prop("6.4", note="corrected: C(T(P0, Q0)) in place of T(P0, Q0)")
LEMMA63_CITE = WANG.lemma("6.3", note="cross terms as corrected in proofs/audit/wang.md")

#: Prop. 6.4 as printed fails for this asymmetric pair: (P0, Q0, w, alpha, T(P, Q)(alpha),
#: printed bound at alpha), all exact.
PROP64_COUNTEREXAMPLE = (
    (sp.Rational(5, 9), sp.Rational(1, 9), sp.Rational(1, 3)),
    (sp.Rational(4, 7), sp.Rational(5, 14), sp.Rational(1, 14)),
    sp.Rational(3, 10), sp.Rational(59, 80), sp.Rational(4457, 28240),
    sp.Rational(10573, 65520))



# -- validation ------------------------------------------------------------------------------------
def _pair(P: Any, Q: Any, i: str, owner: str) -> Discrete:
    """``Discrete(P, Q)`` of the i-th pair, its errors naming ``P{i}``/``Q{i}``."""
    try:
        return Discrete(P, Q)
    except InvalidParameter as exc:
        name = exc.name
        if name[:1] in ("P", "Q"):
            name = name[0] + i + name[1:]
        raise InvalidParameter(name, exc.value, exc.allowed, owner, exc.hint) from None


def _level(name: str, w: Any, owner: str, upper: Any = 1) -> sp.Expr:
    return param(name, w, lower=0, upper=upper, owner=owner)


# -- the finite joint pair (Lemma 3.1) -------------------------------------------------------------
def _as_pair(i: int, comp: Any, owner: str) -> tuple[list, list] | None:
    """(P_i, Q_i) of a finite component: a Discrete node or a pair of sequences."""
    if isinstance(comp, Discrete):
        return list(comp.P), list(comp.Q)
    if isinstance(comp, (tuple, list, sp.Tuple)) and len(comp) == 2 and not isinstance(
            comp[0], (int, float, sp.Expr)) and not isinstance(comp, TradeOff):
        d = Discrete(comp[0], comp[1])  # validates both distributions
        return list(d.P), list(d.Q)
    return None


def mixture_pair(weights: Sequence, pairs: Sequence) -> Discrete:
    """T(P_w, Q_w) of the mixtures ``P_w = sum_i w_i P_i``, ``Q_w = sum_i w_i Q_i`` (the left
    side of Wang et al., Lemma 3.1), for finite components on a common outcome set.

    ``pairs`` holds ``(P_i, Q_i)`` (sequences of probabilities) or ``Discrete`` nodes."""
    ws, comps = _components(weights, pairs, "mixture_pair")
    if not all(isinstance(c, tuple) for c in comps):
        raise InvalidParameter("pairs", pairs, "finite pairs (P_i, Q_i) or Discrete nodes",
                               "mixture_pair")
    k = len(comps[0][0])
    for i, (P, _) in enumerate(comps):
        if len(P) != k:
            raise InvalidParameter(f"pairs[{i}]", pairs[i], f"distributions on the same {k} "
                                   "outcomes as pairs[0]", "mixture_pair")
    P = [sp.Add(*(w * c[0][j] for w, c in zip(ws, comps, strict=True))) for j in range(k)]
    Q = [sp.Add(*(w * c[1][j] for w, c in zip(ws, comps, strict=True))) for j in range(k)]
    return Discrete(P, Q)


def _components(weights: Sequence, pairs: Sequence, owner: str):
    if isinstance(pairs, (str, bytes)) or not isinstance(pairs, (Sequence, sp.Tuple)):
        raise InvalidParameter("pairs", pairs, "a sequence of components", owner)
    pairs = list(pairs)
    ws = probability_vector("weights", weights, owner)
    if len(pairs) != len(ws):
        raise InvalidParameter("pairs", pairs, f"{len(ws)} components (one per weight)", owner)
    comps: list = []
    for i, c in enumerate(pairs):
        if isinstance(c, Gaussian):
            comps.append(c)
            continue
        pq = _as_pair(i, c, owner)
        if pq is None:
            raise InvalidParameter(f"pairs[{i}]", c, "a finite pair (P_i, Q_i) of probability "
                                   "sequences, a Discrete node, or a Gaussian node G(mu_i)",
                                   owner)
        comps.append(pq)
    return ws, comps


def joint_concavity(weights: Sequence, pairs: Sequence) -> TradeOff:
    """The joint pair T((X|I, I), (Y|I, I)) of Wang et al., Lemma 3.1: a lower bound of
    T(P_w, Q_w) for the mixtures ``P_w = sum_i w_i P_i``, ``Q_w = sum_i w_i Q_i``.

    ``pairs[i]`` is a finite pair ``(P_i, Q_i)`` (sequences of probabilities) or a ``Discrete``
    node: the result is the ``Discrete`` node of the outcomes (i, x) with masses
    ``w_i P_i(x)`` and ``w_i Q_i(x)`` (components may have different outcome sets). Or every
    ``pairs[i]`` is a Gaussian node ``G(mu_i)`` (N(0, 1) against N(mu_i, 1)): the result is
    ``GaussianJoint(weights, [mu_i])``. Components with weight 0 are kept (they carry no mass).
    """
    ws, comps = _components(weights, pairs, "joint_concavity")
    gauss = [isinstance(c, Gaussian) for c in comps]
    if all(gauss):
        return GaussianJoint(ws, [c.mu for c in comps])
    if any(gauss):
        raise InvalidParameter("pairs", pairs, "components of one kind: all finite pairs or "
                               "all Gaussian nodes", "joint_concavity")
    P = [w * p for w, (Pi, _) in zip(ws, comps, strict=True) for p in Pi]
    Q = [w * q for w, (_, Qi) in zip(ws, comps, strict=True) for q in Qi]
    return Discrete(P, Q)


# -- the certified parametric curve ----------------------------------------------------------------
class CurvePoint:
    """Enclosures (lo, hi) of a point of a convex trade-off curve with parameter lam:
    ``A`` = alpha(lam), ``Ac`` = 1 - alpha(lam), ``B`` = f(alpha(lam)), ``Bc`` = 1 - B, and
    ``slope`` = -f'(alpha(lam)) = e^{s(lam)} (a supporting slope there). Values may be given
    lazily by a function ``get(name)`` (computed on first use)."""

    __slots__ = ("lam", "_get", "_cache")

    def __init__(self, lam, get: Callable[[str], tuple]):
        self.lam = lam
        self._get = get
        self._cache: dict = {}

    def __getattr__(self, name: str):
        if name in ("A", "Ac", "B", "Bc", "slope"):
            cache = object.__getattribute__(self, "_cache")
            if name not in cache:
                cache[name] = object.__getattribute__(self, "_get")(name)
            return cache[name]
        raise AttributeError(name)

    def get(self, name: str) -> tuple:
        """The enclosure of ``name`` (the point protocol of ``numeric.curve_enclosure``)."""
        return getattr(self, name)


def parametric_enclosure(point: Callable[[Any], CurvePoint], a, ac, *, power: bool = False,
                         rel_bits: int | None = None, what: str = "trade-off curve",
                         start=None, step=None, bracket: bool = False) -> tuple:
    """Enclosure (lo, hi) of f(alpha) (or of 1 - f(alpha) with ``power``) for a convex
    trade-off curve given by its points ``point(lam)`` (:class:`CurvePoint`, alpha(lam)
    non-increasing in lam, every lam in R admissible), at the level (a, ac) = (alpha,
    1 - alpha), 0 < alpha < 1.

    A bracket alpha(lam_H) <= alpha <= alpha(lam_L) is found by doubling steps and narrowed by
    Illinois steps on log alpha(lam) (:func:`numeric.roots.findroot`); only certified
    comparisons move it, and an undecided comparison is bracketed from both sides. The value is
    enclosed by :func:`numeric.curve_enclosure.curve_enclosure` (second order in the bracket
    width), and the search stops when the relative width is below ``2^-rel_bits`` (default:
    working precision less 40 bits) or the bracket cannot shrink further. ``bracket``: return
    the two points (L, H) of the final bracket instead.
    """
    lower = a <= ac
    rel = mp.ldexp(1, -(rel_bits if rel_bits is not None else max(mp.prec - 40, 20)))
    lam = mp.zero if start is None else start
    stp = mp.one if step is None else step
    pts: dict = {}

    def at(x) -> CurvePoint:
        if x not in pts:
            pts[x] = point(x)
        return pts[x]

    def trial(L, H, last, i):  # lam, then steps doubling from it: leftwards to a certain L
        if last is None:       # (from H once known), then rightwards from L
            return lam
        d = stp * 2 ** (i - 1)
        return (H if H is not None else lam) - d if L is None else L + d

    def fail(L, H):
        raise NumericalError(f"{what}: no bracket of the Neyman-Pearson threshold was found")

    L, H, *_ = expand_bracket(lambda x: level_probe(at(x), a, ac, lower), trial, fail=fail)

    def value(lo, hi) -> tuple:
        return curve_enclosure(at(lo), at(hi), a, ac, power=power)

    def done(lo, hi) -> bool:
        v_lo, v_hi = value(lo, hi)
        return v_hi - v_lo <= rel * v_hi or v_hi == v_lo

    r = findroot(lambda x: level_probe(at(x), a, ac, lower), (L, H), method="illinois",
                 ends=(1, -1), rtol=0, done=done, undecided="narrow",
                 max_iter=40 * mp.prec + 400)
    if bracket:
        return at(r.lo), at(r.hi)
    return value(r.lo, r.hi)


def arb_parametric_value(point: Callable[[Any], CurvePoint],
                         ball_point: Callable[[CurvePoint], dict | None], a, ac, power: bool,
                         **kw) -> Any:
    """An Arb ball of f(alpha) (``power``: 1 - f(alpha)) for balls a, ac, or None: the bracket
    of the threshold found by :func:`parametric_enclosure` at the midpoints of the balls (an
    estimate), then both its points as Arb balls (``ball_point``: rigorous enclosures of A,
    Ac, B, Bc and the slope), the bracket proved and the value bounded in Arb
    (:func:`~..numeric.curve_enclosure.arb_curve_enclosure`)."""
    from flint import ctx

    from ..numeric.arb import arb_endpoint
    from ..numeric.curve_enclosure import arb_curve_enclosure

    if not (a > 0 and ac > 0):
        return None
    with mp.workprec(ctx.prec + 16):
        am = arb_endpoint(a.mid(), round_nearest)
        acm = arb_endpoint(ac.mid(), round_nearest)
        kw.setdefault("rel_bits", ctx.prec)  # (the bounds are of second order in the width)
        try:
            L, H = parametric_enclosure(point, am, acm, power=power, bracket=True, **kw)
        except NumericalError:
            return None
        # the search stops where alpha(lam) meets the rounded level: step a little outside,
        # so that Arb decides alpha(H) < alpha < alpha(L) (the bounds are of second order)
        step = mp.ldexp(max(abs(L.lam), abs(H.lam), mp.one), -(ctx.prec - 24))
        PL, PH = ball_point(point(L.lam - step)), ball_point(point(H.lam + step))
    if PL is None or PH is None:
        return None
    return arb_curve_enclosure(PL, PH, a, ac, power=power)


# -- GaussianJoint ------------------------------------------------------------------------------
class GaussianJoint(TradeOff):
    """T((X|I, I), (Y|I, I)) with P(I = i) = w_i, X|I ~ N(0, 1), Y|I ~ N(mu_i, 1): the joint pair
    of Wang et al., Lemma 3.1 for Gaussian components, and the finite-index form of Thm. 5.1.

    The trade-off function is the weighted infimal convolution (J) of the G_{|mu_i|}: with
    ``t_i = s/|mu_i| + |mu_i|/2``, ``alpha(s) = sum_i w_i Phi(-t_i)`` and
    ``f(alpha(s)) = sum_i w_i Phi(t_i - |mu_i|)``. It lies below T(P_w, Q_w) of the mixtures
    (Lemma 3.1) and is symmetric (Wang et al., Prop. 3.2). ``weights`` is a probability vector,
    ``mus`` real numbers of the same length (only |mu_i| matters).
    """

    def __new__(cls, weights: Any, mus: Any):
        ws = probability_vector("weights", weights, "GaussianJoint")
        if isinstance(mus, (str, bytes)) or not isinstance(mus, (Sequence, sp.Tuple)):
            raise InvalidParameter("mus", mus, "a sequence of real numbers", "GaussianJoint")
        ms = [param(f"mus[{i}]", m, owner="GaussianJoint") for i, m in enumerate(mus)]
        if len(ms) != len(ws):
            raise InvalidParameter("mus", mus, f"{len(ws)} real numbers (one per weight)",
                                   "GaussianJoint")
        return TradeOff.__new__(cls, Tuple(*ws), Tuple(*ms))

    @property
    def weights(self) -> Tuple:
        return self.args[0]

    @property
    def mus(self) -> Tuple:
        return self.args[1]

    @property
    def is_symmetric(self) -> bool:
        return True

    def _sympystr(self, printer):
        return "GaussianJoint([%s], [%s])" % (
            ", ".join(printer._print(w) for w in self.weights),
            ", ".join(printer._print(m) for m in self.mus))

    def _latex(self, printer):
        comps = ", ".join(r"%s\,G_{%s}" % (printer._print(w), printer._print(sp.Abs(m)))
                          for w, m in zip(self.weights, self.mus, strict=True))
        return r"\mathrm{Joint}\left(%s\right)" % comps


def _gj_parts(f: GaussianJoint):
    """(weights, |mu|) of the components with mu != 0, and the total weight of mu = 0."""
    ws, ms, w0 = [], [], mp.zero
    for w, m in zip(f.weights, f.mus, strict=True):
        wv, mv = num(w, "weight"), abs(num(m, "mu"))
        if wv == 0:
            continue
        if mv == 0:
            w0 += wv
        else:
            ws.append(wv)
            ms.append(mv)
    return ws, ms, w0


def _gj_point_factory(f: GaussianJoint):
    """point(lam) for :func:`parametric_enclosure`: lam = s when no component is Id; with Id
    components (total weight w0) lam >= 1 is s = lam - 1, lam <= -1 is s = lam + 1, and
    -1 < lam < 1 runs along the segment of slope -1 at s = 0 (the Id components reject with
    probability u = (1 - lam)/2)."""
    ws, ms, w0 = _gj_parts(f)
    prec = mp.prec

    def decode(lam):
        if w0 == 0:
            return lam, None
        if lam >= 1:
            return lam - 1, mp.zero
        if lam <= -1:
            return lam + 1, mp.one
        return mp.zero, (1 - lam) / 2

    def get_all(lam):
        s, u = decode(lam)
        big = max([abs(s) / m + m for m in ms] + [mp.one])
        extra = 30 + 2 * max(int(mp.mag(big)), 0)
        with mp.workprec(prec + extra):
            A = Ac = B = Bc = mp.zero
            for w, m in zip(ws, ms, strict=True):
                t = s / m + m / 2
                A += w * ncdf(-t)
                Ac += w * ncdf(t)
                B += w * ncdf(t - m)
                Bc += w * ncdf(m - t)
            if u is not None:
                A += w0 * u
                Ac += w0 * (1 - u)
                B += w0 * (1 - u)
                Bc += w0 * u
            es = mp.exp(s)
        tol = mp.ldexp(1, -prec - 4)
        out = {}
        for name, v in (("A", A), ("Ac", Ac), ("B", B), ("Bc", Bc), ("slope", es)):
            v = +v
            out[name] = (v * (1 - tol), v * (1 + tol))
        return out

    def point(lam):
        cache: dict = {}

        def get(name):
            if not cache:
                cache.update(get_all(lam))
            return cache[name]

        return CurvePoint(lam, get)

    return point, ms, w0


def _gj_value(f: GaussianJoint, a, ac, power: bool):
    if a == 0 or ac == 0:
        one, zero = mp.one, mp.zero
        v = (zero if a == 0 else one) if power else (one if a == 0 else zero)
        return v, v
    point, ms, w0 = _gj_point_factory(f)
    if not ms:  # every component is Id
        v = a if power else ac
        return v, v
    return parametric_enclosure(point, a, ac, power=power, what=f"evaluate({f})",
                                step=max(ms))


register_value_and_power(GaussianJoint, _gj_value)


def _gj_ball_point(f: GaussianJoint):
    """point -> the Arb balls of A, Ac, B, Bc and the slope e^s at the point's parameter
    (:func:`_gj_point_factory`'s decoding of lam, formed in Arb from the exact lam)."""
    from flint import arb

    from ..numeric.arb import arb_exact
    from ..numeric.arb_expr import arb_ball

    comps = [(arb_ball(w), arb_ball(sp.Abs(m))) for w, m in zip(f.weights, f.mus, strict=True)
             if w != 0]
    w0 = sum((w for w, m in comps if m == 0), arb(0))
    comps = [(w, m) for w, m in comps if not m == 0]
    if any(not m > 0 for _, m in comps):
        return None

    def phi(x):
        return (-x / arb(2).sqrt()).erfc() / 2

    def ball(p):
        lam = arb_exact(p.lam)
        if w0 == 0:
            s, u = lam, None
        elif lam >= 1:
            s, u = lam - 1, arb(0)
        elif lam <= -1:
            s, u = lam + 1, arb(1)
        elif lam > -1 and lam < 1:
            s, u = arb(0), (1 - lam) / 2
        else:
            return None
        A = Ac = B = Bc = arb(0)
        for w, m in comps:
            t = s / m + m / 2
            A, Ac = A + w * phi(-t), Ac + w * phi(t)
            B, Bc = B + w * phi(t - m), Bc + w * phi(m - t)
        if u is not None:
            A, Ac = A + w0 * u, Ac + w0 * (1 - u)
            B, Bc = B + w0 * (1 - u), Bc + w0 * u
        return {"A": A, "Ac": Ac, "B": B, "Bc": Bc, "slope": s.exp()}

    return ball


def _gj_arb_value(f: GaussianJoint, a, ac, power: bool):
    """The Arb ball of f(alpha) (:func:`arb_parametric_value`), or None."""
    from flint import ctx

    if f.free_symbols:
        return None
    with mp.workprec(ctx.prec + 16):  # (the factory takes the working precision)
        point, ms, _ = _gj_point_factory(f)
    ball = _gj_ball_point(f)
    if not ms or ball is None:
        return None
    return arb_parametric_value(point, ball, a, ac, power, what=f"evaluate({f})",
                                step=max(ms))


arb_value.register(GaussianJoint)(_gj_arb_value)


def _weighted(f: GaussianJoint, part) -> tuple:
    """sum_i w_i part(G_{|mu_i|}) over the components, from their enclosures (lo, hi)."""
    lo = hi = mp.zero
    for w, m in zip(f.weights, f.mus, strict=True):
        wv = num(w, "weight")
        if wv == 0:
            continue
        plo, phi = part(Gaussian(sp.Abs(m)))
        lo += wv * plo
        hi += wv * phi
    return lo, hi


@mp_conjugate.register(GaussianJoint)
def _(f, y):
    """f^* = sum_i w_i G_{|mu_i|}^* (the conjugate of the infimal convolution (J))."""
    return _weighted(f, lambda g: mp_conjugate(g, y))


@mp_delta.register(GaussianJoint)
def _(f, eps):
    """delta(eps) = sum_i w_i delta_{G_{|mu_i|}}(eps): the hockey-stick divergence of a pair
    with an observed index is the average of its components' (exact identity)."""
    return _weighted(f, lambda g: mp_delta(g, eps))


# -- Prop. 6.4 -----------------------------------------------------------------------------------
def shuffle_mixture(P0: Sequence, Q0: Sequence, w: Any) -> Discrete:
    """T(P, Q) for P = (1 - w) P0 + w Q0 and Q = (1 - w) Q0 + w P0 (Wang et al., Sec. 4.1 and
    Prop. 6.4), exactly."""
    d = Discrete(P0, Q0)
    w = _level("w", w, "shuffle_mixture")
    P = [(1 - w) * p + w * q for p, q in zip(d.P, d.Q, strict=True)]
    Q = [(1 - w) * q + w * p for p, q in zip(d.P, d.Q, strict=True)]
    return Discrete(P, Q)


def prop64_printed(P0: Sequence, Q0: Sequence, w: Any) -> TradeOff:
    """The right-hand side of Wang et al., Prop. 6.4 as printed: C(2w Id + (1 - 2w) T(P0, Q0)),
    0 <= w <= 1/2. A lower bound of T(P, Q) when T(P0, Q0) is symmetric; not in general
    (:data:`PROP64_COUNTEREXAMPLE`)."""
    w = _level("w", w, "prop64_printed", upper=sp.Rational(1, 2))
    return SymmetricHull(Mix(Discrete(P0, Q0), 1 - 2 * w))


def prop64_bound(P0: Sequence, Q0: Sequence, w: Any) -> TradeOff:
    """Wang et al., Prop. 6.4, corrected: T(P, Q) >= C(2w Id + (1 - 2w) C(T(P0, Q0))) for
    P = (1 - w) P0 + w Q0, Q = (1 - w) Q0 + w P0 and 0 <= w <= 1/2.

    For symmetric T(P0, Q0) (the shuffle pair) C(T(P0, Q0)) = T(P0, Q0) and this is the printed
    bound, returned as printed. Otherwise the printed bound can fail; the proof of the corrected
    one: (P, Q) is the image of (P0, Q0) under a map that commutes with Markov kernels, so
    T(P, Q) depends on T(P0, Q0) only and is non-decreasing in it (Blackwell); g = C(T(P0, Q0))
    is a symmetric trade-off function below T(P0, Q0) (the largest one), realised by a finite
    pair, to which the printed statement applies.
    """
    w = _level("w", w, "prop64_bound", upper=sp.Rational(1, 2))
    f0 = Discrete(P0, Q0)
    g = f0 if f0.is_symmetric is True else SymmetricHull(f0)
    return SymmetricHull(Mix(g, 1 - 2 * w))


# -- Lemma 6.3 -----------------------------------------------------------------------------------
def _frac_knots(f: TradeOff) -> list[tuple[Fraction, Fraction]]:
    kn = f.knots if isinstance(f, (Discrete, PiecewiseLinear)) else None
    if kn is None:
        raise InvalidParameter("f", f, "a finite trade-off function with numeric knots",
                               "advanced_joint_concavity")
    out = []
    for x, y in kn:
        if not (isinstance(x, sp.Rational) and isinstance(y, sp.Rational)):
            raise InvalidParameter("P_i, Q_i", f, "rational probabilities",
                                   "advanced_joint_concavity")
        out.append((Fraction(int(x.p), int(x.q)), Fraction(int(y.p), int(y.q))))
    return out


def _pl_eval(kn: list, x: Fraction) -> Fraction:
    for (x1, y1), (x2, y2) in zip(kn, kn[1:], strict=False):
        if x1 <= x <= x2:
            return y1 + (y2 - y1) * (x - x1) / (x2 - x1)
    raise ValueError(x)  # pragma: no cover - x in [0, 1]


def _to_pl(kn: list[tuple[Fraction, Fraction]]) -> PiecewiseLinear:
    return PiecewiseLinear([(sp.Rational(x.numerator, x.denominator),
                             sp.Rational(y.numerator, y.denominator)) for x, y in kn])


def _conj_combination(parts: list) -> list[tuple[Fraction, Fraction]]:
    """Knots of (sum_i c_i F_i^*)^* for F_i(x) = f_i(s_i x), f_i piecewise linear: the infimal
    convolution of the c_i F_i(x / c_i), i.e. the segments of every f_i with lengths scaled by
    c_i/s_i and slopes by s_i, laid end to end by increasing slope from sum_i c_i f_i(0)."""
    y = sum((c * kn[0][1] for c, kn, _ in parts), Fraction(0))
    segs = []
    for c, kn, s in parts:
        for (x1, y1), (x2, y2) in zip(kn, kn[1:], strict=False):
            segs.append(((y2 - y1) / (x2 - x1) * s, (x2 - x1) * c / s))
    segs.sort(key=lambda t: t[0])
    x = Fraction(0)
    out = [(x, y)]
    for slope, length in segs:
        x, y = x + length, y + slope * length
        if x != out[-1][0]:
            out.append((x, y))
    out[-1] = (Fraction(1), Fraction(0)) if out[-1][0] == 1 else out[-1]
    return out


def _fr(x: sp.Expr, name: str) -> Fraction:
    if not isinstance(x, sp.Rational):
        raise InvalidParameter(name, x, "a rational number", "advanced_joint_concavity")
    return Fraction(int(x.p), int(x.q))


def advanced_joint_concavity(P1: Sequence, Q1: Sequence, P2: Sequence, Q2: Sequence, w: Any,
                             gamma: Any = None, eta: Any = None) -> TradeOff:
    """Wang et al., Lemma 6.3 (advanced joint concavity), corrected as in
    ``proofs/audit/wang.md``: a lower bound of T((1-w)P1 + wP2, (1-w)Q1 + wQ2) for finite
    pairs with rational entries.

    * ``0 <= gamma < w < eta <= 1``: ``C(((1-w)(1-gamma) F_{1,1}^* + w(1-eta) F_{2,1}^*
      + (1-w) gamma F_{1,2}^* + w eta F_{2,2}^*)^*)`` with ``F_{1,i}(x) = f_{1,i}(s1 x)``,
      ``F_{2,i}(x) = f_{2,i}(s2 x)``, ``s1 = (1-w)(eta-gamma)/(eta-w)``,
      ``s2 = w(eta-gamma)/(w-gamma)``, ``f_{1,1} = T(P1, Q1)``, ``f_{2,2} = T(P2, Q2)`` and the
      cross terms ``f_{1,2} = T(P2, Q1)``, ``f_{2,1} = T(P1, Q2)`` (printed: T(P1, Q2) and
      T(P2, Q1), which fails).
    * ``gamma = eta = w`` (or both omitted): ``C((1-w) T(Q, P1) + w T(Q, P2))`` with
      ``Q = (1-w)Q1 + wQ2`` (printed with T(P_i, Q), which fails).

    The (inner) function is built exactly from the knots; the result is
    ``SymmetricHull(PiecewiseLinear(...))``. The paper assumes T(P_i, Q_i) symmetric.
    """
    owner = "advanced_joint_concavity"
    d1, d2 = _pair(P1, Q1, "1", owner), _pair(P2, Q2, "2", owner)
    if len(d1.Q) != len(d2.Q):
        raise InvalidParameter("P2", P2, f"distributions on the same {len(d1.P)} outcomes as "
                               "P1", owner)
    w = _level("w", w, owner)
    W = _fr(w, "w")
    if (gamma is None) != (eta is None):
        raise InvalidParameter("eta" if eta is None else "gamma", None,
                               "both gamma and eta, or neither", owner)
    if gamma is not None:  # numbers first (the comparisons below sympified anything)
        gamma = param("gamma", gamma, lower=0, upper=1, owner=owner)
        eta = param("eta", eta, lower=0, upper=1, owner=owner)
    if gamma is None or (gamma == w and eta == w):
        Q = [(1 - w) * q1 + w * q2 for q1, q2 in zip(d1.Q, d2.Q, strict=True)]
        k1 = _frac_knots(Discrete(Q, list(d1.P)))
        k2 = _frac_knots(Discrete(Q, list(d2.P)))
        xs = sorted({x for x, _ in k1} | {x for x, _ in k2})
        kn = [(x, (1 - W) * _pl_eval(k1, x) + W * _pl_eval(k2, x)) for x in xs]
        return SymmetricHull(_to_pl(kn))
    g = _fr(param("gamma", gamma, lower=0, upper=w, upper_open=True, owner=owner), "gamma")
    e = _fr(param("eta", eta, lower=w, upper=1, lower_open=True, owner=owner), "eta")
    if not g < W < e:
        raise InvalidParameter("gamma, eta", (gamma, eta), "0 <= gamma < w < eta <= 1", owner)
    s1 = (1 - W) * (e - g) / (e - W)
    s2 = W * (e - g) / (W - g)
    f11, f22 = _frac_knots(d1), _frac_knots(d2)
    f12 = _frac_knots(Discrete(list(d2.P), list(d1.Q)))  # T(P2, Q1)
    f21 = _frac_knots(Discrete(list(d1.P), list(d2.Q)))  # T(P1, Q2)
    parts = [(c, kn, s) for c, kn, s in [((1 - W) * (1 - g), f11, s1), (W * (1 - e), f21, s2),
                                         ((1 - W) * g, f12, s1), (W * e, f22, s2)] if c > 0]
    return SymmetricHull(_to_pl(_conj_combination(parts)))
