"""Sample arrays <-> bytes for MetricChunk: little-endian, whatever the host."""
from __future__ import annotations

import sys
from array import array
from collections.abc import Iterable

_SWAP = sys.byteorder != "little"


def pack(typecode: str, values: Iterable[float | int]) -> bytes:
    a = array(typecode, values)
    if _SWAP:
        a.byteswap()
    return a.tobytes()


def unpack(typecode: str, data: bytes | memoryview) -> list:
    a = array(typecode)
    a.frombytes(bytes(data))
    if _SWAP:
        a.byteswap()
    return a.tolist()
