"""epsilon(delta = 1e-6) of the lattice mechanisms (DiscreteLaplace, Skellam), alone, ten-fold
and with G(1), side by side with dp_accounting's PLD (pessimistic, value discretisation 1e-4):
``from_discrete_laplace_mechanism(1/t, sensitivity)`` for the discrete Laplace, and for the
Skellam ``from_two_probability_mass_functions`` over the pmf e^{-2 mu} I_|x|(2 mu) (scipy's
``ive``, the window holding all but 1e-30), ``self_compose(10)`` and ``compose`` with
``from_gaussian_mechanism(1.0)`` (G(1)). Ours: ``ta.epsilon`` at 8 digits with its guarantee
(certified, or the PLD engine's estimate enclosure).

    python benchmarks/bench_new_mechanisms_lattice.py \
        [--write benchmarks/RESULTS_new_mechanisms_lattice.md]
"""

from __future__ import annotations

import argparse
import math
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import sympy as sp  # noqa: E402

import tradeoff_algebra as ta  # noqa: E402

DELTA = sp.Rational(1, 10**6)
CASES = [("DiscreteLaplace", 1, sp.Rational(1, 2)), ("DiscreteLaplace", 3, sp.Rational(2)),
         ("DiscreteLaplace", 2, 1 / sp.log(2)), ("Skellam", 1, sp.Integer(5)),
         ("Skellam", 2, sp.Integer(50))]


def ours(f) -> str:
    v = ta.epsilon(f, DELTA, dps=8)
    if v.lo == v.hi:
        return f"{float(v.mid):.6f} ({v.guarantee})"
    return f"[{float(v.lo):.6f}, {float(v.hi):.6f}] ({v.guarantee})"


def peer(name: str, d: int, par):
    try:
        from dp_accounting.pld import privacy_loss_distribution as pld
    except ImportError:
        return None
    if name == "DiscreteLaplace":
        one = pld.from_discrete_laplace_mechanism(float(1 / par), sensitivity=d,
                                                  value_discretization_interval=1e-4)
    else:
        from scipy.special import ive
        mu = float(par)
        K = int(mu + 20 * math.sqrt(2 * mu) + 40)
        logp = {x: math.log(ive(abs(x), 2 * mu)) for x in range(-K, K + 1)}
        lower = {x: v for x, v in logp.items()}
        upper = {x + d: v for x, v in logp.items()}
        one = pld.from_two_probability_mass_functions(lower, upper,
                                                      value_discretization_interval=1e-4)
    g = pld.from_gaussian_mechanism(1.0, value_discretization_interval=1e-4)
    return {"f": one, "f**10": one.self_compose(10), "f @ G(1)": one.compose(g)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--write")
    args = ap.parse_args()
    rows = []
    for name, d, par in CASES:
        f = getattr(ta, name)(d, par)
        peers = peer(name, d, par)
        for label, g in (("f", f), ("f**10", f**10), ("f @ G(1)", f @ ta.G(1))):
            theirs = ("not installed" if peers is None else
                      f"{peers[label].get_epsilon_for_delta(float(DELTA)):.6f}")
            rows.append(f"| `{f}` | {label} | {ours(g)} | {theirs} |")
            print(rows[-1], flush=True)
    text = ("# epsilon(1e-6) of the lattice mechanisms: this library and dp_accounting\n\n"
            "Written by `python benchmarks/bench_new_mechanisms_lattice.py --write ...`. "
            "dp_accounting's PLD is pessimistic (an upper estimate) at value discretisation "
            "1e-4; ours names its guarantee.\n\n"
            "| mechanism | expression | ours | dp_accounting |\n|---|---|---|---|\n"
            + "\n".join(rows) + "\n")
    if args.write:
        with open(args.write, "w") as fh:
            fh.write(text)


if __name__ == "__main__":
    main()
