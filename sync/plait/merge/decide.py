"""Stage 3, decide: three-way decisions over the matched trees.

The rules, in the order they are tried for any node:
- a side that left the node as it was in base defers to the other side;
- both sides made the same change: take it once;
- otherwise descend: statement bodies, `if/elif` branches, except clauses,
  and collections (imported names, `__all__`, dict and set entries, keyword
  arguments, parameters, decorators, class bases, except tuples) merge
  element by element; what is left is a conflict.

Conflicts do not abort the merge: a statement both sides changed
irreconcilably becomes a conflict region (marked with sentinel statements
that the render stage turns into git-style markers) and everything around it
still merges.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import libcst as cst

from .conflicts import ConflictKind, MergeConflict, PendingConflict, Sentinels
from .elements import (
    Chunk,
    Region,
    Versions,
    bare,
    bracketed,
    fix_separators,
    holding,
    keep_sorted,
    ordered_chunks,
    ordered_clash,
    region_sentinel,
    subsumes,
)
from .facts import MODULE
from .insertions import insertion_dependency, sorted_imports
from .lines import merge_lines
from .match import Deadline, ElementKey, N, SideMatch, branch_pairs, each, element_policy, match_sequence
from .order import Origin, aligned, sequence_order
from .render import taking_elements
from .result import Change, Hand, Side, other
from .tree import Texts, block_body, body_keys, branch_key, describe, imported_names, nested_bodies

# Layout nodes: when both sides re-spaced the same spot differently, ours wins;
# whitespace is not worth a conflict and both versions are valid.
_LAYOUT = (cst.SimpleWhitespace, cst.ParenthesizedWhitespace, cst.Newline, cst.TrailingWhitespace, cst.Comma)


_DEFINITIONS = (cst.FunctionDef, cst.ClassDef)
# A def or a class: the two merge alike, header apart from body.
D = TypeVar("D", cst.FunctionDef, cst.ClassDef)
Stmt = cst.BaseStatement
Branch = cst.If | cst.Else

_PEP8_WIDTH = 79

_BRACKETS = frozenset({"lpar", "rpar", "lbracket", "rbracket", "lbrace", "rbrace"})


@dataclass(frozen=True)
class Scope:
    names: tuple[str, ...] = ()
    in_function: bool = False

    @property
    def path(self) -> str:
        return ".".join(self.names) or MODULE

    def enter(self, node: cst.CSTNode) -> Scope:
        if isinstance(node, cst.FunctionDef):
            return Scope((*self.names, node.name.value), True)
        if isinstance(node, cst.ClassDef):
            return Scope((*self.names, node.name.value), self.in_function)
        return self


class _BodyMapper(cst.CSTTransformer):
    """Rewrites the statement bodies directly under one compound statement."""

    def __init__(self, fn: Callable[[cst.BaseStatement], list[cst.BaseStatement]]) -> None:
        super().__init__()
        self.fn = fn

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> bool:
        return False

    def leave_IndentedBlock(
        self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock
    ) -> cst.IndentedBlock:
        body: list[cst.BaseStatement] = []
        for stmt in original_node.body:
            body.extend(self.fn(stmt))
        return updated_node.with_changes(body=body)


_PASS_BLOCK = cst.IndentedBlock(body=[cst.SimpleStatementLine(body=[cst.Pass()])])


def _headers_only(node: cst.FunctionDef | cst.ClassDef) -> cst.CSTNode:
    skeleton = node.visit(_Skeleton())
    assert isinstance(skeleton, cst.CSTNode)
    return skeleton


class _Skeleton(cst.CSTTransformer):
    """A compound statement with every body replaced by `pass`: its headers alone."""

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> bool:
        return False

    def leave_IndentedBlock(
        self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock
    ) -> cst.IndentedBlock:
        return _PASS_BLOCK


def _like(node: object, model: N) -> N:
    """*node*, which a merge of *model*'s versions made: merging never changes a node's type."""
    if not isinstance(node, type(model)):
        raise MergeConflict("invalid-result")
    return node


def _rewritten(node: N, transformer: cst.CSTTransformer) -> N:
    """*node* rewritten by a transformer that keeps it what it is."""
    return _like(node.visit(transformer), node)


def _leading_lines(stmt: cst.CSTNode) -> Sequence[cst.EmptyLine]:
    lines: Sequence[cst.EmptyLine] = getattr(stmt, "leading_lines", ())
    return lines


def _import_other_names(o: Stmt, t: Stmt) -> bool:
    """Two imports from one module that bind no name in common: two statements, kept as each side wrote it.

    Fusing `from m import b` and `from m import c` into one line writes
    code neither side wrote; only a name both import must be imported once.
    """
    on, tn = imported_names(o), imported_names(t)
    return on is not None and tn is not None and not on & tn


def _without_empty_parens(node: D, o: D, t: D) -> D:
    """A class left with no bases drops its parentheses when a side dropped them.

    The brackets follow the layout side; but `class S(object):` that one
    side made `class S:` must not come out as `class S():`, a spelling
    neither side wrote.
    """
    if not isinstance(node, cst.ClassDef) or node.bases or node.keywords:
        return node
    assert isinstance(o, cst.ClassDef) and isinstance(t, cst.ClassDef)
    if isinstance(o.lpar, cst.MaybeSentinel) or isinstance(t.lpar, cst.MaybeSentinel):
        return node.with_changes(lpar=cst.MaybeSentinel.DEFAULT, rpar=cst.MaybeSentinel.DEFAULT)
    return node


def _listed_names(node: cst.CSTNode) -> cst.BaseExpression | None:
    """The value of an assignment to `__all__` or `__slots__`: a set of names spelled as a list."""
    value: cst.BaseExpression | None
    if isinstance(node, cst.Assign) and len(node.targets) == 1:
        target, value = node.targets[0].target, node.value
    elif isinstance(node, (cst.AnnAssign, cst.AugAssign)):
        target, value = node.target, node.value
    else:
        return None
    if isinstance(target, cst.Name) and target.value in ("__all__", "__slots__"):
        return value
    return None


class Merger:
    """Holds the matched trees and walks them once, top down."""

    def __init__(
        self,
        texts: Texts,
        ours_match: SideMatch,
        theirs_match: SideMatch,
        deadline: Deadline,
        sentinels: Sentinels,
    ) -> None:
        self.texts = texts
        self.sentinels = sentinels
        self.layout: Hand = "ours"
        # Elements the layout side lacks start lines of their own (see `_narrow`).
        self.break_new = False
        self.match = {"ours": ours_match, "theirs": theirs_match}
        self.deadline = deadline
        self.pending: list[PendingConflict] = []
        # Conflicts are numbered as they are found; not every one is printed.
        self._numbers = 0
        self.commutative_ids: set[int] = set()
        # Cosmetic edits (quotes, comments, wrapping) that gave way to the
        # other side's real change, for the report.
        self.dropped: list[Change] = []

    # -- entry ---------------------------------------------------------------------
    def merge_module(self, b: cst.Module, o: cst.Module, t: cst.Module) -> cst.Module:
        scope = Scope()
        changes: dict[str, object] = {}
        for name in ("header", "footer"):
            try:
                changes[name] = self.merge_value(getattr(b, name), getattr(o, name), getattr(t, name), b, name, scope)
            except MergeConflict:
                changes[name] = getattr(o, name)
        changes["body"] = self.merge_body(b.body, o.body, t.body, scope)
        return o.with_changes(**changes)

    # -- statements ----------------------------------------------------------------
    def merge_body(self, bl: Sequence[Stmt], ol: Sequence[Stmt], tl: Sequence[Stmt], scope: Scope) -> list[Stmt]:
        self.deadline.check()
        o_map = self._local_map(bl, ol, "ours")
        t_map = self._local_map(bl, tl, "theirs")
        free: set[tuple[Origin, int]] = {("base", i) for i, b in enumerate(bl) if isinstance(b, _DEFINITIONS)}
        free |= {("theirs", j) for j, t in enumerate(tl) if isinstance(t, _DEFINITIONS) and t_map[j] is None}
        slots = sorted_imports(sequence_order(len(bl), o_map, t_map, free), (bl, ol, tl))
        b_to_o = {bi: j for j, bi in enumerate(o_map) if bi is not None}
        b_to_t = {bi: j for j, bi in enumerate(t_map) if bi is not None}

        # The same statement added on both sides is one statement: by key when
        # it has one (a def, an import), by text otherwise.
        okeys, tkeys = body_keys(ol, self.texts), body_keys(tl, self.texts)
        ours_added: dict[Hashable, int] = {}
        for j, bi in enumerate(o_map):
            if bi is None:
                ours_added.setdefault(self._add_identity(ol[j], okeys[j]), j)
        twin_of_theirs: dict[int, int] = {}
        for j, bi in enumerate(t_map):
            if bi is None:
                oj = ours_added.get(self._add_identity(tl[j], tkeys[j]))
                if oj is not None and not _import_other_names(ol[oj], tl[j]):
                    twin_of_theirs[j] = oj
        twin_of_ours = {oj: tj for tj, oj in twin_of_theirs.items()}

        entangled = self._entangled_insertions(slots, ol, tl, twin_of_theirs)
        out: list[Stmt] = []
        for kind, idx in slots:
            if (kind, idx) in entangled:
                clash = entangled[(kind, idx)]
                if clash is not None:
                    ours_part, theirs_part, why = clash
                    out.extend(self.conflict(scope.path, "order", why, ours_part, [], theirs_part))
                continue
            if kind == "base":
                b = bl[idx]
                o = ol[b_to_o[idx]] if idx in b_to_o else None
                t = tl[b_to_t[idx]] if idx in b_to_t else None
                out.extend(self.merge_statement(b, o, t, scope))
            elif kind == "ours":
                o = ol[idx]
                if idx in twin_of_ours:
                    t = tl[twin_of_ours[idx]]
                    union = self._union_imports(o, t, scope)
                    if union is not None:
                        out.append(union)
                        continue
                    if self._without_leading_lines(o) != self._without_leading_lines(t):
                        what = describe(o, self.texts) or "a statement"
                        out.extend(
                            self.conflict(
                                self._stmt_path(o, scope),
                                "add/add",
                                MergeConflict("add/add", what).reason(what),
                                [o],
                                [],
                                [t],
                            )
                        )
                        continue
                out.extend(self.emit(o, "ours", scope))
            elif idx not in twin_of_theirs:
                out.extend(self.emit(tl[idx], "theirs", scope))
        return out

    def _entangled_insertions(
        self, slots: Sequence[tuple[str, int]], ol: Sequence[Stmt], tl: Sequence[Stmt], twin_of_theirs: dict[int, int]
    ) -> dict[tuple[str, int], tuple[list[Stmt], list[Stmt], str] | None]:
        """Insertions both sides made at one point where the order ours-then-theirs is not safe.

        Ours then theirs is right only when neither insertion reads a name
        the other assigns (or both assign one name): otherwise theirs' code
        would see ours' value, which its author never ran.  Returns the slots
        of each such run: the first carries the conflict, the rest nothing.
        """
        out: dict[tuple[str, int], tuple[list[Stmt], list[Stmt], str] | None] = {}
        run: list[tuple[str, int]] = []
        shared: list[bool] = []  # for each of theirs' insertions here, twins included: whether ours made it too
        theirs_all: list[Stmt] = []
        for slot in [*slots, ("base", -1)]:
            if slot[0] != "base":
                twin = slot[0] == "theirs" and slot[1] in twin_of_theirs
                if slot[0] == "theirs":
                    shared.append(twin)
                    theirs_all.append(tl[slot[1]])
                if not twin:
                    run.append(slot)
                continue
            ours_part = [ol[j] for side, j in run if side == "ours"]
            theirs_part = [tl[j] for side, j in run if side == "theirs"]
            if ours_part and theirs_part:
                # Statements both sides inserted, first in theirs' run: theirs' own code already
                # ran after them, as it will in the merge, so only ours' other statements can surprise it.
                # (Ours' other statements are still checked against all of theirs', those included.)
                twins = shared.count(True)
                if twins and all(shared[:twins]):
                    made_too = set(twin_of_theirs.values())
                    ours_part = [ol[j] for side, j in run if side == "ours" and j not in made_too]
                    theirs_part = theirs_all
                why = insertion_dependency(self._source(ours_part), self._source(theirs_part)) if ours_part else ""
                if why:
                    # Each section is that side's whole insertion, statements both made included.
                    out[run[0]] = ([ol[j] for side, j in run if side == "ours"], theirs_all, why)
                    out.update((other, None) for other in run[1:])
            run = []
            shared = []
            theirs_all = []
        return out

    def _source(self, stmts: Sequence[Stmt]) -> str:
        """Statements printed alone, at indentation zero, without the blank lines above them."""
        return "".join(self.texts.fresh(s.with_changes(leading_lines=())) for s in stmts)

    def _union_imports(self, o: Stmt, t: Stmt, scope: Scope) -> Stmt | None:
        """Both sides importing from one new module import the union of names."""
        if not (isinstance(o, cst.SimpleStatementLine) and isinstance(t, cst.SimpleStatementLine)):
            return None
        oi, ti = o.body[0], t.body[0]
        if not (isinstance(oi, cst.ImportFrom) and isinstance(ti, cst.ImportFrom)):
            return None
        if isinstance(oi.names, cst.ImportStar) or isinstance(ti.names, cst.ImportStar):
            return None
        try:
            names = self.merge_elements([], oi.names, ti.names, oi, "names", scope)
            return o.with_changes(body=[oi.with_changes(names=names), *o.body[1:]])
        except (MergeConflict, cst.CSTValidationError):
            return None

    def _without_leading_lines(self, stmt: cst.CSTNode) -> str:
        """A statement's own text: the blank lines above it depend on where it was added."""
        if _leading_lines(stmt):
            stmt = stmt.with_changes(leading_lines=())
        return self.texts.fresh(stmt)

    def _add_identity(self, stmt: cst.CSTNode, key: Hashable | None) -> Hashable:
        return ("key", key) if key is not None else ("text", self._without_leading_lines(stmt))

    def _local_map(self, bl: Sequence[Stmt], xl: Sequence[Stmt], side: Hand) -> list[int | None]:
        m = self.match[side]
        where = {id(x): j for j, x in enumerate(xl)}
        out: list[int | None] = [None] * len(xl)
        for i, b in enumerate(bl):
            partner = m.partner(b)
            if partner is not None and id(b) not in m.moved:
                j = where.get(id(partner))
                if j is not None:
                    out[j] = i
        return out

    def _stmt_path(self, stmt: cst.CSTNode, scope: Scope) -> str:
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            return Scope((*scope.names, stmt.name.value)).path
        return scope.path

    def merge_statement(self, b: Stmt, o: Stmt | None, t: Stmt | None, scope: Scope) -> list[Stmt]:
        """One base statement and its local versions (None: deleted or moved away)."""
        if o is None and t is None:
            return []
        if o is None or t is None:
            side: Hand = "theirs" if o is None else "ours"
            present = t if o is None else o
            assert present is not None
            gone = other(side)
            if id(b) in self.match[gone].moved:
                # Merged where the other side moved it to.
                return []
            if self.texts.of(present) == self.texts.of(b):
                return []
            if self.cosmetic(b, present):
                self.drop(side, b, scope, f"{gone} deleted it")
                return []
            if self._carried_by_moves(b, present, gone, side):
                # A renamed class or function: the deleting side moved the
                # body elsewhere, and the other side's edits went with it.
                return []
            what = describe(b, self.texts) or "a statement"
            exc = MergeConflict("delete/modify", what, deleter=gone)
            versions = ([], [b], [present]) if gone == "ours" else ([present], [b], [])
            return self.conflict(self._stmt_path(b, scope), "delete/modify", exc.reason(what), *versions)
        return self.merge_present(b, o, t, scope)

    def merge_present(self, b: Stmt, o: Stmt, t: Stmt, scope: Scope, *, moved: bool = False) -> list[Stmt]:
        # At a move destination the side's node *is* the destination: emitting
        # it must not re-enter the move, only merge what moved into it.
        pick = self.emit_inside if moved else self.emit
        cb, co, ct = self.texts.of(b), self.texts.of(o), self.texts.of(t)
        if co == cb:
            return pick(t, "theirs", scope)
        if ct == cb:
            return pick(o, "ours", scope)
        if co == ct:
            return [o]
        try:
            node = self._narrow(_like(self.merge_node(b, o, t, scope), b), b, o, t, scope)
            self._validate(node, b)
        except MergeConflict as exc:
            if self.cosmetic(b, o):
                self.drop("ours", b, scope, "theirs changed it")
                return pick(t, "theirs", scope)
            if self.cosmetic(b, t):
                self.drop("theirs", b, scope, "ours changed it")
                return pick(o, "ours", scope)
            what = describe(b, self.texts) or "a statement"
            return self.conflict(self._stmt_path(b, scope), exc.kind, exc.reason(what), [o], [b], [t])
        return [node]

    def _narrow(self, node: Stmt, b: Stmt, o: Stmt, t: Stmt, scope: Scope) -> Stmt:
        """*node*, or the same merge in theirs' layout when ours' would be wider than any version of it.

        Ours' layout wins, but a one-line import or call that gained theirs'
        elements must not become a 200-character line when theirs already
        split it over lines: then it is split as theirs has it.  The measure
        is the statement's own versions, not the file's longest line: one
        long line elsewhere does not let an import grow to its width.
        PEP 8's 79 columns are never too wide.
        """
        if not isinstance(node, cst.SimpleStatementLine):
            # A compound statement's own lines are merged one level down,
            # where this check runs on them; printing whole classes is costly.
            return node
        indent = self._indent_of(o)
        width = self._width(node, indent)
        if width <= _PEP8_WIDTH or any(self._width(x, indent) >= width for x in (o, t, b)):
            return node
        if "\n" in self.texts.fresh(o).strip("\r\n"):
            # Ours wraps it: the elements ours lacks go on lines of their own, in ours' layout.
            self.break_new = True
            try:
                broken = _like(self.merge_node(b, o, t, scope), b)
            except MergeConflict:
                broken = node
            finally:
                self.break_new = False
            narrower = self._width(broken, indent)
            if narrower < width:
                node, width = broken, narrower
            if width <= _PEP8_WIDTH or any(self._width(x, indent) >= width for x in (o, t, b)):
                return node
        if "\n" not in self.texts.fresh(t).strip("\r\n"):
            return node
        self.layout = "theirs"
        try:
            relaid = _like(self.merge_node(b, o, t, scope), b)
        except MergeConflict:
            return node
        finally:
            self.layout = "ours"
        return relaid if self._width(relaid, indent) < self._width(node, indent) else node

    def _indent_of(self, stmt: cst.CSTNode) -> int:
        """Columns the captured statement is indented by (fresh prints start at zero)."""
        captured = self.texts.of(stmt).lstrip("\r\n")
        first = next((line for line in captured.splitlines() if line.strip() and not line.strip().startswith("#")), "")
        return len(first) - len(first.lstrip())

    def _width(self, node: cst.CSTNode, indent: int) -> int:
        text = self.texts.fresh(node.with_changes(leading_lines=()) if hasattr(node, "leading_lines") else node)
        return indent + max((len(line) for line in text.splitlines()), default=0)

    def _validate(self, node: cst.CSTNode, base: cst.CSTNode) -> None:
        """A merged statement must still be Python; libcst will happily print one that is not."""
        shape = node if isinstance(node, cst.SimpleStatementLine) else _rewritten(node, _Skeleton())
        text = self.texts.fresh(shape)
        try:
            ast.parse(text)
        except (SyntaxError, ValueError, RecursionError):
            raise MergeConflict("invalid-result", describe(base, self.texts)) from None
        found = self.sentinels.find_elements(text)
        if found is None:
            return
        # Conflicts marked inside brackets: each side's section must read as
        # code in place (a line break inside an f-string does not); if not,
        # the statement conflicts whole, for the reason the region had.
        region = next(p for p in self.pending if p.number == found[2])
        for part in ("ours", "theirs"):
            section = taking_elements(text, self.sentinels, self.pending, part)
            try:
                ast.parse(section)
            except (SyntaxError, ValueError, RecursionError):
                raise MergeConflict(region.kind, describe(base, self.texts)) from None
            if _breaks_a_one_line_fstring(section):
                raise MergeConflict(region.kind, describe(base, self.texts))

    def emit(self, x: Stmt, side: Hand, scope: Scope) -> list[Stmt]:
        """A statement taken from one side, with blocks moved into it merged in place."""
        m = self.match[side]
        other_side = other(side)
        origin = m.origin(x)
        if origin is not None and id(origin) in m.moved:
            counterpart = self.match[other_side].partner(origin)
            if counterpart is None:
                if self.texts.of(x) == self.texts.of(origin):
                    return []
                if self.cosmetic(origin, x):
                    self.drop(side, origin, scope, f"{other_side} deleted it")
                    return []
                what = describe(origin, self.texts) or "a block"
                exc = MergeConflict("delete/modify", what, deleter=other_side)
                versions = ([x], [origin], []) if side == "ours" else ([], [origin], [x])
                return self.conflict(self._stmt_path(origin, scope), "delete/modify", exc.reason(what), *versions)
            if id(origin) in self.match[other_side].moved and side == "theirs":
                what = describe(origin, self.texts) or "a block"
                return self.conflict(
                    self._stmt_path(origin, scope),
                    "move/move",
                    f"both sides moved {what} to different places",
                    [],
                    [origin],
                    [x],
                )
            o, t = (x, counterpart) if side == "ours" else (counterpart, x)
            return self.merge_present(origin, o, t, scope, moved=True)
        return self.emit_inside(x, side, scope)

    def emit_inside(self, x: Stmt, side: Hand, scope: Scope) -> list[Stmt]:
        if id(x) in self.match[side].holds_move:
            clash = self._edit_against_wrapper(x, side, scope)
            if clash is not None:
                return clash
            inner = scope.enter(x)
            return [_rewritten(x, _BodyMapper(lambda s: self.emit(s, side, inner)))]
        return [x]

    def _edit_against_wrapper(self, x: Stmt, side: Hand, scope: Scope) -> list[Stmt] | None:
        """A conflict when *side* wrapped statements in *x* and another branch of *x* holds the other side's edit.

        Theirs wraps `from pkg import old as impl` in `try:` and adds
        `except ImportError: from pkg import new as impl`; ours edits the
        line to import `new`.  Applying ours' edit inside the `try` makes
        both branches bind `new`, and theirs' fallback means nothing: both
        sides changed what the statement binds, each in its own way.
        """
        wrapper = self.match[side]
        if wrapper.origin(x) is not None:
            return None  # not a statement this side added around others
        bodies = list(nested_bodies(x))
        if len(bodies) < 2:
            return None
        editor = other(side)
        edits = self.match[editor]
        for k, body in enumerate(bodies):
            for stmt in body:
                origin = wrapper.origin(stmt)
                if origin is None or id(origin) not in wrapper.moved:
                    continue
                edited = edits.partner(origin)
                if edited is None or self.same_syntax(edited, origin):
                    continue
                elsewhere = (y for j, branch in enumerate(bodies) if j != k for y in branch)
                if not any(self.same_syntax(y, edited) for y in elsewhere):
                    continue
                what = describe(origin, self.texts) or "a statement"
                reason = (
                    f"{editor} changed {what}; {side} wrapped it in {describe(x, self.texts) or 'a block'} "
                    f"whose other branch already holds {editor}' version"
                )
                versions = ([edited], [origin], [x]) if side == "theirs" else ([x], [origin], [edited])
                return self.conflict(self._stmt_path(origin, scope), "modify/modify", reason, *versions)
        return None

    def same_syntax(self, a: cst.CSTNode, b: cst.CSTNode) -> bool:
        """Whether two statements are one statement, cosmetics aside."""
        if self.texts.of(a) == self.texts.of(b):
            return True
        syntax = self.texts.syntax(a)
        return syntax is not None and syntax == self.texts.syntax(b)

    def conflict(
        self,
        path: str,
        kind: ConflictKind,
        reason: str,
        ours: Sequence[Stmt],
        base: Sequence[Stmt],
        theirs: Sequence[Stmt],
    ) -> list[Stmt]:
        n = self._next_number()
        values = (self._short_value(ours), self._short_value(theirs))
        self.pending.append(PendingConflict(n, path, kind, reason, values=values))
        hoisted, (ours, base, theirs) = self._hoist_blank_lines(ours, base, theirs)
        first = self.sentinels.statement(n, "ours").with_changes(leading_lines=hoisted)
        mark = self.sentinels.statement
        return [first, *ours, mark(n, "base"), *base, mark(n, "theirs"), *theirs, mark(n, "end")]

    def _short_value(self, version: Sequence[Stmt]) -> str:
        """What one side assigns, when its version is one short assignment: `10` of `TIMEOUT = 10`."""
        if len(version) != 1 or not isinstance(version[0], cst.SimpleStatementLine) or len(version[0].body) != 1:
            return ""
        small = version[0].body[0]
        value = small.value if isinstance(small, (cst.Assign, cst.AnnAssign, cst.AugAssign)) else None
        if value is None:
            return ""
        text = " ".join(self.texts.fresh(value).split())
        return text if len(text) <= 40 else ""

    def _hoist_blank_lines(
        self, *versions: Sequence[Stmt]
    ) -> tuple[Sequence[cst.EmptyLine], tuple[Sequence[Stmt], ...]]:
        # A blank-line gap all versions share stays outside the markers, where it was.
        firsts = [v[0] for v in versions if v]
        if len(firsts) < 3 or not all(hasattr(f, "leading_lines") for f in firsts):
            return (), versions
        lead = [tuple(self.texts.of(x) for x in _leading_lines(f)) for f in firsts]
        if len(set(lead)) != 1 or not lead[0] or any(line.strip() for line in lead[0]):
            return (), versions
        return _leading_lines(firsts[0]), tuple(
            [v[0].with_changes(leading_lines=()), *v[1:]] if v else v for v in versions
        )

    # -- any node ------------------------------------------------------------------
    def _value_key(self, element: cst.CSTNode) -> Hashable | None:
        """An element's identity in a commutative collection: its value's syntax, quotes aside."""
        value = element.value if isinstance(element, cst.BaseElement) else element
        return self.texts.syntax(value) or self.texts.of(value)

    def bare(self, node: cst.CSTNode) -> str:
        return bare(node, self.texts)

    def _carried_by_moves(self, b: Stmt, present: Stmt, mover: Hand, editor: Hand) -> bool:
        """Whether every edit *editor* made inside *b* lies in statements *mover* moved elsewhere.

        Then deleting *b* loses nothing: the edits follow the moved
        statements to their new home.  An edit to the header itself
        (decorators, signature, bases) has nowhere to go, so it does not count.
        """
        if not isinstance(b, _DEFINITIONS) or not isinstance(present, _DEFINITIONS) or type(present) is not type(b):
            return False
        if self.texts.fresh(_headers_only(b)) != self.texts.fresh(_headers_only(present)):
            return False
        body, edited = block_body(b.body), block_body(present.body)
        if body is None or edited is None:
            return False
        moved, kept = self.match[mover].moved, self.match[editor]
        if any(kept.origin(x) is None for x in edited):
            return False  # an addition inside the deleted definition
        for stmt in body:
            version = kept.partner(stmt)
            if version is not None and self.texts.of(version) != self.texts.of(stmt) and id(stmt) not in moved:
                return False
        return True

    def cosmetic(self, base: object, version: object) -> bool:
        """Whether *version* differs from *base* only in quotes, comments, wrapping or `# type: ignore`."""
        if not isinstance(base, cst.CSTNode) or not isinstance(version, cst.CSTNode):
            return False
        syntax = self.texts.syntax(base)
        return syntax is not None and syntax == self.texts.syntax(version)

    def drop(self, side: Side, base: cst.CSTNode, scope: Scope, because: str) -> None:
        """Record a cosmetic edit that gave way to the other side's real change."""
        what = describe(base, self.texts) or "a statement"
        self.dropped.append(Change(side, "dropped", self._stmt_path(base, scope), f"cosmetic edit of {what}", because))

    def _real_over_cosmetic(self, b: object, o: object, t: object, scope: Scope) -> object | None:
        """When both sides changed one node and one change is only cosmetic, the real one."""
        if not isinstance(b, cst.CSTNode):
            return None
        if self.cosmetic(b, o):
            self.drop("ours", b, scope, "theirs changed it")
            return self._take_value(t, "theirs", scope)
        if self.cosmetic(b, t):
            self.drop("theirs", b, scope, "ours changed it")
            return self._take_value(o, "ours", scope)
        return None

    def same(self, a: object, b: object) -> bool:
        if a is b:
            return True
        if isinstance(a, cst.CSTNode) and isinstance(b, cst.CSTNode):
            if type(a) is not type(b):
                return False
            if self.texts.known(a) and self.texts.known(b):
                return self.texts.of(a) == self.texts.of(b)
            # Two structures alike field by field print alike; comparing them
            # costs less than printing both, and stops at the first difference.
            return a.deep_equals(b)
        if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
            return len(a) == len(b) and all(self.same(x, y) for x, y in zip(a, b, strict=False))
        return bool(a == b)

    def take(self, value: N, side: Hand, scope: Scope) -> N:
        """A value one side changed alone; blocks moved into it still merge."""
        if not self.match[side].moved:
            return value
        if isinstance(value, cst.IndentedBlock):
            if any(id(s) in self.match[side].holds_move or self.match[side].origin(s) is not None for s in value.body):
                return value.with_changes(body=[y for s in value.body for y in self.emit(s, side, scope)])
            return value
        if isinstance(value, (cst.Else, cst.Finally, cst.ExceptHandler, cst.If, cst.MatchCase)):
            return _rewritten(value, _BodyMapper(lambda s: self.emit(s, side, scope)))
        return value

    def merge_value(self, bv: object, ov: object, tv: object, parent: cst.CSTNode, field: str, scope: Scope) -> object:
        if self.same(ov, bv):
            return self._take_value(tv, "theirs", scope)
        if self.same(tv, bv):
            return self._take_value(ov, "ours", scope)
        if self.same(ov, tv):
            return ov
        if (
            isinstance(bv, cst.CSTNode)
            and isinstance(ov, cst.CSTNode)
            and isinstance(tv, cst.CSTNode)
            and type(ov) is type(bv)
            and type(tv) is type(bv)
        ):
            try:
                return self.merge_node(bv, ov, tv, scope)
            except MergeConflict:
                winner = self._real_over_cosmetic(bv, ov, tv, scope)
                if winner is None:
                    raise
                return winner
        if isinstance(bv, (list, tuple)) and isinstance(ov, (list, tuple)) and isinstance(tv, (list, tuple)):
            return self.merge_elements(bv, ov, tv, parent, field, scope)
        if (
            isinstance(ov, _LAYOUT)
            or isinstance(tv, _LAYOUT)
            or field in ("comma", "semicolon")
            or field.startswith("whitespace")
        ):
            return tv if self.layout == "theirs" else ov
        winner = self._real_over_cosmetic(bv, ov, tv, scope)
        if winner is not None:
            return winner
        raise MergeConflict("modify/modify", describe(parent, self.texts))

    def _take_value(self, value: object, side: Hand, scope: Scope) -> object:
        return self.take(value, side, scope) if isinstance(value, cst.CSTNode) else value

    def merge_node(self, b: cst.CSTNode, o: cst.CSTNode, t: cst.CSTNode, scope: Scope) -> cst.CSTNode:
        """Three versions of one node merged: the same type in, the same type out."""
        self.deadline.check()
        if type(o) is not type(b) or type(t) is not type(b):
            raise MergeConflict("modify/modify", describe(b, self.texts))
        try:
            if isinstance(b, cst.If) and isinstance(o, cst.If) and isinstance(t, cst.If):
                return self.merge_if(b, o, t, scope)
            if (
                isinstance(b, cst.IndentedBlock)
                and isinstance(o, cst.IndentedBlock)
                and isinstance(t, cst.IndentedBlock)
            ):
                block = self.merge_fields(b, o, t, scope, skip=("body",))
                return block.with_changes(body=self.merge_body(b.body, o.body, t.body, scope))
            handlers = (cst.ExceptHandler, cst.ExceptStarHandler)
            if isinstance(b, handlers) and isinstance(o, handlers) and isinstance(t, handlers):
                handler = self.merge_fields(b, o, t, scope, skip=("type",))
                return handler.with_changes(type=self.merge_except_type(b.type, o.type, t.type, b, scope))
            if isinstance(b, cst.FunctionDef) and isinstance(o, cst.FunctionDef) and isinstance(t, cst.FunctionDef):
                return self.merge_definition(b, o, t, scope)
            if isinstance(b, cst.ClassDef) and isinstance(o, cst.ClassDef) and isinstance(t, cst.ClassDef):
                return self.merge_definition(b, o, t, scope)
            if isinstance(b, cst.SimpleString) and isinstance(o, cst.SimpleString) and isinstance(t, cst.SimpleString):
                return self.merge_string(b, o, t)
            names = _listed_names(b)
            if names is not None:
                # `__all__` and `__slots__` are sets of names spelled as lists: their entries commute.
                self.commutative_ids.add(id(names))
            return self.merge_fields(b, o, t, scope.enter(b))
        except MergeConflict as exc:
            if exc.what is None:
                exc.what = describe(b, self.texts)
            raise
        except cst.CSTValidationError:
            raise MergeConflict("invalid-result", describe(b, self.texts)) from None

    def merge_fields(self, b: N, o: N, t: N, scope: Scope, skip: tuple[str, ...] = ()) -> N:
        changes: dict[str, object] = {}
        for f in dataclasses.fields(b):
            name = f.name
            if name in skip:
                continue
            if name in _BRACKETS:
                # Both sides changed this node; its brackets follow the
                # layout side, as its separators do.
                if self.layout == "theirs" and not self.same(getattr(o, name), getattr(t, name)):
                    changes[name] = getattr(t, name)
                continue
            bv, ov, tv = getattr(b, name), getattr(o, name), getattr(t, name)
            merged = self.merge_value(bv, ov, tv, b, name, scope)
            if merged is not ov:
                changes[name] = merged
        return o.with_changes(**changes) if changes else o

    def merge_string(self, b: cst.SimpleString, o: cst.SimpleString, t: cst.SimpleString) -> cst.SimpleString:
        """A multi-line string both sides edited, merged line by line as git would.

        A docstring is prose: two sides rewording different lines of it made
        no conflicting change, and the line merge sees that.
        """
        quotes = {x.prefix + x.quote for x in (b, o, t)}
        if len(quotes) != 1 or len(b.quote) != 3 or "\n" not in b.value:
            raise MergeConflict("modify/modify")
        lines = merge_lines(b.value, o.value, t.value)
        if not lines.clean:
            raise MergeConflict("modify/modify")
        return o.with_changes(value=lines.text)

    # -- definitions ---------------------------------------------------------------
    def merge_definition(self, b: D, o: D, t: D, scope: Scope) -> D:
        """A def or class: header and body merge apart.

        When only the header (decorators, signature, bases) conflicts, the
        markers go around the header lines and the body still merges, so a
        maintainer resolves one line instead of re-merging a whole method.
        """
        inner = scope.enter(b)
        body = self.merge_value(b.body, o.body, t.body, b, "body", inner)
        try:
            return _without_empty_parens(self.merge_fields(b, o, t, inner, skip=("body",)), o, t).with_changes(
                body=body
            )
        except MergeConflict as exc:
            if not isinstance(body, cst.IndentedBlock):
                raise
            what = exc.what or describe(b, self.texts) or "the definition"
            n = self._next_number()
            headers = tuple(x.with_changes(leading_lines=(), body=_PASS_BLOCK) for x in (o, b, t))
            reason = (
                f"both sides changed the header of {b.name.value} ({what})"
                if exc.kind == "modify/modify"
                else exc.reason(what)
            )
            path = Scope((*scope.names, b.name.value)).path
            self.pending.append(PendingConflict(n, path, exc.kind, reason, (headers[0], headers[1], headers[2])))
            # The colon line of ours' header carries the sentinel, so render
            # can find where the header ends in the printed module.
            mark = cst.TrailingWhitespace(
                whitespace=cst.SimpleWhitespace("  "),
                comment=cst.Comment(self.sentinels.header_comment(n)),
                newline=body.header.newline,
            )
            return o.with_changes(body=body.with_changes(header=mark))

    # -- if/elif chains ------------------------------------------------------------
    def _own_text(self, branch: Branch) -> str:
        """A branch without the branches after it."""
        # Always a fresh print: a branch cut from its chain must compare equal
        # to the same branch that ends its chain.
        return self.texts.fresh(branch.with_changes(orelse=None) if isinstance(branch, cst.If) else branch)

    def merge_if(self, b: cst.If, o: cst.If, t: cst.If, scope: Scope) -> cst.If:
        bc, oc, po = branch_pairs(b, o, self.texts)
        _, tc, pt = branch_pairs(b, t, self.texts)
        merged: list[Branch] = []
        seen_added: dict[str, str] = {}
        for kind, bb, ob, tb in aligned(bc, oc, tc, po, pt):
            if kind == "base":
                if ob is None or tb is None:
                    deleter: Hand = "ours" if ob is None else "theirs"
                    present = tb if ob is None else ob
                    if present is None or self._own_text(present) == self._own_text(bb):
                        continue
                    if self._cosmetic_branch(bb, present):
                        self.drop(other(deleter), bb, scope, f"{deleter} deleted it")
                        continue
                    raise MergeConflict("delete/modify", describe(bb, self.texts), deleter=deleter)
                merged.append(self._merge_branch(bb, ob, tb, scope))
            else:
                branch = bb
                key = branch_key(branch, self.texts)
                if key in seen_added:
                    if seen_added[key] != self._own_text(branch):
                        raise MergeConflict("add/add", describe(branch, self.texts))
                    continue
                seen_added[key] = self._own_text(branch)
                merged.append(self.take(branch, kind, scope))
        elses = [br for br in merged if isinstance(br, cst.Else)]
        merged = [br for br in merged if not isinstance(br, cst.Else)] + elses[-1:]
        if not merged or not isinstance(merged[0], cst.If) or len(elses) > 1:
            raise MergeConflict("modify/modify", describe(b, self.texts))
        node: Branch = merged[-1]
        if isinstance(node, cst.If):
            node = node.with_changes(orelse=None)
        for br in reversed(merged[:-1]):
            node = br.with_changes(orelse=node)
        return _like(node, b)

    def _cosmetic_branch(self, b: Branch, version: Branch) -> bool:
        if isinstance(b, cst.If) and isinstance(version, cst.If):
            return self.cosmetic(b.with_changes(orelse=None), version.with_changes(orelse=None))
        return False

    def _merge_branch(self, b: Branch, o: Branch, t: Branch, scope: Scope) -> Branch:
        cb, co, ct = self._own_text(b), self._own_text(o), self._own_text(t)
        if co == cb:
            return self.take(t, "theirs", scope)
        if ct == cb or co == ct:
            return self.take(o, "ours", scope)
        try:
            if isinstance(b, cst.If):
                return self.merge_fields(b, o, t, scope, skip=("orelse",))
            return self.merge_fields(b, o, t, scope)
        except MergeConflict as exc:
            if exc.what is None:
                exc.what = describe(b, self.texts)
            raise

    # -- except types --------------------------------------------------------------
    def merge_except_type(
        self,
        bt: cst.BaseExpression | None,
        ot: cst.BaseExpression | None,
        tt: cst.BaseExpression | None,
        handler: cst.CSTNode,
        scope: Scope,
    ) -> cst.BaseExpression | None:
        if self.same(ot, bt):
            return tt
        if self.same(tt, bt) or self.same(ot, tt):
            return ot
        if bt is None or ot is None or tt is None:
            raise MergeConflict("modify/modify", "the except clause")
        # `except A` widened to `except (A, B)` on one side and `(A, C)` on the
        # other is a union of types; a lone type is a one-element tuple.
        template = next((x for x in (ot, tt, bt) if isinstance(x, cst.Tuple)), None)

        def as_tuple(x: cst.BaseExpression) -> cst.Tuple:
            if isinstance(x, cst.Tuple):
                return x
            assert template is not None
            return template.with_changes(elements=[cst.Element(value=x)])

        if template is None:
            raise MergeConflict("modify/modify", "the except clause")
        bx, ox, tx = as_tuple(bt), as_tuple(ot), as_tuple(tt)
        elements = self.merge_elements(bx.elements, ox.elements, tx.elements, bx, "elements", scope, commutative=True)
        if len(elements) == 1 and not isinstance(ot, cst.Tuple) and isinstance(elements[0], cst.Element):
            return elements[0].value
        return ox.with_changes(elements=elements)

    # -- collections ---------------------------------------------------------------
    def merge_elements(
        self,
        bl: Sequence[cst.CSTNode],
        ol: Sequence[cst.CSTNode],
        tl: Sequence[cst.CSTNode],
        parent: cst.CSTNode,
        field: str,
        scope: Scope,
        commutative: bool = False,
    ) -> list[cst.CSTNode]:
        """The merged elements of a collection; a conflict inside it is marked around the elements alone.

        Where the collection is bracketed, a conflict over some of its
        elements becomes a region of markers inside the brackets and the
        rest of the statement still merges (see `elements.Region`);
        elsewhere it fails the statement, which then conflicts whole.
        """
        if not all(isinstance(x, cst.CSTNode) for x in (*bl, *ol, *tl)):
            raise MergeConflict("modify/modify", describe(parent, self.texts))
        key: ElementKey
        if commutative:
            key, gaps = self._value_key, False
        else:
            key, gaps = element_policy(parent, field, self.texts, self.commutative_ids)
        po = match_sequence(bl, ol, self.texts, each(key), pair_gaps=gaps)
        pt = match_sequence(bl, tl, self.texts, each(key), pair_gaps=gaps)
        inline = bracketed(parent, field, (bl, ol, tl))
        clash = ordered_clash(bl, ol, tl, po, pt, key, self.texts) if gaps else ""
        if clash:
            chunks = ordered_chunks(bl, ol, tl, po, pt)
            if chunks is None:
                raise MergeConflict("modify/modify", describe(parent, self.texts), why=clash)
            # A base element one side kept (edited, maybe) and the other dropped is a deletion
            # against a modification: no run holding it is one side's to take whole.
            edited = {id(b) for i, b in enumerate(bl) if (i in po) != (i in pt)}
            merged = self._merge_chunks(chunks, key, parent, field, scope, clash, edited)
            if not inline and any(isinstance(x, Region) for x in merged):
                raise MergeConflict("modify/modify", describe(parent, self.texts), why=clash)
        else:
            merged = self._merge_aligned((bl, ol, tl), (po, pt), key, parent, field, scope, inline)
        nodes = [x for x in merged if isinstance(x, cst.CSTNode)]
        if len(nodes) < len(merged):
            return self._mark_regions(merged, (bl, ol, tl), parent, field, scope)
        if not gaps:
            nodes = keep_sorted(nodes, (bl, ol, tl), self.texts)
        if nodes and hasattr(nodes[0], "comma"):
            nodes = fix_separators(nodes, (bl, ol, tl), self.texts, self.layout, break_new=self.break_new)
        return nodes

    def _merge_aligned(
        self,
        lists: Versions,
        pairs: tuple[dict[int, int], dict[int, int]],
        key: ElementKey,
        parent: cst.CSTNode,
        field: str,
        scope: Scope,
        inline: bool,
    ) -> list[cst.CSTNode | Region]:
        """Elements merged one by one in merged order; with *inline*, an element in conflict becomes a `Region`.

        *lists* are base's, ours' and theirs' elements, *pairs* base's
        pairing with ours and with theirs.
        """
        merged: list[cst.CSTNode | Region] = []
        added: dict[Hashable, tuple[str, int]] = {}
        for kind, b, o, t in aligned(*lists, *pairs):
            if kind == "base":
                if o is None or t is None:
                    deleter: Hand = "ours" if o is None else "theirs"
                    present = t if o is None else o
                    if present is None or self.bare(present) == self.bare(b):
                        continue
                    if self.cosmetic(b, present):
                        self.drop(other(deleter), b, scope, f"{deleter} deleted it")
                        continue
                    gone = MergeConflict("delete/modify", describe(b, self.texts), deleter=deleter)
                    if not inline:
                        raise gone
                    ours, theirs = ([], [present]) if deleter == "ours" else ([present], [])
                    merged.append(Region(ours, [b], theirs, gone))
                elif self.bare(o) == self.bare(b) and self.bare(t) == self.bare(b):
                    merged.append(o)
                else:
                    try:
                        merged.append(_like(self.merge_value(b, o, t, parent, field, scope), b))
                    except MergeConflict as exc:
                        if not inline:
                            raise
                        # The marked unit is the element, and the reason names it.
                        exc.what = describe(b, self.texts) or exc.what
                        merged.append(Region([o], [b], [t], exc))
            else:
                x = b
                k = key(x)
                ident = ("key", k) if k is not None else ("text", self.bare(x))
                if ident in added:
                    first, at = added[ident]
                    if first != self.bare(x) and k is not None:
                        twice = MergeConflict("add/add", describe(x, self.texts))
                        ours_one = merged[at]
                        if not inline or kind != "theirs" or isinstance(ours_one, Region):
                            raise twice
                        merged[at] = Region([ours_one], [], [x], twice)
                    continue
                added[ident] = (self.bare(x), len(merged))
                merged.append(self.take(x, kind, scope))
        return merged

    def _merge_chunks(
        self,
        chunks: list[Chunk],
        key: ElementKey,
        parent: cst.CSTNode,
        field: str,
        scope: Scope,
        clash: str,
        edited: set[int],
    ) -> list[cst.CSTNode | Region]:
        """An ordered sequence merged as diff3 merges lines: element runs between elements both sides kept.

        A run both sides changed differently is a `Region`, unless one side's
        run holds the other's (`elements.subsumes`) and no element of it is
        one that a side dropped while the other kept it (in *edited*); the
        rest merges.
        """
        merged: list[cst.CSTNode | Region] = []
        for kept, bc, oc, tc in chunks:
            if kept:
                b, o, t = bc[0], oc[0], tc[0]
                if self.bare(o) == self.bare(b) and self.bare(t) == self.bare(b):
                    merged.append(o)
                    continue
                try:
                    merged.append(_like(self.merge_value(b, o, t, parent, field, scope), b))
                except MergeConflict as exc:
                    exc.what = describe(b, self.texts) or exc.what
                    merged.append(Region([o], [b], [t], exc))
                continue
            bt, ot, tt = ([self.bare(x) for x in c] for c in (bc, oc, tc))
            whole = not any(id(x) in edited for x in bc)
            if ot == bt or (whole and subsumes(tt, ot, bt)):
                merged.extend(self.take(x, "theirs", scope) for x in tc)
            elif tt == bt or ot == tt or (whole and subsumes(ot, tt, bt)):
                merged.extend(self.take(x, "ours", scope) for x in oc)
            elif any(key(x) is not None for x in (*bc, *oc, *tc)):
                # Keyword arguments commute; a run that holds some is not diff3's to split.
                raise MergeConflict("modify/modify", describe(parent, self.texts), why=clash)
            else:
                what = describe(bc[0] if bc else parent, self.texts)
                merged.append(Region(list(oc), list(bc), list(tc), MergeConflict("modify/modify", what, why=clash)))
        return merged

    def _mark_regions(
        self,
        merged: list[cst.CSTNode | Region],
        lists: Versions,
        parent: cst.CSTNode,
        field: str,
        scope: Scope,
    ) -> list[cst.CSTNode]:
        """Stand a sentinel element in for each region, and leave the three versions of it for render.

        Each version is printed with the separators it would have in the
        merged collection, so that choosing any section between the markers
        gives the collection as that side (or base) would have it.
        """
        placed = [self._sentinel_for(x, merged[:i]) if isinstance(x, Region) else x for i, x in enumerate(merged)]
        placed = fix_separators(placed, lists, self.texts, self.layout, break_new=self.break_new)
        for i, item in enumerate(merged):
            if not isinstance(item, Region):
                continue
            sections: list[str] = []
            for version in (item.ours, item.base, item.theirs):
                resolved = fix_separators(
                    [*placed[:i], *version, *placed[i + 1 :]], lists, self.texts, self.layout, break_new=self.break_new
                )
                if version is not item.base and self.texts.syntax(holding(parent, field, resolved)) is None:
                    # A side's section must read as code in place; if not, the statement conflicts whole.
                    raise MergeConflict(item.conflict.kind, describe(parent, self.texts), why=item.conflict.why)
                sections.append("".join(self.texts.fresh(e) for e in resolved[i : i + len(version)]))
            what = item.conflict.what or describe(parent, self.texts) or "an element"
            self.pending.append(
                PendingConflict(
                    item.number,
                    scope.path,
                    item.conflict.kind,
                    item.conflict.reason(what),
                    sections=(sections[0], sections[1], sections[2]),
                )
            )
        return placed

    def _sentinel_for(self, region: Region, before: Sequence[cst.CSTNode | Region]) -> cst.CSTNode:
        region.number = self._next_number()
        return region_sentinel(region.template, self.sentinels.name(region.number, "elements"), before)

    def _next_number(self) -> int:
        self._numbers += 1
        return self._numbers - 1


class _OneLineFStrings(cst.CSTVisitor):
    """Finds a single-quoted f-string whose text breaks a line."""

    def __init__(self, module: cst.Module) -> None:
        self.module = module
        self.broken = False

    def visit_FormattedString(self, node: cst.FormattedString) -> bool:
        if len(node.start.lstrip("fFrRbB")) == 1 and "\n" in self.module.code_for_node(node):
            self.broken = True
        return not self.broken


def _breaks_a_one_line_fstring(text: str) -> bool:
    """Whether *text* breaks a line inside a single-quoted f-string's replacement field.

    Python 3.12 reads that (PEP 701), 3.11 does not, and a copy may run on
    either: the merge is checked under the running interpreter's grammar, so
    on 3.12 it would put markers inside the brackets where taking a section
    leaves code 3.11 cannot read.  Text that libcst cannot read counts as broken.
    """
    if "f" not in text and "F" not in text:
        return False
    try:
        module = cst.parse_module(text)
    except Exception:  # noqa: BLE001 - unreadable here is as bad as unreadable on 3.11
        return True
    finder = _OneLineFStrings(module)
    module.visit(finder)
    return finder.broken
