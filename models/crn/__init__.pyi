# The public nouns of this subpackage, for type checkers; __init__.py loads each lazily
# from the module named here (lazy_loader.attach_stub reads this file).

from .bp import belief_propagation
from .elementary import elementary
from .errors import ImpossibleEvidenceError, NothingToCompareError, RewriteError, SizeBudgetError
from .exact import TooWideError, marginals
from .lifted import colour_passing, compile_lifted
from .napp_adams import CompiledGraph, compile_graph
from .recovery import RecoveryError, recover
from .reductions import reduce, with_evidence
from .size import graph_size
from .trw import TooLargeForTRWError, tree_reweighted_bp
from .validate import Analyses, Validation, preflight, validate_reduction

__all__ = [
    "Analyses",
    "CompiledGraph",
    "ImpossibleEvidenceError",
    "NothingToCompareError",
    "RecoveryError",
    "RewriteError",
    "SizeBudgetError",
    "TooLargeForTRWError",
    "TooWideError",
    "Validation",
    "belief_propagation",
    "colour_passing",
    "compile_graph",
    "compile_lifted",
    "elementary",
    "graph_size",
    "marginals",
    "preflight",
    "recover",
    "reduce",
    "tree_reweighted_bp",
    "validate_reduction",
    "with_evidence",
]
