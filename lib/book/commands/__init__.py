"""The command line: `python -m lib` (`main`), its evidence commands (`evidence`) and `bench`."""
