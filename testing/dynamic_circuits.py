"""Dynamic circuits for the conformance suite: mid-circuit measurement, reset, feed-forward,
several classical registers, and random mixtures of them.

Example:
    >>> sorted(DYNAMIC_CASES)[:3]
    ['conditional_x', 'else_branch', 'expression']
    >>> random_dynamic_circuit(0).num_qubits
    3
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from qiskit import ClassicalRegister, QuantumCircuit, QuantumRegister
from qiskit.circuit.classical import expr


def conditional_x() -> QuantumCircuit:
    """The issue's example: h 0; measure 0 -> c0; if (c0) x 1; measure 1 -> c1."""
    qc = QuantumCircuit(2, 2, name="conditional_x")
    qc.h(0)
    qc.measure(0, 0)
    with qc.if_test((qc.clbits[0], 1)):
        qc.x(1)
    qc.measure(1, 1)
    return qc


def teleport() -> QuantumCircuit:
    """Teleport RY(0.7)|0⟩ from qubit 0 to 2 with feed-forward; three registers."""
    q = QuantumRegister(3, "q")
    alice, bob, out = (
        ClassicalRegister(1, "a"),
        ClassicalRegister(1, "b"),
        ClassicalRegister(1, "o"),
    )
    qc = QuantumCircuit(q, alice, bob, out, name="teleport")
    qc.ry(0.7, 0)
    qc.h(1)
    qc.cx(1, 2)
    qc.cx(0, 1)
    qc.h(0)
    qc.measure(0, alice[0])
    qc.measure(1, bob[0])
    with qc.if_test((bob, 1)):
        qc.x(2)
    with qc.if_test((alice, 1)):
        qc.z(2)
    qc.measure(2, out[0])
    return qc


def reset_and_reuse() -> QuantumCircuit:
    """Entangle, reset one half mid-circuit, reuse it."""
    qc = QuantumCircuit(2, 3, name="reset_and_reuse")
    qc.h(0)
    qc.cx(0, 1)
    qc.reset(0)
    qc.rx(1.1, 0)
    qc.cx(0, 1)
    qc.measure(0, 0)
    qc.measure(1, 1)
    qc.reset(1)
    qc.h(1)
    qc.measure(1, 2)
    return qc


def else_branch() -> QuantumCircuit:
    """if/else on a two-bit register's value, measured twice into the same bit."""
    creg, final = ClassicalRegister(2, "m"), ClassicalRegister(2, "f")
    qc = QuantumCircuit(QuantumRegister(3), creg, final, name="else_branch")
    qc.h([0, 1])
    qc.measure([0, 1], creg)
    with qc.if_test((creg, 2)) as otherwise:
        qc.ry(0.4, 2)
    with otherwise:
        qc.h(2)
        qc.t(2)
    qc.h(0)
    qc.measure(0, creg[0])  # overwrites m[0]
    qc.measure(2, final[0])
    qc.measure(1, final[1])
    return qc


def nested() -> QuantumCircuit:
    """A measurement inside a conditional, read by a conditional inside another."""
    qc = QuantumCircuit(3, 3, name="nested")
    qc.h(0)
    qc.rx(0.9, 1)
    qc.measure(0, 0)
    with qc.if_test((qc.clbits[0], 1)):
        qc.measure(1, 1)
        with qc.if_test((qc.clbits[1], 0)):
            qc.x(2)
    qc.h(1)
    qc.measure(2, 2)
    return qc


def nested_conditionals() -> QuantumCircuit:
    """Conditionals inside conditionals, each with an else, one on the whole register;
    no measurement inside them, so every backend that samples feed-forward can run it
    (lightning's mid-circuit measurements failed on nested conditions)."""
    qc = QuantumCircuit(3, 3, name="nested_conditionals")
    qc.h(0)
    qc.rx(0.9, 1)
    qc.measure(0, 0)
    qc.measure(1, 1)
    with qc.if_test((qc.clbits[0], 1)) as outer_else:
        with qc.if_test((qc.cregs[0], 3)) as inner_else:  # c = 011: both measured 1
            qc.x(2)
        with inner_else:
            qc.ry(0.7, 2)
    with outer_else, qc.if_test((qc.clbits[1], 1)):
        qc.h(2)
    qc.measure(2, 2)
    return qc


def switch() -> QuantumCircuit:
    """switch on a two-bit register with a default case."""
    creg = ClassicalRegister(2, "s")
    qc = QuantumCircuit(QuantumRegister(3), creg, ClassicalRegister(1, "r"), name="switch")
    qc.ry(1.2, 0)
    qc.h(1)
    qc.measure([0, 1], creg)
    with qc.switch(creg) as case:
        with case(0):
            qc.x(2)
        with case(1, 2):
            qc.ry(0.5, 2)
        with case(case.DEFAULT):
            qc.h(2)
    qc.measure(2, 2)
    return qc


def for_loop() -> QuantumCircuit:
    """A loop of measure-and-correct rounds."""
    qc = QuantumCircuit(2, 2, name="for_loop")
    with qc.for_loop(range(3)):
        qc.ry(0.8, 0)
        qc.measure(0, 0)
        with qc.if_test((qc.clbits[0], 1)):
            qc.x(0)
            qc.cx(0, 1)
    qc.measure(1, 1)
    return qc


def expression() -> QuantumCircuit:
    """A condition written as a classical expression over two bits."""
    qc = QuantumCircuit(3, 3, name="expression")
    qc.h([0, 1])
    qc.measure([0, 1], [0, 1])
    with qc.if_test(expr.logic_and(expr.lift(qc.clbits[0]), expr.logic_not(qc.clbits[1]))):
        qc.rx(2.0, 2)
    qc.measure(2, 2)
    return qc


DYNAMIC_CASES: dict[str, Callable[[], QuantumCircuit]] = {
    f.__name__: f
    for f in (
        conditional_x,
        teleport,
        reset_and_reuse,
        else_branch,
        nested,
        nested_conditionals,
        switch,
        for_loop,
        expression,
    )
}


def random_dynamic_circuit(seed: int, num_qubits: int = 3, depth: int = 8) -> QuantumCircuit:
    """Random gates mixed with mid-circuit measurements, resets and conditioned gates over
    two classical registers, then every qubit measured."""
    rng = np.random.default_rng(seed)
    first, second = ClassicalRegister(2, "c"), ClassicalRegister(num_qubits, "d")
    qc = QuantumCircuit(QuantumRegister(num_qubits), first, second, name=f"random_dynamic_{seed}")
    bits = list(first) + list(second)
    for _ in range(depth):
        q = int(rng.integers(num_qubits))
        other = int((q + 1 + rng.integers(num_qubits - 1)) % num_qubits)
        kind = rng.choice(["rotation", "cx", "measure", "reset", "if", "if_register"])
        if kind == "rotation":
            getattr(qc, str(rng.choice(["rx", "ry", "rz"])))(float(rng.uniform(0, np.pi)), q)
            qc.h(other)
        elif kind == "cx":
            qc.cx(q, other)
        elif kind == "measure":
            qc.measure(q, bits[int(rng.integers(len(first)))])
        elif kind == "reset":
            qc.reset(q)
        elif kind == "if":
            with qc.if_test((bits[int(rng.integers(len(first)))], int(rng.integers(2)))):
                qc.ry(float(rng.uniform(0, np.pi)), q)
                qc.cx(q, other)
        else:
            with qc.if_test((first, int(rng.integers(4)))) as otherwise:
                qc.x(q)
            with otherwise:
                qc.measure(other, bits[int(rng.integers(len(first)))])
    qc.measure(range(num_qubits), second)
    return qc
