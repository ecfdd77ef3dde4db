"""`substrates run cml-reconstruct`: rain maps from links by IDW, ordinary kriging, the
Bayesian inverse problem and diffusion priors, scored against the simulator's truth or a
radar reference."""

from __future__ import annotations

from dataclasses import asdict

from ...backends.cml.base import CMLBackend, CMLSimulatorBackend
from ...backends.gpu import no_cuda_reason
from ...errors import OptionError
from ...models.cml.grid import link_ends_km
from ..runs.cml_inputs import (
    climatological_variogram,
    grid_for,
    link_inputs,
    near_links,
    radar_reference,
    references,
    simulator_reference,
    time_range,
)
from ..runs.cml_maps import reconstruct
from ..runs.cml_outputs import scores, summary, write_fields
from ..runs.plots import cml_maps_figure
from .cml_reconstruct import CmlReconstructParameters
from .lifecycle import Outcome, RunContext

NEAR_KM = 5.0
"""Cells farther than this from every link are left out of the field scores (km)."""
SECONDS_PER_HMC_FIT = 6.0
"""One `bayes` map with the default 4 chains × 300 iterations on two cores (s): the
simulated default's 600 maps were forecast at about an hour."""


def run_cml_reconstruct(p: CmlReconstructParameters, run: RunContext) -> Outcome:
    """Reconstruct rain fields every `p.every` minutes of [start, end] from the links of
    the `hardware` source (a simulator, or OpenSense data: `p.data`) and score them
    against the simulator's truth or a radar reference (for pycomlink's example data, by
    default, the ones shipped with it). The parameters are `substrates run
    cml-reconstruct`'s (adapters/methods/cml_reconstruct.py)."""
    backend = run.backend("hardware", CMLBackend)
    if p.device.startswith("cuda") and (reason := no_cuda_reason()):
        raise OptionError(f"{p.device}: {reason}", option="device")
    chain, settings, diffusion = p.chain(), p.bayesian(), p.diffusion()
    areal, path, label = references(backend, (p.areal_reference, p.path_reference))
    first, last = time_range(backend, p.start, p.end, path)
    corrected = p.wet_antenna_by == "chain"
    inputs = link_inputs(backend, first, last, p.every, p.true_baseline, chain, corrected)
    grid = grid_for(backend, inputs.links, p.cell_km)
    if "bayes" in p.methods:
        maps = len(inputs.times)
        run.expect(
            maps * SECONDS_PER_HMC_FIT * (p.chains / 4) * (p.iterations / 300),
            f"{maps:,} maps, an HMC fit each ({p.chains} chains × {p.iterations} iterations); "
            "--methods idw,kriging skips them",
        )
    reference = (
        simulator_reference(backend, first, last, p.every, grid)
        if isinstance(backend, CMLSimulatorBackend)
        else radar_reference(areal, path, grid, inputs, label)
    )
    climatology = None if p.variogram == "fitted" else climatological_variogram(last, p.every)
    grid_record = {"cell_km": grid.cell_km, "nx": grid.nx, "ny": grid.ny, "origin": grid.origin}
    variogram = "fitted per map" if climatology is None else asdict(climatology)
    given = {"data", "true_baseline", "wet_antenna_by", "baseline", "prior", "device"}
    given |= {"precision", "seed"}
    parameters = p.model_dump(include=given) | {"start": str(first), "end": str(last)}
    parameters |= {"every_min": p.every, "grid": grid_record, "near_km": NEAR_KM}
    parameters |= {"chain": asdict(chain), "methods": list(p.methods), "variogram": variogram}
    parameters |= {"bayesian": asdict(settings), "diffusion": asdict(diffusion)}
    parameters["reference"] = reference.label
    folder = run.begin(parameters, cleaning=backend.cleaning.to_dict())
    samplers = (settings, diffusion, p.prior)
    fields, timings, extra = reconstruct(
        inputs, grid, p.methods, samplers, (p.device, p.precision), p.seed, run.report, climatology
    )
    mask = near_links(grid, inputs.links, NEAR_KM)
    table = scores(inputs, grid, fields, reference, mask)
    write_fields(folder, inputs, grid, fields, extra, reference, p.every, mask)
    ends = link_ends_km(inputs.links, grid.origin)
    figure = cml_maps_figure(
        grid, ends, inputs.times, fields, extra["std"], reference, f"{backend.name}: rain maps"
    )
    headline = summary(table, timings, len(inputs.times), extra)
    return Outcome(table, headline, figures={"maps.png": figure})
