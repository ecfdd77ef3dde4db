"""The sweep folder. Every finished item is committed as one Parquet fragment, written to
a temporary name and renamed (the commit); the fragments are the truth, the manifest and
the combined results.parquet are rebuilt from them.

    OUT/sweep.json            method, fingerprint, grid, items (written once)
    OUT/items/<id>.parquet    one fragment per finished item
    OUT/failed/<id>.json      error and traceback of an item's last failed attempt
    OUT/started/<id>          an item a worker has started and not yet committed
    OUT/driver.lock           who drives the sweep (see lock.py)
    OUT/runs/<id>/<run>/      the run folder of each execution of an item
    OUT/manifest.json         done and failed ids, counts (rewritten as items finish, at
                              most once a second)
    OUT/results.parquet       every fragment, in grid order
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from ...errors import SubstratesError
from ..runs.folder import RunFolder
from ..runs.provenance import now
from .grid import Item
from .lock import LOCK


def _whole_parquet(path: Path) -> bool:
    """Whether the file starts and ends with Parquet's magic bytes (a cut file does not)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(4)
            handle.seek(-4, 2)
            return head == b"PAR1" and handle.read(4) == b"PAR1"
    except OSError:
        return False


class SweepFolder:
    """A sweep's output folder (see the module doc)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.root = RunFolder(self.path)

    @classmethod
    def check(cls, path: str | Path, fingerprint: str) -> bool:
        """Whether `path` holds this sweep already (False: absent or empty). A folder
        holding another sweep, or files that are not a sweep's, is refused, untouched."""
        folder = cls(path)
        if folder.path.exists() and not folder.path.is_dir():
            raise SubstratesError(f"{folder.path}: not a folder; choose another --out")
        if (folder.path / "sweep.json").is_file():
            try:
                held = folder.root.read_json("sweep.json")
            except (OSError, ValueError) as error:
                raise SubstratesError(
                    f"{folder.path}/sweep.json cannot be read ({error}); move "
                    "the folder away or choose another --out"
                ) from None
            if not isinstance(held, dict) or held.get("fingerprint") != fingerprint:
                raise SubstratesError(
                    f"{folder.path} holds a different sweep ({held.get('method')}, "
                    f"{len(held.get('items', []))} items, started {held.get('created_at')}); "
                    "choose another --out, or rerun that sweep's own grid to resume it"
                )
            return True
        if folder.path.exists() and any(p.name != LOCK for p in folder.path.iterdir()):
            raise SubstratesError(
                f"{folder.path} is not empty and holds no sweep; choose another --out"
            )
        return False

    @classmethod
    def open(
        cls,
        path: str | Path,
        method: str,
        fingerprint: str,
        record: dict[str, Any],
        items: list[Item],
        held: bool,
    ) -> SweepFolder:
        """The folder of this sweep: reopened to resume (`held`, from `check`), or created."""
        folder = cls(path)
        if held:
            return folder
        for sub in ("items", "failed", "runs", "started"):
            (folder.path / sub).mkdir(parents=True, exist_ok=True)
        items_record = [{"id": item.id, "parameters": item.parameters} for item in items]
        folder.root.write_json(
            "sweep.json",
            {
                "method": method,
                "fingerprint": fingerprint,
                "created_at": now(),
                **record,
                "items": items_record,
            },
        )
        return folder

    def fragment(self, item: str) -> Path:
        return self.path / "items" / f"{item}.parquet"

    def runs(self, item: str) -> Path:
        """Where the runs of `item` put their run folders (one per execution)."""
        return self.path / "runs" / item

    def done(self) -> set[str]:
        """Committed items. A fragment that is not whole Parquet (damaged after it was
        written) is removed, so its item runs again."""
        found = set()
        for path in (self.path / "items").glob("*.parquet"):
            if _whole_parquet(path):
                found.add(path.stem)
            else:
                path.unlink(missing_ok=True)
        return found

    def started(self, item: str) -> None:
        """Mark `item` as started by a worker (cleared by its commit or failure): an item
        still marked when its worker died may be the one that killed it."""
        (self.path / "started" / item).touch()

    def was_started(self, item: str) -> bool:
        return (self.path / "started" / item).exists()

    def clear_started(self, item: str) -> None:
        (self.path / "started" / item).unlink(missing_ok=True)

    def failed(self) -> dict[str, dict[str, Any]]:
        folder = RunFolder(self.path / "failed")
        return {p.stem: folder.read_json(p.name) for p in folder.path.glob("*.json")}

    def commit(self, item: str, table: pa.Table) -> None:
        """The item's rows, atomically; from now on the item is done."""
        RunFolder(self.path / "items").write_table(f"{item}.parquet", table)
        failure = self.path / "failed" / f"{item}.json"
        failure.unlink(missing_ok=True)
        self.clear_started(item)

    def record_failure(self, item: str, error: str, details: str, attempts: int) -> None:
        RunFolder(self.path / "failed").write_json(
            f"{item}.json",
            {
                "item": item,
                "error": error,
                "traceback": details,
                "attempts": attempts,
                "failed_at": now(),
            },
        )
        self.clear_started(item)

    def write_manifest(
        self, items: list[Item], done: set[str], failed: set[str], **extra: Any
    ) -> None:
        """manifest.json from what the driver knows (the fragments stay the truth)."""
        pending = sum(1 for i in items if i.id not in done and i.id not in failed)
        self.root.write_json(
            "manifest.json",
            {
                "updated_at": now(),
                "items": len(items),
                "done": sorted(done),
                "failed": sorted(failed - done),
                "pending": pending,
                **extra,
            },
        )

    def combine(self, items: list[Item]) -> pa.Table | None:
        """results.parquet: the fragments of the finished items, in grid order."""
        tables = [
            pq.read_table(self.fragment(i.id)) for i in items if self.fragment(i.id).is_file()
        ]
        if not tables:
            return None
        table = pa.concat_tables(tables, promote_options="permissive")
        self.root.write_table("results.parquet", table)
        return table
