"""Small real workspaces for the sync tests: files on disk, a manifest, a git repository.

The canonical package is `corelib`; its lineage `fork` carries it as
`forklib`, with `client.py` renamed `core.py` and absolute self-imports (the
same transforms as the bundled upstream lineage), plus a `uds` transport of
its own.  Bases are recorded the way a maintainer would: `plait adopt`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import git

from plait.lineage.adopt import adopt
from plait.workspace import Workspace


def client_source(
    *,
    errors: str = "from .errors import Failure",
    uds: bool = False,
    catch: str = "ValueError",
    message: str = "str(exc)",
    fetch_many: bool = False,
    http_version: bool = False,
) -> str:
    """One version of the test client, written out from what distinguishes it.

    The fixtures are generated, not edited: each version of the canonical
    client or of the fork names its differences here.
    """
    uds_branch = '            elif self.mode == "uds":\n                return self._via_uds(text)\n' if uds else ""
    many = (
        "    def fetch_many(self, texts):\n        return [self.fetch(text) for text in texts]\n\n"
        if fetch_many
        else ""
    )
    version = ', "v": 2' if http_version else ""
    via_uds = '\n    def _via_uds(self, text):\n        return json.dumps({"uds": text})\n' if uds else ""
    failure = "\n\nclass Failure(Exception):\n    pass\n" if not errors else f"\n{errors}\n"
    return (
        f'"""The client."""\n\nimport json\n{failure}\n\n'
        "class Client:\n"
        '    def __init__(self, mode, url=""):\n'
        "        self.mode = mode\n"
        "        self.url = url\n"
        "\n"
        "    def fetch(self, text):\n"
        "        try:\n"
        '            if self.mode == "http":\n'
        "                return self._http(text)\n"
        '            elif self.mode == "api":\n'
        "                return self._api(text)\n"
        f"{uds_branch}"
        "            else:\n"
        "                return None\n"
        f"        except {catch} as exc:\n"
        f"            raise Failure({message}) from exc\n"
        "\n"
        f"{many}"
        "    def _http(self, text):\n"
        f'        return json.dumps({{"http": text, "url": self.url{version}}})\n'
        "\n"
        "    def _api(self, text):\n"
        '        return json.dumps({"api": text})\n'
        f"{via_uds}"
    )


ERRORS = '"""Errors."""\n\n\nclass Failure(Exception):\n    """A fetch failed."""\n'

CANONICAL = {
    "__init__.py": '"""corelib: the canonical package."""\n\nfrom .client import Client\n\n__all__ = ["Client"]\n',
    "errors.py": ERRORS,
    "client.py": client_source(),
}

# The fork as it forked from CANONICAL (carried into forklib), plus its own
# uds transport and a wider catch for the socket errors it brings.
FORK = {
    "__init__.py": '"""corelib: the canonical package."""\n\nfrom forklib.core import Client\n\n__all__ = ["Client"]\n',
    "errors.py": ERRORS,
    "core.py": client_source(errors="from forklib.errors import Failure", uds=True, catch="(ValueError, OSError)"),
}

# The canonical client, later: a new method, a changed helper.
CLIENT_V2 = client_source(fetch_many=True, http_version=True)

MANIFEST = """\
# A test workspace.  This comment, and the order below, must survive writes.

[canonical]
package = "corelib"
path = "canonical/corelib"

[lineages.fork]
description = "carries corelib as forklib, with a uds transport"
path = "fork/forklib"   # where the fork lives
package = "forklib"
syncs_from = "canonical"

[lineages.fork.files]
"client.py" = "core.py"

[lineages.fork.transforms]
absolute_imports = true
"""


def write_tree(root: Path, files: Mapping[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def read_tree(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.parts and "__pycache__" not in p.parts
    }


def fingerprint(root: Path) -> str:
    """One hash of every file under *root* (paths and bytes), to prove nothing was written."""
    digest = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file() and ".git" not in p.parts:
            digest.update(p.relative_to(root).as_posix().encode() + b"\0" + p.read_bytes())
    return digest.hexdigest()


@dataclass
class Scenario:
    """A workspace directory under git, with `canonical/corelib` and `fork/forklib`."""

    root: Path
    repo: git.Repo

    @property
    def canonical(self) -> Path:
        return self.root / "canonical" / "corelib"

    @property
    def fork(self) -> Path:
        return self.root / "fork" / "forklib"

    def ws(self) -> Workspace:
        return Workspace.load(self.root)

    def commit(self, message: str) -> str:
        """Commit everything, an hour after the previous commit: `adopt` reads the dates."""
        self.repo.git.add("-A")
        count = sum(1 for _ in self.repo.iter_commits()) if self.repo.head.is_valid() else 0
        when = f"{1_780_000_000 + 3600 * count} +0000"
        self.repo.index.commit(message, author_date=when, commit_date=when)
        return self.repo.head.commit.hexsha

    def write_canonical(self, files: Mapping[str, str]) -> None:
        write_tree(self.canonical, files)


def make_scenario(root: Path, *, fork: Mapping[str, str] | None = None, manifest: str = MANIFEST) -> Scenario:
    """The canonical package and the fork, committed, with the fork's base adopted."""
    root.mkdir(parents=True, exist_ok=True)
    write_tree(root / "canonical" / "corelib", CANONICAL)
    write_tree(root / "fork" / "forklib", FORK if fork is None else fork)
    (root / "lineages.toml").write_text(manifest, encoding="utf-8")
    repo = git.Repo.init(root)
    with repo.config_writer() as config:
        config.set_value("user", "name", "plait tests")
        config.set_value("user", "email", "tests@plait.invalid")
    scenario = Scenario(root, repo)
    base = scenario.commit("canonical and fork")
    adopt(scenario.ws(), "fork", base)
    scenario.commit("adopt the fork's base")
    return scenario
