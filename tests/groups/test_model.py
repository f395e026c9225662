"""The group model: a [groups.NAME] table, the pins of vendor.txt, which member a file belongs to."""

from __future__ import annotations

from pathlib import Path

import pytest

from plait.errors import PlaitError
from plait.groups.model import owner_of, read_pins
from plait.workspace import Workspace


def _manifest(tmp_path: Path, group: str) -> Path:
    (tmp_path / "src" / "proj" / "_vendor").mkdir(parents=True)
    (tmp_path / "src" / "proj" / "_vendor" / "vendor.txt").write_text("urllib3==2.0.0\n")
    manifest = tmp_path / "lineages.toml"
    manifest.write_text(group)
    return manifest


def test_a_group_needs_no_canonical_client(tmp_path: Path) -> None:
    manifest = _manifest(
        tmp_path,
        '[groups.proj-vendor]\npath = "src/proj/_vendor"\nnamespace = "proj._vendor"\n'
        'requirements = "src/proj/_vendor/vendor.txt"\nprotected = ["vendor.txt"]\n'
        '[groups.proj-vendor.vendoring.transformations]\ndrop = ["bin/"]\n',
    )
    ws = Workspace.load(manifest)
    group = ws.groups["proj-vendor"]
    assert not ws.has_canonical
    assert group.directory == (tmp_path / "src" / "proj" / "_vendor").resolve()
    assert [p.spec for p in group.pins()] == ["urllib3==2.0.0"]
    assert group.protected == ("vendor.txt",)
    assert group.compat == {"transformations": {"drop": ["bin/"]}}


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('path = "src/proj/_vendor"\nnamespace = "proj._vendor"\nrequirement = "x"\n', "did you mean 'requirements'"),
        ('path = "src/proj/_vendor"\nnamespace = "proj.vendored"\nrequirements = "r"\n', "last name must be"),
        ('path = "../elsewhere"\nnamespace = "proj.elsewhere"\nrequirements = "r"\n', "plain relative path"),
    ],
)
def test_a_bad_group_table_is_one_error(tmp_path: Path, table: str, message: str) -> None:
    manifest = _manifest(tmp_path, "[groups.g]\n" + table)
    with pytest.raises(PlaitError, match=message):
        Workspace.load(manifest)


def test_pins_are_read_with_comments_and_indented_sub_dependencies(tmp_path: Path) -> None:
    path = tmp_path / "vendor.txt"
    path.write_text("# pins\nrequests==2.32.0  # keep\n    urllib3==2.2.1\n\nsix==1.16.0 ; python_version < '4'\n")
    assert [(p.name, p.version, p.line) for p in read_pins(path)] == [
        ("requests", "2.32.0", 2),
        ("urllib3", "2.2.1", 3),
        ("six", "1.16.0", 5),
    ]
    path.write_text("requests>=2\n")
    with pytest.raises(PlaitError) as caught:
        read_pins(path)
    assert (caught.value.path, caught.value.line) == (str(path), 1)


def test_a_file_of_the_directory_belongs_to_the_member_that_provides_it() -> None:
    tops = {"urllib3": ("urllib3",), "six": ("six",)}
    assert owner_of("urllib3/util/retry.py", tops) == "urllib3"
    assert [owner_of(rel, tops) for rel in ("six.py", "six.pyi", "six.LICENSE")] == ["six"] * 3
    assert owner_of("vendor.txt", tops) is None


def test_a_group_lock_records_each_pin_and_reads_back(tmp_path: Path) -> None:
    from plait.vendoring.lock import Lock, LockedFile, LockedPackage

    lock = Lock(
        consumer="pip-vendor",
        package="pip._vendor",
        source="index",
        source_package="pip._vendor",
        source_commit=None,
        plait_version="0",
        files={"urllib3/__init__.py": LockedFile("a" * 64, "b" * 64, "c" * 64), "vendor.txt": LockedFile("d" * 64)},
        packages={"urllib3": LockedPackage("2.0.1", "urllib3-2.0.1-py3-none-any.whl", "e" * 64, ("urllib3",))},
    )
    text = lock.dumps()
    assert text.count("\nlock = 3\n") == 1
    assert Lock.loads(text, path="plait.lock") == lock
    with pytest.raises(PlaitError, match="top_level"):
        Lock.loads(text.replace('top_level = ["urllib3"]', "top_level = []"), path="plait.lock")


def test_the_lock_merge_keeps_a_pin_either_branch_moved() -> None:
    from plait.vendoring.lock import Lock, LockedPackage
    from plait.vendoring.lock_merge import LockMerge, merge_locks

    def lock(version: str) -> Lock:
        pin = LockedPackage(version, f"idna-{version}-py3-none-any.whl", "f" * 64, ("idna",))
        return Lock("g", "p._vendor", "index", "p._vendor", None, "0", packages={"idna": pin})

    def merge(base: Lock, ours: Lock, theirs: Lock) -> LockMerge:
        return merge_locks(base, ours, theirs, merged=lambda names: {}, newer=lambda a, b: None, plait_version="0")

    merged = merge(lock("1.0"), lock("1.0"), lock("2.0"))
    assert merged.lock.packages["idna"].version == "2.0"
    both = merge(lock("1.0"), lock("3.0"), lock("2.0"))
    assert both.lock.packages["idna"].version == "3.0" and both.needs_vendor
