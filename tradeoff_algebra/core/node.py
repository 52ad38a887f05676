"""The expression-tree base classes (docs/architecture.md, "Nodes").

Nodes subclass :class:`sympy.Basic`, as SymPy's matrix expressions do: ``args`` hold the whole
state (sympified parameters and child nodes only), so ``func(*args) == expr``, ``subs``,
``xreplace``, ``free_symbols``, hashing, equality and pickling all work. Construction validates
and canonicalises cheaply but never simplifies.
"""

from __future__ import annotations

import functools
from typing import Any, ClassVar

import sympy as sp
from sympy import Basic
from sympy.printing.latex import LatexPrinter
from sympy.printing.precedence import PRECEDENCE
from sympy.printing.str import StrPrinter

from .errors import InvalidParameter, NoClosedForm
from .readable import readable
from .validate import param

__all__ = ["TradeOffExpr", "TradeOff", "Applied", "OPERATORS", "register_operator",
           "alpha_symbol", "check_alpha"]

#: Operator classes by name, filled in by :mod:`tradeoff_algebra.operators` so that the
#: Python operators on every trade-off expression (``@``, ``**``) reach them without core
#: importing a later layer.
OPERATORS: dict[str, type] = {}


def register_operator(cls: type) -> type:
    """Class decorator: make an operator node reachable from core (``f @ g``, ``f ** n``)."""
    OPERATORS[cls.__name__] = cls
    return cls


#: Numeric entry points that methods of every node forward to (``f.curve``), filled in by
#: :mod:`tradeoff_algebra.numeric.protocol` so that core imports no later layer.
NUMERIC: dict[str, Any] = {}


def _op(name: str) -> type:
    try:
        return OPERATORS[name]
    except KeyError:  # pragma: no cover - the package imports every operator
        raise NoClosedForm(f"operator {name} is not loaded; import tradeoff_algebra") from None


#: The default symbol for the type-I error level.
alpha_symbol = sp.Symbol("alpha", nonnegative=True)

# Precedence classes for printing: leaves bind tightest, tensors loosest.
PREC_ATOM = 100
PREC_POSTFIX = 50
PREC_TENSOR = 10


#: Symbol names printed as the papers' Greek letters (SymPy would print ``eps`` as ``eps`` and
#: ``epsilon`` as ``\epsilon``; the papers write ``\varepsilon``).
_TEX_NAMES = {"eps": r"\varepsilon", "epsilon": r"\varepsilon", "varepsilon": r"\varepsilon"}


def binary_float(r: sp.Rational) -> float | None:
    """The float whose exact binary value ``r`` is, when ``r`` has a large power-of-two
    denominator (a parameter given as a float is stored as that exact rational); else None."""
    t = readable(r)
    return t.parts[0] if t is not None and t.kind == "float" and not t.negative else None


def _float_literal_latex(printer: LatexPrinter, x: float) -> str:
    if x.is_integer() and abs(x) < 1e16:
        return str(int(x))  # the 1 of 1/1.1
    return printer._print_Float(sp.Float(repr(x)))


class _StrPrinter(StrPrinter):
    """SymPy's str printer, showing a rational made from floats as the floats
    (:mod:`.readable`: ``1.1``, ``1e-05``, ``1/1.1``), which read back to the same rational."""

    def _print_Rational(self, expr):
        t = readable(expr)
        return t.text() if t is not None else super()._print_Rational(expr)

    def _print_Mul(self, expr):
        c, rest = expr.as_coeff_Mul()
        t = readable(c) if c.is_Rational and rest is not sp.S.One else None
        if t is None:
            return super()._print_Mul(expr)
        return "%s*%s" % (t.text(), self.parenthesize(rest, PRECEDENCE["Mul"], strict=False))


class _LatexPrinter(LatexPrinter):
    """SymPy's LaTeX printer, showing a rational made from floats as the floats
    (:mod:`.readable`: ``10^{-5}`` for the float 1e-05, ``\\frac{1}{1.1}``)."""

    def _print_Rational(self, expr):
        t = readable(expr)
        if t is None:
            return super()._print_Rational(expr)
        return t.latex(lambda x: _float_literal_latex(self, x))

    def _print_Mul(self, expr):
        c, rest = expr.as_coeff_Mul()
        t = readable(c) if c.is_Rational and rest is not sp.S.One else None
        if t is None:
            return super()._print_Mul(expr)
        return "%s %s" % (t.latex(lambda x: _float_literal_latex(self, x)),
                          self.parenthesize(rest, PRECEDENCE["Mul"], strict=False))


def _own_printer(method, cls: type):
    """``method(self, printer, ...)`` run with this module's printer ``cls`` (same settings)
    when SymPy's own printer calls it (``sympy.sstr(f)``, ``sympy.latex(f)``, the text of a
    derivation), so that a node prints its parameters the same way everywhere."""

    @functools.wraps(method)
    def run(self, printer, *args, **kwargs):
        if not isinstance(printer, cls):
            printer = cls({k: v for k, v in printer._settings.items()
                           if k in cls._default_settings})
        return method(self, printer, *args, **kwargs)

    run._own_printer = True
    return run


def _use_own_printers(klass: type) -> None:
    for name, cls in (("_sympystr", _StrPrinter), ("_latex", _LatexPrinter)):
        m = klass.__dict__.get(name)
        if m is not None and not getattr(m, "_own_printer", False):
            setattr(klass, name, _own_printer(m, cls))


def sstr(obj: Any) -> str:
    """Plain text in the API's Python syntax (floats shown as the literals they came from)."""
    return _StrPrinter().doprint(obj)


def tex(obj: Any, **settings: Any) -> str:
    """``sympy.latex`` with the papers' symbol notation (``eps_1`` -> ``\varepsilon_{1}``)."""
    names = {}
    for s in getattr(obj, "free_symbols", ()):
        base, _, sub = s.name.partition("_")
        if base in _TEX_NAMES:
            names[s] = _TEX_NAMES[base] + ("_{%s}" % sub if sub else "")
    if names:
        settings.setdefault("symbol_names", names)
    return _LatexPrinter(settings).doprint(obj)


def _not_a_factor(other: Any) -> InvalidParameter:
    """``f @ other`` with ``other`` not a trade-off function: one clear error (Python's
    "unsupported operand" TypeError did not say what a factor must be)."""
    return InvalidParameter("f", other, "a trade-off function on both sides of @ (G(1), "
                            "EpsDelta(1, 0), ...)", "@")


def check_alpha(alpha: Any) -> sp.Expr:
    """Validate a type-I error level: a number in [0, 1] or a symbol (three-valued)."""
    return param("alpha", alpha, lower=0, upper=1)


class TradeOffExpr(Basic):
    """Common base of every node: trade-off functions and convex conjugates alike."""

    is_TradeOff: ClassVar[bool] = False
    _precedence: ClassVar[int] = PREC_ATOM

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _use_own_printers(cls)

    # -- printing -------------------------------------------------------------------------
    def _latex_parens(self, printer, child: TradeOffExpr, min_prec: int) -> str:
        s = printer._print(child)
        if getattr(child, "_precedence", PREC_ATOM) < min_prec:
            return r"\left(%s\right)" % s
        return s

    @staticmethod
    def _latex_exponent(printer, n: sp.Basic) -> str:
        """A scalar in an exponent or subscript, parenthesised unless it binds like a product
        (``f^{\\otimes (n + 1)}``, not ``f^{\\otimes n + 1}``)."""
        from sympy.printing.precedence import PRECEDENCE, precedence

        s = printer._print(n)
        return r"\left(%s\right)" % s if precedence(n) < PRECEDENCE["Mul"] else s

    def _str_parens(self, printer, child: TradeOffExpr, min_prec: int) -> str:
        s = printer._print(child)
        if getattr(child, "_precedence", PREC_ATOM) < min_prec:
            return "(%s)" % s
        return s

    def _sympystr(self, printer) -> str:
        return "%s(%s)" % (type(self).__name__, ", ".join(printer._print(a) for a in self.args))

    def latex(self) -> str:
        """LaTeX in the papers' notation (``G_{\\mu}``, ``f^{\\otimes n}``, ``C_{p}(f)``)."""
        return tex(self)

    def _repr_latex_(self) -> str:
        label = self.__dict__.get("_label")  # core.labels: a caption outside the value
        tail = "" if label is None else r"\quad\text{(%s)}" % label.replace("_", r"\_")
        return "$\\displaystyle %s%s$" % (self.latex(), tail)

    def __repr__(self) -> str:
        label = self.__dict__.get("_label")  # repr stays the expression's source
        return sstr(self) if label is None else "%s  # %s" % (sstr(self), label)

    def __str__(self) -> str:
        return sstr(self)


class TradeOff(TradeOffExpr):
    """A trade-off function f: [0,1] -> [0,1], convex, continuous, non-increasing, f <= 1 - x.

    (Dong, Roth & Su, Def. 2 and Prop. 1.) ``f(alpha)`` returns the SymPy closed form when there
    is one, otherwise an unevaluated :class:`Applied` node.
    """

    is_TradeOff: ClassVar[bool] = True
    #: The greatest trade-off function (Id, perfect privacy) and the least (0, no privacy):
    #: every f lies between them (Dong, Roth & Su, Sec. 2.1; Prop. 1: f <= 1 - alpha).
    is_greatest: ClassVar[bool] = False
    is_least: ClassVar[bool] = False

    @property
    def free_symbols(self) -> set:
        """SymPy's free symbols of the node, found once (a node is immutable; every numeric
        call asks, some several times) and returned as a new set each time."""
        cached = self.__dict__.get("_free_symbols")
        if cached is None:
            cached = self.__dict__["_free_symbols"] = frozenset(super().free_symbols)
        return set(cached)

    # -- properties that families override ---------------------------------------------------
    @property
    def is_symmetric(self) -> bool | None:
        """Three-valued: is ``f = f^{-1}`` (Dong, Roth & Su, Prop. 2)?"""
        return None

    # -- application --------------------------------------------------------------------------
    def __call__(self, alpha: Any) -> sp.Expr:
        a = check_alpha(alpha)
        value = self._eval_at(a)
        return Applied(self, a) if value is None else value

    def _eval_at(self, alpha: sp.Expr) -> sp.Expr | None:
        """The closed form at ``alpha`` or ``None``; families override."""
        return None

    def derivative(self, alpha: Any = None) -> sp.Expr:
        """f'(alpha) as a SymPy expression (right derivative at kinks for piecewise forms)."""
        a = alpha_symbol if alpha is None else check_alpha(alpha)
        d = self._eval_derivative_at(a)
        if d is not None:
            return d
        x = sp.Dummy("x", nonnegative=True)
        v = self._eval_at(x)
        if v is None:
            raise NoClosedForm(f"{self} has no closed form to differentiate")
        return sp.diff(v, x).subs(x, a)

    def _eval_derivative_at(self, alpha: sp.Expr) -> sp.Expr | None:
        return None

    def fixed_point(self) -> sp.Expr:
        """The unique alpha* with f(alpha*) = alpha* (closed form)."""
        v = self._eval_fixed_point()
        if v is None:
            raise NoClosedForm(f"{self}: no closed-form fixed point; evaluate it numerically")
        return v

    def _eval_fixed_point(self) -> sp.Expr | None:
        return None

    def _eval_inverse(self) -> TradeOff | None:
        """The closed-form inverse f^{-1} as a node, or ``None`` (family hook)."""
        if self.is_symmetric:
            return self
        return None

    def _eval_symmetric_hull(self) -> TradeOff | None:
        """A node equal to the symmetric hull C(f) = min{f, f^{-1}}^{**} (Wang et al., Sec. 4)
        of a non-symmetric f, or ``None`` (hook: Mix answers C(f_p) = C_p(f))."""
        return None

    # -- operators ----------------------------------------------------------------------------
    #: True on nodes that compose as mechanisms (``operators.mechanism.AddRemove``): a product
    #: with one of them on the right is theirs to build.
    _composes_as_mechanism = False
    #: NumPy defers its binary operators to these nodes (``np.float64(1) @ f`` reaches
    #: ``__rmatmul__`` and its clear error instead of failing inside numpy.matmul).
    __array_ufunc__ = None

    def __matmul__(self, other: TradeOff) -> TradeOff:
        if not isinstance(other, TradeOff):
            raise _not_a_factor(other)
        if other._composes_as_mechanism and not self._composes_as_mechanism:
            return other.__rmatmul__(self)
        return _op("Tensor")(self, other)

    def __rmatmul__(self, other: TradeOff) -> TradeOff:
        if not isinstance(other, TradeOff):
            raise _not_a_factor(other)
        return _op("Tensor")(other, self)

    def __pow__(self, n: Any) -> TradeOff:
        return _op("TensorPower")(self, n)

    def inverse(self) -> TradeOff:
        """The node f^{-1} (Dong, Roth & Su, Eq. (3)); ``simplify`` resolves closed forms."""
        return _op("Inverse")(self)

    def conjugate(self) -> TradeOffExpr:
        """The convex conjugate f^* (Dong, Roth & Su, Eq. (7)), a convex function on R."""
        return _op("Conjugate")(self)

    # -- fast numeric path ----------------------------------------------------------------------
    def curve(self, alphas: Any, bounds: bool = False, progress: bool | None = None):
        """f at many alphas in float64 (for plots); ``bounds=True``: the arrays (lo, hi) of
        certified enclosures; ``progress``: a bar (see ``numeric.curve``)."""
        try:
            fn = NUMERIC["curve"]
        except KeyError:  # pragma: no cover - the package imports the numeric layer
            raise NoClosedForm("the numeric layer is not loaded; import tradeoff_algebra") from None
        return fn(self, alphas, bounds, progress)

    # SymPy's Basic defines ``__call__`` for nothing we need; make sure arithmetic that would
    # treat a trade-off function as a scalar fails loudly.
    def __add__(self, other):  # pragma: no cover - guard
        raise TypeError("trade-off functions do not add; use @ for composition (tensor)")

    __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __add__


class Applied(sp.Expr):
    """The unevaluated application f(alpha) of a trade-off expression without a closed form."""

    def __new__(cls, f: TradeOffExpr, alpha: Any):
        if not isinstance(f, TradeOffExpr):
            raise InvalidParameter("f", f, "a trade-off expression")
        return sp.Expr.__new__(cls, f, sp.sympify(alpha))

    @property
    def function(self) -> TradeOffExpr:
        return self.args[0]

    @property
    def point(self) -> sp.Expr:
        return self.args[1]

    def _eval_is_extended_real(self):
        return True

    @property
    def free_symbols(self):
        return self.args[0].free_symbols | self.args[1].free_symbols

    def _sympystr(self, printer):
        return "(%s)(%s)" % (printer._print(self.args[0]), printer._print(self.args[1]))

    def _latex(self, printer, exp=None):
        f = self.args[0]
        s = printer._print(f)
        if getattr(f, "_precedence", PREC_ATOM) < PREC_ATOM:
            s = r"\left(%s\right)" % s
        s = r"%s\left(%s\right)" % (s, printer._print(self.args[1]))
        return s if exp is None else r"\left(%s\right)^{%s}" % (s, exp)


_use_own_printers(TradeOffExpr)
_use_own_printers(Applied)
