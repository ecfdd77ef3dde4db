"""The life of one run, the same for every method: its backends resolved from the configs it
names, its folder and provenance opened, its work timed, its failure or interruption
recorded, its results written and the run marked complete.

A method's run function receives a `RunContext` and returns an `Outcome`; everything else
here is the framework's. The function checks its input first and calls `context.begin(...)`
when nothing is left to refuse: before that call nothing is written.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import pyarrow as pa

from ...backends.base import Backend
from ...backends.registry import get_backend_class
from ...errors import OptionError, SubstratesError
from ..config.build import load_backend
from ..config.load import ResolvedConfig, load_config
from ..runs.folder import RunFolder
from ..runs.journal import JobLog, pending
from ..runs.lifetime import Terminated, Tracked, supervised
from ..runs.plots import close_figure
from ..runs.progress import Progress
from ..runs.provenance import now, provenance
from .summary import Entry, labelled

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ...verdicts import Verdict
    from .method import Method, MethodParameters

B = TypeVar("B", bound=Backend)
T = TypeVar("T")
SUMMARY_FILE = "summary.json"
"""The summary with each figure's label, unit and text (summary.py)."""
FORECAST_AFTER_S = 2.0
"""A task's pace is measured over at least this long before its remaining time is said."""
FORECAST_FROM_S = 60.0
"""A task with at least this much time left (at its measured pace) is announced, once."""
log = logging.getLogger("substrates")


@dataclass(frozen=True)
class Outcome:
    """What a run function hands back; the framework writes it into the run folder.

    results: results.parquet; summary: the run's headline figures (provenance.json's
    `summary`, units in the names); tables: other Parquet tables by file name; figures:
    matplotlib figures saved as PNG by file name (and closed); texts: text files by name;
    record: further provenance fields, written with the completed record; verdict: what
    a checking method concludes (provenance.json's `verdict`; the command line prints its
    line last and exits with its code).
    """

    results: pa.Table
    summary: dict[str, Any]
    tables: Mapping[str, pa.Table] = field(default_factory=dict)
    figures: Mapping[str, Figure] = field(default_factory=dict)
    texts: Mapping[str, str] = field(default_factory=dict)
    record: Mapping[str, Any] = field(default_factory=dict)
    verdict: Verdict | None = None


def _duration(seconds: float) -> str:
    """'45 s', '2 min 12 s', '1 h 05 min'."""
    if seconds < 60:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{int(seconds // 60)} min {int(seconds % 60):02d} s"
    return f"{int(seconds // 3600)} h {int(seconds % 3600 // 60):02d} min"


class RunContext:
    """What a run function is given: its resolved backends, its progress, and the folder
    it opens with `begin` once its input has passed every check.

    Examples:
        >>> import substrates, tempfile
        >>> run = substrates.run("sample", shots=10, seed=1, out=tempfile.mkdtemp(),
        ...                      progress=False)
        >>> run.provenance["backend"]["backend"], run.status
        ('quantum.aer', 'complete')
    """

    def __init__(
        self,
        method: str,
        out: Path,
        backends: Mapping[str, tuple[ResolvedConfig, Backend]],
        progress: Progress | None = None,
        replay: Sequence[Mapping[str, Any]] = (),
        entries: Sequence[Entry] = (),
    ) -> None:
        self.method = method
        self.entries = tuple(entries)
        self.out = out
        self.progress = progress
        self.replay = list(replay)
        """The jobs an interrupted execution of this same run submitted, in order (see
        Method.replays): handed to `journal`, they are collected instead of resubmitted."""
        self._configs = {name: config for name, (config, _) in backends.items()}
        self._backends = {name: backend for name, (_, backend) in backends.items()}
        self._folder: RunFolder | None = None
        self.record: dict[str, Any] = {}
        self._began = 0.0
        self._paces: dict[str, tuple[float, int] | None] = {}
        self._expected_s: float | None = None

    @classmethod
    def reopened(cls, method: Method[Any], folder: RunFolder, record: dict[str, Any]) -> RunContext:
        """The context of an earlier run, to finish it in place: its folder and record,
        and its first declared backend made again from the record."""
        backend = get_backend_class(record["backend"]["backend"]).from_dict(record["backend"])
        context = cls(method.name, folder.path.parent, {}, entries=method.summary)
        context._backends = {next(iter(method.backends)): backend}
        context._folder, context.record, context._began = folder, record, time.perf_counter()
        return context

    def backend(self, name: str, interface: type[B]) -> B:
        """The backend resolved for the parameter `name`, typed by its declared interface."""
        backend = self._backends[name]
        if not isinstance(backend, interface):
            raise SubstratesError(
                f"{self.folder.path if self._folder else self.method}: the {name} backend "
                f"{backend.name} is not {_kind(interface)}"
            )
        return backend

    def config(self, name: str) -> ResolvedConfig:
        """The config the backend `name` was built from (with the method's overrides)."""
        return self._configs[name]

    def reconfigured(self, name: str, interface: type[B], **options: Any) -> B:
        """The backend `name` again with some options changed (validated as the config's
        own are), e.g. a simulator with another seed."""
        backend = load_backend(self.config(name), **options)
        if not isinstance(backend, interface):
            raise TypeError(f"{self.method}: {name} is declared as another interface")
        return backend

    def report(self, task: str, done: int, total: int | None, /, **status: float) -> None:
        """Tell the progress bars how far `task` is (nothing when no one listens), and say
        once, on the log, how long the rest of a long task will take (`forecast`)."""
        if self.progress is not None:
            self.progress(task, done, total, **status)
        if total is not None:
            self.forecast(task, done, total)

    def forecast(self, task: str, done: int, total: int) -> None:
        """Once per task: after FORECAST_AFTER_S of it, its pace since its first report
        gives the time left; from FORECAST_FROM_S on, that is logged (the command line
        prints it: 'simulations: 64 of 1,000 in 9 s; about 2 min 11 s more at this pace')
        and kept in provenance.json's `forecast_s`."""
        now = time.perf_counter()
        pace = self._paces.setdefault(task, (now, done))
        if pace is None:  # said already
            return
        start, first = pace
        if done <= first or now - start < FORECAST_AFTER_S:
            return
        self._paces[task] = None
        left = (total - done) * (now - start) / (done - first)
        self.record.setdefault("forecast_s", {})[task] = round(left, 1)
        if left >= FORECAST_FROM_S:
            log.info(
                f"{task}: {done:,} of {total:,} in {now - start:.0f} s; about "
                f"{_duration(left)} more at this pace"
            )

    def expect(self, seconds: float, because: str) -> None:
        """Say, as the run starts, how long it is expected to take on two cores and what
        dominates it, when that is FORECAST_FROM_S or more ('expected: about 8 min 50 s on
        two cores: 1,000 NPE simulations of the cell, ~0.5 s each, dominate (--simulations
        sets them)'); kept in provenance.json's `expected_s`, also when not said. The
        figures are the method's own measurements; the measured pace (`forecast`) corrects
        them once work has begun."""
        self._expected_s = round(seconds, 1)
        if seconds >= FORECAST_FROM_S:
            log.info(f"expected: about {_duration(seconds)} on two cores: {because}")

    @property
    def folder(self) -> RunFolder:
        """The run folder; it exists once `begin` was called."""
        if self._folder is None:
            raise RuntimeError(f"{self.method}: the run folder is opened by begin()")
        return self._folder

    def begin(self, parameters: dict[str, Any], **record: Any) -> RunFolder:
        """Open the run folder and write provenance.json (status `running`): the
        parameters as the run resolved them, every backend, and `record`'s extra fields.
        The run's wall time counts from here."""
        (first, backend), *others = self._backends.items()
        folder = RunFolder.create(self.out, self.method)
        self.record = provenance(self.method, self._configs[first], backend, parameters)
        for name, other in others:
            self.record[f"{name}_backend"] = other.to_dict()
        self.record.update(record)
        if self._expected_s is not None:
            self.record["expected_s"] = self._expected_s
        folder.write_json("provenance.json", self.record)
        self._folder, self._began = folder, time.perf_counter()
        return folder

    def journal(
        self,
        *,
        announce: bool = False,
        replay: Sequence[Mapping[str, Any]] = (),
        recorded: Sequence[Mapping[str, Any]] = (),
    ) -> JobLog:
        """The run's jobs.json, appended as each hardware job is submitted (`recorded`: the
        entries it holds already, when a collection finishes the run)."""
        return JobLog(self.folder, announce=announce, replay=replay, recorded=recorded)

    def finish(self, outcome: Outcome) -> RunFolder:
        """Write what the run produced, then mark it complete."""
        folder = self.folder
        folder.write_table("results.parquet", outcome.results)
        for name, table in outcome.tables.items():
            folder.write_table(name, table)
        for name, text in outcome.texts.items():
            folder.write_text(name, text)
        for name, figure in outcome.figures.items():
            folder.save_figure(name, figure)
            close_figure(figure)
        folder.write_json(SUMMARY_FILE, labelled(outcome.summary, self.entries))
        self.record.update(
            status="complete",
            finished_at=now(),
            wall_time_s=round(time.perf_counter() - self._began, 6),
            summary=outcome.summary,
            **outcome.record,
        )
        if outcome.verdict is not None:
            self.record["verdict"] = outcome.verdict.to_dict()
        folder.write_json("provenance.json", self.record)
        return folder

    def failed(self, error: BaseException) -> None:
        """Record in provenance.json that the run stopped (`interrupted` by Ctrl-C or
        SIGTERM, else `failed`), with the error; nothing when no folder was opened."""
        if self._folder is None or self.record.get("status") != "running":
            return
        stopped = isinstance(error, KeyboardInterrupt | Terminated)
        self.record.update(
            status="interrupted" if stopped else "failed",
            error=f"{type(error).__name__}: {error}",
            finished_at=now(),
        )
        self._folder.write_json("provenance.json", self.record)


class RunFunction(Protocol):
    """A method's implementation: its validated parameters and a context in, an Outcome
    out."""

    def __call__(self, parameters: Any, context: RunContext, /) -> Outcome: ...


def resolve_backends(
    method: Method[Any], parameters: MethodParameters
) -> dict[str, tuple[ResolvedConfig, Backend]]:
    """Each backend the method declares, built from the config its parameter names, with
    the parameters that override a config option applied; a config of another interface,
    or an override its backend has no option for, is refused naming the method."""
    found: dict[str, tuple[ResolvedConfig, Backend]] = {}
    for name, interface in method.backends.items():
        resolved = load_config(getattr(parameters, name))
        chosen = resolved.backend_class
        if not issubclass(chosen, interface):
            same = chosen.substrate == interface.substrate
            what = f"not {interface.__name__}" if same else _kind(chosen)
            raise OptionError(
                f"{resolved.config.backend} is {what}; {method.name} needs {_kind(interface)}",
                option=name,
                path=resolved.path,
                field="backend" if same else "substrate",
            )
        options = {}
        for parameter, (target, option) in method.overrides.items():
            value = getattr(parameters, parameter)
            if target != name or value is None:
                continue
            if option not in chosen.Options.model_fields:
                raise OptionError(
                    f"needs a {name} config whose backend has a {option!r} option; "
                    f"{resolved.path.name} selects {resolved.config.backend}",
                    option=parameter,
                )
            options[option] = value
        found[name] = (resolved, load_backend(resolved, **options))
    return found


_SUBSTRATES = {
    "quantum": "a quantum",
    "mea": "an MEA",
    "events": "an events",
    "crn": "a CRN",
    "cml": "a CML",
}


def _kind(backend: type[Backend]) -> str:
    """'a quantum backend (QuantumBackend)': a backend class's substrate and interface."""
    substrate = _SUBSTRATES.get(backend.substrate, f"a {backend.substrate}")
    return f"{substrate} backend ({backend.__name__})"


def loaded(method: Method[Any], load: Callable[[], T]) -> T:
    """`load()`, a method's run or collect function; a third-party package its code needs
    and this installation lacks is one line naming the extra that installs it."""
    try:
        return load()
    except ModuleNotFoundError as error:
        missing = (error.name or "").split(".")[0]
        if not missing or missing == "substrates":
            raise
        extra = next(iter(method.backends.values())).extra
        raise SubstratesError(
            f"{method.name} needs the package {missing!r}, which the {extra!r} extra "
            f"installs: pip install 'substrates[{extra}]'"
        ) from None


def execute(
    method: Method[Any],
    parameters: MethodParameters,
    out: Path,
    progress: Progress | None = None,
    replay: Sequence[Mapping[str, Any]] = (),
) -> RunFolder:
    """Run `method` with validated `parameters`: backends resolved, the folder kept alive
    by a heartbeat while it runs, a failure recorded, the outcome written. `replay`: the
    jobs an interrupted execution submitted (for methods that replay). Returns the folder."""
    function = loaded(method, method.run)
    tracked = Tracked(progress)
    backends = resolve_backends(method, parameters)
    context = RunContext(method.name, out, backends, tracked, replay, method.summary)
    with supervised(out, tracked.state):
        try:
            outcome = function(parameters, context)
        except BaseException as error:
            context.failed(error)
            raise
        return context.finish(outcome)


class CollectFunction(Protocol):
    """Finishes a journalled run from its recorded jobs: the reopened context (its record
    and recorded backend) and the jobs in, the Outcome out."""

    def __call__(self, context: RunContext, jobs: list[dict[str, Any]], /) -> Outcome: ...


def collect(method: Method[Any], run_dir: str | Path) -> tuple[RunFolder, bool]:
    """Finish a run of `method` whose jobs were submitted earlier, fetching their results by
    job id; nothing is resubmitted. Returns the folder and whether anything was collected."""
    if method.collect is None:
        raise SubstratesError(f"{run_dir}: {method.name} runs submit no jobs to collect")
    found = pending(run_dir)
    if found is None:
        return RunFolder.existing(run_dir), False
    folder, record, jobs = found
    context = RunContext.reopened(method, folder, record)
    outcome = loaded(method, method.collect)(context, jobs)
    context.record["collected_at"] = now()
    return context.finish(outcome), True
