# acp-tray: the two commands a newcomer needs.
#   make run   create .venv, install acp-tray, start the daemon on its built-in defaults
#   make test  create .venv, install with test extras and the interop agent, pass the tests

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
PYTEST_ARGS ?=
# The tests run on several workers (pytest-xdist): most of their time is spent waiting on the agents,
# daemons and desktop processes they start, so more workers than cores pay off. Tests that must not
# run beside each other are kept on one worker (tests/support/parallel.py says which). TEST_WORKERS=0
# runs them all in one process, one after another.
TEST_WORKERS ?= 4

.PHONY: run test lint bench clean

$(BIN)/python:
	@echo "make: creating $(VENV) (the first run takes 1-3 minutes on 2 cores, and says how far it is; later runs start at once)"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The tray menu needs PyGObject: installed when its build dependencies are there, else the
# daemon runs with the menu-less X11 tray (it says which at start). Whether they are there is part
# of the marker's name, so installing them later makes the next `make run` build PyGObject.
GTK_BUILD_DEPS := $(shell pkg-config --exists gobject-introspection-1.0 cairo 2>/dev/null && echo yes || echo no)
GTK_RUNTIME := gir1.2-gtk-3.0 gir1.2-ayatanaappindicator3-0.1
GTK_BUILD := libgirepository1.0-dev libcairo2-dev pkg-config

# A long step says every 10 s how long it has taken so far (scripts/progress.py).
PROGRESS = $(BIN)/python scripts/progress.py

$(VENV)/.gtk-build-deps-%: | $(BIN)/python
	rm -f $(VENV)/.gtk-build-deps-*
	touch $@

$(VENV)/.installed: pyproject.toml $(VENV)/.gtk-build-deps-$(GTK_BUILD_DEPS) | $(BIN)/python
	@echo "make: installing acp-tray and its dependencies into $(VENV) ..."
	$(PROGRESS) "installing acp-tray's dependencies" -- $(BIN)/python -m pip install --quiet -e .
	@if [ "$(GTK_BUILD_DEPS)" = yes ]; then \
		echo "make: building PyGObject for the tray menu (20 s on 2 idle cores, up to 2 minutes on busy ones) ..."; \
		$(PROGRESS) "building PyGObject" -- $(BIN)/python -m pip install --quiet -e '.[gtk]'; \
	else \
		echo "note: the tray will have no menu without PyGObject: sudo apt-get install $(GTK_BUILD) $(GTK_RUNTIME), then make run again"; \
	fi
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	bash .ci/system-deps
	$(BIN)/python -m pip install --quiet -e '.[test,gtk]'
	rm -f $(VENV)/.gtk-build-deps-*
	touch $(VENV)/.gtk-build-deps-$(GTK_BUILD_DEPS) $(VENV)/.installed $@

tests/interop/node_modules/.package-lock.json: tests/interop/package-lock.json
	bash .ci/system-deps
	npm ci --prefix tests/interop --no-audit --no-fund

tests/a11y/node_modules/.package-lock.json: tests/a11y/package-lock.json
	npm ci --prefix tests/a11y --no-audit --no-fund

run: $(VENV)/.installed
	$(BIN)/acp-tray run

test: $(VENV)/.installed-test tests/interop/node_modules/.package-lock.json tests/a11y/node_modules/.package-lock.json
	bash .ci/system-deps
	bash .ci/real-agents >/dev/null
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadgroup --durations=10 $(PYTEST_ARGS)

lint: $(VENV)/.installed-test
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/mypy

bench: $(VENV)/.installed-test
	bash .ci/system-deps
	$(BIN)/python benchmarks/parse_notices.py
	$(BIN)/python benchmarks/dispatch.py

clean:
	rm -rf $(VENV) tests/interop/node_modules tests/a11y/node_modules build dist src/*.egg-info
