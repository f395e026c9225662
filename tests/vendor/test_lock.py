"""The lock on its own: it round-trips, it is deterministic, and `check` only hashes."""

from __future__ import annotations

import pytest

from plait.vendoring.check import check
from plait.vendoring.lock import LOCK_FORMAT, CorruptLock, LocalEdit, Lock, LockedFile
from plait.vendoring.vendor import vendor

A, B, C = "a" * 64, "b" * 64, "c" * 64


def _lock() -> Lock:
    return Lock(
        consumer="svc",
        package="svc._vendor.corelib",
        source="canonical",
        source_package="corelib",
        source_commit="1234567" + "0" * 33,
        plait_version="0.1.0",
        files={"client.py": LockedFile(A, B, C), "local.py": LockedFile(A), "gone.py": LockedFile(None, B, C)},
        local_edits=[LocalEdit("client.py", "Client.fetch", "added", "except type OSError")],
        conflicted=["client.py"],
    )


def test_a_lock_reads_back_as_it_was_written_and_writes_the_same_bytes_again() -> None:
    lock = _lock()
    text = lock.dumps()
    again = Lock.loads(text, path="plait.lock")
    assert again == lock
    assert again.dumps() == text
    assert again.vendored() == {"client.py": A, "local.py": A}
    assert again.bases() == {"client.py": B, "gone.py": B}
    assert text.count("\n[files]\n") == 1 and '"client.py" = {sha256 = ' in text, "one line per file"


def test_a_newer_lock_format_asks_for_a_newer_plait() -> None:
    # (2 records modes: issue 30; 3 a group's pins: issue 29)
    text = _lock().dumps().replace("lock = 1", f"lock = {LOCK_FORMAT + 1}")
    with pytest.raises(CorruptLock, match="newer plait"):
        Lock.loads(text, path="plait.lock")


def test_check_hashes_and_never_parses_a_vendored_file(scenario) -> None:
    vendor(scenario.ws(), ["svc"])
    (scenario.vendored() / "client.py").write_text("def broken(:\n")
    (result,) = check(scenario.ws(), ["svc"])
    assert result.state == "drift"
    assert [(d.file, d.kind) for d in result.drift] == [("client.py", "edited")]
