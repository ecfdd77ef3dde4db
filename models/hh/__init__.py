"""Hodgkin–Huxley inference from extracellular data: features, activation curves."""
