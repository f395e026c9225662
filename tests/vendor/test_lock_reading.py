"""A lock reads the same through the fast reader as through tomllib, or the fast reader stands aside.

`plait check` reads every lock of a fleet; the fast reader takes the lines
`Lock.dumps` writes and hands anything else to tomllib, so a lock means
what TOML says it means whichever reads it.
"""

from __future__ import annotations

import string
import tomllib

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from hypothesis_profiles import examples

from plait.plain_toml import plain_toml as _plain_toml
from plait.vendoring.lock import LocalEdit, Lock, LockedFile

_HEX = st.text("0123456789abcdef", min_size=64, max_size=64)
_PLAIN = st.text(string.ascii_letters + string.digits + "._-/ ()=:,", min_size=1, max_size=20)
_ANY = st.text(min_size=1, max_size=20)


@st.composite
def _lock(draw: st.DrawFn, text: st.SearchStrategy[str]) -> Lock:
    names = draw(st.lists(text, max_size=5, unique=True))
    files = {}
    for name in names:
        digests = [draw(st.one_of(st.none(), _HEX)) for _ in range(3)]
        files[name] = LockedFile(*digests) if any(digests) else LockedFile(draw(_HEX))
    edits = [
        LocalEdit(draw(text), draw(text), draw(st.sampled_from(["added", "changed", "removed"])), draw(text))
        for _ in range(draw(st.integers(0, 3)))
    ]
    return Lock(
        consumer=draw(text),
        package=draw(text),
        source=draw(text),
        source_package=draw(text),
        source_commit=draw(st.one_of(st.none(), st.text("0123456789abcdef", min_size=40, max_size=40))),
        plait_version=draw(text),
        files=files,
        local_edits=edits,
        conflicted=draw(st.lists(text, max_size=2)),
    )


def _plain_lock(**fields: object) -> Lock:
    """A lock of plain names but for *fields*: the starting point of the examples hypothesis found."""
    base: dict[str, object] = {
        "consumer": "svc",
        "package": "svc._vendor.pkg",
        "source": "canonical",
        "source_package": "pkg",
        "source_commit": None,
        "plait_version": "0.1.0",
        "files": {"a.py": LockedFile("0" * 64, "1" * 64, "2" * 64)},
        "local_edits": [],
        "conflicted": [],
    }
    return Lock(**{**base, **fields})  # type: ignore[arg-type]


def _read(text: str) -> object:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return "does not parse"


_SETTINGS = examples(300)


@pytest.mark.slow  # a hypothesis search of hundreds of examples
@_SETTINGS
@given(_lock(_PLAIN))
# Found by a run of the suite: a list item that holds the list's separator
# (the fast reader split on ", " and stood aside for a lock plait wrote).
@example(_plain_lock(conflicted=[", "]))
@example(_plain_lock(conflicted=["a, b", "]", "c"], files={"x, y.py": LockedFile("0" * 64)}))
def test_a_lock_plait_writes_is_read_fast_as_tomllib_reads_it(lock: Lock) -> None:
    text = lock.dumps()
    assert _plain_toml(text) == tomllib.loads(text)


@pytest.mark.slow  # a hypothesis search of hundreds of examples
@_SETTINGS
@given(_lock(_ANY))
# Found by a run of the suite: a control character in the name the header's
# comment repeats (tomlkit raised ValueError; the header now shows it escaped).
@example(_plain_lock(consumer="\x1b"))
@example(_plain_lock(consumer="a\nb\u2028c", plait_version="\x00", conflicted=["\r"]))
def test_any_text_in_a_lock_reads_as_tomllib_reads_it_or_goes_to_tomllib(lock: Lock) -> None:
    text = lock.dumps()
    assert _plain_toml(text) in (None, _read(text))


_EDITS = st.sampled_from(
    [
        "",
        "lock = 2",
        "lock = 01",
        "consumer = 'x'",
        'consumer = "x"',
        "[source]",
        "[files]",
        "[[local_edits]]",
        "[ files ]",
        "local_edits = []",
        'a.b = "x"',
        '"a" = {sha256 = "x", sha256 = "y"}',
        '"a" = {}',
        '  indented = "x"',
        'x = "a" # note',
        'x = "a"#note',
        'x = ["a", "b"]',
        "x = [1]",
        "[[files]]",
        '"q\\"uote" = "x"',
        "\ufeffbom = 1",
        "tail = 1\r",
        # what a manifest holds: tables named by dotted keys, booleans
        "[source.sub]",
        "[files.deep.er]",
        "[local_edits.x]",
        "[consumers.svc]",
        '[consumers."svc"]',
        "[consumers.svc.rename]",
        "[consumers]",
        "[a.]",
        "[.a]",
        "[a..b]",
        "flag = true",
        "flag = false",
        "flag = True",
        "flag = true # why",
        "flag = truex",
    ]
)


@pytest.mark.slow  # a hypothesis search of hundreds of examples
@_SETTINGS
@given(_lock(_PLAIN), st.lists(st.tuples(st.integers(0, 60), st.booleans(), _EDITS), min_size=1, max_size=4))
def test_a_lock_edited_by_hand_reads_as_tomllib_reads_it(lock: Lock, edits: list[tuple[int, bool, str]]) -> None:
    lines = lock.dumps().split("\n")
    for at, replace, line in edits:
        at %= len(lines)
        lines[at : at + int(replace)] = [line]
    text = "\n".join(lines)
    fast = _plain_toml(text)
    assert fast is None or fast == _read(text)


def test_the_header_says_a_name_as_a_shell_takes_it_on_one_line() -> None:
    # The manifest refuses such names; a lock made by a library caller still
    # writes a header whose command a shell runs on exactly the name.
    text = _plain_lock(consumer="it's\x1b").dumps()
    assert "`plait check $'it\\'s\\x1b'` compares them with the disk" in text
    assert tomllib.loads(text)["consumer"] == "it's\x1b"
    assert all(line.isprintable() for line in text.splitlines())
