# The two commands of the README. Both create or update .venv from pyproject.toml themselves.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: run test test-fast lint typecheck pytest bench boardcfg flash clean

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

pytest: $(STAMP) tests/firmware/node_modules/.package-lock.json
	sh scripts/ensure-chromium.sh
	sh scripts/ensure-card-designs.sh
	$(BIN)/pytest

# Real MicroPython (WebAssembly, under node) for the firmware tests.
tests/firmware/node_modules/.package-lock.json: tests/firmware/package-lock.json
	npm ci --prefix tests/firmware --no-audit --no-fund --loglevel=error

test: lint typecheck pytest

# The loop while changing code (under a minute): the rules engines, the board's protocol and
# map, the API and the session, the table log; nothing marked browser, firmware, camera or
# slow (tests/conftest.py). `pytest -m "not (browser or firmware or camera or slow)"` runs
# every other quick test too (the board feed, the serial and GPIO sources): a few minutes.
FAST_TESTS := tests/games tests/hardware/test_protocol.py tests/hardware/test_boardmap.py \
	tests/service tests/test_config.py tests/test_cli_replay.py companion/games
test-fast: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/pytest -m "not (browser or firmware or camera or slow)" $(FAST_TESTS)

bench: $(STAMP)
	for b in bench/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

# The firmware's copy of the board map, regenerated from hardware/boardmap.toml.
boardcfg: $(STAMP)
	$(BIN)/python -m hardware.boardmap --firmware firmware/boardcfg.py

# Copy the firmware onto a Pico: make flash PORT=/dev/ttyACM0
flash: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[board]'
	$(BIN)/mpremote connect $(PORT) cp firmware/boardcfg.py firmware/tcboard.py firmware/tcfast.py firmware/main.py :
	$(BIN)/mpremote connect $(PORT) reset

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
