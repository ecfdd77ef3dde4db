"""`cml-reconstruct`: rain maps from commercial microwave links."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import ValidationInfo, field_validator

from ...backends.cml.base import CMLBackend
from ...models.cml.chain_parameters import ChainParameters, WetDry
from ...models.cml.diffusion.settings import DiffusionSettings
from ..runs.run import Run
from .method import SEED_MAX, Method, MethodParameters, implementation, option
from .summary import Entry

if TYPE_CHECKING:
    from ...models.cml.bayesian import BayesianSettings

OFFSET_SD_DB = 0.5
"""Prior standard deviation of a sublink's dry-reference error, `--baseline latent` (dB):
chosen on the validation day among 0.1, 0.5, 1 and 2 (docs/substrates/cml.md)."""
WET_DRY: WetDry = "nearby"
"""How the chain calls a link wet (`--wet-dry`): RAINLINK's decision from the links nearby,
chosen on the validation day over the rolling standard deviation (docs/substrates/cml.md)."""
MAPPERS = ("idw", "kriging", "bayes", "dps", "pnp", "smc", "tempered", "exchange")
"""The methods that map rain, as --methods names them."""
LATENT_UNABLE = ("dps", "smc", "tempered", "exchange")
"""The samplers that take no latent offsets (`--baseline latent`): SMC's and the latent
samplers' weights would need the offsets in each particle's state, and DPS is left as it
is (its maps blow up from small guidance)."""


class CmlReconstructParameters(MethodParameters):
    """Parameters of `substrates run cml-reconstruct`."""

    hardware: str = option(
        "cml_sim",
        "CML config file or shipped name",
        flags=("--source", "--hardware"),
        metavar="CONFIG",
        input="config",
    )
    data: str | None = option(
        None,
        "OpenSense netCDF file, or OpenMRG folder (cml.nc + cml_metadata.csv)",
        metavar="PATH",
        input="file",
    )
    start: str | None = option(None, "first time, ISO 8601 (default: see above)")
    end: str | None = option(None, "last time, ISO 8601")
    every: int = option(
        5,
        "minutes per map; links are averaged over each interval (as radar)",
        metavar="MIN",
        ge=1,
    )
    cell_km: float | None = option(
        None,
        "grid cell: for real data (default 2 km); for a simulator coarser than its own "
        "(default), its truth then averaged into the cells",
        metavar="KM",
        gt=0,
    )
    methods: tuple[str, ...] = option(
        ("idw", "kriging", "bayes"),
        "comma-separated: idw, kriging, bayes (random-field prior, HMC), dps, pnp, smc, "
        "tempered and exchange (diffusion prior trained on radar: posterior sampling, "
        "plug-and-play DiffPIR, twisted SMC; exact in the prior's latent space, and far "
        "slower: tempered SMC, replica exchange)",
    )
    variogram: Literal["fitted", "climatological"] = option(
        "fitted",
        "kriging's spherical variogram: fitted to each map (pykrige's fit), or "
        "climatological (Van de Beek et al. 2012 for the day and --every, as RAINLINK and "
        "pycomlink's clim_var_param; one variogram for every map)",
    )
    iterations: int = option(300, "HMC iterations per map, half of them warm-up", ge=2)
    chains: int = option(4, "HMC chains per map", ge=1)
    diffusion_steps: int = option(
        DiffusionSettings.steps, "reverse diffusion steps per map (dps, pnp, smc)", ge=2
    )
    draws: int = option(
        DiffusionSettings.draws,
        "posterior draws per map: DPS or PnP samples, SMC particles",
        ge=1,
    )
    guidance: float = option(
        DiffusionSettings.scale,
        "DPS's guidance step (model units per unit of the "
        "residuals' norm); from ~0.3 its maps blow up (tens of mm/h): of the diffusion "
        "methods, use pnp",
        gt=0,
    )
    strength: float = option(
        DiffusionSettings.strength,
        "PnP's and SMC's λ: the weight of the prior's estimate "
        "against the links in each proximal step (1: by its own noise level; smaller "
        "follows the links more, and with --baseline latent can put tens of mm/h on "
        "short links whose wet-antenna loss the model misses: see the CML guide)",
        gt=0,
    )
    dry_limit_db: float | None = option(
        DiffusionSettings.dry_limit_db,
        "bayes and the diffusion methods read a sublink the "
        "chain called dry for a whole map (0 dB) as attenuation below this many dB, not as "
        "no rain (none: as no rain)",
        metavar="DB",
    )
    wet_threshold_db: float = option(
        ChainParameters.threshold_db,
        "the chain's wet/dry threshold on the rolling standard "
        "deviation of trsl (pycomlink's example's; 0.5 with --waa-max-db 1 scored better on "
        "the validation day and worse on the held-out cases, see the guide)",
        metavar="DB",
        gt=0,
    )
    wet_dry: WetDry = option(
        WET_DRY,
        "how the chain calls a link wet, for every method: nearby (RAINLINK's decision from "
        "the links within 15 km: their median drop below their 24-hour dry reference; reads "
        "24 h of data before --start, needs 6 h of them, and where it cannot decide uses "
        "std; chosen on the validation day, see the CML guide) or std (the link's own trsl's "
        "rolling standard deviation above --wet-threshold-db, pycomlink's example's)",
    )
    waa_max_db: float = option(
        ChainParameters.waa_max_db,
        "cap of the chain's Schleiss wet-antenna correction, which "
        "idw and kriging see (bayes and the diffusion methods model wet antennas themselves, "
        "unless --wet-antenna-by chain)",
        metavar="DB",
        ge=0,
    )
    wet_antenna_max_db: float = option(
        DiffusionSettings.wet_antenna_max_db,
        "A_max of the Pastorek wet-antenna attenuation "
        "that bayes and the diffusion methods add to a field's rain attenuation (0: none; "
        "Pastorek et al. 2021's 14 dB)",
        metavar="DB",
        ge=0,
    )
    wet_antenna_by: Literal["model", "chain"] = option(
        "model",
        "what takes the wet-antenna loss out of bayes' and the diffusion methods' "
        "data: model (their Pastorek term on the attenuation above the chain's baseline) or "
        "chain (they read the chain's attenuation after its Schleiss correction, as idw and "
        "kriging do, and model none; --wet-antenna-max-db is then unused)",
    )
    prior: str | None = option(
        None,
        "rain-prior weights for dps, pnp and smc (default: the shipped ones, trained on "
        "2018-05 RADOLAN radar, 13 and 14 May held out)",
        metavar="FILE",
        input="file",
    )
    device: str = option("cpu", "torch device of the Bayesian reconstructions: cpu or cuda")
    precision: Literal["float32", "float64"] = option(
        "float32", "floating point of the Bayesian reconstructions (float32 is twice as fast)"
    )
    true_baseline: bool = option(
        False,
        "simulator only: give every method the links' true rain attenuation (the simulator's "
        "dry baseline and wet-antenna loss subtracted in place of the chain's estimates; the "
        "Bayesian methods then model no wet antennas), to compare the reconstructions "
        "without the chain's errors",
    )
    baseline: Literal["chain", "latent"] = option(
        "latent",
        "what bayes and pnp read each link's attenuation above: latent (the link's dry "
        "reference, its median trsl while the chain called it dry, with the reference's "
        "error per sublink a latent variable sampled with the field, prior SD "
        "--offset-sd-db; the field's dry cells are then the wet/dry state; chosen on the "
        "validation day, see the CML guide) or chain (the chain's baseline; its wet/dry "
        "decisions and zeros come with it). idw and kriging keep the chain's; dps, smc, "
        "tempered and exchange, --true-baseline and --wet-antenna-by chain need chain",
        validate_default=True,
    )
    offset_sd_db: float = option(
        OFFSET_SD_DB,
        "prior standard deviation of each sublink's dry-reference error with --baseline "
        "latent (bayes and pnp)",
        metavar="DB",
        gt=0,
    )
    antenna_sd_db: float | None = option(
        None,
        "with --baseline latent: each sublink's wet-antenna A_max becomes latent too, "
        "prior normal about --wet-antenna-max-db with this standard deviation, cut at 0, "
        "sampled with the offsets (bayes and pnp; default: one A_max for every link)",
        metavar="DB",
        gt=0,
    )
    areal_reference: str | None = option(
        None, "radar fields (netCDF)", metavar="FILE", input="file"
    )
    path_reference: str | None = option(
        None, "radar path averages (netCDF)", metavar="FILE", input="file"
    )
    seed: int = option(0, "seed of the posterior sampler", ge=0, le=SEED_MAX)

    @field_validator("methods", mode="before")
    @classmethod
    def _comma_separated(cls, value: Any) -> Any:
        if isinstance(value, str):
            return tuple(m.strip() for m in value.split(",") if m.strip())
        return value

    @field_validator("methods")
    @classmethod
    def _known_methods(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        unknown = sorted(set(value) - set(MAPPERS))
        if unknown or not value:
            raise ValueError(f"unknown {unknown}; allowed: {', '.join(MAPPERS)}")
        return value

    @field_validator("baseline")
    @classmethod
    def _latent_reads_the_links(cls, value: str, info: ValidationInfo) -> str:
        if value == "latent" and info.data.get("true_baseline"):
            raise ValueError(
                "latent (the default) models the dry level that --true-baseline gives "
                "exactly: add --baseline chain"
            )
        if value == "latent" and info.data.get("wet_antenna_by") == "chain":
            raise ValueError(
                "latent (the default) reads trsl above the dry reference, with no chain "
                "correction: add --baseline chain"
            )
        unable = [m for m in info.data.get("methods", ()) if m in LATENT_UNABLE]
        if value == "latent" and unable:
            raise ValueError(
                f"latent offsets (the default) are sampled by bayes and pnp, not by "
                f"{', '.join(unable)}: leave those out of --methods or add --baseline chain"
            )
        return value

    @field_validator("antenna_sd_db")
    @classmethod
    def _antennas_with_the_offsets(cls, value: float | None, info: ValidationInfo) -> float | None:
        if value is not None and info.data.get("baseline") != "latent":
            raise ValueError("a latent wet-antenna A_max is sampled with --baseline latent")
        if value is not None and not info.data.get("wet_antenna_max_db", 1.0) > 0:
            raise ValueError("a latent A_max needs --wet-antenna-max-db above 0 as its prior")
        return value

    @field_validator("dry_limit_db", mode="before")
    @classmethod
    def _none_is_off(cls, value: Any) -> Any:
        if isinstance(value, str) and value.strip().lower() == "none":
            return None
        return value

    @field_validator("dry_limit_db")
    @classmethod
    def _positive(cls, value: float | None) -> float | None:
        if value is not None and not value > 0:
            raise ValueError(f"must be positive dB (or none), got {value}")
        return value

    def chain(self) -> ChainParameters:
        """The standard chain's settings, for every method alike."""
        return ChainParameters(
            threshold_db=self.wet_threshold_db, waa_max_db=self.waa_max_db, wet_dry=self.wet_dry
        )

    def _wet_antenna_max_db(self) -> float:
        """A_max of the Bayesian methods' wet-antenna term: 0 where their data hold no
        wet-antenna loss (the true baseline, or the chain's corrected attenuation)."""
        none = self.true_baseline or self.wet_antenna_by == "chain"
        return 0.0 if none else self.wet_antenna_max_db

    def bayesian(self) -> BayesianSettings:
        """HMC's settings: the iterations, half of them warm-up, and the chains."""
        from ...models.cml.bayesian import BayesianSettings  # torch: imported when it runs

        latent = self.baseline == "latent"
        return BayesianSettings(
            chains=self.chains,
            iterations=self.iterations,
            warmup=self.iterations // 2,
            dry_limit_db=None if latent else self.dry_limit_db,
            wet_antenna_max_db=self._wet_antenna_max_db(),
            offset_sd_db=self.offset_sd_db if latent else None,
            antenna_sd_db=self.antenna_sd_db,
        )

    def diffusion(self) -> DiffusionSettings:
        """The diffusion samplers' settings (dps, pnp, smc, tempered, exchange)."""
        latent = self.baseline == "latent"
        return DiffusionSettings(
            steps=self.diffusion_steps,
            draws=self.draws,
            scale=self.guidance,
            strength=self.strength,
            dry_limit_db=None if latent else self.dry_limit_db,
            wet_antenna_max_db=self._wet_antenna_max_db(),
            offset_sd_db=self.offset_sd_db if latent else None,
            antenna_sd_db=self.antenna_sd_db,
        )


def report(run: Run) -> str:
    """Mean scores per method against the reference, and seconds per map."""
    summary = run.summary
    lines = [
        f"{summary['steps']} maps; scores are means over them (mm/h)",
        f"{'target':<7} {'method':<8} {'RMSE':>7} {'bias':>7} {'r':>6}",
    ]
    for row in summary["scores"]:
        values = [row["rmse_mm_h"], row["bias_mm_h"], row["pearson_r"]]
        cells = ["     --" if v is None or v != v else f"{v:7.3f}" for v in values]
        lines.append(f"{row['target']:<7} {row['method']:<8} {cells[0]} {cells[1]} {cells[2][1:]}")
    seconds = ", ".join(f"{m} {s:.3g}" for m, s in summary["seconds_per_step"].items())
    return "\n".join([*lines, f"seconds per map: {seconds}", f"run folder: {run.path}"])


SUMMARY = (
    Entry("steps", "maps reconstructed", format="d"),
    Entry("scores", "mean scores per target and method (mm/h; r unitless)"),
    Entry("seconds_per_step.{method}", "seconds per map ({method})", "s"),
    Entry("bayes_acceptance_mean", "HMC acceptance rate", "%"),
    Entry(
        "bayes_offset_abs_median_db",
        "median size of the dry references' errors bayes found (--baseline latent)",
        "dB",
        format=".2f",
    ),
    Entry(
        "pnp_offset_abs_median_db",
        "median size of the dry references' errors pnp found (--baseline latent)",
        "dB",
        format=".2f",
    ),
    Entry(
        "bayes_wet_antenna_median_db",
        "median of the sublinks' wet-antenna A_max bayes found (--antenna-sd-db)",
        "dB",
        format=".1f",
    ),
    Entry(
        "pnp_wet_antenna_median_db",
        "median of the sublinks' wet-antenna A_max pnp found (--antenna-sd-db)",
        "dB",
        format=".1f",
    ),
    Entry("smc_ess_min", "smallest effective sample size of SMC", format=".1f"),
    Entry("tempered_ess_min", "smallest effective sample size of tempered SMC", format=".1f"),
    Entry("exchange_ess_min", "smallest effective sample size of replica exchange", format=".1f"),
    Entry(
        "exchange_swap_acceptance", "replica exchange's swap acceptance per pair of temperatures"
    ),
)


METHOD = Method(
    name="cml-reconstruct",
    help="rain maps from microwave links: IDW, kriging and Bayesian inverse problems",
    description=(
        "Turn link attenuation into rain maps. The standard chain (wet/dry, baseline, "
        "wet antenna, ITU-R P.838-3) gives each link's rain; IDW and ordinary kriging map "
        "it from link midpoints; the Bayesian reconstruction fits a random-field prior "
        "to the attenuation integrated along each path and samples the posterior (HMC), "
        "giving a mean map and its uncertainty; dps and smc do the same with a diffusion "
        "prior trained on radar fields (posterior sampling, twisted sequential Monte "
        "Carlo), and pnp by plug-and-play restoration. Every map is scored (RMSE, bias, Pearson "
        "r in mm/h) against the simulator's truth or, for real data, a radar reference. "
        "Without options: the simulated network of hardware_configs/cml_sim.yaml."
    ),
    epilog=(
        "Real data: --source cml_opensense (pycomlink's example links, scored against "
        "its radar references, the wettest 3 hours by default) or --source cml_opensense "
        "--data FILE --start T --end T for your own OpenSense netCDF file."
    ),
    summary=SUMMARY,
    parameters=CmlReconstructParameters,
    run=implementation(".cml_reconstruct_run", "run_cml_reconstruct"),
    backends={"hardware": CMLBackend},
    overrides={"data": ("hardware", "path")},
    report=report,
)
