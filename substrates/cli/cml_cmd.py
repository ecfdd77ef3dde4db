"""`substrates run cml-reconstruct`: rain maps from commercial microwave links."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .options import add_run_options


def add_cml_parser(methods: argparse._SubParsersAction) -> None:
    parser = methods.add_parser(
        "cml-reconstruct",
        help="rain maps from microwave links: IDW, kriging and a Bayesian inverse problem",
        description=(
            "Turn link attenuation into rain maps. The standard chain (wet/dry, baseline, "
            "wet antenna, ITU-R P.838-3) gives each link's rain; IDW and ordinary kriging map "
            "it from link midpoints; the Bayesian reconstruction fits a random-field prior "
            "to the attenuation integrated along each path and samples the posterior (HMC), "
            "giving a mean map and its uncertainty. Every map is scored (RMSE, bias, Pearson "
            "r in mm/h) against the simulator's truth or, for real data, a radar reference. "
            "Without options: the simulated network of hardware_configs/cml_sim.yaml."
        ),
        epilog=(
            "Real data: --source cml_opensense (pycomlink's example links, scored against "
            "its radar references, the wettest 3 hours by default) or --source cml_opensense "
            "--data FILE --start T --end T for your own OpenSense netCDF file."
        ),
    )
    add_run_options(parser, seed_help="seed of the posterior sampler (default 0)")
    parser.set_defaults(hardware="cml_sim")
    parser.add_argument(
        "--source", dest="hardware", metavar="CONFIG",
        help="CML config file or shipped name (default: cml_sim); same as --hardware",
    )  # fmt: skip
    parser.add_argument(
        "--data", metavar="PATH",
        help="OpenSense netCDF file, or OpenMRG folder (cml.nc + cml_metadata.csv)",
    )  # fmt: skip
    parser.add_argument("--start", help="first time, ISO 8601 (default: see above)")
    parser.add_argument("--end", help="last time, ISO 8601")
    parser.add_argument(
        "--every", type=int, default=5, metavar="MIN",
        help="minutes per map; links are averaged over each interval (default 5, as radar)",
    )  # fmt: skip
    parser.add_argument(
        "--cell-km", type=float, metavar="KM", help="grid cell for real data (default 2 km)"
    )
    parser.add_argument(
        "--methods", default="idw,kriging,bayes",
        help="comma-separated: idw, kriging, bayes (default: all three)",
    )  # fmt: skip
    parser.add_argument(
        "--iterations", type=int, default=300,
        help="HMC iterations per map, half of them warm-up (default 300)",
    )  # fmt: skip
    parser.add_argument("--chains", type=int, default=4, help="HMC chains per map (default 4)")
    parser.add_argument(
        "--device", default="cpu",
        help="torch device of the Bayesian reconstruction: cpu or cuda (default cpu)",
    )  # fmt: skip
    parser.add_argument(
        "--precision", choices=["float32", "float64"], default="float32",
        help="floating point of the Bayesian reconstruction (default float32, twice as fast)",
    )  # fmt: skip
    parser.add_argument(
        "--true-baseline", action="store_true",
        help="simulator only: give every method the links' true rain attenuation (the "
        "simulator's dry baseline and wet-antenna loss in place of the chain's estimates), "
        "to compare the reconstructions without the chain's wet/dry errors",
    )  # fmt: skip
    parser.add_argument("--areal-reference", metavar="FILE", help="radar fields (netCDF)")
    parser.add_argument("--path-reference", metavar="FILE", help="radar path averages (netCDF)")
    parser.set_defaults(handler=handle_cml_reconstruct, seed=0)


def run_arguments(args: argparse.Namespace) -> dict[str, Any]:
    """run_cml_reconstruct's arguments from the command line (all but out and progress)."""
    from substrates.backends.errors import SubstratesError
    from substrates.models.cml.bayesian import BayesianSettings

    if args.iterations < 2 or args.chains < 1:
        raise SubstratesError("--iterations must be at least 2 and --chains at least 1")
    settings = BayesianSettings(
        chains=args.chains, iterations=args.iterations, warmup=args.iterations // 2
    )
    return {
        "source": args.hardware, "data": args.data, "start": args.start, "end": args.end,
        "every_min": args.every, "cell_km": args.cell_km, "true_baseline": args.true_baseline,
        "methods": [m.strip() for m in args.methods.split(",") if m.strip()],
        "settings": settings, "device": args.device, "precision": args.precision,
        "seed": args.seed, "reference_files": (args.areal_reference, args.path_reference),
    }  # fmt: skip


def handle_cml_reconstruct(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from substrates.adapters.runs.cml_reconstruct_run import run_cml_reconstruct

    bars: dict[str, tqdm] = {}

    def progress(method: str, done: int, total: int) -> None:
        if method not in bars:
            bars[method] = tqdm(
                desc=f"{method:>8}", total=total, file=sys.stderr, leave=False, disable=None
            )
        bars[method].update(done - bars[method].n)

    folder, summary = run_cml_reconstruct(**run_arguments(args), out=args.out, progress=progress)
    for bar in bars.values():
        bar.close()
    print_table(folder, summary)
    return 0


def print_table(folder: object, summary: dict) -> None:
    """Mean scores per method against the reference, and seconds per map."""
    print(f"{summary['steps']} maps; scores are means over them (mm/h)")
    print(f"{'target':<7} {'method':<8} {'RMSE':>7} {'bias':>7} {'r':>6}")
    for row in summary["scores"]:
        values = [row["rmse_mm_h"], row["bias_mm_h"], row["pearson_r"]]
        cells = ["     --" if v is None or v != v else f"{v:7.3f}" for v in values]
        print(f"{row['target']:<7} {row['method']:<8} {cells[0]} {cells[1]} {cells[2][1:]}")
    seconds = ", ".join(f"{m} {s:.3g}" for m, s in summary["seconds_per_step"].items())
    print(f"seconds per map: {seconds}")
    print(f"run folder: {folder.path}")  # type: ignore[attr-defined]
