"""Test helpers that steer a question to one engine."""

from __future__ import annotations


def decline_inversion(monkeypatch) -> None:
    """The certified Laplace inversion declines every question (both places that call it: the
    product's ``InversionRoute`` and the engines' δ/ε and hull entries), so that the PLD engine
    answers: for tests of the engine's own behaviour (time and memory limits, enclosures)
    whose example mechanisms the inversion now certifies."""
    from tradeoff_algebra.routes import engines, product

    def none(*args, **kw):
        return None

    monkeypatch.setattr(engines, "_cf_enclosure", none)
    monkeypatch.setattr(product, "_cf_enclosure", none)
