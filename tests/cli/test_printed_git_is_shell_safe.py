"""A printed ``git -C <repository>`` is one shell word whatever the repository's path (issue 30).

``next:`` printed ``git -C ../svc ünï diff`` unquoted: pasted into a shell, git was told to run in
``../svc`` and given ``ünï`` as a command.  Each line here is run by bash exactly as printed.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from plait.cli.render import Places


@pytest.mark.parametrize("name", ["svc ünï", "it's here", "plain"])
def test_the_printed_git_command_runs_in_the_named_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    repo = tmp_path / name
    (repo / "pkg dir").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "pkg dir" / "new file.py").write_text("x = 1\n", encoding="utf-8")
    here = tmp_path / "ws"
    here.mkdir()
    monkeypatch.chdir(here)
    places = Places(None)
    added = places.in_repo(repo / "pkg dir" / "new file.py", repo)

    from plait.names import shell_word

    line = f"{places.git(repo)} add {shell_word(added)}"
    done = subprocess.run(["bash", "-c", line], cwd=here, capture_output=True, text=True)

    assert done.returncode == 0, (line, done.stderr)
    staged = subprocess.run(
        ["git", "-C", str(repo), "diff", "--cached", "--name-only"], capture_output=True, text=True, check=True
    )
    assert staged.stdout.splitlines() == ["pkg dir/new file.py"], line
