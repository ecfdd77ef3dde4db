"""Multi-electrode array data: recordings, array geometries, recording file formats."""
