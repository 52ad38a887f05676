"""The verdicts of Kaissis et al.'s claims about queries, tests and the privacy-loss random
variable (used by ``claims_kaissis``): global sensitivity by exact enumeration
(``analysis.sensitivity``), the Gaussian mechanism over adjacent pairs, the loss from its
definition, the error rates of every test on a finite pair, the binormal AUC by Arb quadrature.

The queries map multisets over {0, 1, 2} of size at most 3 (add/remove adjacency, d_X the path
metric) to R^d: the histogram of the three values, an additive query (the sum of the vectors
(1, 0), (-1/2, 0), (0, 3/4) of the elements) and a non-additive one, (#0 #1, |D|), whose
L2-sensitivity is sqrt 5 (adding a 0 to {1, 1}).
"""

from __future__ import annotations

import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.analysis import sensitivity as sens

from .mechanism_checks import binormal_auc_ends, error_rates, gaussian_loss_mgf

R = sp.Rational
U3 = (0, 1, 2)
N3 = 3
_VEC = {0: (1, 0), 1: (R(-1, 2), 0), 2: (0, R(3, 4))}
QUERIES = {
    "histogram": sens.histogram_query([lambda u, c=c: u == c for c in U3]),
    "additive": lambda x: [sum(_VEC[u][i] for u in x) for i in (0, 1)],
    "product": lambda x: [x.count(0) * x.count(1), len(x)],
}
#: The L2 global sensitivities derived by hand: one cell by one; the longest element vector;
#: adding a 0 to {1, 1} moves (#0 #1, |D|) by (2, 1).
HAND = {"histogram": 1, "additive": 1, "product": sp.sqrt(5)}
SIGMA = R(1, 2)


def def1():
    """Eq. (1): the Lipschitz constant over all pairs (d_X the path metric) is the value derived
    by hand, for the three queries."""
    return [ta.verify(sens.lipschitz_constant(q, U3, N3, p=2)[0], "==", HAND[name])
            for name, q in QUERIES.items()]


def eq2():
    """Eq. (1) = Eq. (2): the Lipschitz constant equals the largest distance over adjacent
    pairs, in L2 and L1."""
    return [ta.verify(sens.lipschitz_constant(q, U3, N3, p=pp)[0], "==",
                      sens.sensitivity(q, U3, N3, p=pp)[0])
            for q in QUERIES.values() for pp in (1, 2)]


def _differences(q):
    """The distinct |f(D) - f(D')| (coordinatewise) over adjacent pairs."""
    out = set()
    for x, y in sens.adjacent_pairs(U3, N3):
        fx, fy = q(x), q(y)
        out.add(tuple(abs(sp.sympify(a) - b) for a, b in zip(fx, fy, strict=True)))
    return sorted(out)


def _gm_pair(diff):
    """T(N(f(D), sigma^2 I), N(f(D'), sigma^2 I)) as the product of its coordinate pairs."""
    pairs = [ta.NormalPair(0, SIGMA, d, SIGMA) for d in diff if d != 0]
    out = pairs[0]
    for pr in pairs[1:]:
        out = out @ pr
    return out


def def5():
    """The GM f(D) + N(0, sigma^2 I) on the product query is G_{Delta_2/sigma}-DP: every
    adjacent pair's trade-off function is >= G_{sqrt 5/sigma}, with equality at the pair that
    attains the sensitivity."""
    q = QUERIES["product"]
    delta2 = sens.sensitivity(q, U3, N3, p=2)[0]
    g = ta.G(delta2 / SIGMA)
    out = [ta.verify(_gm_pair(d), ">=", g) for d in _differences(q)]
    worst = max(_differences(q), key=lambda d: sum(v**2 for v in d))
    return out + [ta.verify(_gm_pair(worst), "==", g)]


def eq26():
    """||f(D) - f(D')||_2/sigma <= Delta_2/sigma = psi over every adjacent pair, for the three
    queries (Delta_2 by Eq. (2))."""
    out = []
    for q in QUERIES.values():
        d2 = sens.sensitivity(q, U3, N3, p=2)[0]
        for d in _differences(q):
            out.append(ta.verify(sp.sqrt(sum(v**2 for v in d)) / SIGMA, "<=", d2 / SIGMA))
    return out


def loss_definition():
    """Eq. (8) with f(D) = 0, f(D') = Delta: Omega(O) = (Delta^2 - 2 Delta O)/(2 sigma^2) from the
    densities, and its MGF under O ~ N(0, sigma^2) is that of N(psi^2/2, psi^2)."""
    delta, sigma = sp.symbols("Delta sigma", positive=True)
    o = sp.Symbol("o", real=True)
    loss, mgf, normal = gaussian_loss_mgf(delta, sigma)
    return [ta.verify(loss, "==", (delta**2 - 2 * delta * o) / (2 * sigma**2)),
            ta.verify(mgf, "==", normal)]


P3 = (R(1, 5), R(1, 2), R(3, 10))
Q3 = (R(2, 5), R(2, 5), R(1, 5))


def error_rate_identities():
    """Every deterministic test and one randomised test on T(P, Q): TNR + FPR = FNR + TPR = 1,
    and (FPR, FNR) lies on or above the trade-off function T(P, Q)."""
    f = ta.Discrete(list(P3), list(Q3))
    tests = [(a, b, c) for a in (0, 1) for b in (0, 1) for c in (0, 1)] + [(R(1, 3), R(1, 2), 1)]
    out = []
    for _, fpr, tnr, tpr, fnr in error_rates(P3, Q3, tests):
        out += [ta.verify(tnr + fpr, "==", 1), ta.verify(fnr + tpr, "==", 1),
                ta.verify(fnr, ">=", f(fpr))]
    return out


BINORMAL = ((R(3, 4), R(1, 4)), (1, 2), (R(1, 2), 3))


def binormal_auc():
    """The closed form Phi(a/sqrt(1 + b^2)) lies in the certified enclosure (width <= 1e-25) of
    the area under Phi(a + b PhiInv(t)) by Arb quadrature."""
    out = []
    for a, b in BINORMAL:
        lo, hi = binormal_auc_ends(a, b)
        closed = ta.Phi(a / sp.sqrt(1 + sp.sympify(b) ** 2))
        out += [ta.verify(closed, ">=", lo), ta.verify(closed, "<=", hi),
                ta.verify(hi - lo, "<=", R(1, 10**25))]
    return out
