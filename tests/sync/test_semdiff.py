"""`plait diff`: members only on one side, and changed members summarised by structure."""

from __future__ import annotations

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
