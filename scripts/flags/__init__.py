"""Flag lists of the pinned vLLM and SGLang releases, extracted statically from their PyPI sources.

``python -m scripts.flags vllm|sglang VERSION [--check]`` rewrites, or checks, the
committed lists in ``sizing/launch/data/``. Modules: :mod:`~scripts.flags.pypi` (download one release
file), :mod:`~scripts.flags.pyindex` (static name resolution), :mod:`~scripts.flags.vllm` and
:mod:`~scripts.flags.sglang` (each parser's rules), :mod:`~scripts.flags.output` (the files).
"""
