"""gpu-sizing-guide's sizing engine.

Layout (data in ``catalog/``, rules here, words in ``docs/``):

* :mod:`sizing.errors`, :mod:`sizing.units` — the catalog error and byte units.
* :mod:`sizing.schema`, :mod:`sizing.catalog` — typed catalog models and the validating loader.
* :mod:`sizing.versions` — the accounting rules of each vLLM release line.
* :mod:`sizing.weights`, :mod:`sizing.kvcache`, :mod:`sizing.overhead` — the memory arithmetic, in bytes.
* :mod:`sizing.cases`, :mod:`sizing.evaluate` — every combination of the catalog as one DataFrame.
* :mod:`sizing.estimate` — one case, as the ``estimate`` command prints it.
* :mod:`sizing.commands` — ``vllm serve`` and SGLang commands.
* :mod:`sizing.cli` — ``python -m sizing``.
"""

__all__ = ["__version__"]
__version__ = "0.1.0"
