"""QASM budgets: the scan's operation count against Qiskit's own circuit (counted by
walking what qasm3.loads builds: definitions, loop index sets, control-flow blocks), and
each expansion bomb refused in bounded time, naming the line and the budget."""

from __future__ import annotations

import contextlib
import time

import numpy as np
import pytest
from qiskit import QuantumCircuit, qasm3

from substrates.backends.registry import create_backend
from substrates.datasets.quantum.circuit_files import CircuitFileError, load_circuits
from substrates.datasets.quantum.qasm_budget import QasmBudget, scan

STANDARD = ["x", "h", "s", "t", "cx", "rz(0.3)"]


def unrolled(circuit: QuantumCircuit) -> int:
    """Operations of `circuit` with every user gate expanded (independent of the scan:
    it walks the circuit Qiskit built, not the text)."""
    total = 0
    for instruction in circuit.data:
        operation = instruction.operation
        if operation.name == "for_loop":
            indexset, _, body = operation.params
            total += len(indexset) * unrolled(body)
        elif getattr(operation, "blocks", ()):
            total += sum(unrolled(block) for block in operation.blocks)
        elif operation.name.startswith("g") and operation.definition is not None:
            total += max(1, unrolled(operation.definition))
        else:
            total += 1
    return total


def random_program(seed: int) -> str:
    """OpenQASM 3 with nested gate definitions, literal loop ranges with and without a step,
    nested
    loops, register broadcasts, `if` blocks and measurements."""
    rng = np.random.default_rng(seed)
    lines = ["OPENQASM 3.0;", 'include "stdgates.inc";']
    lines += ["qubit[3] q;", "qubit[2] r;", "bit[3] c;"]
    gates: list[str] = []
    for k in range(int(rng.integers(1, 5))):
        body = []
        for _ in range(int(rng.integers(1, 4))):
            if gates and rng.random() < 0.6:
                body.append(f"{rng.choice(gates)} a, b;")
            else:
                gate = str(rng.choice(STANDARD))
                body.append(f"{gate} a, b;" if gate == "cx" else f"{gate} a;")
        lines.append(f"gate g{k} a, b {{ {' '.join(body)} }}")
        gates.append(f"g{k}")

    def statements(depth: int) -> list[str]:
        out = []
        for _ in range(int(rng.integers(1, 4))):
            choice = rng.random()
            if choice < 0.2 and depth < 2:
                start, stop = sorted(int(v) for v in rng.integers(0, 6, 2))
                step = int(rng.integers(1, 3))
                span = f"[{start}:{step}:{stop}]" if rng.random() < 0.5 else f"[{start}:{stop}]"
                inner = " ".join(statements(depth + 1))
                out.append(f"for int i{depth} in {span} {{ {inner} }}")
            elif choice < 0.3 and depth < 2:
                out.append(f"if (c[0]) {{ {' '.join(statements(depth + 1))} }}")
            elif choice < 0.45:
                out.append(f"{rng.choice(['h', 'x', 'reset'])} q;")  # broadcast over q
            elif choice < 0.75:
                out.append(f"{rng.choice(gates)} q[{rng.integers(0, 3)}], r[{rng.integers(0, 2)}];")
            else:
                out.append(f"c[{rng.integers(0, 3)}] = measure q[{rng.integers(0, 3)}];")
        return out

    lines += statements(0)
    lines.append("c = measure q;")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", range(40))
def test_the_scan_counts_the_operations_qiskit_builds(seed: int) -> None:
    text = random_program(seed)
    assert scan(text, "random.qasm", QasmBudget()) == unrolled(qasm3.loads(text)), text


def doubling(levels: int, version: int) -> str:
    """Gate definitions that each call the previous one twice: 2^levels operations."""
    if version == 2:
        head = ["OPENQASM 2.0;", 'include "qelib1.inc";', "qreg q[1];", "creg c[1];"]
        tail = ["measure q[0] -> c[0];"]
    else:
        head = ["OPENQASM 3.0;", 'include "stdgates.inc";', "qubit[1] q;", "bit[1] c;"]
        tail = ["c[0] = measure q[0];"]
    gates = ["gate g0 a { x a; }"]
    gates += [f"gate g{i} a {{ g{i - 1} a; g{i - 1} a; }}" for i in range(1, levels)]
    return "\n".join([*head, *gates, f"g{levels - 1} q[0];", *tail]) + "\n"


BOMBS = {
    "doubling_2": (doubling(40, 2), 45, "max_operations"),
    "doubling_3": (doubling(40, 3), 45, "max_operations"),
    "loop": (
        'OPENQASM 3.0;\ninclude "stdgates.inc";\nqubit[1] q;\nbit[1] c;\n'
        "for uint i in [0:1000000000] { x q[0]; }\nc[0] = measure q[0];\n",
        5,
        "max_loop_trips",
    ),
    "nested_loops": (
        "OPENQASM 3.0;\nqubit[1] q;\nconst int n = 999;\n"
        "for int i in [0:n] {\n for int j in [0:n] {\n  for int k in [0:n] { x q[0]; }\n }\n}\n",
        4,
        "max_operations",
    ),
    "wide_creg": (
        'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[1];\ncreg c[99999];\nh q[0];\n',
        4,
        "max_clbits",
    ),
    "deep": (
        "OPENQASM 3.0;\nqubit q;\ngate g0 a { x a; }\n"
        + "\n".join(f"gate g{i} a {{ g{i - 1} a; }}" for i in range(1, 70))
        + "\ng69 q;\n",
        67,
        "max_expansion_depth",
    ),
}


@pytest.mark.parametrize("name", BOMBS)
def test_expansion_bombs_are_refused_naming_the_line_and_the_budget(tmp_path, name) -> None:
    text, line, budget = BOMBS[name]
    path = tmp_path / f"{name}.qasm"
    path.write_text(text)
    began = time.perf_counter()
    with pytest.raises(CircuitFileError, match=rf"^{path}: line {line}: .*\(budget {budget}\)$"):
        load_circuits(path)
    assert time.perf_counter() - began < 5


def test_budgets_are_overridable(tmp_path) -> None:
    path = tmp_path / "doubling.qasm"
    path.write_text(doubling(12, 3))  # 2048 x gates
    with pytest.raises(CircuitFileError, match="at least 2,048 operations"):
        load_circuits(path, budget=QasmBudget(max_operations=1000))
    (circuit,) = load_circuits(path, budget=QasmBudget(max_operations=3000))
    assert unrolled(circuit) == 2049


def test_a_long_comment_is_not_handed_to_the_parser(tmp_path) -> None:
    """Qiskit's QASM 3 lexer took minutes over one 60 MB comment line."""
    path = tmp_path / "comment.qasm"
    comment = "//" + "x" * 20_000_000
    path.write_text(f'OPENQASM 3.0;\ninclude "stdgates.inc";\nqubit[1] q;\n{comment}\nh q[0];\n')
    began = time.perf_counter()
    (circuit,) = load_circuits(path)
    assert time.perf_counter() - began < 10
    assert [i.operation.name for i in circuit.data] == ["h"]


def test_parse_time_is_bounded(tmp_path) -> None:
    path = tmp_path / "long.qasm"
    path.write_text(
        'OPENQASM 3.0;\ninclude "stdgates.inc";\nqubit[2] q;\n' + "cx q[0], q[1];\n" * 20_000
    )
    with pytest.raises(
        CircuitFileError, match=r"parsing took over 0\.05 s \(the budget's max_parse_s\)"
    ):
        load_circuits(path, budget=QasmBudget(max_parse_s=0.05))


def test_a_swallowed_alarm_still_refuses(tmp_path) -> None:
    """A parser that catches everything (as a destructor's exception is dropped) still
    runs past the budget: the clock refuses it after the parse returns."""
    from substrates.datasets.quantum.circuit_files import _parse_deadline

    refusal = pytest.raises(CircuitFileError, match=r"parsing took over 0\.02 s")
    with refusal, _parse_deadline(tmp_path / "x.qasm", 0.02):
        deadline = time.monotonic() + 0.1
        while time.monotonic() < deadline:
            with contextlib.suppress(BaseException):
                time.sleep(0.005)


def test_a_parser_error_is_one_line_with_the_parsers_reason(tmp_path, capfd) -> None:
    path = tmp_path / "cut.qasm"
    path.write_text('OPENQASM 3.0;\ninclude "stdgates.inc";\nqubit[1] q;\nh q[0\n')
    with pytest.raises(CircuitFileError, match=r"cannot parse: line \d+:\d+ .+") as error:
        load_circuits(path)
    assert "\n" not in str(error.value)
    assert capfd.readouterr().err == ""  # ANTLR's own line did not reach the terminal


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("h q[0];", "measures nothing: sampling needs measurements"),
        ("", "has no operations: sampling needs measurements"),
        (
            "rx(1e308*1e308) q[0];\nmeasure q[0] -> c[0];",
            "gate 'rx' has the non-finite parameter inf",
        ),
    ],
)
def test_circuits_no_backend_can_sample_are_refused(tmp_path, body, reason) -> None:
    path = tmp_path / "c.qasm"
    path.write_text(f'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[1];\ncreg c[1];\n{body}\n')
    backend = create_backend("quantum.aer", {})
    with pytest.raises(Exception, match=f"circuit 'c': {reason}"):
        backend.sample(load_circuits(path), shots=10)


def test_a_long_parameter_list_is_checked_whole() -> None:
    """A diagonal gate's 2ⁿ entries are checked at once; one non-finite entry is named."""
    from qiskit import QuantumCircuit
    from qiskit.circuit.library import DiagonalGate

    from substrates.backends.quantum.base import _circuit_refusal

    circuit = QuantumCircuit(3, 3)
    circuit.append(DiagonalGate([1.0] * 8), range(3))
    circuit.measure(range(3), range(3))
    assert _circuit_refusal(circuit, sampling=True) is None
    circuit.data[0].operation.params[5] = complex(float("nan"), 0.0)
    assert _circuit_refusal(circuit, sampling=True) == (
        "gate 'diagonal' has the non-finite parameter (nan+0j)"
    )
