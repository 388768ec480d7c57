"""Rules: bytes, blocks, plans and verdicts of vLLM's memory accounting (no words, no site)."""
