"""pycomlink's processing chain (its basic-workflow notebook), as the trusted reference that
tests and benchmarks run beside ours with the same ChainParameters."""

from __future__ import annotations

from typing import Any

import numpy as np

from .processing import ChainParameters


def pycomlink_chain(dataset: Any, parameters: ChainParameters | None = None) -> Any:
    """Add trsl, wet, baseline, waa, A and R to an OpenSense dataset with pycomlink."""
    import pycomlink as pycml

    p = parameters or ChainParameters()
    c = dataset.copy()
    c["trsl"] = (c.tsl - c.rsl).interpolate_na(
        dim="time", max_gap=np.timedelta64(p.max_gap, "m"), method="linear"
    )
    c["wet"] = c.trsl.rolling(time=p.window, center=True).std() > p.threshold_db
    c["baseline"] = pycml.processing.baseline.baseline_constant(
        trsl=c.trsl, wet=c.wet, n_average_last_dry=p.n_average_last_dry
    )
    c["waa"] = pycml.processing.wet_antenna.waa_schleiss_2013(
        rsl=c.trsl,
        baseline=c.baseline,
        wet=c.wet,
        waa_max=p.waa_max_db,
        delta_t=p.delta_t_min,
        tau=p.tau_min,
    )
    c["A"] = (c.trsl - c.baseline - c.waa).clip(min=0)
    c["R"] = pycml.processing.k_R_relation.calc_R_from_A(
        A=c.A, L_km=c.length, f_GHz=c.frequency, pol=c.polarization, R_min=p.rain_min_mm_h
    )
    return c
