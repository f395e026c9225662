"""`plait diff`: members only on one side, and changed members summarised by structure."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from plait.cli import cli
from plait.lineage.diff import compare_files, distance, members

A = """import httpx

_MODES = ("none", "http")


class Client:
    def __init__(self, mode, url=""):
        self.mode = mode

    def embed(self, texts):
        try:
            if self.mode == "http":
                return self._http(texts)
            elif self.mode == "api":
                return self._api(texts)
        except httpx.TimeoutException as exc:
            return None

    def close(self):
        pass
"""

B = """import httpx

_MODES = ("none", "http", "uds")


class Client:
    def __init__(self, mode, url="", *, uds_path=""):
        self.mode = mode
        self.uds_path = uds_path

    def embed(self, texts):
        try:
            if self.mode == "http":
                return self._http(texts)
            elif self.mode == "api":
                return self._api(texts)
            elif self.mode == "uds":
                return self._via_uds(texts)
        except (httpx.TimeoutException, TimeoutError) as exc:
            return None

    def _via_uds(self, texts):
        return texts
"""


def _by_path(diff):
    return {m.path: m for m in diff.members}


def test_members_only_on_one_side_and_structural_summaries() -> None:
    diff = compare_files({"c.py": A, "only_a.py": ""}, {"c.py": B, "only_b.py": ""}, a="canonical", b="sibling")
    found = _by_path(diff)

    assert diff.only_a_files == ["only_a.py"] and diff.only_b_files == ["only_b.py"]
    assert found["Client.close"].status == "only-a"
    assert found["Client._via_uds"].status == "only-b"
    assert found["_MODES"].facts == ['entry "uds" added']
    assert found["Client.__init__"].facts[0] == "parameter uds_path added (keyword-only)"
    embed = found["Client.embed"].facts
    assert 'branch self.mode == "uds" added to the dispatch on self.mode == "http"' in embed
    assert "except httpx.TimeoutException widened: + TimeoutError" in embed
    assert any(line == '+            elif self.mode == "uds":' for line in found["Client.embed"].diff)


def test_text_lines_are_one_per_member_with_full_node_paths() -> None:
    diff = compare_files({"c.py": A}, {"c.py": B}, a="canonical", b="sibling")
    lines = [line for line in diff.text_lines() if not line.startswith("    ")]
    assert "c.py  Client._via_uds  only in sibling" in lines
    assert "c.py  Client.close  only in canonical" in lines
    assert any(line.startswith("c.py  Client.embed  changed: branch") for line in lines)


def test_markdown_is_ready_for_a_pull_request() -> None:
    text = compare_files({"c.py": A}, {"c.py": B}, a="canonical", b="sibling").markdown()
    assert text.startswith("### `sibling` compared with `canonical`\n")
    assert "#### `c.py`" in text
    assert "- `Client._via_uds` only in sibling" in text
    assert "  ```diff" in text


def test_identical_copies_do_not_differ() -> None:
    diff = compare_files({"c.py": A}, {"c.py": A}, a="a", b="b")
    assert diff.same and diff.markdown().endswith("No differences.\n")


def test_formatting_and_comments_alone_are_not_a_difference() -> None:
    tidy = '_MODES = ("none", "http")\n\n\ndef f(x):\n    return x\n'
    loose = "_MODES = ('none',   'http')  # the modes\n\ndef f( x ):\n    # same\n    return x\n"
    assert compare_files({"c.py": tidy}, {"c.py": loose}, a="a", b="b").same


def test_distance_counts_members_then_lines() -> None:
    assert distance({"c.py": A}, {"c.py": A}) == (0, 0)
    members_apart, lines_apart = distance({"c.py": A}, {"c.py": B})
    assert members_apart == 5  # _MODES, __init__, embed changed; close and _via_uds on one side
    assert lines_apart > members_apart
    assert set(members(B)) >= {"Client", "Client.embed", "Client._via_uds", "_MODES", "import httpx"}


# --------------------------------------------------------------------------
# a vendored copy, compared through its import rewrite

CORELIB = {
    "__init__.py": '"""corelib."""\n\nfrom corelib.client import Client\nfrom corelib.errors import Failure\n\n'
    '__all__ = ["Client", "Failure"]\n',
    "errors.py": '"""Errors."""\n\n\nclass Failure(Exception):\n    pass\n',
    "transport.py": "def shutdown():\n    return None\n",
    "client.py": '''"""The client: see corelib.errors for what it raises."""

import json

from corelib import errors
from corelib.errors import Failure

TIMEOUT = 5


class Client:
    def __init__(self, mode):
        self.mode = mode

    def fetch(self, text):
        from corelib.transport import shutdown

        try:
            return json.dumps({"mode": self.mode, "text": text})
        except ValueError as exc:
            shutdown()
            raise Failure(str(exc)) from exc

    def close(self):
        from corelib.transport import shutdown

        return shutdown(), errors.Failure
''',
}

VENDORING = """\
[canonical]
package = "corelib"
path = "canonical/corelib"

[consumers.svc]
path = "consumers/svc"
vendor_dir = "svc/_vendor/corelib"
package = "svc._vendor.corelib"
"""

# The copy's three real patches, each among imports that name the vendored package.
PATCHES = [
    ("client.py", "TIMEOUT = 5", "TIMEOUT = 10"),
    ("client.py", "except ValueError as exc:", "except (ValueError, OSError) as exc:"),
    ("client.py", "    def close(self):", "    def health(self):\n        return True\n\n    def close(self):"),
]


def _hand_vendored(root: Path) -> None:
    """The canonical package and a consumer that copied it in with `cp` and a `sed` over its imports."""
    for rel, text in CORELIB.items():
        path = root / "canonical" / "corelib" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        lines = [
            line.replace("corelib", "svc._vendor.corelib") if line.lstrip().startswith(("from ", "import ")) else line
            for line in text.splitlines(keepends=True)
        ]
        copied = root / "consumers" / "svc" / "svc" / "_vendor" / "corelib" / rel
        copied.parent.mkdir(parents=True, exist_ok=True)
        copied.write_text("".join(lines))
    for rel, old, new in PATCHES:
        path = root / "consumers" / "svc" / "svc" / "_vendor" / "corelib" / rel
        assert old in path.read_text()
        path.write_text(path.read_text().replace(old, new))
    (root / "lineages.toml").write_text(VENDORING)


def test_a_vendored_copy_shows_exactly_its_patches_not_its_rewritten_imports(tmp_path: Path) -> None:
    _hand_vendored(tmp_path)
    vendored = tmp_path / "consumers" / "svc" / "svc" / "_vendor" / "corelib" / "client.py"
    assert "from svc._vendor.corelib.transport import shutdown" in vendored.read_text(), "imports were rewritten"

    result = CliRunner().invoke(cli, ["--workspace", str(tmp_path), "diff", "canonical", "svc", "--json"])
    reverse = CliRunner().invoke(cli, ["--workspace", str(tmp_path), "diff", "svc", "canonical", "--json"])

    assert result.exit_code == 0, result.output
    diff = json.loads(result.stdout)
    found = {(m["file"], m["path"], m["status"]) for m in diff["members"]}
    assert found == {
        ("client.py", "TIMEOUT", "changed"),
        ("client.py", "Client.fetch", "changed"),
        ("client.py", "Client.health", "only-b"),
    }
    fetch = next(m for m in diff["members"] if m["path"] == "Client.fetch")
    assert fetch["facts"] == ["except ValueError widened: + OSError"]
    assert not diff["files_only_in_a"] and not diff["files_only_in_b"]
    assert diff["b"]["path"].endswith("svc/_vendor/corelib")
    flipped = {(m["file"], m["path"], m["status"]) for m in json.loads(reverse.stdout)["members"]}
    assert flipped == {(f, p, "only-a" if s == "only-b" else s) for f, p, s in found}


def test_a_copy_and_a_path_are_compared_as_written(tmp_path: Path) -> None:
    """Only a copy's own source is carried through its rewrite: a directory is taken as it is."""
    _hand_vendored(tmp_path)
    result = CliRunner().invoke(
        cli, ["--workspace", str(tmp_path), "diff", str(tmp_path / "canonical" / "corelib"), "svc", "--json"]
    )
    paths = {m["path"] for m in json.loads(result.stdout)["members"]}
    assert "from svc._vendor.corelib.errors import Failure" in paths


CASE = Path(__file__).parents[1] / "merge" / "cases" / "unnamed_statements_pair_by_content"


def test_statements_without_a_name_pair_by_what_they_do() -> None:
    """Two `try` blocks share only their header: the one B lacks is only in A, not "the try changed"."""
    base, ours, theirs = ((CASE / f"{name}.py").read_text(encoding="utf-8") for name in ("Base", "Ours", "Theirs"))
    diff = compare_files({"compat.py": base}, {"compat.py": ours}, a="base", b="ours")
    assert [(m.path, m.status) for m in diff.members] == [("<statement try: import simplejson as json>", "only-a")]
    # The other block, edited, is that block changed; the simplejson one is untouched.
    diff = compare_files({"compat.py": base}, {"compat.py": theirs}, a="base", b="theirs")
    assert [(m.path, m.status) for m in diff.members] == [
        ("<statement try: fast = sys.modules['_speedups']>", "changed")
    ]
    assert any("_speedups_v2" in line for line in diff.members[0].diff)


def test_a_statement_pairs_with_the_one_it_is_most_like_not_the_first() -> None:
    """B kept the second `try` (edited) and dropped the first: the first is only in A."""
    a = (
        "try:\n    fast = load('_speedups')\nexcept KeyError:\n    fast = None\n\n"
        "try:\n    import simplejson as json\nexcept ImportError:\n    import json\n"
    )
    b = "try:\n    import ujson as json\nexcept ImportError:\n    import json\n"
    diff = compare_files({"m.py": a}, {"m.py": b}, a="a", b="b")
    assert sorted((m.path, m.status) for m in diff.members) == [
        ("<statement try: fast = load('_speedups')>", "only-a"),
        ("<statement try: import simplejson as json>", "changed"),
    ]
