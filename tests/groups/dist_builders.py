"""Real distributions for the group tests: wheels and sdists built here, served by pip itself.

A wheel is a zip holding the package's files and a ``NAME-VERSION.dist-info``
with METADATA, WHEEL, top_level.txt and RECORD (every file with its sha256,
as pip checks them); an sdist is a tar.gz with PKG-INFO and a setuptools
pyproject, which pip builds (`--no-build-isolation`, with the test's own
setuptools).  `SimpleIndex` serves a directory of them as a PEP 503 index on
loopback.
"""

from __future__ import annotations

import base64
import hashlib
import http.server
import io
import tarfile
import threading
import zipfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from plait.groups.model import Group

__all__ = ["SimpleIndex", "build_sdist", "build_wheel", "pip_vendor_group", "serve_index"]


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _dist(name: str) -> str:
    return name.replace("-", "_")


def build_wheel(
    folder: Path, name: str, version: str, files: Mapping[str, str], *, top_level: tuple[str, ...] | None = None
) -> Path:
    """A pure-Python wheel of *name*==*version* in *folder*, holding *files* (path → text)."""
    dist_info = f"{_dist(name)}-{version}.dist-info"
    tops = top_level if top_level is not None else tuple(sorted({p.split("/")[0].removesuffix(".py") for p in files}))
    members: dict[str, bytes] = {path: text.encode() for path, text in files.items()}
    members[f"{dist_info}/METADATA"] = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n\n".encode()
    members[f"{dist_info}/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: dist_builders\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    members[f"{dist_info}/top_level.txt"] = "".join(f"{t}\n" for t in tops).encode()
    record = "".join(f"{path},{_record_hash(data)},{len(data)}\n" for path, data in members.items())
    members[f"{dist_info}/RECORD"] = (record + f"{dist_info}/RECORD,,\n").encode()
    path = folder / f"{_dist(name)}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as wheel:
        for member, data in members.items():
            wheel.writestr(member, data)
    return path


def build_sdist(folder: Path, name: str, version: str, files: Mapping[str, str], *, broken: bool = False) -> Path:
    """An sdist of *name*==*version* in *folder* that setuptools builds (or, *broken*, fails to)."""
    root = f"{_dist(name)}-{version}"
    packages = sorted({p.split("/")[0] for p in files if "/" in p})
    modules = sorted(p.removesuffix(".py") for p in files if "/" not in p and p.endswith(".py"))
    pyproject = (
        '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n\n'
        f'[project]\nname = "{name}"\nversion = "{version}"\n\n'
        f"[tool.setuptools]\npackages = {packages!r}\npy-modules = {modules!r}\n"
    )
    if broken:
        pyproject += "this is not toml ==\n"
    members = {f"{root}/{p}": t for p, t in files.items()}
    members[f"{root}/pyproject.toml"] = pyproject
    members[f"{root}/PKG-INFO"] = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    path = folder / f"{root}.tar.gz"
    with tarfile.open(path, "w:gz") as sdist:
        for member, text in members.items():
            data = text.encode()
            info = tarfile.TarInfo(member)
            info.size = len(data)
            sdist.addfile(info, io.BytesIO(data))
    return path


class SimpleIndex:
    """A PEP 503 simple index over the files of a directory, on 127.0.0.1 (see `serve_index`)."""

    def __init__(self, folder: Path, port: int) -> None:
        self.folder = folder
        self.url = f"http://127.0.0.1:{port}/simple/"
        self.requests: list[str] = []


@contextmanager
def serve_index(folder: Path) -> Iterator[SimpleIndex]:
    """Serve *folder*'s wheels and sdists as ``/simple/<project>/`` pages and ``/files/<file>``."""
    state: dict[str, SimpleIndex] = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
            pass

        def do_GET(self) -> None:
            index = state["index"]
            index.requests.append(self.path)
            parts = [p for p in self.path.split("/") if p]
            if len(parts) == 2 and parts[0] == "files" and (folder / parts[1]).is_file():
                return self._send((folder / parts[1]).read_bytes(), "application/octet-stream")
            if len(parts) == 2 and parts[0] == "simple":
                project = parts[1].lower()
                links = [
                    f'<a href="/files/{f.name}#sha256={hashlib.sha256(f.read_bytes()).hexdigest()}">{f.name}</a>'
                    for f in sorted(folder.iterdir())
                    if f.name.lower().replace("_", "-").startswith(project + "-")
                ]
                if links:
                    return self._send(("<html><body>" + "<br>".join(links) + "</body></html>").encode(), "text/html")
            self.send_error(404)

        def _send(self, data: bytes, kind: str) -> None:
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state["index"] = index = SimpleIndex(folder, server.server_address[1])
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield index
    finally:
        server.shutdown()
        server.server_close()


def pip_vendor_group(tmp_path: Path, *, find_links: tuple[str, ...] = (), index_url: str | None = None) -> Group:
    """A group shaped like pip's: ``pip/_vendor`` under ``pip._vendor``, vendor.txt protected."""
    return Group(
        name="pip-vendor",
        directory=tmp_path / "pip" / "_vendor",
        namespace="pip._vendor",
        requirements=tmp_path / "vendor.txt",
        confine=tmp_path,
        protected=("vendor.txt",),
        find_links=find_links,
        index_url=index_url,
    )
