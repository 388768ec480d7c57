# The two commands of the README: `make serve` and `make test`. Everything else supports them.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

export NO_MKDOCS_2_WARNING := 1
export DISABLE_MKDOCS_2_WARNING := true

.PHONY: setup serve build test check-generated clean

setup: $(STAMP)

$(STAMP): requirements.txt constraints.txt
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements.txt -c constraints.txt
	touch $(STAMP)

build: $(STAMP)
	$(BIN)/python -m scripts.docs build

serve: build
	$(BIN)/python -m scripts.docs serve

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
