PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
SOURCES := memtui tests benchmarks scripts

.PHONY: demo test lint format bench screenshots clean

# Exact versions from constraints.txt; pyproject.toml keeps the compatible ranges users install with.
$(STAMP): pyproject.toml constraints.txt
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -c constraints.txt -e '.[test,lint]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/memtui --demo

test: $(STAMP)
	$(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check $(SOURCES)
	$(BIN)/ruff format --check $(SOURCES)
	$(BIN)/mypy
	$(BIN)/lint-imports

format: $(STAMP)
	$(BIN)/ruff check --fix $(SOURCES)
	$(BIN)/ruff format $(SOURCES)

bench: $(STAMP)
	$(BIN)/python benchmarks/pairs_eval.py
	$(BIN)/python benchmarks/false_pairs.py
	$(BIN)/python benchmarks/real_corpus.py
	$(BIN)/python benchmarks/check_speed.py
	$(BIN)/python benchmarks/archive_speed.py
	$(BIN)/python benchmarks/tui_speed.py

screenshots: $(STAMP)
	$(BIN)/python scripts/export_screenshots.py

clean:
	rm -rf $(VENV) build *.egg-info
