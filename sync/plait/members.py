"""What a report names: the member each change is about, and the changes of one member folded.

The merge counts changes element by element, which is right for proving
that nothing was lost and wrong for a person: a new tuple of twelve names
read as twelve lines of ``entry "X" in __all__``, a decorator's argument as
``keyword argument frozen in dataclass(...)``, a version bump as
``module-level statements``.  A person names members: ``__all__``,
``Evidence``, ``__version__``.  So each change gets the member it is about
(its *node*: a dotted path, or the binding a module-level statement makes),
and the changes of one member fold into one `Member`.  The summary names
it (``~ __all__``); the detail says what changed in it
(``~ __all__: + entries "Advisory", "Mode"``).

Naming a module-level statement or keyword argument by its binding reads
the file's text with libcst, when the caller has it (`Texts`); without it,
the statement the change names is parsed on its own.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from . import contents
from .merge.facts import MODULE

if TYPE_CHECKING:
    import libcst as cst

__all__ = ["DOCSTRING", "FILE", "IMPORTS", "MODULE", "Edit", "Member", "Texts", "binding_of", "fold", "listing"]

FILE = "<file>"
IMPORTS = "<imports>"
DOCSTRING = "<docstring>"

SIGNS = {"added": "+", "changed": "~", "removed": "-", "moved": ">"}
_MOVED_INTO = "moved with the enclosing block into "


@dataclass(frozen=True)
class Edit:
    """One change as the merge or a lock states it: where, what kind, which element.

    path: the node path the merge saw it in (``<module>``, ``Client.fetch``, ``<file>``).
    detail: the element (``parameter uds_path``, ``entry "uds" in _MODES``), or "" for the node itself.
    statement: for a changed body, the first statement the side changed.
    """

    file: str
    path: str
    kind: str
    detail: str = ""
    statement: str = ""
    note: str = ""


@dataclass(frozen=True)
class _Element:
    """The element an edit is about: its category, its name as written, and where in the node it is."""

    category: str
    name: str = ""
    scope: str = ""


# Prefix → category; a prefix followed by what starts a statement
# (``branch = 3``) names a statement, not the element.
_PREFIXES = (
    ("parameter ", "parameter"),
    ("decorator ", "decorator"),
    ("base ", "base"),
    ("except type ", "except type"),
    ("branch ", "branch"),
    ("keyword argument ", "keyword argument"),
    ("attribute ", "attribute"),
    ("entry ", "entry"),
    ("dict key ", "dict key"),
    ("import ", "import"),
    ("from ", "import"),
)
_STATEMENT_STARTS = ("=", ":", "(", "[", ".", "+", "-", "*", "/", "|", "&", "%", "<", ">", "@", "^")


def _element(edit: Edit) -> _Element:
    detail = edit.detail
    if detail in ("", "module-level statements"):
        return _Element("statement", edit.statement) if edit.statement else _Element("")
    for prefix, category in _PREFIXES:
        if detail.startswith(prefix) and not detail[len(prefix) :].startswith(_STATEMENT_STARTS):
            rest = detail[len(prefix) :]
            if prefix == "from ":
                module, _, names = rest.partition(" import ")
                return _Element(category, names, module)
            if category == "keyword argument":
                name, _, callee = rest.partition(" in ")
                return _Element(category, name, callee)
            if category in ("entry", "dict key") and " in " in rest:
                name, _, container = rest.rpartition(" in ")
                return _Element(category, name, container)
            return _Element(category, rest)
    # A lock's local edit names a changed body by its statement, in `detail`.
    return _Element("statement", detail)


def _is_name(text: str) -> bool:
    return bool(text) and all(part.isidentifier() for part in text.split("."))


class Texts:
    """A file's texts (before and after), read with libcst on demand, to name what a change at
    module level binds: the statement a change names, the call a keyword argument is in."""

    def __init__(self, *texts: str | None) -> None:
        self._texts = [t for t in texts if t]

    @functools.cached_property
    def _statements(self) -> list[tuple[str, str, cst.CSTNode]]:
        """(text, binding, node) of every top-level statement of every text that parses."""
        import libcst as cst

        out: list[tuple[str, str, cst.CSTNode]] = []
        for text in self._texts:
            try:
                module = cst.parse_module(contents.python_text(text) or "")
            except Exception:  # noqa: BLE001 - a file with conflict markers, or not Python: name nothing
                continue
            for index, stmt in enumerate(module.body):
                binding = binding_of(stmt, first=index == 0)
                if binding:
                    out.append((module.code_for_node(stmt).strip(), binding, stmt))
        return out

    @functools.cached_property
    def classes(self) -> frozenset[str]:
        """The dotted paths of the classes the texts define, nested ones included: a statement
        in a class body binds a member of the class, one in a function's body does not."""
        import libcst as cst

        found: set[str] = set()
        todo = [(binding, node) for _code, binding, node in self._statements if isinstance(node, cst.ClassDef)]
        while todo:
            path, cls = todo.pop()
            found.add(path)
            body = cls.body.body if isinstance(cls, cst.ClassDef) else ()
            todo.extend((f"{path}.{inner.name.value}", inner) for inner in body if isinstance(inner, cst.ClassDef))
        return frozenset(found)

    def member(self, path: str) -> str | None:
        """The code of the definition at the dotted *path* (``Client.fetch``) in the first text
        that has it, or None: what a member reads as, to tell whether a run changed it.  A
        class is its own statements (``timeout = 10``), not its methods, which are members of
        their own."""
        import libcst as cst

        head, _, rest = path.partition(".")
        for _code, binding, node in self._statements:
            if binding != head or not isinstance(node, cst.FunctionDef | cst.ClassDef):
                continue
            found: cst.FunctionDef | cst.ClassDef = node
            for name in rest.split(".") if rest else ():
                body = found.body.body if isinstance(found, cst.ClassDef) else ()
                inner = [s for s in body if isinstance(s, cst.FunctionDef | cst.ClassDef) and s.name.value == name]
                if not inner:
                    return None
                found = inner[0]
            module = cst.Module(body=[])
            if isinstance(found, cst.FunctionDef):
                return module.code_for_node(found)
            own = [s for s in found.body.body if not isinstance(s, cst.FunctionDef | cst.ClassDef)]
            return "\n".join([found.name.value, *(module.code_for_node(s) for s in own)])
        return None

    def statement(self, label: str) -> str | None:
        """The binding of the top-level statement whose text starts as *label* does."""
        start = _label_start(label)
        if not start:
            return None
        for code, binding, _node in self._statements:
            if code.startswith(start):
                return binding
        return None

    def keyword(self, name: str, callee: str) -> str | None:
        """The binding of the top-level statement holding a call ``callee(name=...)``: a decorator's
        keyword names the class it decorates, an argument the constant it builds."""
        import libcst as cst
        import libcst.matchers as m
        from libcst.helpers import get_full_name_for_node

        func = callee.removesuffix("(...)")
        for _code, binding, node in self._statements:
            for call in m.findall(node, m.Call()):
                if not isinstance(call, cst.Call) or get_full_name_for_node(call.func) != func:
                    continue
                if any(arg.keyword is not None and arg.keyword.value == name for arg in call.args):
                    return binding
        return None


def binding_of(stmt: cst.CSTNode, *, first: bool) -> str | None:
    """The name a top-level statement binds: a definition's, an assignment's target, the docstring."""
    import libcst as cst

    if isinstance(stmt, cst.FunctionDef | cst.ClassDef):
        return stmt.name.value
    if not isinstance(stmt, cst.SimpleStatementLine) or not stmt.body:
        return None
    small = stmt.body[0]
    target: cst.BaseExpression | None = None
    if isinstance(small, cst.Assign):
        target = small.targets[0].target
    elif isinstance(small, cst.AnnAssign | cst.AugAssign):
        target = small.target
    elif isinstance(small, cst.Expr) and isinstance(small.value, cst.SimpleString | cst.ConcatenatedString):
        return DOCSTRING if first else None
    if isinstance(target, cst.Tuple):
        names = [_dotted(e.value) for e in target.elements]
        return ", ".join(n for n in names if n) or None
    return _dotted(target) if target is not None else None


def _dotted(node: cst.CSTNode) -> str | None:
    from libcst.helpers import get_full_name_for_node

    name = get_full_name_for_node(node)
    return name if name and _is_name(name) else None


def _label_start(label: str) -> str:
    """A change's statement label as the statement's text begins: without "removed ",
    "(and N more)" or the "..." that cut it short."""
    text = label.removeprefix("removed ")
    if text.endswith(" more)") and " (and " in text:
        text = text.rpartition(" (and ")[0]
    return text.removesuffix(" ...").removesuffix("...").strip()


def _binding_of_label(label: str) -> str | None:
    """The binding of a statement known only by its label (the file's text is not at hand)."""
    import libcst as cst

    start = _label_start(label)
    for candidate in (start, start + '"""', start + "'''"):
        try:
            module = cst.parse_module(candidate + "\n")
        except Exception:  # noqa: BLE001 - not a whole statement: try the next reading
            continue
        if module.body:
            return binding_of(module.body[0], first=True)
    return None


def _node(edit: Edit, element: _Element, texts: Texts | None) -> str:
    if edit.path == FILE:
        return FILE
    path = edit.note.removeprefix(_MOVED_INTO) if edit.note.startswith(_MOVED_INTO) else edit.path
    if path != MODULE:
        if element.category == "attribute":
            return f"{path}.{element.name}"
        if element.category == "statement" and texts is not None and path in texts.classes:
            # `timeout = 10` in a class body is the member `Client.timeout`, as its conflict says.
            binding = _binding_of_label(element.name)
            if binding:  # (a class's docstring is `Client.<docstring>`, as `plait diff` names it)
                return f"{path}.{binding}"
        return path
    category = element.category
    if category == "import":
        return IMPORTS
    if category == "attribute":
        return element.name
    if category in ("entry", "dict key"):
        return element.scope if _is_name(element.scope) else MODULE
    found: str | None = None
    if category == "statement":
        found = texts.statement(element.name) if texts is not None else None
        found = found or _binding_of_label(element.name)
    elif category == "keyword argument" and texts is not None:
        found = texts.keyword(element.name, element.scope)
    return found or MODULE


@dataclass
class Member:
    """The changes of one member of one file, folded.

    node: the member (``EmbeddingClient.embed``, ``__version__``), or one of
      ``<file>`` (the whole file), ``<imports>`` (the module's imports, one
      member per sign), ``<module>`` (statements that bind nothing nameable).
    sign: ``+`` the member was added, ``-`` removed, ``>`` moved, ``~`` changed.
    parts: what changed inside it, folded: ``+ parameters redactor, timeout``.
    edits: the edits folded into it.
    """

    file: str
    node: str
    sign: str
    parts: list[str] = field(default_factory=list)
    note: str = ""
    edits: list[Edit] = field(default_factory=list)

    @property
    def name(self) -> str:
        """The member as a person names it."""
        if self.node == IMPORTS:
            count = len(self.edits)
            return f"{count} import{'s' if count != 1 else ''}"
        if self.node == FILE:
            return f"file {self.file}"
        if self.node == DOCSTRING:
            return "module docstring"
        if self.node == MODULE:
            return "module statements"
        return self.node

    @property
    def brief(self) -> str:
        """``+ EmbeddingClient.embed_with_outcome``, ``~ __version__``, ``+ 14 imports``."""
        return f"{self.sign} {self.name}"

    @property
    def detail(self) -> str:
        """The brief, its note, and what changed inside it: one line for ``--verbose``."""
        head = self.brief + (f" ({self.note})" if self.note else "")
        return f"{head}: {'; '.join(self.parts)}" if self.parts else head


def _plural(category: str, count: int) -> str:
    if count == 1:
        return category
    if category == "entry":
        return "entries"
    if category == "branch":
        return "branches"
    if category == "except type":
        return "except types"
    if category == "dict key":
        return "dict keys"
    return category + "s"


def _parts(node: str, sign: str, elements: Sequence[tuple[Edit, _Element]]) -> list[str]:
    """What changed inside one member, folded by kind, category and place: one tuple's entries,
    one call's keyword arguments, one module's imported names, each on one part."""
    groups: dict[tuple[str, str, str], list[str]] = {}
    alone: list[str] = []
    for edit, element in elements:
        part_sign = SIGNS.get(edit.kind, "~")
        if part_sign == sign and sign in "+-":
            continue  # an added member's elements were added with it
        note = f" ({edit.note})" if edit.note and not edit.note.startswith(_MOVED_INTO) else ""
        if edit.note.startswith(_MOVED_INTO):
            note = f" (moved with its block from {edit.path})"
        if element.category == "statement":
            alone.append(f"{part_sign} {element.name.removeprefix('removed ')}{note}")
        elif element.category in ("branch", "") or note:
            name = f"{element.category} {element.name}".strip()
            alone.append(f"{part_sign} {name}{note}" if name else f"{part_sign} {edit.path}{note}")
        else:
            names = groups.setdefault((part_sign, element.category, element.scope), [])
            if element.name not in names:
                names.append(element.name)
    out: list[str] = []
    for (part_sign, category, scope), names in groups.items():
        listed = ", ".join(names)
        if category == "import":
            out.append(f"{part_sign} from {scope} import {listed}" if scope else f"{part_sign} import {listed}")
            continue
        where = f" in {scope}" if scope and scope != node else ""
        out.append(f"{part_sign} {_plural(category, len(names))} {listed}{where}")
    return out + alone


def fold(edits: Iterable[Edit], texts: Mapping[str, Texts] | None = None) -> list[Member]:
    """*edits* folded into one `Member` per file and member, in the order they come.

    *texts* (file → its texts) lets a change at module level be named by
    the binding it changes.
    """
    grouped: dict[tuple[str, str, str], list[tuple[Edit, _Element]]] = {}
    for edit in edits:
        element = _element(edit)
        node = _node(edit, element, (texts or {}).get(edit.file))
        # Imports fold by sign: "+ 14 imports" and "- 1 import" are two facts.
        split = SIGNS.get(edit.kind, "~") if node in (IMPORTS, FILE) else ""
        grouped.setdefault((edit.file, node, split), []).append((edit, element))
    members: list[Member] = []
    for (file, node, split), elements in grouped.items():
        own = [
            (edit, element)
            for edit, element in elements
            if element.category == ""
            or (element.category == "attribute" and (node == element.name or node.endswith("." + element.name)))
        ]
        if split:
            sign = split
        elif own:
            sign = SIGNS.get(own[0][0].kind, "~")
        else:
            sign = "~"
        if node == IMPORTS:
            parts = _parts("", "", elements)
        elif node == FILE:
            parts = [d for d in dict.fromkeys(e.detail for e, _ in elements) if d]
        else:
            parts = _parts(node, sign, [pair for pair in elements if pair not in own])
        note = "; ".join(e.note for e, _ in own if e.note)
        members.append(Member(file, node, sign, parts, note, [e for e, _ in elements]))
    return members


def listing(members: Sequence[Member], limit: int = 0) -> str:
    """The briefs of *members*, comma-separated; past *limit* (when given), ``and N more``."""
    briefs = [m.brief for m in members]
    if limit and len(briefs) > limit:
        return ", ".join(briefs[:limit]) + f" and {len(briefs) - limit} more"
    return ", ".join(briefs)
