# The public nouns of this subpackage, for type checkers; __init__.py loads each lazily
# from the module named here (lazy_loader.attach_stub reads this file).

from .aedat4 import read_aedat4, write_aedat4
from .events import EventError, Events, read_parquet, write_parquet
from .files import FORMATS, FileInfo, read_events, write_events
from .filters import BackgroundActivityFilter, RefractoryFilter
from .hdf5 import read_hdf5, write_hdf5
from .nmnist import read_nmnist
from .representations import event_frames, time_surfaces, voxel_grid
from .stream import EventStream
from .synthetic import drifting_texture
from .video import read_video

__all__ = [
    "FORMATS",
    "BackgroundActivityFilter",
    "EventError",
    "EventStream",
    "Events",
    "FileInfo",
    "RefractoryFilter",
    "drifting_texture",
    "event_frames",
    "read_aedat4",
    "read_events",
    "read_hdf5",
    "read_nmnist",
    "read_parquet",
    "read_video",
    "time_surfaces",
    "voxel_grid",
    "write_aedat4",
    "write_events",
    "write_hdf5",
    "write_parquet",
]
