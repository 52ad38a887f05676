"""The Accountant against independent references.

* DP-SGD: an accountant fed T Poisson-sampled Gaussian steps (one at a time, as a power, as
  DpEvents) holds exactly ``noisy_sgd(sigma, q, T, "poisson")`` and gives the same epsilon; for
  T = 1 the epsilon encloses the root of the sampled Gaussian's closed-form profile (both
  directions, written here with mpmath).
* Gaussians: G_mu^{(x) n} = G_{sqrt(n) mu} (Dong, Roth & Su, Cor. 2); the epsilon encloses the
  root of Cor. 1's delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2), found here by
  bisection at 40 digits.
* Laplace: delta of L_mu (x) L_mu by a one-dimensional integral over the first loss of the
  single pair's closed form 1 - e^{(t - mu)/2} (derived in ``_lap1``).
* State: JSON and pickle round trips give equal accountants, expressions and values; every
  node example of the package survives JSON.
* DpEvents: ``to_dp_event``/``from_dp_event`` round trips with stand-in event classes of
  dp_accounting's names and fields (always) and with dp_accounting itself (when installed).
"""

from __future__ import annotations

import dataclasses
import json
import math
import pickle
import types
from fractions import Fraction
from typing import Any

import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.accountant import Accountant, _decode, _encode
from tradeoff_algebra.interop import to_dp_event
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.opacus_accountant import TradeoffAccountant

DELTA = sp.Rational(1, 10**5)


# ------------------------------------------------------------------------------------------
# stand-in DpEvent classes: dp_accounting's class names and fields
# ------------------------------------------------------------------------------------------
def _event_class(name: str, *fields: str):
    return dataclasses.make_dataclass(name, list(fields), frozen=True)


EV = types.SimpleNamespace(**{c.__name__: c for c in (
    _event_class("NoOpDpEvent"),
    _event_class("NonPrivateDpEvent"),
    _event_class("UnsupportedDpEvent"),
    _event_class("GaussianDpEvent", "noise_multiplier"),
    _event_class("LaplaceDpEvent", "noise_multiplier"),
    _event_class("EpsilonDeltaDpEvent", "epsilon", "delta"),
    _event_class("PoissonSampledDpEvent", "sampling_probability", "event"),
    _event_class("SelfComposedDpEvent", "event", "count"),
    _event_class("ComposedDpEvent", "events"),
)})


def _dpsgd_step(sigma: Any, q: Any):
    return EV.PoissonSampledDpEvent(sampling_probability=q,
                                    event=EV.GaussianDpEvent(noise_multiplier=sigma))


# ------------------------------------------------------------------------------------------
# independent references
# ------------------------------------------------------------------------------------------
def _root(delta_of, target, lo, hi, steps=200):
    """The eps in [lo, hi] with delta_of(eps) = target (delta_of decreasing), by bisection."""
    lo, hi = mp.mpf(lo), mp.mpf(hi)
    assert delta_of(lo) > target > delta_of(hi)
    for _ in range(steps):
        mid = (lo + hi) / 2
        if delta_of(mid) > target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def _gauss_delta(eps, mu):
    """Dong, Roth & Su, Cor. 1."""
    return mp.ncdf(-eps / mu + mu / 2) - mp.exp(eps) * mp.ncdf(-eps / mu - mu / 2)


def _sampled_gauss_delta(eps, mu, q):
    """delta(eps) of C(Mix(G_mu, q)): the larger of the two directions' hockey-stick
    divergences between A = N(0, 1) and B = (1 - q) N(0, 1) + q N(mu, 1), whose likelihood
    ratio B/A = 1 - q + q e^{mu x - mu^2/2} increases in x."""
    e = mp.exp(eps)

    def sf(x):
        return mp.ncdf(-x)

    x1 = (mp.log((e - 1 + q) / q) + mu**2 / 2) / mu  # B > e A beyond x1
    d_remove = (1 - q) * sf(x1) + q * sf(x1 - mu) - e * sf(x1)
    d_add = mp.zero  # A > e B below x2, when there is such an x
    if 1 / e > 1 - q:
        x2 = (mp.log((1 / e - 1 + q) / q) + mu**2 / 2) / mu
        d_add = mp.ncdf(x2) - e * ((1 - q) * mp.ncdf(x2) + q * mp.ncdf(x2 - mu))
    return max(d_remove, d_add)


def _lap1(t, mu):
    """delta(t) = int (q - e^t p)_+ of P = Lap(0, 1), Q = Lap(mu, 1) at any real t: the loss
    |x| - |x - mu| exceeds t beyond x_t = (t + mu)/2 when |t| < mu, so delta = Q(x > x_t) -
    e^t P(x > x_t) = 1 - e^{(t - mu)/2}/2 - e^t e^{-(t + mu)/2}/2 = 1 - e^{(t - mu)/2}."""
    if t >= mu:
        return mp.zero
    if t <= -mu:
        return 1 - mp.exp(t)
    return 1 - mp.exp((t - mu) / 2)


def _lap2(eps, mu):
    """delta(eps) of L_mu (x) L_mu = E_{x ~ Q}[delta_1(eps - L(x))]: the loss L(x) is mu with
    probability 1/2 (x >= mu), -mu with probability e^{-mu}/2 (x <= 0), and 2x - mu with
    density e^{x - mu}/2 on (0, mu)."""
    atoms = _lap1(eps - mu, mu) / 2 + mp.exp(-mu) / 2 * _lap1(eps + mu, mu)
    pts = sorted({mp.zero, mu, *(x for x in (eps / 2, eps / 2 + mu) if 0 < x < mu)})
    return atoms + mp.quad(lambda x: mp.exp(x - mu) / 2 * _lap1(eps - 2 * x + mu, mu), pts)


def _inside(ref, v):
    lo, hi = v.interval() if v.guarantee == "certified" else (v.lo, v.hi)
    assert lo <= ref <= hi, (ref, v)


# ------------------------------------------------------------------------------------------
# DP-SGD, Gaussians, Laplace
# ------------------------------------------------------------------------------------------
def test_dpsgd_steps_are_noisy_sgd():
    T, sigma, q = 200, 1.0, 0.01
    ref = ta.noisy_sgd(sigma, q, T, sampling="poisson")
    one_by_one = Accountant()
    for _ in range(T):
        one_by_one.compose(ta.noisy_sgd(sigma, q, 1, sampling="poisson"))
    as_power = Accountant().compose(ta.noisy_sgd(sigma, q, T, sampling="poisson"))
    as_events = Accountant().compose(_dpsgd_step(sigma, q), count=T)
    for acct in (one_by_one, as_power, as_events):
        assert acct.entries == ((ta.AddRemove(ta.Mix(ta.G(1 / sp.Rational(sigma)),
                                                     sp.Rational(q))), T),)
        assert acct.expression == ref
    e = one_by_one.epsilon(DELTA, dps=8)
    assert e == ta.epsilon(ref, DELTA, dps=8) and e.guarantee == "certified"
    assert (e.lo, e.hi) == (as_events.epsilon(DELTA, dps=8).lo, as_events.epsilon(DELTA,
                                                                                  dps=8).hi)
    assert one_by_one.get_epsilon(1e-5) == _up(e.hi)
    assert e.lo < e.hi < 1.1 * e.lo  # a tight enclosure, not a loose bound


def test_one_sampled_gaussian_step_against_its_closed_form_profile():
    sigma, q = sp.Rational(1, 2), sp.Rational(1, 5)
    acct = Accountant().compose(_dpsgd_step(sigma, q))
    with mp.workdps(40):
        mu, qq = 1 / mp.mpf(sigma), mp.mpf(q)
        ref = _root(lambda e: _sampled_gauss_delta(e, mu, qq), mp.mpf(DELTA), 0, 20)
        for eps in ("0.5", "2"):
            d = acct.delta(sp.Rational(eps), dps=10)
            _inside(_sampled_gauss_delta(mp.mpf(sp.Rational(eps)), mu, qq), d)
    _inside(ref, acct.epsilon(DELTA, dps=10))


def test_gaussian_compositions_against_cor_1():
    acct = Accountant()
    acct.compose(ta.G(1), 3).compose(EV.GaussianDpEvent(noise_multiplier=2.0), count=4)
    assert acct.expression == ta.G(2)  # mu^2 = 3 + 4 (1/2)^2
    with mp.workdps(40):
        ref = _root(lambda e: _gauss_delta(e, mp.mpf(2)), mp.mpf(DELTA), 0, 30)
        d_ref = _gauss_delta(mp.mpf(1), mp.mpf(2))
    v = acct.epsilon(DELTA, dps=25)
    assert v.guarantee == "certified"
    _inside(ref, v)
    _inside(d_ref, acct.delta(1, dps=25))
    assert acct.get_delta(1) == _up(acct.delta(1, dps=8).hi) >= float(d_ref)


def test_laplace_composition_against_the_integral():
    mu = sp.Rational(1, 2)
    acct = Accountant().compose(EV.LaplaceDpEvent(noise_multiplier=2.0)).compose(ta.Laplace(mu))
    assert acct.entries == ((ta.Laplace(mu), 2),)
    with mp.workdps(40):
        for eps in (sp.Rational(1, 10), sp.Rational(1, 2), sp.Rational(9, 10)):
            _inside(_lap2(mp.mpf(eps), mp.mpf(mu)), acct.delta(eps, dps=8))


def test_curve_and_latex():
    acct = Accountant().compose(ta.G(1), 4)
    assert acct.latex() == ta.latex(ta.G(2)) == "G_{2}"
    assert list(acct.curve([0.1, 0.5])) == list(ta.curve(ta.G(2), [0.1, 0.5]))
    acct.compose(_dpsgd_step(1.0, 0.01), 10)
    assert acct.latex() == ta.latex(ta.AddRemove(ta.G(2) @ ta.Mix(ta.G(1), 0.01) ** 10))


# ------------------------------------------------------------------------------------------
# recording
# ------------------------------------------------------------------------------------------
def test_counts_merge_and_noop_is_dropped():
    acct = Accountant()
    acct.compose(ta.G(1)).compose(ta.G(1), 2).compose(ta.G(1) ** 3)
    acct.compose(EV.NoOpDpEvent()).compose(ta.Id)
    acct.compose(EV.SelfComposedDpEvent(event=EV.GaussianDpEvent(1.0), count=4))
    assert acct.entries == ((ta.G(1), 10),)
    acct.compose(ta.Laplace(1)).compose(ta.G(1))
    assert acct.entries == ((ta.G(1), 10), (ta.Laplace(1), 1), (ta.G(1), 1))
    assert acct.expression == ta.simplify(ta.G(sp.sqrt(11)) @ ta.Laplace(1))
    assert Accountant().expression == ta.Id and Accountant().get_epsilon(1e-5) == 0.0


def test_add_remove_pairs_directions_and_replace_one_reads_events_as_dp_accounting():
    sgd = ta.noisy_sgd(1.0, 0.01, 50, sampling="poisson")
    acct = Accountant().compose(sgd).compose(ta.G(1))
    assert acct.expression == ta.simplify(sgd @ ta.G(1)) == ta.AddRemove(
        ta.G(1) @ ta.Mix(ta.G(1), 0.01) ** 50)
    rep = Accountant("replace_one").compose(_dpsgd_step(1.0, 0.01), 50)
    assert rep.expression == ta.noisy_sgd(1.0, 0.01, 50, sampling="poisson",
                                          neighbours="replace_one")
    # a Gaussian event has twice the sensitivity under replace-one (dp_accounting REPLACE_ONE)
    assert Accountant("replace_one").compose(EV.GaussianDpEvent(2.0)).expression == ta.G(1)
    add = Accountant().compose(_dpsgd_step(1.0, 0.01), 50)
    assert rep.get_epsilon(1e-5) > add.get_epsilon(1e-5) > 0  # substitution costs more


def test_non_private_is_infinite():
    acct = Accountant().compose(ta.G(1)).compose(EV.NonPrivateDpEvent())
    assert acct.expression == ta.Zero and acct.get_epsilon(1e-5) == math.inf
    assert acct.get_delta(5) == 1.0


# ------------------------------------------------------------------------------------------
# state
# ------------------------------------------------------------------------------------------
def _mixed() -> Accountant:
    acct = Accountant()
    acct.compose(_dpsgd_step(1.1, 256 / 60000), 300).compose(ta.G(sp.sqrt(2)))
    acct.compose(ta.EpsDelta(0.1, 1e-9), 2).compose(_dpsgd_step(0.3, 0.02), 5)
    return acct


def test_json_and_pickle_round_trips():
    acct = _mixed()
    text = acct.to_json()
    json.loads(text)  # plain JSON
    for back in (Accountant.from_json(text), pickle.loads(pickle.dumps(acct))):
        assert back == acct and back is not acct
        assert back.entries == acct.entries and back.expression == acct.expression
        assert back.get_epsilon(1e-5) == acct.get_epsilon(1e-5)
    # floats keep the binary number they hold: 256/60000 is not the float's value
    q = Accountant.from_json(text).entries[0][0].arg.p
    assert q == sp.Rational(256 / 60000) != sp.Rational(256, 60000)
    rep = Accountant("replace_one").compose(_dpsgd_step(1.0, 0.01), 3)
    assert Accountant.from_json(rep.to_json()) == rep


def test_every_node_example_survives_json():
    from node_examples import EXAMPLES

    for f in EXAMPLES:
        assert _decode(json.loads(json.dumps(_encode(f)))) == f, f
    for x in (sp.Float("0.1", 50), sp.Float(1e-300), sp.pi, sp.sqrt(2) / 3, sp.oo,
              sp.Symbol("s", positive=True), -sp.Rational(7, 3)):
        y = _decode(json.loads(json.dumps(_encode(x))))
        assert y == x and type(y) is type(x) and sp.srepr(y) == sp.srepr(x)
    f = sp.Float("0.1", 50)
    assert _decode(_encode(f))._mpf_ == f._mpf_ and _decode(_encode(f))._prec == f._prec


@pytest.mark.parametrize("text", [
    "not json", "[]", '{"format": "other"}',
    '{"format": "tradeoff_algebra.Accountant", "version": 2}',
    '{"format": "tradeoff_algebra.Accountant", "version": 1, "neighbours": "x", "entries": []}',
    '{"format": "tradeoff_algebra.Accountant", "version": 1, "neighbours": "add_remove", '
    '"entries": [{"mechanism": {"class": "os:system", "args": []}, "count": 1}]}',
    '{"format": "tradeoff_algebra.Accountant", "version": 1, "neighbours": "add_remove", '
    '"entries": [{"mechanism": {"class": "sympy.core.numbers:Integer", "args": [{"integer": '
    '"1"}]}, "count": 1}]}',
    '{"format": "tradeoff_algebra.Accountant", "version": 1, "neighbours": "add_remove", '
    '"entries": [{"mechanism": {"class": "tradeoff_algebra.families.gaussian:Gaussian", '
    '"args": [{"integer": "1"}]}, "count": 0}]}',
])
def test_from_json_refuses_what_it_did_not_write(text):
    with pytest.raises(ta.InvalidParameter):
        Accountant.from_json(text)


# ------------------------------------------------------------------------------------------
# DpEvents
# ------------------------------------------------------------------------------------------
def test_dp_event_round_trip_with_stand_in_classes():
    acct = _mixed()
    acct.compose(ta.Laplace(4), 2).compose(EV.NonPrivateDpEvent())
    ev = acct.to_dp_event(events=EV)
    assert type(ev).__name__ == "ComposedDpEvent" and len(ev.events) == len(acct.entries)
    assert ev.events[0] == EV.SelfComposedDpEvent(event=_dpsgd_step(1.1, 256 / 60000),
                                                  count=300)
    assert ev.events[1] == EV.GaussianDpEvent(noise_multiplier=1 / math.sqrt(2))
    back = Accountant.from_dp_event(ev)
    exact = [e for e in acct.entries if e[0] != ta.G(sp.sqrt(2))]  # sqrt(2) is irrational
    assert [e for e in back.entries if e[0].func != ta.Gaussian] == exact
    assert Accountant().to_dp_event(events=EV) == EV.NoOpDpEvent()
    one = Accountant().compose(_dpsgd_step(1.0, 0.01))
    assert one.to_dp_event(events=EV) == _dpsgd_step(1.0, 0.01)
    assert Accountant.from_dp_event(one.to_dp_event(events=EV)) == one
    rep = Accountant("replace_one").compose(_dpsgd_step(1.0, 0.01), 7).compose(ta.G(1))
    assert rep.to_dp_event(events=EV).events[1] == EV.GaussianDpEvent(2.0)
    assert Accountant.from_dp_event(rep.to_dp_event(events=EV), "replace_one") == rep


def test_dp_event_fields_are_rounded_to_the_safe_side():
    # noise multiplier 7/3 down, sampling probability 1/3 up, epsilon and delta up
    f = ta.AddRemove(ta.Mix(ta.G(sp.Rational(3, 7)), sp.Rational(1, 3)))
    ev = to_dp_event(f, events=EV)
    s, q = ev.event.noise_multiplier, ev.sampling_probability
    assert Fraction(s) < Fraction(7, 3) < Fraction(math.nextafter(s, math.inf))
    assert Fraction(math.nextafter(q, 0)) < Fraction(1, 3) < Fraction(q)
    e = to_dp_event(ta.EpsDelta(sp.Rational(1, 10), sp.Rational(1, 3)), events=EV)
    assert Fraction(e.epsilon) > Fraction(1, 10) and Fraction(e.delta) > Fraction(1, 3)
    g = to_dp_event(ta.G(sp.sqrt(2)), events=EV).noise_multiplier  # irrational: one more float
    above = math.nextafter(math.nextafter(g, math.inf), math.inf)
    assert sp.Rational(Fraction(g)) < 1 / sp.sqrt(2) < sp.Rational(Fraction(above))


@pytest.mark.parametrize("f, word", [
    (ta.C(sp.Rational(1, 10), ta.G(1)), "dataset size"),
    (ta.Mix(ta.G(1), sp.Rational(1, 10)), "Mix"),
    (ta.RenyiRegion({2: 1}), "RenyiRegion"),
    (ta.G(sp.Symbol("mu", positive=True)), "numeric"),
    (ta.Inverse(ta.Laplace(1)), "Inverse"),
])
def test_to_dp_event_refuses_what_has_no_event(f, word):
    acct = Accountant().compose(f)
    with pytest.raises(ta.InvalidParameter, match=word) as info:
        acct.to_dp_event(events=EV)
    assert info.value.name == "f"


def test_replace_one_refusals():
    with pytest.raises(ta.InvalidParameter, match="LaplaceDpEvent"):
        Accountant("replace_one").compose(EV.LaplaceDpEvent(1.0))
    with pytest.raises(ta.InvalidParameter, match="add/remove") as info:
        Accountant("replace_one").compose(ta.noisy_sgd(1.0, 0.01, 3, sampling="poisson"))
    assert info.value.name == "mechanism"
    with pytest.raises(ta.InvalidParameter, match="Laplace"):
        to_dp_event(ta.Laplace(1), "replace_one", events=EV)


def test_without_dp_accounting_the_error_says_how_to_install_it():
    try:
        import dp_accounting  # noqa: F401
    except ImportError:
        with pytest.raises(ta.TradeOffError, match="pip install dp-accounting"):
            Accountant().compose(ta.G(1)).to_dp_event()
    else:
        pytest.skip("dp_accounting is installed")


def test_with_dp_accounting():
    dp = pytest.importorskip("dp_accounting")
    from dp_accounting import dp_event as de
    from dp_accounting.pld import PLDAccountant

    acct = Accountant().compose(de.PoissonSampledDpEvent(0.01, de.GaussianDpEvent(1.0)), 100)
    acct.compose(de.GaussianDpEvent(5.0))
    ev = acct.to_dp_event()
    assert isinstance(ev, dp.dp_event.DpEvent) and Accountant.from_dp_event(ev) == acct
    pld = PLDAccountant(value_discretization_interval=1e-4).compose(ev)
    eps = acct.get_epsilon(1e-5)
    assert abs(eps - pld.get_epsilon(1e-5)) < 1e-3 * eps


# ------------------------------------------------------------------------------------------
# bad input
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kw, name", [
    (dict(count=0), "count"), (dict(count=-2), "count"), (dict(count=1.5), "count"),
    (dict(count=True), "count"), (dict(count="3"), "count"),
    (dict(mechanism="G(1)"), "mechanism"), (dict(mechanism=1.0), "mechanism"),
    (dict(mechanism=sp.Symbol("x")), "mechanism"),
    (dict(mechanism=EV.UnsupportedDpEvent()), "event"),
    (dict(mechanism=EV.GaussianDpEvent(-1.0)), "noise_multiplier"),
])
def test_compose_refuses_bad_input(kw, name):
    acct = Accountant()
    args = dict(mechanism=ta.G(1), count=1) | kw
    with pytest.raises(ta.InvalidParameter) as info:
        acct.compose(args["mechanism"], args["count"])
    assert info.value.name == name and f"parameter {name} = " in str(info.value)
    assert acct.entries == ()


def test_other_bad_input():
    with pytest.raises(ta.InvalidParameter, match="'add_remove' or 'replace_one'"):
        Accountant("add_or_remove_one")
    acct = Accountant().compose(ta.G(1))
    for bad in (-0.1, 1.5, float("nan"), None):
        with pytest.raises(ta.InvalidParameter) as info:
            acct.get_epsilon(bad)
        assert info.value.name == "target_delta"
    with pytest.raises(ta.InvalidParameter) as info:
        acct.get_delta(-1)
    assert info.value.name == "target_epsilon"
    with pytest.raises(ta.InvalidParameter):
        Accountant.from_dp_event(ta.G(1))


# ------------------------------------------------------------------------------------------
# the Opacus adapter on top of it
# ------------------------------------------------------------------------------------------
def test_opacus_adapter_is_an_accountant():
    opa = TradeoffAccountant()
    opa.history = [(1.0, 0.01, 30), (2.0, 0.01, 10), (2.0, 0.0, 4)]
    acct = opa.accountant()
    assert acct.entries == ((ta.AddRemove(ta.Mix(ta.G(1), 0.01)), 30),
                            (ta.AddRemove(ta.Mix(ta.G(sp.Rational(1, 2)), 0.01)), 10))
    ref = ta.noisy_sgd(1.0, 0.01, 30, sampling="poisson") @ ta.noisy_sgd(
        2.0, 0.01, 10, sampling="poisson")
    assert opa.expression() == acct.expression == ta.simplify(ref)
    assert opa.get_epsilon(1e-5) == _up(ta.epsilon(ref, DELTA, dps=8).hi)
    assert acct.to_dp_event(events=EV) == EV.ComposedDpEvent(events=[
        EV.SelfComposedDpEvent(event=_dpsgd_step(1.0, 0.01), count=30),
        EV.SelfComposedDpEvent(event=_dpsgd_step(2.0, 0.01), count=10)])


def _up(x) -> float:
    v = float(x)
    return math.nextafter(v, math.inf) if v < x else v
