"""Citations pinned to a paper and a locator (theorem, corollary, equation, section).

Every rewrite rule and every formula cites where it comes from; the seed papers are the
specification (see docs/architecture.md).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Paper", "Citation", "DRS", "DWORK", "KAISSIS", "WANG", "KOV"]


_TEX_ESCAPES = {"&": r"\&", "%": r"\%", "#": r"\#", "_": r"\_", "$": r"\$"}


def _tex_text(s: str) -> str:
    return "".join(_TEX_ESCAPES.get(c, c) for c in s)


@dataclass(frozen=True)
class Citation:
    """A pinned reference: ``paper`` and ``locator`` (e.g. ``Cor. 2``, ``Eq. (10)``)."""

    paper: Paper
    locator: str
    note: str = ""

    def __str__(self) -> str:
        s = f"{self.paper.short}, {self.locator}"
        return f"{s} ({self.note})" if self.note else s

    def latex(self) -> str:
        """``\\text{Dong, Roth \\& Su, Cor.~2}``, special characters escaped; the note (plain
        text, often with ASCII formulas) is left to the plain-text form."""
        loc = _tex_text(self.locator).replace(". ", ".~")
        return r"\text{%s, %s}" % (_tex_text(self.paper.short), loc)


@dataclass(frozen=True)
class Paper:
    """A paper: a short key for citations and its full reference."""

    key: str
    short: str
    reference: str

    def _at(self, kind: str, n: object, note: str = "") -> Citation:
        return Citation(self, f"{kind} {n}", note)

    def thm(self, n, note: str = "") -> Citation:
        return self._at("Thm.", n, note)

    def cor(self, n, note: str = "") -> Citation:
        return self._at("Cor.", n, note)

    def prop(self, n, note: str = "") -> Citation:
        return self._at("Prop.", n, note)

    def lemma(self, n, note: str = "") -> Citation:
        return self._at("Lemma", n, note)

    def defn(self, n, note: str = "") -> Citation:
        return self._at("Def.", n, note)

    def eq(self, n, note: str = "") -> Citation:
        return self._at("Eq.", f"({n})", note)

    def sec(self, n, note: str = "") -> Citation:
        return self._at("Sec.", n, note)

    def at(self, locator: str, note: str = "") -> Citation:
        return Citation(self, locator, note)


DRS = Paper("DRS", "Dong, Roth & Su",
            "J. Dong, A. Roth, W. J. Su. Gaussian differential privacy. JRSS-B 84(1), 2022.")
DWORK = Paper("Dwork", "Dwork",
              "C. Dwork. Differential privacy: getting more for less (survey).")
KAISSIS = Paper("Kaissis", "Kaissis et al.",
                "G. Kaissis et al. A unified interpretation of the Gaussian mechanism for "
                "differential privacy through the sensitivity index.")
WANG = Paper("Wang", "Wang et al.",
             "C. Wang, B. Su, J. Ye, R. Shokri, W. J. Su. Unified enhancement of privacy bounds "
             "for mixture mechanisms via f-differential privacy. NeurIPS 2023.")
KOV = Paper("KOV", "Kairouz, Oh & Viswanath",
            "P. Kairouz, S. Oh, P. Viswanath. The composition theorem for differential "
            "privacy. ICML 2015.")
