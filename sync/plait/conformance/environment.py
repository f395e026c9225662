"""What the environment lacks, told apart from what a copy lacks.

A copy that imports numpy, run by a Python that has none, fails every
scenario that reaches the import.  The copy is not at fault: where its
service runs, numpy is installed.  Scoring that as a broken contract would
send its maintainer hunting a bug that is not there, so an import that
fails for a module the copy does not carry is the environment's: its tier
is ``environment``, which fails no contract, and the report names the module
and the command that installs it.  That holds whether the copy lets the
``ModuleNotFoundError`` out or catches it into an outcome whose evidence
says ``failed: ModuleNotFoundError: No module named 'numpy'``.

A module the copy carries itself that does not import is still the copy's
failure: one of its own package (``from .outcome import X`` with no
``outcome.py``), or one of its own modules imported under a name that does
not resolve (``from mcp_common.outcome import X`` left in a copy vendored as
``cpersona._vendored_mcp_common``).

Standard library only: the worker imports this before the copy it measures.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

__all__ = ["install_hint", "missing_in_evidence", "missing_module"]

# How Python words a failed import; an evidence line carries it after the exception's type.
_NO_MODULE = re.compile(r"\bModuleNotFoundError: No module named '([\w.]+)'")


def _carries(folder: Path, parts: list[str]) -> bool:
    """Whether the module *parts* (dotted, relative to *folder*) is a file or package inside it."""
    where = folder.joinpath(*parts)
    return where.with_suffix(".py").is_file() or (where / "__init__.py").is_file()


def missing_module(exc: BaseException, import_name: str, package_dir: str) -> str | None:
    """The module whose absence *exc* reports, when the copy (*import_name* at *package_dir*) does not carry it.

    ``None`` when *exc* is no missing module, or the module is the copy's
    own (see `_foreign`).
    """
    if not isinstance(exc, ModuleNotFoundError) or not exc.name:
        return None
    return exc.name if _foreign(exc.name, import_name, package_dir) else None


def missing_in_evidence(error: str, import_name: str, package_dir: str) -> str | None:
    """The module an evidence line says is absent (``failed: ModuleNotFoundError: No module named 'numpy'``).

    A copy that catches everything turns the failed import into an outcome
    instead of raising it; the cause is the environment's all the same.
    """
    found = _NO_MODULE.search(error)
    if found is None or not _foreign(found.group(1), import_name, package_dir):
        return None
    return found.group(1)


def _foreign(name: str, import_name: str, package_dir: str) -> bool:
    """Whether the module *name* is none of the copy's own.

    Its own: under the copy's top-level package; a module its directory
    holds; or the copy's package under the name it had before it was
    vendored (``mcp_common`` for ``svc/_vendored_mcp_common``), which is all
    an absolute self-import the vendoring did not rewrite can be told by.
    """
    parts = name.split(".")
    folder = Path(package_dir)
    if parts[0] == import_name.split(".")[0] or folder.name == parts[0] or folder.name.endswith(f"_{parts[0]}"):
        return False
    return not any(rest and _carries(folder, rest) for rest in (parts, parts[1:]))


def install_hint(modules: Iterable[str], python: str) -> str:
    """The command that installs *modules* into the Python that runs the copies (*python*).

    The top-level name of each module is what pip is given: it is the
    distribution's name for nearly every package (``numpy``), and the one a
    person searches for when it is not (``yaml`` is PyYAML).
    """
    tops = sorted({module.split(".")[0] for module in modules})
    return f"{python} -m pip install {' '.join(tops)}"
