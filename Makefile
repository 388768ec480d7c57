# The two commands of the README: `make serve` and `make test`. Everything else supports them.
#   make serve [PORT=8000]   build all languages, then serve them on http://127.0.0.1:PORT/
#   make preview [LANG=en] [PORT=8000]  live preview of one language (MkDocs' server, live reload)
#   make test                lint, types, generated files, every test (one site build per engine, Chromium)
#   make test-fast           lint, types and the tests that need no site build and no browser (inner loop)
#   make setup [PY=python3]  create .venv with the pinned dependencies (Python 3.11 or newer) and, as
#                            root with apt-get, install Chromium and a Chinese font for the browser tests
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

# pytest on several workers (pytest-xdist; an idle worker takes tests from a busy one; WORKERS=0 runs in one
# process). The site is built once per engine for all, from the end of collection on (tests/conftest.py).
# make test runs three: a browser test waits now and then (page loads, animation frames) and a third worker
# keeps the two cores busy meanwhile (four measured no faster, two left gaps). test-fast's tests compute: two
# workers, one per core.
WORKERS ?=
PYTEST = $(BIN)/python -m pytest -q -n $(or $(WORKERS),$(1)) --dist worksteal
# mypy and the throughput fit's check side by side (each is one process): both run, either fails the target.
STATIC_CHECKS = $(BIN)/mypy & mypy=$$!; $(BIN)/python -m scripts.throughput_fit --check; fit=$$?; \
	wait $$mypy && exit $$fit
CHROMIUM := /usr/bin/chromium
NO_APT = make: $(CHROMIUM) or a Chinese font is missing and cannot be installed here \
	(needs apt-get and root): install chromium and fonts-wqy-zenhei, then run make setup again

.PHONY: setup browser serve build test test-fast check-generated check-python check-port clean distclean preview

setup: $(STAMP) browser

# Debian's Chromium for the browser tests (Playwright's own download is not available) and a font that
# covers Chinese (the /zh/ screenshots), installed with apt-get when missing.
browser:
	@if [ -x $(CHROMIUM) ] && fc-list :lang=zh 2>/dev/null | grep -q .; then exit 0; fi; \
	if [ "$$(id -u 2>/dev/null)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then \
		echo "$(NO_APT)" >&2; exit 1; fi; \
	export DEBIAN_FRONTEND=noninteractive; apt-get update -qq && apt-get install -y -qq chromium \
		$$(fc-list :lang=zh 2>/dev/null | grep -q . || echo fonts-wqy-zenhei)

# The stamp is written only when pip succeeded. A .venv of a too-old Python is replaced; a .venv this
# run created is removed again when pip fails, so the next `make` starts afresh (with whatever PY is
# given then). An existing, working .venv is kept when an update fails: the next `make` retries it.
# --no-compile, then compileall on every core: the same bytecode pip would write one file after another
# (left to the first import instead, the test workers would each compile the same modules at once).
$(STAMP): requirements.txt requirements-zensical.txt constraints.txt
	@$(MAKE) --no-print-directory check-python PY=$(PY)
	@$(BIN)/python -c 'import sys; sys.exit(sys.version_info[:2] < tuple(map(int, "$(PY_MIN)".split("."))))' \
		2>/dev/null || { rm -rf $(VENV) && $(PY) -m venv $(VENV) && touch $(VENV)/.new; }
	$(BIN)/pip install --quiet --no-compile --disable-pip-version-check -r requirements.txt \
		-r requirements-zensical.txt -c constraints.txt \
		|| { if [ -e $(VENV)/.new ]; then rm -rf $(VENV); fi; \
		     echo "make: pip install failed (see above); run make again once it is fixed" >&2; exit 1; }
	$(BIN)/python -m compileall -q -j 0 $(VENV)/lib >/dev/null
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

# generated/ and calibration/results.* are checked by the tests (tests/review/, test_calibration.py), so
# once. The last line is pytest's summary; "no tests ran" (exit 5) is a failure.
test: $(STAMP) browser
	$(BIN)/ruff check sizing scripts tests
	$(BIN)/ruff format --check --quiet sizing scripts tests
	$(STATIC_CHECKS)
	$(call PYTEST,3)

# The inner loop: lint, types and the unit tests; no site build, no browser, 15 examples per property
# instead of 50, and not the throughput fit's check (a refit of every left-out source, for make test).
test-fast: $(STAMP)
	$(BIN)/ruff check sizing scripts tests
	$(BIN)/ruff format --check --quiet sizing scripts tests
	$(BIN)/mypy
	SIZING_PROPERTY_EXAMPLES=fast $(call PYTEST,2) -m "not site and not browser"

# generated/ must match the catalog: prints a diff and fails when `python -m sizing export` is due.
check-generated: $(STAMP)
	$(BIN)/python -m sizing export --check

clean:
	rm -rf site build

distclean: clean
	rm -rf $(VENV)
