"""`crn-validate`: do reduced Napp–Adams CRNs compute the same beliefs?"""

from __future__ import annotations

from pydantic import ValidationInfo, field_validator

from ...backends.crn.base import CRNBackend
from ...datasets.crn.factor_graph import FactorGraph
from ...datasets.crn.files import example_path, graph_path, pgmpy_networks
from ...datasets.crn.tokens import MAX_TABLE_ENTRIES
from ...errors import OptionError
from ...models.crn.reductions import MOVES
from ...models.crn.validate import MAX_REACTIONS
from ...models.crn.verdict import Tolerances
from ..runs.run import Run
from .method import Method, MethodParameters, implementation, option
from .summary import Entry


class CrnValidateParameters(MethodParameters):
    """Parameters of `substrates run crn-validate`."""

    graph: str | None = option(
        None,
        "factor graph or Bayesian network: .fg (libDAI), .uai, .bif(.gz) or .xml (XMLBIF), "
        "or a shipped one by name: 'asia', or any network pgmpy ships where it is installed "
        "('alarm', 'hailfinder', …)",
        metavar="FILE",
        input="file",
        group="source",
    )
    crn: str | None = option(
        None,
        "a Napp–Adams CRN in SBML, e.g. a run's crn_original.xml",
        metavar="FILE",
        input="file",
        group="source",
    )
    reduce: str = option("all", "all, none, or a comma list of evidence, leaves, unary, degree2")
    evidence: str = option(
        "",
        "hard evidence, e.g. 6=1,7=1 or xray=yes (variable and state names as in the "
        "file, or state indices)",
        metavar="VAR=STATE,...",
    )
    keep: str = option(
        "",
        "variables never reduced away (default: one per connected component, the one in "
        "most factors)",
        metavar="VAR,...",
    )
    allow_growth: bool = option(
        False,
        "apply reductions even when they enlarge the CRN (eliminating a degree-2 "
        "variable merges two tables into a wider one)",
    )
    elementary: bool = option(
        False,
        "also rewrite the reduced CRN into elementary (at most bimolecular) reactions, "
        "with product species standing for each catalyst set, and check it rests at the same "
        "beliefs",
    )
    perturbation: str = option(
        "0.1,0.5",
        "rate-noise levels of the sensitivity check: every rate constant times an "
        "independent factor in [1 − ε, 1 + ε]; 'none' skips it",
        metavar="EPS,...",
    )
    samples: int = option(
        4,
        "draws per rate-noise level; each is a steady state of both CRNs (crn.roadrunner "
        "sets the rates on the model it compiled once per CRN)",
        ge=0,
    )
    starts: int = option(4, "random initial conditions of the basin check (0 skips it)", ge=0)
    volumes: str = option(
        "",
        "SSA volumes of the noise check (bias and spread of the stochastic beliefs), "
        "e.g. 100,1000; slow on large CRNs, off by default",
        metavar="V,...",
    )
    max_reactions: int = option(
        MAX_REACTIONS,
        "refuse a CRN predicted to have more reactions than this, before compiling it",
        ge=1,
    )
    lifted: bool = option(
        False,
        "also compress the reduced graph by colour passing (lifted BP): variables and factors "
        "that BP cannot tell apart share species",
    )
    hardware: str = option(
        "crn_ode",
        "CRN simulator config file or shipped name",
        flags=("--simulator", "--hardware"),
        metavar="CONFIG",
        input="config",
    )
    tolerance: float = option(1e-13, "steady state when max |dx/dt| falls below this", gt=0)
    belief_tolerance: float = option(
        1e-6,
        "verdict: largest |belief difference| between the CRNs, or a CRN and BP (and, on a "
        "tree, BP and the exact marginals); beyond it the reduction is not valid",
        gt=0,
    )
    approximation_tolerance: float | None = option(
        None,
        "verdict: largest |BP − exact marginal| on a graph with cycles; beyond it the "
        "validation cannot tell (default: reported, not judged: it is loopy BP's own error)",
        gt=0,
    )
    conservation_tolerance: float = option(
        1e-6,
        "verdict: largest loss of a conserved sum (concentration); beyond it: cannot tell",
        gt=0,
    )
    rest_tolerance: float = option(
        1e-6,
        "verdict: largest max |dx/dt| at a rest point (deterministic simulators); beyond "
        "it: cannot tell",
        gt=0,
    )
    relaxations: float = option(
        1.0,
        "verdict: the time simulated to rest must cover this many relaxation times τ, "
        "else it may be a slow transient: cannot tell",
        gt=0,
    )
    shift_tolerance: float | None = option(
        None,
        "verdict: largest belief shift under rate noise; beyond it: not valid (default: "
        "reported, not judged)",
        gt=0,
    )
    max_table_entries: int = option(
        MAX_TABLE_ENTRIES,
        "refuse a graph with a factor table of more entries than this "
        "(a guard against files that declare huge variables)",
        ge=1,
    )

    @field_validator("reduce")
    @classmethod
    def _known_moves(cls, text: str) -> str:
        unknown = sorted(set(_moves(text)) - set(MOVES))
        if unknown:
            raise ValueError(f"unknown {unknown}; allowed: all, none, {', '.join(MOVES)}")
        return text

    @field_validator("perturbation", "volumes")
    @classmethod
    def _numbers_in_range(cls, text: str, info: ValidationInfo) -> str:
        high = 1.0 if info.field_name == "perturbation" else float("inf")
        try:
            bad = [v for v in _numbers(text) if not 0 < v < high]
        except ValueError:
            raise ValueError(f"{text!r}: expected numbers separated by commas") from None
        if bad:
            raise ValueError(f"{bad[0]:g} is outside (0, {high:g})")
        return text

    @field_validator("graph", mode="before")
    @classmethod
    def _shipped(cls, value: object) -> object:
        """A shipped network named without its folder ('alarm') becomes its path; a name
        that is neither a file nor shipped says which names are."""
        if not isinstance(value, str):
            return value
        path = graph_path(value)
        if not path.exists():
            ours = sorted(p.name for p in example_path().parent.glob("*.uai"))
            pgmpy = sorted(pgmpy_networks()) or ["pgmpy's networks with `pip install pgmpy`"]
            raise ValueError(
                f"{value}: no such file or folder, nor a shipped network "
                f"({', '.join([*ours, *pgmpy])})"
            )
        return str(path)

    @field_validator("crn")
    @classmethod
    def _one_source(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value and info.data.get("graph"):
            raise ValueError("give graph or crn, not both")
        return value

    @field_validator("evidence")
    @classmethod
    def _evidence_needs_a_graph(cls, value: str, info: ValidationInfo) -> str:
        if value and info.data.get("crn"):
            raise ValueError(
                "not with crn: the CRN is simulated as given; compile the evidence into it "
                "(indicator factors, which the evidence move finds)"
            )
        return value

    @property
    def moves(self) -> tuple[str, ...]:
        """The reduction moves to apply, in order."""
        return _moves(self.reduce)

    @property
    def levels(self) -> tuple[float, ...]:
        """Rate-noise levels of the sensitivity check."""
        return _numbers(self.perturbation)

    @property
    def ssa_volumes(self) -> tuple[float, ...]:
        """Volumes of the stochastic noise check."""
        return _numbers(self.volumes)

    def tolerances(self) -> Tolerances:
        """The verdict's tolerances (models/crn/verdict.py)."""
        return Tolerances(
            self.belief_tolerance,
            self.approximation_tolerance,
            self.conservation_tolerance,
            self.rest_tolerance,
            self.relaxations,
            self.shift_tolerance,
        )

    def observed(self, graph: FactorGraph) -> dict[int, int]:
        """`evidence` as variable index → state index, read against `graph`'s names
        (labels for .fg, indices for .uai, names for .bif; a state by name or index)."""
        index = {name: i for i, name in enumerate(graph.names)}
        out: dict[int, int] = {}
        for item in filter(None, (part.strip() for part in self.evidence.split(","))):
            name, _, state = (part.strip() for part in item.partition("="))
            if name not in index or not state:
                shown = ", ".join(graph.names[:8]) + ("…" if graph.variables > 8 else "")
                raise OptionError(
                    f"{item!r}: expected VARIABLE=STATE; variables are {shown}", option="evidence"
                )
            states = graph.states[index[name]]
            if state in states:
                value = states.index(state)
            elif state.isdigit() and int(state) < len(states):
                value = int(state)
            else:
                raise OptionError(
                    f"{item}: {name} has states {', '.join(states)}", option="evidence"
                )
            if out.setdefault(index[name], value) != value:
                raise OptionError(f"names {name} twice with different states", option="evidence")
        return out

    def kept(self, graph: FactorGraph, observed: dict[int, int]) -> list[int]:
        """`keep` as variable indices of `graph`; none may be observed."""
        index = {name: i for i, name in enumerate(graph.names)}
        names = [part.strip() for part in self.keep.split(",") if part.strip()]
        unknown = [name for name in names if name not in index]
        if unknown:
            raise OptionError(f"unknown variables {unknown}", option="keep")
        if seen := [name for name in names if index[name] in observed]:
            raise OptionError(
                f"{', '.join(seen)}: observed in evidence; an observed variable "
                "has no belief to compare",
                option="keep",
            )
        return [index[name] for name in names]


def _moves(text: str) -> tuple[str, ...]:
    if text == "all":
        return MOVES
    return () if text == "none" else tuple(m.strip() for m in text.split(",") if m.strip())


def _numbers(text: str) -> tuple[float, ...]:
    """'a,b,…' as numbers; 'none' or '' as none."""
    if text.strip().lower() in ("", "none"):
        return ()
    return tuple(float(part) for part in text.split(",") if part.strip())


def report(run: Run) -> str:
    """Sizes of both CRNs, the moves applied and the largest belief differences (or, for a
    given CRN that is not Napp–Adams, what it is and where it rests)."""
    s = run.summary
    if "not_napp_adams" in s:
        return _simulated_report(run)
    lines = [f"{'':<13}{'variables':>10}{'factors':>9}{'species':>9}{'reactions':>11}"]
    for label in [k for k in ("crn_original", "crn_reduced", "crn_elementary") if k in s["sizes"]]:
        size = s["sizes"][label]
        lines.append(
            f"{label:<13}{size['variables']:>10}{size['factors']:>9}"
            f"{size['species']:>9}{size['reactions']:>11}"
        )
    before, after = (s["sizes"][k]["reactions"] for k in ("crn_original", "crn_reduced"))
    applied = ", ".join(f"{k} {v}" for k, v in s["applied"].items()) or "none"
    change = (
        f"{before / after:.1f}x fewer"
        if after < before
        else ("no fewer" if after == before else f"{after / before:.1f}x MORE")
    )
    lines.append(f"reactions {change}; moves applied: {applied}")
    if s["steps"]:
        shown = [f"{m} {v} → {r:,}" for m, v, _, r in s["steps"]]
        lines.append(
            "reactions after each move: "
            + ", ".join(shown[:6])
            + (f", … ({len(shown)} moves)" if len(shown) > 6 else "")
        )
    if s["declined"]:
        declined = ", ".join(f"{k} {v}" for k, v in s["declined"].items())
        lines.append(
            f"moves declined because they would enlarge the CRN: {declined} "
            "(--allow-growth applies them)"
        )
    if run.provenance["parameters"]["lifted"]:
        lines.append("crn_reduced is lifted: its variables and factors are colour-passing groups")
    lines.append(
        f"graph {'has cycles' if s['loopy'] else 'is a tree/forest'}; both CRNs start "
        "from uniform messages"
    )
    survivors = s["survivors"]
    listed = ", ".join(survivors[:12]) + (
        f", … ({len(survivors)} in all)" if len(survivors) > 12 else ""
    )
    lines.append(f"max |belief difference| on survivors {listed}:")
    if not run.provenance["parameters"].get("keep"):
        lines.insert(
            -1,
            f"kept from reduction: {', '.join(s['kept'])} (by default one variable "
            "per connected component; --keep names others)",
        )
    lines += [f"  {pair:<28} {value:.2e}" for pair, value in s["differences"].items()]
    conservation = ", ".join(f"{k} {v:.1e}" for k, v in s["conservation_error"].items())
    lines.append(f"BP residual {s['bp_residual']:.1e}; conservation error {conservation}")
    lines += _diagnosis(s)
    return "\n".join([*lines, f"run folder: {run.path}"])


def _simulated_report(run: Run) -> str:
    """A given mass-action model that is not a Napp–Adams CRN, simulated as it is."""
    s = run.summary
    size = s["sizes"]["crn_given"]
    lines = [
        f"not a Napp–Adams CRN: {s['not_napp_adams']}",
        "there is no factor graph to reduce and no BP to compare with: the model was "
        f"simulated as given ({size['species']:,} species, {size['reactions']:,} "
        f"reaction{'' if size['reactions'] == 1 else 's'})",
    ]
    if "unrested" in s:
        lines.append(f"no steady state: {s['unrested']['crn_given']}")
    else:
        lines.append(
            f"steady state after {s['steady_time']['crn_given']:.3g} time units, max |dx/dt| "
            f"{s['rest_residual']['crn_given']:.1e}: concentrations per species in "
            "results.parquet (species, initial, steady_state)"
        )
    return "\n".join([*lines, f"run folder: {run.path}"])


def _diagnosis(s: dict) -> list[str]:
    """BP against exact, and the robustness summaries, a line each."""
    lines = []
    gap = s["differences"].get("bp vs exact")
    if gap is not None:
        inherits = s["differences"].get("crn_original vs exact", gap)
        lines.append(
            f"BP is {gap:.2e} from the exact marginals; the CRN rests {inherits:.2e} "
            f"from them (it computes BP, exact on trees only); BP took "
            f"{s['bp_sweeps']} sweeps (damping 0.5)"
        )
    trw, apart = s["differences"].get("trw vs exact"), s["differences"].get("bp vs trw")
    if trw is not None:
        lines.append(
            f"tree-reweighted BP (convex: one fixed point) is {trw:.2e} from the exact marginals"
        )
    elif apart is not None:
        lines.append(
            f"exact marginals too wide to compute; BP and tree-reweighted BP differ "
            f"by {apart:.2e} — where they disagree, at least one is off, and the "
            "CRN rests at BP's answer"
        )
    robust = s.get("robustness", {})
    labels = [k for k in ("crn_original", "crn_reduced") if k in robust]
    tau = [robust[k].get("relaxation_time") for k in labels]
    if labels and all(t is not None for t in tau):
        shown = ", ".join(f"{k} {t:.3g}" for k, t in zip(labels, tau, strict=True))
        lines.append(f"relaxation time τ (slowest mode, time units): {shown}")
    levels = sorted({row["level"] for k in labels for row in robust[k].get("sensitivity", [])})
    for level in levels:
        worst = [
            max(r["max_shift"] for r in robust[k]["sensitivity"] if r["level"] == level)
            for k in labels
        ]
        shown = ", ".join(f"{w:.2e} ({k})" for w, k in zip(worst, labels, strict=True))
        lines.append(f"rate noise ±{level:.0%}: beliefs move up to {shown}")
    if labels and all("basins" in robust[k] for k in labels):
        shown = ", ".join(f"{robust[k]['basins']['fixed_points']} ({k})" for k in labels)
        starts = robust[labels[0]]["basins"]["starts"]
        lines.append(f"fixed points reached from uniform and {starts} random starts: {shown}")
        for k in labels:
            points = robust[k]["basins"].get("points", [])
            if len(points) > 1:
                lines += [
                    f"  {k} fixed point {n + 1}{' (the uniform start’s)' if n == 0 else ''}: "
                    f"reached from {point['reached_from']} of {starts} random starts, "
                    f"{point['distance_from_uniform']:.2e} from the uniform start’s"
                    for n, point in enumerate(points)
                ]
    for k in labels:
        for row in robust[k].get("noise", []):
            lines.append(
                f"SSA at volume {row['volume']:g} ({k}): bias {row['bias']:.2e}, "
                f"spread {row['spread']:.2e}"
            )
    return lines


SUMMARY = (
    Entry("survivors", "variables compared"),
    Entry("not_napp_adams", "why the given CRN is not a Napp–Adams compiled factor graph"),
    Entry("loopy", "the graph has cycles"),
    Entry("differences.{pair}", "max |belief difference|, {pair}", format=".2e"),
    Entry("bp_residual", "BP's fixed-point residual", format=".1e"),
    Entry("bp_converged", "BP converged"),
    Entry("bp_sweeps", "BP sweeps", format="d"),
    Entry("conservation_error.{crn}", "conservation error of {crn}", format=".1e"),
    Entry("sizes.{crn}.{what}", "{what} of {crn}", format="d"),
    Entry("applied.{move}", "{move} moves applied", format="d"),
    Entry("declined.{move}", "{move} moves declined (they would enlarge the CRN)", format="d"),
    Entry("steady_time.{crn}", "simulated time to rest, {crn}", "time units"),
    Entry("unrested.{crn}", "why {crn} reached no rest"),
    Entry("rest_verified.{crn}", "a Newton solve confirmed the rest of {crn}"),
    Entry(
        "bp_residual_at_rest.{crn}", "BP's residual at the messages {crn} rests with", format=".1e"
    ),
    Entry(
        "rest_residual.{crn}",
        "max |dx/dt| at the rest of {crn}",
        "concentration per time unit",
        format=".1e",
    ),
    Entry("steps", "reactions after each move"),
    Entry("kept", "variables kept from reduction"),
    Entry("robustness.{crn}.{what}", "{what} of {crn}"),
)


METHOD = Method(
    name="crn-validate",
    help="compile a factor graph to a Napp–Adams CRN, reduce it, and compare both",
    description=(
        "Read a factor graph (.fg or .uai) or a Bayesian network (.bif, XMLBIF), apply BP-exact "
        "reductions (absorb leaves and dangling trees, eliminate degree-2 variables, merge "
        "unary factors, clamp evidence) — each only when it shrinks the CRN — compile the "
        "original and the reduced graph to Napp–Adams CRNs, simulate both to steady state, "
        "and compare their beliefs on the surviving variables with each other, with belief "
        "propagation and with exact marginals. "
        "With --crn, the chemical route: the factor graph is recovered from a Napp–Adams "
        "CRN in SBML (names ignored), reduced and recompiled, and the given CRN is "
        "simulated as it is; a valid mass-action model that is not a Napp–Adams CRN is "
        "simulated to its steady state and explained (verdict: cannot tell). "
        "Without --graph or --crn: the Asia network shipped with the "
        "package. Both CRNs are written to the run folder as SBML. "
        "The run ends with a verdict line: valid (exit 0), not valid (exit 3: the CRNs "
        "disagree with each other or with BP beyond --belief-tolerance) or cannot tell "
        "(exit 4: a conserved sum lost, a rest point that is not one, τ beyond the time "
        "simulated, BP unconverged, several fixed points or failed robustness runs), "
        "naming the comparison and variable it rests on."
    ),
    summary=SUMMARY,
    parameters=CrnValidateParameters,
    run=implementation(".crn_validate_run", "run_crn_validate"),
    backends={"hardware": CRNBackend},
    report=report,
)
