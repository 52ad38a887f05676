"""Printing: LaTeX and plain text in the papers' notation."""

from .latex import latex, text

__all__ = ["latex", "text"]
