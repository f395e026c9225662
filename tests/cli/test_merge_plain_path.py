"""`plait merge` without click: git's invocations take the plain path, and it agrees with click.

git starts one `plait merge` per conflicted file, so `plait.cli.main` reads
the plain argument forms itself and reaches click only for help, errors and
forms it leaves to click.  These tests hold the two parsers to one
behaviour: whatever the plain parser accepts, click accepts with the same
values, and what click refuses the plain parser leaves to click.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from hypothesis_profiles import examples

from plait.cli.merge_cmd import merge as merge_command
from plait.cli.merge_run import MergeArgs, parse_plain

BASE = "def f():\n    return 1\n\n\ndef g():\n    return 2\n"
OURS = BASE.replace("return 1", "return 10")
THEIRS = BASE.replace("return 2", "return 20")
MERGED = BASE.replace("return 1", "return 10").replace("return 2", "return 20")


def _click_parse(argv: list[str]) -> tuple[MergeArgs, bool, bool, str] | None:
    """What click makes of *argv*: the same shape as `parse_plain`, or None when it refuses."""
    try:
        with contextlib.redirect_stdout(io.StringIO()):  # --help prints
            ctx = merge_command.make_context("merge", list(argv), resilient_parsing=False)
    except click.exceptions.Exit:
        return None  # --help
    except click.ClickException:
        return None
    params = dict(ctx.params)
    as_json, pretty, color = params.pop("as_json"), params.pop("pretty"), params.pop("color")
    if params["output"] and params["to_stdout"]:
        return None  # the command itself refuses this pair
    return MergeArgs(**params), as_json, pretty, color or "auto"


# Tokens people and git type, valid and not: flags, options with and without values, odd values.
TOKENS = st.sampled_from(
    [
        "base.py",
        "ours.py",
        "theirs.py",
        "x",
        "-",
        "--",
        "",
        "-p",
        "--print",
        "-o",
        "out.py",
        "--output=o.py",
        "-oo.py",
        "--summary",
        "--summary=1",
        "--budget",
        "--budget=2.5",
        "0",
        "-1",
        "nan",
        "inf",
        "1e-3",
        "-L",
        "-L9",
        "--marker-size",
        "--marker-size=0",
        "7",
        "7.5",
        "-P",
        "--path=a/b.py",
        "-S",
        "-X",
        "-Y",
        "--ours-label",
        "HEAD",
        "--json",
        "--json=1",
        "--pretty",
        "--color",
        "--color=never",
        "always",
        "auto",
        "ALWAYS",
        "-h",
        "--help",
        "--bogus",
        "-pL7",
        "-Z",
    ]
)


@st.composite
def argvs(draw: st.DrawFn) -> list[str]:
    """Option tokens with the three operands dropped in anywhere, as interspersed as click allows."""
    argv = draw(st.lists(TOKENS, max_size=6))
    for operand in ("base.py", "ours.py", "theirs.py"):
        argv.insert(draw(st.integers(0, len(argv))), operand)
    return argv


@examples(500)
@given(argvs())
@example(["base.py", "ours.py", "theirs.py", "-L", "7", "-P", "src/client.py"])
@example(["-L7", "base.py", "--path=src/x.py", "ours.py", "theirs.py", "--budget", "2"])
@example(["base.py", "ours.py", "theirs.py", "-o", "-p"])
@example(["base.py", "ours.py", "theirs.py", "-X", "-p"])
@example(["base.py", "ours.py", "theirs.py", "--color", "always", "--json", "--pretty"])
def test_the_plain_parser_accepts_only_what_click_accepts_and_reads_it_alike(argv: list[str]) -> None:
    plain = parse_plain(argv)
    if plain is not None:
        assert _click_parse(argv) == plain


def test_the_forms_git_and_people_use_are_read_without_click() -> None:
    # If these fell back to click the driver would still work, only slower:
    # this is what keeps the fast path in use.
    for argv in (
        ["b", "o", "t", "-L", "7", "-P", "src/client.py"],
        ["b", "o", "t", "-L7", "-P", "x.py", "-X", "HEAD", "-Y", "topic", "-S", "merged common ancestors"],
        ["b", "o", "t", "-p", "--summary"],
        ["b", "o", "t", "-o", "out.py", "--budget=3"],
        ["b", "o", "t", "--json", "--pretty", "--color", "never"],
    ):
        assert parse_plain(argv) is not None, argv
        assert parse_plain(argv) == _click_parse(argv)


LOADED = """
import os, runpy, sys
sys.argv = ["plait", *sys.argv[1:]]
def _exit(code):  # the driver ends with os._exit once its result is written: see what it loaded by then
    raise SystemExit(code)
os._exit = _exit
try:
    runpy.run_module("plait", run_name="__main__")
except SystemExit as done:
    heavy = sorted({m.split(".")[0] for m in sys.modules} & {"click", "libcst", "rich", "git", "tomlkit", "httpx"})
    print("exit", done.code, "heavy", heavy, file=sys.stderr)
"""


def _files(tmp_path: Path) -> list[str]:
    paths = []
    for name, text in (("base", BASE), ("ours", OURS), ("theirs", THEIRS)):
        path = tmp_path / f"{name}.py"
        path.write_text(text)
        paths.append(str(path))
    return paths


def test_git_driver_line_merges_without_loading_click_or_any_heavy_dependency(tmp_path: Path) -> None:
    base, ours, theirs = _files(tmp_path)
    argv = [sys.executable, "-c", LOADED, "merge", base, ours, theirs, "-L", "7", "-P", "src/mod.py"]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert proc.stderr.splitlines()[-1] == "exit 0 heavy []", proc.stderr
    assert Path(ours).read_text() == MERGED


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        (["--help"], "git config merge.plait.driver"),
        (["--bogus"], "No such option"),
        (["-o", "out.py", "-p"], "-o and -p are exclusive"),
        (["--budget", "0"], "finite number of seconds above 0"),
    ],
)
def test_arguments_left_to_click_get_clicks_answer(tmp_path: Path, extra: list[str], expected: str) -> None:
    base, ours, theirs = _files(tmp_path)
    argv = [sys.executable, "-m", "plait", "merge", base, ours, theirs, *extra]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "200"})
    assert expected in proc.stdout + proc.stderr
    assert proc.returncode == (0 if extra == ["--help"] else 2)
    assert Path(ours).read_text() == OURS
