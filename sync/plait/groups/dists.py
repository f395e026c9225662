"""The distributions a group was vendored from, kept in the workspace store: no network after the first fetch.

Each fetched distribution is stored as its unpacked tree, every file an
object of the store (``.plait/objects/``, content-addressed as bases are),
plus ``.plait/dists/<distribution file>.toml``: the file's sha256, its
top-level names and ``files = { path = digest }``.  `check`, `status`,
`diff` and a re-run of `vendor` read the tree from there, each object
verified against its digest.

The same pin fetched again with another sha256 is not an upstream change
(that is a changed pin) but a different file under the same name: an
error naming both hashes.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..errors import PlaitError
from ..store import CorruptStore, Snapshot, Store
from ..toml_input import check_bounds
from .index import FetchedDistribution

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..commit import Transaction

__all__ = ["DISTS_DIR", "HashMismatch", "check_same_file", "load_distribution", "stage_distribution"]

DISTS_DIR = "dists"
_HEX64 = re.compile(r"[0-9a-f]{64}")
_FILE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+!-]*\.(whl|tar\.gz|zip|tar\.bz2)")


class HashMismatch(PlaitError):
    """A pin fetched again whose file hashes otherwise than the lock recorded (exit 2)."""


def _entry(store: Store, file: str) -> Path:
    if not _FILE.fullmatch(file):
        raise CorruptStore(f"{file!r} is not a distribution file name")
    return store.root / DISTS_DIR / f"{file}.toml"


def check_same_file(member: str, spec: str, locked_sha256: str, fetched: FetchedDistribution) -> None:
    """Refuse *fetched* when the lock recorded another sha256 for the same pin, naming both."""
    if fetched.sha256 != locked_sha256:
        raise HashMismatch(
            f"{member}: {spec} was fetched as {fetched.file} with sha256 {fetched.sha256}, but the lock recorded"
            f" sha256 {locked_sha256} for the same pin; the index serves another file under that name"
        )


def stage_distribution(store: Store, txn: Transaction, fetched: FetchedDistribution) -> Path:
    """Add *fetched*'s tree to the store (via *txn*) and its entry; the entry's path."""
    import tomlkit

    snapshot = store.snapshot(txn, dict(fetched.tree))
    doc = tomlkit.document()
    doc.add(tomlkit.comment("Written by plait: a distribution as pip fetched it; its files are in ../objects/."))
    doc["name"] = fetched.name
    doc["version"] = fetched.version
    doc["file"] = fetched.file
    doc["sha256"] = fetched.sha256
    doc["top_level"] = list(fetched.top_level)
    files = tomlkit.table()
    for rel in sorted(snapshot.files):
        files[rel] = snapshot.files[rel]
    doc["files"] = files
    path = store.confined(_entry(store, fetched.file))
    txn.write(path, tomlkit.dumps(doc))
    return path


def load_distribution(store: Store, file: str, sha256: str) -> FetchedDistribution:
    """The distribution *file* (its archive hashing to *sha256*) from the store, with no network.

    A missing or corrupt entry or object is a `CorruptStore` naming it: the
    caller fetches the pin again (its hash checked against the lock) or stops.
    """
    import tomllib

    path = store.confined(_entry(store, file))
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CorruptStore(f"the store does not hold {file}", path=str(path)) from None
    except OSError as exc:
        raise CorruptStore(f"the store entry of {file} cannot be read: {exc.strerror}", path=str(path)) from None
    check_bounds(text, path=str(path), what="a distribution entry")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CorruptStore(f"the store entry of {file} does not parse: {exc}", path=str(path)) from None
    files, tops = data.get("files"), data.get("top_level")
    if data.get("sha256") != sha256 or data.get("file") != file:
        raise CorruptStore(
            f"the store entry of {file} is for another file (sha256 {data.get('sha256')!r})", path=str(path)
        )
    if not isinstance(files, dict) or not all(isinstance(d, str) and _HEX64.fullmatch(d) for d in files.values()):
        raise CorruptStore(f"the store entry of {file}: 'files' must map paths to sha256 digests", path=str(path))
    if not isinstance(tops, list) or not tops or not all(isinstance(t, str) for t in tops):
        raise CorruptStore(f"the store entry of {file}: 'top_level' must list names", path=str(path))
    tree = store.load(Snapshot({str(k): str(v) for k, v in files.items()}), what=file)
    return FetchedDistribution(
        name=str(data.get("name", "")),
        version=str(data.get("version", "")),
        file=file,
        sha256=sha256,
        tree=tree,
        top_level=tuple(tops),
    )
