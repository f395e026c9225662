"""Import rewrites: every import form, relative imports, and what cannot be rewritten."""

from __future__ import annotations

import pytest

from plait.transforms import ImportRewrite, UnrewritableImport, module_name, rewrite_imports, rewrite_tree

LINEAGE = ImportRewrite.between("embedding_client", "mcp_common", {"client.py": "embedding.py"}, absolute=True)
VENDOR = ImportRewrite.between("embedding_client", "cpersona._vendored.embedding_client")


def _rewrite(text: str, rewrite: ImportRewrite, module: str = "embedding_client.health", package: bool = False) -> str:
    done = rewrite_imports(text, module=module, is_package=package, rewrite=rewrite)
    assert not done.problems
    return done.text


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import embedding_client.outcome\n", "import mcp_common.outcome\n"),
        ("import embedding_client.client as c\n", "import mcp_common.embedding as c\n"),
        ("from embedding_client import health\n", "from mcp_common import health\n"),
        ("from embedding_client import client\n", "from mcp_common import embedding as client\n"),
        ("from embedding_client.client import EmbeddingClient\n", "from mcp_common.embedding import EmbeddingClient\n"),
        (
            "from .client import EmbeddingClient, Vectors\n",
            "from mcp_common.embedding import EmbeddingClient, Vectors\n",
        ),
        ("from . import outcome\n", "from mcp_common import outcome\n"),
        ("import httpx\nfrom typing import Any\n", "import httpx\nfrom typing import Any\n"),
    ],
)
def test_each_import_form_is_renamed(source: str, expected: str) -> None:
    assert _rewrite(source, LINEAGE) == expected


def test_names_bound_by_import_a_b_follow_the_rename_but_a_local_of_that_name_does_not() -> None:
    source = (
        "import embedding_client.client\n"
        "\n"
        "def make():\n"
        "    return embedding_client.client.EmbeddingClient('none')\n"
        "\n"
        "def shadow(embedding_client):\n"
        "    return embedding_client.client\n"
    )
    assert _rewrite(source, LINEAGE) == (
        "import mcp_common.embedding\n"
        "\n"
        "def make():\n"
        "    return mcp_common.embedding.EmbeddingClient('none')\n"
        "\n"
        "def shadow(embedding_client):\n"
        "    return embedding_client.client\n"
    )


def test_strings_docstrings_and_comments_are_left_alone() -> None:
    source = (
        '"""Use it as `from embedding_client import health`."""\n'
        "# embedding_client.client is the client\n"
        "from .outcome import EmbedOutcome\n"
        'LOGGER = "embedding_client"\n'
    )
    assert _rewrite(source, LINEAGE) == (
        '"""Use it as `from embedding_client import health`."""\n'
        "# embedding_client.client is the client\n"
        "from mcp_common.outcome import EmbedOutcome\n"
        'LOGGER = "embedding_client"\n'
    )


def test_relative_imports_stay_relative_without_the_absolute_transform_and_follow_a_renamed_file() -> None:
    relative = ImportRewrite.between("embedding_client", "mcp_common", {"client.py": "embedding.py"})
    source = "from .client import EmbeddingClient\nfrom .outcome import EmbedOutcome\nfrom . import client\n"
    assert _rewrite(source, relative, "embedding_client", package=True) == (
        "from .embedding import EmbeddingClient\nfrom .outcome import EmbedOutcome\nfrom . import embedding as client\n"
    )


def test_vendoring_keeps_relative_imports_and_rewrites_absolute_ones_into_the_consumer() -> None:
    source = "from .outcome import EmbedOutcome\nimport embedding_client\nfrom embedding_client.cache import TTLCache\n"
    assert _rewrite(source, VENDOR) == (
        "from .outcome import EmbedOutcome\n"
        "from cpersona._vendored import embedding_client\n"
        "from cpersona._vendored.embedding_client.cache import TTLCache\n"
    )


def test_formatting_inside_an_import_survives() -> None:
    source = "from .boundary import (\n    check_vectors,  # the shape\n    normalise,\n)\n"
    assert (
        _rewrite(source, LINEAGE)
        == "from mcp_common.boundary import (\n    check_vectors,  # the shape\n    normalise,\n)\n"
    )


def test_dynamic_imports_of_a_renamed_module_are_reported_by_file_and_line() -> None:
    source = (
        "import importlib\n"
        "\n"
        "x = 1\n"
        "mod = importlib.import_module('embedding_client.health')\n"
        "old = __import__('embedding_client')\n"
        "ok = importlib.import_module('json')\n"
    )
    done = rewrite_imports(source, module="embedding_client.client", rewrite=LINEAGE, path="client.py")
    assert [(p.path, p.line) for p in done.problems] == [("client.py", 4), ("client.py", 5)]
    assert "mcp_common.health" in done.problems[0].message

    with pytest.raises(UnrewritableImport) as caught:
        rewrite_tree({"client.py": source}, package="embedding_client", rewrite=LINEAGE, label="canonical")
    assert (caught.value.path, caught.value.line) == ("canonical/client.py", 4)
    assert len(caught.value.problems) == 2


def test_rewrite_tree_renames_files_by_the_map_and_carries_other_files() -> None:
    files = {"client.py": "from .outcome import X\n", "outcome.py": "X = 1\n", "py.typed": ""}
    out = rewrite_tree(files, package="embedding_client", rewrite=LINEAGE, file_map={"client.py": "embedding.py"})
    assert out == {"embedding.py": "from mcp_common.outcome import X\n", "outcome.py": "X = 1\n", "py.typed": ""}


def test_module_name_of_files_and_packages() -> None:
    assert module_name("pkg", "client.py") == ("pkg.client", False)
    assert module_name("pkg", "__init__.py") == ("pkg", True)
    assert module_name("pkg", "sub/__init__.py") == ("pkg.sub", True)
