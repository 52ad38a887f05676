"""TradeoffAccountant against Opacus's own accountants and dp_accounting, on one history.

For each configuration the same Opacus history ``(noise_multiplier, sample_rate, steps)`` is
given to ``TradeoffAccountant`` (certified upper end), Opacus's ``"rdp"`` and ``"prv"``
accountants (their ``get_epsilon``; for PRV also its lower end and estimate) and, when
installed, dp_accounting's PLD accountant at two grid widths. Times are wall times of one
``get_epsilon`` call after one warm-up call of each (so caches and imports are excluded).

    pip install torch==2.13.0 && pip install opacus --no-deps && pip install opt_einsum
    python benchmarks/opacus_check.py [--delta 1e-5]
"""

from __future__ import annotations

import argparse
import time
import warnings

CONFIGS = [
    ("sigma 1.0, q 512/50000, 100 steps", [(1.0, 512 / 50000, 100)]),
    ("sigma 1.0, q 512/50000, 30 epochs (2930 steps)", [(1.0, 512 / 50000, 2930)]),
    ("two phases: sigma 1.0 x 60, sigma 2.0 x 40, q 512/50000",
     [(1.0, 512 / 50000, 60), (2.0, 512 / 50000, 40)]),
]


def timed(fn):
    fn()
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def rows(history, delta):
    from opacus.accountants import PRVAccountant, RDPAccountant

    from tradeoff_algebra.opacus_accountant import TradeoffAccountant

    def opacus_eps(cls):
        acc = cls()
        acc.history = list(history)
        return acc.get_epsilon(delta)

    out = [("tradeoff (certified upper end)",) + timed(lambda: opacus_eps(TradeoffAccountant)),
           ("opacus rdp",) + timed(lambda: opacus_eps(RDPAccountant)),
           ("opacus prv (upper)",) + timed(lambda: opacus_eps(PRVAccountant))]
    prv = PRVAccountant()
    prv.history = list(history)
    lo, mid, _ = prv._get_dprv(eps_error=0.01, delta_error=delta / 1000).compute_epsilon(
        delta, delta / 1000, 0.01)
    out.append(("opacus prv lower / estimate", f"{float(lo):.6f} / {float(mid):.6f}", None))
    try:
        from dp_accounting import dp_event as de
        from dp_accounting.pld import PLDAccountant
    except ImportError:
        return out
    event = de.ComposedDpEvent([
        de.SelfComposedDpEvent(de.PoissonSampledDpEvent(q, de.GaussianDpEvent(s)), n)
        for s, q, n in history])
    for vdi in (1e-3, 1e-4):
        def pld(vdi=vdi):
            acc = PLDAccountant(value_discretization_interval=vdi)
            acc.compose(event)
            return acc.get_epsilon(delta)
        out.append((f"dp_accounting PLD, grid {vdi:g}",) + timed(pld))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--delta", type=float, default=1e-5)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    import opacus
    import torch

    print(f"torch {torch.__version__}, opacus {opacus.__version__}, delta {args.delta:g}")
    for name, history in CONFIGS:
        print(f"\n{name}\n")
        print("| accountant | epsilon | time |\n| --- | ---: | ---: |")
        for label, eps, secs in rows(history, args.delta):
            e = eps if isinstance(eps, str) else f"{eps:.6f}"
            print(f"| {label} | {e} | {'' if secs is None else f'{secs * 1e3:.0f} ms'} |")


if __name__ == "__main__":
    main()
