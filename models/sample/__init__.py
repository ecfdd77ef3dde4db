"""The `sample` method: counts of circuits on any quantum backend."""

from .method import sample, tabulate

__all__ = ["sample", "tabulate"]
