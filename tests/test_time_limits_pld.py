"""The PLD engine's grids under a time limit: a discretisation checks the limit between chunks
of its distribution functions and between its phases, and one that cannot end before the
limit is refused at once (numeric/pld_grid.py, ``_Pace``; numeric/progress.py,
``ensure_time``). PoissonReplace's loss at h = 2^-19 is 8 x 10^6 grid points (scipy's ndtr on
each, seconds to tens of seconds); it ran unchecked past the limit by up to 10 s.

The limit is checked by the limit firing (TimeLimitExceeded), never by measuring seconds.
"""

from __future__ import annotations

import math
import time
import warnings

import numpy as np
import pytest
import sympy as sp
from references.routes import decline_inversion

import tradeoff_algebra as ta
from tradeoff_algebra.families.poisson_replace import PoissonReplaceLoss
from tradeoff_algebra.numeric import budget, pld, pld_compose, pld_grid, progress

R = sp.Rational
#: 8 x 10^6 grid points (MAX_GRID is 2^23): its distribution functions alone take seconds
BIG_H = 2.0**-19


def _model() -> PoissonReplaceLoss:
    """The loss model, its distribution functions called once (scipy imported)."""
    m = PoissonReplaceLoss(1.0, 0.1)
    m.cdf(np.zeros(4), "P")
    return m


def test_the_grid_is_as_large_as_the_tests_say():
    lo, hi = _model().support(pld_grid.DEFAULT_TAIL)
    n = math.ceil(hi / BIG_H) - math.floor(lo / BIG_H)
    assert 6 * 10**6 < n <= pld_grid.MAX_GRID


def test_a_discretisation_that_cannot_fit_is_refused_at_once(monkeypatch):
    """The rate of the second chunk puts the rest beyond a limit of 2 s: refused with the
    estimate in the message (after two chunks of the evaluations, not at their end). Each chunk
    of the distribution functions is slowed by 0.05 s (a sleep around the model's ``cdf``), so
    the rest (over 200 chunks) is estimated at more than 10 s whatever the machine's load or a
    warm worker's speed: the estimate, not the clock, decides the outcome (unslowed, a warm
    worker's second chunk could put the rest just inside the limit, and the grid then ran to
    the limit instead)."""
    model = _model()
    cdf = model.cdf
    chunks = []

    def slowed(t, which, left=False):
        chunks.append(len(t))
        time.sleep(0.05)
        return cdf(t, which, left)

    monkeypatch.setattr(model, "cdf", slowed)
    with pytest.raises(ta.TimeLimitExceeded, match="would take about"):
        with ta.time_limit(2), budget.call("the test's grid"):
            pld_grid.discretise(model, BIG_H)
    assert len(chunks) == 2 and chunks[0] == pld_grid.CHUNK


def test_a_discretisation_checks_the_limit_between_chunks(monkeypatch):
    """Without the estimate, the checks between chunks stop it at the limit. The limit's clock
    passes every deadline once three chunks of the distribution functions are done (a clock
    driven by the work, not the load: at 0.5 s of wall time a loaded machine could reach the
    limit before the second chunk), and the discretisation stops right there, long before its
    end (about 500 chunks)."""
    seen = []
    monkeypatch.setattr(pld_grid, "ensure_time", lambda *a, **k: seen.append(a))
    model = _model()
    calls = []
    cdf = model.cdf

    def counted(t, which, left=False):
        calls.append(len(t))
        return cdf(t, which, left)

    monkeypatch.setattr(model, "cdf", counted)
    real = time.monotonic

    class Clock:
        @staticmethod
        def monotonic() -> float:
            return real() + (1e9 if len(calls) >= 3 else 0.0)

    monkeypatch.setattr(budget, "time", Clock)
    with pytest.raises(ta.TimeLimitExceeded) as e:
        with ta.time_limit(600), budget.call("the test's grid"):
            pld_grid.discretise(model, BIG_H)
    assert len(calls) == 3 and calls[0] == pld_grid.CHUNK
    assert seen and "would take" not in str(e.value)


def test_ensure_time_passes_what_fits_and_nothing_outside_a_call():
    progress.ensure_time(1e9, "anything")  # (no call: no deadline)
    with ta.time_limit(100), budget.call("the test"):
        progress.ensure_time(0.01, "a short phase")
    with pytest.raises(ta.TimeLimitExceeded, match="a long phase would take about 1e") as e:
        with ta.time_limit(100), budget.call("the test"):
            progress.ensure_time(1e3, "a long phase", best=(0.0, 1.0))
    assert e.value.best == (0.0, 1.0) and e.value.seconds == 100


def test_a_small_grid_is_not_refused():
    """A grid of a few thousand points (one chunk) under a generous limit: the factor."""
    with ta.time_limit(60), budget.call("the test's grid"):
        fac = pld_grid.discretise(_model(), 2.0**-8)
    assert fac.pess.arr.sum() > 0.99


def test_poisson_replace_refinement_stops_with_its_best_enclosure(monkeypatch):
    """eps(1e-10) of PoissonReplace(1, 1/10)^3 at tol 1e-9 on the PLD engine (the Laplace
    inversion declined: it certifies this power now) refines down to grids of 4 x 10^6 points
    (tens of seconds): under a limit of 2 s it ends in TimeLimitExceeded carrying an enclosure
    that meets the one of the default tolerance (both contain eps)."""
    decline_inversion(monkeypatch)
    f = _power3()
    with ta.pld_options(tol=1e-9), ta.time_limit(2), pytest.raises(ta.TimeLimitExceeded) as e:
        ta.epsilon(f, "1e-10")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with ta.time_limit(30):
            ref = ta.epsilon(f, "1e-10")
    if e.value.best is not None:
        lo, hi = e.value.best
        assert lo <= hi and max(lo, ref.lo) <= min(hi, ref.hi)


def _power3():
    return ta.PoissonReplace(1, R(1, 10)) ** 3


def test_a_composition_that_cannot_fit_is_refused_at_once(monkeypatch):
    """100 distinct discrete Gaussians whose transforms are made to take 0.1 s each (numpy's
    rfft wrapped with a sleep): 200 transforms, about 20 s, against a limit of 8 s. The mean
    time of the transforms after the first (checked after the 2nd, 3rd, 5th, ...) puts the rest
    beyond the limit: refused at once with the estimate in the message, long before the limit
    (the factors are discretised before it). The slowed transform makes the estimate, not the
    machine's load, decide the outcome (a real 400-factor composition now fits in 1.7 s)."""
    models = [pld.leaf_model(ta.DiscreteGaussian(1, 10 + R(i, 10))) for i in range(1, 101)]
    facs = [(pld_grid.discretise(m, 2.0**-12), 1) for m in models]
    rfft = np.fft.rfft

    def slow_rfft(*args, **kwargs):
        time.sleep(0.1)
        return rfft(*args, **kwargs)

    monkeypatch.setattr(np.fft, "rfft", slow_rfft)
    with pytest.raises(ta.TimeLimitExceeded, match="composing 100 distinct factors"):
        with ta.time_limit(8), budget.call("the test's composition"):
            pld_compose.compose(facs)
