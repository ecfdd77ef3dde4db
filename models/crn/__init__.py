"""Belief propagation and exact inference on factor graphs (the CRN substrate's methods)."""
