"""Bounds and limits as results: inequalities and asymptotic statements of the seed papers.

Each module owns one theorem family and returns trade-off expressions (or scalars) that are
guaranteed bounds (``lower``/``upper``) or stated approximations (``approx``), with the citation
of the statement they come from.
"""

from .berry_esseen import BerryEsseen, berry_esseen
from .clt import clt_epsdelta, clt_mu, clt_subsampled
from .initialisation import DPGDInit, dpgd_random_init
from .iteration import iteration_zcdp, noisy_sgd_iteration_zcdp
from .mixtures import (
    GaussianJoint,
    advanced_joint_concavity,
    joint_concavity,
    mixture_pair,
    prop64_bound,
    prop64_printed,
    shuffle_mixture,
)
from .shuffling import fmt_delta, fmt_epsilon, fmt_tradeoff

__all__ = ["BerryEsseen", "berry_esseen", "clt_mu", "clt_epsdelta", "clt_subsampled",
           "DPGDInit", "dpgd_random_init", "GaussianJoint", "advanced_joint_concavity",
           "joint_concavity", "mixture_pair", "prop64_bound", "prop64_printed",
           "shuffle_mixture", "fmt_delta", "fmt_epsilon", "fmt_tradeoff", "iteration_zcdp",
           "noisy_sgd_iteration_zcdp"]
