"""The fast rewrite is the full one: the token pre-check and the pruned walk change no byte.

`rewrite_imports` skips a file whose tokens show that no import changes, and
its transformer descends only where an import or a renamed use can be.  A
user would only notice either as speed, or as a wrong import if they were
wrong, so these properties hold them to the reference: the `ast` survey and
a libcst visit of every node (``every_node``), as the transformer ran before.
Generated modules mix every import form (plain, aliased, dotted, relative at
several levels, starred, bracketed over lines with comments, after ``;`` or
a ``:`` on one line), nested in ``try``, ``if`` and functions, with uses of
``import a.b`` names (shadowed too), dynamic imports, strings and comments
naming the modules, ``raise ... from`` and other spellings of the keywords.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis_profiles import examples

from plait.transforms import ImportRewrite, Rewritten, _rewrite_parsed, module_name, rewrite_imports

pytestmark = pytest.mark.slow  # a hypothesis search of hundreds of modules

_MODULES = ["pkg", "pkg.client", "pkg.util", "pkg.sub", "pkg.sub.deep", "other", "other.x", "os.path", "pkgs"]
_RELATIVE = ["", "client", "util", "sub", "sub.deep", "missing"]
_LEAVES = ["client", "util", "sub", "deep", "a", "b"]
_FILES = ["__init__.py", "client.py", "util.py", "sub/__init__.py", "sub/deep.py"]

_module = st.sampled_from(_MODULES)
_leaf = st.sampled_from(_LEAVES)
_alias = st.sampled_from(["", " as c", " as pkg", " as client"])


@st.composite
def _leaves(draw: st.DrawFn) -> str:
    names = draw(st.lists(st.tuples(_leaf, _alias), min_size=1, max_size=3, unique_by=lambda t: t[0]))
    spelled = [f"{name}{alias}" for name, alias in names]
    form = draw(st.sampled_from(["plain", "bracketed", "lines", "star"]))
    if form == "star":
        return "*"
    if form == "bracketed":
        return f"({', '.join(spelled)})"
    if form == "lines":
        return "(\n    " + ",  # why\n    ".join(spelled) + ",\n)"
    return ", ".join(spelled)


@st.composite
def _import(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["import", "from", "relative"]))
    if kind == "import":
        names = draw(st.lists(st.tuples(_module, _alias), min_size=1, max_size=2))
        return "import " + ", ".join(f"{m}{a}" for m, a in names)
    if kind == "from":
        return f"from {draw(_module)} import {draw(_leaves())}"
    dots = "." * draw(st.integers(1, 3))
    return f"from {dots}{draw(st.sampled_from(_RELATIVE))} import {draw(_leaves())}"


@st.composite
def _statement(draw: st.DrawFn) -> str:
    kind = draw(
        st.sampled_from(
            ["import"] * 6
            + ["use", "shadow", "dynamic", "text", "raise", "semicolon", "colon", "try", "if", "def", "class"]
        )
    )
    if kind == "import":
        return draw(_import())
    if kind == "use":
        return f"value = {draw(_module)}.attribute"
    if kind == "shadow":
        head = draw(_module).split(".")[0]
        return f"def shadow({head}):\n    return {draw(_module)}.attribute"
    if kind == "dynamic":
        call = draw(st.sampled_from(["importlib.import_module", "import_module", "__import__"]))
        return f"loaded = {call}({draw(_module)!r})"
    if kind == "text":
        mentions = [f"# see {draw(_module)}", f"NAME = {draw(_module)!r}", f'"""{draw(_import())}"""']
        return draw(st.sampled_from(mentions))
    if kind == "raise":
        return draw(st.sampled_from(["def fail():\n    raise ValueError from None", "def gen():\n    yield from ()"]))
    if kind == "semicolon":
        return f"flag = 1; {draw(_import())}"
    if kind == "colon":
        return f"if flag: {draw(_import())}"
    body = draw(_import()) if kind != "class" else f"attr = {draw(_module)}.attribute"
    indented = "\n".join("    " + line if line.strip() else line for line in body.splitlines())
    if kind == "try":
        return f"try:\n{indented}\nexcept ImportError:\n    pass"
    if kind == "if":
        return f"if TYPE_CHECKING:\n{indented}"
    if kind == "def":
        return f"def lazy():\n{indented}\n    return None"
    return f"class Holder:\n{indented}"


@st.composite
def _case(draw: st.DrawFn) -> tuple[str, str, bool, ImportRewrite]:
    statements = draw(st.lists(_statement(), min_size=1, max_size=8))
    newline = draw(st.sampled_from(["\n", "\n", "\n", "\r\n"]))
    text = newline.join("\n".join(statements).split("\n")) + draw(st.sampled_from([newline, ""]))
    if draw(st.integers(0, 20)) == 0:
        text = "\x0c" + text  # a form feed, which libcst does not give back byte for byte
    target = draw(st.sampled_from(["new", "svc._vendor.pkg", "pkg", "pkg.vendored.pkg", "other"]))
    file_map = draw(st.sampled_from([None, {"client.py": "embedding.py"}, {"sub/deep.py": "sub/shallow.py"}]))
    extra = draw(st.sampled_from([None, {"other": "pkg.other"}, {"pkg.util": "shared.util"}]))
    rewrite = ImportRewrite.between("pkg", target, file_map, extra=extra, absolute=draw(st.booleans()))
    module, is_package = module_name(draw(st.sampled_from(["pkg", "pkg", "other"])), draw(st.sampled_from(_FILES)))
    return text, module, is_package, rewrite


def _outcome(run: object) -> tuple[str, object]:
    try:
        assert callable(run)
        done = run()
        assert isinstance(done, Rewritten)
        return "ok", (done.text, done.problems)
    except ValueError as exc:  # a relative import beyond the top-level package, either way
        return "error", str(exc)


@examples(600)
@given(_case())
def test_the_fast_rewrite_gives_the_bytes_and_problems_of_a_visit_of_every_node(
    case: tuple[str, str, bool, ImportRewrite],
) -> None:
    text, module, is_package, rewrite = case

    def reference() -> Rewritten:
        if rewrite.is_identity:
            return Rewritten(text)
        return _rewrite_parsed(text, module, is_package, rewrite, "f.py", every_node=True)

    def fast() -> Rewritten:
        return rewrite_imports(text, module=module, is_package=is_package, rewrite=rewrite, path="f.py")

    assert _outcome(fast) == _outcome(reference)


def test_a_vendored_package_that_imports_itself_relatively_is_left_as_it_is_without_a_parse() -> None:
    # The vendoring case the pre-check exists for: a prefix rename keeps every relative spelling.
    from plait import transforms

    text = "from . import health\nfrom .client import EmbeddingClient as Client\nfrom ..pkg import x\n"
    rewrite = ImportRewrite.between("embedding_client", "svc._vendor.embedding_client")
    module = "embedding_client.sub.mod"
    assert transforms._untouched(text, module, False, rewrite)
    done = rewrite_imports(text, module=module, rewrite=rewrite)
    assert done.text is text and not done.problems
    # A spelling the rewrite would change is not skipped: one level too many, or a renamed file.
    assert not transforms._untouched("from ..sub import x\n", module, False, rewrite)
    renamed = ImportRewrite.between("embedding_client", "mcp_common", {"sub/client.py": "sub/embedding.py"})
    assert not transforms._untouched(text, module, False, renamed)
    assert rewrite_imports(text, module=module, rewrite=renamed).text == (
        "from . import health\nfrom .embedding import EmbeddingClient as Client\nfrom ..pkg import x\n"
    )
