# The public nouns of this subpackage, for type checkers; __init__.py loads each lazily
# from the module named here (lazy_loader.attach_stub reads this file).

from .cmax import TwoMotions, two_motions
from .layers import decouple_recording, evaluate_scene, score_scenes, summarize_scenes
from .removal import psnr, remove_reflection
from .scenes import ReflectionScene
from .separation import separate_layers

__all__ = [
    "ReflectionScene",
    "TwoMotions",
    "decouple_recording",
    "evaluate_scene",
    "psnr",
    "remove_reflection",
    "score_scenes",
    "separate_layers",
    "summarize_scenes",
    "two_motions",
]
