"""Small real workspaces for the vendor tests: a canonical package, consumers, git.

The canonical package is `corelib` (relative self-imports, as the canonical
client has).  The consumer `svc` vendors it into `svc/_vendor/corelib`, so
every absolute import of `corelib` becomes `svc._vendor.corelib`.  A second
consumer, `tool`, vendors it too; `make_git_consumer` puts a consumer in a
repository of its own.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import git

from plait.workspace import Workspace

ERRORS = '"""Errors."""\n\n\nclass Failure(Exception):\n    """A fetch failed."""\n'


def client_source(*, catch: str = "ValueError", fetch_many: bool = False, timeout: int = 5) -> str:
    """One version of the client, written out from what distinguishes it."""
    many = (
        "\n    def fetch_many(self, texts):\n        return [self.fetch(text) for text in texts]\n"
        if fetch_many
        else ""
    )
    return (
        '"""The client: see corelib.errors for what it raises."""\n'
        "\n"
        "import json\n"
        "\n"
        "from .errors import Failure\n"
        "\n"
        "\n"
        "class Client:\n"
        f"    timeout = {timeout}\n"
        "\n"
        "    def __init__(self, mode):\n"
        "        self.mode = mode\n"
        "\n"
        "    def fetch(self, text):\n"
        "        try:\n"
        '            return json.dumps({"mode": self.mode, "text": text})\n'
        f"        except {catch} as exc:\n"
        "            raise Failure(str(exc)) from exc\n"
        f"{many}"
    )


CANONICAL = {
    "__init__.py": (
        '"""corelib."""\n\nimport corelib.errors\nfrom corelib.client import Client\n\n'
        "Failure = corelib.errors.Failure\n"
        '__all__ = ["Client", "Failure"]\n'
    ),
    "errors.py": ERRORS,
    "client.py": client_source(),
    "py.typed": "",
}

MANIFEST = """\
# A test workspace for vendoring.
[canonical]
package = "corelib"
path = "canonical/corelib"

[consumers.svc]
description = "a service"
path = "consumers/svc"
vendor_dir = "svc/_vendor/corelib"
package = "svc._vendor.corelib"

[consumers.tool]
path = "consumers/tool"
vendor_dir = "tool/_vendor/corelib"
package = "tool._vendor.corelib"
"""


def write_tree(root: Path, files: Mapping[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def fingerprint(root: Path) -> str:
    """One hash of every file under *root* (paths and bytes), to prove nothing was written."""
    digest = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file() and ".git" not in p.parts and "__pycache__" not in p.parts:
            digest.update(p.relative_to(root).as_posix().encode() + b"\0" + p.read_bytes())
    return digest.hexdigest()


def init_repo(root: Path) -> git.Repo:
    repo = git.Repo.init(root, initial_branch="main")
    with repo.config_writer() as config:
        config.set_value("user", "name", "plait tests")
        config.set_value("user", "email", "tests@plait.invalid")
        config.set_value("commit", "gpgsign", "false")
    return repo


@dataclass
class Scenario:
    """A workspace directory under git: `canonical/corelib`, consumers `svc` and `tool`."""

    root: Path
    repo: git.Repo

    @property
    def canonical(self) -> Path:
        return self.root / "canonical" / "corelib"

    def vendored(self, consumer: str = "svc") -> Path:
        return self.root / "consumers" / consumer / consumer / "_vendor" / "corelib"

    def ws(self) -> Workspace:
        return Workspace.load(self.root)

    def commit(self, message: str) -> str:
        self.repo.git.add("-A")
        self.repo.index.commit(message)
        return self.repo.head.commit.hexsha

    def edit_vendored(self, rel: str, old: str, new: str, consumer: str = "svc") -> None:
        path = self.vendored(consumer) / rel
        text = path.read_text(encoding="utf-8")
        assert old in text, (old, text)
        path.write_text(text.replace(old, new), encoding="utf-8")


def make_scenario(root: Path, *, manifest: str = MANIFEST) -> Scenario:
    """The canonical package and two consumer packages with nothing vendored yet, committed."""
    root.mkdir(parents=True, exist_ok=True)
    write_tree(root / "canonical" / "corelib", CANONICAL)
    for name in ("svc", "tool"):
        write_tree(root / "consumers" / name / name, {"__init__.py": "", "_vendor/__init__.py": ""})
    (root / "lineages.toml").write_text(manifest, encoding="utf-8")
    scenario = Scenario(root, init_repo(root))
    scenario.commit("canonical and consumers")
    return scenario
