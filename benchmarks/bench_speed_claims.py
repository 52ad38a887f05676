"""Speed claims that used to be assertions of the test suite, timed in fresh processes.

Tests never assert wall-clock times (a loaded machine would fail them, an idle one would hide a
slowdown): the tests keep their correctness checks, and each former claim ("refused at once",
"< 5 s", "hung before") is timed here instead, with the bound the test used to assert.

Each case runs in a new ``python`` process (import and setup excluded from the time) and is one
of two kinds:

* a snippet: setup code, then the calls the test timed, each timed with ``time.perf_counter``
  (wall) and ``time.process_time`` (CPU of the process, every thread); a case whose setup builds
  a list ``CALLS`` of ``(label, callable)`` (a sweep) reports its slowest call;
* a test run: the test function is run by pytest in the fresh process with one helper of its
  module (``named``, ``run``, ``run_quietly``: the calls it used to time) wrapped to record each
  call's time; the row is the slowest call, and the test must pass.

The table shows, per timed call, the wall and CPU seconds, the former bound and whether the
wall time is within it. The machine's load is in the run line: compare CPU with the bound when
the machine is shared.

    python benchmarks/bench_speed_claims.py                    # every case (several minutes)
    python benchmarks/bench_speed_claims.py --only binomial    # cases whose id contains it
    python benchmarks/bench_speed_claims.py --write benchmarks/RESULTS_speed_claims.md
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import Report, run_line  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
MARK = "@@speed-claims "

PRELUDE = """\
import sympy as sp
import tradeoff_algebra as ta
from tradeoff_algebra import *  # noqa: F403
R = sp.Rational
"""


@dataclass
class Case:
    """One former test (or parametrised instance) and the calls it timed.

    ``calls``: (label, former bound in seconds or None, statement); ``sweep_bound``: the bound
    of each call of a ``CALLS`` list built by ``setup``; ``pytest``/``wrap``: a test run with
    the module's helper ``wrap`` timed."""

    id: str
    setup: str = ""
    calls: list = field(default_factory=list)
    sweep_bound: float | None = None
    pytest: str | None = None
    wrap: str | None = None
    bound: float | None = None


# -- the child process --------------------------------------------------------------------------
CHILD = r'''
import json, sys, time
sys.path[:0] = [ROOT, TESTS]
case = json.loads(sys.argv[1])
rows = []

def timed(label, bound, fn):
    w, c = time.perf_counter(), time.process_time()
    try:
        fn()
        outcome = "ok"
    except BaseException as exc:  # a refusal the test expects is an outcome, not a failure
        outcome = "raises " + type(exc).__name__
    rows.append(dict(label=label, bound=bound, wall=time.perf_counter() - w,
                     cpu=time.process_time() - c, outcome=outcome))

if case["pytest"]:
    import pytest

    class Wrap:
        def pytest_collection_finish(self, session):
            for item in session.items:
                mod = item.module
                orig = getattr(mod, case["wrap"])
                if getattr(orig, "_speed_claims", False):
                    continue

                def wrapped(*args, _orig=orig, **kwargs):
                    w, c = time.perf_counter(), time.process_time()
                    try:
                        return _orig(*args, **kwargs)
                    finally:
                        label = [a for a in args if isinstance(a, str)] or [repr(args[0])[:60]]
                        rows.append(dict(label=" ".join(label)[:70], bound=case["bound"],
                                         wall=time.perf_counter() - w,
                                         cpu=time.process_time() - c, outcome="ok"))

                wrapped._speed_claims = True
                setattr(mod, case["wrap"], wrapped)

    import contextlib, io
    with contextlib.redirect_stdout(io.StringIO()):
        status = pytest.main([case["pytest"], "-q", "-p", "no:cacheprovider", "-o", "addopts="],
                             plugins=[Wrap()])
    status = int(status)
    if rows:
        worst = max(rows, key=lambda r: r["wall"])
        worst["label"] = f"slowest of {len(rows)}: {worst['label']}"
        worst["outcome"] = "ok" if status == 0 else f"test failed ({status})"
        rows = [worst]
    else:
        rows = [dict(label="(no call)", bound=case["bound"], wall=0.0, cpu=0.0,
                     outcome=f"no timed call, pytest status {status}")]
else:
    env = {}
    exec(PRELUDE, env)
    exec(case["setup"], env)
    for label, bound, stmt in case["calls"]:
        timed(label, bound, lambda stmt=stmt: exec(stmt, env))
    if "CALLS" in env:
        before = len(rows)
        for label, fn in env["CALLS"]:
            timed(label, case["sweep_bound"], fn)
        sweep = rows[before:]
        worst = max(sweep, key=lambda r: r["wall"])
        worst["label"] = f"slowest of {len(sweep)}: {worst['label']}"
        rows[before:] = [worst]
print(MARK + json.dumps(rows))
'''


def run_case(case: Case, timeout: float) -> list[dict]:
    code = (f"ROOT, TESTS, MARK = {str(ROOT)!r}, {str(TESTS)!r}, {MARK!r}\n"
            f"PRELUDE = {PRELUDE!r}\n" + CHILD)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(TESTS)]))
    try:
        proc = subprocess.run([sys.executable, "-c", code, json.dumps(case.__dict__)],
                              capture_output=True, text=True, timeout=timeout, cwd=ROOT,
                              env=env)
    except subprocess.TimeoutExpired:
        return [dict(label="(all)", bound=case.bound, wall=timeout, cpu=float("nan"),
                     outcome=f"no answer in {timeout:g} s")]
    for line in proc.stdout.splitlines():
        if line.startswith(MARK):
            return json.loads(line[len(MARK):])
    tail = (proc.stderr.strip().splitlines() or ["?"])[-1]
    return [dict(label="(all)", bound=case.bound, wall=float("nan"), cpu=float("nan"),
                 outcome=f"crashed: {tail[:80]}")]


# -- the cases ----------------------------------------------------------------------------------
def _each(test: str, params: list, setup: str, calls) -> list[Case]:
    """One case per parameter set: ``setup``/``calls`` formatted with the parameters."""
    out = []
    for p in params:
        out.append(Case(f"{test}[{p['id']}]", setup.format(**p),
                        [(lbl.format(**p), b, s.format(**p)) for lbl, b, s in calls]))
    return out


def _functions_calling(path: Path, helper: str) -> list[str]:
    """The test functions of ``path`` whose body calls ``helper``."""
    tree = ast.parse(path.read_text())
    names = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
            if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                   and n.func.id == helper for n in ast.walk(node)):
                names.append(node.name)
    return names


def cases() -> list[Case]:
    out: list[Case] = []
    T = "test_binomial.py::"
    out.append(Case(T + "test_large_n_loggamma_route",
                    "from tradeoff_algebra.families import binomial as bm\n"
                    "f = BinomialDP(R(1, 50), 10**4)\nbm._tables.cache_clear()",
                    [("evaluate(BinomialDP(1/50, 10^4), 1/10, dps=30)", 10,
                      "ta.evaluate(f, R(1, 10), dps=30)")]))
    T = "test_finite_composition.py::"
    out += [
        Case(T + "test_large_power_delta_30_digits",
             "from tradeoff_algebra.numeric.finite import finite_loss\n"
             "f = TensorPower(EpsDelta(1, 0), 10**4)",
             [("finite_loss(f_{1,0}^(x)10^4).delta(4500, dps=30)", 3.0,
               "finite_loss(f).delta(4500, dps=30)")]),
        Case(T + "test_symbolic_knots_of_a_float_eps_power_are_exact",
             "from tradeoff_algebra.numeric.finite import finite_loss",
             [("knots of f_{1+1e-10,0}^(x)10", 60,
               "finite_loss(EpsDelta(1 + 10**-10, 0) ** 10).tradeoff_knots()")]),
        Case(T + "test_verify_binomial_against_a_slightly_larger_eps_returns", "",
             [("verify(BinomialDP(1, 10) >= f_{1+1e-10,0}^(x)10)", 120,
               "ta.verify(BinomialDP(1, 10), '>=', EpsDelta(1 + 10**-10, 0) ** 10)")]),
    ]
    out.append(Case("test_mixtures_bounds.py::test_dpgd_low_precision_is_tight",
                    "from tradeoff_algebra.bounds.initialisation import DPGDInit",
                    [("evaluate(DPGDInit(1, 2), '0.1', dps=10)", 5,
                      "ta.evaluate(DPGDInit(1, 2), '0.1', dps=10)")]))
    out.append(Case("test_parse.py::test_size_limits_refuse (every text)",
                    "from tradeoff_algebra.parse import parse_expr\n"
                    "import test_parse as m\n"
                    "CALLS = [(t, lambda t=t: parse_expr(t)) for t, _ in m.SIZE_LIMITS]",
                    sweep_bound=5))
    out.append(Case("test_simplify.py::test_thousand_gaussian_factors",
                    "ms = sp.symbols('mu_1:1001', nonnegative=True)\n"
                    "e = Tensor(*[G(m) for m in ms])",
                    [("simplify of G(mu_1) (x) ... (x) G(mu_1000)", None, "ta.simplify(e)")]))
    out.append(Case("test_validation.py::test_weird_values_raise_invalid_parameter (every value)",
                    "from tradeoff_algebra.core.validate import param\n"
                    "import test_validation as m\n"
                    "B = [dict(lower=0, upper=1), dict(lower=0), dict(lower=0, integer=True)]\n"
                    "CALLS = [(f'{type(v).__name__} {b}', lambda v=v, b=b: param('x', v, **b))"
                    " for v in m.WEIRD for b in B]",
                    sweep_bound=2.0))
    T = "test_reliability.py::"
    out.append(Case(T + "test_bad_levels_are_refused (every level)",
                    "BAD = ['2/0', '1e999999999', '1e-999999999', True, b'1', None, 'x',"
                    " complex(0.5, 0), float('nan'), '-0.1', 1.5]\n"
                    "CALLS = [(repr(a), lambda a=a: ta.evaluate(G(1), a)) for a in BAD]",
                    sweep_bound=1))
    out.append(Case(T + "test_tiny_subsample_of_float_epsdelta_is_exact_without_a_time_limit",
                    "f = Subsample(EpsDelta(1.918597135354006, R(2, 5)), 1e-122)",
                    [("delta(C_{1e-122}(f_{1.9186..,2/5}), 1/1000, 15)", 60,
                      "ta.delta(f, R(1, 1000), 15)")]))
    out += _operator_cases() + _composition_cases() + _adversarial_cases()
    return out


def _operator_cases() -> list[Case]:
    T = "test_regressions_operators.py::"
    out = [
        Case(T + "test_delta_of_inverse_of_a_finite_product", "",
             [("delta(Inverse(Id (x) PL), 1/2)", 10,
               "ta.delta(Inverse(Id @ PiecewiseLinear([(0, R(1, 8)), (1, 0)])), R(1, 2))")]),
        Case(T + "test_inverse_of_a_product_by_quadrature", "",
             [("evaluate(Inverse(Mix(G1,1/3) (x) Mix(L1,1/2)), 1/10)", 20,
               "ta.evaluate(Inverse(Mix(G(1), R(1, 3)) @ Mix(Laplace(1), R(1, 2))), R(1, 10))")]),
        Case(T + "test_max_with_zero_is_the_other_operand", "",
             [("epsilon(Max(G(sqrt 2), Zero), 1/2)", 10,
               "ta.epsilon(Max(G(sp.sqrt(2)), Zero), R(1, 2))")]),
        Case(T + "test_symmetrize_of_a_discrete_pair_epsilon", "",
             [("epsilon(Symmetrize(Discrete), 1e-10)", 10,
               "ta.epsilon(Symmetrize(Discrete([R(100, 103), R(3, 103)], [R(1, 2), R(1, 2)])),"
               " R(1, 10**10))")]),
        Case(T + "test_group_of_gaussian_with_a_huge_size", "",
             [("evaluate(Group(G(1), 10^100), 0.3)", 5,
               "ta.evaluate(Group(G(1), 10**100), 0.3)")]),
        Case(T + "test_group_of_groups_merges", "",
             [("evaluate(Group(Group(G(1), 3), 4), 1/5)", 10,
               "ta.evaluate(Group(Group(G(1), 3), 4), R(1, 5))")]),
        Case(T + "test_group_without_closed_form_and_huge_size_is_refused_clearly", "",
             [("evaluate(Group(Max(G1, L1), 10^100), 0.3) refused", 20,
               "ta.evaluate(Group(Max(G(1), Laplace(1)), 10**100), 0.3)")]),
        Case(T + "test_group_of_a_finite_object_settles_for_a_huge_size", "",
             [("evaluate(Group(f_{1,1/10}, 10^100), 0.3)", 10,
               "ta.evaluate(Group(EpsDelta(1, R(1, 10)), 10**100), 0.3)")]),
    ]
    out += _each(T + "test_nested_inverses_cancel_in_pairs",
                 [dict(id=n, n=n) for n in (2, 3, 20, 21)],
                 "f = G(1)\nfor _ in range({n}):\n    f = Inverse(f)",
                 [("evaluate(Inverse^{n}(G(1)), 1/3)", 5, "ta.evaluate(f, R(1, 3))")])
    out += _each(T + "test_group_of_laplace_is_laplace",
                 [dict(id=f"{m}-{k}-{a}", m=m, k=k, a=a) for m, k, a in
                  (("1", "10**6", "0.3"), ("R(1, 2)", "7", "R(1, 5)"), ("2", "3", "R(1, 100)"))],
                 "", [("evaluate(Group(Laplace({m}), {k}), {a})", 5,
                       "ta.evaluate(Group(Laplace({m}), {k}), {a})")])
    out += _each(T + "test_epsilon_at_delta_zero",
                 [dict(id="max", f="Max(EpsDelta(0, R(1, 10)), EpsDelta(1, 0))"),
                  dict(id="subsample", f="C(R(1, 2), EpsDelta(1, 0))")],
                 "", [("epsilon({f}, 0)", 20, "ta.epsilon({f}, 0)")])
    return out


def _composition_cases() -> list[Case]:
    T = "test_regressions_composition.py::"
    out = []
    out += _each(T + "test_binomial_delta_near_one",
                 [dict(id=f"{n}-{d}", n=n, d=d) for n, ds in ((3000, (15, 30, 50)),
                                                              (10**4, (30, 60))) for d in ds],
                 "", [("delta(BinomialDP(5, {n}), 1, dps={d})", 20,
                       "ta.delta(BinomialDP(5, {n}), 1, dps={d})")])
    out.append(Case(T + "test_binomial_delta_large_n_against_log_gamma_sums", "",
                    [("delta(BinomialDP(1/100, 10^7), 1, dps=60)", 30,
                      "ta.delta(BinomialDP(R(1, 100), 10**7), 1, dps=60)")]))
    out.append(Case(T + "test_binomial_values_large_n_against_log_gamma_sums", "", [
        (f"evaluate(BinomialDP({e}, {n}), {a}, dps=30)", 30,
         f"ta.evaluate(BinomialDP({e}, {n}), {a}, dps=30)")
        for n, e, a in (("10**5", "R(1, 3)", "R(1, 2)"), ("10**5", "R(1, 50)", "R(1, 10**20)"),
                        ("10**6", "R(1, 100)", "R(9, 10)"))]))
    out.append(Case(T + "test_zero_factor_power_is_one", "",
                    [("roc(BinomialDP(1e-8, 100) (x) Zero, 0.5)", 5,
                      "ta.roc(BinomialDP(R(1, 10**8), 100) @ Zero, 0.5)")]))
    out.append(Case(T + "test_epsdelta_power_1e9_is_binomial", "",
                    [("evaluate(f_{1,0}^(x)10^9, 0.5)", 120,
                      "ta.evaluate(EpsDelta(1, 0) ** 10**9, 0.5)")]))
    out.append(Case(T + "test_binomial_1e7", "", [
        ("evaluate(BinomialDP(1, 10^7), 0.5)", 60, "ta.evaluate(BinomialDP(1, 10**7), 0.5)"),
        ("roc(BinomialDP(1, 10^7), 1e-30)", 60, "ta.roc(BinomialDP(1, 10**7), R(1, 10**30))")]))
    out.append(Case(T + "test_binomial_beyond_the_size_limit_is_refused",
                    "from tradeoff_algebra.families import binomial as bm", [
                        ("evaluate(BinomialDP(1, 10 MAX_N), 0.5) refused", 5,
                         "ta.evaluate(BinomialDP(1, 10 * bm.MAX_N), 0.5)"),
                        ("delta(BinomialDP(1, 10^40), 1) refused", 5,
                         "ta.delta(BinomialDP(1, 10**40), 1)")]))
    out.append(Case(T + "test_epsdelta_power_with_delta", "f = EpsDelta(1, R(1, 1000)) ** 10**6", [
        ("evaluate(f_{1,1/1000}^(x)10^6, 0.5)", 10, "ta.evaluate(f, 0.5)"),
        ("evaluate(f_{1,1/1000}^(x)10^6, 1e-500, dps=20)", 30,
         "ta.evaluate(f, R(1, 10**500), dps=20)")]))
    out.append(Case(T + "test_discrete_with_1e5_outcomes",
                    "import random\nrnd = random.Random(7)\n"
                    "wp = [rnd.randint(1, 100) for _ in range(10**5)]\n"
                    "wq = [rnd.randint(0, 100) for _ in range(10**5)]\n"
                    "P = [R(x, sum(wp)) for x in wp]\nQ = [R(x, sum(wq)) for x in wq]", [
                        ("Discrete(P, Q), 10^5 outcomes", 60, "d = Discrete(P, Q)"),
                        ("evaluate(d, 1/3)", 60, "ta.evaluate(d, R(1, 3))"),
                        ("delta(d, 1/3, dps=30)", 60, "ta.delta(d, R(1, 3), dps=30)")]))
    out += _each(T + "test_pld_beyond_the_grid_is_refused_at_once",
                 [dict(id="laplace-1e9", f="Laplace(1) ** 10**9"),
                  dict(id="subsampled-1e100", f="C(R(1, 2), G(1)) ** (10**100)"),
                  dict(id="noisy-sgd-1e100",
                       f="noisy_sgd(1, R(1, 100), 10**100, sampling='gdp_paper')")],
                 "f = {f}", [("evaluate(f, 0.5) refused", 20, "ta.evaluate(f, 0.5)"),
                             ("delta(f, 1) refused", 20, "ta.delta(f, 1)")])
    out.append(Case(T + "test_shuffle_beyond_the_limit_is_refused_at_once",
                    "f = ShuffleDP(1, 10**400)", [
                        ("evaluate(ShuffleDP(1, 10^400), 0.5) refused", 5, "ta.evaluate(f, 0.5)"),
                        ("f.curve([0.5]) refused", 5, "f.curve([0.5])"),
                        ("evaluate(f (x) G(1), 0.5) refused", 5, "ta.evaluate(f @ G(1), 0.5)"),
                        ("delta(f, 1/2) refused", 5, "ta.delta(f, R(1, 2))"),
                        ("evaluate(shuffle(1, 10^400, wang), 0.5) refused", 5,
                         "ta.evaluate(shuffle(1, 10**400, bound='wang'), 0.5)"),
                        ("evaluate(ShuffleDP(1, 10^8), 0.5) refused", 5,
                         "ta.evaluate(ShuffleDP(1, 10**8), 0.5)")]))
    out.append(Case(T + "test_product_with_zero_at_zero",
                    "f = PiecewiseLinear([(0, 1), (R(1, 2), 0), (1, 0)]) ** 10000 @ Zero",
                    [(f"evaluate(PL^(x)10^4 (x) Zero, {a})", 5, f"ta.evaluate(f, {a})")
                     for a in ("0", "R(1, 2)", "1")]))
    out.append(Case(T + "test_value_at_zero_is_the_product_of_values_at_zero",
                    "f = Inverse(Laplace(R(257, 125))) @ Max(Discrete([0, 1], [1, 0]), G(R(1, 2)))"
                    "\ng = Discrete([0, R(1, 2), R(1, 2)], [R(1, 3), R(1, 3), R(1, 3)]) @ G(1)", [
                        ("evaluate(Inverse(L) (x) Max(..), 0)", 5, "ta.evaluate(f, 0)"),
                        ("evaluate(Discrete (x) G(1), 0)", 5, "ta.evaluate(g, 0)"),
                        ("roc(Discrete (x) G(1), 0)", 5, "ta.roc(g, 0)")]))
    levels = ("R(9, 10)", "R(95, 100)", "R(999, 1000)")
    out += _each(T + "test_product_with_f0delta_vanishes_beyond_one_minus_delta",
                 [dict(id=i, f=f) for i, f in (("G(1)", "G(1)"), ("Laplace(1)", "Laplace(1)"),
                                              ("G(1) (x) L(1/2)", "G(1) @ Laplace(R(1, 2))"))],
                 "g = {f} @ EpsDelta(0, R(1, 10))",
                 [c for a in levels for c in
                  ((f"evaluate(g, {a})", 5, f"ta.evaluate(g, {a})"),
                   (f"roc(g, {a})", 5, f"ta.roc(g, {a})"))])
    out.append(Case(T + "test_laplace_with_f0delta_is_as_tight_as_laplace",
                    "g = Laplace(1) @ EpsDelta(0, R(1, 10))",
                    [c for a in ("0.3", "0.7", "R(1, 3)", "R(1, 10**12)") for c in
                     ((f"evaluate(g, {a}, dps=30)", 5, f"ta.evaluate(g, {a}, dps=30)"),
                      (f"roc(g, {a}, dps=30)", 5, f"ta.roc(g, {a}, dps=30)"))]))
    out += _each(T + "test_wang_bound_delta_against_literal_pair",
                 [dict(id=f"{e}-{n}", e=e, n=n) for e, n in (("3", 6), ("R(5, 2)", 20),
                                                             ("9", 40))],
                 "f = shuffle(sp.log({e}), {n}, bound='wang')",
                 [(f"delta(f, log {x})", 20, f"ta.delta(f, sp.log({x}))")
                  for x in ("2", "R(3, 2)")])
    out.append(Case(T + "test_wang_bound_table1_n_1e4",
                    "f = shuffle(R(1111, 250), 10**4, bound='wang')",
                    [(f"delta(f, {e}, dps=15)", 60, f"ta.delta(f, R('{e}'), dps=15)")
                     for e in ("0.5", "0.7", "1.0")]))
    return out


def _adversarial_cases() -> list[Case]:
    T = "test_adversarial_inputs.py::"
    path = TESTS / "test_adversarial_inputs.py"
    out = [
        Case(T + "test_rdp_at_order_infinity_and_at_huge_eps", "",
             [("zCDP(1/2).delta(10^400, dps=10)", 5,
               "ta.zCDP(R(1, 2)).delta(10**400, dps=10)")]),
        Case(T + "test_irrational_and_tiny_tolerances_and_levels", "",
             [("sup_distance(G(1), G(2), 5)", 20, "ta.sup_distance(G(1), G(2), 5)")]),
        Case(T + "test_rdp_conversions_at_astronomical_eps_and_infinite_divergences", "",
             [(f"zCDP(1/2).delta({e}, dps=10) refused", 5,
               f"ta.zCDP(R(1, 2)).delta({e}, dps=10)")
              for e in ("sp.exp(10**5)", "sp.Integer(10) ** 4000")]),
        Case(T + "test_sweep_of_odd_values_gives_one_clear_error_each (every pair)",
             "import test_adversarial_inputs as m\n"
             "CALLS = [(f'{name} = {v!r:.30}', lambda fn=fn, v=v: fn(v))"
             " for name, fn in m._sweep_targets() for v in m._SWEEP_VALUES"
             " if not (v == '1' and name in ('noise_multiplier', 'sample_rate'))]",
             sweep_bound=5),
    ]
    for name, bound in (("test_refused_at_once_with_one_line", 5),
                        ("test_numbers_at_the_limits_are_accepted", 5),
                        ("test_shuffle_with_a_billion_users", 60),
                        ("test_astronomical_eps_is_refused_or_undecided_not_a_hang", 60),
                        ("test_odd_command_line_arguments", 60)):
        out.append(Case(T + name + " (main)", pytest=f"tests/{path.name}::{name}", wrap="run",
                        bound=bound))
    for name in ("test_random_strings_give_clean_exits",
                 "test_random_nested_expressions_give_clean_exits",
                 "test_random_levels_give_clean_exits"):
        out.append(Case(T + name + " (main)", pytest=f"tests/{path.name}::{name}",
                        wrap="run_quietly", bound=5))
    for name in _functions_calling(path, "named"):
        out.append(Case(T + name + " (named)", pytest=f"tests/{path.name}::{name}",
                        wrap="named", bound=5))
    return out


# -- the table ----------------------------------------------------------------------------------
def _fmt(x) -> str:
    return "" if x is None else ("nan" if x != x else f"{x:.3g}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="run the cases whose id contains this")
    ap.add_argument("--timeout", type=float, default=900, help="seconds per case process")
    ap.add_argument("--write", metavar="PATH")
    args = ap.parse_args(argv)
    rep = Report()
    todo = [c for c in cases() if args.only in c.id]
    rep.out("# Former speed claims of the test suite")
    rep.out()
    rep.out(run_line("python benchmarks/bench_speed_claims.py"
                     + (f" --only {args.only}" if args.only else ""))
            + f"; {len(todo)} cases, each in a fresh process (import and setup excluded). "
            "Wall and CPU seconds of each timed call; 'bound' is what the test used to assert "
            "on the wall time.")
    rep.out()
    rep.out("| case | call | wall (s) | CPU (s) | former bound (s) | within | outcome |")
    rep.out("|---|---|---|---|---|---|---|")
    t0, over, failed = time.perf_counter(), 0, 0
    for case in todo:
        for r in run_case(case, args.timeout):
            ok = r["bound"] is None or r["wall"] < r["bound"]
            over += not ok
            failed += r["outcome"].startswith(("test failed", "crashed", "no "))
            rep.out(f"| {case.id} | {r['label']} | {_fmt(r['wall'])} | {_fmt(r['cpu'])} | "
                    f"{_fmt(r['bound'])} | {'yes' if ok else 'NO'} | {r['outcome']} |")
    rep.out()
    rep.out(f"{over} calls over their former bound, {failed} cases failed or crashed; "
            f"{time.perf_counter() - t0:.0f} s in all.")
    rep.write(args.write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
