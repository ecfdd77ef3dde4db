"""What a CRN validation refuses, each one line on the command line."""

from __future__ import annotations

from ...errors import OptionError, SubstratesError


class ImpossibleEvidenceError(OptionError):
    """Evidence of probability zero under the model: no posterior to compare (option:
    evidence)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, option="evidence")


class NothingToCompareError(OptionError):
    """A validation whose reduction leaves no variable to compare beliefs on; `option` is
    the parameter that would give it one (evidence or keep)."""


class RewriteError(SubstratesError, ValueError):
    """A CRN whose reactions the elementary rewrite does not cover."""


class SizeBudgetError(OptionError):
    """A CRN predicted to exceed the size budget (option: max_reactions); refused before
    it is compiled."""

    def __init__(self, message: str) -> None:
        super().__init__(message, option="max_reactions")
