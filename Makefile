# Arcade Lab — every target creates .venv from nothing when it is missing.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: run test bench parity wheel dist clean

# The interpreter is its own target: a venv copied without its symlinks is repaired, then reinstalled.
$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/arcade-lab play

test: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q $(PYTEST_ARGS)

bench: $(STAMP)
	$(BIN)/arcade-lab bench

parity: $(STAMP)
	$(BIN)/arcade-lab parity --games all --frames 5000

wheel: $(STAMP)
	rm -f dist/arcade_lab-*.whl
	$(BIN)/python -m pip wheel --quiet --no-deps --no-build-isolation -w dist .

# The bundle is built from its own environment holding the wheel (not the editable source mapping, which
# PyInstaller cannot follow) and the runtime dependencies only: no test tools, no OpenCV, no Ray.
DISTVENV := build/dist-venv

dist: wheel
	rm -rf $(DISTVENV) && $(PYTHON) -m venv $(DISTVENV)
	$(DISTVENV)/bin/python -m pip install --quiet --upgrade pip
	$(DISTVENV)/bin/python -m pip install --quiet dist/arcade_lab-*.whl "pyinstaller>=6.3"
	cd build && dist-venv/bin/pyinstaller --noconfirm --distpath ../dist --workpath pyinstaller ../packaging/arcade-lab.spec
	# ship the compiled kernels: a fresh installation copies them on its first start instead of compiling
	rm -rf dist/arcade-lab/_internal/jit-cache
	ARCADE_LAB_CACHE=$(CURDIR)/dist/arcade-lab/_internal/jit-cache dist/arcade-lab/arcade-lab warm
	dist/arcade-lab/arcade-lab play --self-test
	du -sh dist/arcade-lab

clean:
	rm -rf $(VENV) build dist *.egg-info
