"""Time limits fire on every public call (numeric/budget.py): ``with ta.time_limit(s)`` stops
each public function within about 1.5 s + 1.5 s, whatever the route, with TimeLimitExceeded
(or a result, when the call is done first).

Every case below is a heavy input that ran far past its limit before (seconds to hours: loops
without a deadline check, public functions whose inner calls each opened their own deadline,
validation and fast paths outside any deadline, integrands of mpmath's and Arb's quadrature).
They run in one subprocess with a hard timeout (a hang must fail the test, never the suite); the
bound asserted on each is a liveness bound (LIVENESS seconds, far above the promise: the machine
may be loaded), not a performance test."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import sympy as sp

import tradeoff_algebra as ta

#: The limit of every case (seconds) and the liveness bound asserted on each.
LIMIT = 0.5
LIVENESS = 20.0

#: name -> a call (Python source, names of tradeoff_algebra in scope, R = Rational).
HEAVY = {
    # evaluate / roc / delta / epsilon on every route
    "epsilon of DP-SGD, 20000 steps, delta 1e-12 (PLD)":
        "ta.epsilon(ta.noisy_sgd(R(1, 2), R(1, 100), 20000, sampling='gdp_paper'), "
        "R(1, 10**12))",
    "delta of L_{1/10}^200 at tol 1e-9 (PLD)":
        "_with(ta.pld_options(tol=1e-9), lambda: ta.delta(Laplace(R(1, 10))**200, 1))",
    "delta of NormalPair (x) G (certified profile factor; minutes)":
        "ta.delta(Tensor(NormalPair(0, 1, 1, 2), G(1)), R(1, 2))",
    "delta of Group(PoissonReplace) at 50 digits":
        "ta.delta(Group(PoissonReplace(2, R(1, 10)), 3), 1, dps=50)",
    "evaluate of BinomialDP(1/10, 10^6) at 100 digits":
        "ta.evaluate(BinomialDP(R(1, 10), 10**6), '1e-5', dps=100)",
    "delta of ShuffleDP(1, 10^4) at 100 digits": "ta.delta(ShuffleDP(1, 10**4), R(1, 2), dps=100)",
    "evaluate of a 20-component GaussianMixturePair at 200 digits (was 27 s)":
        "ta.evaluate(GaussianMixturePair([R(1, 20)] * 20, list(range(20)), "
        "[k + R(1, 3) for k in range(20)]), R(1, 10), dps=200)",
    "evaluate of NormalPair at 1e-50, 2000 digits (was 9 s)":
        "ta.evaluate(NormalPair(0, 1, 1, 3), R(1, 10**50), dps=2000)",
    "roc of DPGD random initialisation at 100 digits":
        "ta.roc(ta.dpgd_random_init(1, 1, R(1, 10)), R(1, 10**10), dps=100)",
    # functionals
    "renyi of Mix(G_2, 1/3) at 1000 digits (Arb integral)":
        "ta.renyi(Mix(G(2), R(1, 3)), R(7, 3), dps=1000)",
    "renyi estimate of C_{1/3}(L_1) at 800 digits (was 78 s)":
        "ta.renyi(C(R(1, 3), Laplace(1)), 3, dps=800, estimate=True)",
    "kl estimate of C_{1/3}(L_1) at 1000 digits (was 81 s)":
        "ta.kl(C(R(1, 3), Laplace(1)), dps=1000, estimate=True)",
    "f_divergence estimate at 1000 digits (was over 100 s)":
        "ta.f_divergence(Mix(G(1), R(1, 3)), lambda t: (t - 1)**4, dps=1000, estimate=True)",
    "fixed_point of a PLD hull (was 43 s)":
        "ta.fixed_point(SymmetricHull(Laplace(1)**50 @ G(1)), dps=30)",
    "conjugate_value of L_1^300 (had no deadline: over a minute)":
        "ta.conjugate_value(Laplace(1)**300, -3, 20)",
    "hockey_stick of L_1^400": "ta.hockey_stick(Laplace(1)**400, 3, dps=20)",
    "advantage of L_1^301": "ta.advantage(Laplace(1)**301, dps=20)",
    "bayes_risk of L_1^302": "ta.bayes_risk(Laplace(1)**302, R(1, 3), dps=20)",
    "tv of L_1^303": "ta.tv(Laplace(1)**303, dps=20)",
    "gdp_mu of Mix(G_1, 1/2) (the CLI's reported hang)": "ta.gdp_mu(Mix(G(1), R(1, 2)))",
    "gdp_mu of L_1": "ta.gdp_mu(Laplace(1))",
    "sup_distance": "ta.sup_distance(G(1), Laplace(1)**10, dps=30)",
    "verify of BinomialDP(1, 10) >= f_{1 + 1e-10, 0}^10":
        "ta.verify(BinomialDP(1, 10), '>=', EpsDelta(1 + R(1, 10**10), 0)**10)",
    # searches over public calls: one deadline for the whole search
    "gaussian_sigma at 1000 digits (was 57 s)":
        "ta.gaussian_sigma(1, R(1, 1000), R(1, 10**300), dps=1000)",
    "calibrate of DP-SGD, 20000 steps":
        "ta.calibrate(lambda s: ta.noisy_sgd(s, R(1, 100), 20000, sampling='poisson'), "
        "epsilon=R(1, 2), delta=R(1, 10**12))",
    "RDP.of on 58 orders": "ta.RDP.of(Mix(G(1), R(1, 3))**10, orders=list(range(2, 60)))",
    "primal_value": "ta.primal_value(Laplace(1)**100, R(1, 4), n=2000, dps=30)",
    "curve with bounds": "ta.curve(Laplace(1)**100 @ Mix(G(1), R(1, 3))**50, "
                         "[k / 1000 for k in range(1, 1000)], bounds=True)",
    "plot of a DP-SGD ROC curve": "ta.plot(ta.noisy_sgd(R(1, 2), R(1, 100), 20000, "
                                  "sampling='gdp_paper'), ax=_axes(), "
                                  "kind='roc', points=400)",
    # symbolic: the rewriting and the numbers its theorems need (were 5 to 7 s)
    "approx of 30 subsampled factors":
        "ta.approx(Tensor(*[C(R(1, k + 2), G(1))**(k + 1) for k in range(30)]))",
    "derive (lower) of 30 subsampled factors":
        "ta.derive(Tensor(*[C(R(1, k + 2), G(1))**(k + 1) for k in range(30)]), 'lower')",
    "berry_esseen": "ta.berry_esseen(Tensor(*[C(R(1, k + 2), G(1)) for k in range(30)]))",
}

_WORKER = r"""
import json, sys, time, warnings
warnings.simplefilter("ignore")
import sympy as sp
import tradeoff_algebra as ta
from tradeoff_algebra import *
R = sp.Rational

def _with(options, call):
    with options:
        return call()

def _axes():
    from matplotlib.figure import Figure
    return Figure().add_subplot()

limit, cases = float(sys.argv[1]), json.loads(sys.stdin.read())
for name, code in cases.items():
    print(json.dumps({"start": name}), flush=True)
    t = time.monotonic()
    try:
        with ta.time_limit(limit):
            eval(code)
        out = "returned"
    except ta.TimeLimitExceeded:
        out = "TimeLimitExceeded"
    except Exception as exc:
        out = f"{type(exc).__name__}: {exc}"[:300]
    print(json.dumps({"name": name, "seconds": time.monotonic() - t, "outcome": out}),
          flush=True)
"""


def _env() -> dict:
    root = str(Path(ta.__file__).resolve().parent.parent)
    path = [root] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    return dict(os.environ, PYTHONPATH=os.pathsep.join(path))


@pytest.mark.slow
def test_every_public_function_stops_at_its_time_limit():
    """Each case under ``time_limit(LIMIT)`` raises TimeLimitExceeded or returns within
    LIVENESS seconds (the promise is 1.5 s + 1.5 LIMIT), in one subprocess killed if the whole
    run hangs."""
    hard = 60 + len(HEAVY) * LIVENESS / 4
    proc = subprocess.run([sys.executable, "-c", _WORKER, str(LIMIT)], input=json.dumps(HEAVY),
                          capture_output=True, text=True, env=_env(), timeout=hard)
    lines = [json.loads(x) for x in proc.stdout.splitlines() if x.startswith("{")]
    done = {x["name"]: x for x in lines if "name" in x}
    assert proc.returncode == 0, proc.stderr[-3000:]
    problems = []
    for name in HEAVY:
        r = done.get(name)
        if r is None:
            problems.append(f"{name}: did not finish")
        elif r["outcome"] not in ("TimeLimitExceeded", "returned"):
            problems.append(f"{name}: {r['outcome']}")
        elif r["seconds"] > LIVENESS:
            problems.append(f"{name}: stopped after {r['seconds']:.1f} s under a {LIMIT} s limit")
    assert not problems, "\n".join(problems)


def test_the_cli_stops_at_its_time_limit():
    """The command line runs every command under the default time limit
    (``budget.DEFAULT_SECONDS``, set to 1 s here): ``tradeoff gdp "Mix(G(1), 1/2)"`` (reported
    to hang) stops with one error line and exit status 4."""
    code = ("import sys\n"
            "from tradeoff_algebra.numeric import budget\n"
            "budget.DEFAULT_SECONDS = 1.0\n"
            "from tradeoff_algebra.cli import main\n"
            "sys.exit(main(['gdp', 'Mix(G(1), 1/2)']))\n")
    # (how soon it stops is measured in benchmarks/bench_time_limits.py)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=_env(), timeout=120)
    assert proc.returncode == 4, (proc.returncode, proc.stderr)
    assert proc.stderr.startswith("tradeoff: error: gdp_mu(Mix(G(1), 1/2)): stopped at the "
                                  "time limit of 1 s"), proc.stderr
    assert proc.stderr.count("\n") == 1


@pytest.mark.parametrize("lock", ["arb", "profile"])
def test_a_thread_waiting_for_a_lock_stops_at_its_own_limit(lock):
    """Arb precision sections are serialised (python-flint's precision is process-global) and
    one thread builds a profile factor at a time; a thread queued behind another's long
    section waited without looking at its own deadline. It now checks the deadline while it
    waits."""
    from tradeoff_algebra.numeric import context, pld_profile

    R = sp.Rational
    if lock == "arb":
        held = context._ARB_LOCK
        call = lambda: ta.evaluate(ta.G(R(7, 9)), R(2, 7), dps=33)  # noqa: E731 (a ball)
    else:
        f = ta.Max(ta.G(R(5, 7)), ta.Laplace(1))
        held = pld_profile._source(f).lock
        call = lambda: pld_profile.profile_models(f)  # noqa: E731
    taken, release = threading.Event(), threading.Event()

    def hold() -> None:
        with held:
            taken.set()
            release.wait(30)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        taken.wait(10)
        # the lock is held for 30 s: raising at all means the waiter looked at its own limit
        with ta.time_limit(0.2), pytest.raises(ta.TimeLimitExceeded):
            from tradeoff_algebra.numeric import budget

            with budget.call("waiting"):
                call()
    finally:
        release.set()
        holder.join()
    assert held.acquire(timeout=1)  # (released, and usable again)
    held.release()
