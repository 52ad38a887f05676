"""Closed-form Renyi divergences at many orders at once, certified in Arb.

A family whose D_a(P || Q) has a closed form in the order (``renyi_form(f, a)`` for a symbolic
order a: L_mu, Mironov 2017, Prop. 6; f_{eps,0}, randomized response and every finite pair,
``1/(a - 1) log sum_i p_i^a q_i^(1-a)``; G_mu, a mu^2/2) is evaluated at a list of orders by
compiling that one SymPy expression into a tree of Arb (python-flint) operations — sums,
products, powers, exp and log of balls — and running it at each order: no SymPy in the loop,
and every value a certified enclosure (ball arithmetic from the exact rational order and the
exact parameters); G_mu with a rational mu takes the exact a mu^2/2 without Arb. A SymPy
function that encloses itself (``_arb_ball``: the discrete
Gaussian's theta ratio, D_a = a Delta^2/(2 sigma^2) + log(theta((1 - a) Delta)/theta(0))/(a - 1),
Canonne, Kamath & Steinke 2020) is formed at each order from its exact arguments and encloses
itself. An expression with any other node (a ``Piecewise``, another special function, +oo) is
not compiled: the caller's order-by-order route answers it. Used by ``RDP.of``
(``notions.renyi_dp``) for the orders its sampled-Gaussian batch does not answer and the
families' capability "renyi_orders" (``numeric.renyi_orders``: an Arb program of the family,
no SymPy; the Laplace pair, G_mu, the discrete Gaussian at integer shifts) leaves out.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import sympy as sp
from sympy.core.expr import Expr

from ..core.node import TradeOff
from ..numeric.capability import gaussian_form, renyi_form
from ..numeric.context import arb_precision

__all__ = ["closed_renyi_orders", "compile_arb", "dyadic"]

_ORDER = sp.Dummy("a", positive=True)
_FORMS: dict = {}  # f -> the compiled D_a(P || Q) of f, or None


class _NotCompiled(Exception):
    pass


def compile_arb(expr: sp.Expr, var: sp.Symbol) -> Callable:
    """A function of an arb (the value of ``var``) returning an arb enclosing ``expr`` there,
    at the current Arb precision; constant subtrees are enclosed once per precision. Raises
    ``ValueError`` for a node other than rational numbers, ``var``, E, pi, Add, Mul, Pow, exp,
    log and functions that enclose themselves (:func:`_self_enclosing`)."""
    try:
        return _compile(expr, var)[0]
    except _NotCompiled as exc:
        raise ValueError(f"no Arb rule for {exc}") from None


def _leaf(x: sp.Expr) -> Callable:
    from flint import arb, fmpq

    if isinstance(x, sp.Rational):
        q = fmpq(int(x.p), int(x.q))
        return lambda v: arb(q)
    if x is sp.S.Exp1:
        return lambda v: arb(1).exp()
    if x is sp.S.Pi:
        return lambda v: arb.pi()
    raise _NotCompiled(type(x).__name__)


def _folded(g: Callable) -> Callable:
    """g (a constant) evaluated once per Arb precision."""
    from flint import ctx

    seen: dict = {}

    def const(v):
        p = ctx.prec
        c = seen.get(p)
        if c is None:
            c = seen[p] = g(v)
        return c
    return const


def _compile(x: sp.Expr, var: sp.Symbol) -> tuple[Callable, bool]:
    """(the function of ``var``, whether x is a constant); constants other than leaves are
    folded (:func:`_folded`)."""
    if x == var:
        return (lambda v: v), False
    if isinstance(x, (sp.Rational, type(sp.S.Exp1), type(sp.S.Pi))):
        return _leaf(x), True
    if isinstance(x, sp.Function) and callable(getattr(x, "_arb_ball", None)) \
            and not isinstance(x, (sp.exp, sp.log)):
        return _self_enclosing(x, var)
    if not isinstance(x, (sp.Add, sp.Mul, sp.Pow, sp.exp, sp.log)):
        raise _NotCompiled(type(x).__name__)
    parts = [_compile(a, var) for a in x.args]
    args = [g for g, _ in parts]
    const = all(c for _, c in parts)
    if isinstance(x, sp.Add):
        def fn(v, args=args):
            s = args[0](v)
            for g in args[1:]:
                s = s + g(v)
            return s
    elif isinstance(x, sp.Mul):
        def fn(v, args=args):
            s = args[0](v)
            for g in args[1:]:
                s = s * g(v)
            return s
    elif isinstance(x, sp.Pow):
        b, e = args
        if x.exp.is_Integer:
            n = int(x.exp)
            fn = (lambda v: b(v) ** n) if n >= 0 else (lambda v: 1 / b(v) ** -n)
        elif parts[0][1]:  # a constant base: its log once per precision
            lb = _folded(lambda v: b(v).log())
            fn = lambda v: (e(v) * lb(v)).exp()  # noqa: E731
        else:  # a positive base, or NaN (not finite)
            fn = lambda v: (e(v) * b(v).log()).exp()  # noqa: E731
    elif isinstance(x, sp.exp):
        fn = lambda v: args[0](v).exp()  # noqa: E731
    else:
        fn = lambda v: args[0](v).log()  # noqa: E731
    return (_folded(fn) if const else fn), const


def _self_enclosing(x: sp.Function, var: sp.Symbol) -> tuple[Callable, bool]:
    """A SymPy function that encloses itself (its ``_arb_ball`` method, as the discrete
    Gaussian's theta ratio; ``numeric.arb_expr`` does the same), its arguments compiled: at
    each order the arguments' balls must be exact (else ``ValueError``: the caller's route
    answers that order), the node is formed from those exact rationals (SymPy's ``eval`` may
    reduce it to a number, as the theta ratio is 1 at an integer shift) and enclosed."""
    from flint import arb, fmpq

    parts = [_compile(a, var) for a in x.args]
    fns, func = [g for g, _ in parts], x.func

    def fn(v):
        rats = []
        for g in fns:
            b = g(v)
            if not b.is_exact():
                raise ValueError(f"{func.__name__}: an argument is not exact")
            man, exp = (int(t) for t in b.mid().man_exp())
            rats.append(dyadic(man, exp) if man > 0 else -dyadic(-man, exp) if man < 0
                        else sp.S.Zero)
        node = func(*rats)
        if isinstance(node, sp.Rational):
            return arb(fmpq(int(node.p), int(node.q)))
        ball = node._arb_ball() if callable(getattr(node, "_arb_ball", None)) else None
        if ball is None:
            raise ValueError(f"{func.__name__} did not enclose itself")
        return ball
    const = all(c for _, c in parts)
    return (_folded(fn) if const else fn), const


def _source(expr: sp.Expr, var: sp.Symbol) -> Callable:
    """The same function as ``_compile(expr, var)[0]``, as one straight-line Python function
    (``exec`` of generated source: each operation one Arb call, no call per node): the order's
    subtrees inline, integers as Python literals (Arb takes them exactly), every other
    constant subtree and every self-enclosing function a closure of :func:`_compile`, the
    constants evaluated once per precision."""
    from flint import ctx

    consts: list = []  # closures of constant subtrees
    calls: list = []  # closures of self-enclosing functions of the order
    lines: list = []

    def emit(code: str) -> str:
        lines.append(f"    t{len(lines)} = {code}")
        return f"t{len(lines) - 1}"

    def const(x) -> str:
        consts.append(_compile(x, var)[0])
        return f"k[{len(consts) - 1}]"

    def go(x) -> str:
        if x == var:
            return "v"
        if not x.has(var):
            return str(int(x)) if isinstance(x, sp.Integer) else const(x)
        if isinstance(x, sp.Function) and callable(getattr(x, "_arb_ball", None)) \
                and not isinstance(x, (sp.exp, sp.log)):
            calls.append(_self_enclosing(x, var)[0])
            return emit(f"c[{len(calls) - 1}](v)")
        if not isinstance(x, (sp.Add, sp.Mul, sp.Pow, sp.exp, sp.log)):
            raise _NotCompiled(type(x).__name__)
        if isinstance(x, (sp.Add, sp.Mul)):
            op = " + " if isinstance(x, sp.Add) else " * "
            args = [go(a) for a in x.args]
            if all(a.lstrip("-").isdigit() for a in args[:1]) and len(args) > 1:
                args = args[1:] + args[:1]  # an arb first: arb op int
            return emit(op.join(args))
        if isinstance(x, sp.Pow):
            if x.exp.is_Integer:
                n = int(x.exp)
                b = go(x.base)
                return emit(f"{b} ** {n}" if n >= 0 else f"1 / {b} ** {-n}")
            if not x.base.has(var):  # a constant base: its log once per precision
                lb = const(sp.log(x.base, evaluate=False))
                return emit(f"({go(x.exp)} * {lb}).exp()")
            return emit(f"({go(x.exp)} * {go(x.base)}.log()).exp()")
        return emit(f"{go(x.args[0])}.{'exp' if isinstance(x, sp.exp) else 'log'}()")

    out = go(expr) if expr.has(var) else const(expr)  # (an arb, never a Python int)
    src = "\n".join(["def fn(v):", "    k = ks()"] + lines + [f"    return {out}"])
    seen: dict = {}

    def ks():
        p = ctx.prec
        vals = seen.get(p)
        if vals is None:
            vals = seen[p] = [g(None) for g in consts]
        return vals
    scope = {"ks": ks, "c": calls}
    exec(compile(src, "<renyi_batch>", "exec"), scope)  # (the source built above)
    return scope["fn"]


def _compiled(f: TradeOff) -> Callable | None:
    if f in _FORMS:
        return _FORMS[f]
    if len(_FORMS) > 32:
        _FORMS.clear()
    fn = None
    form = None
    if not f.free_symbols:
        with sp.evaluate(False):  # the form is only compiled: SymPy's simplifications are
            form = renyi_form(f, _ORDER)  # not needed (nor their assumption queries)
    if form is not None and form.free_symbols <= {_ORDER}:
        try:
            fn = _source(form, _ORDER)
        except _NotCompiled:
            fn = None
    _FORMS[f] = fn
    return fn


def closed_renyi_orders(f: TradeOff, orders: Sequence[sp.Rational], dps: int) -> dict:
    """{a: the upper end of a certified enclosure of D_a(P || Q), an exact SymPy rational} for
    f = T(P, Q) at the rational orders a > 1 where f's closed form in the order (module
    docstring) gives a finite ball of relative width below 10^-dps (at most two precisions);
    ``{}`` where f has no such form. Orders left out go to the caller's route."""
    from flint import arb, fmpq

    orders = [a for a in orders if isinstance(a, sp.Rational) and a.p > a.q]
    mu = gaussian_form(f)
    if isinstance(mu, sp.Rational) and orders:  # G_mu: a mu^2/2 (Mironov 2017, Prop. 7), exact
        return _gaussian_orders(mu, orders)
    fn = _compiled(f)
    if fn is None or not orders:
        return {}
    out: dict = {}
    prec = int(dps * 3.33) + 40
    todo = orders
    for _ in range(2):
        with arb_precision(prec):
            # rad < |mid| 2^-(relative accuracy bits): below 10^-dps with 4 bits to spare
            need = math.ceil(dps * 3.33) + 4
            again = []
            for a in todo:
                try:
                    d = fn(arb(a.p) if a.q == 1 else arb(fmpq(int(a.p), int(a.q))))
                except (ZeroDivisionError, ValueError):
                    continue
                if not d.is_finite():
                    continue
                if d.rel_accuracy_bits() >= need:  # (an exact ball: the largest value)
                    out[a] = _upper(d)
                else:
                    again.append(a)
        todo = again
        if not todo:
            break
        prec *= 2
    return out


def _gaussian_orders(mu: sp.Rational, orders: list) -> dict:
    """{a: a mu^2/2} for G_mu, mu rational, exact (the divergence of N(0, 1) from N(mu, 1),
    Mironov 2017, Prop. 7), each in lowest terms from Python integers."""
    n, d = int(mu.p) ** 2, 2 * int(mu.q) ** 2
    out = {}
    for a in orders:
        p, q = int(a.p) * n, int(a.q) * d
        g = math.gcd(p, q)
        p, q = p // g, q // g
        if q == 1:
            out[a] = sp.Integer(p)
            continue
        r = Expr.__new__(sp.Rational)
        r.p, r.q = p, q
        out[a] = r
    return out


def _upper(d) -> sp.Rational:
    """The upper end of an arb as an exact SymPy rational (at least 0: a divergence is never
    negative)."""
    man, exp = (int(v) for v in d.upper().man_exp())
    if man <= 0:
        return sp.S.Zero
    return dyadic(man, exp)


def dyadic(man: int, exp: int) -> sp.Rational:
    """The SymPy rational man 2^exp (man > 0) in lowest terms, built directly: man made odd,
    the denominator a power of 2 (SymPy's own construction, without its gcd and cache)."""
    z = (man & -man).bit_length() - 1  # the trailing zero bits of man
    man, exp = man >> z, exp + z
    if exp >= 0:
        return sp.Integer(man << exp)
    if man == 1 and exp == -1:
        return sp.S.Half
    r = Expr.__new__(sp.Rational)
    r.p, r.q = man, 1 << -exp
    return r
