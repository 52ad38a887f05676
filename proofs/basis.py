"""What a verdict rests on (its **basis**) and what it covers (its **scope**).

The basis of a verdict is read off the run itself: while a claim's verdicts are computed,
:func:`trace` records every registered rewrite rule that fires (with its citation, from
``ta.rules()``), every closed-form privacy profile and closed-form functional the library
substitutes (``profile_form``, ``functional_form``: Dong, Roth & Su, Cor. 1 and Eq. (5) for the
profiles; the families' closed forms of kl, kappa_2, kappa_3, chi2_+, TV and AUC), the
evaluation routes that implement a printed formula (C_p of a symmetric f by Dong, Roth & Su,
Eq. (13)), and the decision method of each verdict (interval arithmetic, exact arithmetic,
monotonicity, the duality of Prop. 6, ...).

A verdict is **circular** when its basis contains the claim itself: a rule or closed form whose
citation names the claim's paper and locator (``"Cor. 2"`` matches ``"Corollary 2"`` and a
locator ``"Prop. 6 / Cor. 1"``; the paper ``"Dong, Roth & Su"`` matches the key ``DRS``), or an
identity ``F(f) == expression`` decided by substituting the library's own closed form of
``F(f)``. Such a verdict shows that the library implements the claim, not that the claim holds.

The scope of a verdict is its parameter box (``over``: every parameter in the box) or, without
free parameters, one instance.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.core import trace as lib_trace
from tradeoff_algebra.core.citations import Citation
from tradeoff_algebra.core.symbol import tradeoff_symbols

__all__ = ["Item", "trace", "untraced", "verdict_basis", "verdict_scope", "circular_items",
           "locators", "paper_id", "matches_claim"]


@dataclass(frozen=True)
class Item:
    """One element of a basis: a rule, a closed form, a route or a computation."""

    kind: str   # "rule", "closed form", "route", "computation", "reference"
    name: str
    cite: str = ""  # "Dong, Roth & Su, Cor. 2"; empty for a computation
    paper: str = ""  # the normalised paper id of the citation ("dong", "wang", ...)
    functional: str = ""  # for a closed form: "kl(Gaussian)", "delta(Gaussian)"

    def as_json(self) -> dict:
        out = {"kind": self.kind, "name": self.name}
        if self.cite:
            out["cite"] = self.cite
        return out


# -- matching citations against a claim ---------------------------------------------------------
_KINDS = {"cor": "cor", "corollary": "cor", "thm": "thm", "theorem": "thm", "prop": "prop",
          "proposition": "prop", "lemma": "lemma", "def": "def", "definition": "def",
          "eq": "eq", "eqs": "eq", "equation": "eq", "equations": "eq", "sec": "sec",
          "section": "sec", "table": "table", "fig": "fig", "figure": "fig", "alg": "alg",
          "algorithm": "alg", "example": "example", "ex": "example", "remark": "remark"}
_LOC = re.compile(r"\b(corollary|cor|theorem|thm|proposition|prop|lemma|definition|def|"
                  r"equations|equation|eqs|eq|section|sec|table|figure|fig|algorithm|alg|"
                  r"example|ex|remark)\b\.?\s*((?:\(?[0-9]+(?:\.[0-9]+)*\)?(?:\s*(?:,|and|&)\s*)?)+)",
                  re.IGNORECASE)
_ALIASES = {"drs": "dong", "kov": "kairouz"}


def locators(text: str) -> set[tuple[str, str]]:
    """The normalised locators named in ``text``: ``"Prop. 6 / Cor. 1"`` gives
    ``{("prop", "6"), ("cor", "1")}``; ``"Eqs. (10) and (11)"`` gives both equations."""
    out = set()
    for m in _LOC.finditer(text):
        kind = _KINDS[m.group(1).lower()]
        for num in re.findall(r"[0-9]+(?:\.[0-9]+)*", m.group(2)):
            out.add((kind, num))
    return out


def paper_id(text: str) -> str:
    """A paper's normalised id: the first word of its short name, lower case, or the alias of
    its key (``"DRS"`` and ``"Dong, Roth & Su"`` both give ``"dong"``)."""
    word = re.sub(r"[^a-z]", "", text.strip().split()[0].lower()) if text.strip() else ""
    return _ALIASES.get(word, word)


def _cite_str(c: Citation) -> str:
    return f"{c.paper.short}, {c.locator}"


def matches_claim(item: Item, paper: str, locator: str) -> bool:
    """Whether ``item``'s citation names the claim (same paper, a common locator)."""
    if not item.cite or item.paper != paper_id(paper):
        return False
    loc_item = locators(item.cite.split(",", 1)[1] if "," in item.cite else item.cite)
    return bool(loc_item & locators(locator))


# -- tracing a run ------------------------------------------------------------------------------
# Closed forms the families register without a Citation object: where they come from.
_PROFILE_CITES = {"Gaussian": ("Dong, Roth & Su", "Cor. 1"),
                  "EpsDelta": ("Dong, Roth & Su", "Eq. (5)")}
_FUNCTIONAL_CITES = {("Gaussian", "chi2_plus"): ("Dong, Roth & Su", "Lemma 3"),
                     ("Gaussian", "auc"): ("Kaissis et al.", "Lemma 3")}


def _rule_item(r: Any) -> Item:
    return Item("rule", r.name, _cite_str(r.cite), paper_id(r.cite.paper.key))


def _closed_item(kind: str, f: Any, name: str) -> Item:
    cls = type(f).__name__
    src = (_PROFILE_CITES.get(cls) if kind == "delta" else _FUNCTIONAL_CITES.get((cls, name)))
    label = f"{kind if kind == 'delta' else name}({cls})"
    if src is None:
        return Item("closed form", f"the library's closed form of {label}", "", "",
                    functional=label)
    return Item("closed form", f"the closed form of {label}", f"{src[0]}, {src[1]}",
                paper_id(src[0]), functional=label)


def _item(event: tuple) -> Item:
    """The basis item of a library event (``tradeoff_algebra.core.trace``)."""
    if event[0] == "rule":
        return _rule_item(event[1])
    _, kind, f, name = event
    return _closed_item(kind, f, name)


@contextmanager
def untraced() -> Iterator[None]:
    """Inside a cross-check: the library side of the comparison (the value under test), whose
    rules and closed forms are not part of the reference's basis."""
    with lib_trace.basis(keep=False):
        yield


@contextmanager
def trace() -> Iterator[list[Item]]:
    """Record the rules, closed forms and routes used inside the block; yields the list that
    receives them (filled when the block ends). The library records them itself
    (``tradeoff_algebra.core.trace.basis``): every rule that fires, every closed form
    substituted, replayed by the memos of registered identities on a hit."""
    out: list[Item] = []
    with lib_trace.basis() as events:
        try:
            yield out
        finally:
            out.extend(dict.fromkeys(_item(e) for e in events))


# -- the basis and scope of a verdict -----------------------------------------------------------
_METHODS = {
    "rewrite": "rewriting by the cited sound rules to one canonical form (SymPy simplification "
               "for scalars)",
    "monotonicity": "monotonicity of the families in their parameters and of the operators in "
                    "their operands",
    "interval arithmetic": "interval arithmetic (Arb balls, python-flint)",
    "exact": "exact rational arithmetic",
}


def _subsample_items(x: Any) -> list[Item]:
    """The Eq. (13) route: C_p of a symmetric f is evaluated by Dong, Roth & Su, Eq. (13)."""
    if not isinstance(x, sp.Basic):
        return []
    out = []
    for node in sp.preorder_traversal(x):
        if isinstance(node, ta.Subsample):
            out.append(Item("route", "C_p(f) of a symmetric f evaluated by Eq. (13)",
                            "Dong, Roth & Su, Eq. (13)", "dong"))
            break
    return out


def verdict_basis(v: Any, traced: list[Item]) -> list[Item]:
    """The basis of one verdict: the recorded rules and closed forms, the routes, and the
    decision method (``traced`` is what :func:`trace` recorded while it was computed)."""
    items = list(traced)
    for d in getattr(v, "derivations", ()):
        for s in d.steps:
            items.append(_rule_item(s.rule))
    if v.method == "duality":
        items.append(Item("rule", "f >= f_{eps,delta} iff delta >= delta_f(eps) and delta >= "
                          "delta_{f^-1}(eps)", "Dong, Roth & Su, Prop. 6", "dong"))
    if v.method not in ("rewrite", "monotonicity", "duality"):
        try:
            sl, sr = (ta.simplify(x) if isinstance(x, ta.TradeOff) else x
                      for x in (v.lhs, v.rhs))
        except ta.TradeOffError:
            sl, sr = v.lhs, v.rhs
        items += _subsample_items(sl) + _subsample_items(sr)
    for m in v.method.split(" / "):
        items.append(Item("computation", _METHODS.get(m, m)))
    return list(dict.fromkeys(items))


def circular_items(verdicts: list, basis: list[Item], paper: str, locator: str) -> list[Item]:
    """The items of ``basis`` that are the claim itself: a citation of the claim (paper and
    locator), or the library's uncited closed form of a functional deciding a scalar identity
    (``kl(G_mu) == mu^2/2`` decided by substituting the library's ``mu^2/2``)."""
    out = [it for it in basis if matches_claim(it, paper, locator)]
    if any(v.rel == "==" and v.method == "rewrite" and not isinstance(v.lhs, ta.TradeOff)
           for v in verdicts):
        out += [it for it in basis if it.kind == "closed form" and not it.cite]
    return list(dict.fromkeys(out))


def verdict_scope(v: Any) -> dict:
    """``{"box": {name: [lo, hi]}}`` for a verdict with free parameters (a trade-off symbol
    ``f`` adds ``{"f": "every trade-off function f"}``), ``{"instance": ...}`` for one
    without."""
    syms = set()
    for x in (v.lhs, v.rhs):
        if isinstance(x, sp.Basic):
            syms |= x.free_symbols
    fs = tradeoff_symbols(v.lhs, v.rhs)
    if (syms and v.over) or fs:
        box = {str(k): [sp.sstr(sp.sympify(lo)), sp.sstr(sp.sympify(hi))]
               for k, (lo, hi) in (v.over or {}).items()}
        box.update({s.name: s.description() for s in fs})  # a trade-off symbol: every f
        return {"box": box}
    text = f"{sp.sstr(v.lhs) if isinstance(v.lhs, sp.Basic) else v.lhs} {v.rel} " \
        f"{sp.sstr(v.rhs) if isinstance(v.rhs, sp.Basic) else v.rhs}"
    return {"instance": text if len(text) <= 160 else text[:157] + "..."}
