"""vendor.txt pins, with vendoring 1.4.0's parse_pinned_packages as the oracle."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from plait.errors import PlaitError
from plait.vendoring_compat.requirements import bump_pin, parse_pins

PIP_VENDOR_TXT = """\
CacheControl==0.14.1  # Make sure to update the license in pyproject.toml for this.
distlib==0.3.9
requests==2.32.3
    certifi==2024.8.30
    idna==3.10
    urllib3==1.26.20
typing_extensions==4.12.2; python_version < "3.8"
tomli==2.2.1
"""


def test_pins_with_indented_sub_dependencies_and_suffixes() -> None:
    pins = parse_pins(PIP_VENDOR_TXT, path="vendor.txt")
    assert [(p.name, p.version, p.line, p.indented) for p in pins][:4] == [
        ("CacheControl", "0.14.1", 1, False),
        ("distlib", "0.3.9", 2, False),
        ("requests", "2.32.3", 3, False),
        ("certifi", "2024.8.30", 4, True),
    ]
    assert pins[0].canonical == "cachecontrol"
    assert pins[6].suffix == '; python_version < "3.8"'


@pytest.mark.parametrize("bad", ["", "# a comment", "requests>=2", "-e ."])
def test_a_line_vendoring_refuses_is_named(bad: str) -> None:
    text = "six==1.16.0\n" + bad + "\n"
    with pytest.raises(PlaitError) as caught:
        parse_pins(text, path="vendor.txt")
    assert (caught.value.path, caught.value.line) == ("vendor.txt", 2)


def test_a_name_pinned_twice_is_refused() -> None:
    with pytest.raises(PlaitError, match="pinned twice"):
        parse_pins("six==1.0\nSix==1.1\n", path="vendor.txt")


def test_bump_keeps_every_other_byte() -> None:
    bumped = bump_pin(PIP_VENDOR_TXT, "URLLIB3", "1.26.21", path="vendor.txt")
    assert bumped == PIP_VENDOR_TXT.replace("urllib3==1.26.20", "urllib3==1.26.21")
    crlf = "a==1\r\nb==2  # keep\r\n"
    assert bump_pin(crlf, "b", "3", path="v") == "a==1\r\nb==3  # keep\r\n"
    with pytest.raises(PlaitError, match="not pinned"):
        bump_pin(PIP_VENDOR_TXT, "nothere", "1", path="vendor.txt")


_names = st.from_regex(r"[A-Za-z][A-Za-z0-9._-]{0,8}", fullmatch=True)
_versions = st.from_regex(r"[0-9]{1,3}(\.[0-9]{1,3}){0,3}((a|b|rc)[0-9])?(\.post[0-9])?", fullmatch=True)
_lines = st.tuples(
    st.sampled_from(["", "    ", "\t"]),
    _names,
    st.sampled_from(["==", " == "]),
    _versions,
    st.sampled_from(["", "  # via x", "; python_version < '3.8'"]),
)


@given(
    st.lists(_lines, min_size=1, max_size=6, unique_by=lambda line: line[1].lower().replace("_", "-").replace(".", "-"))
)
def test_agrees_with_vendoring(lines: list[tuple[str, str, str, str, str]]) -> None:
    update = pytest.importorskip("vendoring.tasks.update")
    text = "".join(f"{a}{b}{c}{d}{e}\n" for a, b, c, d, e in lines)
    import tempfile

    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory, "vendor.txt")
        path.write_text(text)
        theirs = [(p.name, p.version, p.prefix, p.suffix) for p in update.parse_pinned_packages(path)]
    try:
        ours = [(p.name, p.version, p.prefix, p.suffix) for p in parse_pins(text, path="vendor.txt")]
    except PlaitError as error:
        assert "pinned twice" in error.message
        return
    assert ours == theirs
