# The public nouns of this subpackage, for type checkers; __init__.py loads each lazily
# from the module named here (lazy_loader.attach_stub reads this file).

from .circuit_files import FORMATS, CircuitFileError, example_path, load_circuits, save_qpy
from .counts import counts_table
from .generators import bell, ghz, grover, layered

__all__ = [
    "FORMATS",
    "CircuitFileError",
    "bell",
    "counts_table",
    "example_path",
    "ghz",
    "grover",
    "layered",
    "load_circuits",
    "save_qpy",
]
