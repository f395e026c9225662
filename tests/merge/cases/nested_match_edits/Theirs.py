"""Decode backend responses into plain vectors."""

from __future__ import annotations

from typing import Any


def parse_response(mode: str, payload: dict[str, Any]) -> list[list[float]]:
    """Pull the vectors out of one backend's JSON payload."""
    match mode:
        case "http":
            return payload["vectors"]
        case "api":
            data = sorted(payload["data"], key=lambda item: item["index"])
            return [item["embedding"] for item in data]
        case _:
            raise ValueError(f"unknown embedding mode {mode!r}")


def dimensions(vectors: list[list[float]]) -> int:
    return len(vectors[0]) if vectors else 0
