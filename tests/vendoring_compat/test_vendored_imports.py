"""The import rewrite, byte-identical to vendoring 1.4.0's regexes (the oracle, run on real files)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plait.errors import PlaitError
from plait.vendoring_compat.config import Substitution
from plait.vendoring_compat.imports import UnrewritableVendoredImport, rewrite_vendored_imports
from plait.vendoring_compat.python_files import vendored_python_text

LIBS = ["six", "urllib3", "idna"]
NS = "pip._vendor"


SUBSTITUTE = [{"match": r"import idna as i", "replace": "import idna as i  # substituted"}]


def _theirs(text: str, substitute: list[dict[str, str]] | None = None) -> str | None:
    vendor = pytest.importorskip("vendoring.tasks.vendor")
    errors = pytest.importorskip("vendoring.errors")
    with tempfile.TemporaryDirectory() as directory:
        item = Path(directory, "m.py")
        item.write_bytes(text.encode())
        try:
            vendor.rewrite_file_imports(item, NS, LIBS, substitute or [])
        except errors.VendoringError:
            return None
        return item.read_bytes().decode()


def _ours(text: str, substitute: list[dict[str, str]] | None = None) -> str | None:
    subs = [Substitution(match=s["match"], replace=s["replace"]) for s in substitute or []]
    try:
        return vendored_python_text(text, namespace=NS, libraries=LIBS, substitute=subs, path="m.py")
    except UnrewritableVendoredImport:
        return None


SAMPLE = '''\
"""Usage:

    import six
    from urllib3.util import retry
"""
import six
import six.moves.urllib as urllib
from urllib3 import PoolManager
from urllib3.util.retry import Retry  # comment
import sixpack
import idna, os
x = 1; import six
if x: import six


def f():
    import idna
    from . import six
    # import six
    return """
from six import moves
"""
'''


def test_sample_matches_vendoring() -> None:
    ours = _ours(SAMPLE)
    assert ours is not None
    assert "    from pip._vendor import six\n" in ours
    assert "import pip._vendor.six.moves.urllib as urllib\n" in ours
    assert "from pip._vendor.urllib3 import PoolManager\n" in ours
    assert "x = 1; import six\n" in ours
    assert ours == _theirs(SAMPLE)


def test_dotted_import_without_as_is_an_error_naming_the_line() -> None:
    with pytest.raises(PlaitError) as caught:
        rewrite_vendored_imports("import os\nimport six.moves\n", NS, LIBS, path="m.py")
    assert (caught.value.path, caught.value.line) == ("m.py", 2)
    assert _theirs("import os\nimport six.moves\n") is None


_pieces = st.sampled_from(
    [
        "import six",
        "import six.moves as m",
        "import six.moves",
        "from six import x",
        "from six.moves import y",
        "import urllib3",
        "from urllib3.util import z",
        "import idna as i",
        "import sixty",
        "from sixty import q",
        "import os",
        "x = 1",
        "pass",
        "# import six",
        "from . import six",
        "import six  # c",
        "import six, os",
        'S = """',
        '"""',
        "    import six",
        "\tfrom idna import core",
        "import six.moves.urllib  as  u",
        "def f():",
        "x = f'''",
        "'''",
        'y = b"""',
        "raise E \\",
        "    from six.moves import q",
        "import six\\",
        "    return 1",
        "from six import (",
        "    a,",
        ")",
        "",
        "   ",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_pieces, max_size=12), st.sampled_from(["\n", "\r\n", "\r"]), st.booleans(), st.booleans())
def test_agrees_with_vendorings_regexes(lines: list[str], ending: str, final: bool, substitute: bool) -> None:
    text = ending.join(lines) + (ending if final else "")
    subs = SUBSTITUTE if substitute else None
    assert _ours(text, subs) == _theirs(text, subs)
