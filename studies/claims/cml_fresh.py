"""CML: does the diffusion prior (PnP) map rain better than point-sensor interpolation when
every method reads the same links?

Each case is one independent realisation of the fresh generator (benchmarks/
cml_evaluation.py's case `fresh`: a spectrum, intensity, anisotropy and motion used
nowhere else, on a 1 km truth grid, each link with its own k–R power law, foreign wet
antennas and a fluctuating baseline), reconstructed on 2 km cells over 3 h of 15-minute
maps and scored on every cell within 5 km of a link. Two runs per case:

- at the defaults: IDW and kriging read the standard chain's output, PnP each sublink's
  attenuation above its latent dry reference (what cml-reconstruct does by default, so
  the methods read different inputs);
- at equal inputs (`--true-baseline`): every method reads the links' true rain
  attenuation (the simulator's, no chain and no wet antennas): the gain that belongs to
  the prior is the difference there (evaluation.md, section 2).

The goal is judged at equal inputs; the default rows stand beside it. The truth is a
log-normal random field, the family of GRF-HMC's prior (not of PnP's learned prior), on
another grid and through another forward model than the methods invert.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..declaration import Case, Goal, Role, Study

FOREIGN_WET_ANTENNA = [10.0, 0.5, 0.15]
"""Pastorek wet antennas no reconstruction assumes: A_max 10 dB, ζ 0.5, d 0.15."""
MEASUREMENT = {
    "wet_antenna_pastorek": FOREIGN_WET_ANTENNA,
    "power_law_spread": [0.2, 0.05],
    "baseline_fluctuation_db": 0.2,
    "baseline_fluctuation_min": 30.0,
}
"""The native and fresh cases' measurement model beyond cml.sim's defaults. The k–R
spread (SD 0.2 of ln k, 0.05 of α per link) is an assumption of the order that drop-size
variability gives between events and climates (Berne & Uijlenhoet 2007, Leijnse et al.
2008), not fitted to any data; the fluctuation is of the order of the dry-weather
standard deviation of pycomlink's example links (0.1–0.3 dB)."""
NATIVE_CELL_KM, RECONSTRUCTION_CELL_KM = 1.0, 2.0
FRESH = {
    "seed": 29,
    "links": 150,
    "grid_cells": 64,
    "cell_km": NATIVE_CELL_KM,
    "spectrum_slope": 2.0,
    "sigma_log": 1.3,
    "median_rain_mm_h": 3.0,
    "anisotropy": 4.0,
    "orientation_deg": 120.0,
    "velocity_km_h": [30.0, -10.0],
    "wet_fraction": 0.3,
    "duration_h": 15,
    **MEASUREMENT,
}
"""The fresh generator, declared on 2026-12-06 before any method ran on it (seed 29,
reconstructed from 02:00 to 14:00 by benchmarks/cml_evaluation.py)."""
WINDOW = {"start": "2020-06-01T02:00", "end": "2020-06-01T05:00"}
"""Each case's maps: 3 h after 2 h of simulated history (the chain's dry start)."""
DEFAULT_METHODS = ("idw", "kriging", "pnp")
"""GRF-HMC (`bayes`) is left out: 140 s a case on two cores for a row beside the goal."""
EQUAL_METHODS = ("idw", "kriging", "pnp")


def _rmse(fields: Any, methods: tuple[str, ...], suffix: str) -> list[dict[str, Any]]:
    """Each method's RMSE (mm/h) over every scored cell of every map of `fields`."""
    import numpy as np

    truth = fields["rain_reference"].values
    keep = np.isfinite(truth) & fields["scored"].values.astype(bool)[None]
    rows = []
    for method in methods:
        error = fields[f"rain_{method}"].values[keep] - truth[keep]
        rows.append(
            {
                "method": method + suffix,
                "rmse_mm_h": float(np.sqrt(np.mean(error**2))),
                "bias_mm_h": float(error.mean()),
                "cells": int(keep.sum()),
            }
        )
    return rows


def run_case(case: Case, settings: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Simulate the case's realisation; reconstruct it at the defaults and at equal inputs."""
    import tempfile
    from pathlib import Path

    import xarray as xr
    import yaml

    from ...adapters.methods.run_method import run

    options = {**FRESH, "seed": case.parameters["seed"], "duration_h": 5.5}
    common: dict[str, Any] = {
        **WINDOW,
        "cell_km": RECONSTRUCTION_CELL_KM,
        "draws": int(settings["draws"]),
    }
    with tempfile.TemporaryDirectory() as scratch:
        config = Path(scratch) / "fresh.yaml"
        config.write_text(
            yaml.safe_dump({"substrate": "cml", "backend": "cml.sim", "options": options})
        )
        out = Path(scratch) / "runs"
        common |= {"hardware": str(config), "out": out, "progress": False}
        default = run("cml-reconstruct", methods=DEFAULT_METHODS, **common)
        equal = run(
            "cml-reconstruct",
            methods=EQUAL_METHODS,
            true_baseline=True,
            baseline="chain",
            dry_limit_db=None,
            **common,
        )
        with xr.open_dataset(default.path / "fields.nc") as fields:
            rows = _rmse(fields, DEFAULT_METHODS, "")
        with xr.open_dataset(equal.path / "fields.nc") as fields:
            rows += _rmse(fields, EQUAL_METHODS, " (true baseline)")
    return rows


def _case(seed: int, role: Role, prefix: str = "fresh") -> Case:
    return Case(
        f"{prefix}-{seed}",
        role,
        {"seed": seed},
        shares="cml.sim's log-normal random field: the family of GRF-HMC's prior",
        differs=(
            "spectrum, intensity, anisotropy, motion; 1 km truth, 2 km maps; per-link k–R, "
            "foreign wet antennas, baseline fluctuation"
        ),
    )


STUDY = Study(
    name="cml-fresh",
    substrate="cml",
    claim=(
        "on the same links, the diffusion prior's PnP maps rain at least 10% more "
        "accurately than IDW and kriging"
    ),
    seed_figure=(
        "diffusion prior beats point-sensor interpolation (no figure at equal inputs); "
        "not comparable: simulated fields from a GRF family"
    ),
    goal=Goal(
        metric="rmse_mm_h",
        method="pnp (true baseline)",
        baselines=("idw (true baseline)", "kriging (true baseline)"),
        better="lower",
        margin=0.10,
        relative=True,
        min_replicates=10,
        unit="(field RMSE, mm/h)",
    ),
    replicate="case",
    cases=(
        _case(29, "development"),
        *(_case(seed, "held-out") for seed in range(401, 411)),
    ),
    settings={"draws": 8},
    sources=(
        "models/cml",
        "adapters/methods/cml_reconstruct.py",
        "adapters/methods/cml_reconstruct_run.py",
        "adapters/runs/cml_inputs.py",
        "adapters/runs/cml_maps.py",
    ),
    run_case=run_case,
    smoke=(_case(5, "held-out", "smoke-fresh"),),
    smoke_settings={"draws": 2},
    notes=(
        "fresh-29 is the realisation benchmarks/cml_evaluation.py scored under at least "
        "four configurations (−5.9%, −13.5%, −15.3%, −18.5% under IDW at the defaults): "
        "development. Seeds 401–410 were declared on 2026-12-08 before any method ran on "
        "them. The truth shares GRF-HMC's prior family; a convective-cell generator is "
        "issue #72's."
    ),
)
