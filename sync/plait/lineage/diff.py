"""What differs between two copies of the client, said in terms of Python structure.

``diff -r`` shows two lineages differ on forty lines; a maintainer wants to
know that one of them has a ``uds`` branch in the dispatch, a wider
``except``, and a keyword-only ``uds_path`` parameter.  This module compares
members (functions, classes, methods, module and class constants, imports)
with `ast`, and summarises each changed member structurally, with a small
unified diff of its source for everything else.
"""

from __future__ import annotations

import ast
import difflib
import functools
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from .. import contents
from ..errors import PlaitError
from ..transforms import ImportRewrite, rewrite_tree
from ..workspace import CANONICAL, Consumer, Copy, Lineage, Workspace, read_tree

if TYPE_CHECKING:
    import libcst as cst

__all__ = [
    "CopyDiff",
    "Member",
    "MemberDiff",
    "Operand",
    "compare_files",
    "diff_copies",
    "distance",
    "members",
    "resolve_operand",
]

Status = Literal["only-a", "only-b", "changed"]

_BODY_DIFF_LINES = 14


@dataclass(frozen=True)
class Member:
    """One named part of a module: ``EmbeddingClient.embed``, ``_MODES``, ``import httpx``."""

    path: str
    kind: str
    node: ast.AST
    source: str
    module: str = field(default="", repr=False)

    def segment(self, node: ast.AST) -> str:
        """The source of *node* (inside this member) as written, quotes and all."""
        return (ast.get_source_segment(self.module, node) if self.module else None) or ast.unparse(node)

    @property
    def shape(self) -> str:
        """The member's structure without formatting or comments."""
        return ast.dump(self.node, annotate_fields=False, include_attributes=False)


@dataclass
class MemberDiff:
    """How one member differs between A and B."""

    file: str
    path: str
    status: Status
    facts: list[str] = field(default_factory=list)
    diff: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file, "path": self.path, "status": self.status, "facts": self.facts, "diff": self.diff}


@dataclass
class CopyDiff:
    """Everything that differs between copy A and copy B."""

    a: str
    b: str
    a_path: str
    b_path: str
    only_a_files: list[str] = field(default_factory=list)
    only_b_files: list[str] = field(default_factory=list)
    members: list[MemberDiff] = field(default_factory=list)
    unparsable: list[str] = field(default_factory=list)

    @property
    def same(self) -> bool:
        return not (self.only_a_files or self.only_b_files or self.members)

    def to_json(self) -> dict[str, Any]:
        return {
            "a": {"name": self.a, "path": self.a_path},
            "b": {"name": self.b, "path": self.b_path},
            "same": self.same,
            "files_only_in_a": self.only_a_files,
            "files_only_in_b": self.only_b_files,
            "members": [m.to_json() for m in self.members],
            "unparsable": self.unparsable,
        }

    def _where(self, status: Status) -> str:
        return {"only-a": f"only in {self.a}", "only-b": f"only in {self.b}", "changed": "changed"}[status]

    def text_lines(self, *, with_diff: bool = True) -> Iterator[str]:
        """One line per file or member (full node paths, grep-able); diffs indented below."""
        for name in self.only_a_files:
            yield f"{name}  <file>  only in {self.a}"
        for name in self.only_b_files:
            yield f"{name}  <file>  only in {self.b}"
        for name in self.unparsable:
            yield f"{name}  <file>  does not parse; compared as text"
        for m in self.members:
            facts = f": {'; '.join(m.facts)}" if m.facts else ""
            yield f"{m.file}  {m.path}  {self._where(m.status)}{facts}"
            if with_diff and m.status == "changed":
                yield from (f"    {line}" for line in m.diff)

    def markdown(self) -> str:
        """A report ready to paste into a pull request."""
        out = [f"### `{self.b}` compared with `{self.a}`", ""]
        if self.same:
            return "\n".join([*out, "No differences.", ""])
        files = sorted({m.file for m in self.members} | set(self.only_a_files) | set(self.only_b_files))
        for name in files:
            out += [f"#### `{name}`", ""]
            if name in self.only_a_files:
                out.append(f"- file only in `{self.a}`")
            if name in self.only_b_files:
                out.append(f"- file only in `{self.b}`")
            for m in (m for m in self.members if m.file == name):
                facts = f": {'; '.join(m.facts)}" if m.facts else ""
                out.append(f"- `{m.path}` {self._where(m.status)}{facts}")
                if m.status == "changed" and m.diff:
                    out += ["", "  ```diff", *(f"  {line}" for line in m.diff), "  ```", ""]
            out.append("")
        return "\n".join(out)


# --------------------------------------------------------------------------
# members


def members(text: str) -> dict[str, Member]:
    """The members of a module by node path; raises SyntaxError if it does not parse.

    A file in a declared encoding other than UTF-8 is read as the Unicode it declares."""
    readable = contents.python_text(text)
    if readable is None:
        raise SyntaxError("not UTF-8, and declares no encoding")
    text = readable
    tree = ast.parse(text)
    out: dict[str, Member] = {}
    _collect(tree.body, "", text, out, _Lines(text))
    return out


class _Lines:
    """The source segment of a node, as `ast.get_source_segment` gives it, from lines split once.

    `ast.get_source_segment` splits the whole module again for every node it
    is asked about, which made a module of a thousand statements cost a
    second.
    """

    _NOT_LINE_ENDS = ("\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")

    def __init__(self, text: str) -> None:
        # Python ends a line only at \r\n, \n or \r; str.splitlines also at a form feed and others.
        self.lines: list[str] = []
        pending = ""
        for piece in text.splitlines(keepends=True):
            if piece.endswith(self._NOT_LINE_ENDS):
                pending += piece
                continue
            self.lines.append(pending + piece)
            pending = ""
        if pending:
            self.lines.append(pending)

    def segment(self, node: ast.AST) -> str:
        first: int | None = getattr(node, "lineno", None)
        last: int | None = getattr(node, "end_lineno", None)
        start: int | None = getattr(node, "col_offset", None)
        end: int | None = getattr(node, "end_col_offset", None)
        if first is None or last is None or start is None or end is None:
            return ""
        head = self.lines[first - 1].encode()
        if first == last:
            return head[start:end].decode()
        middle = self.lines[first : last - 1]
        tail = self.lines[last - 1].encode()[:end].decode()
        return "".join([head[start:].decode(), *middle, tail])


def _collect(body: list[ast.stmt], prefix: str, text: str, out: dict[str, Member], lines: _Lines) -> None:
    for index, stmt in enumerate(body):
        segment = lines.segment(stmt)
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            out[prefix + stmt.name] = Member(prefix + stmt.name, "function", stmt, segment, text)
        elif isinstance(stmt, ast.ClassDef):
            # The class itself is its header (bases, keywords, decorators);
            # its docstring and members are members of their own.
            header = ast.ClassDef(
                name=stmt.name,
                bases=stmt.bases,
                keywords=stmt.keywords,
                body=[ast.Pass()],
                decorator_list=stmt.decorator_list,
            )
            out[prefix + stmt.name] = Member(prefix + stmt.name, "class", header, segment.partition(":")[0], text)
            _collect(stmt.body, f"{prefix}{stmt.name}.", text, out, lines)
        elif isinstance(stmt, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            names = [n for t in targets for n in _target_names(t)]
            for name in names or [f"<statement {index}>"]:
                out[prefix + name] = Member(prefix + name, "assignment", stmt, segment, text)
        elif isinstance(stmt, ast.Import):
            for alias in stmt.names:
                key = f"import {alias.name}" + (f" as {alias.asname}" if alias.asname else "")
                out[prefix + key] = Member(prefix + key, "import", alias, key)
        elif isinstance(stmt, ast.ImportFrom):
            module = "." * stmt.level + (stmt.module or "")
            for alias in stmt.names:
                key = f"from {module} import {alias.name}" + (f" as {alias.asname}" if alias.asname else "")
                out[prefix + key] = Member(prefix + key, "import", alias, key)
        elif _is_docstring(stmt) and index == 0:
            out[prefix + "<docstring>"] = Member(prefix + "<docstring>", "docstring", stmt, segment, text)
        elif not isinstance(stmt, ast.Pass):
            key = _unique(out, f"{prefix}<statement {_label(stmt)}>")
            out[key] = Member(key, "statement", stmt, segment, text)


def _label(stmt: ast.stmt) -> str:
    """How a statement with no name reads in a report: its first line, and for a `try`, what it tries."""
    first = ast.unparse(stmt).splitlines()[0]
    if isinstance(stmt, ast.Try | ast.TryStar) and stmt.body:
        first += " " + ast.unparse(stmt.body[0]).splitlines()[0]
    return first[:60]


def _unique(taken: Mapping[str, object], key: str) -> str:
    """*key*, or *key* numbered when another statement of the body reads the same (two `try:` blocks)."""
    if key not in taken:
        return key
    n = 2
    while f"{key[:-1]} #{n}>" in taken:
        n += 1
    return f"{key[:-1]} #{n}>"


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _target_names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Tuple | ast.List):
        return [n for elt in target.elts for n in _target_names(elt)]
    if isinstance(target, ast.Attribute):
        return [ast.unparse(target)]
    return []


# --------------------------------------------------------------------------
# comparing


def compare_files(
    a_files: Mapping[str, str], b_files: Mapping[str, str], *, a: str, b: str, a_path: str = "", b_path: str = ""
) -> CopyDiff:
    """The structural difference between two sets of files paired by name."""
    result = CopyDiff(a, b, a_path, b_path)
    result.only_a_files = sorted(set(a_files) - set(b_files))
    result.only_b_files = sorted(set(b_files) - set(a_files))
    for name in sorted(set(a_files) & set(b_files)):
        if a_files[name] == b_files[name]:
            continue
        if not name.endswith(".py"):
            result.members.append(
                MemberDiff(name, "<file>", "changed", ["content changed"], _small_diff(a_files[name], b_files[name]))
            )
            continue
        try:
            ma, mb = members(a_files[name]), members(b_files[name])
        except SyntaxError:
            result.unparsable.append(name)
            result.members.append(
                MemberDiff(name, "<file>", "changed", ["text changed"], _small_diff(a_files[name], b_files[name]))
            )
            continue
        ma, mb = _pair_statements(a_files[name], b_files[name], ma, mb)
        result.members += _compare_members(name, ma, mb)
    return result


def _pair_statements(
    a_text: str, b_text: str, ma: dict[str, Member], mb: dict[str, Member]
) -> tuple[dict[str, Member], dict[str, Member]]:
    """A's and B's members, B's statements without a name (a `try`, an `if`, a call) keyed as their partner in A.

    Their keys are only their first line, and `try:` begins many unrelated
    blocks: keyed by label alone, B's only `try` is "a change" of whichever
    of A's comes first.  So they pair as the merge pairs statements
    (`merge.match.match_sequence` over each body: keys, then the longest
    run of unchanged text, then similarity in the gaps), and one left
    without a partner is only in A or only in B.
    """
    if not any(m.kind == "statement" for m in ma.values()) or not any(m.kind == "statement" for m in mb.values()):
        return ma, mb
    import libcst as cst

    from ..merge.match import Deadline, StatementMatcher, match_sequence
    from ..merge.tree import Texts

    try:
        modules = cst.parse_module(a_text), cst.parse_module(b_text)
    except cst.ParserSyntaxError:
        return ma, mb
    texts = Texts()
    for module in modules:
        texts.capture(module)
    keys = StatementMatcher(texts, Deadline(math.inf)).keys_of
    a_at, b_at = _statements_by_line(modules[0], ma), _statements_by_line(modules[1], mb)
    partner: dict[str, str] = {}
    for a_body, b_body in _bodies(modules[0].body, modules[1].body):
        a_keys, b_keys = [a_at.get(id(x)) for x in a_body], [b_at.get(id(x)) for x in b_body]
        if not any(a_keys) or not any(b_keys):
            continue
        for i, j in match_sequence(a_body, b_body, texts, keys).items():
            a_key, b_key = a_keys[i], b_keys[j]
            if a_key is not None and b_key is not None:
                partner[b_key] = a_key
    taken: dict[str, object] = dict.fromkeys(ma)
    rekeyed: dict[str, Member] = {}
    for key, member in mb.items():
        if member.kind == "statement":
            # Paired: A's key.  Not paired: a key A's statements do not have, even if one reads the same.
            key = partner.get(key) or _unique(taken, key)
            taken[key] = None
        rekeyed[key] = member
    return ma, rekeyed


def _statements_by_line(module: cst.Module, found: Mapping[str, Member]) -> dict[int, str]:
    """For each libcst statement that `_collect` made a statement member of, that member's key (by node id).

    The two parsers see a body alike: the statement of each member starts
    on the line its `ast` node does.
    """
    import libcst as cst
    from libcst.metadata import PositionProvider

    by_line = {m.node.lineno: key for key, m in found.items() if m.kind == "statement" and isinstance(m.node, ast.stmt)}
    positions = cst.MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    out: dict[int, str] = {}
    for node, where in positions.items():
        if isinstance(node, cst.BaseStatement) and where.start.line in by_line:
            out[id(node)] = by_line[where.start.line]
    return out


def _bodies(
    a: Sequence[cst.BaseStatement], b: Sequence[cst.BaseStatement]
) -> Iterator[tuple[Sequence[cst.BaseStatement], Sequence[cst.BaseStatement]]]:
    """The module's body and each class body both versions have: the bodies `_collect` takes members from."""
    import libcst as cst

    yield a, b
    b_classes = {s.name.value: s for s in b if isinstance(s, cst.ClassDef)}
    for stmt in a:
        if not isinstance(stmt, cst.ClassDef):
            continue
        other = b_classes.get(stmt.name.value)
        if other is not None and isinstance(stmt.body, cst.IndentedBlock) and isinstance(other.body, cst.IndentedBlock):
            yield from _bodies(stmt.body.body, other.body.body)


def _compare_members(file: str, ma: Mapping[str, Member], mb: Mapping[str, Member]) -> list[MemberDiff]:
    out: list[MemberDiff] = []
    for path in ma:
        if path not in mb:
            out.append(MemberDiff(file, path, "only-a"))
    for path, member in mb.items():
        if path not in ma:
            out.append(MemberDiff(file, path, "only-b"))
            continue
        old = ma[path]
        if old.shape == member.shape:
            continue
        out.append(MemberDiff(file, path, "changed", _facts(old, member), _small_diff(old.source, member.source)))
    return out


def _small_diff(a: str, b: str) -> list[str]:
    lines = list(difflib.unified_diff(a.splitlines(), b.splitlines(), lineterm="", n=1))[2:]
    if len(lines) > _BODY_DIFF_LINES:
        lines = [*lines[:_BODY_DIFF_LINES], f"… {len(lines) - _BODY_DIFF_LINES} more diff lines"]
    return lines


def _facts(a: Member, b: Member) -> list[str]:
    """The structural changes from *a* to *b* that a reviewer cares about.

    Elements are compared by their normalised form (`ast.unparse`) and shown
    as B writes them (A for what B lacks), quotes and all.
    """
    facts: list[str] = []
    if isinstance(a.node, ast.FunctionDef | ast.AsyncFunctionDef) and isinstance(
        b.node, ast.FunctionDef | ast.AsyncFunctionDef
    ):
        facts += _parameter_facts(a, b, a.node.args, b.node.args)
        facts += _list_facts("decorator", _spelled(a, a.node.decorator_list), _spelled(b, b.node.decorator_list))
        ra, rb = _spelled(a, [a.node.returns]), _spelled(b, [b.node.returns])
        if [k for k, _ in ra] != [k for k, _ in rb]:
            facts.append(f"return annotation {_shown(ra) or 'none'} -> {_shown(rb) or 'none'}")
        facts += _branch_facts(a, b)
        facts += _except_facts(a, b)
        if isinstance(a.node, ast.AsyncFunctionDef) != isinstance(b.node, ast.AsyncFunctionDef):
            facts.append("async" if isinstance(b.node, ast.AsyncFunctionDef) else "no longer async")
        if not facts:
            facts.append("body changed")
    elif isinstance(a.node, ast.ClassDef) and isinstance(b.node, ast.ClassDef):
        facts += _list_facts("base", _spelled(a, a.node.bases), _spelled(b, b.node.bases))
        facts += _list_facts("decorator", _spelled(a, a.node.decorator_list), _spelled(b, b.node.decorator_list))
        facts = facts or ["header changed"]
    elif isinstance(a.node, ast.Assign | ast.AnnAssign) and isinstance(b.node, ast.Assign | ast.AnnAssign):
        facts += _value_facts(a, b, a.node.value, b.node.value)
    else:
        facts.append(f"{b.kind} changed")
    return facts


Spelled = list[tuple[str, str]]


def _spelled(member: Member, nodes: list[ast.expr | None] | list[ast.expr]) -> Spelled:
    """Each node as (normalised key, text as written)."""
    return [(ast.unparse(n), member.segment(n)) for n in nodes if n is not None]


def _shown(items: Spelled) -> str:
    return ", ".join(text for _, text in items)


def _list_facts(what: str, a: Spelled, b: Spelled) -> list[str]:
    ka, kb = {k for k, _ in a}, {k for k, _ in b}
    return [f"{what} {text} added" for k, text in b if k not in ka] + [
        f"{what} {text} removed" for k, text in a if k not in kb
    ]


def _parameter_facts(ma: Member, mb: Member, a: ast.arguments, b: ast.arguments) -> list[str]:
    def params(member: Member, args: ast.arguments) -> dict[str, tuple[str, str, str]]:
        out: dict[str, tuple[str, str, str]] = {}
        positional = [*args.posonlyargs, *args.args]
        defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults))
        defaults += list(args.defaults)
        for arg, default in zip(positional, defaults, strict=True):
            out[arg.arg] = ("positional", *_default(member, default))
        if args.vararg:
            out[args.vararg.arg] = ("*args", "", "")
        for arg, kw_default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
            out[arg.arg] = ("keyword-only", *_default(member, kw_default))
        if args.kwarg:
            out[args.kwarg.arg] = ("**kwargs", "", "")
        return out

    pa, pb = params(ma, a), params(mb, b)
    facts = [f"parameter {name} added ({pb[name][0]})" for name in pb if name not in pa]
    facts += [f"parameter {name} removed" for name in pa if name not in pb]
    for name in pa.keys() & pb.keys():
        if pa[name][0] != pb[name][0]:
            facts.append(f"parameter {name} {pa[name][0]} -> {pb[name][0]}")
        if pa[name][1] != pb[name][1]:
            facts.append(f"parameter {name} default {pa[name][2] or 'none'} -> {pb[name][2] or 'none'}")
    return facts


def _default(member: Member, node: ast.expr | None) -> tuple[str, str]:
    return (ast.unparse(node), member.segment(node)) if node is not None else ("", "")


def _chains(member: Member) -> list[Spelled]:
    """Every if/elif chain in *member*, as its tests."""
    chains: list[Spelled] = []
    inner: set[int] = set()
    for child in ast.walk(member.node):
        if isinstance(child, ast.If) and id(child) not in inner:
            tests: Spelled = []
            link: ast.If | None = child
            while link is not None:
                tests += _spelled(member, [link.test])
                nxt = link.orelse[0] if len(link.orelse) == 1 and isinstance(link.orelse[0], ast.If) else None
                if nxt is not None:
                    inner.add(id(nxt))
                link = nxt
            if len(tests) > 1:
                chains.append(tests)
    return chains


def _branch_facts(a: Member, b: Member) -> list[str]:
    facts: list[str] = []
    old_chains = {chain[0][0]: chain for chain in _chains(a)}
    for chain in _chains(b):
        old = old_chains.get(chain[0][0])
        if old is None:
            continue
        head = chain[0][1]
        old_keys, new_keys = {k for k, _ in old}, {k for k, _ in chain}
        facts += [f"branch {text} added to the dispatch on {head}" for k, text in chain if k not in old_keys]
        facts += [f"branch {text} removed from the dispatch on {head}" for k, text in old if k not in new_keys]
    return facts


def _handlers(member: Member) -> list[Spelled]:
    out: list[Spelled] = []
    for child in ast.walk(member.node):
        if isinstance(child, ast.Try | ast.TryStar):
            for handler in child.handlers:
                kind = handler.type
                if kind is None:
                    out.append([("<bare>", "<bare>")])
                else:
                    out.append(_spelled(member, list(kind.elts) if isinstance(kind, ast.Tuple) else [kind]))
    return out


def _except_facts(a: Member, b: Member) -> list[str]:
    facts: list[str] = []
    unmatched = _handlers(a)
    for types in _handlers(b):
        keys = {k for k, _ in types}
        best = max(unmatched, key=lambda old: len({k for k, _ in old} & keys), default=None)
        if best is None or not {k for k, _ in best} & keys:
            facts.append(f"except {_shown(types)} added")
            continue
        unmatched.remove(best)
        best_keys = {k for k, _ in best}
        added = [text for k, text in types if k not in best_keys]
        removed = [text for k, text in best if k not in keys]
        if added and not removed:
            facts.append(f"except {_shown(best)} widened: + {', '.join(added)}")
        elif removed and not added:
            facts.append(f"except {_shown(best)} narrowed: - {', '.join(removed)}")
        elif added or removed:
            facts.append(f"except {_shown(best)} -> {_shown(types)}")
    facts += [f"except {_shown(old)} removed" for old in unmatched]
    return facts


def _entries(member: Member, node: ast.Dict) -> dict[str, tuple[str, str]]:
    """key → (key as written, normalised value); ``**splats`` have no key and are left out."""
    return {
        ast.unparse(k): (member.segment(k), ast.unparse(v))
        for k, v in zip(node.keys, node.values, strict=True)
        if k is not None
    }


def _value_facts(ma: Member, mb: Member, a: ast.expr | None, b: ast.expr | None) -> list[str]:
    if isinstance(a, ast.Tuple | ast.List | ast.Set) and isinstance(b, ast.Tuple | ast.List | ast.Set):
        facts = _list_facts("entry", _spelled(ma, a.elts), _spelled(mb, b.elts))
        return facts or ["order changed"]
    if isinstance(a, ast.Dict) and isinstance(b, ast.Dict):
        ka, kb = _entries(ma, a), _entries(mb, b)
        facts = [f"key {kb[k][0]} added" for k in kb if k not in ka] + [
            f"key {ka[k][0]} removed" for k in ka if k not in kb
        ]
        facts += [f"key {kb[k][0]} changed" for k in kb if k in ka and ka[k][1] != kb[k][1]]
        return facts or ["order changed"]
    return ["value changed"]


# --------------------------------------------------------------------------
# distance (used by `plait adopt` to find the revision a fork started from)


def distance(a_files: Mapping[str, str], b_files: Mapping[str, str]) -> tuple[int, int]:
    """How far apart two sets of files are: (differing members, differing lines).

    Members first, because a fork's own additions are whole members while
    the revisions of its source differ member by member; lines break ties.
    A file on one side only counts every member and line it has.
    """
    member_count = line_count = 0
    for name in set(a_files) | set(b_files):
        a, b = a_files.get(name, ""), b_files.get(name, "")
        if a == b:
            continue
        diff = difflib.unified_diff(a.splitlines(), b.splitlines(), lineterm="", n=0)
        line_count += sum(1 for line in diff if line[:1] in "+-" and line[:3] not in ("+++", "---"))
        ma, mb = _shapes(a), _shapes(b)
        if ma is None or mb is None:
            member_count += 1
            continue
        member_count += len(ma.keys() ^ mb.keys())
        member_count += sum(1 for p in ma.keys() & mb.keys() if ma[p] != mb[p])
    return member_count, line_count


@functools.lru_cache(maxsize=1024)
def _shapes(text: str) -> dict[str, str] | None:
    """Each member's shape by node path (None: the text does not parse); `adopt` asks again
    and again about the same texts, one revision after another."""
    try:
        return {path: member.shape for path, member in members(text).items()}
    except (SyntaxError, ValueError):  # (ValueError: a NUL, in a binary file)
        return None


# --------------------------------------------------------------------------
# copies of a workspace


@dataclass(frozen=True)
class Operand:
    """One side of `plait diff`: a named copy of the workspace or a path.

    copy: the name of the canonical client, a lineage or a consumer; None for a path.
    """

    label: str
    path: str
    files: dict[str, str]
    copy: str | None = None


def resolve_operand(ws: Workspace | None, spec: str) -> Operand:
    """A copy by name (``canonical``, a lineage, a consumer), else a directory or file."""
    if ws is not None:
        if spec == CANONICAL or spec in ws.lineages:
            copy = ws.copy(spec)
            return Operand(spec, str(copy.root), ws.read_files(copy), spec)
        if spec in ws.consumers:
            consumer = ws.consumers[spec]
            ws.checkout(consumer)  # a consumer in a remote repository is cloned first, as vendor does
            if not consumer.vendor_dir.is_dir():
                raise PlaitError(
                    f"{spec} is not vendored yet; run `plait vendor {spec}`", path=str(consumer.vendor_dir)
                )
            return Operand(spec, str(consumer.vendor_dir), ws.read_files(consumer, root=consumer.vendor_dir), spec)
    path = Path(spec)
    if path.is_file():
        return Operand(spec, str(path), {path.name: contents.decode(path.read_bytes())})
    if path.is_dir():
        files = read_tree(path)
        return Operand(spec, str(path), files)
    known = f" (copies: {', '.join([CANONICAL, *ws.lineages, *ws.consumers])})" if ws is not None else ""
    raise PlaitError(f"no copy or path named {spec!r}{known}")


# One step down from a copy to what is made from it: a lineage syncs from
# its source, a consumer vendors its source.
Step = Lineage | Consumer


def _descent(ws: Workspace, ancestor: str, copy: str) -> list[Step] | None:
    """The steps from *ancestor* (exclusive) down to *copy*, if *copy* descends from it."""
    chain: list[Step] = []
    name = copy
    if name in ws.consumers and name != ancestor:
        consumer = ws.consumers[name]
        chain.append(consumer)
        name = consumer.source
    while name != ancestor:
        if name == CANONICAL or name not in ws.lineages:
            return None
        lineage = ws.lineages[name]
        chain.append(lineage)
        name = lineage.syncs_from
    return list(reversed(chain))


def _vendor_rewrite(ws: Workspace, consumer: Consumer) -> tuple[Copy, ImportRewrite]:
    """The rewrite `plait vendor` carries the consumer's source through, and that source."""
    source = ws.copy(consumer.source)
    return source, ImportRewrite.between(source.package, consumer.package, extra=consumer.renames)


def _carried(ws: Workspace, files: dict[str, str], chain: list[Step]) -> dict[str, str]:
    for step in chain:
        if isinstance(step, Lineage):
            files = step.carry(files, ws.copy(step.syncs_from))
            continue
        # As vendor sees the source: the files the consumer selects, in its namespace.
        source, rewrite = _vendor_rewrite(ws, step)
        chosen = {rel: text for rel, text in files.items() if step.selects(rel)}
        files = rewrite_tree(chosen, package=source.package, rewrite=rewrite, label=source.name)
    return files


def _as_vendored(ws: Workspace, operand: Operand) -> dict[str, str]:
    """A consumer's files through its own rewrite, as vendor reads them: a no-op for a
    copy already in the consumer's spelling, a normalisation for one copied in by hand."""
    if operand.copy is None or operand.copy not in ws.consumers:
        return operand.files
    consumer = ws.consumers[operand.copy]
    _source, rewrite = _vendor_rewrite(ws, consumer)
    return rewrite_tree(operand.files, package=consumer.package, rewrite=rewrite, label=consumer.name)


def diff_copies(ws: Workspace | None, a: str, b: str) -> CopyDiff:
    """The structural diff of copy *b* against copy *a*.

    When one copy descends from the other, the ancestor's files are first
    carried through the transforms in between, as sync and vendor carry them
    (renamed files, renamed imports, a consumer's vendored package), so that
    an import naming the same module under its new name, or a body that
    differs only by such an import, is no difference: only real ones are
    reported.  A workspace a killed run left half written is refused, not diffed.
    """
    if ws is not None:
        ws.store.refuse_if_interrupted()
    left, right = resolve_operand(ws, a), resolve_operand(ws, b)
    a_files, b_files = left.files, right.files
    if ws is not None and left.copy and right.copy:
        down = _descent(ws, left.copy, right.copy)
        up = _descent(ws, right.copy, left.copy) if down is None else None
        if down:
            a_files, b_files = _carried(ws, a_files, down), _as_vendored(ws, right)
        elif up:
            a_files, b_files = _as_vendored(ws, left), _carried(ws, b_files, up)
    elif len(a_files) == 1 and len(b_files) == 1 and left.copy is None and right.copy is None:
        # Two single files: compare them whatever their names.
        b_files = {next(iter(a_files)): next(iter(b_files.values()))}
    return compare_files(a_files, b_files, a=left.label, b=right.label, a_path=left.path, b_path=right.path)
