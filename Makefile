PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test bench screenshots clean

$(STAMP): pyproject.toml
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/memtui --demo

test: $(STAMP)
	$(BIN)/python -m pytest -q

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
