"""Multi-electrode array backends: recorded files (Litke .bin, NWB)."""
