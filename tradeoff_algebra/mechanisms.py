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
* ``randomized_response(eps, k)`` is k-ary randomized response: f_{eps,0} for k = 2, the exact
  finite pair for k >= 3 (= max{f_{eps,0}, f_{0,delta}}, delta its total variation).
* ``exponential_mechanism(eps, utilities, neighbour_utilities, sensitivity)`` is the exact
  finite pair of two softmax laws, or without utilities ``BoundedRange(eps)``, the exact worst
  case over all utilities; ``report_noisy_max(eps, k, noise)`` is the same for Gumbel noise and
  the eps-DP guarantee f_{eps,0} for exponential and Laplace noise.
* ``laplace_mechanism(..., sampling="poisson" | "uniform", p=...)`` subsamples it.
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
           "sensitivity_index", "gaussian_sigma", "discrete_gaussian", "randomized_response",
           "exponential_mechanism", "report_noisy_max"]


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


def laplace_mechanism(sensitivity: Any, scale: Any, sampling: str | None = None,
                      p: Any = None):
    """L_{Delta/b}: the Laplace mechanism with l1-sensitivity Delta and noise Lap(0, b)
    (Dong, Roth & Su, Prop. 7), run on the whole dataset (``sampling=None``) or on a
    subsample drawn with rate p, as :func:`noisy_sgd` reads its ``sampling``:

    * ``sampling="poisson"``: each record joins independently with probability p; add/remove
      neighbours. ``AddRemove(Mix(L_{Delta/b}, p))``: the remove direction
      T(P, (1 - p) P + p Q) and its inverse composed together (``operators.mechanism``; the
      ``PoissonSampledDpEvent(p, LaplaceDpEvent(b/Delta))`` of dp_accounting).
    * ``sampling="uniform"``: a batch of fixed size m = p n drawn without replacement;
      replace-one neighbours. ``C_p(L_{Delta/b})`` (Dong, Roth & Su, Thm. 9: Sample_m, whose
      neighbouring datasets replace one record; the ``SampledWithoutReplacementDpEvent`` of
      dp_accounting).

    Delta >= 0, b > 0, 0 <= p <= 1 (given exactly when ``sampling`` is).
    """
    owner = "laplace_mechanism"
    d = param("sensitivity", sensitivity, lower=0, owner=owner)
    b = param("scale", scale, lower=0, lower_open=True, owner=owner)
    text = f"Laplace mechanism, Δ = {_shown(sensitivity)}, b = {_shown(scale)}"
    if sampling is None:
        if p is not None:
            raise InvalidParameter("p", p, "omitted without sampling (sampling='poisson' or "
                                   "'uniform' reads it)", owner)
        return labelled(Laplace(d / b), text)
    from .operators.mechanism import AddRemove
    from .operators.subsample import Mix, Subsample

    kind = choice("sampling", sampling, ("poisson", "uniform"), owner)
    if p is None:
        raise InvalidParameter("p", None, f"the sampling rate in [0, 1] for sampling={kind!r}",
                               owner)
    q = param("p", p, lower=0, upper=1, owner=owner)
    text += f", q = {_shown(p)}, {'Poisson' if kind == 'poisson' else 'uniform'}"
    if kind == "poisson":
        return labelled(AddRemove(Mix(Laplace(d / b), q)), text)
    return labelled(Subsample(Laplace(d / b), q), text)


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


def randomized_response(eps: Any, k: Any = 2):
    """k-ary randomized response (Warner 1965; Kairouz, Oh & Viswanath 2016 for k values):
    report the true value with probability e^eps/(e^eps + k - 1) and each of the k - 1 others
    with probability 1/(e^eps + k - 1). Its exact trade-off function, for any two inputs x != x'
    (every such pair gives the same one up to relabelling the outputs):

    * ``k = 1``: ``Id`` (one value: nothing is revealed);
    * ``k = 2``: ``EpsDelta(eps, 0)``, f_{eps,0} itself (Dong, Roth & Su, Eq. (4));
    * ``k >= 3``: ``Discrete([a, b, (k-2) b], [b, a, (k-2) b])``, a = e^eps/(e^eps + k - 1),
      b = 1/(e^eps + k - 1): the laws on the outputs x', x and the k - 2 others (merged: they
      have likelihood ratio 1, and merging outcomes of equal ratio leaves T(P, Q) unchanged).

    The laws differ on the two atoms x and x' only, so the Neyman--Pearson knots are (0, 1),
    (b, 1 - a), ((k - 1) b, b), (1, 0), and (derived here, checked by brute force in
    ``tests/test_mechanisms_finite.py``)

        T(alpha) = max{0, 1 - e^eps alpha, e^{-eps} (1 - alpha), k/(e^eps + k - 1) - alpha}
                 = max{f_{eps,0}, f_{0,delta}}(alpha),  delta = (e^eps - 1)/(e^eps + k - 1),

    ``Max(EpsDelta(eps, 0), EpsDelta(0, delta))`` (delta the total variation): k-RR is (eps, 0)-
    and (0, delta)-DP and nothing more. For k = 2 the middle line touches f_{eps,0} at its kink
    only, so the maximum is f_{eps,0}. The finite pair is returned for k >= 3 because it
    composes exactly (``numeric.finite``). dp_accounting's ``RandomizedResponseDpEvent(p, k)``
    (with probability p a uniform draw replaces the value) is this mechanism with
    e^eps = 1 + k (1 - p)/p (``interop.from_dp_event``).

    eps >= 0, k a positive integer.
    """
    from .families.discrete import Discrete
    from .families.epsdelta import EpsDelta
    from .families.trivial import Id

    e = param("eps", eps, lower=0, owner="randomized_response")
    m = count("k", k, lower=1, owner="randomized_response")
    if m == 1:
        return Id
    if m == 2:
        return labelled(EpsDelta(e, 0), f"randomized response, ε = {_shown(eps)}, k = 2")
    E = sp.exp(e)
    a, b = E / (E + m - 1), 1 / (E + m - 1)
    return labelled(Discrete([a, b, (m - 2) * b], [b, a, (m - 2) * b]),
                    f"randomized response, ε = {_shown(eps)}, k = {m}")


def exponential_mechanism(eps: Any, utilities: Any = None, neighbour_utilities: Any = None,
                          sensitivity: Any = 1):
    """The exponential mechanism (McSherry & Talwar 2007): output r with probability
    proportional to exp(eps u(D, r)/(2 Delta)), Delta the sensitivity of the utility
    (|u(D, r) - u(D', r)| <= Delta for neighbours D, D' and every r). It is eps-DP.

    With ``utilities`` u(D, .) and ``neighbour_utilities`` u(D', .) (one number per candidate,
    in the same order): the output laws are the finite softmax vectors P, Q, and the result is
    their exact trade-off function ``Discrete(P, Q)`` (Dong, Roth & Su, Def. 2), the
    candidates of equal change u(D', r) - u(D, r) merged into one outcome (equal likelihood
    ratios: T(P, Q) is unchanged). A neighbour utility further than Delta from its utility
    raises :class:`InvalidParameter`. The entries are exact SymPy numbers (sums of
    exponentials), built without re-proving that they sum to 1 (they do by construction): a
    hundred candidates build in a tenth of a second. Their Arb balls are computed once per pair
    (``numeric/finite_values.pair_balls``): the order of the likelihood ratios is proved by
    them and delta(eps) = sum_r max(0, Q_r - e^eps P_r) is summed in Arb, so ``ta.epsilon`` of
    the pair takes tens of milliseconds, certified.

    Without utilities: ``BoundedRange(eps)``, BR_eps(alpha) = (1 - alpha)/(1 + (e^eps - 1)
    alpha), the exact worst case over all utility functions of sensitivity Delta and all
    neighbours: every exponential mechanism is eps-bounded-range (Durfee & Rogers 2019), every
    eps-BR pair is a post-processing of a generalized randomized response with a parameter
    t in [0, eps] (Dong, Durfee & Rogers 2020, Sec. 3.1), the infimum over t of those two-point
    trade-off functions is BR_eps, and two candidates attain each point of it
    (``families/bounded_range.py``). It lies above f_{eps,0}: the exponential mechanism is
    strictly more private than the eps-DP guarantee says (delta(0) = tanh(eps/4) instead of
    (e^eps - 1)/(e^eps + 1)). For k of them composed, ``BoundedRange(eps) ** k`` is a valid,
    generally not tight, guarantee (Dong, Roth & Su, Thm. 4).

    eps >= 0, sensitivity > 0; utilities real numbers.
    """
    from .core.validate import items
    from .families.bounded_range import BoundedRange

    owner = "exponential_mechanism"
    e = param("eps", eps, lower=0, owner=owner)
    d = param("sensitivity", sensitivity, lower=0, lower_open=True, owner=owner)
    if utilities is None and neighbour_utilities is None:
        return labelled(BoundedRange(e), f"exponential mechanism, ε = {_shown(eps)}, "
                                         "worst case over utilities")
    if utilities is None or neighbour_utilities is None:
        missing = "utilities" if utilities is None else "neighbour_utilities"
        raise InvalidParameter(missing, None, "given together with the other (or both "
                               "omitted for the worst case over all utilities)", owner)
    allowed = "a non-empty sequence of real numbers, one per candidate"
    u = [param(f"utilities[{i}]", x, owner=owner, numeric=True)
         for i, x in enumerate(items("utilities", utilities, allowed, owner))]
    v = [param(f"neighbour_utilities[{i}]", x, owner=owner, numeric=True)
         for i, x in enumerate(items("neighbour_utilities", neighbour_utilities, allowed,
                                     owner))]
    if not u:
        raise InvalidParameter("utilities", utilities, allowed, owner)
    if len(v) != len(u):
        raise InvalidParameter("neighbour_utilities", neighbour_utilities,
                               f"a sequence of {len(u)} numbers, one per candidate", owner)
    for i, (x, y) in enumerate(zip(u, v, strict=True)):
        if sp.Gt(abs(x - y), d) is not sp.false:
            raise InvalidParameter(f"neighbour_utilities[{i}]", y, f"within the sensitivity "
                                   f"{d} of utilities[{i}] = {x}", owner)
    return _softmax_pair(*_softmax_classes(u, v, e, d))


def _softmax_pair(P: list, Q: list):
    """``Discrete(P, Q)`` for the softmax laws of :func:`_softmax_classes`, built without
    ``Discrete``'s validation: each law is w / sum(w) with positive w (sums of exponentials), so
    its entries lie in (0, 1) and sum to 1 by construction, while proving that sum in SymPy (a
    sum of quotients of sums of exponentials) took 18 s for a hundred candidates and minutes
    beyond. A node rebuilt from its args (``func(*args)``) is validated as usual."""
    from sympy import Tuple

    from .core.node import TradeOff
    from .families.discrete import Discrete

    return TradeOff.__new__(Discrete, Tuple(*P), Tuple(*Q))


def _softmax_classes(u: list, v: list, e: sp.Expr, d: sp.Expr) -> tuple[list, list]:
    """The softmax laws P_r ~ exp(e u_r/(2 d)), Q_r ~ exp(e v_r/(2 d)), exactly, with the
    candidates of equal change v_r - u_r merged: they have the same likelihood ratio Q_r/P_r,
    and merging outcomes of equal ratio leaves T(P, Q) unchanged (Neyman--Pearson), so the
    pair has one outcome per distinct change (3 for integer utilities moving by at most 1)
    instead of one per candidate. Exponents are shifted by the largest u (the same numbers)."""
    top = max(u, key=lambda x: sp.N(x, 30))
    mass: dict = {}  # change v_r - u_r -> sum of exp(e (u_r - top)/(2 d)) over its class
    for x, y in zip(u, v, strict=True):
        c = sp.nsimplify(y - x) if y - x != 0 else sp.S.Zero
        mass[c] = mass.get(c, sp.S.Zero) + sp.exp(e * (x - top) / (2 * d))
    changes = list(mass)
    w = [mass[c] for c in changes]
    w2 = [sp.exp(e * c / (2 * d)) * mass[c] for c in changes]
    z, z2 = sp.Add(*w), sp.Add(*w2)
    return [x / z for x in w], [x / z2 for x in w2]


def report_noisy_max(eps: Any, k: Any, noise: str = "gumbel"):
    """Report noisy max: add independent noise of scale b = 2 Delta/eps to each of k utilities
    of sensitivity Delta and report the index of the largest (Dwork & Roth 2014, Sec. 3.3).

    * ``noise="gumbel"``: Gumbel(0, b) noise makes it exactly the exponential mechanism
      (argmax_r (u_r + G_r) has law softmax(u/b); McSherry & Talwar 2007, Durfee & Rogers
      2019), so its exact worst case over all utilities is ``BoundedRange(eps)`` (see
      :func:`exponential_mechanism`; two candidates attain it).
    * ``noise="exponential"`` (Exp(b), which is permute-and-flip: McKenna & Sheldon 2020,
      Ding et al. 2021) and ``noise="laplace"`` (Lap(b)): only the eps-DP guarantee is
      claimed, ``EpsDelta(eps, 0)``, a lower bound on every instance's trade-off function,
      not the exact worst case (none is known here): given the other noises, index r wins iff
      its noise exceeds a threshold that moves by at most 2 Delta between neighbours, and both
      laws have hazard rate at most 1/b, so the winning probability changes by a factor of at
      most e^{2 Delta/b} = e^eps (the argument of Dwork & Roth, Claim 3.9).

    k = 1: ``Id`` (one candidate reveals nothing). eps >= 0, k a positive integer.
    """
    from .families.bounded_range import BoundedRange
    from .families.epsdelta import EpsDelta
    from .families.trivial import Id

    owner = "report_noisy_max"
    e = param("eps", eps, lower=0, owner=owner)
    m = count("k", k, lower=1, owner=owner)
    kind = choice("noise", noise, ("gumbel", "exponential", "laplace"), owner)
    if m == 1:
        return Id
    f = BoundedRange(e) if kind == "gumbel" else EpsDelta(e, 0)
    return labelled(f, f"report noisy max, ε = {_shown(eps)}, {_shown(k)} candidates, "
                       f"{kind} noise")


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
