"""Config loading, config -> backend, run folders and their records."""
