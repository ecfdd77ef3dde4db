"""What a check concludes: `valid`, `not valid` or `cannot tell`, from named comparisons
each held against its own tolerance, with the exit status the command line ends with.

A method that checks something (a validation, a comparison) returns a Verdict with its
outcome; the run folder's provenance records it, the command line prints it as its last
line and exits with EXIT_CODES[outcome]: 0 valid, 3 not valid, 4 cannot tell (2 stays
bad input). A number beyond its tolerance is never only printed.

    >>> from substrates.verdicts import Check, Verdict
    >>> verdict = Verdict.judge([
    ...     Check("reduced vs original", 4.8e-1, 1e-6, where="TempDis"),
    ...     Check("conservation of reduced", 2e-16, 1e-6, fails="cannot tell"),
    ... ])
    >>> verdict.outcome, verdict.exit_code
    ('not valid', 3)
    >>> verdict.line()
    'verdict: not valid: reduced vs original 4.80e-01 > 1e-06 (TempDis)'
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

Outcome = Literal["valid", "not valid", "cannot tell"]
Failure = Literal["not valid", "cannot tell"]
FAILURES: tuple[Failure, ...] = ("not valid", "cannot tell")
"""The outcomes of a failed check, gravest first."""
EXIT_CODES: Mapping[Outcome, int] = {"valid": 0, "not valid": 3, "cannot tell": 4}
"""The command line's exit status for each outcome (2 is bad input, 130/143 a stop)."""


@dataclass(frozen=True)
class Check:
    """One comparison: `value` (None or NaN: could not be measured) held against
    `tolerance` (passes when value ≤ tolerance); `where` names what it is worst at (a
    variable); `fails`: the outcome when it does not pass."""

    name: str
    value: float | None
    tolerance: float
    where: str = ""
    fails: Failure = "not valid"

    @property
    def passed(self) -> bool:
        return (
            self.value is not None and not math.isnan(self.value) and self.value <= self.tolerance
        )

    @property
    def excess(self) -> float:
        """value / tolerance (inf when it could not be measured; a zero tolerance: 0 when
        met, else inf)."""
        if self.value is None or math.isnan(self.value):
            return math.inf
        if self.tolerance <= 0:
            return 0.0 if self.value <= 0 else math.inf
        return self.value / self.tolerance

    def text(self) -> str:
        """'name 4.80e-01 > 1e-06 (where)', '≤' when it passes, or 'name: could not be
        measured (where)'."""
        where = f" ({self.where})" if self.where else ""
        if self.value is None:
            return f"{self.name}: could not be measured{where}"
        sign = "≤" if self.passed else ">"
        return f"{self.name} {self.value:.2e} {sign} {self.tolerance:g}{where}"

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "value": self.value,
            "tolerance": self.tolerance,
            "where": self.where,
            "passed": self.passed,
            "fails": self.fails,
        }


@dataclass(frozen=True)
class Verdict:
    """The outcome and the check it rests on: the worst failing check of the gravest kind
    (not valid before cannot tell), or, when every check passes, the claim (a check that
    fails as not valid) closest to its tolerance."""

    outcome: Outcome
    deciding: Check | None
    checks: tuple[Check, ...]

    @classmethod
    def judge(cls, checks: Iterable[Check]) -> Verdict:
        """`cannot tell` when there is nothing to judge."""
        checks = tuple(checks)
        for outcome in FAILURES:
            failing = [c for c in checks if not c.passed and c.fails == outcome]
            if failing:
                return cls(outcome, max(failing, key=lambda c: c.excess), checks)
        if not checks:
            return cls("cannot tell", None, checks)
        claims = [c for c in checks if c.fails == "not valid"] or list(checks)
        return cls("valid", max(claims, key=lambda c: c.excess), checks)

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.outcome]

    def line(self) -> str:
        """One line: the outcome and the check it rests on."""
        if self.deciding is None:
            return f"verdict: {self.outcome}: nothing was compared"
        if self.outcome == "valid":
            closest = self.deciding.text()
            return f"verdict: valid: {len(self.checks)} checks within tolerance; closest {closest}"
        return f"verdict: {self.outcome}: {self.deciding.text()}"

    def to_dict(self) -> dict[str, object]:
        """For provenance.json: the outcome, its line and every check."""
        return {
            "outcome": self.outcome,
            "line": self.line(),
            "checks": [c.to_dict() for c in self.checks],
        }
