# The public nouns of this subpackage, for type checkers; __init__.py loads each lazily
# from the module named here (lazy_loader.attach_stub reads this file).

from .bif import read_bif
from .factor_graph import Factor, FactorGraph, FactorGraphError
from .files import FORMATS, example_path, graph_path, pgmpy_networks, read_graph
from .generators import chain, ferromagnet, hmm, ising_grid, random_tree
from .libdai_fg import read_fg, write_fg
from .reaction_network import NetworkBuilder, ReactionNetwork
from .sbml import SBMLError, read_sbml, to_sbml, write_sbml
from .uai import read_uai, write_uai
from .xmlbif import read_xmlbif

__all__ = [
    "FORMATS",
    "Factor",
    "FactorGraph",
    "FactorGraphError",
    "NetworkBuilder",
    "ReactionNetwork",
    "SBMLError",
    "chain",
    "example_path",
    "ferromagnet",
    "graph_path",
    "hmm",
    "ising_grid",
    "pgmpy_networks",
    "random_tree",
    "read_bif",
    "read_fg",
    "read_graph",
    "read_sbml",
    "read_uai",
    "read_xmlbif",
    "to_sbml",
    "write_fg",
    "write_sbml",
    "write_uai",
]
