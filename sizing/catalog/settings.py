"""The flags of ``python -m sizing estimate``, by vLLM's names: one type for the command line, the engine
and the catalog's worked examples (``catalog/examples.yaml``, :class:`sizing.catalog.schema.Example`).

The engine reads a :class:`Settings` as it is; the command line builds one from its parsed flags
(:func:`settings_of`), and a catalog example *is* one, with the fields it must give and their limits.
The strict types (``StrictInt``…) matter only there: pydantic refuses a catalog value of another type.
Units: ``gpu_memory_mib`` in MiB (2^20 bytes), ``kv_cache_memory_bytes`` in bytes, lengths in tokens.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields

from pydantic import StrictBool, StrictFloat, StrictInt, StrictStr


@dataclass(frozen=True)
class SpecConfig:
    """A parsed ``--speculative-config``: method, draft tokens per step (None = vLLM's default) and draft
    model."""

    method: str
    num_speculative_tokens: int | None = None
    model: str | None = None


@dataclass(frozen=True, kw_only=True)
class Settings:
    """One deployment in vLLM's flag vocabulary (None = vLLM's or the catalog's default).

    ``model`` is ``--model``: a catalog model or checkpoint id, a config.json or a folder holding one
    (empty: every model of a frame, for the catalog's own settings). ``checkpoint`` is not a vLLM flag: the
    catalog checkpoint of ``model`` to load, for a worked example that names both (None: the one ``model``
    names, else one of ``quantization``, else the native one). Nor are ``llm_class`` (the ``LLM`` class, not
    ``vllm serve``) and ``flashinfer_installed`` (False: an install without FlashInfer, whose V1 sampler
    sorts: :func:`sizing.engine.overhead.sampler_bytes_per_logit`).
    """

    model: StrictStr = ""
    checkpoint: StrictStr | None = None
    server: StrictStr | None = None
    gpu: StrictStr | None = None
    gpu_memory_mib: StrictInt | None = None
    gpus: StrictInt | None = None
    vllm_version: StrictStr | None = None
    tensor_parallel_size: StrictInt | None = None
    pipeline_parallel_size: StrictInt | None = None
    data_parallel_size: StrictInt | None = None
    gpu_memory_utilization: StrictFloat | None = None
    max_model_len: StrictInt | None = None
    kv_cache_dtype: StrictStr = "auto"
    max_num_batched_tokens: StrictInt | None = None
    max_num_seqs: StrictInt | None = None
    block_size: StrictInt | None = None
    enforce_eager: StrictBool = False
    quantization: StrictStr | None = None
    kv_cache_memory_bytes: StrictInt | None = None
    llm_class: StrictBool = False
    flashinfer_installed: StrictBool = True
    dtype: StrictStr = "auto"
    host: StrictStr | None = None
    port: StrictInt | None = None
    enable_expert_parallel: StrictBool = False
    limit_mm_per_prompt: StrictInt | None = None
    language_model_only: StrictBool = False
    speculative_config: SpecConfig | None = None
    enable_prefix_caching: StrictBool = False


FLAGS = frozenset(f.name for f in fields(Settings))
"""The names of the settings, as ``argparse`` stores vLLM's flags (``--max-model-len`` ->
``max_model_len``)."""


def settings_of(values: Mapping[str, object]) -> Settings:
    """The :class:`Settings` of parsed flag values (``vars(namespace)``); other names (the command, its
    output format…) are left out."""
    given = {name: value for name, value in values.items() if name in FLAGS}
    return Settings(**given)  # type: ignore[arg-type]
