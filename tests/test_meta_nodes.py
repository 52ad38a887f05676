"""Meta-test over every node class of the package (docs/architecture.md, "Nodes").

Walks every subclass of ``TradeOffExpr`` defined in ``tradeoff_algebra`` (recursively through
``__subclasses__``, after importing every submodule) and fails for a class without an example in
``tests/node_examples.py``. Each example must survive ``func(*args)``, ``srepr``/``eval``, pickle,
hashing, ``subs``/``xreplace``, and print to LaTeX and text.
"""

from __future__ import annotations

import importlib
import pickle
import pkgutil
import re

import pytest
import sympy as sp
from node_examples import ABSTRACT, ADMISSIBLE, EXAMPLES, SYMBOLS

import tradeoff_algebra as ta


def _import_all_submodules() -> None:
    for info in pkgutil.walk_packages(ta.__path__, ta.__name__ + "."):
        try:
            importlib.import_module(info.name)
        except ImportError as exc:  # an optional third-party dependency (e.g. plotting)
            if (exc.name or "").startswith("tradeoff_algebra"):
                raise


def _all_subclasses(cls: type) -> set[type]:
    out: set[type] = set()
    for sub in cls.__subclasses__():
        out.add(sub)
        out |= _all_subclasses(sub)
    return out


def package_node_classes() -> list[type]:
    _import_all_submodules()
    classes = {c for c in _all_subclasses(ta.TradeOffExpr)
               if c.__module__.startswith("tradeoff_algebra")}
    return sorted(classes - ABSTRACT, key=lambda c: (c.__module__, c.__name__))


NODE_CLASSES = package_node_classes()


def _ids(e):
    return sp.sstr(e)


def test_walk_finds_the_known_classes():
    names = {c.__name__ for c in NODE_CLASSES}
    assert {"Gaussian", "EpsDelta", "Laplace", "IdTradeOff", "ZeroTradeOff", "Tensor",
            "TensorPower", "Inverse", "Conjugate", "Max", "Group", "Mix", "Subsample",
            "Symmetrize", "SymmetricHull"} <= names


@pytest.mark.parametrize("cls", NODE_CLASSES, ids=lambda c: c.__name__)
def test_every_node_class_has_an_example(cls):
    covered = {type(e) for e in EXAMPLES}
    assert cls in covered, (
        f"{cls.__module__}.{cls.__name__} has no example: append one (numeric and symbolic "
        "parameters) to EXAMPLES in tests/node_examples.py, or list it in ABSTRACT")


def test_examples_are_nodes_of_the_package():
    for e in EXAMPLES:
        assert isinstance(e, ta.TradeOffExpr), e
        assert type(e) not in ABSTRACT


def _srepr_namespace() -> dict:
    ns: dict = {}
    exec("from sympy import *", ns)  # noqa: S102 - a fixed import statement
    ns.update({c.__name__: c for c in NODE_CLASSES})
    return ns


@pytest.mark.parametrize("expr", EXAMPLES, ids=_ids)
def test_rebuild_from_args(expr):
    assert expr.func(*expr.args) == expr
    assert type(expr.func(*expr.args)) is type(expr)


@pytest.mark.parametrize("expr", EXAMPLES, ids=_ids)
def test_srepr_round_trip(expr):
    back = eval(sp.srepr(expr), _srepr_namespace())  # noqa: S307 - our own srepr output
    assert back == expr
    assert hash(back) == hash(expr)


@pytest.mark.parametrize("expr", EXAMPLES, ids=_ids)
def test_pickle_round_trip(expr):
    back = pickle.loads(pickle.dumps(expr))
    assert back == expr and hash(back) == hash(expr)
    assert sp.srepr(back) == sp.srepr(expr)


def _walk_args(expr):
    for a in expr.args:
        yield a
        yield from _walk_args(a)


@pytest.mark.parametrize("expr", EXAMPLES, ids=_ids)
def test_args_are_sympy_objects(expr):
    for a in _walk_args(expr):
        assert isinstance(a, sp.Basic), (expr, a, type(a))
        assert not isinstance(a, (list, tuple, float, int, str)), (expr, a)


@pytest.mark.parametrize("expr", EXAMPLES, ids=_ids)
def test_free_symbols_subs_and_xreplace(expr):
    fs = expr.free_symbols
    assert fs <= set(SYMBOLS), fs
    # free symbols are exactly those of the parameters
    assert fs == set().union(*(a.free_symbols for a in _walk_args(expr) if a.is_Symbol))
    values = {s: ADMISSIBLE[s] for s in fs}
    by_subs = expr.subs(values)
    by_xreplace = expr.xreplace({s: sp.sympify(v) for s, v in values.items()})
    assert by_subs == by_xreplace
    assert not by_subs.free_symbols
    assert isinstance(by_subs, ta.TradeOffExpr)
    # a symbol that does not occur changes nothing
    other = sp.Symbol("zz_not_there")
    assert expr.subs(other, 1) == expr and expr.xreplace({other: 1}) == expr
    if fs:
        s = sorted(fs, key=str)[0]
        fresh = sp.Symbol("fresh_" + s.name, **s.assumptions0)
        renamed = expr.xreplace({s: fresh})
        assert fresh in renamed.free_symbols and s not in renamed.free_symbols
        assert renamed.xreplace({fresh: s}) == expr


def _balanced(s: str) -> bool:
    depth = 0
    for ch in re.sub(r"\\[{}]", "", s):
        depth += ch == "{"
        depth -= ch == "}"
        if depth < 0:
            return False
    return depth == 0


@pytest.mark.parametrize("expr", EXAMPLES, ids=_ids)
def test_latex_and_text(expr):
    tex = ta.latex(expr)
    assert isinstance(tex, str) and tex.strip()
    assert _balanced(tex), tex
    assert tex.count(r"\left") == tex.count(r"\right"), tex
    assert expr.latex() == tex
    assert expr._repr_latex_().startswith("$")
    s = str(expr)
    assert s and s == ta.text(expr) == repr(expr)


@pytest.mark.parametrize("expr", EXAMPLES, ids=_ids)
def test_text_is_api_syntax(expr):
    """The plain text is the API's Python syntax: it evaluates back to the expression."""
    from tradeoff_algebra.parse import parse_expr

    try:
        back = parse_expr(str(expr), symbols={s.name: s for s in SYMBOLS})
    except ta.InvalidParameter as exc:
        if "unknown name" in str(exc) or "not available" in str(exc):
            pytest.skip(f"the parser does not know this constructor yet: {exc}")
        raise
    assert back == expr, (str(expr), back)
