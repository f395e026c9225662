"""Stage 1, tree: the parsed libcst modules seen as keyed trees.

The modules are parsed by `structured` (which knows the budget and which
input failed); this stage reads them.  libcst round-trips source byte for
byte, so every region neither side changed can be emitted by reusing its
original node.  This module gives the rest of the pipeline what it needs to
compare nodes cheaply: memoised source text, identity keys (names, import
modules, assignment targets, branch tests), word bags for similarity, and the
statement bodies nested in a compound statement.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Callable, Iterator, Sequence

import libcst as cst
from libcst.helpers import get_full_name_for_node
from libcst.helpers import get_full_name_for_node_or_raise as full_name

from . import printer
from .spelling import has_one_spelling

_WORD_TABLE = {c: " " for c in range(128) if not (chr(c).isalnum() or chr(c) == "_")}


# Nodes whose printed form depends on indentation; they are captured during
# one full print of their module instead of being re-printed one by one.
# The hooks run for every node printed; an exact-type set lookup is several
# times cheaper than isinstance against libcst's abstract bases.
_INDENTED_TYPES: frozenset[type[cst.CSTNode]] = frozenset(
    {
        cst.SimpleStatementLine,
        cst.FunctionDef,
        cst.ClassDef,
        cst.If,
        cst.Try,
        cst.TryStar,
        cst.For,
        cst.While,
        cst.With,
        cst.Match,
        cst.IndentedBlock,
        cst.SimpleStatementSuite,
        cst.ExceptHandler,
        cst.ExceptStarHandler,
        cst.Else,
        cst.Finally,
        cst.MatchCase,
    }
)


def capture_texts(
    module: cst.Module, memo: dict[int, tuple[cst.CSTNode, str]], places: dict[int, printer.Place] | None = None
) -> None:
    """Print *module* once, keeping the text of every indented node in *memo* (id -> (node, text))."""
    printer.capture(module, _INDENTED_TYPES, memo, {} if places is None else places)


class Texts:
    """Source text of nodes, computed once per node.

    Statements and blocks of the input modules are captured in one print of
    each module (`capture`), at their real indentation; everything else is
    printed on demand.  Two texts are only compared when both come from the
    same kind of print: originals with originals, and freshly built nodes
    (a branch cut from its chain, an element without its comma) with fresh
    ones, which is what `fresh` is for.

    The memo holds the node itself next to its text: ids are only unique
    among live objects, and merged nodes are created and dropped as we go.
    """

    def __init__(self) -> None:
        self._memo: dict[int, tuple[cst.CSTNode, str]] = {}
        self._words: dict[int, tuple[cst.CSTNode, Counter[str]]] = {}
        self._syntax: dict[int, tuple[cst.CSTNode, str | None]] = {}
        # Where each captured statement was printed: when its text may stand in another module.
        self._places: dict[int, printer.Place] = {}

    def capture(self, module: cst.Module) -> None:
        capture_texts(module, self._memo, self._places)

    def printed(self, module: cst.Module) -> str:
        """The module's code, reusing the captured text of statements that came through unchanged.

        Printing a 2,000-line module again costs a tenth of a merge; most of
        its statements are input nodes whose text is already known, at the
        same indentation, in the same newline and indentation style.
        """
        return printer.code_reusing(module, self._known)

    def _known(self, node: cst.CSTNode, place: printer.Place) -> str | None:
        hit = self._memo.get(id(node))
        if hit is None or hit[0] is not node or self._places.get(id(node)) != place:
            return None
        return hit[1]

    def fresh(self, node: cst.CSTNode) -> str:
        """The node printed on its own, at indentation zero."""
        try:
            return printer.code(node)
        except SyntaxError:  # libcst's CSTCodegenError: this node only prints inside its parent
            return "\0" + repr(node)

    def known(self, node: cst.CSTNode) -> bool:
        """Whether the node's text is at hand without printing it."""
        hit = self._memo.get(id(node))
        return hit is not None and hit[0] is node

    def of(self, node: cst.CSTNode) -> str:
        hit = self._memo.get(id(node))
        if hit is not None and hit[0] is node:
            return hit[1]
        # A few nodes (annotations, bare operators) only print inside their
        # parent; `fresh` falls back to their structural repr for comparing.
        text = self.fresh(node)
        self._memo[id(node)] = (node, text)
        return text

    def bare(self, node: cst.CSTNode) -> str:
        """An element's text without its trailing comma: becoming last is not an edit.

        Another node is its text.
        """
        comma = getattr(node, "comma", None)
        if isinstance(comma, cst.Comma):
            return self.fresh(node.with_changes(comma=cst.MaybeSentinel.DEFAULT))
        return self.of(node)

    def syntax(self, node: cst.CSTNode) -> str | None:
        """The node's syntax without its formatting: an `ast.dump`, or None when it has none alone.

        Two versions with the same syntax differ only cosmetically (quotes,
        comments, wrapping, a `# type: ignore`), and a cosmetic edit never
        beats a real one.  Parts that are not Python on their own (an
        argument, a parameter, a decorator) are parsed inside the smallest
        construct that holds them.
        """
        hit = self._syntax.get(id(node))
        if hit is not None and hit[0] is node:
            return hit[1]
        dumped = _syntax_of(node, self.fresh)
        self._syntax[id(node)] = (node, dumped)
        return dumped

    def key(self, node: cst.CSTNode) -> str:
        """The node as an identity key: its text, or its syntax where the text could differ cosmetically.

        `kw['hook']` re-quoted to `kw["hook"]` is still the same target; text
        with nothing to re-spell skips the parse (see `spelling`).
        """
        if isinstance(node, cst.Name):
            return node.value  # most keys: an assignment to a plain name
        text = self.of(node)
        if has_one_spelling(text):
            return text
        return self.syntax(node) or text

    def words(self, node: cst.CSTNode) -> Counter[str]:
        hit = self._words.get(id(node))
        if hit is not None and hit[0] is node:
            return hit[1]
        bag = Counter(self.of(node).translate(_WORD_TABLE).split())
        self._words[id(node)] = (node, bag)
        return bag

    def similarity(self, a: cst.CSTNode, b: cst.CSTNode) -> float:
        """Weighted Jaccard of word bags: linear, and blind to formatting."""
        wa, wb = self.words(a), self.words(b)
        if not wa and not wb:
            return 1.0
        inter = sum((wa & wb).values())
        union = sum((wa | wb).values())
        return inter / union if union else 0.0

    def size(self, node: cst.CSTNode) -> int:
        return sum(self.words(node).values())


# Wrappers that make a node's text parse on its own, by node type.
_HOLDERS: dict[type[cst.CSTNode], tuple[str, str]] = {
    cst.Element: ("[", "]"),
    cst.StarredElement: ("[", "]"),
    cst.Arg: ("f(", ")"),
    cst.DictElement: ("{", "}"),
    cst.StarredDictElement: ("{", "}"),
    cst.ImportAlias: ("import ", ""),
    cst.Param: ("def f(", "): pass"),
    cst.Decorator: ("", "def f(): pass"),
}


def _syntax_of(node: cst.CSTNode, fresh: Callable[[cst.CSTNode], str]) -> str | None:
    if isinstance(
        node,
        (cst.Element, cst.StarredElement, cst.Arg, cst.DictElement, cst.StarredDictElement, cst.ImportAlias, cst.Param),
    ):
        # The separator is layout, not syntax.
        node = node.with_changes(comma=cst.MaybeSentinel.DEFAULT)
    text = fresh(node)
    if text.startswith("\0"):
        return None
    if isinstance(node, (cst.BaseStatement, cst.BaseSmallStatement)):
        prefix, suffix, mode = "", "", "exec"
    elif isinstance(node, cst.BaseExpression):
        prefix, suffix, mode = "(", "\n)", "eval"
    elif type(node) in _HOLDERS:
        (prefix, suffix), mode = _HOLDERS[type(node)], "exec"
    else:
        return None
    try:
        return ast.dump(ast.parse(prefix + text + suffix, mode=mode))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def imported_names(stmt: cst.CSTNode) -> frozenset[tuple[str, str]] | None:
    """The (name, alias) pairs a lone `from ... import` statement imports, or None for any other statement."""
    if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1):
        return None
    small = stmt.body[0]
    if not isinstance(small, cst.ImportFrom) or isinstance(small.names, cst.ImportStar):
        return None
    return frozenset(
        (full_name(a.name), full_name(a.asname.name) if isinstance(a.asname, cst.AsName) else "") for a in small.names
    )


def kind_of(stmt: cst.CSTNode) -> str:
    """The statement's kind for pairing: a changed `return` still pairs with a `return`."""
    if isinstance(stmt, cst.SimpleStatementLine) and stmt.body:
        return "line:" + type(stmt.body[0]).__name__
    return type(stmt).__name__


def statement_key(stmt: cst.CSTNode, texts: Texts) -> tuple[str, ...] | None:
    """The identity of a statement that survives edits to its body, if it has one."""
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        return ("def", stmt.name.value)
    if isinstance(stmt, cst.If):
        return ("if", texts.key(stmt.test))
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
        small = stmt.body[0]
        if isinstance(small, cst.ImportFrom):
            mod = "." * len(small.relative) + (full_name(small.module) if small.module else "")
            return ("from", mod)
        if isinstance(small, cst.Import):
            return ("import", full_name(small.names[0].name))
        if isinstance(small, cst.Assign) and len(small.targets) == 1:
            return ("assign", texts.key(small.targets[0].target))
        if isinstance(small, cst.AnnAssign):
            return ("assign", texts.key(small.target))
        if isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString)):
            return ("docstring",)
    return None


def body_keys(body: Sequence[cst.CSTNode], texts: Texts) -> list[tuple[str, ...] | None]:
    """`statement_key` of each statement of a body, where position matters.

    A string statement is the body's docstring only when it comes first.
    Right after an assignment it is that attribute's docstring (PEP 257,
    Sphinx) and belongs to the attribute: two sides documenting two new
    attributes are not both "changing the docstring".
    """
    keys: list[tuple[str, ...] | None] = []
    for i, stmt in enumerate(body):
        key = statement_key(stmt, texts)
        if key == ("docstring",) and i > 0:
            previous = statement_key(body[i - 1], texts)
            key = ("attrdoc", *previous[1:]) if previous is not None and previous[0] == "assign" else None
        keys.append(key)
    return keys


def branch_key(node: cst.If | cst.Else, texts: Texts) -> str:
    return "else" if isinstance(node, cst.Else) else texts.key(node.test)


def if_chain(node: cst.If) -> list[cst.If | cst.Else]:
    """`if/elif/else` as the flat list of branches it reads as."""
    chain: list[cst.If | cst.Else] = []
    cur: cst.If | cst.Else | None = node
    while cur is not None:
        chain.append(cur)
        cur = cur.orelse if isinstance(cur, cst.If) else None
    return chain


def handler_key(handler: cst.ExceptHandler | cst.ExceptStarHandler, texts: Texts) -> str | None:
    """An except clause keeps its identity when its tuple widens: key on the first type."""
    t = handler.type
    if t is None:
        return "bare"
    if isinstance(t, cst.Tuple) and t.elements:
        return texts.key(t.elements[0].value)
    return texts.key(t)


def case_key(case: cst.MatchCase, texts: Texts) -> str:
    return texts.key(case.pattern)


def block_body(block: cst.BaseSuite | None) -> Sequence[cst.BaseStatement] | None:
    if isinstance(block, cst.IndentedBlock):
        return block.body
    return None


def nested_bodies(stmt: cst.CSTNode) -> Iterator[Sequence[cst.BaseStatement]]:
    """The statement bodies directly nested in a compound statement, in source order.

    The keyless twin of `child_bodies`, for walking two identical statements
    in lockstep where computing slot keys would only cost time.
    """
    parts: list[cst.CSTNode | None]
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef, cst.With)):
        parts = [stmt.body]
    elif isinstance(stmt, (cst.For, cst.While)):
        parts = [stmt.body, stmt.orelse.body if stmt.orelse is not None else None]
    elif isinstance(stmt, cst.If):
        parts = [branch.body for branch in if_chain(stmt)]
    elif isinstance(stmt, (cst.Try, cst.TryStar)):
        parts = [stmt.body, *(h.body for h in stmt.handlers)]
        parts += [p.body if p is not None else None for p in (stmt.orelse, stmt.finalbody)]
    elif isinstance(stmt, cst.Match):
        parts = [case.body for case in stmt.cases]
    else:
        return
    for part in parts:
        body = block_body(part) if isinstance(part, cst.BaseSuite) else None
        if body is not None:
            yield body


def child_bodies(
    stmt: cst.CSTNode, texts: Texts
) -> Iterator[tuple[tuple[str, str | None], Sequence[cst.BaseStatement]]]:
    """The statement bodies directly nested in a compound statement, by slot name.

    Slot names let two versions of a statement pair their bodies: the body of
    branch `mode == "http"` with the body of the same branch on the other side.
    """
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef, cst.With, cst.For, cst.While)):
        body = block_body(stmt.body)
        if body is not None:
            yield ("body", None), body
        if isinstance(stmt, (cst.For, cst.While)) and stmt.orelse is not None:
            body = block_body(stmt.orelse.body)
            if body is not None:
                yield ("else", None), body
    elif isinstance(stmt, cst.If):
        for branch in if_chain(stmt):
            body = block_body(branch.body)
            if body is not None:
                yield ("branch", branch_key(branch, texts)), body
    elif isinstance(stmt, (cst.Try, cst.TryStar)):
        body = block_body(stmt.body)
        if body is not None:
            yield ("try", None), body
        handlers: Sequence[cst.ExceptHandler | cst.ExceptStarHandler] = stmt.handlers
        for i, h in enumerate(handlers):
            body = block_body(h.body)
            if body is not None:
                yield ("except", handler_key(h, texts) or str(i)), body
        for name, part in (("else", stmt.orelse), ("finally", stmt.finalbody)):
            if part is not None:
                body = block_body(part.body)
                if body is not None:
                    yield (name, None), body
    elif isinstance(stmt, cst.Match):
        for case in stmt.cases:
            body = block_body(case.body)
            if body is not None:
                yield ("case", case_key(case, texts)), body


def describe(node: cst.CSTNode, texts: Texts) -> str | None:
    """Name a node the way a maintainer would, for conflict reasons."""
    if isinstance(node, (cst.ExceptHandler, cst.ExceptStarHandler)):
        return "the except clause"
    if isinstance(node, cst.If):
        return f"branch `{texts.of(node.test)}`"
    if isinstance(node, cst.Else):
        return "the else branch"
    if isinstance(node, (cst.Element, cst.StarredElement)):
        return f"entry {texts.of(node.value)}"
    if isinstance(node, cst.Arg) and node.keyword is not None:
        return f"keyword argument {node.keyword.value}"
    if isinstance(node, cst.Arg):
        return f"argument {node.star}{texts.of(node.value)}"
    if isinstance(node, cst.Param):
        return f"parameter {node.name.value}"
    if isinstance(node, cst.Decorator):
        return f"decorator @{texts.of(node.decorator)}"
    if isinstance(node, cst.DictElement):
        return f"dict entry {texts.of(node.key)}"
    if isinstance(node, cst.ImportAlias):
        return f"imported name {texts.of(node.name)}"
    if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
        return f"the definition of {node.name.value}"
    if isinstance(node, cst.Try):
        return "the try statement"
    if isinstance(node, (cst.With, cst.For, cst.While, cst.Match)):
        return f"the {type(node).__name__.lower()} statement"
    if isinstance(node, cst.SimpleStatementLine) and node.body:
        small = node.body[0]
        if isinstance(small, cst.Assign):
            return f"the assignment to {texts.of(small.targets[0].target)}"
        if isinstance(small, cst.AnnAssign):
            return f"the assignment to {texts.of(small.target)}"
        if isinstance(small, cst.Return):
            return "the return statement"
        if isinstance(small, (cst.Import, cst.ImportFrom)):
            return "the import"
        if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            return f"the call to {get_full_name_for_node(small.value.func) or texts.of(small.value.func)}"
        return f"the {type(small).__name__.lower()} statement"
    if isinstance(node, cst.BaseExpression):
        text = " ".join(texts.of(node).split())
        return f"`{text}`" if len(text) <= 40 else f"`{text[:37]}...`"
    return None
