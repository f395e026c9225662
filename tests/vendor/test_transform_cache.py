"""The store's cache of rewrites: a re-vendor reads what it derived before, and a bad entry changes nothing.

The canonical `corelib` imports itself absolutely in `__init__.py`, so each
consumer's rewrite really changes that file (the other files import
relatively and are left as they are without a parse).  That rewrite is what
the cache remembers, per consumer: ``.plait/cache/<key>`` names the base
object it produced.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from vendor_builders import CANONICAL, Scenario, client_source, fingerprint, write_tree

from plait import transforms
from plait.store import Store, _cache_entry, digest_of
from plait.vendoring.lock import read_lock
from plait.vendoring.vendor import vendor


def _entries(root: Path) -> dict[str, bytes]:
    cache = root / ".plait" / "cache"
    return {
        p.parent.name + p.name: p.read_bytes()
        for p in sorted(cache.glob("*/*"))
        if p.is_file() and not p.is_symlink() and len(p.parent.name) == 2
    }


def _full_rewrites(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every rewrite that goes as far as libcst from now on, by module (the in-process memo cleared)."""
    seen: list[str] = []
    real = transforms._rewrite_parsed

    def counting(text: str, module: str, *args: object, **kwargs: object) -> transforms.Rewritten:
        seen.append(module)
        return real(text, module, *args, **kwargs)  # type: ignore[arg-type]

    transforms._rewrite_cached.cache_clear()
    monkeypatch.setattr(transforms, "_rewrite_parsed", counting)
    return seen


def _vendored(scenario: Scenario) -> None:
    report = vendor(scenario.ws())
    assert report.exit_code == 0 and report.written, report.to_json()
    scenario.commit("vendored")


def test_a_re_vendor_reads_the_rewrites_it_derived_before(scenario: Scenario, monkeypatch) -> None:
    rewrites = _full_rewrites(monkeypatch)
    _vendored(scenario)
    # One real rewrite per consumer (its __init__.py), each remembered as the base object it made.
    assert sorted(rewrites) == ["corelib", "corelib"]
    entries = _entries(scenario.root)
    assert len(entries) == 2
    store = scenario.ws().store
    bases = {read_lock(scenario.vendored(name)).files["__init__.py"].base for name in ("svc", "tool")}
    assert {digest_of(store.cached(key) or "") for key in entries} == bases

    write_tree(scenario.canonical, {"client.py": client_source(timeout=7)})
    scenario.commit("canonical: a longer timeout")
    rewrites.clear()
    transforms._rewrite_cached.cache_clear()
    report = vendor(scenario.ws())

    assert report.exit_code == 0, report.to_json()
    assert rewrites == []  # __init__.py came from the cache; client.py needed no parse at all
    assert "timeout = 7" in (scenario.vendored("tool") / "client.py").read_text()
    assert _entries(scenario.root) == entries


def test_the_cache_stays_out_of_git(scenario: Scenario) -> None:
    _vendored(scenario)
    assert _entries(scenario.root)
    tracked = scenario.repo.git.ls_files(".plait").splitlines()
    assert tracked and not [path for path in tracked if path.startswith(".plait/cache/")]
    assert scenario.repo.git.status("--porcelain") == ""


def test_an_entry_lives_as_long_as_the_base_it_names(scenario: Scenario) -> None:
    _vendored(scenario)
    before = _entries(scenario.root)
    write_tree(scenario.canonical, {"__init__.py": CANONICAL["__init__.py"] + "VERSION = 2\n"})
    scenario.commit("canonical: a version")
    _vendored(scenario)
    # The old bases stay while HEAD's locks name them; the next run that writes prunes them and their entries.
    assert len(_entries(scenario.root)) == 4
    write_tree(scenario.canonical, {"client.py": client_source(timeout=6)})
    scenario.commit("canonical: timeout 6")

    assert vendor(scenario.ws()).exit_code == 0

    after = _entries(scenario.root)
    assert len(after) == 2 and not set(after) & set(before)
    store = scenario.ws().store
    for key in after:
        assert "VERSION = 2" in (store.cached(key) or "")


def _flip(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[3] ^= 0x01
    path.write_bytes(bytes(data))


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:40])


def _gone_object(path: Path) -> None:
    key = path.parent.name + path.name
    path.write_bytes(_cache_entry(key, "0" * 64))


def _other_object(path: Path) -> None:
    # A pointer moved to another object of the store (a base of another file), without its check.
    store = Store(path.parents[2])
    other = next(p for p in sorted(store.objects.glob("*/*")) if p.read_bytes() != b"")
    digest = other.parent.name + other.name
    path.write_bytes(path.read_bytes().replace(path.read_bytes()[:64], digest.encode()))


def _symlink_out(path: Path) -> None:
    outside = path.parents[4] / "outside-entry"
    outside.write_bytes(path.read_bytes())
    path.unlink()
    os.symlink(outside, path)


@pytest.mark.parametrize("spoil", [_flip, _truncate, _gone_object, _other_object, _symlink_out])
def test_a_spoilt_entry_is_derived_again_and_changes_no_result(
    scenario: Scenario, tmp_path: Path, spoil: Callable[[Path], None]
) -> None:
    _vendored(scenario)
    write_tree(scenario.canonical, {"client.py": client_source(timeout=8)})
    scenario.commit("canonical: timeout 8")
    clean = tmp_path / "clean"
    shutil.copytree(scenario.root, clean, symlinks=True)
    shutil.rmtree(clean / ".plait" / "cache")
    assert vendor(Scenario(clean, scenario.repo).ws()).exit_code == 0
    for entry in sorted((scenario.root / ".plait" / "cache").glob("*/*")):
        if entry.name != ".gitignore":
            spoil(entry)

    report = vendor(scenario.ws())

    assert report.exit_code == 0, report.to_json()
    for name in ("svc", "tool"):
        twin = clean / scenario.vendored(name).relative_to(scenario.root)
        assert fingerprint(scenario.vendored(name)) == fingerprint(twin)
    assert _entries(scenario.root) == _entries(clean)
