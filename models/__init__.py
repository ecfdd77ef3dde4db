"""Methods, written against the backend interfaces only."""
