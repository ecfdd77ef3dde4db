"""The CML processing chain: link-timesteps per second, ours against pycomlink's.

Both chains (trsl, rolling-std wet/dry, constant baseline, Schleiss wet-antenna
correction, A -> R) run on the same real data (pycomlink's example file) in this one run.
Each is run once to compile its numba kernels, then timed (best of --repeats).

    python benchmarks/cml.py --days 1 --links 500
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from substrates.backends.registry import create_backend
from substrates.models.cml.processing import process
from substrates.models.cml.pycomlink_reference import pycomlink_chain


def best(call, data, repeats: int) -> float:
    call(data)  # compile
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call(data)
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=1)
    parser.add_argument("--links", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    start = np.datetime64("2018-05-13T00:00")
    data = create_backend("cml.opensense").load(start, start + np.timedelta64(args.days, "D"))
    data = data.isel(cml_id=slice(0, args.links))
    samples = data.sizes["cml_id"] * data.sizes["sublink_id"] * data.sizes["time"]
    ours = best(process, data, args.repeats)
    theirs = best(pycomlink_chain, data, args.repeats)
    sizes = data.sizes
    print(
        f"{sizes['cml_id']} links x {sizes['sublink_id']} sublinks x {sizes['time']} minutes"
        f" = {samples:,} link-timesteps, best of {args.repeats}"
    )
    print("| chain | seconds | link-timesteps / s | ratio |")
    print("|---|---|---|---|")
    print(f"| substrates | {ours:.3f} | {samples / ours:,.0f} | {theirs / ours:.1f}x |")
    print(f"| pycomlink | {theirs:.3f} | {samples / theirs:,.0f} | 1.0x |")


if __name__ == "__main__":
    main()
