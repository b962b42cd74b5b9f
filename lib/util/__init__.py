"""The bottom layer, imported by everything above and importing nothing of it: numbers and wording,
statistics, paths, atomic writes, runtime settings, plotting, and provenance (fingerprints, module
dependencies, the repository's version)."""
