"""Conformance suites for backends, shipped with the package (filled in below)."""
