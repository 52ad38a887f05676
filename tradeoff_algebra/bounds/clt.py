"""The central limit theorems of Dong, Roth & Su as registered approximations (``"approx"``).

* Thm. 6: for symmetric f_{ni} with sum kl -> K, max kl -> 0, sum kappa_2 -> s^2 and
  sum kappa_3 -> 0, f_{n1} (x) ... (x) f_{nn} -> G_{2K/s} uniformly. At finite n the
  approximation is G_{2K/s} with K = sum kl(f_i), s^2 = sum kappa_2(f_i).
* Thm. 7: if sum eps_ni^2 -> mu^2, max eps_ni -> 0, sum delta_ni -> delta and max delta_ni -> 0,
  then f_{eps_n1,delta_n1} (x) ... -> G_mu (x) f_{0, 1 - e^{-delta}}. At finite n the
  approximation is G_{sqrt(sum eps_i^2)} (x) f_{0, 1 - e^{-sum delta_i}}, the theorem's form
  (the exact f_{0,delta} part, f_{0, 1 - prod(1 - delta_i)} by Eq. (11), differs from it by
  O(sum delta_i^2)).
* Thm. 11: for symmetric f with f(0) = 1 and p sqrt(T) -> p0, C_p(f)^{(x) T} ->
  G_{p0 sqrt(2 chi2_+(f))}; at finite T, p0 = p sqrt(T). With f = G_{1/sigma} and Lemma 3 this is
  Cor. 4 as corrected (mu = sqrt(2) c sqrt(chi2_+(G_{1/sigma})), linear in c; the printed
  sqrt(2c) is a misprint: proofs/drs_counterexamples.md).

Their errors, where the papers give one: Thm. 5 (Berry–Esseen) bounds the distance of a
composition to G_mu in the shifted sense, with its mu and gamma; Thm. 8 gives O(1/n) for
f_{mu/sqrt(n),0}^{(x) n} with an unspecified constant. ``ta.approx(f)`` returns the form and this
text; the benchmark ``benchmarks/clt_accuracy.py`` measures the actual distance to the exact
composition.
"""

from __future__ import annotations

import sympy as sp

from ..analysis.functionals import chi2_plus, kappa2, kl
from ..core.citations import DRS
from ..core.errors import InvalidParameter, NoClosedForm
from ..core.node import TradeOff
from ..core.rules import rule
from ..families.binomial import BinomialDP
from ..families.epsdelta import EpsDelta
from ..families.gaussian import Gaussian
from ..operators.subsample import Subsample
from ..operators.tensor import Tensor, TensorPower
from .berry_esseen import berry_esseen, factors, tidy_mu

__all__ = ["clt_mu", "clt_epsdelta", "clt_subsampled"]


def _short(x: sp.Expr) -> str:
    return sp.sstr(sp.N(x, 4)) if x.is_number else sp.sstr(x)


def _be_error(f: TradeOff | list, mu: sp.Expr | None = None) -> str | None:
    """Thm. 5's sandwich as the error of a normal approximation of ``f``, or None. The
    sandwich is centred at its own mu_BE = 2 ||kl||_1 / sqrt(||kappa_2||_1 - ||kl||_2^2), which
    differs from the limit theorems' mu at finite n (Thm. 6 drops ||kl||_2^2, Thms. 7 and 11
    take the limit of the moments); ``mu``, the approximation's own, is stated beside it so that
    the result and its error name the same mu."""
    try:
        be = berry_esseen(f)
    except (InvalidParameter, NoClosedForm):
        return None
    own = "" if mu is None else f"; the approximation's mu = {_short(mu)}"
    return (f"Thm. 5 (Berry-Esseen): Shift(G(mu_BE), gamma) <= f <= Shift(G(mu_BE), -gamma) "
            f"with mu_BE = {_short(be.mu)}, gamma = {_short(be.gamma)}{own}")


def clt_mu(fs: list[tuple[TradeOff, sp.Expr]]) -> sp.Expr | None:
    """2K/s of Thm. 6 for factors (f_i, multiplicity), or None without closed forms."""
    try:
        if not all(g.is_symmetric is True for g, _ in fs):
            return None
        K = sum((m * kl(g) for g, m in fs), sp.Integer(0))
        s2 = sum((m * kappa2(g) for g, m in fs), sp.Integer(0))
    except NoClosedForm:
        return None
    if s2.is_zero:
        return None
    return tidy_mu(2 * K / sp.sqrt(s2))


def clt_epsdelta(fs: list[tuple[TradeOff, sp.Expr]]) -> TradeOff | None:
    """Thm. 7's G_{sqrt(sum eps_i^2)} (x) f_{0, 1 - e^{-sum delta_i}}, or None unless every
    factor is some f_{eps,delta}."""
    if not fs or not all(isinstance(g, EpsDelta) for g, _ in fs):
        return None
    mu = sp.sqrt(sum((m * g.args[0] ** 2 for g, m in fs), sp.Integer(0)))
    d = sum((m * g.args[1] for g, m in fs), sp.Integer(0))
    out: TradeOff = Gaussian(mu)
    return out if d == 0 else Tensor(out, EpsDelta(0, 1 - sp.exp(-d)))


def clt_subsampled(f: TradeOff) -> TradeOff | None:
    """Thm. 11's G_{p sqrt(T) sqrt(2 chi2_+(g))} for f = C_p(g)^{(x) T}, or None."""
    if not (isinstance(f, TensorPower) and isinstance(f.args[0], Subsample)):
        return None
    sub, T = f.args
    g, p = sub.args
    if g.is_symmetric is not True or g._eval_at(sp.Integer(0)) != 1:
        return None
    try:
        c2 = chi2_plus(g)
    except NoClosedForm:
        return None
    return Gaussian(p * sp.sqrt(T) * sp.sqrt(2 * c2))


_THM6 = DRS.thm(6, note="CLT: f_n1 (x) ... (x) f_nn -> G_{2K/s}")
_THM7 = DRS.thm(7, note="CLT for (eps, delta)-DP: -> G_mu (x) f_{0, 1 - e^-delta}")
_THM11 = DRS.thm(11, note="C_p(f)^{(x) T} -> G_{p0 sqrt(2 chi2_+(f))}, p sqrt(T) -> p0")


def _thm6(f: TradeOff) -> TradeOff | None:
    """f_1 (x) ... (x) f_n ~ G_{2K/s}, K = sum kl(f_i), s^2 = sum kappa_2(f_i) (Thm. 6)."""
    fs = factors(f)
    if all(isinstance(g, EpsDelta) for g, _ in fs):
        return None  # Thm. 7 is the paper's statement for these
    mu = clt_mu(fs)
    return None if mu is None else Gaussian(mu)


def _thm7(f: TradeOff) -> TradeOff | None:
    """f_{eps_1,delta_1} (x) ... (x) f_{eps_n,delta_n} ~ G_{sqrt(sum eps_i^2)} (x)
    f_{0, 1 - e^{-sum delta_i}} (Thm. 7)."""
    return clt_epsdelta(factors(f))


def _thm6_error(f: TradeOff) -> str | None:
    node = _thm6(f)
    return _be_error(f, None if node is None else node.args[0])


def _thm7_error(f: TradeOff) -> str | None:
    fs = factors(f)
    node = clt_epsdelta(fs)
    gs = [] if node is None else [g for g in ([node] if isinstance(node, Gaussian) else node.args)
                                  if isinstance(g, Gaussian)]
    mu = gs[0].args[0] if gs else None
    be = _be_error([EpsDelta(g.args[0], 0) ** m for g, m in fs], mu)
    if len(fs) == 1 and fs[0][0].args[1] == 0:
        thm8 = ("Thm. 8: within c/n in the shifted sense, c depending only on mu = sqrt(n) eps "
                "(about 0.1 at mu = 1 by the paper's simulations; no certified constant)")
        return f"{thm8}; {be}" if be else thm8
    return be


def _thm11_error(f: TradeOff) -> str | None:
    node = clt_subsampled(f)
    # Cor. 5: Thm. 5 with the certified functionals of C_p(G_mu)
    be = _be_error(f, None if node is None else node.args[0])
    return "Thm. 11 states no rate" + (f"; Cor. 5, {be}" if be else "")


for _cls in (TensorPower, Tensor, BinomialDP):
    rule(_cls, cite=_THM7, relation="approx", priority=20, name="clt_epsdelta",
         hypotheses="every factor is some f_{eps,delta}", error=_thm7_error)(_thm7)

for _cls in (TensorPower, Tensor):
    rule(_cls, cite=_THM6, relation="approx", priority=10, name="clt_tensor",
         hypotheses="symmetric factors with closed-form kl and kappa_2", error=_thm6_error)(
        _thm6)

rule(TensorPower, cite=_THM11, relation="approx", priority=30, name="clt_subsampled",
     hypotheses="C_p(f)^{(x) T} with f symmetric, f(0) = 1, closed-form chi2_+(f)",
     error=_thm11_error)(clt_subsampled)
