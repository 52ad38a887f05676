"""Functionals of expressions with free parameters, kept unevaluated.

``ta.delta(G(mu), eps)`` cannot be a number while ``mu`` and ``eps`` are symbols. It is then a
:class:`Functional`: a SymPy scalar whose arguments are the name of the functional, the
trade-off expression and the scalar arguments. It takes part in SymPy expressions
(``1 - delta(G(mu), eps)``), substitutes (``.subs(mu, 1)``), prints in the papers' notation
(``\\delta_{G_{\\mu}}(\\varepsilon)``) and, once every parameter has a value, evaluates with the
functional's own certified route (:meth:`Functional.value`). The claims of ``ta.verify`` are
built from them.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import sympy as sp

from ..core.errors import InvalidParameter, TradeOffError
from ..core.levels import decimal_string
from ..core.node import TradeOffExpr
from ..core.validate import count, to_sympy
from ..numeric.capability import profile_form
from ..numeric.protocol import MAX_DPS, evaluate, roc
from ..rewrite.simplify import simplify

__all__ = ["Functional", "defer", "FUNCTIONALS"]

# name -> (function(f, *args, dps=...) -> Value, LaTeX template with {f} and {args})
FUNCTIONALS: dict[str, tuple[Callable[..., Any], str]] = {}


class Functional(sp.Expr):
    """``name(f, *args)`` for a registered functional, unevaluated until its parameters are set.

    Registered: ``"delta"`` (f, eps), ``"epsilon"`` (f, delta), ``"evaluate"`` (f, alpha) and
    ``"roc"`` (f, alpha). ``Functional("evaluate", f, alpha)`` is f(alpha) as a scalar that
    takes part in SymPy arithmetic (``Abs(Functional("evaluate", f, a) - ...)``) in claims.

    ``args`` are ``(Symbol(name), f, *scalars)``; ``free_symbols`` are those of ``f`` and the
    scalars, so ``subs``/``xreplace`` reach the parameters inside ``f``.
    """

    # extended real: epsilon can be +oo (SymPy's is_real would also assert finiteness, and
    # simplify would then turn ``F - oo`` into ``-oo`` whatever F's value)
    is_extended_real = True
    is_commutative = True

    def __new__(cls, name: str | sp.Symbol, f: sp.Basic, *args: Any) -> Functional:
        name = name.name if isinstance(name, sp.Symbol) else name
        if not isinstance(name, str) or name not in FUNCTIONALS:
            raise InvalidParameter("name", name, "one of " + ", ".join(map(repr, FUNCTIONALS)),
                                   "Functional")
        if not isinstance(f, TradeOffExpr):
            raise InvalidParameter("f", f, "a trade-off expression", "Functional")
        scalars = [a if isinstance(a, TradeOffExpr) else
                   to_sympy(f"args[{i}]", a, "a real number or a SymPy expression", "Functional")
                   for i, a in enumerate(args)]
        return super().__new__(cls, sp.Symbol(name), f, *scalars)

    @property
    def name(self) -> str:
        return self.args[0].name

    @property
    def operand(self) -> sp.Basic:
        return self.args[1]

    @property
    def scalars(self) -> tuple:
        return self.args[2:]

    @property
    def free_symbols(self) -> set:
        out: set = set()
        for a in self.args[1:]:
            out |= a.free_symbols
        return out

    def value(self, dps: int = 30):
        """The functional's certified :class:`~tradeoff_algebra.numeric.value.Value` (every
        parameter must have a value)."""
        func, _ = FUNCTIONALS[self.name]
        return func(self.operand, *self.scalars, dps=dps)

    def doit(self, **hints: Any) -> sp.Expr:
        """The closed form where one is known for symbolic parameters (``delta`` of G_mu,
        L_mu, f_{eps,delta}, Id, Zero: Dong, Roth & Su, Cor. 1 and Eq. (5); see
        ``profile_form``), else unevaluated: a functional becomes a number only through
        :meth:`value`, with its guarantee (never a bare Float that SymPy would then trust as
        exact)."""
        if self.name == "delta":
            try:
                form = profile_form(simplify(self.operand), self.scalars[0])
            except TradeOffError:
                form = None
            if form is not None:
                return form
        return self

    def _latex(self, printer: Any) -> str:
        _, template = FUNCTIONALS[self.name]
        args = ", ".join(printer._print(a) for a in self.scalars)
        return template.format(f=printer._print(self.operand), args=args)

    def _sympystr(self, printer: Any) -> str:
        inner = ", ".join(printer._print(a) for a in self.args[1:])
        return f"{self.name}({inner})"


def defer(name: str, template: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register ``func(f, *args, dps=...)`` as the functional ``name`` and return a wrapper that
    builds a :class:`Functional` when ``f`` or an argument has free symbols."""

    def deco(func: Callable[..., Any]) -> Callable[..., Any]:
        FUNCTIONALS[name] = (func, template)

        def wrapper(f: Any, *args: Any, **kw: Any) -> Any:
            if _has_symbols(f) or any(_has_symbols(a) for a in args):
                kept = _deferred(func, name, f, args, kw)
                # symbols in an option (dps, tol) are not parameters: the call refuses them
                if _has_symbols(f) or any(_has_symbols(a) for a in kept):
                    return Functional(name, f, *kept)
            return func(f, *args, **kw)

        wrapper.__name__ = func.__name__
        wrapper.__qualname__ = func.__qualname__
        wrapper.__doc__ = func.__doc__
        wrapper.__wrapped__ = func  # type: ignore[attr-defined]
        return wrapper

    return deco


def _deferred(func: Callable[..., Any], name: str, f: Any, args: tuple, kw: dict) -> list:
    """The scalar arguments a :class:`Functional` keeps, checked as far as they can be while
    symbols have no values: trade-off parameters must be trade-off expressions, ``dps`` a
    count, every other argument a real scalar (NaN, strings, complex numbers, trade-off
    functions refused by name). The Functional keeps the arguments before ``dps``; ``dps`` and
    the options after it are given again to :meth:`Functional.value`."""
    sig = inspect.signature(func)
    bound = sig.bind(f, *args, **kw)  # a wrong call raises TypeError here, as it would below
    kept: list = []
    before_dps = True
    for i, (pname, value) in enumerate(bound.arguments.items()):
        if pname == "dps":
            before_dps = False
            if value is not None:
                count("dps", value, upper=MAX_DPS, owner=name)
            continue
        if "TradeOff" in str(sig.parameters[pname].annotation):
            if not isinstance(value, TradeOffExpr):
                raise InvalidParameter(pname, value, "a trade-off expression", name)
        elif isinstance(value, str) and before_dps:  # a level spelled as text ("1e-5")
            value = decimal_string(value, pname, "a real number or a SymPy expression")
        elif before_dps or value is not None:
            value = to_sympy(pname, value, "a real number or a SymPy expression", name)
        if before_dps and i > 0:
            kept.append(value)
    return kept


def _has_symbols(x: Any) -> bool:
    return isinstance(x, sp.Basic) and bool(x.free_symbols)


FUNCTIONALS["evaluate"] = (evaluate, r"\left({f}\right)\!\left({args}\right)")
FUNCTIONALS["roc"] = (roc, r"1 - \left({f}\right)\!\left({args}\right)")
