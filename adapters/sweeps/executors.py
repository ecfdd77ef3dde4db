"""Where sweep items run: `local` (this process, or a process pool) and `dask` (a
distributed.Client at an address, or a LocalCluster). Both hand out futures and yield them
as they complete."""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future
from typing import Any

from ...errors import SubstratesError
from ..config.executor import DaskOptions, LocalOptions, ResolvedExecutor


class Executor(ABC):
    """submit(fn, *args) → future; completed(futures) yields each as it finishes."""

    @abstractmethod
    def submit(self, fn: Callable[..., Any], *args: Any) -> Any: ...

    @abstractmethod
    def completed(self, futures: Iterable[Any]) -> Iterator[Any]: ...

    @abstractmethod
    def close(self) -> None:
        """Stop the workers this executor started (cancelling what has not run)."""

    def renew(self) -> None:  # noqa: B027 - a hook with a default, not an abstract method
        """Replace workers that broke (a local pool whose worker died); others recover by
        themselves, so by default nothing is done."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


class InProcess(Executor):
    """Items run one at a time in this process, when their turn comes."""

    def __init__(self) -> None:
        self.calls: dict[Future[Any], tuple[Callable[..., Any], tuple[Any, ...]]] = {}

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        future: Future[Any] = Future()
        self.calls[future] = (fn, args)
        return future

    def completed(self, futures: Iterable[Future[Any]]) -> Iterator[Future[Any]]:
        for future in futures:
            fn, args = self.calls.pop(future)
            future.set_running_or_notify_cancel()
            try:
                future.set_result(fn(*args))
            except Exception as error:
                future.set_exception(error)
            yield future

    def close(self) -> None:
        for future in self.calls:
            future.cancel()
        self.calls.clear()


class ProcessPool(Executor):
    """A pool of worker processes on this machine (spawned: no state inherited)."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.pool = self._start()

    def _start(self) -> Any:
        import multiprocessing
        import os
        from concurrent.futures import ProcessPoolExecutor

        from .lock import watch_parent

        return ProcessPoolExecutor(
            self.workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=watch_parent,
            initargs=(os.getpid(),),
        )

    def renew(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)
        self.pool = self._start()

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        return self.pool.submit(fn, *args)

    def completed(self, futures: Iterable[Future[Any]]) -> Iterator[Future[Any]]:
        from concurrent.futures import as_completed

        return as_completed(list(futures))

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


class Dask(Executor):
    """A Dask cluster: a scheduler at `address`, or a LocalCluster started here."""

    def __init__(self, options: DaskOptions) -> None:
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise SubstratesError(
                "the dask executor needs distributed: pip install 'substrates[cluster]'"
            ) from None
        self.cluster = None
        if options.address is None:
            self.cluster = LocalCluster(
                n_workers=options.workers,
                threads_per_worker=options.threads_per_worker,
                processes=True,
                dashboard_address=None,
                silence_logs=logging.ERROR,  # distributed.nanny's shutdown warnings
            )
            self.client = Client(self.cluster)
        else:
            try:
                self.client = Client(options.address, timeout=options.connect_timeout_s)
            except (OSError, TimeoutError) as error:
                raise SubstratesError(
                    f"cannot reach the Dask scheduler at {options.address} within "
                    f"{options.connect_timeout_s:g} s: {error}"
                ) from None

    def submit(self, fn: Callable[..., Any], *args: Any) -> Any:
        return self.client.submit(fn, *args, pure=False)

    def completed(self, futures: Iterable[Any]) -> Iterator[Any]:
        from distributed import as_completed

        return iter(as_completed(list(futures)))

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def make_executor(config: ResolvedExecutor) -> Executor:
    """The executor an executor config selects."""
    options = config.options
    if isinstance(options, LocalOptions):
        return InProcess() if options.workers == 1 else ProcessPool(options.workers)
    return Dask(options)
