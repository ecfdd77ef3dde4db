"""Hostile and broken input, as an adversarial user brings it through the command line:
every case ends in one line on stderr and exit 2, within a memory limit set here (address
space, RLIMIT_AS) and a time limit, and writes no run folder."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

MEMORY = 4 << 30
"""Address space each command may take (bytes): qiskit and numba need about 1.5 GB of
virtual memory to import; the cases used to ask for 3.5 to 71,000,000 GB."""


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def cli(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`substrates ARGS` under the address-space limit (see `measured`)."""
    return measured(*args, cwd=cwd, timeout=timeout)[0]


def one_line(result: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert result.returncode == 2, (result.returncode, result.stderr[-2000:])
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr[-2000:]
    assert "Traceback" not in result.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


FILES: dict[str, bytes] = {
    "huge3.qasm": b"OPENQASM 3.0;\nqubit[2000000000] q;\n",
    "huge2.qasm": b'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[2000000000];\n',
    "empty.qasm": b"",
    "utf16.qasm": "OPENQASM 3.0;\nqubit q;\n".encode("utf-16"),
    "two_states.fg": b"1\n\n2\n0 1\n10000 10000\n1\n0 1.0\n",
    "huge_states.fg": b"1\n\n2\n0 1\n1000000 1000000\n1\n0 1.0\n",
    "random.fg": bytes(range(256)) * 3,
    "random.uai": b"\x89PNG\r\n\x1a\n" + bytes(range(200)),
    "wide.raw": b"% format EVT3;width=60000;height=60000\n% end\n" + b"\x00" * 64,
    "negative.raw": b"% format EVT3;width=-5;height=480\n% end\n" + b"\x00" * 64,
    "utf16.yaml": "substrate: quantum\nbackend: quantum.aer\n".encode("utf-16"),
    "latin1.yaml": "description: caf\xe9\nsubstrate: quantum\n".encode("latin-1"),
    "deep.yaml": b"a: " + b"[" * 1000 + b"]" * 1000 + b"\n",
    "aliases.yaml": b"a: &a ['x','x','x','x','x','x','x','x','x']\nb: &b [*a,*a,*a,*a,*a]\n",
}
"""Each file's bytes; the cases below name the command and what the line must say."""

CASES = [
    (["check", "aer_statevector", "--circuit", "huge3.qasm"], ["2,000,000,000 qubits"]),
    (["run", "sample", "--circuit", "huge2.qasm"], ["2,000,000,000 qubits"]),
    (["run", "sample", "--circuit", "empty.qasm"], ["empty"]),
    (["run", "sample", "--circuit", "utf16.qasm"], ["not a text file"]),
    (["run", "crn-validate", "--graph", "two_states.fg"], ["100,000,000 table entries"]),
    (["run", "crn-validate", "--graph", "huge_states.fg"], ["1,000,000,000,000 table entries"]),
    (["run", "crn-validate", "--graph", "random.fg"], ["random.fg"]),
    (["run", "crn-validate", "--graph", "random.uai"], ["random.uai"]),
    (["run", "event-layers", "--source", "events_file", "--events", "wide.raw"], ["60000×60000"]),
    (["run", "event-layers", "--source", "events_file", "--events", "negative.raw"], ["-5×480"]),
    (["check", "utf16.yaml"], ["UTF-16"]),
    (["check", "latin1.yaml"], ["not UTF-8"]),
    (["check", "deep.yaml"], ["nested too deeply"]),
    (["check", "aliases.yaml"], ["aliases"]),
    (["check", "."], ["a folder, not a config file"]),
    (["run", "qrim", "--seed", "-5"], ["seed", "greater than or equal to 0"]),
    (["run", "sample", "--out", "aliases.yaml"], ["not a folder"]),
    (["run", "sample", "--max-file-qubits", "2"], ["declares 3 qubits, more than the 2"]),
    (["run", "crn-validate", "--max-table-entries", "3"], ["needs 4 entries, more than the 3"]),
]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    for name, data in FILES.items():
        (tmp_path / name).write_bytes(data)
    return tmp_path


@pytest.mark.parametrize(("args", "needles"), CASES, ids=[" ".join(a)[:48] for a, _ in CASES])
def test_hostile_input_is_one_line_in_bounded_memory(folder: Path, args, needles) -> None:
    one_line(cli(*args, cwd=folder), *needles)
    assert not (folder / "runs").exists()


def test_a_sweep_grid_that_expands_too_far_is_refused_before_expanding(folder: Path) -> None:
    (folder / "grid.yaml").write_text("parameters: {uncertainty: [4, 8]}\nseeds: 100000000000\n")
    one_line(
        cli("sweep", "qrim", "--grid", "grid.yaml", "--out", "out", cwd=folder),
        "200,000,000,000 items",
    )
    (folder / "bomb.yaml").write_bytes(FILES["aliases.yaml"].replace(b"a:", b"fixed:\n  x:"))
    one_line(cli("sweep", "qrim", "--grid", "bomb.yaml", "--out", "out", cwd=folder), "aliases")
    assert not (folder / "out").exists()


def test_a_litke_header_without_electrodes_is_one_line(folder: Path) -> None:
    from substrates.testing.mea import litke_header

    (folder / "zero.bin").write_bytes(litke_header(0, 100))
    (folder / "litke.yaml").write_text(
        "substrate: mea\nbackend: mea.litke\noptions: {path: zero.bin, gain_uv: 0.5}\n"
    )
    one_line(cli("check", "litke.yaml", cwd=folder), "0 electrodes")


def test_grid_paths_and_configs_are_checked_before_anything_runs(folder: Path) -> None:
    (folder / "grid.yaml").write_text("parameters:\n  hardware: [aer_statevector, nowhere.yaml]\n")
    one_line(
        cli("sweep", "sample", "--grid", "grid.yaml", "--out", "out", cwd=folder), "nowhere.yaml"
    )
    (folder / "grid.yaml").write_text("parameters:\n  circuit: [missing.qasm]\n")
    one_line(
        cli("sweep", "sample", "--grid", "grid.yaml", "--out", "out", cwd=folder),
        "circuit: missing.qasm: no such file or folder",
    )
    (folder / "grid.yaml").write_text("parameters:\n  exact: ['false']\n  shots: [10]\n")
    result = cli("sweep", "sample", "--grid", "grid.yaml", "--out", "out", cwd=folder)
    assert result.returncode == 0, result.stderr  # the string "false" is False, not a flag
    assert list((folder / "out" / "runs").glob("*/*/results.parquet"))


def test_an_unexpected_error_is_one_line_and_a_traceback_file(folder: Path) -> None:
    """A bug (here: a method declaration made to fail) prints where the traceback went."""
    code = (
        "import sys\nfrom substrates.cli import main\nimport substrates.adapters.methods.run"
        "_method\nfrom substrates.adapters.methods import sample_run\n"
        "def broken(*_):\n    raise ZeroDivisionError('a bug')\n"
        "sample_run.run_sample = broken\nsys.exit(main(sys.argv[1:]))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, "run", "sample"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 70, result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert "unexpected ZeroDivisionError: a bug" in line and "--debug" in line
    path = Path(line.split("traceback is in ")[1].split(";")[0])
    assert "ZeroDivisionError" in path.read_text()
    debug = subprocess.run(
        [sys.executable, "-c", code, "--debug", "run", "sample"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert debug.returncode == 70 and "Traceback" in debug.stderr


def test_links_without_any_data_are_one_line(folder: Path) -> None:
    import numpy as np
    import xarray as xr

    times = np.arange("2021-01-01T00:00", "2021-01-01T01:00", dtype="datetime64[m]")
    link, dims = ("cml_id", "sublink_id"), ("cml_id", "sublink_id", "time")
    xr.Dataset(
        {
            "rsl": (dims, np.full((2, 2, 60), np.nan), {"units": "dBm"}),
            "tsl": (dims, np.full((2, 2, 60), 10.0), {"units": "dBm"}),
        },
        coords={
            "cml_id": ["a", "b"],
            "sublink_id": ["s0", "s1"],
            "time": times.astype("datetime64[ns]"),
            "frequency": (link, np.full((2, 2), 23.0), {"units": "GHz"}),
            "polarization": (link, np.full((2, 2), "v")),
            "length": ("cml_id", [3.0, 3.0], {"units": "km"}),
            "site_0_lat": ("cml_id", [50.0, 50.01]),
            "site_0_lon": ("cml_id", [8.0, 8.0]),
            "site_1_lat": ("cml_id", [50.02, 50.03]),
            "site_1_lon": ("cml_id", [8.03, 8.03]),
        },
    ).to_netcdf(folder / "nan.nc")
    result = cli(
        "run",
        "cml-reconstruct",
        "--source",
        "cml_opensense",
        "--data",
        "nan.nc",
        "--start",
        "2021-01-01T00:10",
        "--end",
        "2021-01-01T00:40",
        "--methods",
        "idw",
        cwd=folder,
    )
    one_line(result, "no link has data")
    assert not (folder / "runs").exists()


def test_machine_errors_are_one_line() -> None:
    import errno

    from substrates.cli.failures import explain

    full = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), "runs/x/results.parquet")
    assert explain(full) == "runs/x/results.parquet: No space left on device"
    assert explain(MemoryError()).startswith("out of memory")
    assert explain(RecursionError()) == "the input is nested too deeply to read"
    assert explain(ZeroDivisionError("a bug")) is None


def test_links_whose_coordinates_contradict_their_length_are_one_line(folder: Path) -> None:
    """One link's ends swapped into lat/lon order would map thousands of km of nothing;
    lengths in metres declared as km would give no rain: both are refused, naming the link
    (lengths in metres without a unit are read in metres: the coordinates say so)."""
    import numpy as np
    import xarray as xr

    times = np.arange("2021-01-01T00:00", "2021-01-01T01:00", dtype="datetime64[m]")
    link, dims = ("cml_id", "sublink_id"), ("cml_id", "sublink_id", "time")
    for name, length, lat1, lon1 in (
        ("swapped", 3.0, 8.03, 50.02),
        ("metres", 3000.0, 50.02, 8.03),
    ):
        xr.Dataset(
            {
                "rsl": (dims, np.full((1, 2, 60), -45.0), {"units": "dBm"}),
                "tsl": (dims, np.full((1, 2, 60), 10.0), {"units": "dBm"}),
            },
            coords={
                "cml_id": ["a"],
                "sublink_id": ["s0", "s1"],
                "time": times.astype("datetime64[ns]"),
                "frequency": (link, np.full((1, 2), 23.0), {"units": "GHz"}),
                "polarization": (link, np.full((1, 2), "v")),
                "length": ("cml_id", [length], {"units": "km"}),
                "site_0_lat": ("cml_id", [50.0]),
                "site_0_lon": ("cml_id", [8.0]),
                "site_1_lat": ("cml_id", [lat1]),
                "site_1_lon": ("cml_id", [lon1]),
            },
        ).to_netcdf(folder / f"{name}.nc")
        result = cli(
            "run",
            "cml-reconstruct",
            "--source",
            "cml_opensense",
            "--data",
            f"{name}.nc",
            "--start",
            "2021-01-01T00:10",
            "--end",
            "2021-01-01T00:40",
            "--methods",
            "idw",
            cwd=folder,
        )
        one_line(result, "contradict their length", "cml_id a")


ROUND_TWO: dict[str, bytes] = {
    "doubling2.qasm": b'OPENQASM 2.0;\ninclude "qelib1.inc";\ngate g0 a { x a; }\n'
    + b"".join(b"gate g%d a { g%d a; g%d a; }\n" % (i, i - 1, i - 1) for i in range(1, 40))
    + b"qreg q[1];\ncreg c[1];\ng39 q[0];\nmeasure q -> c;\n",
    "doubling3.qasm": b'OPENQASM 3.0;\ninclude "stdgates.inc";\ngate g0 a { x a; }\n'
    + b"".join(b"gate g%d a { g%d a; g%d a; }\n" % (i, i - 1, i - 1) for i in range(1, 40))
    + b"qubit[1] q;\nbit[1] c;\ng39 q[0];\nc = measure q;\n",
    "loop.qasm": b'OPENQASM 3.0;\ninclude "stdgates.inc";\nqubit[1] q;\nbit[1] c;\n'
    b"for uint i in [0:1000000000] { x q[0]; }\nc = measure q;\n",
    "wide_creg.qasm": b'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[1];\ncreg c[99999];\n'
    b"h q[0];\nmeasure q[0] -> c[0];\n",
    "unmeasured.qasm": b'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[1];\nh q[0];\n',
    "overflow.qasm": b'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[1];\ncreg c[1];\n'
    b"rx(1e308*1e308) q[0];\nmeasure q -> c;\n",
    "truncated.qasm": b'OPENQASM 3.0;\ninclude "stdgates.inc";\nqubit[2] q;\nh q[0];\ncx q[0],',
    "twice.yaml": b"substrate: quantum\nbackend: quantum.aer\nbackend: quantum.ibm\n",
    "nul.yaml": b"substrate: quantum\nbackend: quantum.a\x00er\n",
    "slow_dask.yaml": b"executor: dask\noptions:\n  connect_timeout_s: 1e8\n",
    "threads.yaml": b"substrate: quantum\nbackend: quantum.aer\noptions:\n"
    b"  max_parallel_threads: 1e21\n",
    "nan.bif": b"network n {}\nvariable a { type discrete [ 2 ] { y, n }; }\n"
    b"probability ( a ) { table NaN, 0.5; }\n",
}
"""The second round's inputs (issue 43): expansion bombs, classical widths, ordinary
mistakes, non-finite values; the binary ones are written by the test that uses them."""

ROUND_TWO_CASES = [
    (["check", "aer_statevector", "--circuit", "doubling2.qasm"], ["line 45", "max_operations"]),
    (["run", "sample", "--circuit", "doubling3.qasm"], ["line 45", "max_operations"]),
    (["run", "sample", "--circuit", "loop.qasm"], ["line 5", "max_loop_trips"]),
    (["run", "sample", "--circuit", "wide_creg.qasm"], ["line 4", "99,999 classical bits"]),
    (["run", "sample", "--circuit", "unmeasured.qasm"], ["measures nothing"]),
    (["run", "sample", "--circuit", "overflow.qasm"], ["non-finite parameter"]),
    (["run", "sample", "--circuit", "truncated.qasm"], ["truncated.qasm", "cannot parse: "]),
    (["check", "twice.yaml"], ["duplicate key 'backend' (first on line 2)", "line 3"]),
    (["check", "nul.yaml"], ["line 2, column 19", "control character U+0000"]),
    (["check", "slow_dask.yaml"], ["connect_timeout_s", "less than or equal to 3600"]),
    (["check", "threads.yaml"], ["max_parallel_threads"]),
    (["run", "crn-validate", "--graph", "nan.bif"], ["non-finite probabilities (NaN)"]),
]


def measured(
    *args: str, cwd: Path, timeout: float = 120
) -> tuple[subprocess.CompletedProcess[str], float, int]:
    """`substrates ARGS` under the address-space limit: the result, its wall time (s) and
    the peak resident memory of the command and of everything it waited for (bytes)."""
    began = time.monotonic()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        process = subprocess.Popen(
            [sys.executable, "-m", "substrates", *args],
            cwd=cwd,
            text=True,
            stdout=out,
            stderr=err,
            preexec_fn=_limited,
            env={**os.environ, "CUDA_VISIBLE_DEVICES": ""},
        )
        while True:  # wait4, not Popen.wait: it tells the peak memory
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - began > timeout:
                process.kill()
                raise AssertionError(f"{args} ran past {timeout:g} s")
            time.sleep(0.05)
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        result = subprocess.CompletedProcess(
            process.args, process.returncode, out.read(), err.read()
        )
    return result, time.monotonic() - began, usage.ru_maxrss * 1024


@pytest.fixture
def round_two(tmp_path: Path) -> Path:
    for name, data in ROUND_TWO.items():
        (tmp_path / name).write_bytes(data)
    return tmp_path


@pytest.mark.parametrize(
    ("args", "needles"), ROUND_TWO_CASES, ids=[" ".join(a)[:48] for a, _ in ROUND_TWO_CASES]
)
def test_round_two_is_one_line_within_a_minute_and_1_5_gb(round_two: Path, args, needles) -> None:
    result, seconds, peak = measured(*args, cwd=round_two)
    one_line(result, *needles)
    assert seconds < 60 and peak < 1.5 * 2**30, (seconds, peak)
    assert not (round_two / "runs").exists()


def test_round_two_recordings_are_refused_by_field(round_two: Path) -> None:
    """A Litke header length past the file (SIGSEGV before), an HDF5 file declaring 10⁸
    events never written (7.1 GB before), NWB scales that are NaN, 3-D NWB data, an EVT 3.0
    file declaring 8192 × 8192 (5.1 GB before)."""
    import h5py
    import numpy as np

    from substrates.datasets.events.events import EVENT_DTYPE, Events
    from substrates.datasets.events.files import write_events
    from substrates.testing.mea import litke_header, litke_pack, pynwb_file

    samples = np.zeros((10, 513), np.int64)
    header = bytearray(litke_header(513, 10) + litke_pack(samples))
    header[8:12] = (10**9).to_bytes(4, "big")  # tag 0, the header length
    (round_two / "long.bin").write_bytes(bytes(header))
    with h5py.File(round_two / "bomb.h5", "w") as handle:
        group = handle.create_group("events")
        for name, kind in (("x", "u2"), ("y", "u2"), ("t", "i8"), ("p", "u1")):
            group.create_dataset(
                name, shape=(10**8,), dtype=kind, chunks=(65536,), compression="gzip"
            )
    pynwb_file(round_two / "nan.nwb", np.zeros((20, 3), np.int16))
    with h5py.File(round_two / "nan.nwb", "a") as handle:
        handle["acquisition/raw/data"].attrs["conversion"] = np.nan
    events = np.zeros(500, EVENT_DTYPE)  # a few events in a corner of a declared 8192²
    events["t"], events["x"], events["y"] = np.arange(500) * 100, np.arange(500) % 64, 7
    write_events(Events(events, 8192, 8192), round_two / "wide.raw", "evt3")
    config = "substrate: mea\nbackend: {backend}\noptions: {{path: {path}{extra}}}\n"
    (round_two / "litke.yaml").write_text(
        config.format(backend="mea.litke", path="long.bin", extra=", gain_uv: 0.5")
    )
    (round_two / "nwb.yaml").write_text(config.format(backend="mea.nwb", path="nan.nwb", extra=""))
    cases = [
        (["check", "litke.yaml"], ["long.bin", "header length"]),
        (
            ["run", "event-layers", "--source", "events_file", "--events", "bomb.h5"],
            ["declares 100,000,000 values"],
        ),
        (["check", "nwb.yaml"], ["nan.nwb", "field 'conversion': non-finite"]),
        (
            ["run", "event-layers", "--source", "events_file", "--events", "wide.raw"],
            ["budget --max-sensor-pixels"],
        ),
    ]
    for args, needles in cases:
        result, seconds, peak = measured(*args, cwd=round_two)
        one_line(result, *needles)
        assert seconds < 60 and peak < 1.5 * 2**30, (args, seconds, peak)
    assert not (round_two / "runs").exists()
