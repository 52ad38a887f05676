"""Claims about arbitrary trade-off functions: ``verify`` on expressions with trade-off symbols.

A claim that contains a :class:`~tradeoff_algebra.core.symbol.TradeOffSymbol` is a claim for
*every* trade-off function the symbol stands for (every f; every symmetric f; every f with
f(0) = 1). No number decides it; the verdict is

* **True** only with a proof by rules valid for every trade-off function: both sides simplify
  to one form by the registered identities (``inverse_tensor``, ``tensor_unit``, ``group_one``,
  ...), or an ordering chain of cited facts (:data:`tradeoff_algebra.rewrite.general.FACTS`:
  f <= Id, f (x) g <= f, C_p(f) <= f_p, max{f, g} >= f, the monotonicity of the operators in
  their operands, ...), or the duality of Dong, Roth & Su, Prop. 6 (f >= f_{eps,delta} iff
  delta >= delta_f(eps) and delta >= delta_{f^-1}(eps)) with delta one of these profiles. The
  derivations (each step with its rule and citation) are the verdict's basis; they never
  contain the claim as an assumption;
* **False** only with a certified counterexample: concrete trade-off functions substituted for
  the symbols (G_1, f_{1,0}, f_{1,1/10}, an asymmetric finite pair, ...; only ones with the
  symbol's declared properties), on which the ordinary decision procedures refute the claim;
  the verdict's counterexample names the substitution;
* **None** otherwise, with the evidence "no rule valid for every trade-off function decides
  this" and what the substitutions gave.

The scope of every verdict is named in its evidence: the trade-off functions each symbol ranges
over, and the parameter box of the scalar parameters (``over``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from itertools import permutations, product
from typing import Any

import sympy as sp

from ..analysis.functionals import kappa2, kappa3, kappa3_bar, kl
from ..analysis.lazy import FUNCTIONALS, Functional
from ..core.errors import TradeOffError
from ..core.node import TradeOff
from ..core.rules import Rule
from ..core.symbol import INSTANCES, TradeOffSymbol, has_tradeoff_symbol, tradeoff_symbols
from ..notions.approx import epsdelta_pair
from ..operators.maxgroup import Group, Max
from ..operators.subsample import Mix, Subsample
from ..operators.tensor import Tensor, TensorPower
from ..operators.unary import Inverse, SymmetricHull, Symmetrize
from ..rewrite import derive, simplify
from ..rewrite.derive import Derivation, Step
from ..rewrite.general import FACTS, MOMENT_FACTS, MONOTONE_FACT, PARAM_FACT
from .monotone import prove_le, same_node

__all__ = ["symbolic_claim", "contains_symbol", "substitutions", "prove_le_tradeoff",
           "prove_moment_order"]

# The functionals of Dong, Roth & Su, Sec. 3.2 as lazy scalars, so that a claim about kl(f) of
# a trade-off symbol can be written ``Functional("kl", f)`` (``ta.kl(f)`` asks for a closed
# form and has none for an arbitrary f).
for _name, _func, _tex in (("kl", kl, r"\mathrm{kl}\left({f}\right)"),
                           ("kappa2", kappa2, r"\kappa_2\left({f}\right)"),
                           ("kappa3", kappa3, r"\kappa_3\left({f}\right)"),
                           ("kappa3_bar", kappa3_bar, r"\bar{\kappa}_3\left({f}\right)")):
    FUNCTIONALS.setdefault(_name, (_func, _tex))

#: Depth of the ordering search (each level one fact).
MAX_DEPTH = 10
#: Pairs (smaller, larger) the ordering search visits at most.
MAX_VISITS = 2000
#: Substitutions tried for a counterexample, at most.
MAX_SUBSTITUTIONS = 6


def _candidates(s: TradeOffSymbol) -> list[TradeOff]:
    """The registered instances (``families/symbol_instances.py``) with the properties ``s``
    declares."""
    return [f for f, sym, tight in INSTANCES
            if (sym or s.is_symmetric is not True) and (tight or s.is_tight is not True)]


def substitutions(*exprs: Any, limit: int = MAX_SUBSTITUTIONS) -> list[dict]:
    """Concrete trade-off functions for the symbols of ``exprs``, each with the properties its
    symbol declares: up to ``limit`` maps {symbol: function} (shifted diagonals first, so
    that every candidate of each symbol is tried once, with distinct symbols given distinct
    functions)."""
    syms = tradeoff_symbols(*exprs)
    if not syms:
        return []
    cands = [_candidates(s) for s in syms]
    out: list[dict] = []
    width = max(len(c) for c in cands)
    for i in range(width):  # shifted diagonals: symbol j takes candidate i + j (distinct ones)
        out.append({s: c[(i + j) % len(c)]
                    for j, (s, c) in enumerate(zip(syms, cands, strict=True))})
    for combo in product(*cands):
        d = dict(zip(syms, combo, strict=True))
        if d not in out:
            out.append(d)
        if len(out) >= limit:
            break
    return out[:limit]


def _scope(exprs: tuple) -> str:
    syms = tradeoff_symbols(*exprs)
    return "; ".join(s.description() for s in syms)


# -- the ordering prover --------------------------------------------------------------------------
def _up(name: str) -> Rule:
    """The fact ``name`` as a step from the smaller side to the larger (printed ``<=``)."""
    r = FACTS[name]
    return r if r.relation == "upper" else dataclasses.replace(r, relation="upper")


def _step(name: str, before: TradeOff, after: TradeOff) -> Step:
    return Step(_up(name), before, after, before, after)


def _simp(x: TradeOff) -> TradeOff:
    try:
        return simplify(x)
    except TradeOffError:
        return x


def prove_le_tradeoff(s: TradeOff, b: TradeOff, box: dict, depth: int = 0,
                      state: dict | None = None) -> list[Step] | None:
    """A chain of facts valid for every trade-off function proving ``s <= b`` pointwise (the
    steps, each ``before <= after``), or None (not proved; it may still hold). The search
    visits at most :data:`MAX_VISITS` pairs and remembers the pairs it failed on."""
    state = {"left": MAX_VISITS, "failed": set()} if state is None else state
    if depth > MAX_DEPTH or state["left"] <= 0 or (s, b) in state["failed"]:
        return None
    state["left"] -= 1
    out = _search(s, b, box, depth, state)
    if out is None:
        state["failed"].add((s, b))
    return out


def _search(s: TradeOff, b: TradeOff, box: dict, depth: int, state: dict) -> list[Step] | None:
    if same_node(s, b):
        return []
    if b.is_greatest:
        return [_step("le_id", s, b)]
    if s.is_least:
        return [_step("ge_zero", s, b)]
    for name, mid in _above(s):
        rest = prove_le_tradeoff(mid, b, box, depth + 1, state)
        if rest is not None:
            return [_step(name, s, mid), *rest]
    for name, mid in _below(b):
        rest = prove_le_tradeoff(s, mid, box, depth + 1, state)
        if rest is not None:
            return [*rest, _step(name, mid, b)]
    return _congruent(s, b, box, depth, state)


def _above(s: TradeOff) -> list[tuple[str, TradeOff]]:
    """Expressions proved >= ``s`` by one fact, with the fact's name."""
    if isinstance(s, Tensor):
        return [("tensor_le_factor", a) for a in s.args]
    if isinstance(s, TensorPower) and s.args[1].is_positive:
        return [("power_le_base", s.args[0])]
    if isinstance(s, Group):
        return [("group_le_base", s.arg)]
    if isinstance(s, Subsample):
        m = Mix(s.arg, s.p)
        return [("subsample_le_mix", m), ("subsample_le_mix_inverse", _simp(Inverse(m)))]
    return []


def _below(b: TradeOff) -> list[tuple[str, TradeOff]]:
    """Expressions proved <= ``b`` by one fact, with the fact's name."""
    if isinstance(b, Max):
        return [("max_ge_parts", a) for a in b.args]
    if isinstance(b, Symmetrize):
        return [("symmetrize_ge_parts", b.arg), ("symmetrize_ge_parts", _simp(Inverse(b.arg)))]
    if isinstance(b, Mix):
        return [("mix_ge_operand", b.arg)]
    if isinstance(b, Subsample):
        return [("subsample_ge_hull", _simp(SymmetricHull(b.arg)))]
    return []


def _congruent(s: TradeOff, b: TradeOff, box: dict, depth: int,
               state: dict) -> list[Step] | None:
    """The same monotone operator on both sides: operands ordered, parameters equal or ordered
    in the operator's direction. The operands' steps are shown in the whole expression; a last
    step cites the operator's monotonicity."""
    cls = type(s)
    if cls is not type(b) or cls not in MONOTONE_FACT or len(s.args) != len(b.args):
        return None
    n = len(s.args)
    commutative = cls in (Tensor, Max) and n <= 4
    orders = permutations(range(n)) if commutative else [tuple(range(n))]
    for order in orders:
        out = _lift(s, b, order, box, depth, state)
        if out is not None:
            return out
    return None


def _lift(s: TradeOff, b: TradeOff, order: tuple, box: dict, depth: int,
          state: dict) -> list[Step] | None:
    cls = type(s)
    cur = list(s.args)
    steps: list[Step] = []
    moved = False  # an operand moved: the operator's monotonicity is used
    for i, j in enumerate(order):
        x, y = s.args[j], b.args[i]
        if x == y:
            continue
        if isinstance(x, TradeOff) and isinstance(y, TradeOff):
            sub = prove_le_tradeoff(x, y, box, depth + 1, state)
            if sub is None:
                return None

            def ctx(z, j=j):
                return cls(*(z if k == j else a for k, a in enumerate(cur)))

            steps += [Step(st.rule, st.before, st.after, ctx(st.expr_before),
                           ctx(st.expr_after)) for st in sub]
            moved = True
        elif isinstance(x, TradeOff) or isinstance(y, TradeOff):
            return None
        else:  # a parameter: the operator is non-increasing in it, so b's must be <= s's
            if cls not in PARAM_FACT or not prove_le(y, x, box):
                return None
            before = cls(*cur)
            after = cls(*(y if k == j else a for k, a in enumerate(cur)))
            steps.append(Step(_up(PARAM_FACT[cls]), before, after, before, after))
        cur[j] = y
    return [*steps, _step(MONOTONE_FACT[cls], s, b)] if moved else steps


# -- duality (Prop. 6) ----------------------------------------------------------------------------
def _profile_bound(d: sp.Expr, g: TradeOff, eps: sp.Expr) -> bool:
    """``d >= delta_g(eps)`` by structure: d is that profile, or a maximum containing it."""
    target = Functional("delta", g, eps)

    def same(x: Any) -> bool:
        return isinstance(x, Functional) and x.name == "delta" and x.scalars == (eps,) \
            and same_node(_simp(x.operand), g)

    if d == target or same(d):
        return True
    return isinstance(d, sp.Max) and any(same(a) for a in d.args)


def _duality(big: TradeOff, small: TradeOff) -> list[Step] | None:
    pair = epsdelta_pair(small)
    if pair is None:
        return None
    eps, d = pair
    parts = dict.fromkeys((big, _simp(Inverse(big))))
    if all(_profile_bound(d, g, eps) for g in parts):
        return [_step("duality", small, big)]
    return None


# -- the claim ------------------------------------------------------------------------------------
def _derivations(*exprs) -> tuple:
    out = []
    for e in exprs:
        try:
            d = derive(e)
        except TradeOffError:
            continue
        if len(d):
            out.append(d)
    return tuple(out)


def _order(sl: TradeOff, sr: TradeOff, rel: str, box: dict) -> tuple | None:
    """A derivation (small side to large side, each step a cited fact) proving ``sl rel sr``
    for every trade-off function, or None."""
    big, small = (sl, sr) if rel == ">=" else (sr, sl)
    steps = _duality(big, small) or prove_le_tradeoff(small, big, box)
    if steps is None:
        return None
    return Derivation(small, big, tuple(steps))


Decider = Callable[..., Any]


def symbolic_claim(lhs: Any, rel: str, rhs: Any, box: dict, over: dict | None, dps: int,
                   verify: Decider) -> tuple:
    """The verdict tuple ``(status, method, evidence, counterexample, derivations)`` of a claim
    containing trade-off symbols (module docstring); ``verify`` decides the instances."""
    scope = _scope((lhs, rhs))
    every = f"for {scope}" + (f" and the parameter box {_box(box)}" if box else "")
    if isinstance(lhs, TradeOff):
        sl, sr = _simp(lhs), _simp(rhs)
        if same_node(sl, sr):
            return (True, "rewrite", f"both sides simplify to {sp.sstr(sl)} by rules valid "
                    f"{every}", None, _derivations(lhs, rhs))
        proofs = []
        for r in ((rel,) if rel != "==" else ("<=", ">=")):
            d = _order(sl, sr, r, box)
            if d is None:
                break
            proofs.append(d)
        else:
            how = "an ordering by facts valid" if rel != "==" else "orderings both ways by facts " \
                "valid"
            return (True, "rewrite", f"{how} {every}", None,
                    _derivations(lhs, rhs) + tuple(proofs))
    else:
        diff = sp.simplify(lhs - rhs)
        if diff == 0:
            return (True, "rewrite", f"the difference simplifies to 0 {every}", None, ())
        if rel != "==" and _scalar_order(lhs, rel, rhs):
            return (True, "rewrite", f"a maximum is at least each argument {every}",
                    None, ())
        if rel != "==":
            d = prove_moment_order(*((lhs, rhs) if rel == "<=" else (rhs, lhs)))
            if d is not None:
                names = ", ".join(dict.fromkeys(st.rule.name for st in d.steps)) or "none"
                return (True, "moment inequalities",
                        f"a chain of inequalities between the moments of log|f'(U)| ({names}) "
                        f"{every}, raised to a power and scaled; values in [0, oo], so an "
                        f"infinite right side holds trivially", None, (d,))
    return _refute(lhs, rel, rhs, over, dps, verify, every)


# -- moments of the log-likelihood ratio ----------------------------------------------------------
# A side c * F(f)^k is read as c * N^e with N one of the norms of Y = log|f'(U)| (U uniform):
# "a" = |E Y| = |kl|, "m2" = kappa_2^{1/2}, "m3" = kappa_3^{1/3}, "b3" = bar kappa_3^{1/3}.
_NORM = {"kappa2": ("m2", 2), "kappa3": ("m3", 3), "kappa3_bar": ("b3", 3)}
# N_1 <= K N_2, by the fact named (Lyapunov, Minkowski).
_EDGES = {"a": ("m2", 1, "lyapunov_kl"), "m2": ("m3", 1, "lyapunov_kappa"),
          "b3": ("m3", 2, "minkowski_bar")}
_NORM_EXPR = {"a": lambda f: sp.Abs(Functional("kl", f)),
              "m2": lambda f: Functional("kappa2", f) ** sp.Rational(1, 2),
              "m3": lambda f: Functional("kappa3", f) ** sp.Rational(1, 3),
              "b3": lambda f: Functional("kappa3_bar", f) ** sp.Rational(1, 3)}


def _moment_side(x: Any, small: bool) -> tuple | None:
    """``(c, norm, e, f)`` with x <= c N^e (small side) or x = c N^e (large side), c > 0."""
    c, rest = x.as_coeff_Mul() if isinstance(x, sp.Expr) else (None, None)
    if c is None or not (c.is_number and c.is_positive):
        return None
    base, k = rest.as_base_exp()
    if not (k.is_Rational and k.is_positive):
        return None
    if isinstance(base, sp.Abs) and isinstance(base.args[0], Functional) \
            and base.args[0].name == "kl":
        base, norm, order = base.args[0], "a", 1
    elif isinstance(base, Functional) and base.name == "kl" and small \
            and (k == 1 or (k.is_integer and k.is_even)):
        norm, order = "a", 1  # kl <= |kl|, kl^(2j) = |kl|^(2j)
    elif isinstance(base, Functional) and base.name in _NORM:
        norm, order = _NORM[base.name]
    else:
        return None
    if base.scalars or not isinstance(base.operand, TradeOffSymbol):
        return None
    return c, norm, order * k, base.operand


def prove_moment_order(small: Any, big: Any) -> Derivation | None:
    """A derivation of ``small <= big`` for every trade-off function from Lyapunov's and
    Minkowski's inequalities between the moments of log|f'(U)| (:data:`MOMENT_FACTS`), or
    None. Both sides are c F(f)^k with F one of kl, |kl|, kappa_2, kappa_3, bar kappa_3 of one
    trade-off symbol f, c > 0 and the same power of the underlying norms: kl(f) <=
    kappa_3(f)^{1/3}, kappa_2(f) <= kappa_3(f)^{2/3}, kappa3_bar(f) <= 8 kappa_3(f)."""
    s, b = _moment_side(small, True), _moment_side(big, False)
    if s is None or b is None or s[3] != b[3] or s[2] != b[2]:
        return None
    (cs, ns, e, f), (cb, nb, _, _) = s, b
    steps, K, cur = [], sp.S.One, ns
    while cur != nb:
        if cur not in _EDGES:
            return None
        nxt, k, name = _EDGES[cur]
        before, after = _NORM_EXPR[cur](f), k * _NORM_EXPR[nxt](f)
        steps.append(Step(MOMENT_FACTS[name], before, after, before, after))
        K, cur = K * k, nxt
    if (cb - cs * K**e).is_nonnegative is not True:
        return None
    # the chain between the norms; the claim is its e-th power, scaled (c_s K^e <= c_b)
    return Derivation(_NORM_EXPR[ns](f), K * _NORM_EXPR[nb](f), tuple(steps))


def _scalar_order(lhs, rel, rhs) -> bool:
    big, small = (lhs, rhs) if rel == ">=" else (rhs, lhs)
    return isinstance(big, sp.Max) and small in big.args


def _box(box: dict) -> str:
    return ", ".join(f"{k} in [{lo}, {hi}]" for k, (lo, hi) in box.items())


def _refute(lhs, rel, rhs, over, dps, verify, every) -> tuple:
    subs = substitutions(lhs, rhs)
    tried, held, undecided = [], 0, 0
    for sub in subs:
        shown = ", ".join(f"{s.name} = {sp.sstr(g)}" for s, g in sub.items())
        try:
            v = verify(lhs.xreplace(sub), rel, rhs.xreplace(sub), over=over, dps=dps)
        except TradeOffError:
            undecided += 1
            continue
        tried.append(shown)
        if v.status is False:
            ce = {s.name: g for s, g in sub.items()}
            ce.update(v.counterexample or {})
            return (False, f"substitution ({v.method})",
                    f"fails for {shown}: {v.evidence}", ce, ())
        if v.status is True:
            held += 1
        else:
            undecided += 1
    ev = (f"no rule valid for every trade-off function decides this ({every}); of "
          f"{len(subs)} substitutions of concrete trade-off functions, the claim holds for "
          f"{held} and is undecided for {undecided}")
    if tried:
        ev += f" ({tried[0]}, ...)"
    return (None, "rules for every f", ev, None, ())


def contains_symbol(lhs: Any, rhs: Any) -> bool:
    """Does the claim contain a trade-off symbol (and so belong to :func:`symbolic_claim`)?"""
    return has_tradeoff_symbol(lhs, rhs)
