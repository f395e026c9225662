"""Markdown tables read back the way a renderer reads them (markdown-it-py), not by splitting lines."""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.token import Token

_MD = MarkdownIt("commonmark").enable("table")


def tables(text: str) -> list[list[dict[str, str]]]:
    """Every table of *text*: a list of rows, each ``{header: cell}``, header and cell as a reader sees them."""
    found: list[list[dict[str, str]]] = []
    header: list[str] = []
    cells: list[str] = []
    part = ""
    for token in _MD.parse(text):
        if token.type == "table_open":
            found.append([])
        elif token.type in ("thead_open", "tbody_open"):
            part = token.type
        elif token.type == "tr_open":
            cells = []
        elif token.type == "inline" and part:
            cells.append(_seen(token.children or []))
        elif token.type == "tr_close":
            if part == "thead_open":
                header = cells
            else:
                found[-1].append(dict(zip(header, cells, strict=True)))
        elif token.type == "table_close":
            part = ""
    return found


def _seen(children: list[Token]) -> str:
    """An inline's text without its marks: what ``code`` and **strong** show."""
    return "".join(child.content for child in children if child.type in ("text", "code_inline"))
