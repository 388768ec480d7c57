"""gpu-sizing-guide's sizing engine.

Layout (data in ``catalog/``, rules here, words in ``docs/``):

* :mod:`sizing.errors`, :mod:`sizing.units` — the catalog error and byte units.
* :mod:`sizing.schema`, :mod:`sizing.catalog` — typed catalog models and the validating loader.
* :mod:`sizing.versions` — the accounting rules of each vLLM release line.
* :mod:`sizing.weights`, :mod:`sizing.kvcache`, :mod:`sizing.overhead` — the memory arithmetic, in bytes.
* :mod:`sizing.cases`, :mod:`sizing.evaluate` — every combination of the catalog as one DataFrame.
* :mod:`sizing.estimate` — one case, as the ``estimate`` command prints it.
* :mod:`sizing.advice` — the nearest change that makes a non-fitting row fit.
* :mod:`sizing.commands`, :mod:`sizing.vllm_flags` — ``vllm serve`` and SGLang commands, and the flags
  the pinned releases accept (``sizing/data/``).
* :mod:`sizing.importer` — a catalog entry from a Hugging Face ``config.json``.
* :mod:`sizing.calibration` — our estimates against real vLLM start-up logs (``calibration/``).
* :mod:`sizing.views`, :mod:`sizing.table_rows`, :mod:`sizing.tables`, :mod:`sizing.explain`,
  :mod:`sizing.charts`, :mod:`sizing.report` — language-neutral rows, and their rendering.
* :mod:`sizing.i18n` — message files and Babel number formatting; :mod:`sizing.site`, :mod:`sizing.macros`,
  :mod:`sizing.docs_macros` — the site's build context, its macros and the mkdocs-macros shim.
* :mod:`sizing.snapshots` — ``export`` (committed snapshots in ``generated/``) and ``diff`` between revisions.
* :mod:`sizing.cli` — ``python -m sizing``.
"""

__all__ = ["__version__"]
__version__ = "0.1.0"
