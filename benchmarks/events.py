"""Event-file decoding speed: millions of events per second reading EVT 2.0, EVT 3.0 and DAT
files of the same random events, ours (numba) against expelliarmus (C) on the file
expelliarmus wrote, and for EVT 3.0 also against the Rust `evt3` crate on the file we wrote
(which follows the Prophesee spec; expelliarmus' EVT 3.0 writer leaves TIME_HIGH out).
Best of --repeats, in one run.

    python benchmarks/events.py --events 5000000
"""

from __future__ import annotations

import argparse
import functools
import tempfile
import time
from pathlib import Path

import numpy as np

from substrates.datasets.events.events import EVENT_DTYPE, Events
from substrates.datasets.events.files import read_events, write_events

print = functools.partial(print, flush=True)  # rows appear as they are measured


def best(call, repeats: int) -> float:
    call()  # compile, warm the page cache
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    import evt3 as crate
    from expelliarmus import Wizard

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=5_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    n = args.events
    array = np.empty(n, EVENT_DTYPE)
    array["t"] = np.sort(rng.integers(0, n // 2, n))  # ~2 events per µs, as a busy sensor
    array["x"], array["y"] = rng.integers(0, 1280, n), rng.integers(0, 720, n)
    array["p"] = rng.integers(0, 2, n)
    theirs_dtype = np.dtype([("t", "<i8"), ("x", "<i2"), ("y", "<i2"), ("p", "u1")])
    theirs = np.empty(n, theirs_dtype)
    for name in "txyp":
        theirs[name] = array[name]
    print(f"| file ({n / 1e6:.0f} M events) | anchor | ours Mev/s | anchor Mev/s | ratio |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as root:
        for encoding, name in (("evt2", "e2.raw"), ("evt3", "e3.raw"), ("dat", "e.dat")):
            path = Path(root) / name
            Wizard(encoding=encoding).save(path, theirs)
            ours = best(lambda p=path: read_events(p, 1280, 720), args.repeats)
            anchor = best(lambda p=path, e=encoding: Wizard(encoding=e).read(p), args.repeats)
            print(f"| {encoding}, written by expelliarmus | expelliarmus | {n / ours / 1e6:.0f} | "
                  f"{n / anchor / 1e6:.0f} | {anchor / ours:.2f}x |")  # fmt: skip
        path = Path(root) / "spec.raw"
        write_events(Events(array, 1280, 720), path, "evt3")
        ours = best(lambda: read_events(path), args.repeats)
        anchor = best(lambda: crate.decode_file(str(path)), args.repeats)
        print(f"| evt3, written by substrates | evt3 crate (Rust) | {n / ours / 1e6:.0f} | "
              f"{n / anchor / 1e6:.0f} | {anchor / ours:.2f}x |")  # fmt: skip


if __name__ == "__main__":
    main()
