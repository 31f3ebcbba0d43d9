"""Data in: the LIBSVM registry and downloads, synthetic generators, and the splits."""
