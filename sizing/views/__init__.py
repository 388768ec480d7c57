"""Language-neutral rows and series computed from an evaluated catalog (no words, no site)."""
