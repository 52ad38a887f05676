"""Mechanism constructors: trade-off expressions from what a practitioner knows.

* ``gaussian_mechanism(sensitivity, sigma)`` is G_{Delta/sigma} (Dong, Roth & Su, Thm. 2.7;
  Kaissis et al.'s sensitivity index psi = Delta/sigma).
* ``laplace_mechanism(sensitivity, scale)`` is L_{Delta/b}: adding Lap(0, b) to a statistic of
  sensitivity Delta gives the pair Lap(0, b), Lap(Delta, b), whose trade-off is that of
  Lap(0, 1), Lap(Delta/b, 1) (Dong, Roth & Su, Prop. 7).
* ``sensitivity_index(sensitivity, sigma)`` is psi = Delta/sigma (Kaissis et al., Def. 6): the
  Gaussian mechanism's trade-off function is G_psi.
* ``gaussian_sigma(sensitivity, eps, delta, method=...)`` calibrates the noise: ``"exact"`` the
  smallest sigma with delta_{G_{Delta/sigma}}(eps) <= delta (Dong, Roth & Su, Cor. 1; the
  analytic Gaussian mechanism of Balle & Wang 2018; Kaissis et al., Cor. 13), a certified
  enclosure whose upper end is safe; ``"dwork"`` sigma = c Delta/eps with c^2 = 2 ln(2/delta)
  (Dwork, Thm. 4.3), valid only for eps <= 1 as corrected in ``proofs/`` (it fails at
  eps = 10, delta = 1e-5: delta_G(10) = 1.364e-5).
* ``shuffle(eps0, n)`` is the exact trade-off function of the shuffle model's post-processing
  pair (Wang et al., Sec. 4.1; ``ShuffleDP``); ``bound="wang"`` gives their Thm. 4.2 bound
  (``ShuffleDP(eps0, n, bound="wang")``).
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from .analysis.conversions import delta as _delta
from .core.errors import InvalidParameter
from .core.labels import labelled
from .core.validate import choice, count, param
from .families.discrete_gaussian import DiscreteGaussian
from .families.gaussian import Gaussian
from .families.laplace import Laplace
from .numeric import budget
from .numeric.context import mp
from .numeric.protocol import MAX_DPS, short
from .numeric.roots import Probe, expand_bracket, findroot
from .numeric.value import Value, _as_rational

__all__ = ["gaussian_mechanism", "laplace_mechanism", "noisy_sgd", "shuffle",
           "sensitivity_index", "gaussian_sigma", "discrete_gaussian"]


def gaussian_mechanism(sensitivity: Any, sigma: Any) -> Gaussian:
    """G_{Delta/sigma}: the Gaussian mechanism with l2-sensitivity Delta and noise N(0, sigma^2)."""
    d = param("sensitivity", sensitivity, lower=0, owner="gaussian_mechanism")
    s = param("sigma", sigma, lower=0, lower_open=True, owner="gaussian_mechanism")
    return labelled(Gaussian(d / s), f"Gaussian mechanism, Δ = {_shown(sensitivity)}, "
                                     f"σ = {_shown(sigma)}")


def _shown(x: Any) -> str:
    """A parameter as the caller wrote it, for a label (``core.labels``): ``1.1`` stays 1.1
    (the node holds its exact binary rational)."""
    return repr(x) if isinstance(x, float) else str(x)


def laplace_mechanism(sensitivity: Any, scale: Any) -> Laplace:
    """L_{Delta/b}: the Laplace mechanism with l1-sensitivity Delta and noise Lap(0, b)."""
    d = param("sensitivity", sensitivity, lower=0, owner="laplace_mechanism")
    b = param("scale", scale, lower=0, lower_open=True, owner="laplace_mechanism")
    return labelled(Laplace(d / b), f"Laplace mechanism, Δ = {_shown(sensitivity)}, "
                                    f"b = {_shown(scale)}")


def discrete_gaussian(sensitivity: Any, sigma: Any) -> DiscreteGaussian:
    """T(N_Z(0, sigma^2), N_Z(Delta, sigma^2)): adding discrete Gaussian noise N_Z(0, sigma^2)
    (Canonne, Kamath & Steinke, Def. 1) to an integer query of sensitivity Delta, a positive
    integer."""
    d = param("sensitivity", sensitivity, lower=1, integer=True, owner="discrete_gaussian")
    s = param("sigma", sigma, lower=0, lower_open=True, owner="discrete_gaussian")
    return labelled(DiscreteGaussian(d, s), f"discrete Gaussian mechanism, "
                    f"Δ = {_shown(sensitivity)}, σ = {_shown(sigma)}")


#: ``noisy_sgd``'s sampling schemes as its label names them.
SAMPLING_LABELS = {"poisson": "Poisson", "gdp_paper": "fixed-size batches (GDP paper)",
                   "fixed_size": "fixed-size batches (GDP paper)", "shuffle": "shuffled batches"}


def noisy_sgd(sigma: Any, p: Any = None, steps: Any = None, sampling: str = "poisson", *,
              dataset_size: Any = None, batch_size: Any = None, epochs: Any = None,
              neighbours: str | None = None):
    """The trade-off expression of NoisySGD (DP-SGD) with noise multiplier sigma.

    Either positionally, ``noisy_sgd(sigma, p, steps, sampling=...)`` with the sampling rate p
    and the number of steps, or from what a training configuration holds:
    ``noisy_sgd(sigma, dataset_size=n, batch_size=b, epochs=E, sampling=...)`` (or
    ``steps=T`` instead of ``epochs``), with p = b/n (the expected batch size under Poisson
    sampling) and T = ceil(E n/b): a training loop draws n/b batches per epoch, and a
    fractional last epoch still runs its started batch (dp_accounting's and Opacus's
    examples count steps the same way).

    The result carries a label (``core.labels``) naming the configuration and the sampling
    scheme, "DP-SGD, σ = 1.1, q = 256/60000, T = 14063, Poisson", which ``repr`` and
    ``ta.plot`` show; it takes no part in equality.

    ``sampling="poisson"`` (default; what Opacus and dp_accounting account for): each record
    joins a batch independently with probability p; add/remove neighbours. The result is
    ``AddRemove(Mix(G_{1/sigma}, p)^{(x) T})``: the symmetric hull of the composed remove
    direction (what PLD accountants compute for Poisson sampling), as a mechanism, so that
    ``noisy_sgd(...) @ noisy_sgd(...)`` composes two training phases on the same neighbouring
    datasets into C(f_1 (x) f_2), the tight answer (``operators.mechanism``).
    ``sampling="gdp_paper"``, also spelled ``"fixed_size"``: batches of a fixed size
    m drawn uniformly without replacement (``Sample_m`` of Dong, Roth & Su, Sec. 4.2 and
    Algorithm 1), ``C_p(G_{1/sigma})^{(x) T}`` (Thm. 10); a symmetric function, so it composes
    with others by the tensor product.
    sigma > 0, 0 <= p <= 1, steps a positive integer.

    ``neighbours`` states the relation: with Poisson sampling ``"add_remove"`` (the default)
    or ``"replace_one"``, ``PoissonReplace(1/sigma, p)^{(x) T}`` (the pair (1-p) N(0,1) +
    p N(+-1/sigma, 1), symmetric, composed by the tensor power); with fixed-size batches
    ``"replace_one"`` (the default there: Dong, Roth & Su's Sample_m replaces one record) or
    ``"add_remove"``: ``AddRemove(Mix(G_{2/sigma}, p)^{(x) T})``, a sound bound derived here:
    with D' = D + {x} (n + 1 records, batch size m), a batch of D' holds x with probability
    q = m/(n + 1) <= p = m/n, and then x and m - 1 uniform records of D; coupling those with a
    batch of D that adds one more uniform record y, the two sums differ by g(x) - g(y), of norm
    at most twice the clipping norm. So (P_D, P_D') is a mixture over the coupling of pairs
    (N(s), (1 - q) N(s) + q N(s + Delta)) with |Delta| <= 2 (in units of the clipping norm),
    each at least Mix(G_{2/sigma}, p) (shift invariance; f_p decreases in p); a pair with the
    mixture index hidden lies above the same pair with the index shown, which lies above any
    convex g below every component (Wang et al., Lemma 3.1; sum_i w_i g(alpha_i) >=
    g(sum_i w_i alpha_i)); the reverse direction is the inverse.

    ``sampling="shuffle"``: one pass per epoch over a random permutation cut into batches, as
    most training loops do. No amplification is claimed: each record enters exactly one batch
    per epoch, so an epoch is at most one Gaussian mechanism for it (sensitivity 1 under
    add/remove, where the added record joins one batch; 2 under replace_one), and the E
    started epochs give G_{Delta sqrt(E)/sigma} (Dong, Roth & Su, Cor. 2). An epoch is
    ``ceil(1/p)`` batches, the last one partial (PyTorch's ``DataLoader`` with
    ``drop_last=False``), so E = ceil(T / ceil(1/p)); with ``drop_last=True`` an epoch has
    floor(1/p) batches: give ``steps`` counted that way.
    Accounting shuffled training as Poisson sampling understates its epsilon (Chua et al.,
    ICML 2024, "How private are DP-SGD implementations?"); this is the sound statement.
    """
    s = param("sigma", sigma, lower=0, lower_open=True, owner="noisy_sgd")
    shown_p = _shown(p)
    if dataset_size is not None or batch_size is not None:
        if p is not None:
            raise InvalidParameter("p", p, "omitted when dataset_size and batch_size are given",
                                   "noisy_sgd")
        if dataset_size is None or batch_size is None:
            raise InvalidParameter("dataset_size" if dataset_size is None else "batch_size",
                                   None, "given together with the other", "noisy_sgd")
        n = param("dataset_size", dataset_size, lower=1, integer=True, owner="noisy_sgd")
        b = param("batch_size", batch_size, lower=1, integer=True, owner="noisy_sgd")
        if (b > n) is sp.true:
            raise InvalidParameter("batch_size", batch_size, f"an integer in [1, {n}]",
                                   "noisy_sgd")
        p = b / n
        shown_p = f"{_shown(batch_size)}/{_shown(dataset_size)}"
        if epochs is not None:
            if steps is not None:
                raise InvalidParameter("epochs", epochs, "omitted when steps is given",
                                       "noisy_sgd")
            E = param("epochs", epochs, lower=0, lower_open=True, owner="noisy_sgd",
                      numeric=True)
            for name, x, given in (("dataset_size", n, dataset_size),
                                   ("batch_size", b, batch_size)):
                if x.free_symbols:
                    raise InvalidParameter(name, given, "a number when epochs are given (the "
                                           "steps ceil(epochs n/b) must be counted)",
                                           "noisy_sgd")
            steps = _ceil_steps(E * n / b, epochs)
    elif epochs is not None:
        raise InvalidParameter("epochs", epochs, "given with dataset_size and batch_size",
                               "noisy_sgd")
    if p is None or steps is None:
        raise InvalidParameter("steps" if p is not None else "p", None,
                               "given (positionally, or as dataset_size, batch_size and epochs "
                               "or steps)", "noisy_sgd")
    q = param("p", p, lower=0, upper=1, owner="noisy_sgd")
    T = param("steps", steps, lower=1, integer=True, owner="noisy_sgd")
    if neighbours is not None:
        choice("neighbours", neighbours, ("add_remove", "replace_one"), "noisy_sgd")
    if not isinstance(sampling, str):  # a word, checked below (an array failed inside ==)
        raise InvalidParameter("sampling", sampling, "'poisson', 'gdp_paper' (= 'fixed_size') "
                               "or 'shuffle'", "noisy_sgd")
    if sampling not in SAMPLING_LABELS:
        raise InvalidParameter("sampling", sampling, "'poisson', 'gdp_paper' (= 'fixed_size') "
                               "or 'shuffle'", "noisy_sgd")
    text = f"DP-SGD, σ = {_shown(sigma)}, q = {shown_p}, T = {T}, {SAMPLING_LABELS[sampling]}"
    if neighbours is not None:
        text += ", " + neighbours.replace("_", "-")
    return labelled(_noisy_sgd(s, q, T, sampling, neighbours), text)


def _noisy_sgd(s: sp.Expr, q: sp.Expr, T: sp.Expr, sampling: str, neighbours: str | None):
    """The node of :func:`noisy_sgd` (validated arguments)."""
    from .families.poisson_replace import PoissonReplace
    from .operators.mechanism import AddRemove
    from .operators.subsample import Mix, Subsample
    from .operators.tensor import TensorPower

    if sampling == "shuffle":
        for name, x in (("p", q), ("steps", T)):
            if x.free_symbols:
                raise InvalidParameter(name, x, "a number (shuffled batches count epochs)",
                                       "noisy_sgd")
        epochs_started = sp.ceiling(T / sp.ceiling(1 / q)) if q.is_positive else sp.S.Zero
        delta = 2 if neighbours == "replace_one" else 1
        return Gaussian(delta * sp.sqrt(epochs_started) / s)
    fixed = sampling in ("gdp_paper", "fixed_size")
    if fixed and neighbours == "add_remove":
        return AddRemove(TensorPower(Mix(Gaussian(2 / s), q), T))
    if sampling == "poisson" and neighbours == "replace_one":
        return TensorPower(PoissonReplace(1 / s, q), T)
    if fixed:
        return TensorPower(Subsample(Gaussian(1 / s), q), T)
    return AddRemove(TensorPower(Mix(Gaussian(1 / s), q), T))


#: An irrational number of epochs is rounded to steps only below this many (the ceiling
#: needs about log10(E n/b) digits of it); a Rational is rounded exactly at any size.
MAX_IRRATIONAL_STEPS = sp.Integer(10) ** 1000


def _ceil_steps(x: sp.Expr, epochs: Any) -> sp.Integer:
    """ceil(x) for x = E n/b > 0: exact for a Rational; for an irrational x (``sqrt(2)``
    epochs) by SymPy's evaluation, refused above :data:`MAX_IRRATIONAL_STEPS`."""
    if x.is_Rational:
        return sp.Integer(-((-x.p) // x.q))
    allowed = ("a number of epochs whose steps ceil(epochs n/b) can be counted (an irrational "
               "one below about 10^1000 steps; a Rational of any size)")
    try:
        approx = sp.N(x, 30)
        if not approx.is_finite or approx > MAX_IRRATIONAL_STEPS:
            raise InvalidParameter("epochs", epochs, allowed, "noisy_sgd")
        steps = sp.ceiling(x)
    except InvalidParameter:
        raise
    except Exception:
        raise InvalidParameter("epochs", epochs, allowed, "noisy_sgd") from None
    if not steps.is_Integer:
        raise InvalidParameter("epochs", epochs, allowed, "noisy_sgd")
    return steps


def shuffle(eps0: Any, n: Any, bound: str = "exact"):
    """The shuffle model: n users each apply an eps0-DP local randomizer, then the reports are
    uniformly shuffled (Wang et al., Sec. 4; Feldman, McMillan & Talwar).

    ``bound="exact"`` (default): ``ShuffleDP(eps0, n)``, the trade-off function T(P, Q) of the
    post-processing pair ``P = (1-w)P0 + wQ0``, ``Q = (1-w)Q0 + wP0``; the shuffled mechanism is
    T(P, Q)-DP, and this is the tightest statement the pair gives. ``bound="wang"``: the bound
    of Wang et al., Thm. 4.2, ``C(f_Shuffle)`` with ``f_Shuffle = 2w Id + (1 - 2w) T(P0, Q0)``,
    as ``ShuffleDP(eps0, n, bound="wang")``: the atoms of f_Shuffle (one per reduced fraction
    b/a, the same as those of T(P, Q)) arranged by Dong, Roth & Su's Eq. (13) for the symmetric
    T(P0, Q0), so it is exact for small n and an Arb enclosure from the same kept window as
    T(P, Q) otherwise (n = 10^4, eps0 = 4.444, Wang et al.'s Table 1: delta(eps) in about a
    second). It holds, ``C(f_Shuffle) <= T(P, Q)`` pointwise, and is strictly below it except
    at a few levels (``proofs/wang.py``). ``eps0 >= 0`` real, ``n >= 1`` an integer; the
    numeric routes take n up to ``families.shuffle.MAX_N`` with at most
    ``families.shuffle.MAX_POINTS`` kept points and refuse larger ones at once.
    """
    from .families.shuffle import ShuffleDP

    e = param("eps0", eps0, lower=0, owner="shuffle")
    m = param("n", n, lower=1, integer=True, owner="shuffle")
    choice("bound", bound, ("exact", "wang"), "shuffle")
    text = f"shuffle model, ε₀ = {_shown(eps0)}, n = {_shown(n)}"
    if bound == "wang":
        text += ", Wang et al. Thm. 4.2 bound"
    return labelled(ShuffleDP(e, m, bound), text)


def sensitivity_index(sensitivity: Any, sigma: Any) -> sp.Expr:
    """psi = Delta/sigma (Kaissis et al., Def. 6, Eq. (7)): the Gaussian mechanism with
    l2-sensitivity Delta and noise N(0, sigma^2) is exactly psi-GDP (its trade-off is G_psi)."""
    d = param("sensitivity", sensitivity, lower=0, owner="sensitivity_index")
    s = param("sigma", sigma, lower=0, lower_open=True, owner="sensitivity_index")
    return d / s


@budget.deadline(lambda a: f"gaussian_sigma({short(a['sensitivity'])}, {short(a['eps'])}, "
                                  f"{short(a['delta'])})")
def gaussian_sigma(sensitivity: Any, eps: Any, delta: Any, *, method: str = "exact",
                   dps: int = 20) -> Value | sp.Expr:
    """The noise sigma of the Gaussian mechanism for (eps, delta)-DP (module docstring).

    ``method="exact"``: a Value [lo, hi] enclosing the smallest sigma with
    delta_{G_{Delta/sigma}}(eps) <= delta (bisection in mu = Delta/sigma on certified profile
    enclosures; ``hi`` is safe to use). ``method="dwork"``: the closed form
    ``sqrt(2 ln(2/delta)) Delta/eps`` of Dwork, Thm. 4.3 (valid for eps <= 1 only).
    """
    d = param("sensitivity", sensitivity, lower=0, lower_open=True, owner="gaussian_sigma")
    e = param("eps", eps, lower=0, lower_open=True, owner="gaussian_sigma")
    dl = param("delta", delta, lower=0, upper=1, lower_open=True, upper_open=True,
               owner="gaussian_sigma")
    if choice("method", method, ("exact", "dwork"), "gaussian_sigma") == "dwork":
        return sp.sqrt(2 * sp.log(2 / dl)) * d / e
    for name, x, given in (("sensitivity", d, sensitivity), ("eps", e, eps),
                           ("delta", dl, delta)):
        if x.free_symbols:
            raise InvalidParameter(name, given, "a number for the exact calibration",
                                   "gaussian_sigma", "method='dwork' gives a closed form")
    dps = count("dps", dps, upper=MAX_DPS, owner="gaussian_sigma")

    def above(mu: sp.Rational) -> bool | None:  # is delta_G(eps) > delta at mu? (None: unsure)
        budget.check()  # (a closed-form delta checks no deadline itself)
        v = _delta(Gaussian(mu), e, dps=dps + 10)
        # compared exactly: ``mpf > Rational`` rounds the Rational at the precision of
        # mpmath's global context (53 bits, or whatever SymPy code in another thread has set)
        if _as_rational(v.lo) > dl:
            return True
        if _as_rational(v.hi) <= dl:
            return False
        return None

    sign = {True: 1, False: -1, None: None}

    def trial(L, H, last, i):  # mu: 2^-10 down by 2^10 to a certain lo, then 1 up by doubling
        if L is None:
            x = sp.Rational(1, 2**10) if last is None else last / 2**10
            return x if x >= sp.Rational(1, 2**400) else None
        x = sp.Integer(1) if last < 1 else last * 2
        return x if x <= 2**400 else None

    def fail(L, H):
        if L is None:
            raise InvalidParameter("delta", delta, "a delta the Gaussian mechanism can meet at "
                                   "this eps", "gaussian_sigma")
        raise InvalidParameter("delta", delta, "a delta in (0, 1) that the Gaussian "
                               "mechanism exceeds for some sigma at this eps", "gaussian_sigma")

    # mu brackets: delta(lo) <= delta < delta(hi)
    lo, hi, *_ = expand_bracket(lambda mu: Probe(sign[above(mu)]), trial, sa=-1, fail=fail)
    lo, hi, *_ = findroot(lambda mu: Probe(sign[above(mu)]), (lo, hi), method="bisect",
                          ends=(-1, 1), rtol=0, max_iter=4 * dps + 20,
                          done=lambda lo, hi: (hi - lo) / hi < sp.Rational(1, 10**(dps + 2)))
    with mp.workdps(dps + 10):
        D = mp.mpf(d.p) / d.q if d.is_Rational else mp.mpf(sp.N(d, dps + 10))
        # sigma = D/mu over the bracket of mu, each end rounded outward
        s_lo = mp.fdiv(D, mp.fdiv(hi.p, hi.q, rounding="u"), rounding="d")
        s_hi = mp.fdiv(D, mp.fdiv(lo.p, lo.q, rounding="d"), rounding="u")
        return Value.enclosure(s_lo, s_hi, dps)


def discrete_laplace(sensitivity: Any, scale: Any):
    """T(L_Z(0, t), L_Z(Delta, t)): adding discrete Laplace (geometric) noise with mass
    proportional to e^{-|x|/t} (Ghosh, Roughgarden & Sundararajan 2009) to an integer query of
    sensitivity Delta, a positive integer; scale t > 0."""
    from .families.discrete_laplace import DiscreteLaplace

    d = param("sensitivity", sensitivity, lower=1, integer=True, owner="discrete_laplace")
    t = param("scale", scale, lower=0, lower_open=True, owner="discrete_laplace")
    return DiscreteLaplace(d, t)


__all__ += ["discrete_laplace"]


def skellam(sensitivity: Any, mu: Any):
    """T(Sk(mu), Sk(mu) + Delta): adding Skellam noise, the difference of two independent
    Poisson(mu) variables (Agarwal, Kairouz & Liu 2021), to an integer query of sensitivity
    Delta, a positive integer; mu > 0."""
    from .families.skellam import Skellam

    d = param("sensitivity", sensitivity, lower=1, integer=True, owner="skellam")
    m = param("mu", mu, lower=0, lower_open=True, owner="skellam")
    return Skellam(d, m)


__all__ += ["skellam"]
