# The public nouns of this subpackage, for type checkers; __init__.py loads each lazily
# from the module named here (lazy_loader.attach_stub reads this file).

from .method import sample, tabulate

__all__ = [
    "sample",
    "tabulate",
]
