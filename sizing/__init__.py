"""gpu-sizing-guide's sizing engine.

Layout (data in ``catalog/``, rules here, words in ``docs/``):

* :mod:`sizing.errors`, :mod:`sizing.units` — the catalog error and byte units.
* :mod:`sizing.catalog.schema`, :mod:`sizing.catalog.loader` — typed catalog models and the validating loader.
* :mod:`sizing.engine.versions` — the accounting rules of each vLLM release line.
* :mod:`sizing.engine.weights`, :mod:`sizing.engine.kvcache`, :mod:`sizing.engine.overhead` — the memory
arithmetic, in bytes.
* :mod:`sizing.engine.cases`, :mod:`sizing.engine.evaluate` — every combination of the catalog as one
DataFrame.
* :mod:`sizing.engine.estimate` — one case, as the ``estimate`` command prints it.
* :mod:`sizing.engine.advice` — the nearest change that makes a non-fitting row fit.
* :mod:`sizing.launch.commands`, :mod:`sizing.launch.vllm_flags` — ``vllm serve`` and SGLang commands, and the
flags
  the pinned releases accept (``sizing/launch/data/``).
* :mod:`sizing.engine.importer` — a catalog entry from a Hugging Face ``config.json``.
* :mod:`sizing.review.calibration` — our estimates against real vLLM start-up logs (``calibration/``).
* :mod:`sizing.views.matrix`, :mod:`sizing.views.table_rows`, :mod:`sizing.render.tables`,
:mod:`sizing.render.explain`,
  :mod:`sizing.render.charts`, :mod:`sizing.review.report` — language-neutral rows, and their rendering.
* :mod:`sizing.render.i18n` — message files and Babel number formatting; :mod:`sizing.site.context`,
:mod:`sizing.render.macros`,
  :mod:`sizing.site.docs_macros` — the site's build context, its macros and the mkdocs-macros shim.
* :mod:`sizing.review.export`, :mod:`sizing.review.diff_report` — ``export`` (committed snapshots in
``generated/``) and
  ``diff`` between revisions (:mod:`sizing.review.revisions`, :mod:`sizing.review.table_diff`); site downloads
  in
  :mod:`sizing.review.downloads`.
* :mod:`sizing.cli` — ``python -m sizing``.
"""

__all__ = ["__version__"]
__version__ = "0.1.0"
