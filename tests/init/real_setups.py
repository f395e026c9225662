"""Real setups, each copy in a git repository of its own, as a user has them (for `init` and the end-to-end loop).

- ``canonical/``: the package ``corelib`` (its ``__init__`` imports itself
  absolutely, its modules relatively), with three commits of history;
- ``fork/``: ``corelib`` copied by hand (``shutil.copytree``) at the second
  commit, its imports rewritten to absolute ones, ``client.py`` renamed
  ``embedding.py``, a module of its own and a local fix;
- ``svc-a/``: a service that vendored the first commit with cp + sed into
  ``svc_a/_vendored_corelib/``, with a local patch;
- ``svc-b/``: the same at the second commit, under ``src/``;
- ``ws/``: the workspace repository beside them, holding only a README.

The hand edits are ``str.replace`` on the fixture's own text: what the
user's ``sed`` did.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import git
from vendor_builders import init_repo, write_tree

ERRORS = '''\
"""What corelib raises."""


class Failure(Exception):
    """A fetch failed; the cause is chained."""

    def __init__(self, message, *, retryable=False):
        super().__init__(message)
        self.retryable = retryable
'''

RETRY = '''\
"""How often to try again."""

from .errors import Failure


def attempts(limit):
    """Every attempt number up to *limit*."""
    if limit < 1:
        raise Failure("at least one attempt")
    return list(range(1, limit + 1))
'''


def client(version: int) -> str:
    """The client as of canonical commit *version* (1, 2 or 3)."""
    timeout = {1: 5, 2: 10, 3: 10}[version]
    many = (
        "\n    def fetch_many(self, texts):\n"
        '        """Fetch each text in turn."""\n'
        "        return [self.fetch(text) for text in texts]\n"
        if version >= 3
        else ""
    )
    return (
        '"""The client of corelib."""\n'
        "\n"
        "import json\n"
        "\n"
        "from .errors import Failure\n"
        "from .retry import attempts\n"
        "\n"
        "\n"
        "class Client:\n"
        '    """Fetches texts, retrying on failure."""\n'
        "\n"
        f"    timeout = {timeout}\n"
        "\n"
        "    def __init__(self, mode, retries=3):\n"
        "        self.mode = mode\n"
        "        self.retries = retries\n"
        "\n"
        "    def fetch(self, text):\n"
        "        for attempt in attempts(self.retries):\n"
        "            try:\n"
        '                return json.dumps({"mode": self.mode, "text": text, "attempt": attempt})\n'
        "            except ValueError as exc:\n"
        "                raise Failure(str(exc), retryable=True) from exc\n"
        '        raise Failure("no attempt left")\n'
        f"{many}"
    )


INIT = '''\
"""corelib: a client and what it raises."""

from corelib.client import Client
from corelib.errors import Failure
from corelib.retry import attempts

__all__ = ["Client", "Failure", "attempts"]
'''


def canonical_files(version: int) -> dict[str, str]:
    return {
        "__init__.py": INIT,
        "client.py": client(version),
        "errors.py": ERRORS,
        "retry.py": RETRY,
        "py.typed": "",
    }


def commit_all(repo: git.Repo, message: str) -> str:
    repo.git.add("-A")
    repo.index.commit(message)
    return repo.head.commit.hexsha


def edit(path: Path, old: str, new: str) -> None:
    """A hand edit of a file (sed): *old* must be there."""
    text = path.read_text(encoding="utf-8")
    assert old in text, (old, path)
    path.write_text(text.replace(old, new), encoding="utf-8")


def vendor_by_hand(package_dir: Path, dest: Path, package: str, *, absolute: bool = False) -> None:
    """cp -r corelib dest && sed -i 's/corelib\\./<package>./g': every absolute self-import renamed.

    *absolute* also spells the relative imports absolutely (``sed 's/from \\./from <package>./'``),
    as some services' scripts do: the same bindings, spelled otherwise than plait's rewrite.
    """
    shutil.copytree(package_dir, dest)
    for file in dest.rglob("*.py"):
        text = file.read_text(encoding="utf-8")
        text = text.replace("import corelib.", f"import {package}.").replace("from corelib.", f"from {package}.")
        text = text.replace("= corelib.", f"= {package}.")
        if absolute:
            text = text.replace("from .", f"from {package}.")
        file.write_text(text, encoding="utf-8")


@dataclass
class Setup:
    root: Path
    canonical: Path
    fork: Path
    svc_a: Path
    svc_b: Path
    ws: Path
    commits: list[str]
    repos: dict[str, git.Repo]


def make_setup(root: Path) -> Setup:
    canonical = root / "canonical"
    write_tree(canonical, {"README.md": "corelib\n", "pyproject.toml": '[project]\nname = "corelib"\n'})
    canonical_repo = init_repo(canonical)
    commits = []
    for version in (1, 2, 3):
        write_tree(canonical / "corelib", canonical_files(version))
        commits.append(commit_all(canonical_repo, f"corelib v{version}"))
    package = canonical / "corelib"

    # The fork: copied at the second commit, then made its own.
    canonical_repo.git.checkout(commits[1])
    fork = root / "fork"
    shutil.copytree(package, fork / "corelib")
    canonical_repo.git.checkout("main")
    for file in (fork / "corelib").glob("*.py"):
        edit_text = file.read_text(encoding="utf-8")
        file.write_text(edit_text.replace("from .", "from corelib."), encoding="utf-8")
    (fork / "corelib" / "client.py").rename(fork / "corelib" / "embedding.py")
    for file in (fork / "corelib").glob("*.py"):
        file.write_text(file.read_text(encoding="utf-8").replace("corelib.client", "corelib.embedding"))
    edit(fork / "corelib" / "retry.py", "if limit < 1:", "if limit < 1 or limit > 100:")
    write_tree(
        fork,
        {
            "corelib/metrics.py": '"""The fork\'s own counters."""\n\nCOUNTS = {}\n\n\ndef count(name):\n'
            "    COUNTS[name] = COUNTS.get(name, 0) + 1\n    return COUNTS[name]\n",
            "README.md": "a fork of corelib\n",
        },
    )
    fork_repo = init_repo(fork)
    commit_all(fork_repo, "fork corelib")

    repos = {"canonical": canonical_repo, "fork": fork_repo}
    services = {}
    for name, at, top in (("svc_a", 0, Path(".")), ("svc_b", 1, Path("src"))):
        repo_dir = root / name.replace("_", "-")
        service = repo_dir / top / name
        write_tree(
            service,
            {
                "__init__.py": f'"""The {name} service."""\n',
                "app.py": f"from {name}._vendored_corelib import Client\n\n\ndef handle(text):\n"
                '    return Client("fast").fetch(text)\n',
            },
        )
        write_tree(
            repo_dir,
            {"tests/test_app.py": f"from {name}.app import handle\n\n\ndef test_handle():\n    assert handle('x')\n"},
        )
        canonical_repo.git.checkout(commits[at])
        vendor_by_hand(package, service / "_vendored_corelib", f"{name}._vendored_corelib", absolute=name == "svc_a")
        canonical_repo.git.checkout("main")
        edit(
            service / "_vendored_corelib" / "errors.py",
            "self.retryable = retryable",
            "self.retryable = bool(retryable)",
        )
        repos[name] = init_repo(repo_dir)
        commit_all(repos[name], f"{name}: vendor corelib by hand, with a local patch")
        services[name] = repo_dir

    ws = root / "ws"
    write_tree(ws, {"README.md": "the workspace that keeps corelib's copies in step\n"})
    repos["ws"] = init_repo(ws)
    commit_all(repos["ws"], "the workspace")
    return Setup(root, canonical, fork, services["svc_a"], services["svc_b"], ws, commits, repos)


def under_plait(setup: Setup) -> None:
    """The setup brought under plait as VENDORING.md's steps say, and committed in every repository,
    as its maintainers would leave it: init, an adoption per copy, a sync and a vendor."""

    def plait(*args: str) -> None:
        env = {k: v for k, v in os.environ.items() if k != "PLAIT_WORKSPACE"}
        done = subprocess.run(
            [sys.executable, "-m", "plait", *args], cwd=setup.ws, capture_output=True, text=True, env=env
        )
        assert done.returncode == 0, (args, done.stdout + done.stderr)

    plait("init", "--canonical", "../canonical", "../fork", "../svc-a", "../svc-b")
    for name in ("fork", "svc-a", "svc-b"):
        plait("adopt", name)
    plait("sync")
    plait("vendor", "--all")
    for name in ("svc_a", "svc_b", "fork", "ws"):
        commit_all(setup.repos[name], "under plait")


def url_manifest(setup: Setup, *, with_svc_b: bool = True) -> str:
    """A manifest naming the setup's copies by ``file://`` URL: plait clones them into .plait/clones."""
    text = f"""\
# The copies, named by URL: plait clones them into .plait/clones.
[canonical]
package = "corelib"
git = "file://{setup.canonical}"
subdir = "corelib"

[consumers.svc-a]
git = "file://{setup.svc_a}"
vendor_dir = "svc_a/_vendored_corelib"
package = "svc_a._vendored_corelib"
"""
    if with_svc_b:
        text += f"""
[consumers.svc-b]
git = "file://{setup.svc_b}"
ref = "main"
subdir = "src"
vendor_dir = "svc_b/_vendored_corelib"
package = "svc_b._vendored_corelib"
"""
    return text
