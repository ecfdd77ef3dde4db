"""Event-camera data: the event array, its Arrow/Parquet form, and camera file formats."""
