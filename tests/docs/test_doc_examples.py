"""The docs' examples are what the commands print, made by `examples.py` (which also rewrites them).

The README's demo, status and architecture.md's sync examples come from one
run of `plait demo` (`tests/test_readme_commands.py` runs it and checks
them); VENDORING.md's from a real setup of separate repositories, here.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from examples import DOCS, blocks, normalise, real_setup

pytestmark = pytest.mark.slow  # the docs' examples from fresh runs

UPDATE = "the example is stale: rewrite it with `python tests/docs/examples.py --update`"


def test_the_examples_vendoring_md_shows_are_what_plait_prints_on_a_real_setup(tmp_path: Path) -> None:
    made = real_setup(tmp_path / "repos")
    shown = blocks(DOCS["VENDORING.md"])
    assert sorted(made) == sorted(shown), "VENDORING.md holds exactly the examples made for it"
    for name, text in made.items():
        assert normalise(shown[name]) == normalise(text), f"VENDORING.md {name}: {UPDATE}"


def test_the_masking_keeps_what_a_reader_compares() -> None:
    # Commit ids and timings vary between two honest runs; counts, names and paths must not be masked.
    line = "svc-a  canonical 1a2b3c4 → 9f8e7d6   2 files changed, 0 conflicts"
    assert normalise(line) == "svc-a  canonical <commit> → <commit>   2 files changed, 0 conflicts"
    assert normalise("sibling behaves like canonical on 63/68: 5 fail (safety)") == "sibling <verdict>"
    assert normalise("6 of 6 copies conform to 68 scenarios in 3.22 s") == "<conformance summary>"
    assert normalise("3 local edits in cache.py") == "3 local edits in cache.py"
