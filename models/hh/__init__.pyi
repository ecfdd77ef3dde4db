# The public nouns of this subpackage, for type checkers; __init__.py loads each lazily
# from the module named here (lazy_loader.attach_stub reads this file).

from .activation import ActivationCurve, fit_activation
from .artefacts import Artefacts, remove_artefacts
from .calibrate import calibrate
from .detection import evoked_spikes, spontaneous_spikes
from .features import electrical_image
from .fit import CellFit, Observed, fit_cell, observe
from .inference import Posterior, npe
from .patterns import Pattern, responses
from .refine import refine

__all__ = [
    "ActivationCurve",
    "Artefacts",
    "CellFit",
    "Observed",
    "Pattern",
    "Posterior",
    "calibrate",
    "electrical_image",
    "evoked_spikes",
    "fit_activation",
    "fit_cell",
    "npe",
    "observe",
    "refine",
    "remove_artefacts",
    "responses",
    "spontaneous_spikes",
]
