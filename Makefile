# The two commands of the README: `make serve` and `make test`. Everything else supports them.
#   make serve [PORT=8000]   build all languages, then serve them on http://127.0.0.1:PORT/
#   make preview [LANG=en] [PORT=8000]  live preview of one language (MkDocs' server, live reload)
#   make setup [PY=python3]  create .venv with the pinned dependencies (Python 3.11 or newer)
#   make clean               remove the built site (site/, build/)
#   make distclean           also remove .venv (the next make sets it up again)
PY ?= python3
PORT ?= 8000
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PY_MIN := 3.11
# The site generator of `make build`: mkdocs (MkDocs + Material, the default) or zensical.
ENGINE ?= mkdocs

export NO_MKDOCS_2_WARNING := 1
export DISABLE_MKDOCS_2_WARNING := true

.PHONY: setup serve build test check-generated check-python check-port clean distclean preview

setup: $(STAMP)

# The stamp is written only when pip succeeded. A .venv of a too-old Python is replaced; a .venv this
# run created is removed again when pip fails, so the next `make` starts afresh (with whatever PY is
# given then). An existing, working .venv is kept when an update fails: the next `make` retries it.
$(STAMP): requirements.txt requirements-zensical.txt constraints.txt
	@$(MAKE) --no-print-directory check-python PY=$(PY)
	@$(BIN)/python -c 'import sys; sys.exit(sys.version_info[:2] < tuple(map(int, "$(PY_MIN)".split("."))))' \
		2>/dev/null || { rm -rf $(VENV) && $(PY) -m venv $(VENV) && touch $(VENV)/.new; }
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements.txt \
		-r requirements-zensical.txt -c constraints.txt \
		|| { if [ -e $(VENV)/.new ]; then rm -rf $(VENV); fi; \
		     echo "make: pip install failed (see above); run make again once it is fixed" >&2; exit 1; }
	rm -f $(VENV)/.new
	touch $(STAMP)

NO_PY = make: $(PY) not found; give one: make setup PY=python3.12
OLD_PY = make: Python $(PY_MIN) or newer is needed, $(PY) is %d.%d; give another: make setup PY=python3.12

check-python:
	@command -v $(PY) >/dev/null 2>&1 || { echo "$(NO_PY)" >&2; exit 1; }
	@$(PY) -c 'import sys; v = sys.version_info[:2]; \
		sys.exit(0 if v >= tuple(map(int, "$(PY_MIN)".split("."))) else "$(OLD_PY)" % v)'

# Fails at once, before the build, when PORT is not a port number or is taken. PORT reaches the
# recipes only through the environment ("$$PORT"), never pasted into a shell line or Python code.
override PORT := $(value PORT)
export PORT
check-port:
	@$(PY) -m scripts.check_port "$$PORT"

build: $(STAMP)
	$(BIN)/python -m scripts.docs build --engine $(ENGINE)

serve: check-port build
	$(BIN)/python -m scripts.docs serve --port "$$PORT"

# One language, live: the catalog evaluated once (build/preview/), MkDocs' own server reloads edited pages.
# LANG only from the command line: the environment's LANG is the locale (en_US.UTF-8), not a page language.
LANG_PREVIEW = $(if $(filter command line,$(origin LANG)),$(LANG),en)
preview: check-port $(STAMP)
	$(BIN)/python -m scripts.preview --lang $(LANG_PREVIEW) --port $(PORT)

test: $(STAMP)
	$(BIN)/ruff check sizing scripts tests
	$(BIN)/mypy
	$(BIN)/python -m sizing export --check
	$(BIN)/python -m scripts.calibrate --check
	$(BIN)/python -m pytest -q

# generated/ must match the catalog: prints a diff and fails when `python -m sizing export` is due.
check-generated: $(STAMP)
	$(BIN)/python -m sizing export --check

clean:
	rm -rf site build

distclean: clean
	rm -rf $(VENV)
