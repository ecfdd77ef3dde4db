"""What the fuzz tests feed each reader: a valid file made by the reader's independent
writer (or ours, where the format has no other), the call that reads it, and the one error
type the reader may raise. Run inside a memory-limited subprocess by fuzz_worker.py."""

from __future__ import annotations

import os
import struct
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

DECLARED = (0, -1, 2**31, 2**63, 10**12)
"""Values every declared size is set to (worker: also the file's length + 1 and × 8)."""


@dataclass(frozen=True)
class Declared:
    """A declared size of the valid file: its bytes there, and the bytes declaring `n`."""

    field: bytes
    render: Callable[[int], bytes]


def text(field: bytes, template: bytes) -> Declared:
    """A size written in decimal: `template` % n replaces `field`."""
    return Declared(field, lambda n: template % n)


def be32(prefix: bytes, value: int) -> Declared:
    """A big-endian unsigned 32-bit size after `prefix` (negative and wider values wrap, as
    a careless writer would write them)."""
    return Declared(
        prefix + struct.pack(">I", value), lambda n: prefix + struct.pack(">I", n % 2**32)
    )


@dataclass(frozen=True)
class Reader:
    """suffix: the file name's ending; valid(folder) -> bytes of a valid file; read(path)
    reads it; errors: the exception types the reader may raise for bad input."""

    suffix: str
    valid: Callable[[Path], bytes]
    read: Callable[[Path], Any]
    errors: tuple[type[BaseException], ...]
    sizes: tuple[Declared, ...] = ()
    """The valid file's declared sizes (lengths, counts), each set in turn to every value
    of DECLARED and to sizes beyond the file's."""
    bombs: tuple[bytes, ...] = ()
    """Small inputs that expand without bound if nothing checks them (the textual
    formats: definitions calling each other, loops, aliases, entities)."""
    examples: int | None = None
    """Hypothesis examples per strategy (None: SUBSTRATES_FUZZ_EXAMPLES, default 60)."""
    place: Callable[[Path, bytes], Path] | None = None
    """Where the input goes, for a reader of a folder (None: one file input<suffix>)."""


def _config(folder: Path) -> bytes:
    return b"substrate: quantum\nbackend: quantum.aer\noptions:\n  method: statevector\n"


def _grid(folder: Path) -> bytes:
    return b"parameters:\n  uncertainty: [4, 8]\nseeds: 2\nfixed: {steps: 10}\n"


def _qasm(folder: Path) -> bytes:
    from qiskit import qasm3

    from substrates.datasets.quantum.generators import ghz

    return qasm3.dumps(ghz(3)).encode()


def _qpy(folder: Path) -> bytes:
    import io

    from qiskit import qpy

    from substrates.datasets.quantum.generators import ghz

    buffer = io.BytesIO()
    qpy.dump([ghz(3)], buffer)
    return buffer.getvalue()


def _fg(folder: Path) -> bytes:
    from substrates.datasets.crn.libdai_fg import write_fg
    from substrates.testing.crn import random_tree

    write_fg(random_tree(3, seed=1, states=2), folder / "seed.fg")
    return (folder / "seed.fg").read_bytes()


def _uai(folder: Path) -> bytes:
    from substrates.datasets.crn.uai import write_uai
    from substrates.testing.crn import random_tree

    write_uai(random_tree(3, seed=1, states=2), folder / "seed.uai")
    return (folder / "seed.uai").read_bytes()


def _bif(folder: Path) -> bytes:
    import gzip

    from substrates.testing.crn import pgmpy_network

    return gzip.decompress(pgmpy_network("asia").read_bytes())  # as bnlearn wrote it


def _xmlbif(folder: Path) -> bytes:
    import gzip

    from pgmpy.readwrite import BIFReader, XMLBIFWriter

    from substrates.testing.crn import pgmpy_network

    text = gzip.decompress(pgmpy_network("asia").read_bytes()).decode()
    return str(XMLBIFWriter(BIFReader(string=text).get_model())).encode()


def _sbml_antimony(folder: Path) -> bytes:
    import antimony

    antimony.clearPreviousLoads()
    antimony.loadAntimonyString(
        "model m\ncompartment cell = 2\nspecies A in cell, B in cell, E in cell\n"
        "A = 1; B = 0; E = 0.5; k = 0.3; kr = 0.1\n"
        "J0: A -> B; cell*k*E*A - kr*B*cell\nend\n"
    )
    return str(antimony.getSBMLString("m")).encode()


def _sbml(folder: Path) -> bytes:
    from substrates.datasets.crn.sbml import to_sbml
    from substrates.models.crn.napp_adams import compile_graph
    from substrates.testing.crn import random_tree

    return to_sbml(compile_graph(random_tree(2, seed=1, states=2)).network).encode()


def _events(encoding: str) -> Callable[[Path], bytes]:
    def valid(folder: Path) -> bytes:
        from substrates.datasets.events.events import EVENT_DTYPE, Events
        from substrates.datasets.events.files import write_events

        rng = np.random.default_rng(1)
        array = np.empty(64, EVENT_DTYPE)
        array["t"] = np.sort(rng.integers(0, 50_000, 64))
        array["x"], array["y"] = rng.integers(0, 32, 64), rng.integers(0, 24, 64)
        array["p"] = rng.integers(0, 2, 64)
        suffix = {"dat": "dat", "aedat4": "aedat4"}.get(encoding, "raw")
        path = folder / f"seed.{suffix}"
        write_events(Events(array, 32, 24), path, encoding)
        return path.read_bytes()

    return valid


def _hdf5(folder: Path) -> bytes:
    import h5py

    with h5py.File(folder / "seed.h5", "w") as handle:  # DSEC's layout, written by h5py
        events = handle.create_group("events")
        events["t"] = np.arange(10, dtype=np.uint32) * 100
        events["x"] = np.arange(10, dtype=np.uint16)
        events["y"] = np.arange(10, dtype=np.uint16)
        events["p"] = (np.arange(10) % 2).astype(np.uint8)
    return (folder / "seed.h5").read_bytes()


def _litke(folder: Path) -> bytes:
    from substrates.testing.mea import litke_header, litke_pack

    samples = np.random.default_rng(2).integers(-2048, 2048, (10, 513))  # the 512 array + TTL
    return litke_header(513, 10) + litke_pack(samples)


def _nwb(folder: Path) -> bytes:
    from substrates.testing.mea import pynwb_file

    pynwb_file(folder / "seed.nwb", np.zeros((20, 3), np.int16))
    return (folder / "seed.nwb").read_bytes()


def _maxone(folder: Path) -> bytes:
    """A MaxOne file of the legacy layout (neo's and SpikeInterface's reading), by h5py."""
    import h5py

    fields = [("channel", "<i4"), ("electrode", "<i4"), ("x", "<f8"), ("y", "<f8")]
    mapping = np.array([(2, 40, 0.0, 0.0), (0, 41, 17.5, 0.0), (-1, 42, 35.0, 0.0)], fields)
    with h5py.File(folder / "seed.raw.h5", "w") as handle:
        handle["version"] = np.array([b"20160704"])
        handle["settings/lsb"] = np.array([6.3e-6])
        handle["mapping"] = mapping
        handle["sig"] = np.full((7, 20), 512, np.uint16)
        handle["bits"] = np.array([(5, 1), (9, 0)], [("frameno", "<i8"), ("bits", "<i4")])
    return (folder / "seed.raw.h5").read_bytes()


def _opensense(folder: Path) -> bytes:
    import xarray as xr

    times = np.datetime64("2021-01-01T00:00") + np.arange(4) * np.timedelta64(1, "m")
    link, dims = ("cml_id", "sublink_id"), ("cml_id", "sublink_id", "time")
    data = xr.Dataset(
        {
            "rsl": (dims, np.full((2, 2, 4), -45.0), {"units": "dBm"}),
            "tsl": (dims, np.full((2, 2, 4), 10.0), {"units": "dBm"}),
        },
        coords={
            "cml_id": ["a", "b"],
            "sublink_id": ["s0", "s1"],
            "time": times,
            "frequency": (link, np.full((2, 2), 23.0), {"units": "GHz"}),
            "polarization": (link, np.full((2, 2), "v")),
            "length": ("cml_id", [3.0, 4.0], {"units": "km"}),
            "site_0_lat": ("cml_id", [50.0, 50.1]),
            "site_0_lon": ("cml_id", [8.0, 8.1]),
            "site_1_lat": ("cml_id", [50.02, 50.12]),
            "site_1_lon": ("cml_id", [8.03, 8.13]),
        },
    )
    data.to_netcdf(folder / "seed.nc")
    return (folder / "seed.nc").read_bytes()


def _openmrg_metadata(folder: Path) -> bytes:
    """cml_metadata.csv of a two-link OpenMRG folder (the layout's own column names)."""
    rows = [
        "Sublink,Link,Direction,Frequency_GHz,Polarization,Length_km,NearLatitude_DecDeg,"
        "NearLongitude_DecDeg,FarLatitude_DecDeg,FarLongitude_DecDeg"
    ]
    for sublink, (link, direction) in enumerate([(1, "A"), (1, "B"), (2, "A"), (2, "B")]):
        rows.append(f"{sublink},{link},{direction},23.0,Vertical,3.1,50.0,8.0,50.02,8.03")
    return ("\n".join(rows) + "\n").encode()


def _openmrg_folder(folder: Path, metadata: bytes) -> Path:
    """The OpenMRG layout: cml/cml.nc (valid, written by xarray) and the given metadata."""
    import xarray as xr

    place = folder / "openmrg"
    (place / "cml").mkdir(parents=True, exist_ok=True)
    if not (place / "cml" / "cml.nc").exists():
        times = np.datetime64("2021-01-01T00:00") + np.arange(4) * np.timedelta64(1, "m")
        xr.Dataset(
            {
                "rsl": (("sublink", "time"), np.full((4, 4), -45.0)),
                "tsl": (("sublink", "time"), np.full((4, 4), 10.0)),
            },
            coords={"sublink": [0, 1, 2, 3], "time": times},
        ).to_netcdf(place / "cml" / "cml.nc")
    (place / "cml" / "cml_metadata.csv").write_bytes(metadata)
    return place


def _read_config(path: Path) -> Any:
    from substrates.adapters.config.load import load_config

    return load_config(path)


def _read_grid(path: Path) -> Any:
    from substrates.adapters.sweeps.grid import load_grid

    return load_grid(path, "qrim")


def _read_circuits(path: Path) -> Any:
    from substrates.datasets.quantum.circuit_files import load_circuits

    return load_circuits(path)


def _read_fg(path: Path) -> Any:
    from substrates.datasets.crn.libdai_fg import read_fg

    return read_fg(path)


def _read_uai(path: Path) -> Any:
    from substrates.datasets.crn.uai import read_uai

    return read_uai(path)


def _read_bif(path: Path) -> Any:
    from substrates.datasets.crn.bif import read_bif

    return read_bif(path)


def _read_xmlbif(path: Path) -> Any:
    from substrates.datasets.crn.xmlbif import read_xmlbif

    return read_xmlbif(path)


def _read_sbml(path: Path) -> Any:
    from substrates.datasets.crn.sbml import read_sbml

    return read_sbml(path)


def _aedat3(folder: Path) -> bytes:
    """AEDAT 3.1 from libcaer's byte layout: a special-event packet, two polarity ones."""
    import struct

    def packet(kind: int, records: list[tuple[int, int]], overflow: int = 0) -> bytes:
        n = len(records)
        head = struct.pack("<HHIIIIII", kind, 1, 8, 4, overflow, n, n, n)
        return head + b"".join(struct.pack("<Ii", d, t) for d, t in records)

    rng = np.random.default_rng(2)
    events = [
        ((int(x) << 17) | (int(y) << 2) | (int(p) << 1) | 1, int(t))
        for x, y, p, t in zip(
            rng.integers(0, 128, 40),
            rng.integers(0, 128, 40),
            rng.integers(0, 2, 40),
            np.sort(rng.integers(0, 9000, 40)),
            strict=True,
        )
    ]
    header = b"#!AER-DAT3.1\r\n#Source 1: DVS128\r\n#!END-HEADER\r\n"
    return header + packet(0, [(3, 0)]) + packet(1, events[:20]) + packet(1, events[20:], 1)


def _npy_sample(folder: Path) -> bytes:
    """A DVS-Lip sample: a structured array x, y, p, t, written by numpy."""
    stored = np.zeros(16, [("x", "<i2"), ("y", "<i2"), ("p", "?"), ("t", "<i8")])
    stored["t"], stored["x"], stored["y"] = np.arange(16) * 10, np.arange(16), 15 - np.arange(16)
    np.save(folder / "seed.npy", stored)
    return (folder / "seed.npy").read_bytes()


def _mat_sample(folder: Path) -> bytes:
    """An ASL-DVS sample: MATLAB column vectors ts, x, y, pol, written by scipy."""
    from scipy.io import savemat

    column = np.arange(16)[:, None]
    savemat(folder / "seed.mat", {"ts": column * 10, "x": column, "y": column, "pol": column % 2})
    return (folder / "seed.mat").read_bytes()


def _read_sample(dataset: str) -> Callable[[Path], Any]:
    def read(path: Path) -> Any:
        from substrates.datasets.events.class_folders import read_sample

        return read_sample(path, dataset)

    return read


def _read_events(path: Path) -> Any:
    from substrates.datasets.events.files import read_events

    return read_events(path)


def _read_litke(path: Path) -> Any:
    from substrates.backends.registry import create_backend

    return create_backend("mea.litke", {"path": str(path), "gain_uv": 0.5}).recording()


def _read_nwb(path: Path) -> Any:
    from substrates.datasets.mea.nwb import read_nwb

    return read_nwb(path).get_traces()


def _read_maxwell(path: Path) -> Any:
    from substrates.datasets.mea.maxwell import bits_onsets, read_maxwell

    recording = read_maxwell(path)
    return recording.get_traces(), bits_onsets(path, recording.sampling_hz)


def _read_opensense(path: Path) -> Any:
    from substrates.datasets.cml.opensense import open_dataset

    return open_dataset(path)


def readers() -> dict[str, Reader]:
    """Reader name → what to feed it (imports the error types here, in the worker)."""
    from substrates.adapters.config.errors import ConfigError
    from substrates.datasets.cml.errors import CMLDataError
    from substrates.datasets.crn.factor_graph import FactorGraphError
    from substrates.datasets.crn.sbml import SBMLError
    from substrates.datasets.events.events import EventError
    from substrates.datasets.mea.recording import RecordingError
    from substrates.datasets.quantum.circuit_files import CircuitFileError
    from substrates.errors import SubstratesError

    return {
        "config": Reader(".yaml", _config, _read_config, (ConfigError,), bombs=(ALIAS_BOMB,)),
        "grid": Reader(
            ".yaml",
            _grid,
            _read_grid,
            (ConfigError,),
            (text(b"seeds: 2", b"seeds: %d"),),
            (ALIAS_BOMB,),
        ),
        "qasm": Reader(
            ".qasm",
            _qasm,
            _read_circuits,
            (CircuitFileError,),
            (text(b"qubit[3]", b"qubit[%d]"), text(b"bit[3]", b"bit[%d]")),
            QASM_BOMBS,
        ),
        "qpy": Reader(".qpy", _qpy, _read_circuits, (CircuitFileError,)),
        "fg": Reader(".fg", _fg, _read_fg, (FactorGraphError,), (text(b"\n2 2\n", b"\n%d 2\n"),)),
        "uai": Reader(
            ".uai",
            _uai,
            _read_uai,
            (FactorGraphError,),
            (text(b"\n2 2 2\n", b"\n2 2 %d\n"),),
        ),
        "sbml": Reader(".xml", _sbml, _read_sbml, (SBMLError,), bombs=(XML_BOMB,)),
        "sbml_antimony": Reader(".xml", _sbml_antimony, _read_sbml, (SBMLError,)),
        "bif": Reader(".bif", _bif, _read_bif, (FactorGraphError,), (text(b"[ 2 ]", b"[ %d ]"),)),
        "xmlbif": Reader(".xml", _xmlbif, _read_xmlbif, (FactorGraphError,), bombs=(XML_BOMB,)),
        "evt2": Reader(
            ".raw",
            _events("evt2"),
            _read_events,
            (EventError,),
            (text(b"width=32", b"width=%d"), text(b"height=24", b"height=%d")),
        ),
        "evt3": Reader(
            ".raw",
            _events("evt3"),
            _read_events,
            (EventError,),
            (text(b"width=32", b"width=%d"), text(b"height=24", b"height=%d")),
        ),
        "dat": Reader(
            ".dat",
            _events("dat"),
            _read_events,
            (EventError,),
            (text(b"Width 32", b"Width %d"), text(b"Height 24", b"Height %d")),
        ),
        "hdf5": Reader(".h5", _hdf5, _read_events, (EventError,)),
        "aedat3": Reader(".aedat", _aedat3, _read_events, (EventError,)),
        "aedat4": Reader(
            ".aedat4", _events("aedat4"), _read_events, (EventError,), examples=15
        ),  # each read spawns the decoder's process
        "dvs_lip": Reader(".npy", _npy_sample, _read_sample("dvs_lip"), (EventError,)),
        "asl_dvs": Reader(".mat", _mat_sample, _read_sample("asl_dvs"), (EventError,)),
        "litke": Reader(
            ".bin",
            _litke,
            _read_litke,
            (SubstratesError,),
            (
                be32(struct.pack(">II", 0, 4), 87),  # header length (bytes)
                be32(struct.pack(">II", 4, 8), 513),  # electrodes
                be32(struct.pack(">II", 5, 4), 20_000),  # sampling rate (Hz)
                be32(struct.pack(">II", 499, 4), 10),  # samples
            ),
        ),
        "nwb": Reader(".nwb", _nwb, _read_nwb, (RecordingError,)),
        "maxwell": Reader(".raw.h5", _maxone, _read_maxwell, (RecordingError,)),
        "opensense": Reader(".nc", _opensense, _read_opensense, (CMLDataError,)),
        "openmrg": Reader(
            ".csv", _openmrg_metadata, _read_opensense, (CMLDataError,), place=_openmrg_folder
        ),
    }


ALIAS_BOMB = b"a: &a [x, x, x, x, x, x, x, x, x]\n" + b"".join(
    b"%c: &%c [*%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c]\n" % ((98 + i, 98 + i) + (97 + i,) * 9)
    for i in range(9)
)
"""Billion laughs in YAML: ten lines that would expand to 10^10 strings."""
XML_BOMB = (
    b'<?xml version="1.0"?>\n<!DOCTYPE lolz [\n<!ENTITY lol "lol">\n'
    + b"".join(
        b'<!ENTITY lol%d "%s">\n' % (i, (b"&lol%d;" % (i - 1) if i > 1 else b"&lol;") * 10)
        for i in range(1, 10)
    )
    + b"]>\n<sbml>&lol9;</sbml>\n"
)
"""Billion laughs in XML: nine entities of ten, 10^9 'lol's."""
QASM_BOMBS = (
    b'OPENQASM 2.0;\ninclude "qelib1.inc";\ngate g0 a { x a; }\n'
    + b"".join(b"gate g%d a { g%d a; g%d a; }\n" % (i, i - 1, i - 1) for i in range(1, 64))
    + b"qreg q[1];\ncreg c[1];\ng63 q[0];\nmeasure q -> c;\n",
    b'OPENQASM 3.0;\ninclude "stdgates.inc";\nqubit[1] q;\nbit[1] c;\n'
    b"for uint i in [0:1000000000] { x q[0]; }\nc = measure q;\n",
    b'OPENQASM 3.0;\ninclude "stdgates.inc";\nqubit[1] q;\nbit[99999] c;\nc[0] = measure q[0];\n',
    b"OPENQASM 3.0;\n// " + b"x" * (60 << 20) + b"\nqubit[1] q;\n",
)
"""Gates calling the previous one twice (2^63 operations), a loop of 10^9 iterations, a
circuit of 99,999 classical bits, a 60 MB comment: each must be refused, fast."""


CORPUS = Path(__file__).with_name("corpus")
"""Regression files: inputs that once broke a reader, replayed first on every run."""
ENV_EXAMPLES = int(os.environ.get("SUBSTRATES_FUZZ_EXAMPLES", "60"))
_SEED = os.environ.get("SUBSTRATES_FUZZ_SEED", "0")
ENV_SEED = None if _SEED == "random" else int(_SEED)
"""The random inputs' seed (SUBSTRATES_FUZZ_SEED, 0 by default): each run of the suite draws
the same inputs, so the lanes pass or fail alike everywhere; None ('random'): new inputs."""
