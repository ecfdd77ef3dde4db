"""CRN backends: simulate mass-action reaction networks over time or to steady state."""
