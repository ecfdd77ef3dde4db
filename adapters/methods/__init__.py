"""Methods: one declaration each, read by the command line, sweeps and `substrates.run`."""

from .method import Method, MethodParameters, option, summary_report
from .registry import get_method, list_methods, methods

__all__ = [
    "Method",
    "MethodParameters",
    "get_method",
    "list_methods",
    "methods",
    "option",
    "summary_report",
]
