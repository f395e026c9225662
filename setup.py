"""The build step pyproject.toml cannot say: the bundled workspace's history goes into the build.

`plait demo` from a wheel needs the bundled workspace and the history its adopt step walks.
Built from a checkout, the history of lineages/ and of the canonical client is exported
(`plait.gitops.export_history`) into plait/_bundled/, in the wheel and in the sdist, so a wheel
built from the sdist ships it too.  Built where there is no git history (an sdist), the
stream the sdist carries is used as it is.
"""

from __future__ import annotations

import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

HERE = Path(__file__).resolve().parent
SHIPPED = ("client/embedding_client", "lineages")
STREAM = Path("plait") / "_bundled" / "workspace.fast-export"


def _export_into(package_root: Path) -> None:
    """Write the stream under *package_root* (the directory holding plait/) when this is a checkout."""
    if not (HERE / ".git").exists():
        return
    sys.path.insert(0, str(HERE / "sync"))
    try:
        from plait import gitops
    finally:
        sys.path.pop(0)
    target = package_root / STREAM
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(gitops.export_history(HERE, SHIPPED))


class BuildPy(build_py):
    def run(self) -> None:
        super().run()
        _export_into(Path(self.build_lib))


class Sdist(sdist):
    def make_release_tree(self, base_dir: str, files: list[str]) -> None:
        super().make_release_tree(base_dir, files)
        _export_into(Path(base_dir) / "sync")


setup(cmdclass={"build_py": BuildPy, "sdist": Sdist})
