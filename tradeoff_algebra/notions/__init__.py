"""Privacy notions other than f-DP as objects: (eps, delta)-DP, GDP, RDP, zCDP, tCDP, with their
composition, group privacy and conversions (see each module's docstring for the theorems)."""

from .approx import (
    ApproxDP,
    advanced_composition,
    amplified_epsilon,
    from_privacy_profile,
    sampling_rate,
)
from .base import Notion
from .concentrated import tCDP, zCDP
from .gdp import GDP
from .renyi_dp import RDP, rdp_to_delta, rdp_to_epsilon

__all__ = ["Notion", "ApproxDP", "GDP", "RDP", "zCDP", "tCDP", "advanced_composition",
           "rdp_to_epsilon", "rdp_to_delta", "amplified_epsilon", "sampling_rate",
           "from_privacy_profile"]
