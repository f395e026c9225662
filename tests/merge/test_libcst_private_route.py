"""The one private libcst route plait takes, held to what it relies on.

`plait.merge.printer` drives libcst's private code generator: it prints
without position tracking, and records each statement's text from the
generator's hooks.  If a libcst upgrade renames the generator, stops calling
the hooks, changes the position-tracking call, or prints differently inside
them, these tests fail with a message saying so, instead of merges silently
comparing the wrong texts.
"""

from __future__ import annotations

import libcst as cst
import pytest

from plait.merge.tree import Texts, capture_texts

SOURCE = '''"""A module."""

import os  # why


class Client:
    """Docs."""

    def embed(self, texts):
        if not texts:
            return []
        try:
            return [os.sep for _ in texts]
        except OSError:  # platform
            return None
'''


def test_the_private_printer_exists() -> None:
    try:
        from libcst._nodes.internal import CodegenState
    except ImportError as exc:  # pragma: no cover - only on an incompatible libcst
        pytest.fail(f"libcst no longer has _nodes.internal.CodegenState ({exc}); rework plait.merge.printer")
    for hook in ("before_codegen", "after_codegen", "record_syntactic_position", "add_token"):
        assert hasattr(CodegenState, hook), f"libcst's CodegenState lost {hook}; rework plait.merge.printer"


def test_the_fast_printer_prints_what_libcst_prints() -> None:
    from plait.merge import printer

    module = cst.parse_module(SOURCE)
    for stmt in module.body:
        assert printer.code(stmt, module.default_indent, module.default_newline) == module.code_for_node(stmt)
    assert printer.code(module) == module.code


def test_captured_texts_are_what_the_public_printer_prints() -> None:
    module = cst.parse_module(SOURCE)
    memo: dict[int, tuple[object, str]] = {}
    capture_texts(module, memo)
    statements = [module.body[0], module.body[1], module.body[2]]
    klass = module.body[2]
    assert isinstance(klass, cst.ClassDef)
    statements += list(klass.body.body)
    assert all(id(s) in memo for s in statements), "the hooks no longer fire for statements"
    # Top-level statements print at column zero, so the public printer must agree byte for byte.
    for stmt in module.body:
        assert memo[id(stmt)][1] == module.code_for_node(stmt)
    # Nested ones keep their real indentation, which is why the capture exists.
    method = klass.body.body[1]
    assert memo[id(method)][1].startswith("\n    def embed(self, texts):\n")
    assert "".join(memo[id(s)][1] for s in module.body) == module.code


def test_texts_reuse_captures_and_reprint_the_rest() -> None:
    module = cst.parse_module(SOURCE)
    texts = Texts()
    texts.capture(module)
    assert texts.printed(module) == SOURCE
    changed = module.with_changes(body=[*module.body, cst.parse_statement("x = 1\n")])
    assert texts.printed(changed) == SOURCE + "x = 1\n"
