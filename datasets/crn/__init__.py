"""Factor graphs for the CRN substrate: the container and the libDAI and UAI file formats."""
