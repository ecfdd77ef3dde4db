"""jobs.json: hardware job ids, written the moment a job is submitted."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ...errors import InputFileError, SubstratesError
from .folder import RECOVER, RunFolder
from .provenance import now

JOBS_FILE = "jobs.json"
log = logging.getLogger("substrates")


class JobLog:
    """A JobJournal that appends each submitted job to the run folder's jobs.json; with
    `replay` (an interrupted execution's jobs), it hands those back while the requests
    repeat, in order, so they are collected rather than submitted again. `announce`: log
    each new job with the command that collects it (for runs `substrates jobs collect`
    can finish). `recorded`: the entries jobs.json already holds, kept (a collection adds
    what each ended job reports to them)."""

    def __init__(
        self,
        folder: RunFolder,
        *,
        announce: bool = False,
        replay: Sequence[Mapping[str, Any]] = (),
        recorded: Sequence[Mapping[str, Any]] = (),
    ) -> None:
        self.folder = folder
        self.announce = announce
        self.jobs: list[dict[str, Any]] = [dict(job) for job in recorded]
        self.pending = [dict(job) for job in replay]

    def replay(self, info: Mapping[str, Any]) -> str | None:
        """The next earlier job if it was submitted for this same request, else None (and
        none after: the requests have diverged)."""
        if self.pending and all(self.pending[0].get(k) == v for k, v in info.items()):
            return str(self.pending.pop(0)["job_id"])
        self.pending.clear()
        return None

    def __call__(self, job_id: str, info: Mapping[str, Any]) -> None:
        self.jobs.append({"job_id": job_id, "submitted_at": now(), **info})
        self.folder.write_json(JOBS_FILE, {"jobs": self.jobs})
        if self.announce and not info.get("replayed"):
            log.info(
                "submitted job %s to %s; waiting. If interrupted, finish it with: "
                "substrates jobs collect %s",
                job_id,
                info.get("device"),
                self.folder.path,
            )

    def finished(self, job_id: str, info: Mapping[str, Any]) -> None:
        """Add what an ended job reports (usage, execution spans) to its latest entry."""
        for job in reversed(self.jobs):
            if job["job_id"] == job_id:
                job.update({"finished_at": now(), **info})
                self.folder.write_json(JOBS_FILE, {"jobs": self.jobs})
                return


def recorded_jobs(folder: RunFolder) -> list[dict[str, Any]]:
    """The jobs a run submitted ([] when it ran synchronously)."""
    if not folder.file(JOBS_FILE).is_file():
        return []
    jobs = folder.read_record(JOBS_FILE).get("jobs")
    if not isinstance(jobs, list) or not all(
        isinstance(job, dict) and isinstance(job.get("job_id"), str) for job in jobs
    ):
        raise InputFileError(
            f'{folder.file(JOBS_FILE)}: damaged: its "jobs" must be a list of objects, '
            f'each with a "job_id" string; {RECOVER[JOBS_FILE]}'
        )
    return list(jobs)


def pending(run_dir: str | Path) -> tuple[RunFolder, dict[str, Any], list[dict[str, Any]]] | None:
    """A run folder to finish from its jobs: (folder, provenance, jobs), or None where it is
    already complete; a SubstratesError where it recorded no jobs."""
    folder = RunFolder.existing(run_dir)
    record = folder.read_record("provenance.json")
    if record.get("status") == "complete" and folder.file("results.parquet").is_file():
        return None
    jobs = recorded_jobs(folder)
    if not jobs:
        raise SubstratesError(
            f"{folder.path}: this run submitted no jobs that could be collected; run it again"
        )
    return folder, record, jobs
