"""plait: keep vendored copies and lineages of one client in step.

The command line (`plait.cli`) is a thin shell over the library modules here;
tests call the library directly.
"""

from __future__ import annotations


def __getattr__(name: str) -> str:
    # The version has one source, the package metadata (pyproject.toml), and
    # is read only when asked for: importlib.metadata costs a merge driver's
    # start-up time for nothing.
    if name == "__version__":
        from importlib.metadata import version

        return version("plait")
    raise AttributeError(f"module 'plait' has no attribute {name!r}")
