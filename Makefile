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

# The wheel ships every kernel compiled for the generic CPU of this target (any CPU of it loads them, so a
# fresh installation steps its first game without compiling), warmed from exactly the sources it holds.
WHEELCACHE := build/wheel-cache

wheel: $(STAMP)
	rm -rf dist/arcade_lab-*.whl engine/jit-cache $(WHEELCACHE)
	ARCADE_LAB_CACHE=$(CURDIR)/$(WHEELCACHE) $(BIN)/arcade-lab warm --portable --games all
	mkdir -p engine/jit-cache && cp -r $(WHEELCACHE)/numba engine/jit-cache/
	$(BIN)/python -m pip wheel --quiet --no-deps --no-build-isolation -w dist . ; s=$$?; rm -rf engine/jit-cache build/lib; exit $$s

# The bundle is built from its own environment holding the wheel (not the editable source mapping, which
# PyInstaller cannot follow) and the runtime dependencies only: no test tools, no OpenCV, no Ray.
DISTVENV := build/dist-venv

dist: wheel
	rm -rf $(DISTVENV) && $(PYTHON) -m venv $(DISTVENV)
	$(DISTVENV)/bin/python -m pip install --quiet --upgrade pip
	$(DISTVENV)/bin/python -m pip install --quiet dist/arcade_lab-*.whl "pyinstaller>=6.3"
	cd build && dist-venv/bin/pyinstaller --noconfirm --distpath ../dist --workpath pyinstaller ../packaging/arcade-lab.spec
	# the wheel's portable kernels travel inside the bundle; the self-test starts from an empty user cache
	ARCADE_LAB_CACHE=$$(mktemp -d) dist/arcade-lab/arcade-lab play --self-test
	du -sh dist/arcade-lab

clean:
	rm -rf $(VENV) build dist *.egg-info
