"""Which module of a copy holds the embedding client, found by reading its source, never by importing it.

Copies in the wild are laid out their own way.  The canonical package
exports ``EmbeddingClient`` from its ``__init__``; the real upstream keeps it
in one module, ``mcp_common/embedding_client.py``, of a package whose
``__init__`` exports nothing of it.  So the conformance run looks: the
client module is the one module that defines a class ``EmbeddingClient``
with an ``embed_with_outcome`` method, and the health module the one that
defines ``EmbeddingHealth``.

Looking must not run a copy's code: any module of a package may open
connections or read settings when imported, and only the client module (and
the packages above it, which Python imports on the way) is imported, in the
copy's own worker process.  The source is parsed with `ast`, not libcst:
this reads top-level names only and rewrites nothing, and it runs over every
module of every copy before each conformance run, where `ast` takes about a
millisecond a module and libcst about twenty, plus a tenth of a second to
import it.  A module whose text does not mention the name is not parsed.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..errors import PlaitError

__all__ = [
    "CLIENT",
    "NotAnEmbeddingClient",
    "ModuleFacts",
    "client_module_of",
    "health_module_of",
    "keeps_outcome",
    "module_facts",
    "modules_of",
]

CLIENT = "EmbeddingClient"
HEALTH = "EmbeddingHealth"
_METHOD = "embed_with_outcome"
# Directories that are never part of a copy's importable code.
_SKIPPED_DIRS = frozenset({"__pycache__", "tests", "test"})


class NotAnEmbeddingClient(PlaitError):
    """A package none of whose modules defines ``EmbeddingClient``: there is nothing to hold to the contract."""


@dataclass(frozen=True)
class ModuleFacts:
    """What one module's top level says about the client.

    defines_client: it has ``class EmbeddingClient``.
    has_outcome: that class has an ``embed_with_outcome`` method.
    binds_client: it binds the name at all (a class, an import, an assignment
        or its ``__all__``): a package ``__init__`` that re-exports it.
    defines_health: it has ``class EmbeddingHealth``.
    """

    defines_client: bool = False
    has_outcome: bool = False
    binds_client: bool = False
    defines_health: bool = False


def _class_has_method(node: ast.ClassDef, name: str) -> bool:
    return any(isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.name == name for item in node.body)


def _binds(node: ast.stmt, name: str) -> bool:
    if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
        return node.name == name
    if isinstance(node, ast.Import | ast.ImportFrom):
        return any((alias.asname or alias.name.rpartition(".")[2]) == name for alias in node.names)
    if isinstance(node, ast.Assign | ast.AnnAssign):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            return True
        exported = any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets)
        value = node.value
        return (
            exported
            and isinstance(value, ast.List | ast.Tuple)
            and any(isinstance(item, ast.Constant) and item.value == name for item in value.elts)
        )
    return False


def module_facts(path: Path) -> ModuleFacts:
    """The facts of the module at *path*; a module that cannot be read or parsed has none."""
    try:
        source = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ModuleFacts()
    if CLIENT not in source and HEALTH not in source:
        return ModuleFacts()
    try:
        tree = ast.parse(source, filename=str(path))
    except (SyntaxError, ValueError):
        # The worker's import reports a broken module; looking only passes it by.
        return ModuleFacts()
    client = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == CLIENT), None)
    return ModuleFacts(
        defines_client=client is not None,
        has_outcome=client is not None and _class_has_method(client, _METHOD),
        binds_client=any(_binds(node, CLIENT) for node in tree.body),
        defines_health=any(isinstance(n, ast.ClassDef) and n.name == HEALTH for n in tree.body),
    )


def modules_of(package_dir: Path, dotted: str) -> Iterator[tuple[str, Path]]:
    """(dotted name, file) of every module of the package in *package_dir*, subpackages included."""
    yield dotted, package_dir / "__init__.py"
    for child in sorted(package_dir.iterdir()):
        if child.is_file() and child.suffix == ".py" and child.name != "__init__.py" and child.stem.isidentifier():
            yield f"{dotted}.{child.stem}", child
        elif (
            child.is_dir()
            and child.name not in _SKIPPED_DIRS
            and child.name.isidentifier()
            and (child / "__init__.py").is_file()
        ):
            yield from modules_of(child, f"{dotted}.{child.name}")


def _several(what: str, names: list[str], package: str) -> PlaitError:
    return PlaitError(
        f"{package}: {len(names)} modules define {what}: {', '.join(names)}"
        " (name the one to run: --import MODULE --from DIR, or client_module in the manifest)"
    )


def client_module_of(package_dir: Path, dotted: str) -> str:
    """The module of the package *dotted* (in *package_dir*) that holds the client.

    The package itself when its ``__init__`` binds ``EmbeddingClient`` (it
    exports it); else the one module defining the class with
    ``embed_with_outcome``; else the one defining the class at all (a stale
    copy, which the run then reports as stale).  Several candidates are an
    error naming them; none is `NotAnEmbeddingClient`.
    """
    facts = [(name, module_facts(path)) for name, path in modules_of(package_dir, dotted)]
    if facts[0][1].binds_client:
        return dotted
    current = [name for name, fact in facts if fact.defines_client and fact.has_outcome]
    stale = [name for name, fact in facts if fact.defines_client]
    for what, found in ((f"{CLIENT} with {_METHOD}", current), (CLIENT, stale)):
        if len(found) == 1:
            return found[0]
        if found:
            raise _several(what, found, dotted)
    raise NotAnEmbeddingClient(
        f"{dotted} is not an embedding client: none of its modules defines {CLIENT}", path=str(package_dir)
    )


def keeps_outcome(package_dir: Path) -> bool:
    """Whether the package at *package_dir* defines ``EmbeddingClient`` with ``embed_with_outcome``.

    Whether the canonical client predates the outcome contract decides how
    stale copies are run, and every copy's worker starts at once, so the
    source is read rather than the canonical's own run waited for.  What is
    not a package to read is taken to keep it: the canonical's run then says.
    """
    if not (package_dir / "__init__.py").is_file():
        return True
    return any(module_facts(path).has_outcome for _name, path in modules_of(package_dir, package_dir.name))


def health_module_of(package_dir: Path | None, dotted: str, client_module: str, client_file: Path) -> str | None:
    """The module defining ``EmbeddingHealth`` beside the client: in the client module, else in its package.

    *package_dir* / *dotted*: the package around the client module (``None``
    for a module that is not in a package).  ``None`` when no module defines
    it: the advisory scenarios then do not apply.
    """
    if module_facts(client_file).defines_health:
        return client_module
    if package_dir is None:
        return None
    found = [name for name, path in modules_of(package_dir, dotted) if module_facts(path).defines_health]
    if len(found) > 1:
        raise _several(HEALTH, found, dotted)
    return found[0] if found else None
