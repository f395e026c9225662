"""`plait init` on the bundled workspace: a real setup whose manifest was written by hand.

Its lineages rename a file and import themselves absolutely, one lineage
syncs from the other, and one consumer vendors a lineage rather than the
canonical client: init, reading only the code, must declare each one as the
hand-written manifest does.
"""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner
from real_setups import commit_all
from vendor_builders import init_repo

from plait.cli import cli
from plait.workspace import Workspace

pytestmark = pytest.mark.slow  # init on the bundled workspace

CHECKOUT = Path(__file__).resolve().parents[2]
# What the manifest says about where a copy is and how it is carried; the
# descriptions and tests are a person's words, not something code can say.
_LOCATED = ("path", "package", "syncs_from", "files", "transforms", "vendor_dir", "source")


@pytest.fixture
def bundled(tmp_path: Path) -> tuple[Path, dict]:
    """The bundled workspace and the canonical client, copied into a repository of their own, minus the manifest."""
    ignore = shutil.ignore_patterns("__pycache__", ".plait", ".pytest_cache")
    for part in ("client", "lineages"):
        shutil.copytree(CHECKOUT / part, tmp_path / part, ignore=ignore)
    manifest = tmp_path / "lineages" / "lineages.toml"
    hand_written = tomllib.loads(manifest.read_text(encoding="utf-8"))
    manifest.unlink()
    commit_all(init_repo(tmp_path), "the bundled workspace")
    return tmp_path, hand_written


def test_init_declares_the_bundled_copies_as_the_hand_written_manifest_does(
    bundled: tuple[Path, dict], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, hand_written = bundled
    monkeypatch.chdir(root / "lineages")
    copies = [*hand_written["lineages"], *(f"consumers/{name}" for name in hand_written["consumers"])]

    result = CliRunner().invoke(cli, ["init", "--canonical", "../client/embedding_client", *copies])

    assert result.exit_code == 0, result.output + result.stderr
    written = tomllib.loads((root / "lineages" / "lineages.toml").read_text(encoding="utf-8"))
    assert written["root"] == hand_written["root"]
    assert written["canonical"] == hand_written["canonical"]
    for section in ("lineages", "consumers"):
        assert set(written[section]) == set(hand_written[section])
        for name, table in hand_written[section].items():
            expected = {k: v for k, v in table.items() if k in _LOCATED}
            expected.setdefault("syncs_from" if section == "lineages" else "source", "canonical")
            found = dict(written[section][name])
            if section == "lineages":
                # Both lineages spell their self-imports absolutely; the hand-written
                # manifest leaves it unsaid for sibling, whose source spells them so too.
                assert found.pop("transforms") == {"absolute_imports": True}, name
                expected.pop("transforms", None)
            assert found == expected, name
    ws = Workspace.load(root / "lineages")
    assert [lineage.name for lineage in ws.sync_order()] == ["upstream", "sibling"]
