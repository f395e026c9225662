"""Realistic edits of real Python modules, for the merge law harness (``merge_laws.py``).

Each generator reads a real module (a `Source`) and yields candidate `Edit`s:
an added method, a renamed local, a statement wrapped in ``try``, a block
extracted into a helper, and so on.  Every edit is a libcst rewrite of one
*region* of the base module -- a top-level statement ``(i,)`` or a member of a
top-level class ``(i, j)`` -- plus insertions at *gaps* between statements.
Positions always refer to the base module, so edits whose footprints are
disjoint compose exactly: `render` applies any list of them to the base, and
the expected merge is simply ``render(base, ours + theirs)``, computed without
the engine.  Insertions at the same gap keep the list's order, which gives
the "ours first, then theirs" convention.

Nothing here knows about merging; `merge_laws.py` pairs edits into cases and
judges the engine.
"""

from __future__ import annotations

import ast
import builtins
import random
import sys
import sysconfig
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path as FilePath
from typing import TypeVar

import libcst as cst
import pyflakes.checker
import pyflakes.messages
from libcst.metadata import ExpressionContext, ExpressionContextProvider, MetadataWrapper, PositionProvider

Path = tuple[int, ...]
"""A region: ``(i,)`` is the module's i-th statement, ``(i, j)`` the j-th member of the class at i."""
Gap = tuple[Path, int]
"""An insertion point: (container region, position); ``((), n)`` is the end of the module."""
Stmts = tuple[cst.BaseStatement, ...]

OURS, THEIRS = "ours", "theirs"
BUILTINS = frozenset(dir(builtins))


@dataclass(frozen=True, eq=False)
class Edit:
    """One realistic change to a base module, as replacements of regions and insertions at gaps."""

    kind: str
    where: str
    footprint: frozenset[Path]
    replace: Mapping[Path, Stmts] = field(default_factory=dict)
    insert: Mapping[Gap, Stmts] = field(default_factory=dict)
    add_names: Mapping[Path, tuple[str, ...]] = field(default_factory=dict)
    cosmetic: bool = False

    def describe(self) -> str:
        return f"{self.kind}: {self.where}"


def overlaps(a: Path, b: Path) -> bool:
    """Two regions overlap when one contains the other (a class and its method)."""
    n = min(len(a), len(b))
    return a[:n] == b[:n]


def disjoint(edit: Edit, others: Iterable[Edit]) -> bool:
    return not any(overlaps(a, b) for other in others for a in edit.footprint for b in other.footprint)


def gap_footprint(container: Path, position: int, size: int) -> frozenset[Path]:
    """An insertion claims its two neighbours, so nothing else edits right next to it."""
    return frozenset(container + (p,) for p in (position - 1, position) if 0 <= p < size)


# -- reading a module -------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Site:
    """A function: top-level ``(i,)`` or a method of a top-level class ``(i, j)``."""

    path: Path
    node: cst.FunctionDef
    qualname: str
    owner: cst.ClassDef | None


def _words(text: str) -> list[str]:
    return "".join(c if c.isalnum() or c == "_" else " " for c in text).split()


class _Identifiers(cst.CSTVisitor):
    """Counts every identifier a module mentions: names, attributes, and words inside strings."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()

    def visit_Name(self, node: cst.Name) -> None:
        self.counts[node.value] += 1

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        self.counts.update(_words(node.value))

    def visit_FormattedStringText(self, node: cst.FormattedStringText) -> None:
        self.counts.update(_words(node.value))


class _ImportTimeNames(cst.CSTVisitor):
    """Names read or bound while the module is imported: everything but function bodies."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        for decorator in node.decorators:
            decorator.visit(self)
        node.params.visit(self)
        if node.returns is not None:
            node.returns.visit(self)
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        node.params.visit(self)
        return False

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)


class Source:
    """A base module, parsed once, with what the generators need to know about it."""

    def __init__(self, name: str, text: str) -> None:
        self.name = name
        self.text = text
        self.module = cst.parse_module(text)
        wrapper = MetadataWrapper(self.module, unsafe_skip_copy=True)
        self.positions = wrapper.resolve(PositionProvider)
        self.contexts = wrapper.resolve(ExpressionContextProvider)
        self.indent = self.module.default_indent
        identifiers = _Identifiers()
        self.module.visit(identifiers)
        self.identifiers = identifiers.counts
        import_time = _ImportTimeNames()
        self.module.visit(import_time)
        self.import_time_names = import_time.names
        self._base_ids = {id(stmt): stmt for stmt in self.module.body}
        self.functions: list[Site] = []
        self.classes: list[tuple[Path, cst.ClassDef]] = []
        for i, stmt in enumerate(self.module.body):
            if isinstance(stmt, cst.FunctionDef):
                self.functions.append(Site((i,), stmt, stmt.name.value, None))
            elif isinstance(stmt, cst.ClassDef) and isinstance(stmt.body, cst.IndentedBlock):
                self.classes.append(((i,), stmt))
                for j, member in enumerate(stmt.body.body):
                    if isinstance(member, cst.FunctionDef):
                        qualname = f"{stmt.name.value}.{member.name.value}"
                        self.functions.append(Site((i, j), member, qualname, stmt))
        self._dump: str | None = None
        self._undefined: frozenset[str] | None = None
        self._pieces: dict[int, str] = {}
        self._renders: dict[tuple[int, ...], tuple[Sequence[Edit], str]] = {}

    def render(self, edits: Sequence[Edit]) -> str:
        """`render` of this module, faster: unchanged top-level statements reuse their code, results are kept."""
        key = tuple(id(edit) for edit in edits)
        hit = self._renders.get(key)
        if hit is not None and all(a is b for a, b in zip(hit[0], edits, strict=True)):
            return hit[1]
        module = self.module
        if not module.has_trailing_newline or not module.body:
            text = render(module, edits)
        else:
            parts = [module.code_for_node(line) for line in module.header]
            for stmt in _body(module.body, (), edits):
                if self._base_ids.get(id(stmt)) is not stmt:
                    parts.append(module.code_for_node(stmt))  # new or changed
                    continue
                if id(stmt) not in self._pieces:
                    self._pieces[id(stmt)] = module.code_for_node(stmt)
                parts.append(self._pieces[id(stmt)])
            parts.extend(module.code_for_node(line) for line in module.footer)
            text = "".join(parts)
        self._renders[key] = (tuple(edits), text)
        return text

    @property
    def dump(self) -> str:
        if self._dump is None:
            self._dump = ast.dump(ast.parse(self.text))
        return self._dump

    @property
    def undefined(self) -> frozenset[str]:
        if self._undefined is None:
            self._undefined = undefined_names(self.text)
        return self._undefined

    def container(self, path: Path) -> Sequence[cst.BaseStatement]:
        if not path:
            return self.module.body
        node = self.module.body[path[0]]
        assert isinstance(node, cst.ClassDef) and isinstance(node.body, cst.IndentedBlock)
        return node.body.body

    def line(self, node: cst.CSTNode) -> int:
        return self.positions[node].start.line

    def lines(self, node: cst.CSTNode) -> str:
        where = self.positions[node]
        return f"lines {where.start.line}-{where.end.line}"

    def import_gap(self) -> int:
        """Where a new top-level import goes: after the last import above the first def or class."""
        gap = 0
        body = self.module.body
        for i, stmt in enumerate(body):
            if isinstance(stmt, cst.FunctionDef | cst.ClassDef):
                break
            if isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], cst.Import | cst.ImportFrom):
                gap = i + 1
        if gap == 0 and body and _is_docstring(body[0]):
            gap = 1
        return gap


def _dotted(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    raise TypeError(f"not a dotted name: {type(node).__name__}")


def _is_docstring(stmt: cst.CSTNode) -> bool:
    return (
        isinstance(stmt, cst.SimpleStatementLine)
        and isinstance(stmt.body[0], cst.Expr)
        and isinstance(stmt.body[0].value, cst.SimpleString | cst.ConcatenatedString)
    )


# -- validity checks ---------------------------------------------------------------

_UNDEFINED = (pyflakes.messages.UndefinedName, pyflakes.messages.UndefinedLocal, pyflakes.messages.UndefinedExport)


def undefined_names(text: str) -> frozenset[str]:
    """Names pyflakes finds used but never defined in the module."""
    checker = pyflakes.checker.Checker(ast.parse(text), filename="<merge>")
    return frozenset(str(m.message_args[0]) for m in checker.messages if isinstance(m, _UNDEFINED))


def compiles(text: str) -> bool:
    try:
        compile(text, "<edit>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def check_edit(src: Source, edit: Edit) -> str | None:
    """Why an edit is unfit (None when it is fit): the harness must only produce valid, honest edits."""
    text = src.render([edit])
    if text == src.text:
        return "changes nothing"
    if not compiles(text):
        return "does not compile"
    same_ast = ast.dump(ast.parse(text)) == src.dump
    if edit.cosmetic != same_ast:
        return "changes the AST" if edit.cosmetic else "leaves the AST unchanged"
    if undefined_names(text) - src.undefined:
        return "introduces an undefined name"
    return None


# -- applying edits ----------------------------------------------------------------


def render(module: cst.Module, edits: Sequence[Edit]) -> str:
    """Apply edits (disjoint footprints) to a base module; same-gap insertions keep list order."""
    return module.with_changes(body=_body(module.body, (), edits)).code


def _body(stmts: Sequence[cst.BaseStatement], container: Path, edits: Sequence[Edit]) -> list[cst.BaseStatement]:
    out: list[cst.BaseStatement] = []
    for position in range(len(stmts) + 1):
        for edit in edits:
            out.extend(edit.insert.get((container, position), ()))
        if position == len(stmts):
            break
        path = container + (position,)
        replacements = [edit.replace[path] for edit in edits if path in edit.replace]
        if len(replacements) > 1:
            raise ValueError(f"two edits replace region {path}")
        if replacements:
            out.extend(replacements[0])
            continue
        stmt = stmts[position]
        if not container and isinstance(stmt, cst.ClassDef) and _touches_inside(path, edits):
            assert isinstance(stmt.body, cst.IndentedBlock)
            stmt = stmt.with_changes(body=stmt.body.with_changes(body=_body(stmt.body.body, path, edits)))
        names = [name for edit in edits for name in edit.add_names.get(path, ())]
        if names:
            stmt = add_import_names(stmt, names)
        out.append(stmt)
    return out


def _touches_inside(path: Path, edits: Sequence[Edit]) -> bool:
    for edit in edits:
        if any(len(p) > len(path) and p[: len(path)] == path for p in edit.replace):
            return True
        if any(container == path for container, _ in edit.insert):
            return True
    return False


def _alias_name(alias: cst.ImportAlias) -> str:
    return _dotted(alias.name)


def add_import_names(stmt: cst.BaseStatement, names: Sequence[str]) -> cst.BaseStatement:
    """Add names to ``from x import a, b``; a sorted list stays sorted, otherwise they go last in order.

    New elements copy the separator of the existing ones, so a parenthesised
    one-per-line import gains one line per name.
    """
    assert isinstance(stmt, cst.SimpleStatementLine)
    node = stmt.body[0]
    assert isinstance(node, cst.ImportFrom) and not isinstance(node.names, cst.ImportStar)
    old = list(node.names)
    separator = old[0].comma
    trailing = old[-1].comma
    keys = [_alias_name(a) for a in old]
    fresh = [cst.ImportAlias(name=cst.Name(n)) for n in names]
    merged = sorted(old + fresh, key=_alias_name) if keys == sorted(keys) else old + fresh
    aliases = [
        alias.with_changes(
            comma=trailing
            if k == len(merged) - 1
            else (separator if any(alias is f for f in fresh) or alias is old[-1] else alias.comma)
        )
        for k, alias in enumerate(merged)
    ]
    return stmt.with_changes(body=[node.with_changes(names=aliases), *stmt.body[1:]])


# -- new code ----------------------------------------------------------------------

FUNCTION_TEMPLATES = (
    '''def {name}(items, limit=None):
    """Return the first *limit* items as a list (all of them when limit is None)."""
    result = []
    for item in items:
        if limit is not None and len(result) >= limit:
            break
        result.append(item)
    return result
''',
    '''def {name}(mapping, key, default=None):
    """Look *key* up in *mapping*, falling back to *default* for a missing or unhashable key."""
    try:
        return mapping[key]
    except (KeyError, TypeError):
        return default
''',
    '''def {name}(text, width=72):
    """Split *text* into lines of at most *width* characters, breaking between words."""
    lines, current = [], ""
    for word in text.split():
        if current and len(current) + 1 + len(word) > width:
            lines.append(current)
            current = word
        else:
            current = f"{{current}} {{word}}" if current else word
    if current:
        lines.append(current)
    return lines
''',
    '''def {name}(pairs):
    """Group (key, value) pairs into a dict of lists, keeping the first-seen key order."""
    groups = {{}}
    for key, value in pairs:
        groups.setdefault(key, []).append(value)
    return groups
''',
)

METHOD_TEMPLATES = (
    '''def {name}(self):
    """Return a short description of this object, for logs."""
    return "<%s at %#x>" % (type(self).__name__, id(self))
''',
    '''def {name}(self, **changes):
    """Return the instance attributes as a dict, with *changes* applied."""
    state = dict(getattr(self, "__dict__", {{}}))
    state.update(changes)
    return state
''',
    '''def {name}(self, other):
    """Tell whether *other* is an instance of the same class."""
    if other is self:
        return True
    return type(other) is type(self)
''',
)

USE_TEMPLATE = '''def {name}(*args, **kwargs):
    """Give callers that cannot import it direct access to {used}."""
    if args or kwargs:
        return {used}, args, kwargs
    return {used}
'''

WORDS = {
    OURS: ("describe", "snapshot", "collect", "first_items", "lookup_default", "wrap_words"),
    THEIRS: ("summarize", "export_state", "gather", "take_items", "fetch_default", "fill_words"),
}
RENAMES = {
    "i": "index",
    "j": "inner",
    "k": "key",
    "n": "count",
    "s": "text",
    "res": "result",
    "ret": "result",
    "tmp": "scratch",
    "val": "value",
    "d": "mapping",
    "l": "items",
    "f": "handle",
    "fp": "handle",
    "msg": "message",
    "buf": "buffer",
    "args": "arguments",
    "line": "current_line",
    "name": "item_name",
    "result": "outcome",
    "value": "current_value",
}


class Namer:
    """Fresh identifiers, unused in the module and by every edit of one case."""

    def __init__(self, src: Source) -> None:
        self.taken = set(src.identifiers)

    def fresh(self, stem: str) -> str:
        name, n = stem, 2
        while name in self.taken or name in BUILTINS:
            name, n = f"{stem}_{n}", n + 1
        self.taken.add(name)
        return name


def _blank(n: int) -> tuple[cst.EmptyLine, ...]:
    return tuple(cst.EmptyLine(indent=False) for _ in range(n))


def parse_def(code: str, blank_lines: int) -> cst.BaseStatement:
    stmt = cst.parse_statement(code)
    return stmt.with_changes(leading_lines=_blank(blank_lines))


def append_function(src: Source, rng: random.Random, namer: Namer, side: str) -> Edit:
    """Append a new function at the end of the module (both sides do, in the ``+append`` variant)."""
    name = namer.fresh(rng.choice(WORDS[side]))
    stmt = parse_def(rng.choice(FUNCTION_TEMPLATES).format(name=name), 2)
    end = ((), len(src.module.body))
    return Edit("append_end", f"appends def {name} at the end", frozenset(), insert={end: (stmt,)})


# -- names inside a function -------------------------------------------------------


class _NameUse(cst.CSTVisitor):
    """Names a statement reads and binds in its own scope, in source order.

    Bindings in nested scopes (defs, lambdas, classes, comprehensions) are not
    the function's; reads there still count, since closures read the
    function's locals.
    """

    def __init__(self, contexts: Mapping[cst.CSTNode, ExpressionContext | None]) -> None:
        self.contexts = contexts
        self.loads: set[str] = set()
        self.stores: set[str] = set()
        self.keywords: set[cst.Name] = set()  # Arg.keyword names: neither reads nor bindings
        self.nested_names: set[str] = set()
        self.flow = False  # return, yield, await, async for/with
        self.scope_hazard = False  # global, nonlocal, locals(), vars(), eval, exec, super(), del
        self.import_bound: set[str] = set()
        self._depth = 0

    def _bind(self, name: str) -> None:
        if self._depth:
            self.nested_names.add(name)
        else:
            self.stores.add(name)

    def visit_Name(self, node: cst.Name) -> None:
        if node in self.keywords:
            return
        context = self.contexts.get(node)
        if self._depth:
            self.nested_names.add(node.value)
        if context is ExpressionContext.STORE:
            self._bind(node.value)
        elif context is ExpressionContext.DEL:
            self.scope_hazard = True
        elif context is ExpressionContext.LOAD:
            self.loads.add(node.value)
            if node.value in ("locals", "vars", "eval", "exec", "super", "__class__"):
                self.scope_hazard = True

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self.keywords.add(node.keyword)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Name):
            self.loads.add(node.target.value)

    def visit_Import(self, node: cst.Import) -> bool:
        for alias in node.names:
            bound = alias.asname.name if alias.asname else alias.name
            name = _dotted(bound) if isinstance(bound, cst.Name | cst.Attribute) else ""
            self.import_bound.add(name.split(".")[0])
            self._bind(name.split(".")[0])
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        if isinstance(node.names, cst.ImportStar):
            self.scope_hazard = True
            return False
        for alias in node.names:
            bound = alias.asname.name if alias.asname else alias.name
            if isinstance(bound, cst.Name):
                self.import_bound.add(bound.value)
                self._bind(bound.value)
        return False

    def visit_Global(self, node: cst.Global) -> bool:
        self.scope_hazard = True
        return False

    def visit_Nonlocal(self, node: cst.Nonlocal) -> bool:
        self.scope_hazard = True
        return False

    def visit_Return(self, node: cst.Return) -> None:
        if not self._depth:
            self.flow = True

    def visit_Yield(self, node: cst.Yield) -> None:
        if not self._depth:
            self.flow = True

    def visit_Await(self, node: cst.Await) -> None:
        if not self._depth:
            self.flow = True

    def visit_For(self, node: cst.For) -> None:
        if node.asynchronous is not None:
            self.flow = True

    def visit_With(self, node: cst.With) -> None:
        if node.asynchronous is not None:
            self.flow = True

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self._bind(node.name.value)
        for decorator in node.decorators:
            decorator.visit(self)
        self._depth += 1
        node.params.visit(self)
        node.body.visit(self)
        self._depth -= 1
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self._bind(node.name.value)
        for decorator in node.decorators:
            decorator.visit(self)
        for arg in (*node.bases, *node.keywords):
            arg.visit(self)
        self._depth += 1
        node.body.visit(self)
        self._depth -= 1
        return False

    def _enter_nested(self, node: cst.CSTNode) -> None:
        self._depth += 1

    def _leave_nested(self, original_node: cst.CSTNode) -> None:
        self._depth -= 1

    # Lambdas and comprehensions are scopes of their own.
    visit_Lambda = visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _enter_nested
    leave_Lambda = leave_ListComp = leave_SetComp = leave_DictComp = leave_GeneratorExp = _leave_nested


def name_use(src: Source, nodes: Iterable[cst.CSTNode]) -> _NameUse:
    use = _NameUse(src.contexts)
    for node in nodes:
        node.visit(use)
    return use


def param_names(node: cst.FunctionDef) -> list[str]:
    params = node.params
    names = [p.name.value for p in (*params.posonly_params, *params.params)]
    if isinstance(params.star_arg, cst.Param):
        names.append(params.star_arg.name.value)
    names.extend(p.name.value for p in params.kwonly_params)
    if params.star_kwarg is not None:
        names.append(params.star_kwarg.name.value)
    return names


def body_of(node: cst.FunctionDef) -> tuple[Sequence[cst.BaseStatement], int]:
    """A function's statements and the index of the first one that is not its docstring."""
    if not isinstance(node.body, cst.IndentedBlock):
        return (), 0
    stmts = node.body.body
    return stmts, 1 if stmts and _is_docstring(stmts[0]) else 0


T = TypeVar("T")
N = TypeVar("N", bound=cst.CSTNode)


def shuffled(rng: random.Random, items: Iterable[T]) -> list[T]:
    out = list(items)
    rng.shuffle(out)
    return out


def swap(root: N, mapping: Mapping[cst.CSTNode, cst.CSTNode]) -> N:
    """Return `root` with the given (original, non-nested) nodes inside it replaced."""
    result: cst.CSTNode = root
    for old, new in mapping.items():
        result = result.deep_replace(old, new)
    assert isinstance(result, type(root))
    return result


class _SimpleLines(cst.CSTVisitor):
    """One-statement lines of a function at any depth (not in nested defs or classes), with their block's size."""

    def __init__(self, root: cst.FunctionDef) -> None:
        self.root = root
        self.found: list[tuple[cst.SimpleStatementLine, int]] = []

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        for index, stmt in enumerate(node.body):
            one = isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1
            if one and not (index == 0 and _is_docstring(stmt)):
                assert isinstance(stmt, cst.SimpleStatementLine)
                self.found.append((stmt, len(node.body)))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return node is self.root

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False


@dataclass(frozen=True, eq=False)
class Line:
    """A one-statement line somewhere in a region, and how to put a changed copy back."""

    path: Path
    node: cst.SimpleStatementLine
    block_size: int
    site: Site | None

    def region(self, src: Source, new_line: cst.BaseStatement) -> Stmts:
        if self.site is None:
            return (new_line,)
        return (swap(self.site.node, {self.node: new_line}),)

    def where(self, src: Source) -> str:
        owner = (
            f"in {self.site.qualname}" if self.site else "at top level" if len(self.path) == 1 else "in a class body"
        )
        return f"line {src.line(self.node)} {owner}"


def function_lines(site: Site) -> list[Line]:
    visitor = _SimpleLines(site.node)
    site.node.visit(visitor)
    return [Line(site.path, line, size, site) for line, size in visitor.found]


def all_lines(src: Source) -> list[Line]:
    """One-statement lines everywhere: in functions, at top level, and in class bodies."""
    lines = [line for site in src.functions for line in function_lines(site)]
    body = src.module.body
    for i, stmt in enumerate(body):
        if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and not _is_docstring(stmt):
            lines.append(Line((i,), stmt, len(body), None))
    for path, _ in src.classes:
        members = src.container(path)
        for j, member in enumerate(members):
            if isinstance(member, cst.SimpleStatementLine) and len(member.body) == 1 and not _is_docstring(member):
                lines.append(Line(path + (j,), member, len(members), None))
    return lines


# -- cosmetic rewrites (the AST stays the same) -------------------------------------


class _Strings(cst.CSTVisitor):
    """Plain string literals, not the ones inside f-strings (quotes there are constrained)."""

    def __init__(self) -> None:
        self.found: list[cst.SimpleString] = []

    def visit_FormattedString(self, node: cst.FormattedString) -> bool:
        return False

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        self.found.append(node)


def strings_in(node: cst.CSTNode) -> list[cst.SimpleString]:
    visitor = _Strings()
    node.visit(visitor)
    return visitor.found


def requoted(node: cst.SimpleString) -> cst.SimpleString | None:
    """``'x'`` <-> ``"x"`` when the content needs no escaping either way."""
    quote = node.quote
    if len(quote) != 1:
        return None
    other = "'" if quote == '"' else '"'
    content = node.raw_value
    if other in content or "\\" in content:
        return None
    return node.with_changes(value=f"{node.prefix}{other}{content}{other}")


def revised(node: cst.SimpleString, side_word: str) -> cst.SimpleString | None:
    """The same kind of literal with different content: a real change."""
    quote = node.quote
    if len(quote) != 1 or "b" in node.prefix.lower():
        return None
    return node.with_changes(value=f"{node.prefix}{quote}{node.raw_value} ({side_word}){quote}")


def _newline(extra: str) -> cst.ParenthesizedWhitespace:
    return cst.ParenthesizedWhitespace(
        first_line=cst.TrailingWhitespace(), empty_lines=(), indent=True, last_line=cst.SimpleWhitespace(extra)
    )


def rewrapped(src: Source, line: cst.SimpleStatementLine) -> cst.SimpleStatementLine | None:
    """A one-line call with 2+ arguments, re-wrapped one argument per line (black style)."""
    small = line.body[0]
    value = getattr(small, "value", None)
    if not isinstance(small, cst.Expr | cst.Assign | cst.Return) or not isinstance(value, cst.Call):
        return None
    if len(value.args) < 2 or "\n" in src.module.code_for_node(value):
        return None
    args = list(value.args)
    wrapped = [
        arg.with_changes(
            comma=cst.Comma(whitespace_after=_newline(src.indent if k < len(args) - 1 else "")),
            whitespace_after_arg=cst.SimpleWhitespace(""),
        )
        for k, arg in enumerate(args)
    ]
    call = value.with_changes(whitespace_before_args=_newline(src.indent), args=wrapped)
    return swap(line, {value: call})


COMMENTS = {
    OURS: ("keep in step with the callers", "checked against the documentation"),
    THEIRS: ("see the module docstring", "order matters here"),
}


def cosmetic_versions(
    src: Source, line: cst.SimpleStatementLine, side: str
) -> list[tuple[str, cst.SimpleStatementLine]]:
    """Every cosmetic rewrite that applies to a line: (what, new line)."""
    out: list[tuple[str, cst.SimpleStatementLine]] = []
    for string in strings_in(line):
        other = requoted(string)
        if other is not None:
            out.append((f"re-quotes {string.value[:30]}", swap(line, {string: other})))
            break
    text = COMMENTS[side][0]
    trailing = line.trailing_whitespace
    if trailing.comment is None:
        comment = trailing.with_changes(whitespace=cst.SimpleWhitespace("  "), comment=cst.Comment(f"# {text}"))
        out.append(("adds a trailing comment", line.with_changes(trailing_whitespace=comment)))
        ignore = trailing.with_changes(whitespace=cst.SimpleWhitespace("  "), comment=cst.Comment("# type: ignore"))
        out.append(("adds # type: ignore", line.with_changes(trailing_whitespace=ignore)))
    else:
        changed = trailing.with_changes(comment=cst.Comment(f"{trailing.comment.value} ({text})"))
        out.append(("changes the trailing comment", line.with_changes(trailing_whitespace=changed)))
    above = cst.EmptyLine(comment=cst.Comment(f"# {COMMENTS[side][1]}"))
    out.append(("adds a comment above", line.with_changes(leading_lines=(*line.leading_lines, above))))
    wrapped = rewrapped(src, line)
    if wrapped is not None:
        out.append(("re-wraps a call over lines", wrapped))
    return out


# -- generators: one edit on one side ------------------------------------------------

Generator = Callable[[Source, random.Random, Namer, str], Iterator[Edit]]


def gen_add_method(src: Source, rng: random.Random, namer: Namer, side: str) -> Iterator[Edit]:
    for path, cls in shuffled(rng, src.classes):
        members = src.container(path)
        gaps = [j + 1 for j, m in enumerate(members) if isinstance(m, cst.FunctionDef)] or [len(members)]
        gap = rng.choice(gaps)
        name = namer.fresh(rng.choice(WORDS[side]))
        stmt = parse_def(rng.choice(METHOD_TEMPLATES).format(name=name), 1)
        where = f"class {cls.name.value} (line {src.line(cls)}): new method {name} after member {gap}"
        yield Edit("add_method", where, gap_footprint(path, gap, len(members)), insert={(path, gap): (stmt,)})


class _Renamer(cst.CSTTransformer):
    def __init__(self, src: Source, old: str, new: str, keywords: set[cst.Name]) -> None:
        self.src, self.old, self.new, self.keywords = src, old, new, keywords

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        if (
            original_node.value == self.old
            and original_node not in self.keywords
            and self.src.contexts.get(original_node) is not None
        ):
            return updated_node.with_changes(value=self.new)
        return updated_node


def gen_rename_local(src: Source, rng: random.Random, namer: Namer, side: str) -> Iterator[Edit]:
    for site in shuffled(rng, src.functions):
        stmts, _ = body_of(site.node)
        use = name_use(src, stmts)
        if not stmts or use.scope_hazard:
            continue
        exclude = set(param_names(site.node)) | use.nested_names | use.import_bound | {site.node.name.value}
        candidates = sorted(use.stores - exclude)
        if not candidates:
            continue
        old = rng.choice(candidates)
        new = namer.fresh(RENAMES.get(old, f"{old}_{'local' if side == OURS else 'value'}"))
        body = site.node.body.visit(_Renamer(src, old, new, use.keywords))
        assert isinstance(body, cst.BaseSuite)
        renamed = site.node.with_changes(body=body)
        where = f"{site.qualname} ({src.lines(site.node)}): local {old} -> {new}"
        yield Edit("rename_local", where, frozenset({site.path}), replace={site.path: (renamed,)})


def gen_delete_function(src: Source, rng: random.Random, namer: Namer, side: str) -> Iterator[Edit]:
    for site in shuffled(rng, src.functions):
        name = site.node.name.value
        if src.identifiers[name] != 1 or len(src.container(site.path[:-1])) < 2:
            continue  # referenced somewhere (even in a string), or the only member
        where = f"deletes {site.qualname} ({src.lines(site.node)})"
        yield Edit("delete_function", where, frozenset({site.path}), replace={site.path: ()})


WRAPPABLE = (cst.Expr, cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Return, cst.Raise)


def _wrappable(line: Line) -> bool:
    small = line.node.body[0]
    if isinstance(small, cst.AnnAssign) and small.value is None:
        return False
    if isinstance(small, cst.Expr) and isinstance(small.value, cst.SimpleString | cst.ConcatenatedString):
        return False
    return isinstance(small, WRAPPABLE)


def _plain_imports(src: Source) -> set[str]:
    """Module names bound by a top-level ``import x`` (no alias, no dots)."""
    bound: set[str] = set()
    for stmt in src.module.body:
        if isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], cst.Import):
            for alias in stmt.body[0].names:
                if alias.asname is None and isinstance(alias.name, cst.Name):
                    bound.add(alias.name.value)
    return bound


def _import_statement(src: Source, gap: int, code: str) -> cst.BaseStatement:
    stmt = cst.parse_statement(code)
    body = src.module.body
    first_after_doc = gap == 1 and _is_docstring(body[0])
    return stmt.with_changes(leading_lines=_blank(1 if first_after_doc else 0))


def _wrap(kind: str, line: cst.SimpleStatementLine, test: str, context: str) -> cst.BaseStatement:
    inner = line.with_changes(leading_lines=())
    if kind == "wrap_if_else":
        template = cst.parse_statement(f"if {test}:\n    pass\nelse:\n    pass\n")
        assert isinstance(template, cst.If) and isinstance(template.orelse, cst.Else)
        orelse = template.orelse.with_changes(body=template.orelse.body.with_changes(body=[inner]))
        wrapped: cst.BaseCompoundStatement = template.with_changes(
            body=template.body.with_changes(body=[inner]), orelse=orelse
        )
    elif kind == "wrap_if":
        template = cst.parse_statement(f"if {test}:\n    pass\n")
        assert isinstance(template, cst.If)
        wrapped = template.with_changes(body=template.body.with_changes(body=[inner]))
    elif kind == "wrap_try":
        template = cst.parse_statement("try:\n    pass\nexcept (OSError, ValueError):\n    raise\n")
        assert isinstance(template, cst.Try)
        wrapped = template.with_changes(body=template.body.with_changes(body=[inner]))
    else:
        template = cst.parse_statement(f"with {context}:\n    pass\n")
        assert isinstance(template, cst.With)
        wrapped = template.with_changes(body=template.body.with_changes(body=[inner]))
    return wrapped.with_changes(leading_lines=line.leading_lines)


def _wrap_generator(kind: str) -> Generator:
    def generate(src: Source, rng: random.Random, namer: Namer, side: str) -> Iterator[Edit]:
        for site in shuffled(rng, src.functions):
            lines = [line for line in function_lines(site) if _wrappable(line)]
            if not lines:
                continue
            line = rng.choice(lines)
            params = [p for p in param_names(site.node) if p not in ("self", "cls")]
            test = f"{params[0]} is not None" if params and rng.random() < 0.5 else "__debug__"
            footprint = {site.path}
            insert: dict[Gap, Stmts] = {}
            plain = _plain_imports(src)
            if "contextlib" in plain:
                context = "contextlib.nullcontext()"
            elif "warnings" in plain:
                context = "warnings.catch_warnings()"
            else:
                context = "contextlib.nullcontext()"
                if kind == "wrap_with":
                    if src.identifiers["contextlib"]:  # named otherwise (from contextlib import ...)
                        continue
                    gap = src.import_gap()
                    insert[((), gap)] = (_import_statement(src, gap, "import contextlib\n"),)
                    footprint |= gap_footprint((), gap, len(src.module.body))
            new = swap(site.node, {line.node: _wrap(kind, line.node, test, context)})
            what = {"wrap_if_else": f"if {test}/else", "wrap_if": f"if {test}", "wrap_try": "try/except"}.get(
                kind, f"with {context}"
            )
            where = f"{line.where(src)}: wrapped in {what}" + (" (and imports contextlib)" if insert else "")
            yield Edit(kind, where, frozenset(footprint), replace={site.path: (new,)}, insert=insert)

    return generate


def _decorator_names(node: cst.FunctionDef) -> set[str]:
    names: set[str] = set()
    for decorator in node.decorators:
        target = decorator.decorator
        if isinstance(target, cst.Call):
            target = target.func
        if isinstance(target, cst.Name | cst.Attribute):
            names.add(_dotted(target).rsplit(".", 1)[-1])
    return names


def _strip_blank(lines: Sequence[cst.EmptyLine]) -> tuple[cst.EmptyLine, ...]:
    keep = list(lines)
    while keep and keep[0].comment is None:
        keep.pop(0)
    return tuple(keep)


def gen_extract_helper(src: Source, rng: random.Random, namer: Namer, side: str) -> Iterator[Edit]:
    """Move 2+ consecutive statements of a function body into a new helper, passing locals in and results out."""
    for site in shuffled(rng, src.functions):
        node = site.node
        method = site.owner is not None
        params = param_names(node)
        if method and (not params or params[0] != "self" or _decorator_names(node) & {"staticmethod", "classmethod"}):
            continue
        stmts, start = body_of(node)
        if len(stmts) - start < 2:
            continue
        uses = [name_use(src, [stmt]) for stmt in stmts]
        if any(use.scope_hazard for use in uses):
            continue
        local = set(params).union(*(use.stores for use in uses))
        spans = [(s, n) for s in range(start, len(stmts)) for n in range(2, 7) if s + n <= len(stmts)]
        for s, n in shuffled(rng, spans)[:12]:
            block = uses[s : s + n]
            if any(use.flow for use in block):
                continue
            before = set(params).union(*(use.stores for use in uses[:s]))
            reads = set().union(*(use.loads for use in block)) & local
            writes = set().union(*(use.stores for use in block))
            after = set().union(*(use.loads for use in uses[s + n :]))
            if reads - before - writes:
                continue  # reads a local that is not bound yet
            outputs = sorted(writes & after)
            inputs = sorted(((reads | set(outputs)) & before) - ({"self"} if method else set()))
            stem = node.name.value.strip("_") or "block"
            helper_name = namer.fresh(f"_{stem}_{'prepare' if side == OURS else 'step'}")
            call = f"{'self.' if method else ''}{helper_name}({', '.join(inputs)})"
            call_stmt = cst.parse_statement(f"{', '.join(outputs)} = {call}\n" if outputs else f"{call}\n")
            moved = list(stmts[s : s + n])
            first = moved[0]
            assert isinstance(first, cst.SimpleStatementLine | cst.BaseCompoundStatement)
            moved[0] = first.with_changes(leading_lines=_strip_blank(first.leading_lines))
            if outputs:
                moved.append(cst.parse_statement(f"return {', '.join(outputs)}\n"))
            signature = ", ".join((["self"] if method else []) + inputs)
            helper = cst.parse_statement(f"def {helper_name}({signature}):\n    pass\n")
            assert isinstance(helper, cst.FunctionDef)
            helper = helper.with_changes(
                body=helper.body.with_changes(body=moved), leading_lines=_blank(1 if method else 2)
            )
            caller = node.with_changes(body=node.body.with_changes(body=[*stmts[:s], call_stmt, *stmts[s + n :]]))
            container, index = site.path[:-1], site.path[-1]
            footprint = frozenset({site.path}) | gap_footprint(container, index + 1, len(src.container(container)))
            where = f"{site.qualname} ({src.lines(node)}): statements {s + 1}-{s + n} of its body -> {helper_name}()"
            yield Edit(
                "extract_helper",
                where,
                footprint,
                replace={site.path: (caller,)},
                insert={(container, index + 1): (helper,)},
            )
            break


def gen_move_function(src: Source, rng: random.Random, namer: Namer, side: str) -> Iterator[Edit]:
    """Move a function (or a method, within its class) to before another def or class."""
    for site in shuffled(rng, src.functions):
        name = site.node.name.value
        if name in src.import_time_names:
            continue  # used while the module is imported: its position matters
        container_path, index = site.path[:-1], site.path[-1]
        container = src.container(container_path)
        same_name = [s for s in container if isinstance(s, cst.FunctionDef) and s.name.value == name]
        if len(same_name) != 1:
            continue
        header = _ImportTimeNames()
        site.node.visit(header)
        spots = [
            g
            for g, stmt in enumerate(container)
            if isinstance(stmt, cst.FunctionDef | cst.ClassDef)
            and g not in (index, index + 1)
            and any(line.comment is None for line in stmt.leading_lines)  # a blank line to land after
        ]
        later = [g for g in spots if g > index]
        earlier = [g for g in spots if g < index] if not header.names - BUILTINS else []
        if not later and not earlier:
            continue
        gap = rng.choice(later or earlier)
        target = container[gap]
        assert isinstance(target, cst.FunctionDef | cst.ClassDef)
        footprint = frozenset({site.path}) | gap_footprint(container_path, gap, len(container))
        where = (
            f"moves {site.qualname} ({src.lines(site.node)}) to before {target.name.value} (line {src.line(target)})"
        )
        yield Edit(
            "move_function",
            where,
            footprint,
            replace={site.path: ()},
            insert={(container_path, gap): (site.node,)},
        )


def gen_cosmetic(src: Source, rng: random.Random, namer: Namer, side: str) -> Iterator[Edit]:
    for line in shuffled(rng, all_lines(src))[:40]:
        versions = cosmetic_versions(src, line.node, side)
        what, new_line = rng.choice(versions)
        where = f"{line.where(src)}: {what}"
        yield Edit(
            "cosmetic", where, frozenset({line.path}), replace={line.path: line.region(src, new_line)}, cosmetic=True
        )


SOLO: dict[str, Generator] = {
    "add_method": gen_add_method,
    "rename_local": gen_rename_local,
    "delete_function": gen_delete_function,
    "wrap_if_else": _wrap_generator("wrap_if_else"),
    "wrap_if": _wrap_generator("wrap_if"),
    "wrap_try": _wrap_generator("wrap_try"),
    "wrap_with": _wrap_generator("wrap_with"),
    "extract_helper": gen_extract_helper,
    "move_function": gen_move_function,
    "cosmetic": gen_cosmetic,
}


# -- generators: both sides at once ---------------------------------------------------


@dataclass(frozen=True, eq=False)
class Pair:
    """Edits made by each side together; `expected` None means the right merge is a conflict."""

    ours: tuple[Edit, ...]
    theirs: tuple[Edit, ...]
    expected: tuple[Edit, ...] | None


PairGenerator = Callable[[Source, random.Random, Namer], Iterator[Pair]]


def _oriented(rng: random.Random, first: Edit, second: Edit, expected: tuple[Edit, ...] | None) -> Pair:
    if rng.random() < 0.5:
        return Pair((first,), (second,), expected)
    return Pair((second,), (first,), expected)


def gen_append_end(src: Source, rng: random.Random, namer: Namer) -> Iterator[Pair]:
    ours = append_function(src, rng, namer, OURS)
    theirs = append_function(src, rng, namer, THEIRS)
    yield Pair((ours,), (theirs,), (ours, theirs))


@lru_cache(maxsize=256)
def public_names(module: str) -> tuple[str, ...]:
    """Public top-level defs and classes of a standard-library module, read from its source."""
    root = FilePath(sysconfig.get_paths()["stdlib"])
    parts = module.split(".")
    for path in (root.joinpath(*parts).with_suffix(".py"), root.joinpath(*parts, "__init__.py")):
        if path.is_file():
            try:
                tree = cst.parse_module(path.read_text(encoding="utf-8"))
            except (cst.ParserSyntaxError, UnicodeDecodeError):
                return ()
            return tuple(
                sorted(
                    stmt.name.value
                    for stmt in tree.body
                    if isinstance(stmt, cst.FunctionDef | cst.ClassDef) and not stmt.name.value.startswith("_")
                )
            )
    return ()


def _from_imports(src: Source) -> list[tuple[Path, cst.ImportFrom, list[str]]]:
    """Top-level ``from x import a, b`` (2+ names) of a stdlib module, with names x has that we could add."""
    found: list[tuple[Path, cst.ImportFrom, list[str]]] = []
    for i, stmt in enumerate(src.module.body):
        if not isinstance(stmt, cst.SimpleStatementLine) or not isinstance(stmt.body[0], cst.ImportFrom):
            continue
        node = stmt.body[0]
        if node.relative or node.module is None or isinstance(node.names, cst.ImportStar) or len(node.names) < 2:
            continue
        separator = node.names[0].comma
        if not isinstance(separator, cst.Comma) or "#" in cst.Module([]).code_for_node(separator):
            continue
        module = _dotted(node.module)
        if module == "__future__":
            continue
        candidates = [n for n in public_names(module) if n not in src.identifiers]
        if candidates:
            found.append(((i,), node, candidates))
    return found


# Nobody adds an import of these today: jokes, and modules deprecated by PEP 594 or on their way out.
UNLIKELY_IMPORTS = frozenset(
    [
        "this",
        "antigravity",
        "aifc",
        "audioop",
        "cgi",
        "cgitb",
        "chunk",
        "crypt",
        "imghdr",
        "mailcap",
        "msilib",
        "nis",
        "nntplib",
        "ossaudiodev",
        "pipes",
        "sndhdr",
        "spwd",
        "sunau",
        "telnetlib",
        "uu",
        "xdrlib",
        "asynchat",
        "asyncore",
        "imp",
        "distutils",
        "smtpd",
        "lib2to3",
    ]
)


def gen_add_imports(src: Source, rng: random.Random, namer: Namer) -> Iterator[Pair]:
    """Both sides add different imports: new statements after the last import, names in ``from x import a, b``."""
    gap = src.import_gap()
    size = len(src.module.body)
    own = src.name.split(".")[0]
    modules = [
        m
        for m in sorted(sys.stdlib_module_names)
        if m.isidentifier() and not m.startswith("_") and m not in src.identifiers and m not in (*UNLIKELY_IMPORTS, own)
    ]
    from_imports = _from_imports(src)

    def statement(side: str) -> Edit:
        choices = [m for m in modules if m not in namer.taken]
        module = rng.choice(choices)
        namer.taken.add(module)
        stmt = _import_statement(src, gap, f"import {module}\n")
        return Edit(
            "add_imports",
            f"import {module} after line {gap}",
            gap_footprint((), gap, size),
            insert={((), gap): (stmt,)},
        )

    def name(path: Path, node: cst.ImportFrom, candidates: list[str], last: bool) -> Edit | None:
        assert not isinstance(node.names, cst.ImportStar)
        existing = [_alias_name(a) for a in node.names]
        free = [c for c in candidates if c not in namer.taken]
        if last:  # both sides add to the same import: names that sort after every existing one
            free = [c for c in free if c > max(existing)]
        if not free:
            return None
        added = rng.choice(free)
        namer.taken.add(added)
        where = f"adds {added} to `from {_dotted(node.module or cst.Name('_'))} import` (line {src.line(node)})"
        return Edit("add_imports", where, frozenset({path}), add_names={path: (added,)})

    scenarios = ["statement+statement"]
    if from_imports:
        scenarios += ["statement+name", "name+statement", "name+name"]
    for scenario in shuffled(rng, scenarios):
        if scenario == "statement+statement":
            ours, theirs = statement(OURS), statement(THEIRS)
            yield Pair((ours,), (theirs,), (ours, theirs))
            continue
        path, node, candidates = rng.choice(from_imports)
        if scenario == "name+name":
            # the two names are taken in sorted order so that "ours first" and "kept sorted" agree
            a, b = name(path, node, candidates, True), name(path, node, candidates, True)
            if a is None or b is None:
                continue
            first, second = sorted((a, b), key=lambda e: e.add_names[path][0])
            yield Pair((first,), (second,), (first, second))
            continue
        added = name(path, node, candidates, False)
        if added is None:
            continue
        new = statement(THEIRS if scenario == "name+statement" else OURS)
        if scenario == "name+statement":
            yield Pair((added,), (new,), (added, new))
        else:
            yield Pair((new,), (added,), (new, added))


def _remove_element(node: N, elements: Sequence[cst.BaseElement], k: int) -> N:
    kept = [e for i, e in enumerate(elements) if i != k]
    if k == len(elements) - 1 and kept:
        kept[-1] = kept[-1].with_changes(comma=elements[-1].comma)
    return node.with_changes(elements=kept)


class _Sequences(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found: list[cst.List | cst.Tuple | cst.Set] = []

    def visit_FormattedString(self, node: cst.FormattedString) -> bool:
        return False

    def _add(self, node: cst.List | cst.Tuple | cst.Set) -> None:
        elements = node.elements
        plain = len(elements) >= 2 and all(isinstance(e, cst.Element) for e in elements)
        if plain and any(isinstance(e.value, cst.SimpleString) and requoted(e.value) for e in elements):
            self.found.append(node)

    def visit_List(self, node: cst.List) -> None:
        self._add(node)

    def visit_Tuple(self, node: cst.Tuple) -> None:
        self._add(node)

    def visit_Set(self, node: cst.Set) -> None:
        self._add(node)


def gen_cosmetic_vs_real(src: Source, rng: random.Random, namer: Namer) -> Iterator[Pair]:
    """One side deletes or replaces a statement (or a list element); the other only re-quotes or re-comments it."""
    for line in shuffled(rng, all_lines(src))[:60]:
        small = line.node.body[0]
        real_side = rng.choice((OURS, THEIRS))
        cosmetic_side = THEIRS if real_side == OURS else OURS
        # (what the real side does, its new line or None for a deletion, (what the cosmetic side does, its line))
        options: list[tuple[str, cst.BaseStatement | None, tuple[str, cst.SimpleStatementLine]]] = []
        # a list element replaced or deleted, that element re-quoted
        sequences = _Sequences()
        line.node.visit(sequences)
        for seq in sequences.found[:1]:
            elements = list(seq.elements)
            k = rng.choice(
                [i for i, e in enumerate(elements) if isinstance(e.value, cst.SimpleString) and requoted(e.value)]
            )
            value = elements[k].value
            assert isinstance(value, cst.SimpleString)
            quoted = requoted(value)
            assert quoted is not None
            cosmetic = (f"re-quotes {value.value[:30]}", swap(line.node, {value: quoted}))
            new_value = revised(value, real_side)
            if new_value is not None and rng.random() < 0.5:
                options.append((f"replaces element {value.value[:30]}", swap(line.node, {value: new_value}), cosmetic))
            else:
                options.append(
                    (
                        f"deletes element {value.value[:30]}",
                        swap(line.node, {seq: _remove_element(seq, elements, k)}),
                        cosmetic,
                    )
                )
        # a statement deleted or a literal in it replaced, the statement re-quoted or re-commented
        versions = cosmetic_versions(src, line.node, cosmetic_side)
        if isinstance(small, cst.Expr | cst.Assign | cst.AugAssign | cst.AnnAssign) and line.block_size >= 2:
            options.append(("deletes the statement", None, rng.choice(versions)))
        for string in strings_in(line.node)[:1]:
            new_string = revised(string, real_side)
            if new_string is not None:
                quoted = requoted(string)
                if quoted is not None:
                    cosmetic = (f"re-quotes {string.value[:30]}", swap(line.node, {string: quoted}))
                else:
                    cosmetic = rng.choice(versions)
                options.append((f"replaces {string.value[:30]}", swap(line.node, {string: new_string}), cosmetic))
        if not options:
            continue
        what, real_line, (cosmetic_what, cosmetic_line) = rng.choice(options)
        replaced = () if real_line is None else line.region(src, real_line)
        real = Edit(
            "cosmetic_vs_real",
            f"{line.where(src)}: real, {what}",
            frozenset({line.path}),
            replace={line.path: replaced},
        )
        cosmetic_edit = Edit(
            "cosmetic_vs_real",
            f"{line.where(src)}: cosmetic only, {cosmetic_what}",
            frozenset({line.path}),
            replace={line.path: line.region(src, cosmetic_line)},
            cosmetic=True,
        )
        if real_side == OURS:
            yield Pair((real,), (cosmetic_edit,), (real,))
        else:
            yield Pair((cosmetic_edit,), (real,), (real,))


class _NameCount(cst.CSTVisitor):
    def __init__(self, name: str) -> None:
        self.name = name
        self.count = 0

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.name:
            self.count += 1


def _count_name(node: cst.CSTNode, name: str) -> int:
    counter = _NameCount(name)
    node.visit(counter)
    return counter.count


def _import_removals(src: Source, rng: random.Random) -> Iterator[tuple[str, Edit]]:
    """Remove an import of a name used nowhere else, or whose only user (a small function) goes too."""
    imports: list[tuple[int, cst.SimpleStatementLine, int, str]] = []
    for i, stmt in enumerate(src.module.body):
        if not isinstance(stmt, cst.SimpleStatementLine) or not isinstance(stmt.body[0], cst.Import | cst.ImportFrom):
            continue
        node = stmt.body[0]
        if isinstance(node, cst.ImportFrom) and (
            isinstance(node.names, cst.ImportStar) or (node.module is not None and _dotted(node.module) == "__future__")
        ):
            continue
        assert not isinstance(node.names, cst.ImportStar)
        for k, alias in enumerate(node.names):
            target = alias.asname.name if alias.asname else alias.name
            if isinstance(target, cst.Name | cst.Attribute):
                imports.append((i, stmt, k, _dotted(target).split(".")[0]))
    total = Counter(bound for _, _, _, bound in imports)
    for i, stmt, k, bound in shuffled(rng, imports):
        names_in_module = _count_name(src.module, bound)
        if total[bound] != 1 or bound in src.undefined or src.identifiers[bound] != names_in_module:
            continue  # bound twice, or mentioned in a string (``__all__``, getattr): not safe to remove
        statement = stmt.body[0]
        assert isinstance(statement, cst.Import | cst.ImportFrom) and not isinstance(statement.names, cst.ImportStar)
        own = _count_name(stmt, bound)
        replace: dict[Path, Stmts] = {}
        users = []
        if names_in_module > own:
            users = [
                site
                for site in src.functions
                if _count_name(site.node, bound) == names_in_module - own
                and src.identifiers[site.node.name.value] == 1
                and not site.node.name.value.startswith("__")
                and src.positions[site.node].end.line - src.positions[site.node].start.line < 40
                and len(src.container(site.path[:-1])) >= 2
            ]
            if not users:
                continue
            replace[users[0].path] = ()
        if len(statement.names) == 1:
            replace[(i,)] = ()
        else:
            replace[(i,)] = (stmt.with_changes(body=[_remove_names(statement, k)]),)
        where = f"removes import {bound} (line {src.line(stmt)})"
        if users:
            where += f" and {users[0].qualname}, its only user"
        yield bound, Edit("removed_import_vs_use", where, frozenset(replace), replace=replace)


def _definition_renames(src: Source, rng: random.Random, namer: Namer) -> Iterator[tuple[str, Edit]]:
    """Rename a top-level def or class and every use of it (the old name disappears, as with an import)."""
    keywords = name_use(src, [src.module]).keywords
    for site in shuffled(rng, [s for s in src.functions if len(s.path) == 1]):
        old = site.node.name.value
        names = _count_name(src.module, old)
        if src.identifiers[old] != names or any(k.value == old for k in keywords) or old in src.undefined:
            continue  # also an attribute, a keyword or a word in a string
        stores = [n for n, c in src.contexts.items() if isinstance(n, cst.Name) and n.value == old and c is not None]
        if len(stores) != names or sum(src.contexts[n] is ExpressionContext.STORE for n in stores) != 1:
            continue  # bound again somewhere (a parameter, a local): a rename would capture it
        new = namer.fresh(f"{old.strip('_')}_renamed" if not old.startswith("_") else f"_{old.strip('_')}_renamed")
        renamer = _Renamer(src, old, new, set())
        replace: dict[Path, Stmts] = {}
        for i, stmt in enumerate(src.module.body):
            if _count_name(stmt, old):
                renamed = stmt.visit(renamer)
                assert isinstance(renamed, cst.BaseStatement)
                replace[(i,)] = (renamed,)
        where = f"renames {old} (line {src.line(site.node)}) to {new}, and its {names - 1} use(s)"
        yield old, Edit("removed_import_vs_use", where, frozenset(replace), replace=replace)


def gen_removed_import_vs_use(src: Source, rng: random.Random, namer: Namer) -> Iterator[Pair]:
    """One side removes an import (or renames a definition); the other adds code that uses the old name."""
    body = src.module.body
    removals = [*_import_removals(src, rng), *_definition_renames(src, rng, namer)]
    for bound, removal in removals[:12]:
        spots = [g for g, s in enumerate(body) if isinstance(s, cst.FunctionDef | cst.ClassDef)] + [len(body)]
        for gap in shuffled(rng, spots):
            footprint = gap_footprint((), gap, len(body))
            if not disjoint(Edit("", "", footprint), [removal]):
                continue
            user_name = namer.fresh(f"{bound.lower().strip('_')}_for_callers")
            code = USE_TEMPLATE.format(name=user_name, used=bound)
            target = body[gap] if gap < len(body) else None
            assert target is None or isinstance(target, cst.FunctionDef | cst.ClassDef)
            spot = f"before {target.name.value} (line {src.line(target)})" if target is not None else "at the end"
            use = Edit(
                "removed_import_vs_use",
                f"adds {user_name}() using {bound} {spot}",
                footprint,
                insert={((), gap): (parse_def(code, 2),)},
            )
            if bound in undefined_names(src.render([removal, use])):
                yield _oriented(rng, removal, use, None)
            break


def _remove_names(node: cst.Import | cst.ImportFrom, k: int) -> cst.Import | cst.ImportFrom:
    names = node.names
    assert not isinstance(names, cst.ImportStar)
    kept = [a for i, a in enumerate(names) if i != k]
    if k == len(names) - 1:
        kept[-1] = kept[-1].with_changes(comma=names[-1].comma)
    return node.with_changes(names=kept)


PAIRED: dict[str, PairGenerator] = {
    "add_imports": gen_add_imports,
    "append_end": gen_append_end,
    "cosmetic_vs_real": gen_cosmetic_vs_real,
    "removed_import_vs_use": gen_removed_import_vs_use,
}

EDIT_KINDS = (*SOLO, *PAIRED)
