"""`python -m substrates` runs the command-line interface."""

from .cli import console

console()
