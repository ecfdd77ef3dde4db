"""Rain maps from microwave links: the standard chain, IDW, kriging and the Bayesian reconstruction.

Every public noun is importable from here, loaded on first use (`__init__.pyi` lists them
with their types)."""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
