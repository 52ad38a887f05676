"""A bracket of the power 1 - f(alpha) of the Poisson-subsampled Laplace mechanism composed T
times (the symmetric hull AddRemove(Mix(Laplace(1/b), q)^T)) from dp_accounting's optimistic and
pessimistic PLD pair, as ``references.dpsgd_power`` does for DP-SGD: 1 - f(alpha) =
inf_eps delta(eps) + e^eps alpha (Dong, Roth & Su, Prop. 6), the upper end the least value on a
grid of eps from the pessimistic PLD, the lower end the convex lower bound of the optimistic
one's (``dpsgd_power.pld_power_bracket``). Nothing here imports ``tradeoff_algebra``; float64
values of float64 PLDs (not proved): tests allow a relative 1e-9 of slack."""

from __future__ import annotations

from references.dpsgd_power import pld_power_bracket


def sampled_laplace_power_bracket(b: float, q: float, T: int, alphas, grid: float = 1e-5,
                                  eps_max: float = 8.0, points: int = 4001
                                  ) -> list[tuple[float, float]]:
    """[(lower, upper)] of the power at each level (module docstring), eps on [0, eps_max]
    (the minimiser must lie inside: checked)."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    opt, pess = (pld.from_laplace_mechanism(b, sensitivity=1, sampling_prob=q,
                                            pessimistic_estimate=p,
                                            value_discretization_interval=grid,
                                            use_connect_dots=p).self_compose(T)
                 for p in (False, True))
    return pld_power_bracket(opt, pess, alphas, eps_max, points)
