"""TradeoffAccountant: on its own (always), and inside the real Opacus (when installed).

The Opacus tests train a small linear model with ``PrivacyEngine(accountant="tradeoff")`` and
compare the certified epsilon with Opacus's own ``"rdp"`` and ``"prv"`` accountants run on the
same history, and with dp_accounting's PLD accountant where that is installed.
"""

from __future__ import annotations

import io
import math
import subprocess
import sys
import textwrap
import warnings
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.opacus_accountant import (
    MECHANISM,
    TradeoffAccountant,
    _exact,
    _float_up,
    register,
)

DELTA = 1e-5


def _reference(history, delta=DELTA):
    """The certified enclosure of the history's expression, built independently."""
    f = None
    for s, q, n in history:
        g = ta.noisy_sgd(s, q, n, sampling="poisson")
        f = g if f is None else f @ g
    return ta.epsilon(f, sp.Rational(delta), dps=8)


# ------------------------------------------------------------------------------------------
# the class on its own
# ------------------------------------------------------------------------------------------
def test_steps_merge_and_len_counts_steps():
    acc = TradeoffAccountant()
    assert len(acc) == 0 and acc.history == []
    for _ in range(3):
        acc.step(noise_multiplier=1.0, sample_rate=0.01)
    acc.step(noise_multiplier=2.0, sample_rate=0.01)
    acc.step(noise_multiplier=2.0, sample_rate=0.02)
    assert acc.history == [(1.0, 0.01, 3), (2.0, 0.01, 1), (2.0, 0.02, 1)]
    assert len(acc) == 5
    assert TradeoffAccountant.mechanism() == MECHANISM == "tradeoff"


def test_epsilon_is_the_certified_upper_end():
    acc = TradeoffAccountant()
    acc.history = [(1.0, 512 / 50000, 60), (2.0, 512 / 50000, 40)]
    ref = _reference(acc.history)
    eps = acc.get_epsilon(DELTA)
    assert ref.hi <= eps and float(ref.hi) <= eps <= math.nextafter(float(ref.hi), math.inf)
    assert acc.get_privacy_spent(delta=DELTA) == (eps, None)


def test_trivial_histories():
    acc = TradeoffAccountant()
    assert acc.get_epsilon(DELTA) == 0.0  # nothing spent yet, as Opacus's RDP accountant says
    with pytest.raises(ValueError):
        acc.expression()
    acc.history = [(1.0, 0.0, 5), (3.0, 0.5, 0)]  # q = 0 or no steps: nothing revealed
    assert acc.get_epsilon(DELTA) == 0.0
    acc.history = [(1.0, 0.0, 3), (1.0, 0.01, 3)]
    assert acc.get_epsilon(DELTA) == TradeoffAccountant.get_epsilon(
        _with([(1.0, 0.01, 3)]), DELTA)
    acc.history = [(0.0, 0.01, 1)]  # no noise
    assert acc.get_epsilon(DELTA) == math.inf
    acc.history = [(1e6, 0.01, 5)]  # below delta all the way: exactly 0, not rounded up
    assert acc.get_epsilon(DELTA) == 0.0


@pytest.mark.slow  # about 13 s alone: the CI job -m slow runs it
def test_an_extreme_history_is_the_certified_epsilon_rounded_up():
    """sigma = 0.05, q = 0.01, T = 3000 was an engine failure of the PLD engine; the Laplace
    inversion now certifies it, eps in [10925.12, 10925.93], the add direction dropped by its
    Chernoff bound."""
    acc = _with([(0.05, 0.01, 3000)])
    e = acc.get_epsilon(DELTA)
    assert e == _float_up(ta.epsilon(acc.expression(), DELTA, dps=8).hi) < math.inf


def test_engine_failure_is_an_infinite_bound_with_a_warning(monkeypatch):
    """A NumericalError of the library is an infinite bound with a warning."""
    import tradeoff_algebra.accountant as oa  # the adapter's epsilon is the Accountant's

    acc = _with([(1.0, 0.01, 10)])
    assert acc.get_epsilon(DELTA) < math.inf

    def refuse(*args, **kwargs):
        raise ta.NumericalError("on purpose")

    monkeypatch.setattr(oa, "_epsilon", refuse)
    with pytest.warns(RuntimeWarning, match="no finite certified epsilon"):
        assert acc.get_epsilon(DELTA) == math.inf


def test_invalid_history_raises():
    with pytest.raises(ValueError):
        _with([(-1.0, 0.01, 1)]).get_epsilon(DELTA)
    with pytest.raises(ValueError):
        _with([(1.0, 1.5, 1)]).get_epsilon(DELTA)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -1.0, True, None, "x", b"1",
                                   1 + 0j, [], sp.Symbol("s"), sp.nan, "9" * 100_000],
                         ids=repr)
def test_step_refuses_what_is_not_a_noise_multiplier_or_rate(value):
    acc = TradeoffAccountant()
    for name, kw in (("noise_multiplier", dict(noise_multiplier=value, sample_rate=0.01)),
                     ("sample_rate", dict(noise_multiplier=1.0, sample_rate=value))):
        with pytest.raises(ta.InvalidParameter) as info:  # a ValueError, as Opacus expects
            acc.step(**kw)
        assert info.value.name == name and f"parameter {name} = " in str(info.value)
    assert acc.history == []  # nothing recorded
    with pytest.raises(ta.InvalidParameter, match="sample_rate"):
        acc.step(noise_multiplier=1.0, sample_rate=1.5)
    acc.step(noise_multiplier=np.float32(1.0), sample_rate=Fraction(1, 100))  # exact numbers
    assert len(acc) == 1
    if not isinstance(value, str):  # a symbol used to end in AttributeError on a lazy value
        with pytest.raises(ta.InvalidParameter) as info:
            acc.get_epsilon(value)
        assert info.value.name == "delta"


def test_numbers_are_read_exactly():
    assert _exact(0.1) == sp.Rational(0.1) != sp.Rational(1, 10)  # the binary number
    assert _exact(np.float32(0.5)) == sp.Rational(1, 2)
    assert _exact(np.float64(0.1)) == sp.Rational(0.1)
    assert _exact(Fraction(1, 3)) == sp.Rational(1, 3)
    assert _exact(np.int64(7)) == 7 and _exact(sp.Rational(2, 3)) == sp.Rational(2, 3)
    assert _exact("0.01") == sp.Rational(1, 100)
    with pytest.raises(ta.InvalidParameter, match="value = True"):
        _exact(True)
    with mpmath.workprec(200):
        third, tenth = mpmath.mpf(1) / 3, mpmath.mpf(1) / 10
        assert 1 / 3 < third and _float_up(third) == math.nextafter(1 / 3, math.inf)
        assert 0.1 > tenth and _float_up(tenth) == 0.1
        assert _float_up(mpmath.mpf(0.25)) == 0.25 and _float_up(mpmath.inf) == math.inf


def test_state_dict_round_trip_in_process():
    acc = _with([(1.0, 0.01, 30), (2.0, 0.01, 10)])
    state = acc.state_dict()
    assert state["mechanism"] == "tradeoff" and state["history"] == acc.history
    state["history"].append((9.0, 0.5, 1))  # a copy, not the accountant's list
    assert len(acc.history) == 2
    other = TradeoffAccountant()
    other.load_state_dict(acc.state_dict())
    assert other.history == acc.history and other.get_epsilon(DELTA) == acc.get_epsilon(DELTA)
    other.load_state_dict({"history": [[1.0, 0.01, 2]], "mechanism": "tradeoff"})  # from JSON
    other.step(noise_multiplier=1.0, sample_rate=0.01)
    assert other.history == [(1.0, 0.01, 3)]
    for bad in ({}, {"history": []}, {"mechanism": "tradeoff"},
                {"history": [], "mechanism": "rdp"}):
        with pytest.raises(ValueError):
            other.load_state_dict(bad)


_STANDALONE = textwrap.dedent("""
    import sys
    sys.modules["opacus"] = None  # Opacus absent, whether installed or not
    import tradeoff_algebra
    assert "torch" not in sys.modules
    from tradeoff_algebra import opacus_accountant as m
    assert not m.HAVE_OPACUS and m.TradeoffAccountant.__mro__[1] is m._Standalone
    assert m.register() is False
    acc = m.TradeoffAccountant()

    class Optim:
        noise_multiplier = 1.0
        accumulated_iterations = 2

    hook = acc.get_optimizer_hook_fn(sample_rate=0.005)
    for _ in range(4):
        hook(Optim())
    assert acc.history == [(1.0, 0.01, 4)] and len(acc) == 4, acc.history
    state = acc.state_dict()
    assert list(state) == ["history", "mechanism"] and state["mechanism"] == "tradeoff"
    other = m.TradeoffAccountant()
    other.load_state_dict(state)
    assert other.history == acc.history
    for bad in ({}, {"history": []}, {"history": [], "mechanism": "prv"}):
        try:
            other.load_state_dict(bad)
        except ValueError:
            pass
        else:
            raise AssertionError(bad)
    print(repr(acc.get_epsilon(1e-5)))
    assert "torch" not in sys.modules
""")


def test_without_opacus_in_a_fresh_interpreter():
    """Without Opacus the class has the same methods; ``import tradeoff_algebra`` never
    imports torch."""
    out = subprocess.run([sys.executable, "-c", _STANDALONE], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    eps = float(out.stdout.strip())
    assert eps == _with([(1.0, 0.01, 4)]).get_epsilon(DELTA)


def _with(history):
    acc = TradeoffAccountant()
    acc.history = list(history)
    return acc


# ------------------------------------------------------------------------------------------
# inside the real Opacus
# ------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def opacus():
    op = pytest.importorskip("opacus")
    assert register() is True
    return op


def _train(opacus, noise_multipliers, n=640, batch_size=16, seed=0):
    """Train a linear model with ``PrivacyEngine(accountant="tradeoff")``; one epoch per
    entry of ``noise_multipliers`` (set on the optimizer before the epoch). Returns the
    engine and the number of optimizer steps taken."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny tensors: a thread pool costs far more than it saves
    try:
        return _train_loop(opacus, torch, noise_multipliers, n, batch_size, seed)
    finally:
        torch.set_num_threads(threads)


def _train_loop(opacus, torch, noise_multipliers, n, batch_size, seed):
    from torch.utils.data import DataLoader, TensorDataset

    torch.manual_seed(seed)
    X = torch.randn(n, 5)
    y = (X[:, 0] > 0).long()
    model = torch.nn.Linear(5, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = DataLoader(TensorDataset(X, y), batch_size=batch_size)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # secure RNG off; full-backward-hook notices
        engine = opacus.PrivacyEngine(accountant="tradeoff")
        model, optimizer, loader = engine.make_private(
            module=model, optimizer=optimizer, data_loader=loader,
            noise_multiplier=noise_multipliers[0], max_grad_norm=1.0, poisson_sampling=True)
        steps = 0
        for sigma in noise_multipliers:
            optimizer.noise_multiplier = sigma
            for xb, yb in loader:
                optimizer.zero_grad()
                torch.nn.functional.cross_entropy(model(xb), yb).backward()
                optimizer.step()
                steps += 1
    return engine, steps


def _opacus_eps(opacus, mechanism, history):
    from opacus.accountants import create_accountant

    acc = create_accountant(mechanism)
    acc.history = list(history)
    return acc.get_epsilon(DELTA)


def _prv_enclosure(history, eps_error=0.01):
    """Opacus's PRV accountant's (lower, estimate, upper) for the history."""
    from opacus.accountants import PRVAccountant

    acc = PRVAccountant()
    acc.history = list(history)
    dprv = acc._get_dprv(eps_error=eps_error, delta_error=DELTA / 1000)
    return tuple(float(x) for x in dprv.compute_epsilon(DELTA, DELTA / 1000, eps_error))


def test_is_an_opacus_accountant(opacus):
    from opacus.accountants import IAccountant, create_accountant

    from tradeoff_algebra import opacus_accountant as m

    assert m.HAVE_OPACUS and issubclass(TradeoffAccountant, IAccountant)
    assert type(create_accountant("tradeoff")) is TradeoffAccountant
    assert register() is True  # again: harmless
    # the optimizer hook is Opacus's own
    assert TradeoffAccountant.get_optimizer_hook_fn is IAccountant.get_optimizer_hook_fn
    assert type(create_accountant("rdp")).__name__ == "RDPAccountant"


def test_training_loop_against_opacus_accountants(opacus):
    engine, steps = _train(opacus, [1.0])
    acc = engine.accountant
    assert isinstance(acc, TradeoffAccountant)
    assert steps == 40 and len(acc) == 40 and acc.history == [(1.0, 1 / 40, 40)]
    eps = engine.get_epsilon(DELTA)
    ref = _reference(acc.history)
    assert ref.hi <= eps <= math.nextafter(float(ref.hi), math.inf)
    rdp = _opacus_eps(opacus, "rdp", acc.history)
    prv_lo, prv_mid, prv_hi = _prv_enclosure(acc.history)
    assert prv_hi == pytest.approx(_opacus_eps(opacus, "prv", acc.history))
    # the truth lies in PRV's [lower, upper] and in ours; ours is an upper bound of it
    assert prv_lo <= eps <= prv_hi < rdp
    assert abs(eps - prv_mid) < 1e-3


def test_training_loop_against_dp_accounting(opacus):
    pytest.importorskip("dp_accounting")
    from dp_accounting import dp_event as de
    from dp_accounting.pld import PLDAccountant

    engine, _ = _train(opacus, [1.0])
    hist = engine.accountant.history
    pld = PLDAccountant(value_discretization_interval=1e-4)
    pld.compose(de.ComposedDpEvent([
        de.SelfComposedDpEvent(de.PoissonSampledDpEvent(q, de.GaussianDpEvent(s)), n)
        for s, q, n in hist]))
    fine = pld.get_epsilon(DELTA)
    eps = engine.get_epsilon(DELTA)
    assert fine - 1e-4 <= eps <= _opacus_eps(opacus, "rdp", hist)
    assert eps <= fine * (1 + 1e-3)  # and about as tight as the fine grid


def test_two_noise_multipliers_in_one_history(opacus):
    engine, steps = _train(opacus, [1.0, 2.0])
    acc = engine.accountant
    assert steps == 80 and acc.history == [(1.0, 1 / 40, 40), (2.0, 1 / 40, 40)]
    eps = engine.get_epsilon(DELTA)
    ref = _reference(acc.history)
    assert ref.hi <= eps <= math.nextafter(float(ref.hi), math.inf)
    prv_lo, _, prv_hi = _prv_enclosure(acc.history)
    assert prv_lo <= eps <= prv_hi < _opacus_eps(opacus, "rdp", acc.history)
    # more than the first phase alone, less than both phases at the smaller noise
    assert _with(acc.history[:1]).get_epsilon(DELTA) < eps
    assert eps < _with([(1.0, 1 / 40, 80)]).get_epsilon(DELTA)


def test_checkpoint_round_trip(opacus):
    import torch

    engine, _ = _train(opacus, [1.0, 2.0])
    buf = io.BytesIO()
    model = torch.nn.Linear(5, 2)
    engine.save_checkpoint(path=buf, module=model)
    buf.seek(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # secure RNG off
        fresh = opacus.PrivacyEngine(accountant="tradeoff")
    fresh.load_checkpoint(path=buf, module=torch.nn.Linear(5, 2))
    assert isinstance(fresh.accountant, TradeoffAccountant)
    assert fresh.accountant.history == engine.accountant.history
    assert fresh.get_epsilon(DELTA) == engine.get_epsilon(DELTA)
    # another mechanism's state does not load
    rdp = opacus.accountants.RDPAccountant()
    rdp.history = list(engine.accountant.history)
    with pytest.raises(ValueError, match="rdp"):
        fresh.accountant.load_state_dict(rdp.state_dict())


def test_noise_multiplier_search(opacus):
    """``make_private_with_epsilon`` calibrates through ``create_accountant("tradeoff")``."""
    from opacus.accountants.utils import get_noise_multiplier

    kw = dict(target_epsilon=2.0, target_delta=DELTA, sample_rate=0.01, steps=300,
              epsilon_tolerance=0.05)
    sigma = get_noise_multiplier(accountant="tradeoff", **kw)
    eps = _with([(sigma, 0.01, 300)]).get_epsilon(DELTA)
    assert 2.0 - 0.05 <= eps <= 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # RDP: "optimal order is the largest alpha"
        assert sigma < get_noise_multiplier(accountant="rdp", **kw)


def test_registration_without_a_registry(opacus, monkeypatch):
    """Opacus before 1.6 has no registry: ``register`` wraps ``create_accountant`` where
    Opacus looks it up. Checked here by hiding 1.6's registry."""
    import importlib

    oa = importlib.import_module("opacus.accountants")
    names = ("opacus.accountants", "opacus.accountants.utils", "opacus.privacy_engine")
    mods = [importlib.import_module(n) for n in names]
    for mod in mods:  # restored after the test
        monkeypatch.setattr(mod, "create_accountant", mod.create_accountant)
    original = getattr(oa.create_accountant, "_tradeoff_wraps", oa.create_accountant)
    for mod in mods:
        monkeypatch.setattr(mod, "create_accountant", original)
    monkeypatch.delattr(oa, "register_accountant", raising=False)
    try:
        registry = importlib.import_module("opacus.accountants.registry")._ACCOUNTANTS
    except ImportError:  # Opacus before 1.6
        pass
    else:
        monkeypatch.delitem(registry, MECHANISM, raising=False)
    with pytest.raises(ValueError):
        original("tradeoff")
    assert register() is True
    wrapped = oa.create_accountant
    assert wrapped is not original and wrapped._tradeoff_wraps is original
    assert register() is True and oa.create_accountant is wrapped  # not wrapped twice
    assert all(mod.create_accountant is wrapped for mod in mods)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        engine = opacus.PrivacyEngine(accountant="tradeoff")
    assert isinstance(engine.accountant, TradeoffAccountant)
    assert type(wrapped("rdp")).__name__ == "RDPAccountant"
    with pytest.raises(ValueError):
        wrapped("no-such-accountant")
