# acp-tray: the two commands a newcomer needs.
#   make run   create .venv, install acp-tray, start the daemon on its built-in defaults
#   make test  create .venv, install with test extras and the interop agent, pass the tests

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
PYTEST_ARGS ?=

.PHONY: run test lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The tray menu needs PyGObject: installed when its build dependencies are there, else the
# daemon runs with the menu-less X11 tray or none (it says which at start).
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	if pkg-config --exists gobject-introspection-1.0 cairo 2>/dev/null; then \
		$(BIN)/python -m pip install --quiet -e '.[gtk]'; \
	else \
		echo "note: no PyGObject build dependencies (libgirepository1.0-dev libcairo2-dev pkg-config): the tray will have no menu"; \
	fi
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	bash .ci/system-deps
	$(BIN)/python -m pip install --quiet -e '.[test,gtk]'
	touch $(VENV)/.installed $@

tests/interop/node_modules/.package-lock.json: tests/interop/package-lock.json
	bash .ci/system-deps
	npm ci --prefix tests/interop --no-audit --no-fund

run: $(VENV)/.installed
	$(BIN)/acp-tray run

test: $(VENV)/.installed-test tests/interop/node_modules/.package-lock.json
	bash .ci/system-deps
	bash .ci/real-agents >/dev/null
	$(BIN)/python -m pytest $(PYTEST_ARGS)

lint: $(VENV)/.installed-test
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/mypy

bench: $(VENV)/.installed-test
	bash .ci/system-deps
	$(BIN)/python benchmarks/parse_notices.py
	$(BIN)/python benchmarks/dispatch.py

clean:
	rm -rf $(VENV) tests/interop/node_modules build dist src/*.egg-info
