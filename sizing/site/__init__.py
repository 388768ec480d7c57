"""The mkdocs glue: the only code that reads environment variables, pickles or the page language."""
