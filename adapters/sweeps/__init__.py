"""Sweeps: a grid of runs of one method, on a local pool or a Dask cluster, resumable."""
