# The two commands of the README. Both create or update .venv from pyproject.toml themselves.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Two layers in one venv: `make run` installs the runtime only (what the table needs, as
# deploy/install.sh does on the Pi); `make test` and the other developer targets add the
# [dev] extras (pytest, mypy, ruff, playwright ...) on top.
RUNTIME_STAMP := $(VENV)/.runtime-stamp
STAMP := $(VENV)/.installed-stamp
# `make flash` needs mpremote alone: its own small venv, so that `sudo make flash` in
# /opt/table-companion never adds anything to the service's venv.
FLASH_VENV := .venv-flash
# The whole suite file by file on every core, four at most: a file's tests share one process, so
# a module's browser, server or WebKit driver starts once (pytest-xdist's --dist loadfile).
# Half the time of one process on the two cores of a CI machine. PARALLEL= runs it in one.
# The pytest line below runs numpy's BLAS on one thread, as the service does
# (deploy/table-companion.service): with threads of its own beside the other workers it spins
# (288 camera frames: 2.4x the CPU time).
PARALLEL ?= --numprocesses auto --maxprocesses 4 --dist loadfile

.PHONY: run test test-fast lint typecheck pytest bench boardcfg index-model small-courts-model flash arm64-smoke clean

# Re-install whenever pyproject.toml changes; a half-made venv is rebuilt.
$(RUNTIME_STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11 or newer is needed")'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	@touch $(RUNTIME_STAMP)

$(STAMP): $(RUNTIME_STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

run: $(RUNTIME_STAMP)
	$(BIN)/companion serve

lint: $(STAMP)
	$(BIN)/ruff check .

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP) tests/firmware/node_modules/.package-lock.json tests/browser/js/node_modules/.package-lock.json
	sh scripts/ensure-chromium.sh
	sh scripts/ensure-webkit.sh
	sh scripts/ensure-card-designs.sh
	sh scripts/ensure-table-surfaces.sh
	OPENBLAS_NUM_THREADS=1 $(BIN)/pytest $(PARALLEL)

# axe-core, injected into the dashboard pages by the browser tests.
tests/browser/js/node_modules/.package-lock.json: tests/browser/js/package-lock.json
	npm ci --prefix tests/browser/js --no-audit --no-fund --loglevel=error

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
boardcfg: $(RUNTIME_STAMP)
	$(BIN)/python -m hardware.boardmap --firmware firmware/boardcfg.py

# The card-index classifier shipped in the package (vision/models/index_glyphs.npz), rebuilt
# from the fonts below and the published designs (root for apt; about
# 15 to 35 minutes on two cores). Nothing is trained or rendered when the camera starts.
TRAIN_FONTS := fonts-dejavu-core fonts-liberation fonts-freefont-ttf fonts-urw-base35 \
	fonts-noto-core fonts-roboto fonts-open-sans fonts-lato fonts-texgyre \
	fonts-crosextra-carlito fonts-cantarell fonts-linuxlibertine fonts-ebgaramond fonts-b612 \
	fonts-comfortaa fonts-league-spartan fonts-hack fonts-cabin fonts-quicksand \
	fonts-sil-charis fonts-inter fonts-jura fonts-paratype fonts-dustin
index-model: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[train]'
	sh scripts/apt-install.sh $(TRAIN_FONTS)
	sh scripts/ensure-card-designs.sh
	$(BIN)/python scripts/train_index_model.py
	$(BIN)/python scripts/train_small_courts.py

# The small classifiers alone: court letters and black suits of small cards, black suits
# of blurred ones (vision/models/small_courts.npz, small_suits.npz, blurred_suits.npz;
# numpy only)
small-courts-model: $(STAMP)
	sh scripts/ensure-card-designs.sh
	$(BIN)/python scripts/train_small_courts.py

# Copy the firmware onto a Pico: make flash PORT=/dev/ttyACM0
# mpremote's version comes from pyproject.toml's [board] extra.
$(FLASH_VENV)/.installed-stamp: pyproject.toml
	@test -x $(FLASH_VENV)/bin/python || $(PYTHON) -m venv $(FLASH_VENV)
	$(FLASH_VENV)/bin/python -m pip install --quiet $$($(PYTHON) -c 'import tomllib; \
	  print(*tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["board"])')
	@touch $@

flash: $(FLASH_VENV)/.installed-stamp
	@test -n "$(PORT)" || { echo "make flash: name the Pico's port, e.g. make flash PORT=/dev/ttyACM0" >&2; exit 2; }
	$(FLASH_VENV)/bin/mpremote connect $(PORT) cp firmware/boardcfg.py firmware/tcboard.py firmware/tcfast.py firmware/main.py :
	$(FLASH_VENV)/bin/mpremote connect $(PORT) reset

# Install and run the companion in an arm64 Debian chroot under qemu (root; minutes, so not
# part of `make test`). docs/raspberry-pi.md shows its last result.
arm64-smoke:
	bash scripts/arm64-smoke.sh

clean:
	rm -rf $(VENV) $(FLASH_VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
