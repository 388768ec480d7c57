"""Byte units. Everything inside the engine is in bytes; these divide it at the edges.

GiB/MiB/KiB are binary (2^30, 2^20, 2^10); GB is decimal (10^9), used only for vendors'
nominal capacities and file sizes.
"""

from __future__ import annotations

KiB = 1 << 10
MiB = 1 << 20
GiB = 1 << 30
GB = 10**9
