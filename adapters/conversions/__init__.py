"""Conversions of our data containers to the ecosystem (MNE, SpikeInterface)."""
