"""Vectors as bytes: little-endian float32, the layout stores expect.

Services keep vectors in SQLite blobs and key-value stores; a fixed byte
order keeps a blob written on one machine readable on any other, and float32
halves the size of float64 at no cost to cosine similarity.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Sequence

__all__ = ["pack_embedding", "unpack_embedding"]

_BIG_ENDIAN = sys.byteorder == "big"


def pack_embedding(vector: Sequence[float]) -> bytes:
    """*vector* as little-endian float32 bytes (4 bytes per element)."""
    packed = array("f", vector)
    if _BIG_ENDIAN:
        packed.byteswap()
    return packed.tobytes()


def unpack_embedding(blob: bytes) -> list[float]:
    """The vector stored in *blob* by `pack_embedding`."""
    if len(blob) % 4:
        raise ValueError(f"an embedding blob is a multiple of 4 bytes, not {len(blob)}")
    unpacked = array("f")
    unpacked.frombytes(blob)
    if _BIG_ENDIAN:
        unpacked.byteswap()
    return unpacked.tolist()
