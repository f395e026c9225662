"""Decode backend responses into plain vectors."""

from __future__ import annotations

from typing import Any


def parse_response(mode: str, payload: dict[str, Any]) -> list[list[float]]:
    """Pull the vectors out of one backend's JSON payload."""
    match mode:
        case "http":
            vectors = payload["vectors"]
            return [list(map(float, v)) for v in vectors]
        case "api":
            return [item["embedding"] for item in payload["data"]]
        case "uds":
            return payload["embeddings"]
        case _:
            raise ValueError(f"unknown mode {mode!r}")


def dimensions(vectors: list[list[float]]) -> int:
    return len(vectors[0]) if vectors else 0
