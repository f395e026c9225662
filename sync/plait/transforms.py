"""Bring a copy of a package into another namespace: import rewrites, with libcst.

A lineage carries the canonical client under another package name
(``embedding_client`` → ``mcp_common``), sometimes under other file names
(``client.py`` → ``embedding.py``) and with its own import style (absolute
self-imports).  A vendored copy lives under a consumer's package
(``embedding_client`` → ``cpersona._vendored_mcp_common.embedding_client``).
Before two copies can be merged, every side is brought into the target
namespace, so that the merge sees real changes and not spelling.

Only import statements and the names an ``import a.b`` binds are touched;
strings, docstrings and comments are left alone.  What cannot be rewritten
safely (``importlib.import_module("a.b")``, ``__import__("a")`` naming a
renamed module) is reported by file and line, never guessed.

A fleet of consumers asks for the same rewrites of the same files again and
again, and most change nothing (a package that imports itself relatively
reads the same under any prefix), so the cheap answers come first: a file
whose tokens show that no import of it changes is returned as it is,
unparsed; libcst visits only the statements that hold imports; and a
rewrite is kept per process, and by the caller's `TransformCache` between
runs.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import io
import tokenize
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Protocol

import libcst as cst
from libcst.helpers import get_full_name_for_node_or_raise
from libcst.metadata import MetadataWrapper, ParentNodeProvider, ScopeProvider
from libcst.metadata.scope_provider import ImportAssignment

from . import contents
from .errors import PlaitError

__all__ = [
    "ImportRewrite",
    "Rewritten",
    "TransformCache",
    "TransformProblem",
    "UnrewritableImport",
    "module_name",
    "resolve_relative",
    "rewrite_imports",
    "rewrite_tree",
]

_DYNAMIC_IMPORTERS = frozenset({"importlib.import_module", "import_module", "__import__"})


@dataclass(frozen=True)
class TransformProblem:
    """Something in a file that the transforms cannot rewrite safely."""

    path: str
    line: int
    message: str

    def describe(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


@dataclass(frozen=True)
class Rewritten:
    """A rewritten module and what could not be rewritten in it."""

    text: str
    problems: tuple[TransformProblem, ...] = ()


def module_name(package: str, relpath: str) -> tuple[str, bool]:
    """The dotted module of *relpath* inside *package*, and whether it is a package.

    ``module_name("embedding_client", "client.py") == ("embedding_client.client", False)``;
    an ``__init__.py`` names its package.
    """
    parts = list(PurePosixPath(relpath).with_suffix("").parts)
    is_package = parts[-1] == "__init__"
    if is_package:
        parts.pop()
    return ".".join([package, *parts]), is_package


@dataclass(frozen=True)
class ImportRewrite:
    """How module names of one namespace map onto another.

    renames: ``(old prefix, new prefix)`` module pairs; the longest matching
      prefix wins, so ``embedding_client.client → mcp_common.embedding`` beats
      ``embedding_client → mcp_common``.
    absolute: relative imports become absolute (a lineage convention:
      ``from .outcome import X`` → ``from mcp_common.outcome import X``).
      Without it relative imports stay relative, re-targeted when a file was
      renamed.
    """

    renames: tuple[tuple[str, str], ...] = ()
    absolute: bool = False
    _by_length: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = field(
        init=False, repr=False, compare=False, hash=False
    )

    def __post_init__(self) -> None:
        pairs = sorted(((tuple(o.split(".")), tuple(n.split("."))) for o, n in self.renames), key=lambda p: -len(p[0]))
        object.__setattr__(self, "_by_length", tuple(pairs))

    @classmethod
    def between(
        cls,
        source_package: str,
        target_package: str,
        file_map: Mapping[str, str] | None = None,
        *,
        extra: Mapping[str, str] | None = None,
        absolute: bool = False,
    ) -> ImportRewrite:
        """The rewrite that carries *source_package* into *target_package*.

        Each renamed file of *file_map* (source path → target path) renames
        its module too: ``client.py → embedding.py`` makes
        ``embedding_client.client`` into ``mcp_common.embedding``.
        """
        renames: dict[str, str] = {}
        if source_package != target_package:
            renames[source_package] = target_package
        for source, target in (file_map or {}).items():
            old, _ = module_name(source_package, source)
            new, _ = module_name(target_package, target)
            if old != new:
                renames[old] = new
        renames.update(extra or {})
        return cls(tuple(sorted(renames.items())), absolute)

    @property
    def is_identity(self) -> bool:
        return not self.renames and not self.absolute

    def rename(self, module: str) -> str:
        """*module* under the longest matching rename, or unchanged."""
        parts = tuple(module.split("."))
        for old, new in self._by_length:
            if parts[: len(old)] == old:
                return ".".join(new + parts[len(old) :])
        return module

    def renamed_prefix(self, module: str) -> str | None:
        """The old prefix a rename of *module* would match, if any."""
        parts = tuple(module.split("."))
        for old, _ in self._by_length:
            if parts[: len(old)] == old:
                return ".".join(old)
        return None


def rewrite_imports(
    text: str, *, module: str, is_package: bool = False, rewrite: ImportRewrite, path: str = "<string>"
) -> Rewritten:
    """*text* (the source of *module*) with its imports carried through *rewrite*.

    A file that is not UTF-8 but declares its encoding (PEP 263) is rewritten
    as the Unicode it declares and given back in its own encoding.
    """
    if rewrite.is_identity:
        return Rewritten(text)
    declared = contents.as_unicode(text)
    if declared is None:
        return _rewrite_cached(text, module, is_package, rewrite, path)
    unicode, encoding = declared
    done = _rewrite_cached(unicode, module, is_package, rewrite, path)
    back = contents.from_unicode(done.text, encoding)
    if back is None:  # (a rewritten name the encoding cannot spell: names are ASCII, so never in practice)
        return Rewritten(text, (*done.problems, TransformProblem(path, 1, f"cannot be written in {encoding}")))
    return Rewritten(back, done.problems)


class UnrewritableImport(PlaitError):
    """Imports the transforms cannot rewrite safely; ``problems`` names each by file and line."""

    def __init__(self, problems: Sequence[TransformProblem]) -> None:
        first = problems[0]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        super().__init__(f"cannot rewrite: {first.message}{more}", path=first.path, line=first.line)
        self.problems = tuple(problems)


class TransformCache(Protocol):
    """Where `rewrite_tree` keeps rewrites between runs (the store's cache), by `cache_key`.

    ``get`` answers only what it can vouch for (None otherwise); the rewrite
    is deterministic, so a miss costs time, never a different result.
    """

    def get(self, key: str) -> str | None: ...

    def put(self, key: str, text: str) -> None: ...


def rewrite_tree(
    files: Mapping[str, str],
    *,
    package: str,
    rewrite: ImportRewrite,
    file_map: Mapping[str, str] | None = None,
    label: str = "",
    cache: TransformCache | None = None,
) -> dict[str, str]:
    """Every Python file of a package tree through *rewrite*, renamed by *file_map*.

    *files* maps paths relative to the package root to text.  Non-Python
    files are carried unchanged; paths missing from *file_map* keep their
    name.  Raises `UnrewritableImport` naming every file and line that
    cannot be rewritten: a half-rewritten copy would import the wrong code.
    A file the rewrite really changes is looked up in *cache* first, and
    put there after.
    """
    mapping = file_map or {}
    out: dict[str, str] = {}
    problems: list[TransformProblem] = []
    for rel, text in files.items():
        if rel.endswith(".py"):
            mod, is_pkg = module_name(package, rel)
            where = f"{label}/{rel}" if label else rel
            done = _rewrite_through(text, mod, is_pkg, rewrite, where, cache)
            problems.extend(done.problems)
            text = done.text
        out[mapping.get(rel, rel)] = text
    if problems:
        raise UnrewritableImport(problems)
    return out


def cache_key(text: str, *, module: str, is_package: bool, rewrite: ImportRewrite) -> str:
    """What names the rewrite of *text* (the source of *module*) through *rewrite* in a cache.

    The input by its digest, the rewrite, and the rewriting code itself (this
    module, plait's and libcst's versions): an upgrade that rewrites
    differently finds nothing it did not write.
    """
    parts = [
        hashlib.sha256(contents.encode(text)).hexdigest(),
        module,
        str(is_package),
        repr(rewrite.renames),
        str(rewrite.absolute),
        _fingerprint(),
    ]
    return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()


def resolve_relative(module: str, is_package: bool, level: int, name: str | None) -> str:
    """The absolute module a relative import names, from inside *module*.

    Raises ValueError for a relative import beyond the top-level package,
    which Python refuses too.
    """
    anchor = module.split(".") if is_package else module.split(".")[:-1]
    if level - 1 > len(anchor) - 1:
        raise ValueError("relative import beyond the top-level package")
    base = anchor[: len(anchor) - (level - 1)]
    return ".".join([*base, *(name.split(".") if name else [])])


# --------------------------------------------------------------------------
# implementation


def _rewrite_through(
    text: str, module: str, is_package: bool, rewrite: ImportRewrite, path: str, cache: TransformCache | None
) -> Rewritten:
    # Only what really needs libcst is worth a cache entry: the token check is cheaper than a read.
    if cache is None or rewrite.is_identity or _untouched(text, module, is_package, rewrite):
        return rewrite_imports(text, module=module, is_package=is_package, rewrite=rewrite, path=path)
    key = cache_key(text, module=module, is_package=is_package, rewrite=rewrite)
    hit = cache.get(key)
    if hit is not None:
        return Rewritten(hit)
    done = rewrite_imports(text, module=module, is_package=is_package, rewrite=rewrite, path=path)
    if not done.problems:  # (a rewrite with problems stops the run; it is never reused)
        cache.put(key, done.text)
    return done


@functools.cache
def _fingerprint() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        own = Path(__file__).read_bytes()
    except OSError:  # pragma: no cover - running from an archive
        own = b""
    versions = []
    for distribution in ("plait", "libcst"):
        try:
            versions.append(version(distribution))
        except PackageNotFoundError:  # pragma: no cover - running from a bare source tree
            versions.append("unknown")
    return hashlib.sha256(own + " ".join(versions).encode("utf-8")).hexdigest()


@functools.lru_cache(maxsize=512)
def _rewrite_cached(text: str, module: str, is_package: bool, rewrite: ImportRewrite, path: str) -> Rewritten:
    # A sync transforms the same base and source texts for status, dry run
    # and the sync itself, and a vendor run the same source for every
    # consumer that shares a rewrite; the cache makes the repeats free.
    if _untouched(text, module, is_package, rewrite):
        return Rewritten(text)
    return _rewrite_parsed(text, module, is_package, rewrite, path)


def _rewrite_parsed(
    text: str, module: str, is_package: bool, rewrite: ImportRewrite, path: str, *, every_node: bool = False
) -> Rewritten:
    """The rewrite itself: the `ast` survey, then libcst where it found something to rewrite.

    *every_node* visits every node of the tree, as the transformer did before
    it learnt to skip what holds no import (the tests' reference).
    """
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return Rewritten(text)  # the merge reports unparsable input with its own words
    plan = _Survey(module, is_package, rewrite)
    plan.visit(tree)
    problems = tuple(TransformProblem(path, line, msg) for line, msg in plan.problems)
    if not plan.needs_rewrite:
        return Rewritten(text, problems)
    new_text = _apply(text, module, is_package, rewrite, binds_renamed=plan.binds_renamed, every_node=every_node)
    return Rewritten(new_text, problems)


# --------------------------------------------------------------------------
# the pre-check: what the tokens say

_DYNAMIC_NAMES = ("import_module", "__import__")
_STATEMENT_END = (tokenize.NEWLINE, tokenize.ENDMARKER)
_STATEMENT_START = (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)

# An import statement as its tokens spell it:
# ("import", ((dotted, asname), ...)) or ("from", level, dotted or None, (leaf, ...) or None for *).
_ImportForm = tuple[str, int, str | None, tuple[str, ...] | None]


def _untouched(text: str, module: str, is_package: bool, rewrite: ImportRewrite) -> bool:
    """Whether *rewrite* leaves *text* byte for byte as it is, decided from its tokens alone.

    The question is asked for every file of every consumer, and almost always
    answered "yes" (a vendored package imports itself relatively; a prefix
    rename does not change a relative spelling), so it must cost far less
    than the parse it saves.  Each import statement is spelled out from the
    tokens and put through the same decisions the transformer makes; any
    statement the tokens do not spell plainly, any dynamic import and any
    form feed (which libcst does not give back byte for byte) say "no", and
    the file takes the full rewrite.  "No" only ever costs time.
    """
    if "\x0c" in text:
        return False
    found = _token_imports(text)
    if found is None:
        return False
    forms, dynamic = found
    if dynamic:
        return False
    new_module = rewrite.rename(module)
    for kind, level, name, leaves in forms:
        if kind == "import":
            assert leaves is not None
            if any(rewrite.rename(dotted) != dotted for dotted in leaves):
                return False
            continue
        if level:
            if rewrite.absolute:
                return False
            try:
                target = resolve_relative(module, is_package, level, name)
            except ValueError:
                return False
        else:
            assert name is not None
            target = name
        new_target = rewrite.rename(target)
        if not level and new_target != target:
            return False
        if leaves is not None and any(_renamed_leaf(rewrite, target, new_target, leaf) for leaf in leaves):
            return False
        if level:
            relative = _relative_form(new_module, is_package, new_target)
            if relative is None or (relative[0], relative[1] or None) != (level, name):
                return False
    return True


@functools.lru_cache(maxsize=256)
def _token_imports(text: str) -> tuple[tuple[_ImportForm, ...], bool] | None:
    """Every import statement of *text*, from its tokens, and whether it may import dynamically.

    Kept per text, not per rewrite: every consumer of a source asks about
    the same texts.  None when the tokens are not plain Python (the parse
    that follows then decides).  The import forms keep only what the
    rewrite decisions read: ``("import", 0, None, dotted names)`` and
    ``("from", level, module, imported names or None for *)``.
    """
    try:
        spelled = tokenize.generate_tokens(io.StringIO(text).readline)
        tokens = [t for t in spelled if t.type not in (tokenize.NL, tokenize.COMMENT)]
    except (tokenize.TokenError, SyntaxError):
        return None
    forms: list[_ImportForm] = []
    dynamic = False
    previous: tokenize.TokenInfo | None = None
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.type == tokenize.ERRORTOKEN:
            return None
        if token.type in (tokenize.NAME, tokenize.STRING) and any(n in token.string for n in _DYNAMIC_NAMES):
            # (a STRING too: before Python 3.12 an f-string's expressions are one token)
            dynamic = True
        if token.type == tokenize.NAME and token.string in ("import", "from"):
            starts = (
                previous is None
                or previous.type in _STATEMENT_START
                or (previous.type == tokenize.OP and previous.string in (";", ":"))
            )
            if starts:
                statement = _import_statement(tokens, i)
                if statement is None:
                    return None
                forms.append(statement[0])
                i = statement[1]
                continue
            if token.string == "import":
                return None  # not where an import statement can be: not plain Python
        previous = token
        i += 1
    return tuple(forms), dynamic


def _import_statement(tokens: Sequence[tokenize.TokenInfo], i: int) -> tuple[_ImportForm, int] | None:
    """The import statement starting at ``tokens[i]``, and the index of the token that ends it."""
    if tokens[i].string == "import":
        names, j = _aliased_names(tokens, i + 1, dotted=True)
        return (("import", 0, None, tuple(names)), j) if names and _ends(tokens[j]) else None
    j, level = i + 1, 0
    while tokens[j].type == tokenize.OP and tokens[j].string in (".", "..."):
        level += len(tokens[j].string)
        j += 1
    module: str | None = None
    if not _is(tokens[j], tokenize.NAME, "import"):
        module, j = _dotted_tokens(tokens, j)
        if module is None:
            return None
    if (not level and module is None) or not _is(tokens[j], tokenize.NAME, "import"):
        return None
    j += 1
    if _is(tokens[j], tokenize.OP, "*"):
        return (("from", level, module, None), j + 1) if _ends(tokens[j + 1]) else None
    bracketed = _is(tokens[j], tokenize.OP, "(")
    leaves, j = _aliased_names(tokens, j + bracketed, dotted=False)
    if bracketed:
        if not _is(tokens[j], tokenize.OP, ")"):
            return None
        j += 1
    return (("from", level, module, tuple(leaves)), j) if leaves and _ends(tokens[j]) else None


def _aliased_names(tokens: Sequence[tokenize.TokenInfo], j: int, *, dotted: bool) -> tuple[list[str], int]:
    """``name [as alias], ...`` from ``tokens[j]`` (dotted names for ``import``): the names, and where they end."""
    names: list[str] = []
    while True:
        if dotted:
            name, j = _dotted_tokens(tokens, j)
        elif tokens[j].type == tokenize.NAME:
            name, j = tokens[j].string, j + 1
        else:
            name = None
        if name is None:
            return names, j
        names.append(name)
        if _is(tokens[j], tokenize.NAME, "as"):
            if tokens[j + 1].type != tokenize.NAME:
                return [], j
            j += 2
        if not _is(tokens[j], tokenize.OP, ","):
            return names, j
        j += 1


def _dotted_tokens(tokens: Sequence[tokenize.TokenInfo], j: int) -> tuple[str | None, int]:
    if tokens[j].type != tokenize.NAME:
        return None, j
    parts = [tokens[j].string]
    j += 1
    while _is(tokens[j], tokenize.OP, ".") and tokens[j + 1].type == tokenize.NAME:
        parts.append(tokens[j + 1].string)
        j += 2
    return ".".join(parts), j


def _is(token: tokenize.TokenInfo, kind: int, text: str) -> bool:
    return token.type == kind and token.string == text


def _ends(token: tokenize.TokenInfo) -> bool:
    return token.type in _STATEMENT_END or _is(token, tokenize.OP, ";")


# --------------------------------------------------------------------------
# the rewrite


def _relative_form(module: str, is_package: bool, target: str) -> tuple[int, str] | None:
    """``(level, name)`` spelling *target* relative to *module*, or None when no
    relative spelling exists (another top-level package)."""
    anchor = module.split(".") if is_package else module.split(".")[:-1]
    parts = target.split(".")
    for up in range(len(anchor)):
        prefix = anchor[: len(anchor) - up]
        if not prefix:
            break
        if parts[: len(prefix)] == prefix:
            return up + 1, ".".join(parts[len(prefix) :])
    return None


class _Survey(ast.NodeVisitor):
    """Decides, with the cheap `ast`, whether libcst has anything to rewrite,
    and finds the dynamic imports it cannot rewrite."""

    def __init__(self, module: str, is_package: bool, rewrite: ImportRewrite) -> None:
        self.module = module
        self.is_package = is_package
        self.rewrite = rewrite
        self.needs_rewrite = False
        # An `import a.b` (no alias) binds a name whose uses must follow a rename.
        self.binds_renamed = False
        self.problems: list[tuple[int, str]] = []

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if self.rewrite.rename(alias.name) != alias.name:
                self.needs_rewrite = True
                if alias.asname is None and not _binds_by_from(alias.name, self.rewrite):
                    self.binds_renamed = True

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            # Relative imports may need re-targeting (renamed files) or turning absolute.
            self.needs_rewrite = True
            return
        name = node.module or ""
        if self.rewrite.rename(name) != name:
            self.needs_rewrite = True

    def visit_Call(self, node: ast.Call) -> None:
        self.generic_visit(node)
        callee = _dotted(node.func)
        if callee not in _DYNAMIC_IMPORTERS or not node.args:
            return
        first = node.args[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            target = first.value
            if self.rewrite.renamed_prefix(target) is not None:
                new = self.rewrite.rename(target)
                self.problems.append(
                    (node.lineno, f"{callee}({target!r}) names a renamed module ({new}); plait cannot rewrite it")
                )


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return f"{head}.{node.attr}" if head else ""
    return ""


def _name_node(dotted: str) -> cst.Attribute | cst.Name:
    parts = dotted.split(".")
    node: cst.Attribute | cst.Name = cst.Name(parts[0])
    for part in parts[1:]:
        node = cst.Attribute(value=node, attr=cst.Name(part))
    return node


def _apply(
    text: str, module: str, is_package: bool, rewrite: ImportRewrite, *, binds_renamed: bool, every_node: bool
) -> str:
    tree = cst.parse_module(text)
    renamer = _ImportRenamer(module, is_package, rewrite, every_node=every_node)
    if binds_renamed:
        wrapper = MetadataWrapper(tree, unsafe_skip_copy=True)
        renamer.uses, renamer.along = _renamed_uses(wrapper, rewrite)
        return wrapper.visit(renamer).code
    return tree.visit(renamer).code


def _binds_by_from(name: str, rewrite: ImportRewrite) -> bool:
    """Whether ``import a`` / ``import a.b`` keeps binding ``a`` through ``from X import a``.

    That is the vendoring case: package ``a`` keeps its name, nested inside
    another (``a`` → ``X.a``), and ``a.b`` moves with it.  The statement
    becomes ``import X.a.b`` plus ``from X import a``, so the name ``a`` is
    bound to the same package as before and no use needs rewriting.  Uses
    spelled ``X.a.b`` instead would fail while ``X.a`` is still importing
    itself: a package's attribute for a subpackage is only set once the
    subpackage has finished importing, but ``from X import a`` finds it in
    ``sys.modules`` already.
    """
    head = name.split(".", 1)[0]
    new_head = rewrite.rename(head)
    if "." not in new_head or new_head.rsplit(".", 1)[1] != head:
        return False
    return rewrite.rename(name) == new_head + name[len(head) :]


def _renamed_uses(
    wrapper: MetadataWrapper, rewrite: ImportRewrite
) -> tuple[dict[cst.CSTNode, cst.BaseExpression], set[cst.CSTNode]]:
    """Each use of a name bound by ``import a.b`` that a rename moves, its new spelling,
    and every node on the way down to one (what the renamer must visit).

    Scope analysis, not text: a local variable that happens to share the
    name is not an import's reference and is left alone.
    """
    scopes = wrapper.resolve(ScopeProvider)
    parents = wrapper.resolve(ParentNodeProvider)
    replace: dict[cst.CSTNode, cst.BaseExpression] = {}
    for node, scope in scopes.items():
        if not isinstance(node, cst.Import) or scope is None:
            continue
        moved = [
            alias
            for alias in node.names
            if alias.asname is None
            and rewrite.rename(get_full_name_for_node_or_raise(alias.name))
            != get_full_name_for_node_or_raise(alias.name)
            and not _binds_by_from(get_full_name_for_node_or_raise(alias.name), rewrite)
        ]
        if not moved:
            continue
        # libcst records `import a.b` under both "a" and "a.b"; the accesses
        # hang off whichever the use spells out.
        for assignment in scope.assignments:
            if isinstance(assignment, ImportAssignment) and assignment.node is node:
                for access in assignment.references:
                    if _bound_by_imports(access.node, scopes):
                        _replace_use(access.node, parents, rewrite, replace)
    along: set[cst.CSTNode] = set()
    for used in replace:
        step: cst.CSTNode | None = used
        while step is not None and step not in along:
            along.add(step)
            step = parents.get(step)
    return replace, along


def _bound_by_imports(used: cst.CSTNode, scopes: Mapping[cst.CSTNode, Any]) -> bool:
    """Whether the head name of *used* means an import where it is used.

    libcst files an access to ``a.b`` under ``import a.b`` even inside a
    function whose parameter is called ``a``; the head name's own scope says
    whether something closer shadows the import.
    """
    prefixes = _prefixes(used)
    head = prefixes[0] if prefixes else None
    scope = scopes.get(head) if head is not None else None
    if not isinstance(head, cst.Name) or scope is None:
        return False
    return all(isinstance(a, ImportAssignment) for a in scope[head.value])


def _prefixes(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The nodes spelling each prefix of a dotted name: ``a``, ``a.b``, ..."""
    if isinstance(node, cst.Attribute):
        return [*_prefixes(node.value), node]
    return [node] if isinstance(node, cst.Name) else []


def _replace_use(
    used: cst.CSTNode,
    parents: Mapping[cst.CSTNode, cst.CSTNode],
    rewrite: ImportRewrite,
    replace: dict[cst.CSTNode, cst.BaseExpression],
) -> None:
    # Extend `a.b` up to the whole `a.b.c.d` it sits in, then rename the longest prefix a rename matches.
    chain = _prefixes(used)
    if not chain:
        return
    node = used
    while True:
        parent = parents.get(node)
        if not isinstance(parent, cst.Attribute) or parent.value is not node:
            break
        chain.append(parent)
        node = parent
    for top in reversed(chain):
        dotted = get_full_name_for_node_or_raise(top)
        new = rewrite.rename(dotted)
        if new != dotted:
            replace[top] = _name_node(new)
            return


class _ImportRenamer(cst.CSTTransformer):
    """Rewrites import statements, and the uses `_renamed_uses` found.

    It descends only where that can be: into compound statements (an import
    may sit in a ``try`` or a function), into statement lines that hold an
    import, and down to each use to rename; never into the expressions and
    plain statements that make up almost all of a module.  Left alone, a
    subtree is printed as it was parsed, so the result is the same as a
    visit of every node (*every_node*, the tests' reference).
    """

    def __init__(self, module: str, is_package: bool, rewrite: ImportRewrite, *, every_node: bool = False) -> None:
        self.module = module
        self.is_package = is_package
        self.rewrite = rewrite
        self.new_module = rewrite.rename(module)
        self.every_node = every_node
        self.uses: dict[cst.CSTNode, cst.BaseExpression] = {}
        self.along: set[cst.CSTNode] = set()

    def on_visit(self, node: cst.CSTNode) -> bool:
        if self.every_node or node in self.along:
            return super().on_visit(node)
        if isinstance(node, cst.BaseExpression):
            return False
        if isinstance(node, cst.SimpleStatementLine) and not any(
            isinstance(small, (cst.Import, cst.ImportFrom)) for small in node.body
        ):
            return False
        return super().on_visit(node)

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        return self.uses.get(original_node, updated_node)

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.BaseExpression:
        return self.uses.get(original_node, updated_node)

    def leave_Import(
        self, original_node: cst.Import, updated_node: cst.Import
    ) -> cst.BaseSmallStatement | cst.FlattenSentinel[cst.BaseSmallStatement]:
        imports: list[cst.ImportAlias] = []
        binds: list[str] = []  # heads bound by `from X import head`, see `_binds_by_from`
        for alias in updated_node.names:
            name = get_full_name_for_node_or_raise(alias.name)
            new = self.rewrite.rename(name)
            if alias.asname is None and _binds_by_from(name, self.rewrite):
                head = name.split(".", 1)[0]
                if name != head:
                    imports.append(alias.with_changes(name=_name_node(new)))
                if head not in binds:
                    binds.append(head)
            else:
                imports.append(alias.with_changes(name=_name_node(new)) if new != name else alias)
        if not binds:
            return updated_node.with_changes(names=imports)
        out: list[cst.BaseSmallStatement] = []
        if imports:
            imports[-1] = imports[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            out.append(updated_node.with_changes(names=imports, semicolon=cst.MaybeSentinel.DEFAULT))
        for head in binds:
            parent = self.rewrite.rename(head).rpartition(".")[0]
            out.append(cst.ImportFrom(module=_name_node(parent), names=[cst.ImportAlias(name=cst.Name(head))]))
        out[-1] = out[-1].with_changes(semicolon=updated_node.semicolon)
        return out[0] if len(out) == 1 else cst.FlattenSentinel(out)

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.SimpleStatementLine | cst.FlattenSentinel[cst.SimpleStatementLine]:
        # An import that became two statements gets a line each, as a person would write them.
        if len(original_node.body) != 1 or len(updated_node.body) == 1:
            return updated_node
        first, *rest = updated_node.body
        return cst.FlattenSentinel(
            [updated_node.with_changes(body=[first]), *(cst.SimpleStatementLine(body=[stmt]) for stmt in rest)]
        )

    def leave_ImportFrom(self, original_node: cst.ImportFrom, updated_node: cst.ImportFrom) -> cst.ImportFrom:
        level = len(updated_node.relative)
        name = get_full_name_for_node_or_raise(updated_node.module) if updated_node.module is not None else None
        if level:
            target = resolve_relative(self.module, self.is_package, level, name)
        elif name is not None:
            target = name
        else:  # pragma: no cover - `from import x` does not parse
            return updated_node
        new_target = self.rewrite.rename(target)
        names = self._renamed_names(updated_node, target, new_target)
        if not level:
            if new_target == target and names is updated_node.names:
                return updated_node
            return updated_node.with_changes(module=_name_node(new_target), names=names)
        relative = None if self.rewrite.absolute else _relative_form(self.new_module, self.is_package, new_target)
        if relative is None:
            return updated_node.with_changes(
                relative=[], module=_name_node(new_target), names=names, whitespace_after_from=cst.SimpleWhitespace(" ")
            )
        new_level, new_name = relative
        if (new_level, new_name or None) == (level, name) and names is updated_node.names:
            return updated_node
        return updated_node.with_changes(
            relative=[cst.Dot() for _ in range(new_level)],
            module=_name_node(new_name) if new_name else None,
            names=names,
        )

    def _renamed_names(
        self, node: cst.ImportFrom, target: str, new_target: str
    ) -> Sequence[cst.ImportAlias] | cst.ImportStar:
        """``from pkg import client`` where the submodule ``client`` was renamed:
        import the new name under the old one, so every use still resolves."""
        if isinstance(node.names, cst.ImportStar):
            return node.names
        out: list[cst.ImportAlias] = []
        touched = False
        for alias in node.names:
            leaf = get_full_name_for_node_or_raise(alias.name)
            new_leaf = _renamed_leaf(self.rewrite, target, new_target, leaf)
            if new_leaf is not None:
                asname = alias.asname or cst.AsName(name=cst.Name(leaf))
                out.append(alias.with_changes(name=cst.Name(new_leaf), asname=asname))
                touched = True
            else:
                out.append(alias)
        return out if touched else node.names


def _renamed_leaf(rewrite: ImportRewrite, target: str, new_target: str, leaf: str) -> str | None:
    """The new name of submodule *leaf* imported from *target* (now *new_target*), when
    its file was renamed; None when ``from target import leaf`` keeps naming it."""
    parent, _, new_leaf = rewrite.rename(f"{target}.{leaf}").rpartition(".")
    return new_leaf if parent == new_target and new_leaf != leaf else None
