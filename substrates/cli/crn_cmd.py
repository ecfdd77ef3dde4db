"""`substrates run crn-validate`: do reduced Napp–Adams CRNs compute the same beliefs?"""

from __future__ import annotations

import argparse
from typing import Any


def add_crn_parser(methods: argparse._SubParsersAction) -> None:
    parser = methods.add_parser(
        "crn-validate",
        help="compile a factor graph to a Napp–Adams CRN, reduce it, and compare both",
        description=(
            "Read a factor graph (.fg or .uai), apply BP-exact reductions (absorb leaves "
            "and dangling trees, eliminate degree-2 variables, merge unary factors, clamp "
            "evidence), compile the original and the reduced graph to Napp–Adams CRNs, "
            "simulate both to steady state, and compare their beliefs on the surviving "
            "variables with each other, with belief propagation and with exact marginals. "
            "With --crn, the chemical route: the factor graph is recovered from a Napp–Adams "
            "CRN in SBML (names ignored), reduced and recompiled, and the given CRN is "
            "simulated as it is. Without --graph or --crn: the Asia network shipped with the "
            "package. Both CRNs are written to the run folder as SBML."
        ),
    )
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--graph", metavar="FILE", help="factor graph, .fg (libDAI) or .uai")
    source.add_argument(
        "--crn", metavar="FILE", help="a Napp–Adams CRN in SBML, e.g. a run's crn_original.xml"
    )
    parser.add_argument(
        "--reduce", default="all",
        help="all, none, or a comma list of evidence, leaves, unary, degree2 (default all)",
    )  # fmt: skip
    parser.add_argument(
        "--evidence", default="", metavar="VAR=STATE,...",
        help="hard evidence, e.g. 6=1,7=1 (variable names as in the file)",
    )  # fmt: skip
    parser.add_argument(
        "--keep", default="", metavar="VAR,...", help="variables never reduced away"
    )
    parser.add_argument(
        "--lifted", action="store_true",
        help="also compress the reduced graph by colour passing (lifted BP): variables and "
        "factors that BP cannot tell apart share species",
    )  # fmt: skip
    parser.add_argument(
        "--simulator", "--hardware", dest="hardware", default="crn_ode", metavar="CONFIG",
        help="CRN simulator config file or shipped name (default crn_ode)",
    )  # fmt: skip
    parser.add_argument(
        "--tolerance", type=float, default=1e-13,
        help="steady state when max |dx/dt| falls below this (default 1e-13)",
    )  # fmt: skip
    parser.add_argument("--out", default="runs", help="folder for run folders (default: runs)")
    parser.set_defaults(handler=handle_crn_validate)


def run_arguments(args: argparse.Namespace) -> dict[str, Any]:
    """run_crn_validate's arguments from the command line (all but out)."""
    return {
        "graph_path": args.graph, "simulator": args.hardware, "reduce": args.reduce,
        "evidence": args.evidence, "keep": args.keep, "tolerance": args.tolerance,
        "crn_path": args.crn, "lifted": args.lifted,
    }  # fmt: skip


def handle_crn_validate(args: argparse.Namespace) -> int:
    from substrates.adapters.runs.crn_validate_run import run_crn_validate

    folder, result = run_crn_validate(**run_arguments(args), out=args.out)
    sizes = result.sizes
    print(f"{'':<13}{'variables':>10}{'factors':>9}{'species':>9}{'reactions':>11}")
    for label in ("crn_original", "crn_reduced"):
        s = sizes[label]
        print(f"{label:<13}{s['variables']:>10}{s['factors']:>9}{s['species']:>9}"
              f"{s['reactions']:>11}")  # fmt: skip
    ratio = sizes["crn_original"]["reactions"] / max(sizes["crn_reduced"]["reactions"], 1)
    applied = ", ".join(f"{k} {v}" for k, v in result.applied.items()) or "none"
    print(f"reactions {ratio:.1f}x fewer; moves applied: {applied}")
    if args.lifted:
        print("crn_reduced is lifted: its variables and factors are colour-passing groups")
    print(f"graph {'has cycles' if result.loopy else 'is a tree/forest'}; both CRNs start "
          "from uniform messages")  # fmt: skip
    print("max |belief difference| on survivors " + ", ".join(result.survivors) + ":")
    for pair, value in result.differences.items():
        print(f"  {pair:<28} {value:.2e}")
    print(f"BP residual {result.bp_residual:.1e}; conservation error "
          + ", ".join(f"{k} {v:.1e}" for k, v in result.conservation_error.items()))  # fmt: skip
    print(f"run folder: {folder.path}")
    return 0
