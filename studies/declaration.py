"""What a study declares before anything runs: its claim and goal, its cases (development
and held out, each saying what its truth shares with the method), the methods and
baselines fed the same inputs, the metric, and how its interval is formed.

A study module in `studies/claims/` holds one `STUDY`; the runner (runner.py) runs its
cases, the ledger (ledger.py) records every look at a held-out case, and judge.py
computes the verdict from the numbers.

    >>> from substrates.studies.declaration import Case, Goal
    >>> goal = Goal("rmse_mm_h", method="pnp", baselines=("idw", "kriging"),
    ...             better="lower", margin=0.05, relative=True)
    >>> goal.text()
    'pnp at least 5% under the best of idw, kriging on rmse_mm_h (95% interval clear of the margin)'
    >>> Case("seed-12", "held-out", {"seed": 12}, shares="grid", differs="generator").role
    'held-out'
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

Role = Literal["development", "held-out"]
ROLES: tuple[Role, ...] = ("development", "held-out")


@dataclass(frozen=True)
class Case:
    """One independent case of a study (a seed, a day, a session, a network).

    name: unique in its study, safe as a file name. role: 'development' (settings may be
    chosen on it) or 'held-out' (scored only; named before it is first run). parameters:
    what the study's `run_case` needs to make it (JSON-serialisable). shares / differs:
    one line each, what the case's truth shares with the method's own model and what it
    does not (no inverse crime without saying so).
    """

    name: str
    role: Role
    parameters: Mapping[str, Any] = field(default_factory=dict)
    shares: str = ""
    differs: str = ""

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"case {self.name}: role {self.role!r}; expected one of {ROLES}")
        if not self.name or any(c in self.name for c in "/\\ \n"):
            raise ValueError(f"case name {self.name!r}: no slashes, spaces or newlines")


@dataclass(frozen=True)
class Goal:
    """The claim as a number: `method` beats every one of `baselines` on `metric` by at
    least `margin`, with the 95% interval of the difference clear of it.

    better: 'higher' or 'lower' values of the metric are better. relative: the effect is
    the ratio of means less one (0.05: 5%), else the difference of means (in the
    metric's unit). min_replicates: fewer held-out replicates than this cannot tell.
    """

    metric: str
    method: str
    baselines: tuple[str, ...]
    better: Literal["higher", "lower"] = "higher"
    margin: float = 0.0
    relative: bool = False
    min_replicates: int = 10
    unit: str = ""

    def text(self) -> str:
        """The goal in words."""
        size = abs(self.margin)
        amount = f"{size:.0%}" if self.relative else f"{size:g}"
        better_side = "over" if self.better == "higher" else "under"
        worse_side = "under" if self.better == "higher" else "over"
        bound = f"at least {amount} {better_side}"
        if self.margin < 0:
            bound = f"at most {amount} {worse_side}"
        return (
            f"{self.method} {bound} the best of {', '.join(self.baselines)} on "
            f"{self.metric}{' ' + self.unit if self.unit else ''} (95% interval clear of "
            "the margin)"
        )


@dataclass(frozen=True)
class Study:
    """A claim, its cases and how it is judged.

    name: the study's name on the command line. substrate: quantum, mea, events, crn or
    cml. claim: the sentence being tested. seed_figure: the source paper's figure for the
    claim (or what stands in for it), and whether the design matches it. goal: see Goal.
    replicate: the column of the rows that is one independent replicate ('case' when
    only whole cases are independent: then the interval resamples cases; a column such
    as 'unit' or 'network' when each row is independent, and the interval resamples the
    replicates within cases and the cases too: cluster-aware). cases: every case, named
    before it is first run. settings: the method's settings, chosen on development cases
    only (a setting changed after a held-out look moves that case to development).
    sources: paths of the package (relative to its root) whose content is the method:
    a look is new when they or the settings changed. run_case(case, settings) returns
    the case's rows: one per replicate and method, with the columns 'method' and the
    metric (and the replicate's column). smoke: small cases for the default test lane
    (never recorded as looks), run with `smoke_settings` over the settings. details:
    columns of the rows shown per case beside the metric (a verdict, the evidence).
    notes: what a reader should know (attributions, what would make the figure
    comparable with the seed's).
    """

    name: str
    substrate: str
    claim: str
    seed_figure: str
    goal: Goal
    replicate: str
    cases: tuple[Case, ...]
    settings: Mapping[str, Any]
    sources: tuple[str, ...]
    run_case: Callable[[Case, Mapping[str, Any]], list[dict[str, Any]]]
    smoke: tuple[Case, ...] = ()
    smoke_settings: Mapping[str, Any] = field(default_factory=dict)
    details: tuple[str, ...] = ()
    notes: str = ""

    def __post_init__(self) -> None:
        names = [c.name for c in (*self.cases, *self.smoke)]
        if len(set(names)) != len(names):
            raise ValueError(f"study {self.name}: case names repeat: {sorted(names)}")


def digest(value: Any) -> str:
    """A short, stable hash of a JSON-serialisable value (keys sorted)."""
    text = json.dumps(value, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def parse_settings(study: Study, assignments: Sequence[str]) -> dict[str, Any]:
    """The study's settings with `KEY=VALUE` overrides, each value read as its default's
    type (a bool from true/false); an unknown key or a value of the wrong type is a
    ValueError naming it."""
    settings = dict(study.settings)
    for text in assignments:
        key, sep, raw = text.partition("=")
        if not sep or key not in settings:
            known = ", ".join(sorted(settings)) or "none"
            raise ValueError(f"--set {text!r}: expected KEY=VALUE with KEY one of: {known}")
        default = settings[key]
        try:
            if isinstance(default, bool):
                if raw.lower() not in ("true", "false"):
                    raise ValueError
                settings[key] = raw.lower() == "true"
            elif isinstance(default, int | float | str):
                settings[key] = type(default)(raw)
            else:
                settings[key] = json.loads(raw)
        except ValueError:
            raise ValueError(
                f"--set {key}={raw}: expected a {type(default).__name__} like {default!r}"
            ) from None
    return settings
