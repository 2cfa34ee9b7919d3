# Two commands matter: `make run` and `make test`. Everything else is what they stand on.
# `make check` is the fast lane while you work: lint, types and the fast tests (under 2 minutes on 2 cores).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
PORT   ?= 8501

.PHONY: install run analyze test check fast lint typecheck unit browser-deps bench clean fixtures catalogs lexicon lock

# Idempotent: re-runs pip only when pyproject.toml changes.
$(STAMP): pyproject.toml setup.py explainer/_fold.c explainer/_fold_kernels.h
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

# `make run PROFILE=path/to/profile.pb.gz` opens on a file instead of the demo.
run: install
	$(BIN)/explainer app --host 127.0.0.1 --port $(PORT) $(PROFILE)

analyze: install
	$(BIN)/explainer analyze --demo

# Debian's chromium for the real-browser test (no browser download); skipped if already there.
browser-deps:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else echo "chromium missing: run 'sudo apt-get install chromium' (browser tests will be skipped)"; fi; }

lint: install
	$(BIN)/ruff check app.py explainer tests bench tools
	$(BIN)/ruff format --check app.py explainer tests

typecheck: install
	$(BIN)/mypy

unit: install
	$(BIN)/python -m pytest -q

test: install browser-deps lint typecheck unit

# The tests marked slow (browser, wheel install, fault injection, deadlines, big profiles, many
# subprocesses; see the markers in pyproject.toml) run only in `make test`.
FAST := -m "not slow and not browser and not install" -n 2

fast: install
	$(BIN)/python -m pytest -q $(FAST) $(ARGS)

check: lint typecheck fast

fixtures: install
	$(BIN)/python -m explainer.demo

# Re-extract the answers' messages into explainer/locale and recompile the catalogs (needs Babel, a dev dependency).
catalogs: install
	$(BIN)/python tools/catalogs.py

# Rebuild the question lexicon's prebuilt index after editing explainer/explain/question/lexicon.toml
# (tests/test_lexicon_index.py fails until it is rebuilt).
lexicon: install
	$(BIN)/python tools/lexicon_index.py

# The image's dependencies, pinned with hashes for the image's Python and platform (tests/test_deploy.py
# checks the lock against pyproject.toml). Needs the package index.
lock: install
	$(BIN)/python -m pip install --quiet 'uv>=0.5,<1'
	$(BIN)/uv pip compile pyproject.toml --python-version 3.12 --python-platform x86_64-manylinux_2_28 \
	  --generate-hashes --custom-compile-command "make lock" --quiet -o requirements.lock

bench: install
	$(BIN)/python bench/run.py
	$(BIN)/python bench/server.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache bench/.work
