"""Parse expression strings in the API's Python syntax (docs/architecture.md, "Interfaces").

``parse_expr("C(1/100, G(1))**1000 @ EpsDelta(1, delta=1e-5)")`` builds the same tree as the
Python code it spells. The text is parsed with :mod:`ast` and the tree is *interpreted* by a
whitelist: nothing is ever passed to ``eval``, ``exec`` or ``sympify`` as text, and no Python
object other than the library's constructors, a few SymPy functions and SymPy numbers is ever
reachable. Allowed:

* calls of the public constructors (``G``, ``EpsDelta``, ``C``, ``Mix``, ``Max``, ``Group``, ...,
  ``gaussian_mechanism``, ``laplace_mechanism``; see :data:`CONSTRUCTORS`), the names ``Id`` and
  ``Zero``, positional arguments, numeric keyword arguments named as in the API (``delta=``,
  ``dataset_size=``, ``batch_size=``, ``epochs=``, ...; a name the constructor does not take
  is an error) and the option keywords
  ``sampling=`` (of ``noisy_sgd``) and ``bound=`` (of ``shuffle``) with one of their strings,
  ``symmetric=`` (of ``RenyiRegion``) with True or False;
* ``f @ g`` (tensor product), ``f ** n`` (tensor power) and ``f(alpha)`` (application);
* numbers: integer literals, decimal literals converted *exactly* to rationals (``1e-5`` is
  ``1/100000``, ``0.1`` is ``1/10``, never a binary float), ``+ - * / **`` and unary minus on
  them, ``sqrt``, ``exp``, ``log``, ``Rational``, ``Phi``, ``PhiInv``, ``pi``, ``E``;
* lowercase identifiers, which become SymPy symbols (see :func:`symbol_for`), except
  ``nan``, ``inf``, ``oo``, ``zoo`` and ``infinity``, which are refused (as symbols they
  would pass for numbers they are not: ``nan*0`` would be 0);
* tuples and lists (for knots and distributions).

Anything else -- attribute access, subscripts, lambdas, comprehensions, comparisons, other strings,
private or dunder names, other keyword arguments -- raises
:class:`~tradeoff_algebra.core.errors.InvalidParameter` naming the construct.

Size limits: a short string can spell a number that takes hours or all memory to form
(``10**10**10``); the interpreter checks every number before SymPy forms it, against the limits
of :mod:`tradeoff_algebra.parse_limits`.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable, Mapping
from typing import Any

import sympy as sp

from . import families as _families
from .core.errors import InvalidParameter, TradeOffError, brief
from .core.node import TradeOff, TradeOffExpr
from .core.normal import Phi, PhiInv
from .parse_limits import (
    MAX_DEPTH,
    MAX_DIGITS,
    MAX_LENGTH,
    MAX_POWER,
    MAX_ROOT_DIGITS,
    SizeLimits,
    digits,
    pow_text,
    too_long,
)

__all__ = ["parse_expr", "symbol_for", "CONSTRUCTORS", "INTEGER_SYMBOLS", "MAX_LENGTH",
           "MAX_DEPTH", "MAX_DIGITS", "MAX_POWER", "MAX_ROOT_DIGITS"]

#: Trade-off constants reachable by name.
CONSTANTS: tuple[str, ...] = ("Id", "Zero")

#: Public constructors reachable from expression strings, looked up on the package by name
#: (a name the package does not define yet is reported as unavailable): every family of
#: ``families.__all__`` (the one list of families; the constants and their classes excepted),
#: then the operators, mechanisms and notions. New ones are one line.
CONSTRUCTORS: tuple[str, ...] = (
    *(n for n in _families.__all__ if n not in CONSTANTS
      and n not in {type(getattr(_families, c)).__name__ for c in CONSTANTS}),
    "Tensor", "TensorPower", "Inverse", "Symmetrize", "SymmetricHull",
    "Subsample", "C", "Mix", "Max", "Group", "Conjugate", "RenyiRegion",
    "AddRemove", "Shift", "GaussianJoint", "DPGDInit",
    "gaussian_mechanism", "laplace_mechanism", "noisy_sgd", "shuffle", "discrete_gaussian",
    "discrete_laplace", "skellam", "randomized_response", "exponential_mechanism",
    "report_noisy_max",
    "GDP", "zCDP", "tCDP", "ApproxDP",
    "TradeOffSymbol",
)

#: SymPy functions and numbers reachable by name (for parameters).
_SCALAR_FUNCTIONS: dict[str, Callable[..., sp.Expr]] = {
    "sqrt": sp.sqrt, "exp": sp.exp, "log": sp.log, "Rational": sp.Rational,
    "Phi": Phi, "PhiInv": PhiInv,
}
_SCALAR_CONSTANTS: dict[str, sp.Expr] = {"pi": sp.pi, "E": sp.E}

#: Lowercase names that become nonnegative *integer* symbols (tensor powers, group sizes);
#: every other lowercase name becomes a nonnegative real symbol.
INTEGER_SYMBOLS: frozenset[str] = frozenset({"n", "m", "k", "steps"})

_ALLOWED = ("the API's Python syntax: constructor calls such as G(1) or "
            "EpsDelta(1, delta=1e-5), Id, Zero, @, **, numbers, lowercase symbols")

# Names of the constructs that are refused, for the error message.
_CONSTRUCT_NAMES: dict[type, str] = {
    ast.Attribute: "attribute access", ast.Subscript: "subscripts", ast.Lambda: "lambda",
    ast.ListComp: "comprehensions", ast.SetComp: "comprehensions",
    ast.DictComp: "comprehensions", ast.GeneratorExp: "generator expressions",
    ast.Compare: "comparisons", ast.BoolOp: "boolean operators (and/or)",
    ast.IfExp: "conditional expressions", ast.Dict: "dicts", ast.Set: "sets",
    ast.JoinedStr: "f-strings", ast.FormattedValue: "f-strings",
    ast.NamedExpr: "assignment expressions (:=)", ast.Starred: "starred arguments",
    ast.Await: "await", ast.Yield: "yield", ast.YieldFrom: "yield", ast.Slice: "slices",
}
_BINOP_NAMES: dict[type, str] = {
    ast.Mod: "%", ast.FloorDiv: "//", ast.LShift: "<<", ast.RShift: ">>",
    ast.BitOr: "|", ast.BitXor: "^", ast.BitAnd: "&",
}


# Python's builtin names are refused by name (never looked up) so that ``open(...)`` or
# ``eval(...)`` gets a clear message instead of becoming a symbol.
_BUILTINS: frozenset[str] = frozenset(dir(builtins))


# Lowercase names that read as NaN or infinity: refused rather than made symbols.
_NOT_SYMBOLS: frozenset[str] = frozenset({"nan", "inf", "oo", "zoo", "infinity"})


class _Callable:
    """A whitelisted name that may only be called."""

    __slots__ = ("name", "func")

    def __init__(self, name: str, func: Callable[..., Any]):
        self.name, self.func = name, func


def symbol_for(name: str) -> sp.Symbol:
    """The SymPy symbol a lowercase identifier stands for.

    Every parameter of the algebra is nonnegative (mu, nu, eps, delta, sigma, p, alpha, ...),
    so a name becomes ``Symbol(name, nonnegative=True)``; ``n``, ``m``, ``k`` and ``steps``
    (tensor powers, group sizes, iteration counts) become nonnegative integer symbols. These
    are the symbols ``ta.text`` output parses back to; pass ``symbols=`` to
    :func:`parse_expr` to use others.
    """
    if name in INTEGER_SYMBOLS:
        return sp.Symbol(name, integer=True, nonnegative=True)
    return sp.Symbol(name, nonnegative=True)


def parse_expr(text: str, symbols: Mapping[str, sp.Expr] | None = None
               ) -> TradeOffExpr | sp.Expr:
    """Parse ``text`` (the API's Python syntax) into a trade-off expression or a SymPy scalar.

    ``symbols`` maps lowercase names to the SymPy objects they stand for, overriding
    :func:`symbol_for`. Raises :class:`InvalidParameter` (parameter ``expression``) for
    anything outside the whitelist described in the module docstring and for numbers beyond its
    size limits (:data:`MAX_DIGITS`, :data:`MAX_POWER`, :data:`MAX_ROOT_DIGITS`, checked before
    the number is formed); constructors raise their own :class:`InvalidParameter` for
    out-of-range parameters. Errors from SymPy while building (``TypeError``, ``ValueError``,
    ``ArithmeticError``, ``RecursionError``, ``MemoryError``) come out as
    :class:`InvalidParameter` too.
    """
    if not isinstance(text, str):
        raise InvalidParameter("expression", text, "a string")
    if len(text) > MAX_LENGTH:
        raise InvalidParameter("expression", text, _ALLOWED,
                               hint=f"The string is longer than {MAX_LENGTH} characters")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        msg = str(exc.msg)
        if "integer string conversion" in msg:  # Python's own 4300-digit limit on literals
            msg = f"an integer literal of more than 4300 digits (at most 10**{MAX_DIGITS})"
            raise InvalidParameter("expression", text, _ALLOWED,
                                   hint=f"Found {msg}, which is not allowed") from None
        raise InvalidParameter("expression", text, _ALLOWED,
                               hint=f"Python syntax error: {_clip(msg)}") from None
    except (RecursionError, MemoryError, ValueError) as exc:
        raise InvalidParameter("expression", text, _ALLOWED,
                               hint=f"Cannot parse: {_clip(str(exc))}") from None
    interp = _Interpreter(text.strip(), text, dict(symbols or {}))
    try:
        value = interp.visit(tree.body, 0)
    except RecursionError:
        raise interp.reject("nesting that is too deep") from None
    except MemoryError:
        raise interp.misuse("the expression needs more memory than is available") from None
    if isinstance(value, _Callable):
        raise interp.reject(f"the bare name {value.name} (call it: {value.name}(...))")
    if isinstance(value, tuple):
        raise interp.reject("a tuple at top level (tuples are only arguments)")
    return value


def _clip(text: str, limit: int = 200) -> str:
    """One line of at most ``limit`` characters (for messages built from other messages)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


class _Interpreter:
    def __init__(self, text: str, original: str, symbols: dict[str, sp.Expr]):
        self.text = text  # what was parsed (source segments come from it)
        self.original = original  # what the caller passed (shown in errors)
        self.symbols = symbols
        self.limits = SizeLimits(self.misuse)
        import tradeoff_algebra as ta  # the package is fully loaded by the time this runs

        self.package = ta

    # -- errors -------------------------------------------------------------------------------
    def reject(self, construct: str, node: ast.AST | None = None) -> InvalidParameter:
        where = ""
        if node is not None and hasattr(node, "col_offset"):
            where = f" (at column {node.col_offset + 1})"
        return InvalidParameter("expression", self.original, _ALLOWED,
                                hint=f"Found {construct}{where}, which is not allowed")

    def misuse(self, what: str) -> InvalidParameter:
        return InvalidParameter("expression", self.original, _ALLOWED,
                                hint=what[:1].upper() + what[1:])

    # -- dispatch -----------------------------------------------------------------------------
    def visit(self, node: ast.AST, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise self.reject("nesting deeper than %d levels" % MAX_DEPTH)
        method = getattr(self, "visit_" + type(node).__name__, None)
        if method is None:
            name = _CONSTRUCT_NAMES.get(type(node), type(node).__name__)
            raise self.reject(name, node)
        return method(node, depth + 1)

    def visit_Constant(self, node: ast.Constant, depth: int) -> sp.Expr:
        v = node.value
        if isinstance(v, bool) or v is None or v is Ellipsis:
            raise self.reject(f"the constant {v!r}", node)
        if isinstance(v, int):
            if too_long(v):
                raise self.reject(f"an integer literal with {digits(v)} digits (at most "
                                  f"10**{MAX_DIGITS})", node)
            return sp.Integer(v)
        if isinstance(v, float):
            src = ast.get_source_segment(self.text, node) or repr(v)
            return self._decimal(src, node)
        kind = {str: "strings", bytes: "bytes", complex: "complex numbers"}.get(type(v),
                                                                               type(v).__name__)
        raise self.reject(kind, node)

    def _decimal(self, src: str, node: ast.AST) -> sp.Rational:
        """The exact rational a decimal literal spells (``1e-5`` is ``1/100000``), refused when
        its numerator or denominator would exceed ``10**MAX_DIGITS`` (checked on the digits and
        the exponent as written, before any big number is formed); whether the literal would
        over- or underflow as a float64 does not matter, as it is never a float."""
        text = src.replace("_", "").lower()
        mantissa, _, exponent = text.partition("e")
        whole, _, frac = mantissa.partition(".")
        digits = whole + frac
        if not (digits.isdigit() and (not exponent or exponent.lstrip("+-").isdigit())):
            raise self.reject(f"the literal {_clip(src, 60)}", node)
        significant = digits.lstrip("0")
        if not significant:
            return sp.S.Zero  # 0.0, 0e-99999999999: zero however it is written
        shift = len(significant.rstrip("0")) - len(significant)  # trailing zeros
        significant = significant.rstrip("0")
        exp_digits = exponent.lstrip("+-").lstrip("0")
        if len(exp_digits) > 7:
            scale = None
        else:
            scale = int(exponent or 0) - len(frac) - shift  # value = significant * 10**scale
        if (scale is None or len(significant) + max(scale, 0) > MAX_DIGITS + 1
                or -scale > MAX_DIGITS):
            small = exponent.startswith("-") and not (scale is not None and scale >= 0)
            raise self.misuse(
                f"the literal {_clip(src, 60)} is too {'small' if small else 'large'} to take "
                f"exactly: decimals are the exact rationals they spell, with numerator and "
                f"denominator at most 10**{MAX_DIGITS} (so from 1e-{MAX_DIGITS} to "
                f"1e{MAX_DIGITS}; e.g. write 1e-300)")
        m = int(significant)
        if scale >= 0:
            return self.limits.check(sp.Integer(m * 10**scale))
        return self.limits.check(sp.Rational(m, 10**-scale))

    def visit_Name(self, node: ast.Name, depth: int) -> Any:
        name = node.id
        if name.startswith("_"):
            raise self.reject(f"the private or dunder name {name}", node)
        if name in _BUILTINS:
            raise self.reject(f"the Python builtin {name}", node)
        if name in self.symbols:
            return sp.sympify(self.symbols[name], strict=True)
        if name in CONSTRUCTORS:
            func = getattr(self.package, name, None)
            if func is None:
                raise self.misuse(f"{name} is not available in this version")
            return _Callable(name, func)
        if name in CONSTANTS:
            return getattr(self.package, name)
        if name in _SCALAR_FUNCTIONS:
            return _Callable(name, _SCALAR_FUNCTIONS[name])
        if name in _SCALAR_CONSTANTS:
            return _SCALAR_CONSTANTS[name]
        if name in _NOT_SYMBOLS:
            raise self.reject(f"the name {name} (NaN and infinities are not values of "
                              "expressions; a symbol of that name would pass for one)", node)
        if name.isascii() and name[0].islower():
            return symbol_for(name)
        raise self.reject(f"the unknown name {name} (symbols are lowercase identifiers; "
                          f"constructors are {', '.join(CONSTRUCTORS)})", node)

    def visit_Tuple(self, node: ast.Tuple, depth: int) -> tuple:
        return tuple(self._operand(e, depth) for e in node.elts)

    visit_List = visit_Tuple

    def _operand(self, node: ast.AST, depth: int) -> Any:
        v = self.visit(node, depth)
        if isinstance(v, _Callable):
            raise self.reject(f"the bare name {v.name} (call it: {v.name}(...))", node)
        return v

    # -- operators ----------------------------------------------------------------------------
    def visit_UnaryOp(self, node: ast.UnaryOp, depth: int) -> sp.Expr:
        v = self._operand(node.operand, depth)
        if isinstance(node.op, (ast.USub, ast.UAdd)):
            sign = "-" if isinstance(node.op, ast.USub) else "+"
            x = self._scalar(v, f"unary {sign}")
            return -x if sign == "-" else x
        raise self.reject({ast.Not: "not", ast.Invert: "~"}[type(node.op)], node)

    def visit_BinOp(self, node: ast.BinOp, depth: int) -> Any:
        op = type(node.op)
        if op in _BINOP_NAMES:
            raise self.reject(f"the operator {_BINOP_NAMES[op]}", node)
        left = self._operand(node.left, depth)
        right = self._operand(node.right, depth)
        if op is ast.MatMult:
            if not (isinstance(left, TradeOff) and isinstance(right, TradeOff)):
                raise self.misuse("@ (tensor product) needs trade-off functions on both sides, "
                                  f"got {_kind(left)} @ {_kind(right)}")
            return left @ right
        if op is ast.Pow:
            if isinstance(left, TradeOff):
                return self._call("TensorPower", left.__pow__,
                                  (self._scalar(right, "a tensor power's exponent"),), {})
            return self._power(self._scalar(left, "**"), self._scalar(right, "**"))
        sym = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}[op]
        a, b = self._scalar(left, sym), self._scalar(right, sym)
        if op is ast.Div and b.is_zero:
            raise self.misuse("division by zero")
        if op in (ast.Mult, ast.Div):
            self.limits.check_radicands(a, b)
        if op is ast.Add:
            return self.limits.check(self._finite(a + b))
        if op is ast.Sub:
            return self.limits.check(self._finite(a - b))
        if op is ast.Mult:
            return self.limits.check(self._finite(a * b))
        return self.limits.check(self._finite(a / b))

    def _scalar(self, v: Any, where: str) -> sp.Expr:
        if isinstance(v, sp.Expr):
            return v
        raise self.misuse(f"{where} needs numbers or symbols, got {_kind(v)}"
                          + (" (trade-off functions combine with @ and **)"
                             if isinstance(v, TradeOffExpr) else ""))

    def _finite(self, x: sp.Expr) -> sp.Expr:
        if x.has(sp.nan, sp.zoo):
            raise self.misuse(f"the arithmetic gives {brief(x)}")
        return x

    def _power(self, base: sp.Expr, e: sp.Expr) -> sp.Expr:
        if base.is_number and e.is_number and base not in (sp.S.Zero, sp.S.One, sp.S.NegativeOne):
            if not isinstance(e, sp.Rational) or abs(e.p) > MAX_POWER or e.q > MAX_POWER:
                raise self.misuse(f"the power {pow_text(base, e)} is too large to form "
                                  f"exactly (a power of numbers needs an exponent p/q with "
                                  f"|p|, q <= {MAX_POWER})")
        if isinstance(e, sp.Rational) and e not in (sp.S.Zero, sp.S.One):
            self.limits.check_power(base, e)
        if base.is_zero and e.is_negative:
            raise self.misuse("division by zero")
        return self.limits.check(self._finite(base**e))

    # -- calls --------------------------------------------------------------------------------
    def visit_Call(self, node: ast.Call, depth: int) -> Any:
        func = self.visit(node.func, depth)
        args = tuple(self._operand(a, depth) for a in node.args)
        kwargs: dict[str, Any] = {}
        for kw in node.keywords:
            if kw.arg in _OPTION_KEYWORDS:
                v = kw.value
                allowed = _OPTION_KEYWORDS[kw.arg]
                if not (isinstance(v, ast.Constant) and v.value in allowed):
                    raise self.reject(f"the value of {kw.arg}= (one of the strings "
                                      f"{', '.join(map(repr, allowed))})", kw)
                kwargs[kw.arg] = v.value
                continue
            if kw.arg in _BOOL_KEYWORDS:
                v = kw.value
                if not (isinstance(v, ast.Constant) and isinstance(v.value, bool)):
                    raise self.reject(f"the value of {kw.arg}= (True or False)", kw)
                kwargs[kw.arg] = v.value
                continue
            if kw.arg is None or kw.arg.startswith("_") or not kw.arg.isidentifier():
                shown = "**" if kw.arg is None else f"{kw.arg}="
                raise self.reject(f"the keyword argument {shown} (keywords are the API's "
                                  "parameter names, such as delta= or batch_size=)", kw)
            kwargs[kw.arg] = self._operand(kw.value, depth)
        if isinstance(func, _Callable):
            if func.name in _SCALAR_FUNCTIONS:
                if kwargs:
                    raise self.misuse(f"{func.name} takes no keyword arguments")
                for a in args:
                    self._scalar(a, f"{func.name}()")
                if len(args) == 1 and func.name == "exp":
                    self.limits.check_exp(args[0])
                if len(args) == 1 and func.name in ("log", "PhiInv"):
                    self.limits.check_domain(func.name, args[0])
                if len(args) == 1 and func.name == "sqrt":
                    self.limits.check_power(args[0], sp.S.Half)
            return self._call(func.name, func.func, args, kwargs)
        if isinstance(func, TradeOffExpr):
            if len(args) != 1 or kwargs:
                raise self.misuse(f"applying {brief(func)} needs exactly one argument, "
                                  "f(alpha)")
            return self._call(brief(func), func, (self._scalar(args[0], "f(alpha)"),), {})
        raise self.misuse(f"{_kind(func)} cannot be called")

    def _call(self, name: str, func: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
        try:
            result = func(*args, **kwargs)
        except TradeOffError:
            raise
        except (TypeError, ValueError, ArithmeticError) as exc:
            raise self.misuse(f"{name}: {_message(exc)}") from None
        if isinstance(result, sp.Expr) and not isinstance(result, TradeOffExpr):
            return self.limits.check(self._finite(result))
        return result


#: Keywords that take one of a few strings: ``noisy_sgd(..., sampling=...)``,
#: ``shuffle(..., bound=...)``.
_OPTION_KEYWORDS: dict[str, tuple[str, ...]] = {
    "sampling": ("gdp_paper", "fixed_size", "poisson", "shuffle"),
    "bound": ("exact", "wang"),
    "neighbours": ("add_remove", "replace_one"),
}


#: Keywords that take True or False: ``RenyiRegion(..., symmetric=False)``.
_BOOL_KEYWORDS: tuple[str, ...] = ("symmetric", "tight")


def _message(exc: BaseException) -> str:
    """``str(exc)`` on one line, clipped; never raises (a message may hold a huge integer)."""
    try:
        return _clip(str(exc))
    except Exception:
        return type(exc).__name__


def _kind(v: Any) -> str:
    if isinstance(v, TradeOffExpr):
        return f"the trade-off expression {brief(v)}"
    if isinstance(v, tuple):
        return "a tuple"
    if isinstance(v, _Callable):
        return f"the function {v.name}"
    if getattr(v, "is_number", False):
        return f"the number {brief(v)}"
    return f"the expression {brief(v)}"
