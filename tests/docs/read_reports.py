"""Reading back what plait reports, as a person or a CI step would: a copy's block of a summary,
and the markdown it writes for job summaries and pull requests.

Tables are read with a markdown parser (markdown-it-py, as GitHub's
renderer would see them); the mermaid block by its node and edge lines.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt


def tables(markdown: str) -> list[list[list[str]]]:
    """Every table of *markdown*, each a list of rows (the header first), each a list of cell texts.

    A cell's text is what it shows: a code span's content, without its backticks.
    """
    tokens = MarkdownIt("commonmark").enable("table").parse(markdown)
    found: list[list[list[str]]] = []
    row: list[str] | None = None
    for token in tokens:
        if token.type == "table_open":
            found.append([])
        elif token.type == "tr_open":
            row = []
        elif token.type == "inline" and row is not None:
            row.append("".join(child.content for child in token.children or []))
        elif token.type == "tr_close" and row is not None:
            found[-1].append(row)
            row = None
    return found


def mermaid_edges(markdown: str) -> tuple[dict[str, str], set[tuple[str, str, str]]]:
    """The mermaid block's nodes (id → label) and edges (parent's name, child's name, the edge's label)."""
    tokens = MarkdownIt("commonmark").parse(markdown)
    (block,) = [t.content for t in tokens if t.type == "fence" and t.info == "mermaid"]
    assert block.startswith("graph LR\n"), block
    nodes = dict(re.findall(r'^\s+(n\d+)\["([^"]+)"\]$', block, re.M))
    edges = {
        (nodes[a].split(" ")[0], nodes[b].split(" ")[0], label)
        for a, label, b in re.findall(r"^\s+(n\d+) -->(?:\|([^|]*)\|)? (n\d+)$", block, re.M)
    }
    return nodes, edges


def copy_block(lines: list[str], name: str) -> list[str]:
    """One copy's lines of a run's summary: its header and the indented lines under it."""
    start = next(i for i, line in enumerate(lines) if line.startswith((f"{name}  ", f"{name}: ")))
    end = next((i for i in range(start + 1, len(lines)) if not lines[i].startswith("  ")), len(lines))
    return lines[start:end]
