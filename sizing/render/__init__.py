"""Words and numbers: Markdown, SVG and text per page language (no engine calls, no globals)."""
