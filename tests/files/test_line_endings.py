"""Line endings, a final newline and a BOM through `plait vendor` and `plait sync` (issue 30).

- A CRLF copy of an LF source counted the conversion as an edit of every
  member: one real edit was recorded as six in the lock and in `status`,
  one of them in a member only upstream changed.
- A file with no final newline lost its last statement in the structured
  merge, and the audits made that a false conflict: `plait merge` had the
  fix-up, vendor and sync did not.
- A UTF-8 BOM, which Python imports without complaint, was refused as
  "does not parse".
"""

from __future__ import annotations

import tomllib

CLIENT = '''"""Client."""


def one():
    return 1


def two():
    return 2


def three():
    return 3


class Client:
    timeout = 5

    def fetch(self):
        return "x"
'''


def _local_edits(ws) -> list[tuple[str, str, str]]:
    lock = tomllib.loads((ws.vendored / "plait.lock").read_text(encoding="utf-8"))
    return [(e["file"], e["path"], e["kind"]) for e in lock.get("local_edits", [])]


def test_a_crlf_copy_records_only_its_real_edit_and_stays_crlf(make_workspace) -> None:
    ws = make_workspace({"client.py": CLIENT})
    crlf = CLIENT.replace("return 1", "return 10").replace("\n", "\r\n")
    ws.write(ws.vendored / "client.py", crlf)  # converted to CRLF, and one real edit
    ws.write(ws.canonical / "client.py", CLIENT.replace("return 3", "return 30"))
    ws.commit("svc: CRLF and one edit; upstream: another edit")
    ws.ok("vendor", "svc")
    merged = (ws.vendored / "client.py").read_bytes()
    assert (
        merged
        == CLIENT.replace("return 1", "return 10").replace("return 3", "return 30").replace("\n", "\r\n").encode()
    )
    assert _local_edits(ws) == [("client.py", "one", "changed")]
    status = ws.ok("status", "--verbose")
    assert "1 local edit" in status.stdout, status.stdout
    assert "three" not in status.stdout.split("local edit", 1)[1]
    ws.ok("check")


def test_a_crlf_conversion_alone_is_no_local_edit(make_workspace) -> None:
    ws = make_workspace({"client.py": CLIENT})
    ws.write(ws.vendored / "client.py", CLIENT.replace("\n", "\r\n"))
    ws.commit("svc: CRLF only")
    ws.ok("vendor", "svc")
    assert (ws.vendored / "client.py").read_bytes() == CLIENT.replace("\n", "\r\n").encode()
    assert _local_edits(ws) == []


def test_a_text_file_converted_to_crlf_merges_upstreams_edit(make_workspace) -> None:
    text = "".join(f"line {n}\n" for n in range(1, 6))
    ws = make_workspace({"notes.txt": text})
    ws.write(ws.vendored / "notes.txt", text.replace("line 1", "line one").replace("\n", "\r\n"))
    ws.write(ws.canonical / "notes.txt", text.replace("line 5", "line five"))
    ws.commit("svc: CRLF and an edit; upstream: another edit")
    ws.ok("vendor", "svc")
    assert (ws.vendored / "notes.txt").read_bytes() == (
        text.replace("line 1", "line one").replace("line 5", "line five").replace("\n", "\r\n").encode()
    )


def test_no_final_newline_merges_cleanly_in_vendor_and_sync(make_workspace) -> None:
    unended = CLIENT.rstrip("\n")
    ws = make_workspace({"client.py": unended}, lineage=True)
    # Both append a function at the end: the structured merge's case, where the last statement dropped out.
    ours = unended + '\n\n\ndef mine():\n    return "mine"'
    ws.write(ws.vendored / "client.py", ours)
    ws.write(ws.fork / "client.py", ours)
    ws.write(ws.canonical / "client.py", unended + '\n\n\ndef upstream():\n    return "upstream"')
    ws.commit("both append to a file without a final newline")
    ws.ok("vendor", "svc")
    ws.ok("sync", "fork")
    expected = ours + '\n\n\ndef upstream():\n    return "upstream"'
    assert (ws.vendored / "client.py").read_text() == expected
    assert (ws.fork / "client.py").read_text() == expected
    ws.ok("check")


BOM = "\ufeff"


def test_a_bom_file_vendors_and_syncs_and_keeps_its_bom(make_workspace) -> None:
    ws = make_workspace({"client.py": BOM + CLIENT}, lineage=True)
    assert (ws.vendored / "client.py").read_text(encoding="utf-8") == BOM + CLIENT
    ws.write(ws.vendored / "client.py", BOM + CLIENT.replace("return 1", "return 10"))
    ws.write(ws.fork / "client.py", BOM + CLIENT.replace("return 2", "return 20"))
    ws.write(ws.canonical / "client.py", BOM + CLIENT.replace("return 3", "return 30"))
    ws.commit("edits under a BOM")
    ws.ok("vendor", "svc")
    ws.ok("sync", "fork")
    assert (ws.vendored / "client.py").read_text(encoding="utf-8") == BOM + CLIENT.replace(
        "return 1", "return 10"
    ).replace("return 3", "return 30")
    assert (ws.fork / "client.py").read_text(encoding="utf-8") == BOM + CLIENT.replace("return 2", "return 20").replace(
        "return 3", "return 30"
    )
    assert _local_edits(ws) == [("client.py", "one", "changed")]
    ws.ok("check")
