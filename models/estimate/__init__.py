"""The `estimate` method: expectation values of Pauli observables on any quantum backend."""

from .method import estimate, observable_pairs, tabulate

__all__ = ["estimate", "observable_pairs", "tabulate"]
