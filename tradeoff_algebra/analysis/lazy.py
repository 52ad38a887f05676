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

from collections.abc import Callable
from typing import Any

import sympy as sp

from ..core.errors import TradeOffError
from ..numeric.capability import profile_form
from ..numeric.protocol import evaluate, roc
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
        if name not in FUNCTIONALS:
            raise ValueError(f"unknown functional {name!r}")
        return super().__new__(cls, sp.Symbol(name), f, *map(sp.sympify, args))

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
                return Functional(name, f, *args)
            return func(f, *args, **kw)

        wrapper.__name__ = func.__name__
        wrapper.__qualname__ = func.__qualname__
        wrapper.__doc__ = func.__doc__
        wrapper.__wrapped__ = func  # type: ignore[attr-defined]
        return wrapper

    return deco


def _has_symbols(x: Any) -> bool:
    return isinstance(x, sp.Basic) and bool(x.free_symbols)


FUNCTIONALS["evaluate"] = (evaluate, r"\left({f}\right)\!\left({args}\right)")
FUNCTIONALS["roc"] = (roc, r"1 - \left({f}\right)\!\left({args}\right)")
