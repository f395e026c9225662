"""plait: keep vendored copies and lineages of one client in step.

The command line (`plait.cli`) is a thin shell over the library modules here;
tests call the library directly.
"""

__version__ = "0.1.0"
