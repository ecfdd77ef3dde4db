"""Napp–Adams CRNs from factor graphs: compilation, reductions, recovery, and the references they
are validated against.

Every public noun is importable from here, loaded on first use (`__init__.pyi` lists them
with their types)."""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
