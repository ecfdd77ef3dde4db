# The public nouns of this subpackage, for type checkers; __init__.py loads each lazily
# from the module named here (lazy_loader.attach_stub reads this file).

from .bids_events import read_events_tsv
from .files import FORMATS
from .geometry import from_map_file, from_probe_file, grid, hexagonal, litke_512
from .litke_bin import read_litke
from .neo_files import read_neo
from .nwb import read_nwb, write_nwb
from .recording import Recording, RecordingError, Stimulation
from .triggers import neo_event_onsets, ttl_onsets

__all__ = [
    "FORMATS",
    "Recording",
    "RecordingError",
    "Stimulation",
    "from_map_file",
    "from_probe_file",
    "grid",
    "hexagonal",
    "litke_512",
    "neo_event_onsets",
    "read_events_tsv",
    "read_litke",
    "read_neo",
    "read_nwb",
    "ttl_onsets",
    "write_nwb",
]
