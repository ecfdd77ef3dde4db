"""Every study the project makes a claim with, one module per claim, each holding `STUDY`.

A module imports only what its declaration needs; what its cases run is imported when
they run, so `python -m substrates.studies list` stays fast without the substrates'
extras.
"""

from __future__ import annotations

import importlib

from ..declaration import Study

CLAIMS: dict[str, str] = {
    "cml-fresh": "cml_fresh",
    "crn-exact": "crn_exact",
    "events-frames": "events_frames",
    "mea-array-fit": "mea_array_fit",
    "qrim-search": "qrim_search",
}
"""Study name → its module in this package."""


def get(name: str) -> Study:
    """The study called `name`; a KeyError naming the studies there are."""
    if name not in CLAIMS:
        raise KeyError(f"no study {name!r}; studies: {', '.join(sorted(CLAIMS))}")
    study: Study = importlib.import_module(f".{CLAIMS[name]}", __name__).STUDY
    return study


def every() -> list[Study]:
    """Every study, by name."""
    return [get(name) for name in sorted(CLAIMS)]
