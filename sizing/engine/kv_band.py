"""The band around the printed available KV memory: each row's model classes and the error quantiles of
those classes (leave-one-model-out, fitted by :mod:`sizing.review.calibration_fit` into the
:class:`sizing.engine.overhead.Coefficients`). Bytes in, bytes out.
"""

from __future__ import annotations

import numpy as np

from sizing.catalog.loader import BAND_CLASSES
from sizing.engine.overhead import Coefficients


def band_classes(
    is_moe: np.ndarray, is_mla: np.ndarray, linear_layers: np.ndarray, vision_tokens: np.ndarray
) -> np.ndarray:
    """Each row's classes of :data:`BAND_CLASSES` as a bit code (MoE 1, MLA 2, hybrid 4, multimodal 8; a row
    can be in several, and code 0 is ``dense``): linear-attention layers make a hybrid, an encoder profile run
    a multimodal model."""
    return (
        np.asarray(is_moe, dtype=np.int8)
        | np.asarray(is_mla, dtype=np.int8) << 1
        | (np.asarray(linear_layers) > 0).astype(np.int8) << 2
        | (np.asarray(vision_tokens) > 0).astype(np.int8) << 3
    )


def classes_in(code: int) -> tuple[str, ...]:
    """The names of the classes a :func:`band_classes` code stands for."""
    return tuple(name for bit, name in enumerate(BAND_CLASSES[1:]) if code >> bit & 1) or (BAND_CLASSES[0],)


def band_table(c: Coefficients) -> tuple[np.ndarray, np.ndarray]:
    """(optimistic, pessimistic) for each of the 16 class codes: the widest of the classes in the code."""
    bands = dict(zip(BAND_CLASSES, c.class_bands))
    ends = [
        (max(bands[n][0] for n in classes_in(code)), min(bands[n][1] for n in classes_in(code)))
        for code in range(16)
    ]
    return np.array([e[0] for e in ends]), np.array([e[1] for e in ends])


def kv_band(
    printed: np.ndarray, c: Coefficients, classes: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) of the printed available KV memory from the leave-one-model-out error quantiles of each
    row's classes (a :func:`band_classes` code; the widest band of the classes in it, :func:`band_table`),
    or without ``classes`` (or class bands), the scalar band.

    An error ``e = (predicted − logged) / logged`` means vLLM logs ``predicted / (1 + e)``: the low
    end divides by the optimistic quantile, the high end by the pessimistic one.
    """
    p = np.asarray(printed, dtype=np.float64)
    if classes is None or not c.class_bands:
        optimistic, pessimistic = c.kv_band_optimistic, c.kv_band_pessimistic
    else:
        table = band_table(c)
        optimistic, pessimistic = table[0][classes], table[1][classes]
    low, high = p / (1 + optimistic), p / (1 + pessimistic)
    return np.minimum(low, high), np.maximum(low, high)
