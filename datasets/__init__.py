"""Data containers, Arrow schemas, readers/writers of real file formats, synthetic generators."""
