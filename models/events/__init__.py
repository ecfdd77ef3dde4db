"""Two-layer reflection scenes from events: contrast maximisation with two motions, separation and
removal.

Every public noun is importable from here, loaded on first use (`__init__.pyi` lists them
with their types)."""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
