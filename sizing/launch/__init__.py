"""Launch commands (vLLM, SGLang) and the flag lists of the pinned releases (``data/``)."""
