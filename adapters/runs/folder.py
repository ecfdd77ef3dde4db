"""A run folder: every file is written to a temporary name, then renamed into place."""

from __future__ import annotations

import json
import os
import secrets
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from ...errors import InputFileError, SubstratesError

if TYPE_CHECKING:  # pyarrow is imported where a table is written or read: the CLI's
    import pyarrow as pa  # signal handling imports this module first thing

RECOVER = {
    "jobs.json": (
        'put back the object substrates wrote, {"jobs": [{"job_id": "...", ...}, ...]} '
        "(the ids are in the provider's job list), or delete jobs.json and run again"
    ),
    "provenance.json": "restore it from a copy, or run the method again into a new folder",
    "": "restore it from a copy, or run again",
}
"""How to recover each file of a run folder that a hand edit has damaged."""


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def _fsync_folder(path: Path) -> None:
    """Make a rename in `path` durable (a no-op where folders cannot be opened)."""
    try:
        descriptor = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


class RunFolder:
    """The folder one run writes: results.parquet, provenance.json, plots, jobs.json."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    @classmethod
    def create(cls, root: str | os.PathLike[str], method: str) -> RunFolder:
        """A new, empty folder `root/<method>-<UTC time>-<random>`: 48 random bits, made
        with an exclusive create (a name taken meanwhile is drawn again)."""
        root = Path(root)
        if root.exists() and not root.is_dir():
            raise SubstratesError(f"{root}: not a folder (the run folders go in it)")
        root.mkdir(parents=True, exist_ok=True)
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        for _ in range(16):
            path = root / f"{method}-{stamp}-{secrets.token_hex(6)}"
            try:
                path.mkdir()
            except FileExistsError:
                continue
            return cls(path)
        raise SubstratesError(f"{root}: could not create a run folder with a new name")

    @classmethod
    def existing(cls, path: str | os.PathLike[str]) -> RunFolder:
        """A folder written by an earlier run; it must hold provenance.json."""
        folder = cls(path)
        if not (folder.path / "provenance.json").is_file():
            raise SubstratesError(f"{folder.path}: not a run folder (no provenance.json)")
        return folder

    def file(self, name: str) -> Path:
        return self.path / name

    @contextmanager
    def _atomic(self, name: str, mode: str) -> Iterator[IO[Any]]:
        """Write to a temporary name, flush it to disk, rename it into place, and flush the
        folder: after a crash the file is whole or absent, never half-written."""
        with tempfile.NamedTemporaryFile(
            mode, dir=self.path, prefix=f".{name}.", suffix=".part", delete=False
        ) as handle:
            try:
                yield handle
                handle.flush()
                os.fsync(handle.fileno())
            except BaseException:
                handle.close()
                os.unlink(handle.name)
                raise
        os.chmod(handle.name, 0o666 & ~_umask())  # temp files are private; results are not
        os.replace(handle.name, self.path / name)
        _fsync_folder(self.path)

    def write_json(self, name: str, record: Any) -> None:
        with self._atomic(name, "w") as handle:
            json.dump(record, handle, indent=2, sort_keys=False, default=str)
            handle.write("\n")

    def write_text(self, name: str, text: str) -> None:
        with self._atomic(name, "w") as handle:
            handle.write(text)

    def read_json(self, name: str) -> Any:
        """The JSON file `name`; an InputFileError naming it where it is not JSON (a
        hand edit gone wrong: its own files are written whole or not at all)."""
        path = self.file(name)
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise InputFileError(
                f"{path}: damaged: not JSON ({error}); {RECOVER.get(name, RECOVER[''])}"
            ) from None

    def read_record(self, name: str) -> dict[str, Any]:
        """The JSON object in `name` (provenance.json, jobs.json, ...); refused by name
        where it holds anything else."""
        record = self.read_json(name)
        if not isinstance(record, dict):
            raise InputFileError(
                f"{self.file(name)}: damaged: holds a JSON {type(record).__name__} where "
                f"substrates writes an object; {RECOVER.get(name, RECOVER[''])}"
            )
        return record

    def write_table(self, name: str, table: pa.Table) -> None:
        import pyarrow.parquet as pq

        with self._atomic(name, "wb") as handle:
            pq.write_table(table, handle)

    def read_table(self, name: str) -> pa.Table:
        import pyarrow.parquet as pq

        return pq.read_table(self.file(name))

    def save_figure(self, name: str, figure: Any) -> None:
        """Save a matplotlib figure as PNG."""
        with self._atomic(name, "wb") as handle:
            figure.savefig(handle, format="png", dpi=120, bbox_inches="tight")

    def write_netcdf(self, name: str, dataset: Any) -> None:
        """Write an xarray Dataset as netCDF (to a temporary name, then renamed)."""
        with self._atomic(name, "wb") as handle:
            handle.write(dataset.to_netcdf())
