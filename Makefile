# Two entry points for a fresh machine: `make run` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-fast check setup system bench lint clean

run: setup
	$(BIN)/grill

# Test processes: twice the cores (at most 8). A third of a UI test's time is Textual's pilot
# sleeping until the app is idle, and a grader test waits on its sandbox worker: one process
# per core would leave the cores idle then (-n 4 here: 179 s against 219 s with -n auto).
WORKERS ?= $(shell $(PY) -c 'import os; print(min(2 * (os.cpu_count() or 1), 8))')

# The suite starts about a hundred Python processes. Where the environment asks Python not to
# cache compiled modules (PYTHONDONTWRITEBYTECODE), each of them would compile grill and
# pytest's rewritten tests again: a fresh clone here took 205 s that way, 186 s caching them.
# The app and the benches too: every start would compile grill's modules, as no installed
# program does.
run test test-fast bench: export PYTHONDONTWRITEBYTECODE =

# Every test, spread over the cores; pytest's last line is the suite's wall time.
test: setup
	$(BIN)/python -m pytest -q -n $(WORKERS)

# The edit loop: each test file's first test, but none below an e2e/ folder (the others are
# marked slow: tests/edit_loop.py), so every file, and with them every package, still runs.
test-fast: setup
	$(BIN)/python -m pytest -q -n $(WORKERS) -m "not slow"

# Formatting, lint, types, the layers and dead code; tests/e2e/test_check_bites.py shows each one
# fails on a planted violation.
check: setup
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/vulture

setup: $(STAMP) system

# The first setup downloads PyTorch's CPU wheel (about 190 MB) and some 60 other packages:
# pip shows each package and a progress bar, so a minute or more of it is not a silent hang.
$(STAMP): pyproject.toml constraints.txt
	@echo "==> Creating $(VENV), the project's own Python environment"
	$(PY) -m venv $(VENV)
	@echo "==> Installing grill and its dependencies into $(VENV): PyTorch's CPU wheel is about"
	@echo "    190 MB, so the first time takes a few minutes (later runs skip this step)"
	$(BIN)/pip install --progress-bar on -c constraints.txt -e '.[dev]'
	touch $(STAMP)
	@echo "==> $(VENV) is ready"

# bubblewrap isolates graded snippets; without it grill still runs and says what protection remains.
system:
	@command -v bwrap >/dev/null 2>&1 || { \
	  if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	    apt-get install -y -q bubblewrap >/dev/null 2>&1 || { apt-get update -q >/dev/null && apt-get install -y -q bubblewrap >/dev/null; }; \
	    command -v bwrap >/dev/null 2>&1 || echo "note: could not install bubblewrap; snippets run with reduced isolation"; \
	  else echo "note: bubblewrap (bwrap) is not installed; install it for full sandbox isolation"; fi; }

lint: setup
	$(BIN)/grill lint questions/

bench: setup
	for f in tests/bench/bench_*.py; do echo "== $$f"; $(BIN)/python $$f || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info
