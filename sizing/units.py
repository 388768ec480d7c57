"""Byte units. Everything inside the engine is in bytes; these convert at the edges.

GiB/MiB/KiB are binary (2^30, 2^20, 2^10); GB is decimal (10^9), used only for vendors'
nominal capacities and file sizes.
"""

from __future__ import annotations

KiB = 1 << 10
MiB = 1 << 20
GiB = 1 << 30
GB = 10**9


def gib(n_bytes: float) -> float:
    """Bytes -> GiB (2^30)."""
    return n_bytes / GiB


def kib(n_bytes: float) -> float:
    """Bytes -> KiB (2^10)."""
    return n_bytes / KiB


def gb(n_bytes: float) -> float:
    """Bytes -> decimal GB (10^9)."""
    return n_bytes / GB


def cdiv(a: int, b: int) -> int:
    """Ceiling division of non-negative integers, as vLLM's ``cdiv``."""
    return -(-a // b)
