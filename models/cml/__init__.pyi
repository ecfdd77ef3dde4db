# The public nouns of this subpackage, for type checkers; __init__.py loads each lazily
# from the module named here (lazy_loader.attach_stub reads this file).

from .bayesian import BayesianSettings, reconstruct_bayesian
from .chain_parameters import ChainParameters
from .grid import Grid
from .kriging import OrdinaryKriging, Variogram
from .path_operator import PathOperator
from .processing import process
from .rain_prior import RainPrior
from .reconstruct import field_scores, idw

__all__ = [
    "BayesianSettings",
    "ChainParameters",
    "Grid",
    "OrdinaryKriging",
    "PathOperator",
    "RainPrior",
    "Variogram",
    "field_scores",
    "idw",
    "process",
    "reconstruct_bayesian",
]
