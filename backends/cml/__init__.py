"""Microwave-link backends: real operator data and (to come) simulated link networks."""
