"""tradeoff_algebra: a computer algebra for hypothesis-testing trade-off functions (f-DP).

Build a privacy guarantee as an expression (``G(1) @ EpsDelta(1, 0)``), evaluate it to the digits
you ask for (``evaluate``), get the attacker's power without cancellation (``roc``), plot it
(``f.curve``) and print it in the papers' notation (``latex``).
"""

from . import families
from .accountant import Accountant
from .analysis import (
                   advantage,
                   auc,
                   bayes_risk,
                   chi2_plus,
                   delta,
                   epsilon,
                   estimators,
                   f_divergence,
                   fixed_point,
                   gdp_mu,
                   hockey_stick,
                   kappa2,
                   kappa3,
                   kappa3_bar,
                   kl,
                   noise,
                   primal_value,
                   primal_value_lower,
                   renyi,
                   sensitivity,
                   sup_distance,
                   tv,
)
from .analysis.lazy import Functional
from .audit import Audit, OneRunAudit, audit, audit_counts, audit_one_run
from .bounds import (
                   BerryEsseen,
                   DPGDInit,
                   GaussianJoint,
                   advanced_joint_concavity,
                   berry_esseen,
                   dpgd_random_init,
                   fmt_delta,
                   fmt_epsilon,
                   fmt_tradeoff,
                   iteration_zcdp,
                   joint_concavity,
                   mixture_pair,
)
from .calibration import Calibration, calibrate
from .core import (
                   Applied,
                   EstimateWarning,
                   InternalError,
                   InvalidParameter,
                   NoClosedForm,
                   NumericalError,
                   Phi,
                   PhiInv,
                   ToleranceWarning,
                   TradeOff,
                   TradeOffError,
                   TradeOffExpr,
                   alpha_symbol,
)
from .core.symbol import TradeOffSymbol
from .families import *  # noqa: F403  (every family: families/__init__.py lists them)
from .families import symbol_instances as _symbol_instances  # noqa: F401  (registers them)
from .families.renyi_region import RenyiRegion
from .interop import from_dp_event
from .mechanisms import (
                   discrete_gaussian,
                   discrete_laplace,
                   exponential_mechanism,
                   gaussian_mechanism,
                   gaussian_sigma,
                   laplace_mechanism,
                   noisy_sgd,
                   randomized_response,
                   report_noisy_max,
                   sensitivity_index,
                   shuffle,
                   skellam,
)
from .notions import (
                   GDP,
                   RDP,
                   ApproxDP,
                   Notion,
                   advanced_composition,
                   amplified_epsilon,
                   from_privacy_profile,
                   sampling_rate,
                   tCDP,
                   zCDP,
)
from .numeric import Value, curve, evaluate, roc
from .numeric.budget import TimeLimitExceeded, time_limit
from .numeric.pld import pld_options
from .numeric.pld_profile import profile_options
from .operators import (
                   AddRemove,
                   C,
                   Conjugate,
                   Group,
                   Inverse,
                   Max,
                   Mix,
                   Shift,
                   Subsample,
                   SymmetricHull,
                   Symmetrize,
                   Tensor,
                   TensorPower,
                   conjugate_value,
)
from .plot import plot
from .printing import latex, text
from .rewrite import (
                   Approximation,
                   Derivation,
                   approx,
                   bound,
                   derive,
                   rule_catalogue,
                   rules,
                   simplify,
)
from .routes import product as _product_routes  # noqa: F401  (registers the routes)
from .sweep import sweep
from .verify import (
                   Limit,
                   Verdict,
                   is_member,
                   is_not_member,
                   is_not_tradeoff,
                   is_tradeoff,
                   verify,
                   verify_limit,
)

__version__ = "0.1.0"

__all__ = [
    "TradeOff", "TradeOffExpr", "Applied", "alpha_symbol", "TradeOffSymbol",
    "TradeOffError", "InvalidParameter", "NoClosedForm", "NumericalError", "InternalError",
    "TimeLimitExceeded",
    "Phi", "PhiInv",
    *families.__all__,  # every family, from the one list in families/__init__.py
    "Tensor", "TensorPower", "Inverse", "Symmetrize", "SymmetricHull", "Mix", "Subsample", "C",
    "Max", "Group", "Conjugate", "conjugate_value",
    "gaussian_mechanism", "laplace_mechanism", "noisy_sgd", "shuffle", "discrete_gaussian",
    "discrete_laplace", "skellam", "randomized_response", "exponential_mechanism",
    "report_noisy_max",
    "Value", "pld_options", "profile_options", "time_limit", "evaluate", "roc", "curve",
    "latex", "text",
    "simplify", "derive", "Derivation", "rules", "rule_catalogue", "bound", "approx",
    "Approximation", "berry_esseen", "BerryEsseen", "DPGDInit", "dpgd_random_init",
    "GaussianJoint", "joint_concavity", "mixture_pair", "advanced_joint_concavity",
    "fmt_epsilon", "fmt_delta", "fmt_tradeoff", "iteration_zcdp",
    "delta", "epsilon", "from_privacy_profile", "primal_value", "primal_value_lower",
    "kl", "kappa2", "kappa3", "kappa3_bar", "chi2_plus", "tv", "auc", "fixed_point",
    "verify", "Verdict", "Limit", "verify_limit", "is_tradeoff", "is_not_tradeoff", "is_member",
    "is_not_member", "Functional", "sup_distance", "gdp_mu",
    "renyi", "hockey_stick", "f_divergence",
    "Notion", "ApproxDP", "GDP", "RDP", "zCDP", "tCDP", "advanced_composition", "RenyiRegion",
    "sensitivity_index", "gaussian_sigma", "amplified_epsilon", "sampling_rate",
    "AddRemove", "Shift", "ToleranceWarning", "EstimateWarning", "calibrate", "Calibration", "plot",
    "from_dp_event", "advantage",
    "bayes_risk",
    "Accountant",
    "audit", "audit_counts", "audit_one_run", "Audit", "OneRunAudit", "sweep",
    "noise", "sensitivity", "estimators",
]
