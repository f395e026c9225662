"""`plait check` without click: the plain command lines take the plain path, and it agrees with click.

A pre-commit hook's whole cost is `plait check`'s start-up, so `plait.cli.main`
reads the plain forms itself and leaves help, errors, ``--json`` and every
other form to click.  These tests hold the two to one behaviour: whatever
the plain parser accepts, click accepts with the same values, and the
command prints and exits alike either way.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path

import click
from hypothesis import example, given
from hypothesis import strategies as st
from hypothesis_profiles import examples

from plait.cli.check_cmd import check_command
from plait.cli.check_run import CheckArgs, parse_plain
from plait.cli.group import cli
from plait.vendoring.vendor import vendor
from plait.workspace import Workspace


def _click_parse(argv: list[str]) -> CheckArgs | None:
    """What click makes of ``plait <argv>`` when it is a check: the same shape as `parse_plain`."""
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            group = cli.make_context("plait", list(argv), resilient_parsing=False)
            rest = [*group._protected_args, *group.args]
            if rest[:1] != ["check"]:
                return None
            ctx = check_command.make_context("check", rest[1:], parent=group)
    except (click.exceptions.Exit, click.ClickException):
        return None
    p = ctx.params
    if p["verbose"] and p["quiet"]:
        return None  # the command refuses the pair
    if p["as_json"] or p["pretty"]:
        return None  # (left to click on purpose: not a plain form)
    workspace = p["workspace_dir"] or group.params["workspace_dir"]
    color = p["color"] or group.params["color"] or "auto"
    return CheckArgs(tuple(p["consumers"]), p["locks"], workspace, color, int(p["verbose"]) - int(p["quiet"]))


TOKENS = st.sampled_from(
    [
        "check",
        "svc",
        "tool",
        "ws",
        "",
        "-",
        "--",
        "--locks",
        "--locks=1",
        "-q",
        "--quiet",
        "-v",
        "--verbose",
        "-qv",
        "--workspace",
        "--workspace=ws",
        "--workspace=",
        "--color",
        "--color=never",
        "always",
        "auto",
        "ALWAYS",
        "--json",
        "--pretty",
        "--debug",
        "-h",
        "--help",
        "-V",
        "--bogus",
        "status",
    ]
)


@examples(600)
@given(st.lists(TOKENS, max_size=7))
@example(["check"])
@example(["--workspace", "ws", "check", "svc", "-q"])
@example(["--color", "never", "check", "--color", "always", "--workspace=ws", "tool"])
@example(["--workspace", "check", "check"])
@example(["--workspace", "svc", "check", "--workspace=ws", "--color", "auto"])
@example(["check", "--workspace", "-q"])
def test_the_plain_parser_accepts_only_what_click_accepts_and_reads_it_alike(argv: list[str]) -> None:
    plain = parse_plain(argv)
    if plain is not None:
        assert _click_parse(argv) == plain


def test_the_forms_hooks_and_people_use_are_read_without_click() -> None:
    # If these fell back to click, check would still work, only slower: this keeps the fast path in use.
    for argv in (
        ["check"],
        ["check", "svc", "tool"],
        ["--workspace", "lineages", "check", "-q"],
        ["check", "--locks", "vendor/"],
        ["check", "--workspace=ws", "--color", "never", "-v"],
    ):
        assert parse_plain(argv) is not None, argv
        assert parse_plain(argv) == _click_parse(argv)


def _vendored(root: Path) -> None:
    """A workspace at *root* whose consumers ``svc`` and ``tool`` vendored a two-file package."""
    (root / "canonical" / "corelib").mkdir(parents=True)
    (root / "canonical" / "corelib" / "__init__.py").write_text("from .errors import Failure\n")
    (root / "canonical" / "corelib" / "errors.py").write_text("class Failure(Exception):\n    pass\n")
    manifest = ['[canonical]\npackage = "corelib"\npath = "canonical/corelib"\n']
    for name in ("svc", "tool"):
        (root / "consumers" / name / name / "_vendor").mkdir(parents=True)
        manifest.append(
            f'[consumers.{name}]\npath = "consumers/{name}"\nvendor_dir = "{name}/_vendor/corelib"\n'
            f'package = "{name}._vendor.corelib"\n'
        )
    (root / "lineages.toml").write_text("\n".join(manifest))
    assert vendor(Workspace.load(root)).exit_code == 0


def test_the_plain_path_prints_and_exits_as_click_does(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    _vendored(root)
    (root / "consumers" / "svc" / "svc" / "_vendor" / "corelib" / "errors.py").write_text("changed = True\n")
    env = {**os.environ, "PLAIT_WORKSPACE": str(root)}
    # A `--` before the names is click's to read (the plain parser leaves it to click): the same request.
    for plain, forced in (
        (["check"], ["check", "--"]),
        (["check", "svc"], ["check", "--", "svc"]),
        # (quiet prints only problems: svc's drift, not tool's verdict)
        (["check", "svc", "tool", "-q"], ["check", "-q", "--", "svc", "tool"]),
        (["check", "nobody"], ["check", "--", "nobody"]),
        (["check", "--locks", str(root / "consumers")], ["check", "--locks", "--", str(root / "consumers")]),
    ):
        assert parse_plain(plain) is not None and parse_plain(forced) is None
        fast, slow = (
            subprocess.run([sys.executable, "-m", "plait", *a], capture_output=True, text=True, env=env, cwd=tmp_path)
            for a in (plain, forced)
        )
        assert (fast.returncode, fast.stdout, fast.stderr) == (slow.returncode, slow.stdout, slow.stderr)
        assert fast.returncode in (0, 1, 2) and (fast.stdout or fast.stderr)


# What the plain path must not import, beyond what the interpreter itself started with: the
# standard library's slowest imports, each a large part of a hook's cost (benchmarks/check_speed.py).
# dataclasses brings inspect (with ast, dis and tokenize); tomllib brings typing and datetime;
# hashlib makes one of every hash it offers where check needs OpenSSL's sha256 alone.
SLOW = ("dataclasses", "inspect", "typing", "tomllib", "difflib", "hashlib", "ast", "tokenize", "json")

LOADED = """
import sys
started = set(sys.modules)
slow_names = sys.argv[1]
sys.argv = ["plait", *sys.argv[2:]]
import runpy

try:
    runpy.run_module("plait", run_name="__main__")
except SystemExit as done:
    slow = sorted(set(sys.modules) - started & set(slow_names.split(",")))
    print("exit", done.code, "slow", slow, file=sys.stderr)
"""


def _slow_imports(*argv: str, cwd: Path) -> str:
    proc = subprocess.run(
        [sys.executable, "-c", LOADED, ",".join(SLOW), *argv], capture_output=True, text=True, cwd=cwd
    )
    return proc.stderr.splitlines()[-1]


def _brought_by(module: str) -> list[str]:
    """The slow modules that importing `module` alone loads in a fresh interpreter of this Python."""
    probe = f"import sys; s = set(sys.modules); import {module}; print(*sorted(set(sys.modules) - s & set({SLOW!r})))"
    return subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.split()


def test_the_plain_path_imports_none_of_the_slow_standard_modules(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    _vendored(root)
    consumers = str(root / "consumers")
    assert _slow_imports("--workspace", str(root), "check", cwd=tmp_path) == "exit 0 slow []"
    assert _slow_imports("check", "--locks", consumers, cwd=tmp_path) == "exit 0 slow []"
    # Drift and its report take the same path: an edited file, an extra one, a missing one.
    vendored = root / "consumers" / "svc" / "svc" / "_vendor" / "corelib"
    (vendored / "errors.py").write_text("changed = True\n")
    (vendored / "extra.py").write_text("")
    (root / "consumers" / "tool" / "tool" / "_vendor" / "corelib" / "__init__.py").unlink()
    assert _slow_imports("--workspace", str(root), "check", "-v", cwd=tmp_path) == "exit 1 slow []"
    assert _slow_imports("check", "--locks", consumers, cwd=tmp_path) == "exit 1 slow []"


def test_a_manifest_spelled_otherwise_is_still_read_and_a_bad_one_still_refused(tmp_path: Path) -> None:
    # The plain reader stands aside for what it does not know: tomllib reads it (and pays its import).
    root = tmp_path / "ws"
    _vendored(root)
    manifest = root / "lineages.toml"
    text = manifest.read_text()
    manifest.write_text(text.replace('[canonical]\npackage = "corelib"', "[canonical]\npackage = 'corelib'  # literal"))
    # What tomllib brings along differs between Python versions (3.11's imports typing), so the
    # expected set is tomllib's own, read off this interpreter: the fallback costs that, no more.
    assert _slow_imports("--workspace", str(root), "check", cwd=tmp_path) == f"exit 0 slow {_brought_by('tomllib')}"
    manifest.write_text(text + "[consumers.svc]\n")
    proc = subprocess.run(
        [sys.executable, "-m", "plait", "--workspace", str(root), "check"], capture_output=True, text=True
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("plait check: error: ") and "the manifest does not parse" in proc.stderr
    assert len(proc.stderr.splitlines()) == 1
