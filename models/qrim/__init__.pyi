# The public nouns of this subpackage, for type checkers; __init__.py loads each lazily
# from the module named here (lazy_loader.attach_stub reads this file).

from .envs import ENVIRONMENTS, make_env
from .inner import ExhaustiveMin, InnerMinimizer, InnerResult, QuantumMinimumFinder
from .mdp import RobustMDP
from .q_learning import robust_q_learning
from .solution import RobustSolution
from .value_iteration import nominal_policy, robust_value_iteration

__all__ = [
    "ENVIRONMENTS",
    "ExhaustiveMin",
    "InnerMinimizer",
    "InnerResult",
    "QuantumMinimumFinder",
    "RobustMDP",
    "RobustSolution",
    "make_env",
    "nominal_policy",
    "robust_q_learning",
    "robust_value_iteration",
]
