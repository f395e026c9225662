"""Binary and latin-1 files through vendor, sync, the store and check, byte for byte (issue 30).

One binary file in the canonical package blocked every consumer, even one
whose `exclude` named it: every file was decoded, as UTF-8, before
`include`/`exclude` applied.  Files are now chosen first and carried as
their bytes: a PNG or a latin-1 module is vendored, synced, hashed, stored
and written exactly, and a latin-1 module that declares its encoding is
Python (its imports rewritten, its edits merged), as the interpreter says.
"""

from __future__ import annotations

PNG = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + bytes(range(256))
LEGACY = (
    "# -*- coding: latin-1 -*-\n"
    '"""Grüße."""\n'
    "import corelib.errors\n"
    "\n"
    "GREETING = 'café'\n"
    "\n"
    "\n"
    "def one():\n"
    "    return corelib.errors\n"
    "\n"
    "\n"
    "def two():\n"
    "    return 2\n"
)
FILES = {"logo.png": PNG, "legacy.py": LEGACY.encode("latin-1"), "errors.py": "class Failure(Exception):\n    pass\n"}


def test_binary_and_latin1_files_are_vendored_byte_for_byte(make_workspace) -> None:
    ws = make_workspace(FILES)
    assert (ws.vendored / "logo.png").read_bytes() == PNG
    legacy = (ws.vendored / "legacy.py").read_bytes()
    # Its import rewritten into the consumer's package, its latin-1 bytes as they were.
    text = legacy.decode("latin-1")
    assert "import svc._vendor.corelib.errors\n" in text and "\nimport corelib" not in text
    assert legacy.startswith(b'# -*- coding: latin-1 -*-\n"""Gr\xfc\xdfe."""\n') and b"'caf\xe9'" in legacy
    ws.ok("check")

    # The consumer edits one function of the latin-1 module, upstream another and the PNG.
    ws.write(ws.vendored / "legacy.py", legacy.replace(b"return 2", b"return 'deux \xe9'"))
    ws.write(ws.canonical / "legacy.py", LEGACY.replace("'café'", "'caf\xe9 cr\xe8me'").encode("latin-1"))
    ws.write(ws.canonical / "logo.png", PNG + b"v2")
    ws.commit("edits on both sides")
    ws.ok("vendor", "svc")
    merged = (ws.vendored / "legacy.py").read_bytes()
    assert b"return 'deux \xe9'" in merged and b"'caf\xe9 cr\xe8me'" in merged
    assert merged.startswith(b"# -*- coding: latin-1 -*-\n")
    assert (ws.vendored / "logo.png").read_bytes() == PNG + b"v2"
    ws.ok("check")


def test_a_consumer_excluding_a_binary_file_is_not_blocked_by_it(make_workspace) -> None:
    ws = make_workspace({"logo.png": PNG}, svc='exclude = ["*.png"]\n')
    assert not (ws.vendored / "logo.png").exists()
    ws.ok("check")


def test_a_lineage_syncs_binary_and_latin1_files(make_workspace) -> None:
    ws = make_workspace(FILES, lineage=True)
    assert (ws.fork / "logo.png").read_bytes() == PNG
    ws.write(ws.canonical / "logo.png", PNG + b"v2")
    ws.write(ws.canonical / "legacy.py", LEGACY.replace("return 2", "return 'zwei \xfc'").encode("latin-1"))
    ws.commit("upstream changes the PNG and the latin-1 module")
    ws.ok("sync", "fork")
    assert (ws.fork / "logo.png").read_bytes() == PNG + b"v2"
    assert b"return 'zwei \xfc'" in (ws.fork / "legacy.py").read_bytes()
    assert b"import forklib.errors" in (ws.fork / "legacy.py").read_bytes()


def test_a_latin1_module_that_declares_no_encoding_is_refused_by_name(make_workspace) -> None:
    """Python itself will not import it: refusing it, named, is the right call."""
    ws = make_workspace({"errors.py": "X = 1\n"})
    ws.write(ws.canonical / "broken.py", "GREETING = 'café'\n".encode("latin-1"))
    ws.commit("a latin-1 module without its declaration")
    done = ws.ok("vendor", "svc", code=2)
    assert "broken.py" in done.stderr and "does not parse" in done.stderr and "UTF-8" in done.stderr
