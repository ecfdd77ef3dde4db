"""One reader fuzzed in this process (run by test_fuzz.py under RLIMIT_AS): the corpus of
earlier finds, every truncation of a valid file, every declared size set to 0, -1, 2^31,
2^63, 10^12 and beyond the file, expansion bombs of the textual formats, then random
bytes and header mutations from hypothesis (a fixed stream by default, so a run passes or
fails the same way on every machine; SUBSTRATES_FUZZ_SEED=random explores). Exits 0 when
every input was read or refused with the reader's own error type; otherwise prints the
input's file and the exception, saves the input to the corpus, and exits 1.

    python tests/fuzz/fuzz_worker.py READER [EXAMPLES]
"""

from __future__ import annotations

import hashlib
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path

from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))
from readers import CORPUS, DECLARED, ENV_EXAMPLES, ENV_SEED, Reader, readers

SECONDS_PER_INPUT = 20.0


class Broken(Exception):
    """A reader raised something other than its own error type, or took too long."""


def attempt(reader: Reader, name: str, data: bytes, folder: Path) -> None:
    path = _written(folder, reader, data, "input")
    began = time.perf_counter()
    try:
        reader.read(path)
    except reader.errors:
        pass
    except BaseException as error:
        keep(name, reader, data)
        raise Broken(
            f"{name}: {type(error).__name__}: {error}\n"
            + "".join(traceback.format_exception(error)[-6:])
        ) from None
    if time.perf_counter() - began > SECONDS_PER_INPUT:
        keep(name, reader, data)
        raise Broken(f"{name}: an input of {len(data)} bytes took over {SECONDS_PER_INPUT} s")


def cuts(length: int) -> list[int]:
    """Where to cut the valid file: every byte of its first 64 (headers), then 48 more
    positions spread over the rest."""
    head = list(range(min(length, 64)))
    return head + sorted({64 + (length - 64) * k // 48 for k in range(48)} - set(head))


def keep(name: str, reader: Reader, data: bytes) -> None:
    folder = CORPUS / name
    folder.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha1(data).hexdigest()[:12]
    (folder / f"{digest}{reader.suffix}").write_bytes(data)


def explored(examples: int) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Hypothesis settings for one strategy: `examples` inputs, no deadline, no database,
    drawn from ENV_SEED's stream (the same inputs every run) or, with
    SUBSTRATES_FUZZ_SEED=random, from a new stream each run (to explore; what it finds is
    saved to the corpus and then replayed by every run)."""

    def decorate(test: Callable[..., None]) -> Callable[..., None]:
        test = settings(
            max_examples=examples,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )(test)
        return test if ENV_SEED is None else seed(ENV_SEED)(test)

    return decorate


def main(name: str, examples: int) -> int:
    reader = readers()[name]
    with tempfile.TemporaryDirectory() as root:
        folder = Path(root)
        valid = reader.valid(folder)
        reader.read(_written(folder, reader, valid, "seed_copy"))  # the seed itself must read
        found = sorted((CORPUS / name).glob("*")) if (CORPUS / name).is_dir() else []
        for path in found:
            attempt(reader, name, path.read_bytes(), folder)
        for cut in cuts(len(valid)):
            attempt(reader, name, valid[:cut], folder)
        for declared in reader.sizes:
            assert declared.field in valid, f"{name}: {declared.field!r} is not in the seed"
            for size in (*DECLARED, len(valid) + 1, 8 * len(valid)):
                attempt(
                    reader, name, valid.replace(declared.field, declared.render(size), 1), folder
                )
        for bomb in reader.bombs:
            attempt(reader, name, bomb, folder)

        @explored(examples)
        @given(st.binary(max_size=2048))
        def random_bytes(data: bytes) -> None:
            attempt(reader, name, data, folder)

        @explored(examples)
        @given(st.lists(st.tuples(st.integers(0, 4095), st.integers(0, 255)), max_size=8))
        def mutated(flips: list[tuple[int, int]]) -> None:
            data = bytearray(valid)
            for position, value in flips:
                data[position % len(data)] = value
            attempt(reader, name, bytes(data), folder)

        random_bytes()
        mutated()
    return 0


def _written(folder: Path, reader: Reader, data: bytes, stem: str) -> Path:
    if reader.place is not None:
        return reader.place(folder, data)
    path = folder / f"{stem}{reader.suffix}"
    path.write_bytes(data)
    return path


if __name__ == "__main__":
    try:
        name = sys.argv[1]
        default = readers()[name].examples or ENV_EXAMPLES
        sys.exit(main(name, int(sys.argv[2]) if len(sys.argv) > 2 else default))
    except Broken as broken:
        print(broken, file=sys.stderr)
        sys.exit(1)
