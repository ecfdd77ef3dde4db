"""CML speed: the processing chain in link-timesteps per second, ours against pycomlink's,
and rain-map reconstruction in seconds per map.

Both chains (trsl, rolling-std wet/dry, constant baseline, Schleiss wet-antenna
correction, A -> R) run on the same real data (pycomlink's example file) in this one run.
Each is run once to compile its numba kernels, then timed (best of --repeats).
Reconstruction: the same --maps 10-minute maps by our IDW and kriging (a fixed variogram,
pycomlink's; and the default, fitted per map) against pycomlink's interpolators, on the
simulated 100-link network (hardware_configs/cml_sim.yaml, 64 x 64 cells) and on
pycomlink's real links (the wettest hours of the validation day, 2018-05-20, on the 2 km
grid over them); each interpolator is called once on the first map before timing (first
calls compile or build caches on both sides). On the simulated network also the Bayesian
reconstruction (4 chains x 300 HMC iterations, float32).

    python benchmarks/cml.py --days 1 --links 500 --maps 16
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from publish import published
from timing import arguments

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
    parser.add_argument("--maps", type=int, default=16, help="maps in the reconstruction test")
    args = arguments(parser, links=20, repeats=1, maps=2)
    chain(args)
    reconstruction(args.maps, real=False)
    reconstruction(args.maps, real=True)


def chain(args: argparse.Namespace) -> None:
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


def reconstruction(maps: int, real: bool) -> None:
    """Seconds per map, ours and pycomlink's, on the simulated network or the real one."""
    import torch
    from cml_evaluation import VALIDATION, wettest_window
    from pycomlink.spatial.interpolator import IdwKdtreeInterpolator, OrdinaryKrigingInterpolator

    from substrates.adapters.config import backend_from_config
    from substrates.adapters.runs.cml_inputs import grid_for, link_inputs
    from substrates.models.cml.bayesian import BayesianSettings, reconstruct_bayesian
    from substrates.models.cml.grid import link_midpoints_km
    from substrates.models.cml.kriging import OrdinaryKriging, Variogram
    from substrates.models.cml.path_operator import PathOperator
    from substrates.models.cml.reconstruct import InverseDistance

    if real:
        backend = create_backend("cml.opensense")
        start, _ = wettest_window(VALIDATION[0], hours=max(1, -(-maps // 6)))
    else:
        backend = backend_from_config("cml_sim")
        start = np.datetime64(backend.capabilities.start, "ns") + np.timedelta64(1, "h")
    inputs = link_inputs(backend, start, start + np.timedelta64(10 * maps, "m"), 10)
    grid = grid_for(backend, inputs.links, None)
    points, cells = link_midpoints_km(inputs.links, grid.origin), grid.points()
    x, y = cells[:, 0].reshape(grid.ny, grid.nx), cells[:, 1].reshape(grid.ny, grid.nx)
    # pycomlink's interpolators are given the links with a rain rate; ours skip NaN alone
    rains = inputs.path_rain_mm_h

    def per_map(interpolate) -> float:
        interpolate(rains[0])  # first calls compile or fill caches: not timed, on both sides
        began = time.perf_counter()
        for rain in rains:
            interpolate(rain)
        return (time.perf_counter() - began) / len(rains)

    def pycomlink(interpolator):
        def call(rain: np.ndarray) -> np.ndarray:
            has = np.isfinite(rain)
            return interpolator(points[has, 0], points[has, 1], rain[has], xgrid=x, ygrid=y)

        return call

    fixed = OrdinaryKriging(points, cells, Variogram.from_sill(0.9, 1.0, 0.1))
    fitted = OrdinaryKriging(points, cells)
    # pycomlink's kriging has one variogram: sill 0.9, range 1, nugget 0.1
    theirs_kriging = per_map(pycomlink(OrdinaryKrigingInterpolator()))
    timings = {
        "idw": (
            per_map(InverseDistance(points, cells)),
            per_map(pycomlink(IdwKdtreeInterpolator(nnear=8, p=2))),
        ),
        "kriging (pycomlink's variogram)": (per_map(fixed), theirs_kriging),
        "kriging (variogram fitted per map)": (per_map(fitted), theirs_kriging),
    }
    where = "real links, 2018-05-20" if real else "simulated links"
    links = int(np.isfinite(inputs.path_rain_mm_h).any(axis=0).sum())
    print(f"\n{maps} maps, {links} {where}, {grid.ny} x {grid.nx} cells")
    print("| method | substrates s/map | pycomlink s/map | ratio |")
    print("|---|---|---|---|")
    for method, (mine, theirs) in timings.items():
        print(f"| {method} | {mine:.4f} | {theirs:.4f} | {theirs / mine:.1f}x |")
    if real:
        return
    operator = PathOperator.from_dataset(inputs.links, grid, dtype=torch.float32)
    began = time.perf_counter()
    reconstruct_bayesian(
        inputs.attenuation_db,
        inputs.path_rain_mm_h,
        operator,
        (grid.ny, grid.nx),
        BayesianSettings(),
    )
    bayes = (time.perf_counter() - began) / maps
    slower = bayes / timings["kriging (variogram fitted per map)"][0]
    print(f"| bayes (HMC, 4 chains x 300) | {bayes:.2f} | (none) | {slower:.0f}x our kriging |")


if __name__ == "__main__":
    with published("cml"):
        main()
