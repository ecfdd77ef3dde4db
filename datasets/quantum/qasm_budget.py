"""Budgets of an OpenQASM file, checked on its text before Qiskit parses it.

A few lines of OpenQASM can describe more work than any machine holds: gate definitions
that each call the previous one twice double the operations per line (40 lines: 10¹²),
`for uint i in [0:1000000000]` repeats its body 10⁹ times, `bit[99999] c;` makes every
shot's result 99,999 characters. Qiskit's parsers and simulators expand such text without
bound, so `scan` reads the file's structure first — gate and subroutine definitions, loops,
register widths, broadcasts — and refuses, naming the line, what crosses a budget:

- `max_operations`: operations once every gate call, loop and register broadcast is
  unrolled (an `if` counts both branches, a `while` body once);
- `max_loop_trips`: iterations of one `for` loop;
- `max_expansion_depth`: gates defined through gates defined through gates …;
- `max_clbits`: classical bits, each of which every shot's result holds.

The parse itself runs under `max_parse_s` (see `circuit_files.load_circuits`). The counts
are upper bounds on what Qiskit builds, never lower ones: a file within budget may still be
refused by Qiskit, never let through by the scan.

>>> budget = QasmBudget(max_operations=100)
>>> scan("OPENQASM 3.0; qubit[2] q; for int i in [0:9] { h q; }", "f.qasm", budget)
20
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ...errors import InputFileError


@dataclass(frozen=True)
class QasmBudget:
    """What one circuit file may ask for (see the module docstring); every limit is
    overridable, e.g. `load_circuits(path, budget=QasmBudget(max_operations=10**8))`."""

    max_operations: int = 1_000_000
    max_loop_trips: int = 1_000_000
    max_expansion_depth: int = 64
    max_clbits: int = 4_096
    max_parse_s: float = 60.0


_TOKEN = re.compile(
    r'"[^"\n]*"|[A-Za-z_$][\w$]*|\d[\d_]*(?:\.\d*)?(?:[eE][+-]?\d+)?|->|==|!=|[<>=]=?|\S'
)
_DEFINES = {"gate", "def"}
_CONTROL = {"for", "while", "if", "else", "box"}
_DECLARES_QUBITS = {"qreg", "qubit"}
_DECLARES_BITS = {"creg", "bit"}
_NO_OPERATIONS = {"OPENQASM", "include", "input", "output", "opaque", "defcalgrammar", "}"}
_NAME = re.compile(r"[A-Za-z_$][\w$]*")


class CircuitFileError(InputFileError):
    """A circuit file that cannot be read, or asks for more than its budget; the message
    names the file (and the line)."""


def strip_comments(text: str) -> str:
    """The text without `//` and `/* */` comments, each block comment replaced by its
    newlines (line numbers stay those of the file)."""
    return re.sub(
        r"//[^\n]*|/\*.*?\*/",
        lambda m: "\n" * m.group().count("\n"),
        text,
        flags=re.DOTALL,
    )


def scan(text: str, path: str, budget: QasmBudget) -> int:
    """The operations the file's circuit unrolls to (an upper bound); raise
    CircuitFileError naming the line where a budget is crossed. `text` may hold comments."""
    return _Scanner(strip_comments(text), path, budget).program()


class _Scanner:
    """One pass over the tokens (streamed: a file's worth is never held), keeping each
    definition's cost and depth, the registers' widths and integer constants."""

    def __init__(self, text: str, path: str, budget: QasmBudget) -> None:
        self.path, self.budget = path, budget
        self.stream = _tokens(text)
        self.token, self.line = next(self.stream, ("", 0))
        self.cost: dict[str, int] = {}
        self.depth: dict[str, int] = {}
        self.registers: dict[str, int] = {}
        self.constants: dict[str, int] = {}
        self.clbits = 0

    def advance(self) -> None:
        self.token, self.line = next(self.stream, ("", self.line))

    def refuse(self, line: int, what: str, limit: str) -> CircuitFileError:
        """The refusal of `what` on `line`, beyond the budget's field `limit`."""
        value = getattr(self.budget, limit)
        return CircuitFileError(
            f"line {line}: {what}, more than the {value:,} allowed (budget {limit})", path=self.path
        )

    def program(self) -> int:
        total = 0
        while self.token:
            cost, line, _ = self.statement()
            total += cost
            if total > self.budget.max_operations:
                raise self.refuse(
                    line,
                    f"the circuit unrolls to at least {_big(total)} operations",
                    "max_operations",
                )
        return total

    def block(self) -> tuple[int, int]:
        """A `{ … }` block's cost and the deepest definition it calls (at its `{`)."""
        self.advance()
        cost = depth = 0
        while self.token and self.token != "}":
            part, _, deepest = self.statement()
            cost, depth = cost + part, max(depth, deepest)
        self.advance()
        return cost, depth

    def until(self, stops: set[str]) -> list[str]:
        """Tokens up to (not including) the first of `stops` outside brackets."""
        words: list[str] = []
        nesting = 0
        while self.token and not (nesting == 0 and self.token in stops):
            nesting += (self.token in "([") - (self.token in ")]")
            words.append(self.token)
            self.advance()
        return words

    def statement(self) -> tuple[int, int, int]:
        """The next statement's operations, its line and the deepest definition it calls."""
        word, line = self.token, self.line
        if word in _DEFINES:
            self.define(line)
            return 0, line, 0
        if word in _CONTROL:
            cost, depth = self.control(word, line)
            return cost, line, depth
        if word == "{":
            cost, depth = self.block()
            return cost, line, depth
        words = self.until({";", "{", "}"})
        cost, depth = self.simple(words, line), self.deepest(words)
        if self.token == ";":
            self.advance()
        elif self.token == "{":  # an unknown construct with a body: its body counted once
            inner, inner_depth = self.block()
            cost, depth = cost + inner, max(depth, inner_depth)
        return cost, line, depth

    def deepest(self, words: list[str]) -> int:
        return max((self.depth.get(w, 0) for w in words), default=0)

    def define(self, line: int) -> None:
        """`gate NAME(params) qubits { body }` or `def NAME(…) -> type { body }`;
        `opaque` and declarations without a body cost 1 per call."""
        self.advance()
        name = self.token
        self.until({"{", ";"})
        if self.token != "{":
            self.advance()
            return
        cost, depth = self.block()
        self.cost[name], self.depth[name] = max(cost, 1), depth + 1
        if depth + 1 > self.budget.max_expansion_depth:
            raise self.refuse(
                line,
                f"gate {name!r} is defined {depth + 1} gates deep",
                "max_expansion_depth",
            )

    def control(self, word: str, line: int) -> tuple[int, int]:
        """for/while/if/else/box: the body's cost (a `for` times its iterations)."""
        self.advance()
        head = self.until({"{", ";"})
        if self.token == ";":  # QASM 2's `if (c == 1) x q[0];`
            self.advance()
            body = _after_condition(head)
            return self.simple(body, line), self.deepest(body)
        cost, depth = self.block()
        if word == "for":
            trips = self.trips(head)
            if trips > self.budget.max_loop_trips:
                raise self.refuse(
                    line,
                    f"a for loop of {trips:,} iterations",
                    "max_loop_trips",
                )
            cost *= trips
        return cost, depth

    def trips(self, head: list[str]) -> int:
        """Iterations of `for TYPE NAME in [a:b]`, `[a:step:b]` (b included) or `{v, …}`;
        1 where the range is neither literal nor a constant's (Qiskit refuses what it cannot
        evaluate)."""
        if "in" not in head:
            return 1
        spec = head[head.index("in") + 1 :]
        if spec[:1] == ["{"]:
            return max(1, spec.count(",") + 1)
        if spec[:1] != ["["] or spec[-1:] != ["]"]:
            return 1
        values = [self.integer(part) for part in _split(spec[1:-1], ":")]
        if len(values) not in (2, 3) or any(v is None for v in values):
            return 1
        start, *step, stop = (int(v) for v in values if v is not None)
        stride = step[0] if step else 1
        return 0 if stride == 0 else max(0, (stop - start) // stride + 1)

    def integer(self, words: list[str]) -> int | None:
        """A literal integer or a known constant, optionally negated; None otherwise."""
        sign = -1 if words[:1] == ["-"] else 1
        words = words[1:] if sign < 0 else words
        if len(words) != 1:
            return None
        word = words[0].replace("_", "")
        value = int(word) if word.isdigit() else self.constants.get(word)
        return None if value is None else sign * value

    def simple(self, words: list[str], line: int) -> int:
        """A declaration (0 operations; its width recorded) or an operation: the called
        definition's cost (1 for a built-in gate), times the widest whole register it is
        broadcast over."""
        if not words or words[0] in _NO_OPERATIONS:
            return 0
        if words[0] == "const" and "=" in words:  # const int n = 10;
            equals = words.index("=")
            value = self.integer(words[equals + 1 :])
            if value is not None:
                self.constants[words[equals - 1]] = value
            return 0
        if words[0] in _DECLARES_QUBITS | _DECLARES_BITS:
            self.declare(words, line)
            return 0
        body = _after_modifiers(words)
        if "measure" in body:  # c = measure q; (QASM 3) or measure q -> c; (QASM 2)
            body = body[body.index("measure") :]
        name = body[0] if body else ""
        if not name or name in self.registers:  # an assignment to a classical register
            return 1
        wholes = [
            self.registers[word]
            for index, word in enumerate(body[1:], 1)
            if word in self.registers and body[index + 1 : index + 2] != ["["]
        ]
        return self.cost.get(name, 1) * max(wholes, default=1)

    def declare(self, words: list[str], line: int) -> None:
        """`qreg q[n]`, `creg c[n]`, `qubit[n] q`, `bit[n] c`, `qubit q` (width 1)."""
        width = 1
        if "[" in words and "]" in words:
            width = self.integer(words[words.index("[") + 1 : words.index("]")]) or 1
        names = [w for w in words[1:] if _NAME.fullmatch(w)]
        if names:
            self.registers[names[0] if words[0] in {"qreg", "creg"} else names[-1]] = width
        if words[0] in _DECLARES_BITS:
            self.clbits += width
            if self.clbits > self.budget.max_clbits:
                raise self.refuse(
                    line,
                    f"{self.clbits:,} classical bits, each in every shot's result",
                    "max_clbits",
                )


def _tokens(text: str) -> Iterator[tuple[str, int]]:
    """(token, line) of the text, lazily."""
    line, last = 1, 0
    for match in _TOKEN.finditer(text):
        line += text.count("\n", last, match.start())
        last = match.start()
        yield match.group(), line


def _after_condition(words: list[str]) -> list[str]:
    """`( c == 1 ) x q [ 0 ]` → `x q [ 0 ]`."""
    nesting = 0
    for index, word in enumerate(words):
        nesting += (word == "(") - (word == ")")
        if word == ")" and nesting == 0:
            return words[index + 1 :]
    return []


def _after_modifiers(words: list[str]) -> list[str]:
    """`ctrl @ inv @ pow ( 2 ) @ g q` → `g q`; `c [ 0 ] = measure q` stays as it is."""
    while "@" in words:
        words = words[words.index("@") + 1 :]
    return words


def _split(words: list[str], separator: str) -> list[list[str]]:
    parts: list[list[str]] = [[]]
    for word in words:
        if word == separator:
            parts.append([])
        else:
            parts[-1].append(word)
    return parts


def _big(count: int) -> str:
    return f"{count:,}" if count < 10**15 else f"{count:.3g}"
