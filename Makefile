# The two commands of the README. Both create or update .venv from pyproject.toml themselves.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: run test lint typecheck pytest bench boardcfg flash clean

# Re-install whenever pyproject.toml changes; a half-made venv is rebuilt.
$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11 or newer is needed")'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

run: $(STAMP)
	$(BIN)/companion serve

lint: $(STAMP)
	$(BIN)/ruff check .

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP) tests/firmware/node_modules/.package-lock.json tests/browser/js/node_modules/.package-lock.json
	sh scripts/ensure-chromium.sh
	sh scripts/ensure-webkit.sh
	sh scripts/ensure-card-designs.sh
	$(BIN)/pytest

# axe-core, injected into the dashboard pages by the browser tests.
tests/browser/js/node_modules/.package-lock.json: tests/browser/js/package-lock.json
	npm ci --prefix tests/browser/js --no-audit --no-fund --loglevel=error

# Real MicroPython (WebAssembly, under node) for the firmware tests.
tests/firmware/node_modules/.package-lock.json: tests/firmware/package-lock.json
	npm ci --prefix tests/firmware --no-audit --no-fund --loglevel=error

test: lint typecheck pytest

bench: $(STAMP)
	for b in bench/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

# The firmware's copy of the board map, regenerated from hardware/boardmap.toml.
boardcfg: $(STAMP)
	$(BIN)/python -m hardware.boardmap --firmware firmware/boardcfg.py

# Copy the firmware onto a Pico: make flash PORT=/dev/ttyACM0
flash: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[board]'
	$(BIN)/mpremote connect $(PORT) cp firmware/boardcfg.py firmware/tcboard.py firmware/main.py :
	$(BIN)/mpremote connect $(PORT) reset

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
