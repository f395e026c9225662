"""A distribution pinned on a package index, fetched by pip itself.

plait never talks to an index of its own accord: ``python -m pip download
--no-deps`` fetches the pinned file, so the user's index, proxy and
credentials configuration all apply, and ``--index-url`` / ``--find-links``
are passed only when the manifest gives them.  A wheel is unpacked as it
is; an sdist is built by ``pip install --target --no-deps --no-compile``
(its build backend fetched as the user's pip configuration says).  What the
distribution provides at the top level is read from its dist-info, as
vendoring reads it (top_level.txt, else RECORD), never guessed.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Mapping
from pathlib import Path

from .. import contents
from ..errors import PlaitError
from ..records import record
from .model import Group, Pin, canonical_name

__all__ = ["FetchedDistribution", "fetch_distribution", "provided_top_level"]

# pip's own answer, shortened to its last lines: what a person needs to see of why.
_TAIL = 3


@record(frozen=True)
class FetchedDistribution:
    """One pinned distribution as pip fetched it.

    file / sha256: the distribution file pip downloaded, and its digest (what the lock records).
    tree: its files as ``pip install --target`` lays them out (dist-info included),
      relative path → text (`plait.contents`).
    top_level: the packages and modules it provides.
    """

    name: str
    version: str
    file: str
    sha256: str
    tree: Mapping[str, str]
    top_level: tuple[str, ...]


class FetchFailed(PlaitError):
    """pip could not fetch a pin, or could not build its sdist: one line naming the package."""


def _pip_env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("PIP_DISABLE_PIP_VERSION_CHECK", "1")
    env["PIP_NO_INPUT"] = "1"  # a credentials prompt would hang a CI job
    env.pop("PYTHONPATH", None)  # pip of this interpreter, not of a project under test
    return env


def _run_pip(args: list[str], pin: Pin, what: str) -> None:
    try:
        done = subprocess.run(
            [sys.executable, "-m", "pip", *args],
            capture_output=True,
            text=True,
            env=_pip_env(),
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except OSError as exc:
        raise FetchFailed(f"{pin.spec}: cannot run pip: {exc.strerror or exc}") from None
    if done.returncode != 0:
        lines = [line.strip() for line in (done.stderr or done.stdout).splitlines() if line.strip()]
        errors = [line for line in lines if line.lower().startswith("error")] or lines[-_TAIL:]
        raise FetchFailed(f"{pin.spec}: {what}: {' / '.join(errors[:_TAIL]) or f'pip exited {done.returncode}'}")


def _source_args(group: Group) -> list[str]:
    args: list[str] = []
    if group.index_url is not None:
        args += ["--index-url", group.index_url]
    for link in group.find_links:
        args += ["--find-links", link]
    return args


def fetch_distribution(group: Group, pin: Pin) -> FetchedDistribution:
    """*pin* fetched by pip (a wheel preferred, an sdist built), unpacked; `FetchFailed` names the package."""
    with tempfile.TemporaryDirectory(prefix="plait-fetch-") as scratch:
        dest = Path(scratch) / "download"
        _run_pip(
            ["download", "--no-deps", "--dest", str(dest), *_source_args(group), pin.spec],
            pin,
            "pip could not fetch it",
        )
        found = sorted(p for p in dest.iterdir() if p.is_file()) if dest.is_dir() else []
        if len(found) != 1:
            raise FetchFailed(f"{pin.spec}: pip fetched {len(found)} files, expected the one distribution")
        archive = found[0]
        data = archive.read_bytes()
        if archive.name.endswith(".whl"):
            tree = _unpack_wheel(archive, pin)
        else:
            target = Path(scratch) / "built"
            _run_pip(
                ["install", "--target", str(target), "--no-deps", "--no-compile", *_source_args(group), str(archive)],
                pin,
                f"its sdist {archive.name} does not build",
            )
            tree = _read_built(target)
    return FetchedDistribution(
        name=canonical_name(pin.name),
        version=pin.version,
        file=archive.name,
        sha256=hashlib.sha256(data).hexdigest(),
        tree=tree,
        top_level=provided_top_level(tree, pin),
    )


def _unpack_wheel(archive: Path, pin: Pin) -> dict[str, str]:
    try:
        with zipfile.ZipFile(archive) as wheel:
            names = [n for n in wheel.namelist() if not n.endswith("/")]
            for name in names:
                if name.startswith("/") or ".." in name.split("/"):
                    raise FetchFailed(f"{pin.spec}: its wheel names a path outside itself: {name!r}")
            return {name: contents.decode(wheel.read(name)) for name in sorted(names)}
    except zipfile.BadZipFile:
        raise FetchFailed(f"{pin.spec}: {archive.name} is not a wheel (not a zip file)") from None


def _read_built(target: Path) -> dict[str, str]:
    tree: dict[str, str] = {}
    for path in sorted(target.rglob("*")):
        rel = path.relative_to(target).as_posix()
        if path.is_file() and "__pycache__" not in rel.split("/") and not rel.startswith("bin/"):
            tree[rel] = contents.decode(path.read_bytes())
    return tree


def provided_top_level(tree: Mapping[str, str], pin: Pin) -> tuple[str, ...]:
    """The top-level packages and modules of a distribution's *tree*: its top_level.txt, else its RECORD."""
    infos = sorted({rel.split("/", 1)[0] for rel in tree if rel.split("/", 1)[0].endswith(".dist-info")})
    if not infos:
        raise FetchFailed(f"{pin.spec}: the distribution has no .dist-info (not a wheel pip could install?)")
    info = infos[0]
    listed = tree.get(f"{info}/top_level.txt")
    if listed is not None:
        names = [line.strip() for line in listed.splitlines() if line.strip()]
    else:
        record_text = tree.get(f"{info}/RECORD", "")
        names = []
        for line in record_text.splitlines():
            path = line.rsplit(",", 2)[0] if line.count(",") >= 2 else line
            first = path.split("/", 1)[0]
            if first and not first.endswith((".dist-info", ".data")) and first not in ("..", "__pycache__"):
                names.append(first.removesuffix(".py"))
    provided = tuple(sorted({n.replace("/", ".").split(".", 1)[0] for n in names if n}))
    if not provided:
        raise FetchFailed(f"{pin.spec}: its dist-info names no top-level package or module")
    return provided
