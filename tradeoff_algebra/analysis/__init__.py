"""Analysis: conversions between f-DP and (eps, delta)-DP, and the functionals of Dong, Roth &
Su (kl, kappa_2, kappa_3, bar kappa_3, chi^2_+, fixed point, total variation, AUC), and the
divergences of a trade-off function (Renyi, hockey-stick, F-divergences)."""

from .conversions import delta, epsilon
from .distance import sup_distance
from .divergences import f_divergence, hockey_stick
from .functionals import auc, chi2_plus, fixed_point, kappa2, kappa3, kappa3_bar, kl, tv
from .gdp_mu import gdp_mu
from .primal import primal_value, primal_value_lower
from .renyi import renyi
from .risk import advantage, bayes_risk

__all__ = ["delta", "epsilon", "primal_value", "primal_value_lower",
           "kl", "kappa2", "kappa3", "kappa3_bar", "chi2_plus", "tv", "auc", "fixed_point",
           "sup_distance", "renyi", "hockey_stick", "f_divergence", "advantage", "bayes_risk",
           "gdp_mu"]
