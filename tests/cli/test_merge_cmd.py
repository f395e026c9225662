"""`plait merge BASE OURS THEIRS`: files, exit codes, stderr, JSON, newlines.

Most tests go through click's CliRunner; one runs the real `python -m plait`
in a subprocess, as git would.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from plait.cli import cli

BASE = '''"""A module."""

import os


class Client:
    def embed(self, text):
        limit = 10
        return [text[:limit]]
'''

# Ours and theirs each add a method at the same place: git alone would conflict.
OURS = (
    BASE
    + """
    def ours_method(self):
        return "ours"
"""
)
THEIRS = (
    BASE
    + """
    def theirs_method(self):
        return "theirs"
"""
)

# Both sides change one statement differently: a real conflict in Client.embed.
OURS_CONFLICT = BASE.replace("limit = 10", "limit = 'ours'")
THEIRS_CONFLICT = BASE.replace("limit = 10", "limit = 'theirs'")

MARKERS = ("<<<<<<< ours", "||||||| base", "=======", ">>>>>>> theirs")


def write(path: Path, text: str) -> Path:
    path.write_bytes(text.encode("utf-8"))
    return path


@pytest.fixture
def files(tmp_path):
    """(base, ours, theirs) paths in a directory of their own."""

    def make(base: str, ours: str, theirs: str) -> tuple[Path, Path, Path]:
        return (
            write(tmp_path / "base.py", base),
            write(tmp_path / "ours.py", ours),
            write(tmp_path / "theirs.py", theirs),
        )

    return make


def run(*args: object):
    return CliRunner().invoke(cli, ["merge", *map(str, args)], catch_exceptions=False)


def listing(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir())


# ---------------------------------------------------------------------------
# Clean merges: where the result goes
# ---------------------------------------------------------------------------


def test_clean_merge_overwrites_ours_and_exits_0(files, tmp_path):
    base, ours, theirs = files(BASE, OURS, THEIRS)
    result = run(base, ours, theirs)
    assert result.exit_code == 0, result.output
    merged = ours.read_text()
    assert "def ours_method" in merged and "def theirs_method" in merged
    assert merged.index("def ours_method") < merged.index("def theirs_method")
    ast.parse(merged)
    assert base.read_text() == BASE and theirs.read_text() == THEIRS
    assert listing(tmp_path) == ["base.py", "ours.py", "theirs.py"], "temp files left behind"
    assert "CONFLICT" not in result.stderr


def test_output_option_writes_out_and_leaves_ours_untouched(files, tmp_path):
    base, ours, theirs = files(BASE, OURS, THEIRS)
    out = tmp_path / "out" / "merged.py"
    out.parent.mkdir()
    result = run(base, ours, theirs, "-o", out)
    assert result.exit_code == 0, result.output
    assert ours.read_bytes() == OURS.encode()
    merged = out.read_text()
    assert "def ours_method" in merged and "def theirs_method" in merged
    assert result.stdout == ""


def test_print_option_prints_and_writes_nothing(files, tmp_path):
    base, ours, theirs = files(BASE, OURS, THEIRS)
    result = run(base, ours, theirs, "-p")
    assert result.exit_code == 0, result.output
    assert ours.read_bytes() == OURS.encode()
    assert "def ours_method" in result.stdout and "def theirs_method" in result.stdout
    ast.parse(result.stdout)
    assert listing(tmp_path) == ["base.py", "ours.py", "theirs.py"]


def test_output_and_print_are_exclusive(files, tmp_path):
    base, ours, theirs = files(BASE, OURS, THEIRS)
    result = run(base, ours, theirs, "-p", "-o", tmp_path / "x.py")
    assert result.exit_code == 2
    assert ours.read_bytes() == OURS.encode()
    assert not (tmp_path / "x.py").exists()


def test_json_summary_of_a_clean_merge(files):
    base, ours, theirs = files(BASE, OURS, THEIRS)
    result = run(base, ours, theirs, "--json", "-o", base.parent / "merged.py")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["clean"] is True
    assert data["conflicts"] == []
    summaries = [c["summary"] for c in data["changes"]]
    assert any(
        c["side"] == "ours" and c["kind"] == "added" and c["path"] == "Client.ours_method" for c in data["changes"]
    ), summaries
    assert any(
        c["side"] == "theirs" and c["kind"] == "added" and c["path"] == "Client.theirs_method" for c in data["changes"]
    ), summaries


def test_json_with_print_includes_the_text(files):
    base, ours, theirs = files(BASE, OURS, THEIRS)
    result = run(base, ours, theirs, "--json", "-p")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert "def ours_method" in data["text"] and "def theirs_method" in data["text"]
    assert ours.read_bytes() == OURS.encode()


# ---------------------------------------------------------------------------
# Conflicts: exit 1, markers, stderr naming the node path
# ---------------------------------------------------------------------------


def test_conflict_exits_1_with_markers_and_names_the_path(files):
    base, ours, theirs = files(BASE, OURS_CONFLICT, THEIRS_CONFLICT)
    result = run(base, ours, theirs)
    assert result.exit_code == 1, result.output
    merged = ours.read_text()
    lines = merged.splitlines()
    for marker in MARKERS:
        assert marker in lines, f"no {marker!r} line in:\n{merged}"
    assert "'ours'" in merged and "'theirs'" in merged
    conflict_lines = [line for line in result.stderr.splitlines() if line.startswith("CONFLICT ")]
    assert conflict_lines, result.stderr
    assert any(line.startswith("CONFLICT Client.embed: ") for line in conflict_lines), result.stderr
    # "(line N)" points at the `<<<<<<< ours` marker in the output.
    n = int(conflict_lines[0].rsplit("(line ", 1)[1].rstrip(")"))
    assert lines[n - 1] == "<<<<<<< ours"


def test_json_summary_of_a_conflict(files, tmp_path):
    base, ours, theirs = files(BASE, OURS_CONFLICT, THEIRS_CONFLICT)
    result = run(base, ours, theirs, "--json", "-o", tmp_path / "merged.py")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["clean"] is False
    assert [(c["path"], c["kind"]) for c in data["conflicts"]] == [("Client.embed", "modify/modify")]
    assert data["conflicts"][0]["reason"] and data["conflicts"][0]["line"]
    assert isinstance(data["changes"], list) and data["changes"]
    assert all({"side", "kind", "path", "summary"} <= set(c) for c in data["changes"])


def test_delete_vs_modify_conflict(files):
    ours_text = BASE.replace("limit = 10", "limit = 20")
    theirs_text = BASE.replace(
        "\n\nclass Client:\n    def embed(self, text):\n        limit = 10\n        return [text[:limit]]\n", "\n"
    )
    assert theirs_text != BASE
    base, ours, theirs = files(BASE, ours_text, theirs_text)
    result = run(base, ours, theirs)
    assert result.exit_code == 1
    assert any(line.startswith("CONFLICT Client") for line in result.stderr.splitlines()), result.stderr
    assert "<<<<<<< ours" in ours.read_text()


def test_budget_exhausted_falls_back_to_a_line_merge_with_exit_1(files):
    # Both sides add a method at the same place: the line merge conflicts, and a
    # zero budget leaves no time for the structured merge.
    base, ours, theirs = files(BASE, OURS, THEIRS)
    result = run(base, ours, theirs, "--budget", "1e-9")
    assert result.exit_code == 1, result.output
    assert "budget" in result.stderr, result.stderr
    assert "<<<<<<< ours" in ours.read_text()


# ---------------------------------------------------------------------------
# Errors: exit 2, nothing written
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("which", ["base", "ours", "theirs"])
def test_missing_file_exits_2_and_writes_nothing(files, tmp_path, which):
    paths = dict(zip(("base", "ours", "theirs"), files(BASE, OURS, THEIRS), strict=False))
    paths[which] = tmp_path / "missing.py"
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    result = run(paths["base"], paths["ours"], paths["theirs"])
    assert result.exit_code == 2
    assert "missing.py" in result.stderr
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


@pytest.mark.parametrize("which", ["base", "ours", "theirs"])
def test_directory_argument_exits_2_and_writes_nothing(files, tmp_path, which):
    paths = dict(zip(("base", "ours", "theirs"), files(BASE, OURS, THEIRS), strict=False))
    (tmp_path / "adir").mkdir()
    paths[which] = tmp_path / "adir"
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    result = run(paths["base"], paths["ours"], paths["theirs"])
    assert result.exit_code == 2
    assert "adir" in result.stderr
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == before
    assert listing(tmp_path) == ["adir", "base.py", "ours.py", "theirs.py"]
    assert listing(tmp_path / "adir") == []


def test_not_utf8_merges_its_bytes_as_git_would(files, tmp_path):
    """A file plait cannot read as Python is git's line merge of its bytes (issue 30): a
    conflict with markers where git conflicts, never exit 2 nor a file without them."""
    base, ours, theirs = files(BASE, OURS, THEIRS)
    theirs.write_bytes(b"x = '\xff\xfe'\n")
    expected = subprocess.run(
        ["git", "merge-file", "-p", "--diff3", "-L", "ours", "-L", "base", "-L", "theirs", ours, base, theirs],
        capture_output=True,
    )
    result = run(base, ours, theirs)
    assert result.exit_code == expected.returncode == 1, result.stderr
    assert ours.read_bytes() == expected.stdout and b"\xff\xfe" in expected.stdout
    assert listing(tmp_path) == ["base.py", "ours.py", "theirs.py"]


def test_unwritable_output_exits_2_and_leaves_no_temp_file(files, tmp_path):
    base, ours, theirs = files(BASE, OURS, THEIRS)
    # The output's parent is a regular file: no user, root included, can write there.
    result = CliRunner().invoke(cli, ["merge", str(base), str(ours), str(theirs), "-o", str(ours / "merged.py")])
    assert ours.read_bytes() == OURS.encode()
    assert listing(tmp_path) == ["base.py", "ours.py", "theirs.py"]
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == 2
    assert "ours.py" in result.stderr


# ---------------------------------------------------------------------------
# Unparsable input and newlines
# ---------------------------------------------------------------------------


def test_unparsable_input_falls_back_to_a_line_merge_and_says_so(files):
    broken = BASE.replace("def embed(self, text):", "def embed(self, text:")  # a syntax error
    ours_text = broken.replace('"""A module."""', '"""A module, ours."""')
    theirs_text = broken + "\n\nVERSION = 2\n"
    base, ours, theirs = files(broken, ours_text, theirs_text)
    result = run(base, ours, theirs)
    assert result.exit_code == 0, result.output
    assert "does not parse" in result.stderr and "line-based merge" in result.stderr, result.stderr
    merged = ours.read_text()
    assert merged == ours_text + "\n\nVERSION = 2\n"


def test_unparsable_input_with_overlapping_edits_conflicts_line_by_line(files):
    broken = "def f(:\n    x = 1\n"
    base, ours, theirs = files(broken, broken.replace("1", "2"), broken.replace("1", "3"))
    result = run(base, ours, theirs)
    assert result.exit_code == 1
    assert "line-based merge" in result.stderr
    text = ours.read_text()
    for marker in MARKERS:
        assert marker in text.splitlines()
    assert "CONFLICT <module>" in result.stderr


def test_crlf_files_come_out_crlf(files):
    def crlf(s: str) -> str:
        return s.replace("\n", "\r\n")

    base, ours, theirs = files(crlf(BASE), crlf(OURS), crlf(THEIRS))
    result = run(base, ours, theirs)
    assert result.exit_code == 0, result.output
    raw = ours.read_bytes()
    assert b"def ours_method" in raw and b"def theirs_method" in raw
    assert raw.count(b"\n") == raw.count(b"\r\n"), f"bare LF in CRLF output: {raw!r}"
    assert b"\r\r" not in raw


def test_crlf_conflict_markers_are_crlf(files):
    def crlf(s: str) -> str:
        return s.replace("\n", "\r\n")

    base, ours, theirs = files(crlf(BASE), crlf(OURS_CONFLICT), crlf(THEIRS_CONFLICT))
    result = run(base, ours, theirs)
    assert result.exit_code == 1
    raw = ours.read_bytes()
    assert b"<<<<<<< ours\r\n" in raw and b">>>>>>> theirs\r\n" in raw
    assert raw.count(b"\n") == raw.count(b"\r\n"), f"bare LF in CRLF output: {raw!r}"


def test_file_mode_of_ours_is_kept(files):
    base, ours, theirs = files(BASE, OURS, THEIRS)
    ours.chmod(0o640)
    assert run(base, ours, theirs).exit_code == 0
    assert ours.stat().st_mode & 0o777 == 0o640


# ---------------------------------------------------------------------------
# The real command, in a subprocess
# ---------------------------------------------------------------------------


def test_python_dash_m_plait_merge_subprocess(files, tmp_path):
    base, ours, theirs = files(BASE, OURS_CONFLICT, THEIRS_CONFLICT)
    proc = subprocess.run(
        [sys.executable, "-m", "plait", "merge", str(base), str(ours), str(theirs)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1, proc.stderr
    assert "CONFLICT Client.embed: " in proc.stderr
    assert "<<<<<<< ours" in ours.read_text()

    # And a clean one, with -p to stdout.
    base, ours, theirs = files(BASE, OURS, THEIRS)
    proc = subprocess.run(
        [sys.executable, "-m", "plait", "merge", str(base), str(ours), str(theirs), "-p"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "def ours_method" in proc.stdout and "def theirs_method" in proc.stdout
    assert ours.read_text() == OURS

    # And an error: exit 2, nothing written.
    proc = subprocess.run(
        [sys.executable, "-m", "plait", "merge", str(base), str(ours), str(tmp_path / "nope.py")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert ours.read_text() == OURS
    assert listing(tmp_path) == ["base.py", "ours.py", "theirs.py"]


@pytest.mark.parametrize("budget", ["0", "-1", "inf", "nan"])
def test_budget_must_be_a_finite_number_above_zero(files, tmp_path, budget):
    base, ours, theirs = files(BASE, OURS, THEIRS)
    result = run(base, ours, theirs, "--budget", budget)
    assert result.exit_code == 2
    assert "finite number of seconds above 0" in result.stderr
    assert ours.read_bytes() == OURS.encode()


# ---------------------------------------------------------------------------
# Edges a user hits: symlinks, NUL bytes, an internal error
# ---------------------------------------------------------------------------


def test_a_symlinked_ours_is_written_through_and_stays_a_link(files, tmp_path):
    """As git merge-file does: the target is replaced atomically, the link stays a link."""
    base, real, theirs = files(BASE, OURS, THEIRS)
    link = tmp_path / "link.py"
    link.symlink_to(real.name)
    result = run(base, link, theirs)
    assert result.exit_code == 0, result.stderr
    assert link.is_symlink() and link.readlink() == Path("ours.py")
    assert "def theirs_method" in real.read_text()


def test_a_binary_input_is_gits_binary_merge_ours_kept_in_conflict(files, tmp_path):
    """A NUL makes a file binary (git's rule): as git's own binary merge, ours is kept
    byte for byte and the merge conflicts (exit 1), named by the user's path."""
    base, ours, theirs = files(BASE, OURS, THEIRS)
    theirs.write_bytes(THEIRS.encode() + b"\0")
    result = run(base, ours, theirs, "-P", "pkg/blob.py")
    assert result.exit_code == 1, result.stderr
    assert "CONFLICT pkg/blob.py" in result.stderr and "binary" in result.stderr
    assert "plait-merge-" not in result.stderr
    assert ours.read_bytes() == OURS.encode()


def test_an_internal_error_is_one_line_asking_for_a_report_and_writes_nothing(files, tmp_path):
    base, ours, theirs = files(BASE, OURS, THEIRS)
    # A bug outside the engine's own guard (which degrades to a line merge): in reading input.
    broken = "import plait.cli.merge_run as m; m._read = lambda p: 1 / 0; from plait.cli import main; main()"
    argv = [sys.executable, "-c", broken, "merge", str(base), str(ours), str(theirs)]
    proc = subprocess.run(argv, capture_output=True, text=True)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "internal error (ZeroDivisionError" in lines[0] and "please report" in lines[0]
    assert "Traceback" not in proc.stderr
    assert ours.read_bytes() == OURS.encode()
    debug = subprocess.run(argv, capture_output=True, text=True, env={**os.environ, "PLAIT_DEBUG": "1"})
    assert "Traceback" in debug.stderr and debug.returncode == 2


# ---------------------------------------------------------------------------
# Git's driver options, pipes and JSON
# ---------------------------------------------------------------------------


def test_marker_size_and_labels_reach_both_the_structured_and_the_line_path(files):
    base, ours, theirs = files(BASE, OURS_CONFLICT, THEIRS_CONFLICT)
    result = run(base, ours, theirs, "-p", "-L", "9", "-X", "HEAD", "-S", "merged common ancestors", "-Y", "topic")
    assert result.exit_code == 1
    assert "<<<<<<<<< HEAD\n" in result.stdout and "||||||||| merged common ancestors\n" in result.stdout
    assert "\n=========\n" in result.stdout and ">>>>>>>>> topic\n" in result.stdout
    # An unparsable input takes the line path: git merge-file gets the same markers.
    broken = BASE + "def broken(:\n"
    base, ours, theirs = files(
        broken, broken.replace("limit = 10", "limit = 1"), broken.replace("limit = 10", "limit = 2")
    )
    result = run(base, ours, theirs, "-p", "-L", "9", "-X", "HEAD", "-Y", "topic")
    assert result.exit_code == 1
    assert "<<<<<<<<< HEAD\n" in result.stdout and ">>>>>>>>> topic\n" in result.stdout


def test_a_piped_summary_prints_one_grepable_line_per_row_with_full_node_paths(files, tmp_path):
    long_class = "EmbeddingClientWithAVeryLongNameThatATableWouldFold"
    base_text = BASE.replace("class Client", f"class {long_class}")
    base, ours, theirs = files(base_text, base_text + OURS[len(BASE) :], base_text + THEIRS[len(BASE) :])
    proc = subprocess.run(
        [sys.executable, "-m", "plait", "merge", "--summary", "-p", str(base), str(ours), str(theirs)],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "40"},
    )
    assert proc.returncode == 0, proc.stderr
    rows = [line for line in proc.stderr.splitlines() if f"{long_class}.theirs_method" in line]
    assert len(rows) == 1 and rows[0].startswith("applied")
    assert "\x1b[" not in proc.stderr
    grep = subprocess.run(["grep", f"{long_class}.ours_method"], input=proc.stderr, capture_output=True, text=True)
    assert grep.returncode == 0 and grep.stdout.startswith("kept")


def test_color_always_styles_even_a_pipe_and_never_or_no_color_never_does(files):
    base, ours, theirs = files(BASE, OURS_CONFLICT, THEIRS_CONFLICT)
    argv = [sys.executable, "-m", "plait", "merge", "--summary", "-p", str(base), str(ours), str(theirs)]
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    always = subprocess.run([*argv, "--color", "always"], capture_output=True, text=True, env=env)
    assert "\x1b[" in always.stderr
    for extra, more_env in ((["--color", "never"], {}), ([], {"NO_COLOR": "1"}), ([], {})):
        plain = subprocess.run([*argv, *extra], capture_output=True, text=True, env={**env, **more_env})
        assert "\x1b[" not in plain.stderr and "\x1b[" not in plain.stdout


def test_json_carries_the_schema_and_its_inputs_compact_unless_pretty(files):
    base, ours, theirs = files(BASE, OURS, THEIRS)
    compact = run(base, ours, theirs, "-p", "--json")
    assert compact.exit_code == 0
    assert compact.stdout.count("\n") == 1
    data = json.loads(compact.stdout)
    assert data["schema"] == 1 and data["command"] == "merge"
    assert data["inputs"] == {"base": str(base), "ours": str(ours), "theirs": str(theirs), "path": None, "output": None}
    assert "def theirs_method" in data["text"]
    pretty = run(base, ours, theirs, "-p", "--json", "--pretty")
    assert pretty.stdout.count("\n") > 10 and json.loads(pretty.stdout) == data


# ---------------------------------------------------------------------------
# Inputs and targets that are not regular files: refused, exit 2, nothing written
# ---------------------------------------------------------------------------


@pytest.fixture
def no_replacing_devices(monkeypatch):
    """A safety net: a regression must fail this test, not replace /dev/null on the machine."""
    real_replace, real_rename = os.replace, os.rename

    def guarded(real):
        def move(src, dst, *args, **kwargs):
            if os.path.realpath(dst).startswith("/dev/"):
                raise AssertionError(f"plait tried to replace {dst}")
            return real(src, dst, *args, **kwargs)

        return move

    monkeypatch.setattr(os, "replace", guarded(real_replace))
    monkeypatch.setattr(os, "rename", guarded(real_rename))


def _is_null_device() -> bool:
    import stat

    return stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_ours_a_symlink_to_a_character_device_is_refused_and_the_device_stays(files, tmp_path, no_replacing_devices):
    base, _ours, theirs = files(BASE, OURS, THEIRS)
    (tmp_path / "ours.py").unlink()
    link = tmp_path / "ours.py"
    link.symlink_to("/dev/null")
    before = listing(tmp_path)
    for extra in ([], ["-p"]):
        result = CliRunner().invoke(cli, ["merge", str(base), str(link), str(theirs), *extra])
        assert result.exit_code == 2, result.output
        assert f"{link}: leads to /dev/null, a character device, not a regular file" in result.stderr
        assert result.stdout == ""
    assert _is_null_device()
    assert link.is_symlink() and os.readlink(link) == "/dev/null"
    assert listing(tmp_path) == before


@pytest.mark.parametrize("which", ["base", "theirs"])
def test_base_or_theirs_a_character_device_is_refused(files, tmp_path, which):
    paths = dict(zip(("base", "ours", "theirs"), files(BASE, OURS, THEIRS), strict=True))
    paths[which] = Path("/dev/null")  # reads as an empty file: a merge against nothing
    result = run(paths["base"], paths["ours"], paths["theirs"])
    assert result.exit_code == 2
    assert "/dev/null: is a character device, not a regular file" in result.stderr
    assert paths["ours"].read_text() == OURS


@pytest.mark.parametrize("which", ["base", "ours", "theirs"])
def test_a_fifo_input_is_refused_at_once_instead_of_blocking(files, tmp_path, which):
    paths = dict(zip(("base", "ours", "theirs"), files(BASE, OURS, THEIRS), strict=True))
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    paths[which] = fifo
    # A real process, as git starts it: before the fix it blocked in open() forever.
    argv = [sys.executable, "-m", "plait", "merge", *map(str, (paths["base"], paths["ours"], paths["theirs"]))]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert f"{fifo}: is a FIFO (named pipe), not a regular file" in proc.stderr
    assert Path(fifo).is_fifo()
    assert {p.name for p in tmp_path.iterdir()} == {"base.py", "ours.py", "theirs.py", "pipe.py"}
    if which != "ours":
        assert paths["ours"].read_text() == OURS


def test_output_targets_that_are_not_regular_files_are_refused(files, tmp_path, no_replacing_devices):
    base, ours, theirs = files(BASE, OURS, THEIRS)
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    (tmp_path / "outdir").mkdir()
    (tmp_path / "null-link.py").symlink_to("/dev/null")
    causes = {
        fifo: f"{fifo}: is a FIFO (named pipe), not a regular file",
        tmp_path / "outdir": f"{tmp_path / 'outdir'}: is a directory, not a regular file",
        Path("/dev/null"): "/dev/null: is a character device, not a regular file",
        tmp_path / "null-link.py": "null-link.py: leads to /dev/null, a character device, not a regular file",
    }
    for target, cause in causes.items():
        result = run(base, ours, theirs, "-o", target)
        assert result.exit_code == 2, (target, result.output)
        assert cause in result.stderr
    assert fifo.is_fifo() and (tmp_path / "outdir").is_dir() and _is_null_device()
    assert listing(tmp_path / "outdir") == []
    assert ours.read_text() == OURS
    assert listing(tmp_path) == ["base.py", "null-link.py", "ours.py", "out.fifo", "outdir", "theirs.py"]
