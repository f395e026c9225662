"""The plain readers `plait check` uses instead of the standard library say what it says, or stand aside.

`plain_toml` reads a manifest spelled plainly without tomllib: whatever it
returns is what tomllib returns, and a text it does not know (or that is
not TOML at all) is tomllib's to read and to refuse.  `is_plain_relative`
splits a path where it once parsed one: it says what `PurePosixPath` says.
"""

from __future__ import annotations

import tomllib
from pathlib import Path, PurePosixPath

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from hypothesis_profiles import examples

from plait.paths import is_plain_relative
from plait.plain_toml import plain_toml

REPO = Path(__file__).resolve().parent.parent

_KEY = st.sampled_from(["path", "package", "vendor_dir", "source", "a-b", "x_1", '"quoted key"', '"a.b"', "7"])
_STRING = st.text(st.characters(blacklist_categories=("Cs",)), max_size=8).map(lambda s: f'"{s}"')
_VALUE = st.one_of(
    _STRING,
    st.sampled_from(["true", "false", "0", "12", "007", "1_000", "-1", "1.5", "'literal'", "[]", "{}", "True"]),
    st.lists(_STRING, max_size=3).map(lambda items: f"[{', '.join(items)}]"),
    st.lists(st.tuples(_KEY, _STRING), max_size=3).map(lambda kv: "{" + ", ".join(f"{k} = {v}" for k, v in kv) + "}"),
)
_NAME = st.sampled_from(["canonical", "consumers", "lineages", "svc", "tool", '"svc.x"', "rename", "transforms"])
_HEADER = st.lists(_NAME, min_size=1, max_size=3).map(lambda parts: f"[{'.'.join(parts)}]")
_LINE = st.one_of(
    _HEADER,
    st.tuples(_KEY, _VALUE).map(lambda kv: f"{kv[0]} = {kv[1]}"),
    st.tuples(_KEY, _VALUE).map(lambda kv: f"{kv[0]} = {kv[1]}  # why"),
    st.sampled_from(["", "# a comment", "  ", "[[consumers]]", "[consumers] # note", "a.b = 1", "  x = 1", "x=1"]),
)


def _tomllib(text: str) -> object:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return "does not parse"


@pytest.mark.slow  # a hypothesis search of hundreds of examples
@examples(1500)
@given(st.lists(_LINE, max_size=12))
@example(["[consumers.svc]", 'path = "a"', "[consumers.tool]", 'path = "b"'])
@example(["[consumers.svc]", "[consumers]"])  # a super-table after its sub-table: valid, left to tomllib
@example(["[consumers]", 'svc = {path = "a"}', "[consumers.svc]"])  # an inline table extended: invalid
@example(["[a]", "b = 1", "[a.b]"])
@example(["[a.b]", "[a.b]"])
@example(['["svc.x"]', 'a = "x"'])
def test_a_plain_text_reads_as_tomllib_reads_it_and_any_other_goes_to_tomllib(lines: list[str]) -> None:
    text = "\n".join(lines)
    plain = plain_toml(text)
    assert plain is None or plain == _tomllib(text)


def test_the_manifests_plait_and_people_write_plainly_are_read_plainly() -> None:
    # The fleet's manifest shape, the one `benchmarks/check_speed.py` checks, must not fall back to tomllib.
    fleet = "\n".join(
        f'[consumers.svc{n:03}]\npath = "consumers/svc{n:03}"\nvendor_dir = "svc{n:03}/_vendor/lib"\n'
        f'package = "svc{n:03}._vendor.lib"\ninclude = ["*.py", "py.typed"]\n'
        for n in range(20)
    )
    text = f'# the services\nroot = "."\n\n[canonical]\npackage = "lib"\npath = "canonical/lib"\n\n{fleet}'
    text += (
        '\n[lineages.fork]\npath = "fork"\npackage = "fork"\n\n[lineages.fork.transforms]\nabsolute_imports = true\n'
    )
    assert plain_toml(text) == tomllib.loads(text)
    for manifest in REPO.glob("**/lineages.toml"):
        bundled = manifest.read_text()
        assert plain_toml(bundled) in (None, tomllib.loads(bundled)), manifest


def _by_parsing(name: str) -> bool:
    path = PurePosixPath(name)
    return bool(path.parts) and not path.is_absolute() and ".." not in path.parts and name == path.as_posix()


@pytest.mark.slow  # a hypothesis search of hundreds of examples
@examples(2000)
@given(st.lists(st.sampled_from(["a", "b.py", ".", "..", "...", "", "/", "//", " ", "\\", ".a"]), max_size=6))
@example(["a", "/", "/", "b"])
@example(["/", "a"])
def test_a_plain_relative_path_is_what_parsing_it_says(parts: list[str]) -> None:
    name = "".join(parts)
    assert is_plain_relative(name) == _by_parsing(name)
