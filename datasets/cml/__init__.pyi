# The public nouns of this subpackage, for type checkers; __init__.py loads each lazily
# from the module named here (lazy_loader.attach_stub reads this file).

from .errors import CMLDataError
from .itu_p838 import k_alpha, rain_rate, specific_attenuation
from .network import LinkNetwork, random_network
from .openmrg import read_openmrg
from .opensense import FORMATS, open_dataset, pycomlink_example
from .radar_reference import areal_reference, path_reference
from .rain_fields import RainFieldModel, rain_fields

__all__ = [
    "FORMATS",
    "CMLDataError",
    "LinkNetwork",
    "RainFieldModel",
    "areal_reference",
    "k_alpha",
    "open_dataset",
    "path_reference",
    "pycomlink_example",
    "rain_fields",
    "rain_rate",
    "random_network",
    "read_openmrg",
    "specific_attenuation",
]
