"""from_dp_event: dp_accounting's event trees as trade-off expressions. The mapping is checked on
stand-in event objects (the reader goes by class names and fields, so the suite needs no
dp_accounting), and against dp_accounting's own PLD accountant where it is installed."""

from __future__ import annotations

import pytest
import sympy as sp
from precision import close

import tradeoff_algebra as ta
from tradeoff_algebra import G, Laplace, Mix

R = sp.Rational


def event(name, **fields):
    return type(name, (), fields)()


def test_mapping_on_stand_in_events():
    g = event("GaussianDpEvent", noise_multiplier=2)
    assert ta.from_dp_event(g) == G(R(1, 2))
    assert ta.from_dp_event(event("LaplaceDpEvent", noise_multiplier=R(1, 3))) == Laplace(3)
    assert ta.from_dp_event(event("GaussianDpEvent", noise_multiplier=0)) == ta.Zero
    rr = ta.from_dp_event(event("RandomizedResponseDpEvent", noise_parameter=R(1, 2),
                                num_buckets=4))
    # a change moves one record between two buckets: ratio (1 - p + p/k)/(p/k) = 5
    assert close(ta.epsilon(rr, 0, dps=30), sp.log(5), 28)
    ps = event("PoissonSampledDpEvent", sampling_probability=R(1, 100), event=g)
    assert ta.from_dp_event(ps) == ta.AddRemove(Mix(G(R(1, 2)), R(1, 100)))
    sc = event("SelfComposedDpEvent", event=ps, count=50)
    assert ta.from_dp_event(sc) == ta.AddRemove(Mix(G(R(1, 2)), R(1, 100)) ** 50)
    comp = event("ComposedDpEvent", events=[sc, g])
    assert ta.from_dp_event(comp) == ta.AddRemove(G(R(1, 2)) @ Mix(G(R(1, 2)), R(1, 100)) ** 50)
    wor = event("SampledWithoutReplacementDpEvent", source_dataset_size=1000, sample_size=10,
                event=g)
    assert ta.from_dp_event(wor) == ta.C(R(1, 100), G(R(1, 2)))
    assert ta.from_dp_event(event("NoOpDpEvent")) == ta.Id
    assert ta.from_dp_event(event("NonPrivateDpEvent")) == ta.Zero
    z = ta.from_dp_event(event("ZCDpEvent", rho=R(1, 2), xi=0))
    assert isinstance(z, ta.RenyiRegion)
    with pytest.raises(ta.InvalidParameter, match="RepeatAndSelectDpEvent"):
        ta.from_dp_event(event("RepeatAndSelectDpEvent", event=g, mean=10, shape=1))
    assert ta.from_dp_event(event("SingleEpochTreeAggregationDpEvent", noise_multiplier=2,
                                  step_counts=7)) == G(sp.sqrt(3) / 2)


@pytest.mark.slow  # over 7 s alone: the CI job -m slow runs it
def test_against_dp_accounting():
    dpa = pytest.importorskip("dp_accounting")
    from dp_accounting.pld import pld_privacy_accountant as pa

    cases = [
        dpa.GaussianDpEvent(1.3),
        dpa.LaplaceDpEvent(2.0),
        dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(1.0)), 500),
        dpa.ComposedDpEvent([
            dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(1.0)),
                                    300),
            dpa.GaussianDpEvent(5.0), dpa.LaplaceDpEvent(10.0)]),
    ]
    for ev in cases:
        acc = pa.PLDAccountant(value_discretization_interval=1e-5)
        acc.compose(ev)
        ref = acc.get_epsilon(1e-5)
        e = ta.epsilon(ta.from_dp_event(ev), R(1, 10**5), dps=8)
        # dp_accounting's pessimistic grid value lies at or just above the exact one
        assert e.lo <= ref <= float(e.hi) * (1 + 2e-4) + 1e-6, (ev, e, ref)


def test_opacus_style_accountant():
    from tradeoff_algebra.opacus_accountant import TradeoffAccountant, register

    acc = TradeoffAccountant()
    for _ in range(300):
        acc.step(noise_multiplier=1.0, sample_rate=0.01)
    for _ in range(100):
        acc.step(noise_multiplier=2.0, sample_rate=0.01)
    assert len(acc) == 400 and acc.history == [(1.0, 0.01, 300), (2.0, 0.01, 100)]
    f = ta.noisy_sgd(1.0, 0.01, 300, sampling="poisson") @ ta.noisy_sgd(2.0, 0.01, 100,
                                                                        sampling="poisson")
    ref = ta.epsilon(f, R(1, 10**5), dps=8)
    eps = acc.get_epsilon(1e-5)
    assert float(ref.hi) <= eps <= float(ref.hi) * (1 + 1e-12)  # the certified upper end
    state = acc.state_dict()
    other = TradeoffAccountant()
    other.load_state_dict(state)
    assert other.history == acc.history
    assert register() in (True, False)  # True only where Opacus has a registry


def test_new_mechanism_events_against_dp_accounting():
    """Randomized response (dp_accounting reads it under REPLACE_ONE only) and the
    Poisson-subsampled Laplace mechanism: epsilon of the library's exact expression against
    dp_accounting's pessimistic PLD value."""
    dpa = pytest.importorskip("dp_accounting")
    from dp_accounting.pld import pld_privacy_accountant as pa
    from dp_accounting.privacy_accountant import NeighboringRelation as NR

    from tradeoff_algebra.interop import to_dp_event
    from tradeoff_algebra.mechanisms import laplace_mechanism, randomized_response

    rr = dpa.SelfComposedDpEvent(dpa.RandomizedResponseDpEvent(0.5, 4), 20)
    f = ta.from_dp_event(rr)
    assert f == randomized_response(sp.log(5), 4) ** 20
    assert ta.from_dp_event(rr, neighbours="replace_one") == f
    assert to_dp_event(f) == rr
    lap = dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(0.1, dpa.LaplaceDpEvent(2.0)), 50)
    g = ta.from_dp_event(lap)
    assert g == laplace_mechanism(1, 2, "poisson", 0.1) ** 50
    assert to_dp_event(g) == lap
    # dp_accounting 0.6.0's PLD accountant drops the count of a self-composed randomized
    # response (it accounts SelfComposedDpEvent(RR, 20) as one RR): its reference is the
    # ComposedDpEvent of 20 copies, which it accounts in full
    rr20 = dpa.ComposedDpEvent([dpa.RandomizedResponseDpEvent(0.5, 4)] * 20)
    for ev, rel, f_ in ((rr20, NR.REPLACE_ONE, f), (lap, NR.ADD_OR_REMOVE_ONE, g)):
        acc = pa.PLDAccountant(neighboring_relation=rel, value_discretization_interval=1e-5)
        acc.compose(ev)
        ref = acc.get_epsilon(1e-6)
        e = ta.epsilon(f_, R(1, 10**6), dps=8)
        assert e.lo <= ref <= float(e.hi) * (1 + 2e-3) + 1e-5, (ev, e, ref)
