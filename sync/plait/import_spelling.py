"""Import spelling that means the same binding is not a local edit.

A copy vendored by hand (``cp`` and ``sed``) spells its imports its own way:
``from pkg.x.boundary import check`` where plait's rewrite keeps the
canonical's ``from .boundary import check``, ``import pkg.x.outcome as
outcome`` where plait writes ``from pkg.x import outcome``, one parenthesised
statement where plait has two.  Each means the same thing, yet a comparison
of texts reads it as an edit, and a 3-way merge conflicts on it for ever.
`align_import_spelling` re-spells such imports as a reference (plait's own
rewrite of the same file) spells them, and leaves everything else, real
local edits included, byte for byte.

What an import statement means is its *binding*: the set of facts it
creates.  ``import a.b as c`` and ``from a import b as c`` both bind ``c`` to
``a.b``; ``import a.b`` binds ``a`` to ``a`` and loads ``a.b``, which
``from a import b`` does not, so those differ.  Relative imports are
resolved against the file's own module first.  Only statements whose
bindings are equal are ever exchanged, so alignment cannot change what a
module binds.

Statements are exchanged as runs: a run of consecutive import lines of the
text whose bindings together equal those of a run of consecutive import
lines of the reference, inside the same kind of block (module level, the
same ``try``/``except ImportError``, the same ``if TYPE_CHECKING:``).  A run
never spans a comment line or other code, so no import moves past code, and
a run is exchanged only when it holds the same comments as its replacement,
so no comment is lost or gained.
"""

from __future__ import annotations

import functools
import textwrap
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

import libcst as cst
from libcst.helpers import get_full_name_for_node_or_raise

from . import contents
from .transforms import module_name, resolve_relative

__all__ = ["align_import_spelling", "align_tree_spelling", "imported_modules", "same_binding"]

# ("bind", local name, absolute target) | ("load", module, "") | ("star", module, "")
_Fact = tuple[str, str, str]
_Binding = frozenset[_Fact]

# A run longer than this is not looked for: the reference's runs are
# indexed up front, and a file with hundreds of consecutive imports would
# cost their square.  A longer respelling simply stays as it is.
_MAX_RUN = 16

# Statements are compared as rendered outside any file, so that a file's
# own newline and indentation do not make equal statements differ.
_NEUTRAL = cst.Module(body=[])


@functools.lru_cache(maxsize=128)
def align_import_spelling(text: str, reference: str, *, module: str, is_package: bool) -> str:
    """*text* with each import that binds what an import of *reference* binds spelled as there.

    *module* is the dotted module both texts are (e.g.
    ``cpersona._vendored_mcp_common.embedding_client.client``) and
    *is_package* whether it is an ``__init__.py``; relative imports resolve
    against them.  Idempotent, and the identity when *text* is *reference*.
    Text that does not parse is returned unchanged: the merge reports it in
    its own words.  Kept per texts: a re-vendor aligns a locally edited file
    to plan its merge, and again to list its local edits.
    """
    if text == reference:
        return text
    if not (contents.is_utf8(text) and contents.is_utf8(reference)):
        return text  # (a file in another encoding keeps its spelling: at worst, a respelling reads as an edit)
    index = _reference_index(reference, module, is_package)
    try:
        tree = cst.parse_module(text)
    except cst.ParserSyntaxError:
        return text
    if index is None:
        return text
    aligner = _Aligner(module, is_package, index)
    aligned = _walk_module(tree, aligner.block)
    return aligned.code if aligner.changed else text


def align_tree_spelling(files: Mapping[str, str], reference: Mapping[str, str], *, package: str) -> dict[str, str]:
    """Every Python file of *files* aligned with the file of the same path in *reference*.

    Both map paths relative to the root of *package* (the dotted package the
    files are, e.g. ``cpersona._vendored_mcp_common.embedding_client``) to
    text.  Other files, and files *reference* lacks, are carried unchanged.
    """
    out: dict[str, str] = {}
    for rel, text in files.items():
        theirs = reference.get(rel)
        if rel.endswith(".py") and theirs is not None:
            module, is_package = module_name(package, rel)
            text = align_import_spelling(text, theirs, module=module, is_package=is_package)
        out[rel] = text
    return out


def same_binding(a: str, b: str, *, module: str, is_package: bool) -> bool:
    """Whether import statements *a* and *b* bind the same names to the same targets.

    Each side is one or more import statements (indented or not), resolved
    inside *module*.  False when either side holds anything but imports,
    does not parse, or binds one name twice to different targets (then the
    order decides, and a re-spelling may not keep it).
    """
    left = _snippet_binding(a, module, is_package)
    return left is not None and left == _snippet_binding(b, module, is_package)


def imported_modules(text: str, *, module: str, is_package: bool) -> set[str]:
    """Every absolute name an import anywhere in *text* binds or loads (``from a import b`` gives
    ``a.b``, ``import a.b`` gives ``a`` and ``a.b``), relative imports resolved inside *module*.

    `plait init` compares a copy's with its source's, to find the
    dependencies vendored beside it (``svc._vendor.httpx`` where the source
    has ``httpx``).  Text that does not parse has none.
    """
    try:
        tree = cst.parse_module(contents.python_text(text) or "")
    except cst.ParserSyntaxError:
        return set()
    found: set[str] = set()

    class _Imports(cst.CSTVisitor):
        def visit_Import(self, node: cst.Import) -> None:
            self._add(node)

        def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
            self._add(node)

        def _add(self, node: cst.Import | cst.ImportFrom) -> None:
            for _kind, _name, target in _statement_facts(node, module, is_package) or []:
                found.add(target or _name)

    tree.visit(_Imports())
    return found


# --------------------------------------------------------------------------
# bindings


def _statement_facts(statement: cst.Import | cst.ImportFrom, module: str, is_package: bool) -> list[_Fact] | None:
    """The facts one import creates, or None when its target cannot be resolved."""
    if isinstance(statement, cst.Import):
        facts: list[_Fact] = []
        for alias in statement.names:
            name = get_full_name_for_node_or_raise(alias.name)
            if alias.asname is not None:
                facts.append(("bind", get_full_name_for_node_or_raise(alias.asname.name), name))
                continue
            head = name.split(".", 1)[0]
            facts.append(("bind", head, head))
            if name != head:
                facts.append(("load", name, ""))
        return facts
    named = get_full_name_for_node_or_raise(statement.module) if statement.module is not None else None
    try:
        # `from import x` does not parse, so an absolute import always names its module.
        base = (
            resolve_relative(module, is_package, len(statement.relative), named) if statement.relative else named or ""
        )
    except ValueError:
        return None
    if isinstance(statement.names, cst.ImportStar):
        return [("star", base, "")]
    return [
        (
            "bind",
            get_full_name_for_node_or_raise(alias.asname.name if alias.asname else alias.name),
            f"{base}.{get_full_name_for_node_or_raise(alias.name)}",
        )
        for alias in statement.names
    ]


def _binding(facts: Iterable[_Fact | None]) -> _Binding | None:
    """The binding of statements executed one after the other, or None when their order matters.

    Order matters when one name is bound to two targets (the last wins) or
    when a star import sits with anything else (it may bind any name).
    None among *facts* is an import that could not be resolved.
    """
    collected: list[_Fact] = []
    for fact in facts:
        if fact is None:
            return None
        collected.append(fact)
    targets: dict[str, str] = {}
    for kind, name, target in collected:
        if kind == "star" and len(collected) > 1:
            return None
        if kind == "bind" and targets.setdefault(name, target) != target:
            return None
    return frozenset(collected)


def _line_facts(line: cst.SimpleStatementLine, module: str, is_package: bool) -> tuple[_Fact | None, ...] | None:
    """The facts of a line of imports (``None`` marks one that cannot be resolved), or None
    when the line holds anything but imports."""
    facts: list[_Fact | None] = []
    for statement in line.body:
        if not isinstance(statement, cst.Import | cst.ImportFrom):
            return None
        found = _statement_facts(statement, module, is_package)
        facts.extend(found if found is not None else [None])
    return tuple(facts)


def _snippet_binding(text: str, module: str, is_package: bool) -> _Binding | None:
    try:
        tree = cst.parse_module(textwrap.dedent(text))
    except cst.ParserSyntaxError:
        return None
    facts: list[_Fact | None] = []
    for line in tree.body:
        found = _line_facts(line, module, is_package) if isinstance(line, cst.SimpleStatementLine) else None
        if found is None:
            return None
        facts.extend(found)
    return _binding(facts) if facts else None


# --------------------------------------------------------------------------
# import lines, segments and blocks


@dataclass(frozen=True)
class _Unit:
    """A line of imports, as the matcher sees it."""

    node: cst.SimpleStatementLine
    code: str  # the line without the lines above it
    facts: tuple[_Fact | None, ...]
    comments: tuple[str, ...]  # sorted: a run's comments are compared as a multiset
    after_comment: bool  # a comment line sits right above it


class _CommentFinder(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found: list[str] = []

    def visit_Comment(self, node: cst.Comment) -> None:
        self.found.append(node.value)


def _unit(line: cst.BaseStatement, module: str, is_package: bool) -> _Unit | None:
    if not isinstance(line, cst.SimpleStatementLine):
        return None
    facts = _line_facts(line, module, is_package)
    if facts is None:
        return None
    bare = line.with_changes(leading_lines=())
    finder = _CommentFinder()
    bare.visit(finder)
    return _Unit(
        node=line,
        code=_NEUTRAL.code_for_node(bare),
        facts=facts,
        comments=tuple(sorted(finder.found)),
        after_comment=any(empty.comment is not None for empty in line.leading_lines),
    )


def _segments(body: Sequence[cst.BaseStatement], module: str, is_package: bool) -> Iterator[tuple[int, list[_Unit]]]:
    """Each maximal run of import lines of *body* that no code or comment line interrupts,
    with the index of its first line."""
    start = 0
    units: list[_Unit] = []
    for at, line in enumerate(body):
        unit = _unit(line, module, is_package)
        if unit is None or unit.after_comment:
            if units:
                yield start, units
            start, units = at, ([unit] if unit is not None else [])
        else:
            if not units:
                start = at
            units.append(unit)
    if units:
        yield start, units


def _run_facts(units: Sequence[_Unit]) -> Iterator[_Fact | None]:
    for unit in units:
        yield from unit.facts


def _run_comments(units: Sequence[_Unit]) -> tuple[str, ...]:
    return tuple(sorted(comment for unit in units for comment in unit.comments))


# A block is named by the compound statements around it, each by its kind and
# header: a run is only looked for in the reference's block of the same name.
_Path = tuple[tuple[str, str], ...]
_Handler = Callable[[_Path, Sequence[cst.BaseStatement]], Sequence[cst.BaseStatement]]
_Clause = TypeVar("_Clause", cst.Else, cst.Finally, cst.ExceptHandler, cst.ExceptStarHandler, cst.MatchCase)


def _block_key(node: cst.CSTNode) -> tuple[str, str]:
    if isinstance(node, cst.FunctionDef | cst.ClassDef):
        return type(node).__name__, node.name.value
    if isinstance(node, cst.If | cst.While):
        return type(node).__name__, _NEUTRAL.code_for_node(node.test)
    if isinstance(node, cst.ExceptHandler | cst.ExceptStarHandler):
        return type(node).__name__, _NEUTRAL.code_for_node(node.type) if node.type is not None else ""
    return type(node).__name__, ""


# Only statements can hold imports worth aligning, so the walk goes from
# block to block and never into expressions; it rebuilds only what changed.


def _walk_module(tree: cst.Module, handle: _Handler) -> cst.Module:
    body = _walk(tree.body, (), handle)
    return tree if body is tree.body else tree.with_changes(body=body)


def _walk(body: Sequence[cst.BaseStatement], path: _Path, handle: _Handler) -> Sequence[cst.BaseStatement]:
    inner = [_compound(s, path, handle) if isinstance(s, cst.BaseCompoundStatement) else s for s in body]
    unchanged = all(new is old for new, old in zip(inner, body, strict=True))
    return handle(path, body if unchanged else inner)


def _suite(suite: cst.BaseSuite, path: _Path, handle: _Handler) -> cst.BaseSuite:
    if not isinstance(suite, cst.IndentedBlock):
        return suite  # `if x: import y` on one line is left as it is
    body = _walk(suite.body, path, handle)
    return suite if body is suite.body else suite.with_changes(body=body)


def _clause(node: _Clause, path: _Path, handle: _Handler) -> _Clause:
    body = _suite(node.body, (*path, _block_key(node)), handle)
    return node if body is node.body else node.with_changes(body=body)


def _compound(node: cst.BaseCompoundStatement, path: _Path, handle: _Handler) -> cst.BaseCompoundStatement:
    inner = (*path, _block_key(node))
    changes: dict[str, object] = {}
    if isinstance(node, cst.Match):
        changes["cases"] = [_clause(case, inner, handle) for case in node.cases]
    else:
        changes["body"] = _suite(node.body, inner, handle)
    if isinstance(node, cst.If) and node.orelse is not None:
        # An `elif` is an `if` inside the first one's `orelse`.
        orelse = node.orelse
        changes["orelse"] = (
            _compound(orelse, inner, handle) if isinstance(orelse, cst.If) else _clause(orelse, inner, handle)
        )
    if isinstance(node, cst.For | cst.While | cst.Try | cst.TryStar) and node.orelse is not None:
        changes["orelse"] = _clause(node.orelse, inner, handle)
    if isinstance(node, cst.Try):
        changes["handlers"] = [_clause(handler, inner, handle) for handler in node.handlers]
    if isinstance(node, cst.TryStar):
        changes["handlers"] = [_clause(handler, inner, handle) for handler in node.handlers]
    if isinstance(node, cst.Try | cst.TryStar) and node.finalbody is not None:
        changes["finalbody"] = _clause(node.finalbody, inner, handle)
    if all(_same(new, getattr(node, field)) for field, new in changes.items()):
        return node
    return node.with_changes(**changes)


def _same(new: object, old: object) -> bool:
    if isinstance(new, list) and isinstance(old, Sequence):
        return len(new) == len(old) and all(a is b for a, b in zip(new, old, strict=True))
    return new is old


@dataclass(frozen=True)
class _Run:
    units: tuple[_Unit, ...]
    comments: tuple[str, ...]
    order: int  # where it starts in the reference, so that ties are broken the same way each time


class _ReferenceIndex:
    """Every run of the reference's import lines, by block and binding."""

    def __init__(self, module: str, is_package: bool) -> None:
        self.module = module
        self.is_package = is_package
        self.runs: dict[tuple[_Path, _Binding], list[_Run]] = {}
        self.lines: set[tuple[_Path, str]] = set()
        self._seen = 0

    def block(self, path: _Path, body: Sequence[cst.BaseStatement]) -> Sequence[cst.BaseStatement]:
        for _, units in _segments(body, self.module, self.is_package):
            for start, first in enumerate(units):
                self._seen += 1
                self.lines.add((path, first.code))
                for end in range(start + 1, min(len(units), start + _MAX_RUN) + 1):
                    binding = _binding(_run_facts(units[start:end]))
                    if binding is None:
                        break  # a conflict or a star stays in every longer run too
                    run = _Run(tuple(units[start:end]), _run_comments(units[start:end]), self._seen)
                    self.runs.setdefault((path, binding), []).append(run)
        return body

    def replacement(self, path: _Path, units: Sequence[_Unit], binding: _Binding) -> _Run | None:
        """The shortest, then first, reference run binding *binding* with the comments of *units*."""
        comments = _run_comments(units)
        fits = [run for run in self.runs.get((path, binding), ()) if run.comments == comments]
        return min(fits, key=lambda run: (len(run.units), run.order), default=None)


@functools.lru_cache(maxsize=256)
def _reference_index(reference: str, module: str, is_package: bool) -> _ReferenceIndex | None:
    # One reference is aligned against again and again (status, a dry run,
    # the vendor itself; each revision an adoption weighs): index it once.
    try:
        tree = cst.parse_module(reference)
    except cst.ParserSyntaxError:
        return None
    index = _ReferenceIndex(module, is_package)
    _walk_module(tree, index.block)
    return index


class _Aligner:
    def __init__(self, module: str, is_package: bool, index: _ReferenceIndex) -> None:
        self.module = module
        self.is_package = is_package
        self.index = index
        self.changed = False

    def block(self, path: _Path, body: Sequence[cst.BaseStatement]) -> Sequence[cst.BaseStatement]:
        out = list(body)
        touched = False
        # From the last segment back, so that the indexes of earlier ones still hold.
        for start, units in reversed(list(_segments(body, self.module, self.is_package))):
            aligned = self._segment(path, units)
            if aligned is not None:
                out[start : start + len(units)] = aligned
                touched = True
        return out if touched else body

    def _segment(self, path: _Path, units: Sequence[_Unit]) -> list[cst.BaseStatement] | None:
        """The segment re-spelled, or None when nothing in it is.

        Passes repeat until one changes nothing, so that aligning the result
        again changes nothing either.  They end: every replacement consumes
        at least one line the reference does not have (a run starts at one)
        and writes only lines the reference has.
        """
        current = list(units)
        touched = False
        while (step := self._pass(path, current)) is not None:
            current = step
            touched = True
        self.changed |= touched
        return [unit.node for unit in current] if touched else None

    def _pass(self, path: _Path, units: Sequence[_Unit]) -> list[_Unit] | None:
        out: list[_Unit] = []
        at = 0
        touched = False
        while at < len(units):
            found = self._match(path, units, at)
            if found is None:
                out.append(units[at])
                at += 1
                continue
            end, run = found
            first, *rest = run.units
            # The lines above the run are the text's, the run itself the reference's.
            above = units[at]
            out.append(replace(first, node=first.node.with_changes(leading_lines=above.node.leading_lines)))
            out.extend(rest)
            at = end
            touched = True
        return out if touched else None

    def _match(self, path: _Path, units: Sequence[_Unit], at: int) -> tuple[int, _Run] | None:
        """The shortest run of *units* from *at* that a reference run re-spells, and that run.

        A run never starts at a line the reference already has: that line
        is spelled as the reference spells it, perhaps by an earlier pass.
        """
        if (path, units[at].code) in self.index.lines:
            return None
        for end in range(at + 1, min(len(units), at + _MAX_RUN) + 1):
            binding = _binding(_run_facts(units[at:end]))
            if binding is None:
                return None
            run = self.index.replacement(path, units[at:end], binding)
            if run is not None:
                return end, run
        return None
