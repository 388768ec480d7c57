"""Data in: the typed catalog schema and the validating loader."""
