"""`hh-fit`: a Hodgkin–Huxley cell fitted to an MEA recording, simulated or recorded."""

from __future__ import annotations

from typing import Literal

from pydantic import ValidationInfo, field_validator

from ...backends.mea.base import MEABackend, MEASimulatorBackend
from ..conversions.mea_preprocessing import DEFAULT_PREPROCESSING
from .method import SEED_MAX, Method, MethodParameters, implementation, option, summary_report
from .summary import Entry


class HhFitParameters(MethodParameters):
    """Parameters of `substrates run hh-fit`."""

    hardware: str = option(
        "mea_sim",
        "mea config file or shipped name: mea_sim, mea_sim_512 (512 electrodes, "
        "three cells), mea_sim_gpu, mea_nwb, mea_litke, mea_maxwell, mea_neo",
        flags=("--source", "--hardware"),
        metavar="CONFIG",
        input="config",
    )
    recording: str | None = option(
        None, "recording file for a file config", metavar="FILE", input="file"
    )
    stimulation: str | None = option(
        None,
        "BIDS events.tsv sidecar with the electrical stimulation (onset s, "
        "electrical_stimulation_site E1 or E1-E2, electrical_stimulation_current A); "
        "replaces the recording file's own; with --stimulation-times, a protocol table "
        "(no onset column) of the pulses in order",
        metavar="FILE",
        input="file",
    )
    stimulation_times: str | None = option(
        None,
        "where the pulse times are in the recording: ttl (a Litke recording's TTL "
        "line, a MaxWell MaxOne file's bits table) or neo:NAME (a neo event channel)",
        metavar="WHERE",
    )
    spontaneous: str | None = option(
        None,
        "a separate recording of spontaneous activity on the same array (as a Litke "
        "data000 beside the stimulation's data001), read by the same hardware config: "
        "spontaneous spikes, the electrical image and the detection threshold come from "
        "it; by default from every quiet span of the recording (before the first pulse and "
        "between pulses, from 10 ms after each to 5 ms before the next)",
        metavar="FILE",
        input="file",
    )
    preprocess: str = option(
        DEFAULT_PREPROCESSING,
        "spike detection runs on the traces after this "
        "SpikeInterface chain, steps in order: bandpass:LOW-HIGH, highpass:LOW, notch:FREQ "
        "(Hz), cmr (common median reference), car (common average), whiten; or none. The "
        "electrical image the cell is fitted to always comes from the unfiltered traces, "
        "less each spike's local baseline",
        metavar="CHAIN",
    )
    artefacts: Literal["remove", "linear", "keep"] = option(
        "remove",
        "remove: estimate the stimulation artefact (per stimulating electrode, smooth "
        "in its current: a line with its own template at up to four current levels of "
        "each polarity, samples on the amplifier's rail left out) jointly with the evoked "
        "spikes and take it away before detection; linear: the line alone (the artefact "
        "scaled with current); keep: detect on the traces as they are (artefacts already "
        "blanked by the hardware)",
    )
    sorter: Literal["none", "tridesclous2", "spykingcircus2"] = option(
        "none",
        "none: the recording holds one cell; or a SpikeInterface sorter run on the "
        "quiet recording (before and between pulses, or --spontaneous; hdbscan, which "
        "[mea] installs), each unit with enough spikes and evoked responses then fitted; a "
        "simulated session's sorting is scored against its cells (set array_cells in the "
        "simulator config)",
    )
    simulator: str = option(
        "mea_sim",
        "the cell simulator to fit with (mea_sim_gpu on a GPU)",
        metavar="CONFIG",
        input="config",
    )
    simulations: int = option(1000, "NPE simulations per cell", ge=50)
    bank: int | None = option(
        None,
        "amortise: simulate this many cells once around one electrode of the array "
        "(their spikes on the 37 nearest electrodes, their thresholds on the 7 nearest) "
        "and fit every cell from that bank, NPE trained on it in seconds per cell, instead "
        "of --simulations of its own; each cell's fitting electrodes are then among the 7 "
        "nearest its reference (the electrode where its spike is deepest). For arrays "
        "of many cells: about 1.5 min for 1,000, then about 20 s a cell on two cores "
        "(at most 20,000: about 0.5 GB)",
        ge=50,
        le=20_000,
    )
    cells: int = option(1, "simulated sessions, seeds seed…", ge=1)
    seed: int | None = option(
        None,
        "first simulated session's seed (default: the config's) and NPE's (default 0)",
        ge=0,
        le=SEED_MAX,
    )

    @field_validator("stimulation_times")
    @classmethod
    def _times_need_a_table(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is not None and info.data.get("stimulation") is None:
            raise ValueError("needs stimulation: the protocol table of what each pulse was")
        return value


SUMMARY = (
    Entry("cells", "cells fitted", format="d"),
    Entry("held_out_patterns", "held-out patterns predicted", format="d"),
    Entry("mean_held_out_accuracy", "held-out patterns predicted right", "%"),
    Entry("mean_fitting_accuracy", "fitting patterns reproduced", "%"),
    Entry("chosen", "estimate kept per cell"),
    Entry(
        "mean_held_out_accuracy_{estimate}", "held-out patterns predicted right by {estimate}", "%"
    ),
    Entry("mean_error_{estimate}_prior_fraction", "mean error of {estimate} in prior widths", "%"),
    Entry("units_fitted", "sorted units fitted", format="d"),
    Entry("sessions_refused", "simulated sessions refused (each reason in provenance)", format="d"),
    Entry("mean_sorting_accuracy", "mean sorting accuracy against the cells", "%"),
    Entry("artefact_peak_uv", "largest stimulation artefact removed", "µV"),
    Entry("artefact_saturated_fraction", "artefact samples on the amplifier's rail", "%"),
)


METHOD = Method(
    name="hh-fit",
    help="fit a Hodgkin–Huxley cell to an MEA recording and predict held-out stimulation",
    description=(
        "Fit a multi-compartment Hodgkin–Huxley cell (channel densities, axial "
        "resistivity, axon radius, position over the array) to one cell's extracellular "
        "recording: spontaneous spikes give its electrical image, stimulation trials its "
        "activation thresholds on half of the stimulated electrodes (spikes detected after "
        "--preprocess: by default band-pass 300–6000 Hz and common median reference, so DC "
        "offsets, drift and mains do not reach detection; the stimulation artefact "
        "is estimated and removed first, --artefacts); neural posterior "
        "estimation (sbi) over the simulator's prior, then Levenberg–Marquardt through "
        "jaxley on the image, then a grid over channel densities and height to match the "
        "thresholds; of the three, the cell with the highest likelihood of image and "
        "thresholds (each in units of its own noise) is kept. The fitted cell predicts "
        "spike or no spike for the held-out patterns (other electrodes, and every "
        "multi-electrode pattern), scored against "
        "the majority of their trials. With a simulator source each session is written "
        "as NWB, fitted from that file, and compared with its hidden parameters; a session "
        "whose cell cannot be observed (too few spontaneous spikes, no evoked response) "
        "is refused with its reason and the others go on. Writes "
        "results.parquet, provenance.json, hh_fit.png (and cellN.nwb when simulated)."
    ),
    summary=SUMMARY,
    parameters=HhFitParameters,
    run=implementation(".hh_fit_run", "run_hh_fit"),
    backends={"hardware": MEABackend, "simulator": MEASimulatorBackend},
    overrides={"recording": ("hardware", "path")},
    report=summary_report,
)
