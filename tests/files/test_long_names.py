"""Legal file names near NAME_MAX through vendor and check (issue 30).

A 240-character name failed: the staged twin ``.<name>.<random>.plait-tmp`` adds 20 characters,
past the 255 bytes a name may have, and the error blamed the directory.  The twin's name is now
cut to fit, on a character boundary, and the journal recognises it by the same cut.
"""

from __future__ import annotations

import os

import pytest

LONG_ASCII = "a" * 236 + ".txt"  # 240 bytes
LONG_UTF8 = "é" * 118 + ".txt"  # 240 bytes on disk, two per character: the cut must not split one


@pytest.mark.parametrize("name", [LONG_ASCII, LONG_UTF8], ids=["ascii", "utf8"])
def test_a_240_byte_file_name_is_vendored_and_re_vendored(make_workspace, name: str) -> None:
    assert len(os.fsencode(name)) == 240
    ws = make_workspace({name: "first\n", "data/" + name: "nested\n"})
    assert (ws.vendored / name).read_text(encoding="utf-8") == "first\n"
    assert (ws.vendored / "data" / name).read_text(encoding="utf-8") == "nested\n"
    ws.ok("check")

    ws.write(ws.canonical / name, "second\n")
    ws.commit("upstream edits the long-named file")
    ws.ok("vendor", "svc")
    assert (ws.vendored / name).read_text(encoding="utf-8") == "second\n"
    ws.ok("check")
    leftovers = [p for p in ws.root.rglob("*") if p.name.endswith((".plait-tmp", ".plait-del"))]
    assert leftovers == []
