"""Rules valid for every trade-off function, for expressions on trade-off symbols.

Most identities that hold for every f are already registered with their operators and apply to
a :class:`~tradeoff_algebra.core.symbol.TradeOffSymbol` as to any node: (f (x) g)^{-1} =
f^{-1} (x) g^{-1} (``inverse_tensor``, Dong, Roth & Su, Sec. 3.1, property 4), f (x) Id = f
(``tensor_unit``, property 3), (f^{-1})^{-1} = f (``inverse_involution``, Eq. (3)), the
inverse of a symmetric node (``inverse_symmetric``: C_p(f), f^S, Group of a symmetric f),
C_p(Id) = Id and C_0(f) = Id (``subsample_id``, ``subsample_zero``), C_1(f) = f for a symmetric
f (``subsample_one_symmetric``). This module adds the ones that were missing:

identities (``simplify``): Group(f, 1) = f, Group(Id, k) = Id, Group(0, k) = 0 (Thm. 3);

bounds (``derive(..., "lower" | "upper")``; never identities): f <= Id for a symbol
(Prop. 1; f >= 0 is kept for the prover only, since as a bound it would send every symbol to
0), C_p(f) <= f_p (Def. 6: a biconjugate lies below the function), f_p >= f (Sec. 4.1:
f_p = p f + (1 - p) Id and Id >= f), f (x) g <= g (Sec. 3.1, properties 2 and 3: f <= Id).
The bounds fire only on subterms that contain a trade-off symbol:
on concrete operands the families' closed forms and the Berry-Esseen bounds are sharper, and
``bound`` keeps answering with them.

:data:`FACTS` are the same statements (and the monotonicity of the operators in their operands)
as rule objects for :mod:`tradeoff_algebra.verify.symbolic`, which proves orderings between
expressions on symbols with them and records each one it uses in the basis.
:data:`MOMENT_FACTS` are the inequalities between the functionals kl, kappa_2, kappa_3 and
bar kappa_3 of every trade-off function (Lyapunov's and Minkowski's inequalities for the moments
of log|f'(U)|, U uniform), which ``verify/symbolic.py`` chains for scalar claims.
"""

from __future__ import annotations

from ..core.citations import DRS, WANG, Citation, Paper
from ..core.rules import Rule, rule
from ..core.symbol import EXTREMES, TradeOffSymbol, has_tradeoff_symbol
from ..operators.maxgroup import Group, Max
from ..operators.subsample import Mix, Subsample
from ..operators.tensor import Tensor, TensorPower
from ..operators.unary import Inverse, SymmetricHull, Symmetrize

__all__ = ["FACTS", "fact", "MOMENT_FACTS", "BILLINGSLEY"]

_GROUP = DRS.thm(3, note="1 - (1 - f)^{o k}")


# -- identities ---------------------------------------------------------------------------------
@rule(Group, cite=DRS.thm(3, note="k = 1: 1 - (1 - f) = f"), priority=100)
def group_one(g: Group):
    """Group(f, 1) = 1 - (1 - f) = f, for every trade-off function f."""
    return g.arg if g.k == 1 else None


@rule(Group, cite=DRS.thm(3, note="1 - Id is the identity map, so 1 - (1 - Id)^{o k} = Id"),
      priority=95)
def group_id(g: Group):
    """Group(Id, k) = Id: perfect privacy stays perfect for groups of every size."""
    return g.arg if g.arg.is_greatest else None


@rule(Group, cite=DRS.thm(3, note="1 - 0 is the constant 1, so 1 - (1 - 0)^{o k} = 0"),
      priority=95)
def group_zero(g: Group):
    """Group(0, k) = 0: blatant non-privacy stays so for groups of every size."""
    return g.arg if g.arg.is_least else None


# -- bounds on subterms with a trade-off symbol -------------------------------------------------
_SYMBOLIC = "the node contains a trade-off symbol (the bound for every f)"


@rule(TradeOffSymbol, cite=DRS.prop(1, note="f(alpha) <= 1 - alpha = Id(alpha)"),
      relation="upper", priority=0, hypotheses="none")
def symbol_le_id(f: TradeOffSymbol):
    """f <= Id for every trade-off function f."""
    return EXTREMES["Id"]


@rule(Subsample, cite=DRS.defn(6, note="h^{**} <= h: C_p(f) <= min{f_p, f_p^{-1}} <= f_p"),
      relation="upper", priority=5, hypotheses=_SYMBOLIC)
def subsample_le_mix(c: Subsample):
    """C_p(f) <= f_p = p f + (1 - p) Id: the biconjugate of min{f_p, f_p^{-1}} lies below it."""
    return Mix(c.arg, c.p) if has_tradeoff_symbol(c.arg) else None


@rule(Mix, cite=DRS.sec("4.1", note="f_p = p f + (1 - p) Id >= f since Id >= f"),
      relation="lower", priority=5, hypotheses=_SYMBOLIC)
def mix_ge_operand(m: Mix):
    """f_p >= f: mixing with Id (f <= Id, Prop. 1) never lowers the curve."""
    return m.arg if has_tradeoff_symbol(m.arg) else None


@rule(Tensor, cite=DRS.sec("3.1", note="properties 2 and 3: f (x) g <= f (x) Id = f"),
      relation="upper", priority=5, hypotheses=_SYMBOLIC)
def tensor_drop_symbols(t: Tensor):
    """f (x) g <= g for every f: the factors that are trade-off symbols are dropped (each is
    <= Id, and the product is monotone in each factor)."""
    keep = [a for a in t.args if not has_tradeoff_symbol(a)]
    if len(keep) == len(t.args):
        return None
    return Tensor(*keep) if len(keep) > 1 else (keep[0] if keep else None)


# -- facts for the order prover of verify/symbolic.py -------------------------------------------
def _fact(name: str, cls: type, cite: Citation, relation: str, doc: str) -> Rule:
    return Rule(name, cls, lambda node: None, cite, relation, 0, doc, "none")


#: Statements valid for every trade-off function, as rule objects (name, citation, relation)
#: for the basis of a verdict: ``relation`` "upper" means ``node <= result``.
FACTS: dict[str, Rule] = {r.name: r for r in (
    symbol_le_id.rule, subsample_le_mix.rule, mix_ge_operand.rule,
    tensor_drop_symbols.rule,
    _fact("le_id", TradeOffSymbol, DRS.prop(1, note="f(alpha) <= 1 - alpha = Id(alpha)"),
          "upper", "every trade-off function lies below Id"),
    _fact("ge_zero", TradeOffSymbol, DRS.defn(2, note="trade-off functions are >= 0"),
          "lower", "every trade-off function lies above 0"),
    _fact("tensor_le_factor", Tensor,
          DRS.sec("3.1", note="properties 2 and 3: f (x) g <= f (x) Id = f"), "upper",
          "a product lies below each of its factors"),
    _fact("power_le_base", TensorPower,
          DRS.sec("3.1", note="properties 2 and 3: f^{(x) n} <= f for n >= 1"), "upper",
          "a tensor power (n >= 1) lies below its base"),
    _fact("subsample_le_mix_inverse", Subsample,
          DRS.defn(6, note="h^{**} <= h: C_p(f) <= min{f_p, f_p^{-1}} <= f_p^{-1}"), "upper",
          "C_p(f) lies below f_p^{-1}"),
    _fact("subsample_ge_hull", Subsample,
          DRS.defn(6, note="f_p >= f and f_p^-1 >= f^-1, so C_p(f) >= C(f)"), "lower",
          "C_p(f) lies above the symmetric hull C(f)"),
    _fact("symmetrize_ge_parts", Symmetrize, DRS.prop(2, note="f^S = max{f, f^{-1}}"), "lower",
          "f^S lies above f and above f^{-1}"),
    _fact("max_ge_parts", Max, DRS.sec("2.1", note="max{f, g} >= f"), "lower",
          "a pointwise maximum lies above each of its arguments"),
    _fact("group_le_base", Group,
          DRS.sec("2.5", note="1 - (1 - f)^{o k} <= 1 - (1 - f)^{o (k-1)}, down to k = 1"),
          "upper", "Group(f, k) lies below f for k >= 1"),
    _fact("monotone_tensor", Tensor, DRS.sec("3.1", note="property 2: g1 >= g2 gives "
                                                         "f (x) g1 >= f (x) g2"),
          "lower", "the product is non-decreasing in each factor"),
    _fact("monotone_power", TensorPower, DRS.sec("3.1", note="property 2, n times"), "lower",
          "f^{(x) n} is non-decreasing in f"),
    _fact("monotone_inverse", Inverse,
          DRS.sec("4.1", note="fact 1: g >= h iff g^{-1} >= h^{-1}"), "lower",
          "the inverse is non-decreasing in its operand"),
    _fact("monotone_subsample", Subsample,
          DRS.sec("4.1", note="fact 2: f >= g gives C_p(f) >= C_p(g)"), "lower",
          "C_p is non-decreasing in its operand"),
    _fact("monotone_mix", Mix, DRS.sec("4.1", note="f_p = p f + (1 - p) Id"), "lower",
          "f_p is non-decreasing in f"),
    _fact("monotone_group", Group, DRS.thm(3, note="1 - (1 - f)^{o k} is non-decreasing in f"),
          "lower", "group privacy is non-decreasing in f"),
    _fact("monotone_max", Max, DRS.sec("2.1", note="the pointwise maximum"), "lower",
          "the pointwise maximum is non-decreasing in each argument"),
    _fact("monotone_symmetrize", Symmetrize, DRS.prop(2, note="f^S = max{f, f^{-1}}"), "lower",
          "f^S is non-decreasing in f"),
    _fact("monotone_hull", SymmetricHull,
          WANG.sec("4", note="C(f) = min{f, f^{-1}}^{**} is non-decreasing in f"), "lower",
          "the symmetric hull is non-decreasing in f"),
    _fact("param_power", TensorPower,
          DRS.sec("3.1", note="f^{(x) (n+1)} = f^{(x) n} (x) f <= f^{(x) n}"), "upper",
          "f^{(x) n} is non-increasing in n"),
    _fact("param_mix", Mix, DRS.sec("4.1", note="f_p = f + (1 - p)(Id - f), Id >= f"), "upper",
          "f_p is non-increasing in p"),
    _fact("param_subsample", Subsample,
          DRS.defn(6, note="C_p(f) = C(f_p), C monotone, f_p non-increasing in p"), "upper",
          "C_p(f) is non-increasing in p"),
    _fact("param_group", Group,
          DRS.sec("2.5", note="1 - (1 - f)^{o k} <= 1 - (1 - f)^{o (k-1)}"), "upper",
          "Group(f, k) is non-increasing in k"),
    _fact("duality", TradeOffSymbol,
          DRS.prop(6, note="f >= f_{eps,delta} iff delta >= delta_f(eps) and delta >= "
                           "delta_{f^-1}(eps), delta_f(eps) = 1 + f^*(-e^eps)"),
          "lower", "the primal-dual characterisation of f >= f_{eps,delta}"),
)}


def fact(name: str) -> Rule:
    """The fact called ``name`` (a key of :data:`FACTS`)."""
    return FACTS[name]


#: Operators non-increasing in their scalar parameter (n, p, p, k), with their fact.
PARAM_FACT = {TensorPower: "param_power", Mix: "param_mix", Subsample: "param_subsample",
              Group: "param_group"}

#: Operators whose value is non-decreasing in every trade-off operand, with their fact.
MONOTONE_FACT = {Tensor: "monotone_tensor", TensorPower: "monotone_power",
                 Inverse: "monotone_inverse", Subsample: "monotone_subsample", Mix: "monotone_mix",
                 Group: "monotone_group", Max: "monotone_max", Symmetrize: "monotone_symmetrize",
                 SymmetricHull: "monotone_hull"}


# -- moments of the log-likelihood ratio: kl, kappa_2, kappa_3, bar kappa_3 --------------------
#: The textbook for the two inequalities between moments (not a seed paper).
BILLINGSLEY = Paper("Billingsley", "Billingsley",
                    "P. Billingsley. Probability and Measure, 3rd ed. Wiley, 1995.")

_MOMENTS = ("with Y = log|f'(U)|, U uniform on [0, 1] (f' exists almost everywhere, f being "
            "convex: Dong, Roth & Su, Prop. 1), the definitions of Dong, Roth & Su, Sec. 3.2 "
            "read kl = -E Y, kappa_2 = E Y^2, kappa_3 = E|Y|^3, bar kappa_3 = E|Y - E Y|^3, "
            "values in [0, oo]")

#: Inequalities between the functionals of Dong, Roth & Su, Sec. 3.2, valid for every
#: trade-off function f, as rule objects for the basis of a verdict (``relation`` "upper":
#: the left side is at most the right). ``verify/symbolic.py`` chains them.
MOMENT_FACTS: dict[str, Rule] = {r.name: r for r in (
    _fact("lyapunov_kl", TradeOffSymbol,
          Citation(BILLINGSLEY, "Lyapunov's inequality",
                   note="|E Y| <= E|Y| <= (E Y^2)^{1/2}; " + _MOMENTS), "upper",
          "|kl(f)| <= kappa_2(f)^{1/2}"),
    _fact("lyapunov_kappa", TradeOffSymbol,
          Citation(BILLINGSLEY, "Lyapunov's inequality",
                   note="(E Y^2)^{1/2} <= (E|Y|^3)^{1/3}; " + _MOMENTS), "upper",
          "kappa_2(f)^{1/2} <= kappa_3(f)^{1/3}"),
    _fact("minkowski_bar", TradeOffSymbol,
          Citation(BILLINGSLEY, "Minkowski's inequality",
                   note="(E|Y - E Y|^3)^{1/3} <= (E|Y|^3)^{1/3} + |E Y| <= 2 (E|Y|^3)^{1/3}, "
                        "the last step by Lyapunov's inequality; " + _MOMENTS), "upper",
          "bar kappa_3(f)^{1/3} <= 2 kappa_3(f)^{1/3}"),
)}
