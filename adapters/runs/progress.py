"""How far a run is: the Progress a run function is told, and bars that draw it."""

from __future__ import annotations

import sys
from types import TracebackType
from typing import Any, Protocol


class Progress(Protocol):
    """Told how far a run is: `task` names what is counted (a bar per task), `done` of
    `total` (None: open-ended, e.g. sweeps until convergence); `status` is shown beside."""

    def __call__(self, task: str, done: int, total: int | None, /, **status: float) -> None: ...


class Bars:
    """A `Progress` that draws one bar per task on stderr; bars are off when stderr is
    not a terminal (logs and pipes stay clean). Use it as a context manager, so the bars
    are closed however the run ends."""

    def __init__(self) -> None:
        self._bars: dict[str, Any] = {}

    def __call__(self, task: str, done: int, total: int | None, /, **status: float) -> None:
        from tqdm import tqdm

        bar = self._bars.get(task)
        if bar is None:
            bar = self._bars[task] = tqdm(
                desc=f"{task:>12}", total=total, file=sys.stderr, leave=False, disable=None
            )
        bar.total = total
        bar.update(done - bar.n)
        if status:
            bar.set_postfix({key: f"{value:.2e}" for key, value in status.items()})

    def close(self) -> None:
        for bar in self._bars.values():
            bar.close()
        self._bars.clear()

    def __enter__(self) -> Bars:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()
