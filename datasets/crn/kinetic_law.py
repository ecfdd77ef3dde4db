"""Kinetic laws as polynomials in the species: libsbml's AST evaluated into a sum of terms
coefficient · Π species^power, with parameters and compartments replaced by their values.
Sums, differences, products, integer powers, division by expressions free of species, and
exp/ln/log/sqrt/abs of constants are understood; anything else (a species in a
denominator, a non-integer power of a species, a function of a species, a delay or a
piecewise law) is refused by name: it is not mass action."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

Monomial = tuple[tuple[str, int], ...]
"""Species and their powers, sorted by species id; () is the constant term."""
Polynomial = dict[Monomial, float]
Constants = dict[str, float]

MAX_POWER = 8
"""Largest integer power of a polynomial that is expanded."""


def mass_action_terms(
    math_ast: Any, constants: Constants, species: set[str], scale: dict[str, float] | None = None
) -> Polynomial:
    """The law as {monomial: coefficient}, zero terms dropped. `scale`: species whose
    symbol stands for an amount, with the volume that turns their concentration into it.
    Raises ValueError saying what is not mass action."""
    import libsbml

    scale = scale or {}

    def walk(node: Any) -> Polynomial:
        kind = node.getType()
        children = [node.getChild(k) for k in range(node.getNumChildren())]
        if kind in (
            libsbml.AST_INTEGER,
            libsbml.AST_REAL,
            libsbml.AST_REAL_E,
            libsbml.AST_RATIONAL,
        ):
            return {(): float(node.getValue())}
        if kind == libsbml.AST_NAME:
            name = node.getName()
            if name in species:
                return {((name, 1),): scale.get(name, 1.0)}
            if name in constants:
                return {(): float(constants[name])}
            raise ValueError(f"names {name!r}, which is no species, parameter or compartment")
        if kind == libsbml.AST_CONSTANT_E:
            return {(): math.e}
        if kind == libsbml.AST_CONSTANT_PI:
            return {(): math.pi}
        if kind == libsbml.AST_PLUS:
            return _sum([walk(c) for c in children])
        if kind == libsbml.AST_MINUS:
            parts = [walk(c) for c in children]
            if len(parts) == 1:
                return _scaled(parts[0], -1.0)
            return _sum([parts[0], *(_scaled(p, -1.0) for p in parts[1:])])
        if kind == libsbml.AST_TIMES:
            result: Polynomial = {(): 1.0}
            for child in children:
                result = _product(result, walk(child))
            return result
        if kind == libsbml.AST_DIVIDE:
            numerator, denominator = walk(children[0]), walk(children[1])
            value = _constant(denominator, "divides by a species")
            if value == 0:
                raise ValueError("divides by zero")
            return _scaled(numerator, 1.0 / value)
        if kind in (libsbml.AST_POWER, libsbml.AST_FUNCTION_POWER):
            base, exponent = walk(children[0]), walk(children[1])
            power = _constant(exponent, "raises to a power that depends on a species")
            if set(base) == {()}:
                return {(): base[()] ** power}
            if power != int(power) or not 0 <= power <= MAX_POWER:
                raise ValueError(f"raises a species term to the power {power:g}")
            result = {(): 1.0}
            for _ in range(int(power)):
                result = _product(result, base)
            return result
        functions: dict[int, Callable[[float], float]] = {
            libsbml.AST_FUNCTION_EXP: math.exp,
            libsbml.AST_FUNCTION_LN: math.log,
            libsbml.AST_FUNCTION_ROOT: math.sqrt,
            libsbml.AST_FUNCTION_ABS: abs,
        }
        if kind in functions and len(children) == 1:
            value = _constant(walk(children[0]), f"applies {node.getName()} to a species")
            return {(): float(functions[kind](value))}
        if kind == libsbml.AST_FUNCTION_LOG and len(children) == 2:
            radix = _constant(walk(children[0]), "takes a logarithm of a species")
            argument = _constant(walk(children[1]), "takes a logarithm of a species")
            return {(): math.log(argument, radix)}
        what = node.getName() or libsbml.formulaToL3String(node)
        raise ValueError(f"uses {what!r}, which is not mass action")

    return {m: c for m, c in walk(math_ast).items() if c != 0.0}


def _sum(parts: list[Polynomial]) -> Polynomial:
    out: Polynomial = {}
    for part in parts:
        for monomial, coefficient in part.items():
            out[monomial] = out.get(monomial, 0.0) + coefficient
    return out


def _scaled(part: Polynomial, factor: float) -> Polynomial:
    return {m: c * factor for m, c in part.items()}


def _product(first: Polynomial, second: Polynomial) -> Polynomial:
    out: Polynomial = {}
    for m1, c1 in first.items():
        for m2, c2 in second.items():
            powers = dict(m1)
            for s, n in m2:
                powers[s] = powers.get(s, 0) + n
            key = tuple(sorted(powers.items()))
            out[key] = out.get(key, 0.0) + c1 * c2
    return out


def _constant(part: Polynomial, refusal: str) -> float:
    if any(m != () for m, c in part.items() if c != 0.0):
        raise ValueError(f"{refusal}: not mass action")
    return part.get((), 0.0)
