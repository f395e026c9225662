"""A distribution through plait's pipeline, held equal to vendoring 1.4.0's own steps on the same tree.

vendoring's steps run on a real directory (drop, detect, rewrite imports, licenses from a
real wheel archive the test builds, stubs); plait's run on the file mapping.
"""

from __future__ import annotations

import threading
import zipfile
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from types import SimpleNamespace

import pytest

from plait.errors import PlaitError
from plait.groups.model import DistributionContext, Group
from plait.vendoring_compat.pipeline import transform_distribution

URLLIB3 = {
    "urllib3/__init__.py": "import six\nfrom idna import core\r\nimport six.moves as moves\n",
    "urllib3/util/retry.py": '"""\nimport six\n"""\nfrom urllib3.exceptions import X\nimport ssl\n',
    "urllib3/exceptions.py": "class X(Exception):\n    pass\n",
    "urllib3-2.2.1.dist-info/METADATA": "Name: urllib3\n",
    "urllib3-2.2.1.dist-info/licenses/LICENSE.txt": "MIT\n",
    "urllib3-2.2.1.dist-info/RECORD": "",
    "bin/urllib3-tool": "#!python\n",
}
DROP = ["*.dist-info", "bin/"]
SUBSTITUTE = [{"match": r"import ssl", "replace": "import ssl  # noqa"}]
COMPAT: dict[str, object] = {
    "transformations": {"drop": DROP, "substitute": SUBSTITUTE},
    "typing-stubs": {"urllib3": ["urllib3.__init__", "urllib3.util.retry"]},
}


def _group(tmp_path: Path, compat: dict[str, object]) -> Group:
    return Group(
        name="demo-vendor",
        directory=tmp_path / "src/demo/_vendor",
        namespace="demo._vendor",
        requirements=tmp_path / "src/demo/_vendor/vendor.txt",
        confine=tmp_path,
        protected=("__init__.py", "vendor.txt"),
        compat=compat,
    )


def _ctx(tmp_path: Path, compat: dict[str, object]) -> DistributionContext:
    return DistributionContext(
        group=_group(tmp_path, compat),
        name="urllib3",
        version="2.2.1",
        top_level=("urllib3",),
        siblings=frozenset({"urllib3", "six", "idna"}),
    )


def _vendoring(tmp_path: Path) -> dict[str, str]:
    vendor = pytest.importorskip("vendoring.tasks.vendor")
    license_task = pytest.importorskip("vendoring.tasks.license")
    stubs_task = pytest.importorskip("vendoring.tasks.stubs")
    destination = tmp_path / "theirs"
    for rel, text in URLLIB3.items():
        (destination / rel).parent.mkdir(parents=True, exist_ok=True)
        (destination / rel).write_bytes(text.encode())
    wheel = tmp_path / "urllib3-2.2.1-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for rel, text in URLLIB3.items():
            archive.writestr(rel, text)
    vendor.remove_unnecessary_items(destination, DROP)
    libraries = vendor.detect_vendored_libs(destination, ["__init__.py", "vendor.txt"])
    vendor.rewrite_imports(destination, "demo._vendor", ["urllib3", "six", "idna"], SUBSTITUTE)
    license_task.LicenseExtractor(destination, {}, {}).extract_license_from_artifact(wheel)
    stubs_task.generate_stubs(SimpleNamespace(destination=destination, typing_stubs=COMPAT["typing-stubs"]), libraries)
    return {
        p.relative_to(destination).as_posix(): p.read_bytes().decode() for p in destination.rglob("*") if p.is_file()
    }


def test_byte_identical_to_vendorings_steps(tmp_path: Path) -> None:
    ours = transform_distribution(URLLIB3, _ctx(tmp_path, COMPAT))
    assert ours == _vendoring(tmp_path)
    assert ours["urllib3/__init__.py"].startswith("from demo._vendor import six\nfrom demo._vendor.idna import core\n")
    assert ours["urllib3/LICENSE.txt"] == "MIT\n"


def test_an_unknown_vendoring_key_in_the_group_is_refused(tmp_path: Path) -> None:
    with pytest.raises(PlaitError, match="'patches'"):
        transform_distribution(URLLIB3, _ctx(tmp_path, {"patches": "x"}))


def test_an_unrewritable_import_names_the_distribution_and_file(tmp_path: Path) -> None:
    files = dict(URLLIB3, **{"urllib3/bad.py": "import six.moves\n"})
    with pytest.raises(PlaitError) as caught:
        transform_distribution(files, _ctx(tmp_path, COMPAT))
    assert "demo-vendor/urllib3==2.2.1" in caught.value.message
    assert (caught.value.path, caught.value.line) == ("urllib3/bad.py", 1)


class _License(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        if self.path == "/hang":
            threading.Event().wait(1)
        body = b"BSD\n"
        self.send_response(200 if self.path == "/LICENSE" else 404)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


def test_fallback_license_from_a_loopback_server_and_a_dead_one(tmp_path: Path) -> None:
    server = HTTPServer(("127.0.0.1", 0), _License)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_port}"
        files = {k: v for k, v in URLLIB3.items() if "LICENSE" not in k}
        compat = dict(COMPAT, license={"fallback-urls": {"urllib3": f"{base}/LICENSE"}})
        assert transform_distribution(files, _ctx(tmp_path, compat))["urllib3/LICENSE"] == "BSD\n"
        compat = dict(COMPAT, license={"fallback-urls": {"urllib3": f"{base}/missing"}})
        with pytest.raises(PlaitError, match="urllib3.*cannot fetch"):
            transform_distribution(files, _ctx(tmp_path, compat))
        with pytest.raises(PlaitError, match="no license.fallback-urls entry"):
            transform_distribution(files, _ctx(tmp_path, COMPAT))
    finally:
        server.shutdown()
        server.server_close()


def test_a_silent_fallback_server_is_an_error_not_a_hang() -> None:
    from plait.vendoring_compat.licenses import fetch_fallback_license

    server = HTTPServer(("127.0.0.1", 0), _License)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with pytest.raises(PlaitError, match="webencodings: cannot fetch"):
            fetch_fallback_license("webencodings", f"http://127.0.0.1:{server.server_port}/hang", timeout=0.3)
    finally:
        server.shutdown()
        server.server_close()


def test_the_group_hook_uses_vendorings_transforms_for_a_vendoring_group(tmp_path: Path) -> None:
    from plait.groups.transform import transform_distribution as hook

    assert hook(URLLIB3, _ctx(tmp_path, COMPAT)) == transform_distribution(URLLIB3, _ctx(tmp_path, COMPAT))
    assert "urllib3/LICENSE.txt" not in hook(URLLIB3, _ctx(tmp_path, {}))
