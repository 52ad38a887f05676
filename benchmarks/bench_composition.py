"""Composition benchmark: tradeoff_algebra's PLD engine and exact finite route against
dp_accounting's PLD accountant and prv_accountant, in one process.

Run ``python benchmarks/bench_composition.py`` (``--quick`` skips the slow peer settings,
``--write PATH`` records the tables). Each row prints the value or enclosure, the time, and the
time ratio to dp_accounting's default accountant in the same run.
"""

from __future__ import annotations

import argparse

import sympy as sp
from _report import Report, run_line, timed

import tradeoff_algebra as ta
from tradeoff_algebra import EpsDelta, G, Laplace
from tradeoff_algebra.numeric import pld

DELTA = 1e-5
P = 256 / 60000

try:
    from dp_accounting import dp_event
    from dp_accounting.pld import pld_privacy_accountant
except ImportError:  # pragma: no cover
    dp_event = None
try:
    from prv_accountant import PRVAccountant
    from prv_accountant.privacy_random_variables import (
        PoissonSubsampledGaussianMechanism,
    )
except ImportError:  # pragma: no cover
    PRVAccountant = None

REPORT = Report()
out = REPORT.out


def clear_cache() -> None:
    pld._CACHE.clear()


def dpa_eps(event, d, interval=None):
    kw = {} if interval is None else {"value_discretization_interval": interval}
    acc = pld_privacy_accountant.PLDAccountant(**kw)
    acc.compose(event)
    return acc.get_epsilon(d)


def dpsgd(quick: bool) -> None:
    out("## DP-SGD: p = 256/60000, Poisson sampling, delta = 1e-5")
    out()
    out("ours: ta.epsilon(ta.noisy_sgd(sigma, dataset_size=60000, batch_size=256, epochs=E), "
        "1e-5) (Poisson sampling, the default; T = ceil(E n/b), 3516 and 14063 steps) = the "
        "larger of the remove/add directions, default tolerance (relative width <= 5e-4), "
        "cold cache.")
    out()
    out("| sigma | epochs | T | ours [lo, hi] | rel. width | time | dp_acc. default (1e-4) | "
        "time | ratio | dp_acc. 1e-5 | time | prv_accountant [lo, hi] | time | consistent |")
    out("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for sigma in (0.8, 1.1, 2.0):
        for epochs in (15, 60):
            # T = ceil(E n/b): a started last batch runs (noisy_sgd's count; 60 epochs: 14063)
            f = ta.noisy_sgd(sigma, dataset_size=60000, batch_size=256, epochs=epochs,
                             sampling="poisson")
            T = int(f.arg.n)
            clear_cache()
            v, t_ours = timed(lambda f=f: ta.epsilon(f, sp.Rational(1, 10**5), dps=10))
            lo, hi = float(v.lo), float(v.hi)
            cells = [f"{sigma}", f"{epochs}", f"{T}", f"[{lo:.6f}, {hi:.6f}]",
                     f"{(hi - lo) / hi:.1e}", f"{t_ours:.2f} s"]
            ok = True
            if dp_event is not None:
                ev = dp_event.SelfComposedDpEvent(
                    dp_event.PoissonSampledDpEvent(P, dp_event.GaussianDpEvent(sigma)), T)
                e1, t1 = timed(lambda ev=ev: dpa_eps(ev, DELTA))
                cells += [f"{e1:.6f}", f"{t1:.2f} s", f"{t_ours / t1:.2f}"]
                ok &= lo <= e1
                if not quick:
                    e2, t2 = timed(lambda ev=ev: dpa_eps(ev, DELTA, 1e-5))
                    cells += [f"{e2:.6f}", f"{t2:.2f} s"]
                    ok &= lo <= e2
                else:
                    cells += ["-", "-"]
            else:
                cells += ["n/a"] * 5
            if PRVAccountant is not None:
                prv = PoissonSubsampledGaussianMechanism(noise_multiplier=sigma,
                                                         sampling_probability=P)

                def run_prv(prv=prv, T=T):
                    acc = PRVAccountant(prvs=prv, max_self_compositions=T, eps_error=0.01,
                                        delta_error=DELTA / 1000)
                    return acc.compute_epsilon(delta=DELTA, num_self_compositions=T)

                (pl, _, pu), t3 = timed(run_prv)
                cells += [f"[{pl:.4f}, {pu:.4f}]", f"{t3:.2f} s"]
                ok &= hi >= pl and lo <= pu
            else:
                cells += ["n/a", "n/a"]
            cells.append("yes" if ok else "NO")
            out("| " + " | ".join(cells) + " |")
    out()


def pure_dp() -> None:
    out("## f_{eps0,0}^{(x) n} at delta = 1e-6 (exact finite route: Kairouz et al.)")
    out()
    out("| eps0 | n | ours eps | time | dp_acc. default | time |")
    out("|---|---|---|---|---|---|")
    for eps0 in (sp.Rational(1, 10), sp.Integer(1)):
        for n in (10, 100, 1000, 10000):
            f = EpsDelta(eps0, 0) ** n
            v, t = timed(lambda f=f: ta.epsilon(f, sp.Rational(1, 10**6), dps=15))
            cells = [f"{eps0}", f"{n}", f"{float(v.lo):.10g}" if v.is_point else str(v),
                     f"{t:.2f} s"]
            if dp_event is not None:
                from dp_accounting.pld import common, privacy_loss_distribution

                def run(eps0=eps0, n=n):
                    base = privacy_loss_distribution.from_privacy_parameters(
                        common.DifferentialPrivacyParameters(float(eps0), 0.0))
                    return base.self_compose(n).get_epsilon_for_delta(1e-6)

                e1, t1 = timed(run)
                cells += [f"{e1:.6f}", f"{t1:.2f} s"]
            out("| " + " | ".join(cells) + " |")
    out()


def laplace() -> None:
    out("## Laplace mechanism L_1^{(x) n} at delta = 1e-5")
    out()
    out("| n | ours [lo, hi] | rel. width | time | dp_acc. default | time | ratio |")
    out("|---|---|---|---|---|---|---|")
    for n in (10, 100, 1000):
        clear_cache()
        f = Laplace(1) ** n
        v, t = timed(lambda f=f: ta.epsilon(f, sp.Rational(1, 10**5), dps=10))
        lo, hi = float(v.lo), float(v.hi)
        cells = [f"{n}", f"[{lo:.6f}, {hi:.6f}]", f"{(hi - lo) / hi:.1e}", f"{t:.2f} s"]
        if dp_event is not None:
            ev = dp_event.SelfComposedDpEvent(dp_event.LaplaceDpEvent(1.0), n)
            e1, t1 = timed(lambda ev=ev: dpa_eps(ev, 1e-5))
            cells += [f"{e1:.6f}", f"{t1:.2f} s", f"{t / t1:.2f}"]
        out("| " + " | ".join(cells) + " |")
    out()


def tails() -> None:
    out("## Extreme tails: delta(eps) of G_{0.5}^{(x) 16} (= G_2 by Cor. 2: exact reference)")
    out()
    out("| eps | exact (Cor. 1) | ours [lo, hi] (PLD, tilted) | contains | time | "
        "dp_acc. get_delta |")
    out("|---|---|---|---|---|---|")
    leaves = ((G(0.5), 16),)
    for eps in (20.0, 24.0, 50.0):
        exact = ta.delta(G(2), eps, dps=20)
        clear_cache()
        (lo, hi), t = timed(lambda eps=eps: pld.delta_enclosure(leaves, eps, tol=1e-3))
        ok = lo <= float(exact.hi) * (1 + 1e-15) and float(exact.lo) <= hi * (1 + 1e-15)
        cell = "n/a"
        if dp_event is not None:
            acc = pld_privacy_accountant.PLDAccountant()
            acc.compose(dp_event.SelfComposedDpEvent(dp_event.GaussianDpEvent(2.0), 16))
            try:
                cell = f"{acc.get_delta(eps):.3e}"
            except Exception as exc:  # pragma: no cover
                cell = type(exc).__name__
        out(f"| {eps} | {float(exact.mid):.6e} | [{lo:.6e}, {hi:.6e}] | {ok} | {t:.2f} s | "
            f"{cell} |")
    out()
    out("(G(0.5)^16 is given to the engine as 16 factors; ta.delta of the expression would "
        "simplify it to G_2 first. The engine tilts the laws towards eps (exponential change of "
        "measure, exact under convolution) so the float64 FFT keeps its relative accuracy there; "
        "dp_accounting's value is its truncation mass, not the profile.)")
    out()


def long_run(quick: bool) -> None:
    out("## DP-SGD with T = 10^6 steps: time and memory")
    out()
    out("sigma = 1.1, p = 256/60000, Poisson sampling, delta = 1e-5; peak traced memory of the "
        "call (numpy arrays included), cold cache. The engine's FFT is capped at 2^23 bins, "
        "which bounds the memory for any T (the grid cannot refine further; the enclosure "
        "stays valid, its width is then what that grid gives).")
    out()
    out("| T | ours [lo, hi] | rel. width | time | peak memory | dp_acc. default | time |")
    out("|---|---|---|---|---|---|---|")
    import tracemalloc

    sigma, T = 1.1, 10**6
    f = ta.noisy_sgd(sigma, sp.Rational(256, 60000), T, sampling="poisson")
    clear_cache()
    tracemalloc.start()
    v, t = timed(lambda: ta.epsilon(f, sp.Rational(1, 10**5), dps=10))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    clear_cache()
    lo, hi = float(v.lo), float(v.hi)
    cells = [f"{T}", f"[{lo:.6f}, {hi:.6f}]", f"{(hi - lo) / hi:.1e}", f"{t:.2f} s",
             f"{peak / 2**20:.0f} MiB"]
    if dp_event is not None and not quick:
        ev = dp_event.SelfComposedDpEvent(
            dp_event.PoissonSampledDpEvent(P, dp_event.GaussianDpEvent(sigma)), T)
        e1, t1 = timed(lambda: dpa_eps(ev, DELTA))
        cells += [f"{e1:.6f}", f"{t1:.2f} s"]
    else:
        cells += ["-", "-"]
    out("| " + " | ".join(cells) + " |")
    out()


def curve() -> None:
    out("## The DP-SGD trade-off curve: power 1 - f(alpha) at low alpha (TPR at low FPR)")
    out()
    out("sigma = 1.1, p = 256/60000, 60 epochs (T = 14062), Poisson sampling: ta.roc of the "
        "symmetric hull of the composed mixtures (minimax over the two directions' profiles). "
        "The peers give (eps, delta) curves, not f; for comparison, the best power any "
        "(eps, delta)-DP bound from dp_accounting's profile certifies is min over eps of "
        "delta(eps) + e^eps alpha, here over its delta at 200 eps in [0, 12].")
    out()
    out("| alpha | ours 1 - f(alpha) [lo, hi] | rel. width | time (warm) | dp_acc. profile "
        "bound | time |")
    out("|---|---|---|---|---|---|")
    f = ta.noisy_sgd(1.1, sp.Rational(256, 60000), 14062, sampling="poisson")
    clear_cache()
    acc = None
    if dp_event is not None:
        acc = pld_privacy_accountant.PLDAccountant()
        acc.compose(dp_event.SelfComposedDpEvent(
            dp_event.PoissonSampledDpEvent(P, dp_event.GaussianDpEvent(1.1)), 14062))
    for a in ("1e-5", "1e-3", "0.01", "0.1"):
        v, t = timed(lambda a=a: ta.roc(f, a, dps=10))
        lo, hi = float(v.lo), float(v.hi)
        cells = [a, f"[{lo:.6e}, {hi:.6e}]", f"{(hi - lo) / hi:.1e}", f"{t:.2f} s"]
        if acc is not None:
            import math

            def bound(a=float(a)):
                return min(acc.get_delta(e) + math.exp(e) * a
                           for e in [12 * i / 199 for i in range(200)])

            b, t1 = timed(bound)
            cells += [f"{b:.6e}", f"{t1:.2f} s"]
        out("| " + " | ".join(cells) + " |")
    out()


def generic() -> None:
    out("## Factors without a closed-form loss: the certified-profile route")
    out()
    out("delta(eps) of products with a factor known only through certified enclosures of its "
        "privacy profile (no peer composes these); cold caches.")
    out()
    out("| expression | eps | ours [lo, hi] | rel. width | time |")
    out("|---|---|---|---|---|")
    from tradeoff_algebra import Group, Max
    from tradeoff_algebra.numeric import pld_profile

    for expr, eps in ((Max(G(1), Laplace(1)) @ G(1), 0.5),
                      (Max(G(1), Laplace(1)) @ G(1), 2.0),
                      (Group(EpsDelta(sp.Rational(1, 4), 0), 4) ** 10, 3.0)):
        clear_cache()
        pld_profile._MODELS.clear()
        pld_profile._SOURCES.clear()
        v, t = timed(lambda expr=expr, eps=eps: ta.delta(expr, eps, dps=10))
        lo, hi = float(v.lo), float(v.hi)
        out(f"| `{expr}` | {eps} | [{lo:.6e}, {hi:.6e}] | {(hi - lo) / hi:.1e} | {t:.2f} s |")
    out()


def practice(quick: bool) -> None:
    """Accounting as a practitioner does it: composed training phases, a mixed composition,
    replace-one neighbours, a whole certified curve, calibration."""
    out("## Practice: composed phases, replace-one, whole curves, calibration (delta = 1e-5)")
    out()
    out("| workload | ours | time | dp_acc. default (1e-4) | time | dp_acc. 1e-5 | time | "
        "consistent |")
    out("|---|---|---|---|---|---|---|---|")
    q = 512 / 50000
    Q = sp.Rational(512, 50000)
    rows = [
        ("two phases: sigma 1 then 2, 1000 steps each",
         lambda: ta.noisy_sgd(1, Q, 1000, sampling="poisson")
         @ ta.noisy_sgd(2, Q, 1000, sampling="poisson"),
         lambda: dp_event.ComposedDpEvent([
             dp_event.SelfComposedDpEvent(
                 dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(s)), 1000)
             for s in (1.0, 2.0)]), {}),
        ("30 epochs (2930 steps) + 1000 steps + a Gaussian release (sigma 10)",
         lambda: ta.noisy_sgd(1, dataset_size=50000, batch_size=512, epochs=30,
                              sampling="poisson")
         @ ta.noisy_sgd(2, Q, 1000, sampling="poisson") @ ta.gaussian_mechanism(1, 10),
         lambda: dp_event.ComposedDpEvent([
             dp_event.SelfComposedDpEvent(
                 dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(1.0)), 2930),
             dp_event.SelfComposedDpEvent(
                 dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(2.0)), 1000),
             dp_event.GaussianDpEvent(10.0)]), {}),
        ("replace-one neighbours, sigma 1, 300 steps",
         lambda: ta.noisy_sgd(1, Q, 300, sampling="poisson", neighbours="replace_one"),
         lambda: dp_event.SelfComposedDpEvent(
             dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(1.0)), 300),
         {"neighboring_relation": "replace"}),
    ]
    for name, build, event, kw in rows:
        clear_cache()
        v, t = timed(lambda build=build: ta.epsilon(build(), sp.Rational(1, 10**5), dps=8))
        cells = [name, f"[{float(v.lo):.6f}, {float(v.hi):.6f}]", f"{t:.2f} s"]
        ok = True
        if dp_event is not None:
            from dp_accounting import NeighboringRelation

            rel = (NeighboringRelation.REPLACE_ONE if kw.get("neighboring_relation")
                   else NeighboringRelation.ADD_OR_REMOVE_ONE)
            for interval in ((None,) if quick else (None, 1e-5)):
                def run(interval=interval, event=event, rel=rel):
                    args = {} if interval is None else {"value_discretization_interval":
                                                        interval}
                    acc = pld_privacy_accountant.PLDAccountant(neighboring_relation=rel, **args)
                    acc.compose(event())
                    return acc.get_epsilon(DELTA)

                e, te = timed(run)
                cells += [f"{e:.6f}", f"{te:.2f} s"]
                ok &= float(v.lo) <= e
            if quick:
                cells += ["-", "-"]
        else:
            cells += ["n/a"] * 4
        cells.append("yes" if ok else "NO")
        out("| " + " | ".join(cells) + " |")
    out()
    import numpy as np

    f = ta.noisy_sgd(1.1, Q, 2930, sampling="poisson")
    clear_cache()
    _, t1 = timed(lambda: ta.evaluate(f, 0.3, dps=10))
    clear_cache()
    (lo, hi), t2 = timed(lambda: ta.curve(f, np.linspace(0, 1, 1001), bounds=True))
    out(f"Whole curve: 1001 certified points of noisy_sgd(1.1, 512/50000, 2930, 'poisson') in "
        f"{t2:.2f} s cold (one evaluate: {t1:.2f} s cold); largest width {np.max(hi - lo):.1e}.")
    c, t3 = timed(lambda: ta.calibrate(lambda s: ta.noisy_sgd(s, Q, 2930, sampling="poisson"),
                                       epsilon=3, delta=sp.Rational(1, 10**5)))
    out(f"Calibration: sigma = {float(c.value):.6f} for (3, 1e-5)-DP over 2930 steps "
        f"(sigma = {float(c.other):.6f} fails), {c.probes} probes, {t3:.1f} s.")
    out()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="skip dp_accounting at 1e-5")
    ap.add_argument("--write", metavar="PATH")
    a = ap.parse_args()
    out("# Composition benchmark")
    out()
    out(run_line(f"python benchmarks/bench_composition.py{' --quick' if a.quick else ''}",
                 ("dp-accounting", "prv-accountant", "numpy", "scipy")))
    out()
    dpsgd(a.quick)
    pure_dp()
    laplace()
    tails()
    curve()
    generic()
    long_run(a.quick)
    practice(a.quick)
    REPORT.write(a.write)


if __name__ == "__main__":
    main()
