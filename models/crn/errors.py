"""What a CRN validation refuses, each one line on the command line."""

from __future__ import annotations

from ...errors import SubstratesError


class ImpossibleEvidenceError(SubstratesError, ValueError):
    """Evidence of probability zero under the model: no posterior to compare."""


class NothingToCompareError(SubstratesError, ValueError):
    """A validation whose reduction leaves no variable to compare beliefs on."""


class RewriteError(SubstratesError, ValueError):
    """A CRN whose reactions the elementary rewrite does not cover."""


class SizeBudgetError(SubstratesError, ValueError):
    """A CRN predicted to exceed the size budget; refused before it is compiled."""
