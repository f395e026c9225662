"""Import spelling that means the same binding is not a local edit (issue 15, item 5).

A service vendored the client by hand, with ``cp`` and ``sed``, and restyled
a few imports on the way.  Aligned with plait's own rewrite of the same
source, its copy must differ only by the service's real local patch.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis_profiles import examples

from plait.import_spelling import align_import_spelling, align_tree_spelling, same_binding
from plait.transforms import ImportRewrite, module_name, rewrite_tree

PKG = "cpersona._vendored_mcp_common.embedding_client"

SOURCE = {
    "__init__.py": '''\
        """A small embedding client."""

        from . import health
        from ._types import (
            Mode,
            Vectors,
        )
        from .client import Client, scaled

        __all__ = ["Client", "Mode", "Vectors", "health", "scaled"]
        ''',
    "_types.py": '''\
        """Shared types."""

        from __future__ import annotations

        from typing import Literal

        Mode = Literal["dense", "sparse"]
        Vectors = list[list[float]]
        ''',
    "boundary.py": '''\
        """Checks at the edge."""


        def check(value: float) -> float:
            if value < 0:
                raise ValueError("negative")
            return value


        def decode(raw: str) -> float:
            return float(raw)
        ''',
    "cache.py": '''\
        """A cache of values by key."""


        class TTLCache(dict[str, float]):
            pass
        ''',
    "outcome.py": '''\
        """What an embedding call came to."""


        def describe(value: float) -> str:
            return f"value {value}"
        ''',
    "packing.py": '''\
        """Packing of vectors."""


        def pack(values: list[float]) -> bytes:
            return bytes(int(v) for v in values)
        ''',
    "health.py": '''\
        """Health of the service."""

        from __future__ import annotations

        import embedding_client.cache as cache
        from embedding_client import outcome


        def report(value: float) -> str:
            store = cache.TTLCache()
            store["last"] = value
            return outcome.describe(value)
        ''',
    "client.py": '''\
        """The client."""

        from __future__ import annotations

        import json
        from typing import TYPE_CHECKING

        from .boundary import check
        from .boundary import decode
        from .cache import TTLCache
        from .outcome import describe

        if TYPE_CHECKING:
            from ._types import Mode, Vectors

        try:
            from .packing import pack
        except ImportError:
            pack = None


        class Client:
            def __init__(self, mode: Mode = "dense") -> None:
                self.mode = mode
                self.cache = TTLCache()

            def embed(self, raw: str) -> Vectors:
                value = check(decode(raw))
                self.cache[raw] = value
                return [[value]]

            def explain(self, raw: str) -> str:
                return json.dumps(describe(check(decode(raw))))


        def scaled(raw: str) -> float:
            return check(decode(raw)) * 2
        ''',
}

# What the service did by hand.  `sed` first: every self-import names the
# vendored package, relative ones made absolute...
SED = (
    ("from . import ", f"from {PKG} import "),
    ("from .", f"from {PKG}."),
    ("import embedding_client", f"import {PKG}"),
    ("from embedding_client", f"from {PKG}"),
)
# ...then a few imports restyled while fixing up the copy.
RESTYLE = {
    "__init__.py": (
        (f"from {PKG}._types import (\n    Mode,\n    Vectors,\n)\n", f"from {PKG}._types import Mode, Vectors\n"),
        (
            f"from {PKG}.client import Client, scaled\n",
            f"from {PKG}.client import Client\nfrom {PKG}.client import scaled\n",
        ),
    ),
    "health.py": (
        (f"import {PKG}.cache as cache\n", f"from {PKG} import cache\n"),
        (f"from {PKG} import outcome\n", f"import {PKG}.outcome as outcome\n"),
    ),
    "client.py": (
        (
            f"from {PKG}.boundary import check\nfrom {PKG}.boundary import decode\n",
            f"from {PKG}.boundary import decode, check\n",
        ),
        (f"from {PKG}._types import Mode, Vectors\n", f"from {PKG}._types import (Vectors, Mode,)\n"),
    ),
}
# The service's real local patch: an edited line in a function and an added import.
PATCH = {
    "client.py": (
        ("import json\n", "import json\nimport logging\n"),
        ("return check(decode(raw)) * 2\n", "return check(decode(raw)) * 3\n"),
    ),
}


def _replace_all(text: str, edits: tuple[tuple[str, str], ...]) -> str:
    for old, new in edits:
        assert old in text, f"the fixture no longer has {old!r}"
        text = text.replace(old, new)
    return text


def _write_tree(root: Path, files: dict[str, str]) -> None:
    root.mkdir(parents=True, exist_ok=True)
    for rel, text in files.items():
        (root / rel).write_text(text)


def _service_with(tmp_path: Path, name: str, files: dict[str, str]) -> Path:
    """A service checkout holding *files* as its vendored copy, ready to import."""
    service = tmp_path / name
    _write_tree(service / "cpersona", {"__init__.py": ""})
    _write_tree(service / "cpersona" / "_vendored_mcp_common", {"__init__.py": ""})
    _write_tree(service / PKG.replace(".", "/"), files)
    return service


def _run_service(service: Path) -> str:
    code = f"from {PKG} import health, scaled; print(scaled('2'), health.report(1.5))"
    done = subprocess.run([sys.executable, "-c", code], cwd=service, capture_output=True, text=True, check=True)
    return done.stdout.strip()


@pytest.fixture
def hand_vendored(tmp_path: Path) -> tuple[dict[str, str], dict[str, str]]:
    """The service's hand-vendored copy and plait's rewrite of the same source, by file."""
    source = tmp_path / "canonical" / "embedding_client"
    _write_tree(source, {rel: textwrap.dedent(text) for rel, text in SOURCE.items()})
    copy = tmp_path / "copied" / "embedding_client"
    copy.parent.mkdir()
    subprocess.run(["cp", "-r", str(source), str(copy)], check=True)
    vendored = {}
    for path in sorted(copy.iterdir()):
        text = path.read_text()
        for old, new in SED:
            text = text.replace(old, new)
        text = _replace_all(text, RESTYLE.get(path.name, ()))
        vendored[path.name] = _replace_all(text, PATCH.get(path.name, ()))
    canonical = {path.name: path.read_text() for path in source.iterdir()}
    plait = rewrite_tree(canonical, package="embedding_client", rewrite=ImportRewrite.between("embedding_client", PKG))
    return vendored, plait


def test_a_hand_vendored_copy_aligned_with_plaits_rewrite_differs_only_by_its_local_patch(
    hand_vendored: tuple[dict[str, str], dict[str, str]], tmp_path: Path
) -> None:
    vendored, plait = hand_vendored
    expected = {rel: _replace_all(plait[rel], PATCH.get(rel, ())) for rel in plait}
    # Without alignment, three files differ by more than the patch: the spelling.
    assert sorted(rel for rel in vendored if vendored[rel] != expected[rel]) == [
        "__init__.py",
        "client.py",
        "health.py",
    ]
    aligned = {}
    for rel in sorted(vendored):
        module, is_package = module_name(PKG, rel)
        aligned[rel] = align_import_spelling(vendored[rel], plait[rel], module=module, is_package=is_package)
        assert aligned[rel] == expected[rel], rel
    assert align_tree_spelling({**vendored, "README": "from . import x\n"}, plait, package=PKG) == {
        **aligned,
        "README": "from . import x\n",
    }
    # Both copies run, and the same: alignment changed no binding.
    hand = _run_service(_service_with(tmp_path, "hand", vendored))
    assert hand == _run_service(_service_with(tmp_path, "aligned", aligned)) == "6.0 value 1.5"


def test_the_local_patch_survives_byte_for_byte(hand_vendored: tuple[dict[str, str], dict[str, str]]) -> None:
    vendored, plait = hand_vendored
    module, is_package = module_name(PKG, "client.py")
    aligned = align_import_spelling(vendored["client.py"], plait["client.py"], module=module, is_package=is_package)
    assert "import json\nimport logging\nfrom typing import TYPE_CHECKING\n" in aligned
    assert "    return check(decode(raw)) * 3\n" in aligned
    assert f"from {PKG}" not in aligned


# --------------------------------------------------------------------------
# each spelling form

CLIENT = f"{PKG}.client"


def _align(text: str, reference: str, module: str = CLIENT, is_package: bool = False) -> str:
    return align_import_spelling(text, reference, module=module, is_package=is_package)


@pytest.mark.parametrize(
    ("text", "reference", "module", "is_package"),
    [
        pytest.param(
            f"from {PKG}.boundary import check\n",
            "from .boundary import check\n",
            CLIENT,
            False,
            id="absolute-relative",
        ),
        pytest.param(f"from {PKG} import health\n", "from . import health\n", PKG, True, id="init-relative"),
        pytest.param(
            "from cpersona._vendored_mcp_common.util import x\n",
            "from ..util import x\n",
            CLIENT,
            False,
            id="two-dots",
        ),
        pytest.param(
            f"import {PKG}.outcome as outcome\n", f"from {PKG} import outcome\n", CLIENT, False, id="import-as-from"
        ),
        pytest.param(
            f"from {PKG} import outcome as o\n", f"import {PKG}.outcome as o\n", CLIENT, False, id="from-as-import"
        ),
        pytest.param("import os, os.path\n", "import os.path\n", CLIENT, False, id="import-head-and-submodule"),
        pytest.param(
            "from .boundary import check, decode\n",
            "from .boundary import (\n    check,\n    decode,\n)\n",
            CLIENT,
            False,
            id="one-line-parenthesised",
        ),
        pytest.param(
            "from .boundary import decode, check\n", "from .boundary import check, decode\n", CLIENT, False, id="order"
        ),
        pytest.param(
            "from .boundary import (check, decode,)\n",
            "from .boundary import (check, decode)\n",
            CLIENT,
            False,
            id="trailing-comma",
        ),
        pytest.param(
            "from .boundary import check\nfrom .boundary import decode\n",
            "from .boundary import (check, decode)\n",
            CLIENT,
            False,
            id="two-statements-to-one",
        ),
        pytest.param(
            "from .boundary import (check, decode)\n",
            "from .boundary import check\nfrom .boundary import decode\n",
            CLIENT,
            False,
            id="one-statement-to-two",
        ),
        pytest.param(
            f"import {PKG}.outcome; from cpersona._vendored_mcp_common import embedding_client\n",
            f"import {PKG}.outcome\nfrom cpersona._vendored_mcp_common import embedding_client\n",
            CLIENT,
            False,
            id="plait-split-import-a-b",
        ),
        pytest.param(f"from {PKG}.outcome import *\n", "from .outcome import *\n", CLIENT, False, id="star"),
    ],
)
def test_a_respelling_of_the_same_binding_takes_the_references_spelling(
    text: str, reference: str, module: str, is_package: bool
) -> None:
    assert same_binding(text, reference, module=module, is_package=is_package)
    assert _align(text, reference, module, is_package) == reference
    assert _align(reference, text, module, is_package) == text


@pytest.mark.parametrize(
    ("text", "reference"),
    [
        pytest.param(f"import {PKG}.outcome\n", f"from {PKG} import outcome\n", id="import-a-b-loads-not-binds"),
        pytest.param(
            f"import {PKG}.outcome\n",
            f"import {PKG}.outcome\nfrom cpersona._vendored_mcp_common import embedding_client\n",
            id="sed-import-a-b-binds-no-embedding_client",
        ),
        pytest.param(
            "from .boundary import check, decode, clamp\n", "from .boundary import check, decode\n", id="added"
        ),
        pytest.param("from .boundary import check as c\n", "from .boundary import check\n", id="alias"),
        pytest.param("from .outcome import *\n", "from .outcome import describe, printable\n", id="star-is-no-list"),
        pytest.param("from .boundary import check\n", "from ..boundary import check\n", id="other-module"),
        pytest.param("import numpy\n", "import json\n", id="another-module"),
        pytest.param("import os.path\n", "import os\n", id="import-a-b-loads-a-b"),
    ],
)
def test_an_import_that_binds_something_else_is_a_real_edit_and_stays(text: str, reference: str) -> None:
    assert not same_binding(text, reference, module=CLIENT, is_package=False)
    assert _align(text, reference) == text


def test_only_the_references_statement_is_taken_and_the_lines_around_it_stay_the_texts() -> None:
    text = f"# why the boundary comes first\nfrom {PKG}.boundary import check, decode\n\n\ndef f():\n    return check\n"
    reference = (
        '"""The reference has its own docstring."""\n'
        "\n"
        "from .boundary import (\n"
        "    check,\n"
        "    decode,\n"
        ")\n"
        "\n"
        "def f():\n"
        "    return decode\n"
    )
    assert _align(text, reference) == (
        "# why the boundary comes first\n"
        "from .boundary import (\n"
        "    check,\n"
        "    decode,\n"
        ")\n"
        "\n"
        "\n"
        "def f():\n"
        "    return check\n"
    )


def test_a_comment_inside_a_statement_is_kept_by_keeping_the_statement() -> None:
    text = f"from {PKG}.boundary import check  # noqa: F401 kept on purpose\n"
    assert _align(text, "from .boundary import check\n") == text
    assert _align(text, "from .boundary import check  # noqa: F401 kept on purpose\n") == (
        "from .boundary import check  # noqa: F401 kept on purpose\n"
    )


def test_a_comment_line_between_two_imports_keeps_them_apart() -> None:
    text = "from .boundary import check\n# decode came later\nfrom .boundary import decode\n"
    assert _align(text, "from .boundary import check, decode\n") == text


def test_no_import_moves_across_code() -> None:
    text = "from .boundary import check\nLIMIT = 3\nfrom .boundary import decode\n"
    assert _align(text, "from .boundary import check, decode\nLIMIT = 3\n") == text


def test_a_name_bound_twice_is_never_regrouped_because_the_last_binding_wins() -> None:
    text = "from .boundary import check\nfrom .outcome import check\n"
    reference = "from .outcome import check\nfrom .boundary import check\n"
    assert _align(text, reference) == text
    assert not same_binding(text, reference, module=CLIENT, is_package=False)


def test_an_added_import_inside_a_run_stays_where_the_text_has_it() -> None:
    text = f"import json\nimport logging\nfrom {PKG}.boundary import check\nfrom {PKG}.cache import TTLCache\n"
    reference = "import json\nfrom .boundary import check\nfrom .cache import TTLCache\n"
    assert (
        _align(text, reference)
        == "import json\nimport logging\nfrom .boundary import check\nfrom .cache import TTLCache\n"
    )


def test_imports_in_try_and_type_checking_blocks_align_with_the_same_block_and_keep_their_indentation() -> None:
    text = (
        "if TYPE_CHECKING:\n"
        f"    from {PKG}._types import Vectors, Mode\n"
        "try:\n"
        f"    from {PKG}.packing import pack\n"
        "except ImportError:\n"
        "    pack = None\n"
    )
    reference = (
        "if TYPE_CHECKING:\n"
        "    from ._types import (\n"
        "        Mode,\n"
        "        Vectors,\n"
        "    )\n"
        "try:\n"
        "    from .packing import pack\n"
        "except ImportError:\n"
        "    pack = None\n"
    )
    assert _align(text, reference) == reference
    # The continuation lines sit under the text's own indentation, a tab here.
    assert _align(text.replace("    ", "\t"), reference) == (
        "if TYPE_CHECKING:\n"
        "\tfrom ._types import (\n"
        "\t    Mode,\n"
        "\t    Vectors,\n"
        "\t)\n"
        "try:\n"
        "\tfrom .packing import pack\n"
        "except ImportError:\n"
        "\tpack = None\n"
    )


def test_a_respelling_that_only_shows_after_another_is_aligned_too() -> None:
    # `b, c` first becomes the reference's two lines; only then does `a` with
    # the first of them match the reference's `a, b`.  A second alignment
    # must find nothing left to do.
    text = "from .m import a\nfrom .m import (b, c)\n"
    reference = "from .m import a, b\nX = 0\nfrom .m import b\nfrom .m import c\n"
    once = _align(text, reference)
    assert once == "from .m import a, b\nfrom .m import c\n"
    assert _align(once, reference) == once


def test_a_text_aligned_to_itself_is_unchanged_even_where_it_spells_one_binding_two_ways() -> None:
    text = (
        "from .m import a, b\n"
        "X = 0\n"
        "from .m import (a, b)\n"
        "\n"
        "def f():\n"
        "    from .m import (\n"
        "        a,\n"
        "        b,\n"
        "    )\n"
    )
    assert _align(text, text) == text


def test_an_import_in_another_block_of_the_reference_does_not_lend_its_spelling() -> None:
    text = f"def f():\n    from {PKG}.boundary import check\n    return check\n"
    reference = "from .boundary import check\n\ndef f():\n    return check\n"
    assert _align(text, reference) == text


def test_imports_are_aligned_in_every_kind_of_block() -> None:
    reference = textwrap.dedent(
        """\
        if A:
            from .m import a
        elif B:
            from .m import b
        else:
            from .m import c
        for x in y:
            from .m import d
        else:
            from .m import e
        while A:
            from .m import f
        else:
            from .m import g
        try:
            from .m import h
        except ImportError:
            from .m import i
        else:
            from .m import j
        finally:
            from .m import k
        try:
            pass
        except* OSError:
            from .m import l
        with A:
            from .m import n
        match A:
            case 1:
                from .m import o
        class C:
            from .m import p
            def method(self):
                from .m import q
        """
    )
    text = reference.replace("from .m import", f"from {PKG}.m import")
    assert _align(text, reference) == reference


@pytest.mark.parametrize(
    ("text_header", "reference_header"),
    [
        pytest.param("def f():", "def g():", id="another-function"),
        pytest.param("if TYPE_CHECKING:", "if sys.version_info >= (3, 12):", id="another-condition"),
        pytest.param("try:\n    pass\nexcept ImportError:", "try:\n    pass\nexcept OSError:", id="another-handler"),
    ],
)
def test_a_block_of_the_same_depth_but_another_header_does_not_lend_its_spelling(
    text_header: str, reference_header: str
) -> None:
    text = f"{text_header}\n    from {PKG}.boundary import check\n"
    reference = f"{reference_header}\n    from .boundary import check\n"
    assert _align(text, reference) == text
    assert (
        _align(text, reference.replace(reference_header, text_header))
        == f"{text_header}\n    from .boundary import check\n"
    )


def test_text_that_does_not_parse_is_returned_as_it_is() -> None:
    text = f"from {PKG}.boundary import (check\n"
    assert _align(text, "from .boundary import check\n") == text
    assert _align("from .boundary import check\n", "def (:\n") == "from .boundary import check\n"


def test_a_relative_import_beyond_the_top_package_is_never_aligned() -> None:
    text = "from .... import x\n"
    assert _align(text, "from cpersona import x\n") == text
    assert not same_binding(text, text, module=CLIENT, is_package=False)


def test_same_binding_answers_only_for_imports() -> None:
    kwargs = {"module": CLIENT, "is_package": False}
    assert same_binding("    from .boundary import check\n", f"from {PKG}.boundary import check", **kwargs)
    assert same_binding(
        "from .boundary import (\n    decode,\n    check,\n)\n", "from .boundary import check, decode", **kwargs
    )
    assert not same_binding("x = 1\n", "x = 1\n", **kwargs)
    assert not same_binding("from .boundary import check\nx = 1\n", "from .boundary import check\nx = 1\n", **kwargs)
    assert not same_binding("from .boundary import (", "from .boundary import check", **kwargs)


# --------------------------------------------------------------------------
# properties: alignment never changes what a module binds, and is idempotent
#
# The meaning of a file is worked out here with `ast`, independently of the
# implementation: per block, what the imports have bound (name -> target)
# and loaded (`import a.b`) at each statement that is not an import.  A star
# import counts as such a statement too, since where it stands decides what
# it shadows.

_Meaning = list[tuple[tuple[str, ...], tuple[str, ...], tuple[tuple[str, str], ...], tuple[str, ...]]]


def _absolute(module: str, is_package: bool, level: int, name: str | None) -> str:
    parts = module.split(".")
    anchor = parts if is_package else parts[:-1]
    if level > len(anchor):
        raise ValueError("beyond the top-level package")
    base = anchor[: len(anchor) - level + 1]
    return ".".join(base + ([name] if name else []))


def _meaning(text: str, module: str, is_package: bool) -> _Meaning:
    out: _Meaning = []

    def block(statements: list[ast.stmt], path: tuple[str, ...]) -> None:
        bound: dict[str, str] = {}
        loaded: set[str] = set()

        def snapshot(at: str) -> None:
            out.append((path, (at,), tuple(sorted(bound.items())), tuple(sorted(loaded))))

        for statement in statements:
            if isinstance(statement, ast.Import):
                for alias in statement.names:
                    if alias.asname:
                        bound[alias.asname] = alias.name
                    else:
                        head = alias.name.split(".")[0]
                        bound[head] = head
                        if alias.name != head:
                            loaded.add(alias.name)
            elif isinstance(statement, ast.ImportFrom):
                base = (
                    _absolute(module, is_package, statement.level, statement.module)
                    if statement.level
                    else statement.module
                )
                if statement.names[0].name == "*":
                    snapshot(f"* from {base}")
                for alias in statement.names:
                    if alias.name != "*":
                        bound[alias.asname or alias.name] = f"{base}.{alias.name}"
            else:
                snapshot(type(statement).__name__)
                for field in ("body", "orelse", "finalbody", "handlers"):
                    for at, inner in enumerate(getattr(statement, field, [])):
                        if isinstance(inner, ast.ExceptHandler):
                            block(inner.body, (*path, f"{field}{at}"))
                        elif at == 0:
                            block(getattr(statement, field), (*path, field))
        snapshot("end")

    block(ast.parse(text).body, ())
    return out


@dataclass(frozen=True)
class _Entry:
    """One name an import binds, before it is spelled."""

    kind: str  # "from": `from base import name as local`; "plain": `import base`; "star"
    base: str
    name: str = ""
    local: str = ""


_MODULES = [("pkg.sub.mod", False), ("pkg.sub", True)]
_BASES = ["pkg", "pkg.sub", "pkg.sub.leaf", "pkg.other", "os", "ext.lib"]
_PLAIN = ["os", "os.path", "ext.lib", "pkg.sub.leaf", "json", "xml", "xml.dom.minidom"]

_entries = st.one_of(
    st.builds(
        lambda base, name, renamed: _Entry("from", base, name, f"{name}_{renamed}" if renamed else name),
        st.sampled_from(_BASES),
        st.sampled_from("abcde"),
        st.sampled_from(["", "", "x", "y"]),
    ),
    st.builds(lambda base: _Entry("plain", base), st.sampled_from(_PLAIN)),
    st.builds(lambda base: _Entry("star", base), st.sampled_from(_BASES)),
)


def _spell_base(draw: st.DrawFn, base: str, module: str, is_package: bool) -> str:
    """*base* as a `from` statement may name it: absolute, or relative when it can be."""
    anchor = module.split(".") if is_package else module.split(".")[:-1]
    forms = [base]
    for up in range(len(anchor)):
        prefix = anchor[: len(anchor) - up]
        if base.split(".")[: len(prefix)] == prefix:
            forms.append("." * (up + 1) + base[len(".".join(prefix)) + 1 :])
    return draw(st.sampled_from(forms))


def _spell_names(draw: st.DrawFn, aliases: list[str], comment: str) -> str:
    aliases = draw(st.permutations(aliases))
    layout = draw(st.sampled_from(["bare", "paren", "paren-comma", "lines"]))
    if layout == "bare":
        return ", ".join(aliases) + comment
    if layout == "paren":
        return f"({', '.join(aliases)})" + comment
    if layout == "paren-comma":
        return f"({', '.join(aliases)},)" + comment
    return "(" + comment + "\n" + "".join(f"    {alias},\n" for alias in aliases) + ")"


@st.composite
def _spelling(draw: st.DrawFn, entries: list[_Entry], module: str, is_package: bool, comments: bool) -> list[str]:
    """*entries* as lines of import statements, grouped, ordered and laid out as drawn."""
    statements: list[tuple[str, list[str], str]] = []  # (kind, aliases or names, `from` base)
    for entry in entries:
        if entry.kind == "star":
            statements.append(("star", [], entry.base))
            continue
        if entry.kind == "plain":
            alias, kind, base = entry.base, "import", ""
        elif draw(st.booleans()):
            alias, kind, base = f"{entry.base}.{entry.name} as {entry.local}", "import", ""
        else:
            alias = entry.name if entry.local == entry.name else f"{entry.name} as {entry.local}"
            kind, base = "from", entry.base
        last = statements[-1] if statements else None
        if last is not None and last[0] == kind and last[2] == base and draw(st.booleans()):
            last[1].append(alias)
        else:
            statements.append((kind, [alias], base))
    lines: list[str] = []
    for kind, aliases, base in statements:
        comment = "  # kept" if comments and draw(st.integers(0, 5)) == 0 else ""
        if kind == "import":
            line = f"import {', '.join(draw(st.permutations(aliases)))}{comment}"
        elif kind == "star":
            line = f"from {_spell_base(draw, base, module, is_package)} import *{comment}"
        else:
            line = f"from {_spell_base(draw, base, module, is_package)} import {_spell_names(draw, aliases, comment)}"
        if lines and "\n" not in lines[-1] and "#" not in lines[-1] and draw(st.integers(0, 4)) == 0:
            lines[-1] += "; " + line
        else:
            lines.append(line)
    return lines


# A file is blocks of import groups; the code and comment lines between them
# are the same in text and reference.
_SHAPE = [
    ("", "x = 0"),
    ("", "# a comment line"),
    ("    ", "if TYPE_CHECKING:"),
    ("    ", "try:"),
    ("    ", "except ImportError:"),
]


def _file(groups: list[list[str]]) -> str:
    out: list[str] = []
    for (indent, header), group in zip(_SHAPE, groups, strict=True):
        out.append(header)
        out.extend(indent + line.replace("\n", "\n" + indent) for line in group)
        if indent and not group:
            out.append(indent + "pass")
    out.append("y = 1")
    return "\n".join(out) + "\n"


@st.composite
def _text_and_reference(draw: st.DrawFn, *, distinct: bool) -> tuple[str, str, str, bool]:
    module, is_package = draw(st.sampled_from(_MODULES))
    texts: list[list[str]] = []
    references: list[list[str]] = []
    seen: set[str] = set()  # names bound so far, when each may be bound once in the file
    for _ in _SHAPE:
        entries = draw(st.lists(_entries, max_size=6))
        if distinct:
            # One binding spelled two ways in one block leaves no single right spelling.
            kept = []
            for entry in entries:
                head = entry.local if entry.kind == "from" else entry.base.split(".")[0]
                if entry.kind != "star" and head not in seen:
                    seen.add(head)
                    kept.append(entry)
            entries = changed = kept
        else:
            # Some local edits: an entry dropped, one added.
            changed = list(entries)
            if changed and draw(st.booleans()):
                del changed[draw(st.integers(0, len(changed) - 1))]
            if draw(st.booleans()):
                changed.insert(draw(st.integers(0, len(changed))), draw(_entries))
        texts.append(draw(_spelling(changed, module, is_package, comments=not distinct)))
        references.append(draw(_spelling(entries, module, is_package, comments=not distinct)))
    return _file(texts), _file(references), module, is_package


_PROPERTY = examples(300)


@pytest.mark.slow  # a hypothesis search of hundreds of examples
@_PROPERTY
@given(_text_and_reference(distinct=False))
def test_alignment_never_changes_what_a_module_binds(case: tuple[str, str, str, bool]) -> None:
    text, reference, module, is_package = case
    aligned = align_import_spelling(text, reference, module=module, is_package=is_package)
    assert _meaning(aligned, module, is_package) == _meaning(text, module, is_package)
    # Whatever is not an import stays where it was.
    assert [line for line in aligned.splitlines() if not _is_import_line(line)] == [
        line for line in text.splitlines() if not _is_import_line(line)
    ]


@pytest.mark.slow  # a hypothesis search of hundreds of examples
@_PROPERTY
@given(_text_and_reference(distinct=False))
def test_aligning_twice_is_aligning_once(case: tuple[str, str, str, bool]) -> None:
    text, reference, module, is_package = case
    once = align_import_spelling(text, reference, module=module, is_package=is_package)
    assert align_import_spelling(once, reference, module=module, is_package=is_package) == once
    assert align_import_spelling(reference, reference, module=module, is_package=is_package) == reference


@pytest.mark.slow  # a hypothesis search of hundreds of examples
@_PROPERTY
@given(_text_and_reference(distinct=True))
def test_a_pure_respelling_comes_out_as_the_reference(case: tuple[str, str, str, bool]) -> None:
    text, reference, module, is_package = case
    assert align_import_spelling(text, reference, module=module, is_package=is_package) == reference


def _is_import_line(line: str) -> bool:
    """Whether *line* belongs to an import statement, in the files `_file` writes."""
    stripped = line.strip()
    return stripped.startswith(("import ", "from ", ")")) or stripped.endswith(",") and "=" not in stripped
