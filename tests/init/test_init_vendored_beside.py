"""`plait init` infers `rename` for a dependency vendored beside the copy, so adopt lists no import as a local edit.

The service vendored corelib and, beside it, httpx (``svc_c/_vendor/httpx``),
and rewrote corelib's ``import httpx`` to ``from svc_c._vendor import httpx``:
pip's `vendoring` tool does the same with requests and urllib3.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from real_setups import commit_all, edit
from vendor_builders import init_repo, write_tree

pytestmark = pytest.mark.slow  # init, adopt and vendor in real repositories

CLIENT = '''"""The client of corelib."""

import httpx
from httpx import Timeout

from .errors import Failure


class Client:
    def __init__(self, url):
        self.url = url
        self.timeout = Timeout(5)

    def fetch(self, text):
        try:
            return httpx.post(self.url, json={"text": text}, timeout=self.timeout)
        except httpx.HTTPError as exc:
            raise Failure(str(exc)) from exc
'''

ERRORS = '''"""What corelib raises."""


class Failure(Exception):
    """A fetch failed."""
'''


def _plait(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plait", *args], cwd=cwd, capture_output=True, text=True, timeout=300, check=False
    )


def _setup(root: Path) -> Path:
    canonical = root / "canonical"
    write_tree(canonical / "corelib", {"__init__.py": '"""corelib."""\n', "client.py": CLIENT, "errors.py": ERRORS})
    commit_all(init_repo(canonical), "corelib")
    service = root / "svc-c"
    vendor = service / "svc_c" / "_vendor"
    write_tree(
        service / "svc_c",
        {
            "__init__.py": "",
            "app.py": "from svc_c._vendor.corelib.client import Client\n",
            "_vendor/__init__.py": "",
            "_vendor/httpx/__init__.py": '"""httpx, vendored."""\n\n\nclass Timeout:\n    pass\n',
        },
    )
    shutil.copytree(canonical / "corelib", vendor / "corelib")
    # What the vendoring tool did: the dependency's imports point at the copy beside it.
    edit(
        vendor / "corelib" / "client.py",
        "import httpx\nfrom httpx import",
        "from svc_c._vendor import httpx\nfrom svc_c._vendor.httpx import",
    )
    # And the service's own patch.
    edit(
        vendor / "corelib" / "errors.py",
        '    """A fetch failed."""\n',
        '    """A fetch failed."""\n\n    retryable = False\n',
    )
    commit_all(init_repo(service), "svc-c")
    ws = root / "ws"
    ws.mkdir()
    return ws


def test_init_writes_the_rename_and_says_so_and_adopt_lists_no_import_as_a_local_edit(tmp_path: Path) -> None:
    ws = _setup(tmp_path)

    done = _plait(ws, "init", "--canonical", "../canonical", "../svc-c")

    assert done.returncode == 0, done.stderr
    assert "rename httpx -> svc_c._vendor.httpx (vendored beside it)" in done.stdout
    text = (ws / "lineages.toml").read_text(encoding="utf-8")
    assert tomllib.loads(text)["consumers"]["svc-c"]["rename"] == {"httpx": "svc_c._vendor.httpx"}
    assert "# plainly: vendored beside it" in text

    adopted = _plait(ws, "adopt", "svc-c", "--dry-run", "--verbose")
    assert adopted.returncode == 0, adopted.stderr
    edits = [line.strip() for line in adopted.stdout.splitlines() if line.startswith("      ")]
    assert edits == ["attribute retryable in Failure"], adopted.stdout

    # Without the rename, every rewritten import would read as the copy's own edit.
    kept = [line for line in text.splitlines() if not line.startswith("rename = ")]
    (ws / "lineages.toml").write_text("\n".join(kept) + "\n", encoding="utf-8")
    bare = _plait(ws, "adopt", "svc-c", "--dry-run", "--verbose")
    assert bare.returncode == 0, bare.stderr
    assert any("httpx" in line for line in bare.stdout.splitlines() if line.startswith("      ")), bare.stdout


def test_init_names_the_option_where_it_found_no_dependency_beside(tmp_path: Path) -> None:
    ws = _setup(tmp_path)
    client = tmp_path / "svc-c" / "svc_c" / "_vendor" / "corelib" / "client.py"
    client.write_text(CLIENT, encoding="utf-8")  # imports httpx as the source does: nothing vendored beside
    done = _plait(ws, "init", "--canonical", "../canonical", "../svc-c")
    assert done.returncode == 0, done.stderr
    text = (ws / "lineages.toml").read_text(encoding="utf-8")
    assert "rename" not in tomllib.loads(text)["consumers"]["svc-c"]
    assert '# a dependency vendored beside it would need: rename = { "dep" = "svc_c._vendor.dep" }' in text


def test_init_prints_what_to_commit_in_each_repository_and_in_which_order(tmp_path: Path) -> None:
    ws = _setup(tmp_path)
    commit_all(init_repo(ws), "the workspace")  # the workspace is a repository of its own

    done = _plait(ws, "init", "--canonical", "../canonical", "../svc-c")

    lines = done.stdout.splitlines()
    lead = next(i for i, line in enumerate(lines) if line.startswith("then commit what plait wrote"))
    assert "merge the workspace's commit first" in lines[lead]
    assert lines[lead + 1].startswith("  git add lineages.toml .plait && git commit -m")
    assert lines[lead + 2].startswith("  git -C ../svc-c add svc_c/_vendor/corelib && git -C ../svc-c commit -m")
