# Two commands on a fresh clone: `make run` (install + main job) and `make test`.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin

.PHONY: install run test bench soak clean interop rllib-test browser-test

$(BIN)/.installed: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)
	# torch first, pinned to the CPU build on this machine's disk, so nothing pulls a CUDA build.
	$(BIN)/pip install --disable-pip-version-check -q torch==2.13.0
	$(BIN)/pip install --disable-pip-version-check -q -e ".[dev]"
	touch $@

install: $(BIN)/.installed

# The RL libraries people pair us with, in a venv of their own (pip install pitch-rl[interop]):
# each library's own loop on every variant (interop/), then the steps/s table of docs/interop.md.
INTEROP := .venv-interop
$(INTEROP)/bin/.installed: pyproject.toml
	test -x $(INTEROP)/bin/python || $(PYTHON) -m venv $(INTEROP) || python3 -m venv $(INTEROP)
	$(INTEROP)/bin/pip install --disable-pip-version-check -q torch==2.13.0
	$(INTEROP)/bin/pip install --disable-pip-version-check -q -e ".[interop,dev]"
	touch $@

interop: $(INTEROP)/bin/.installed
	$(INTEROP)/bin/python -m pytest interop -p no:cacheprovider
	$(INTEROP)/bin/python -m interop.loops

# Ray RLlib (backend: rllib, docs/rllib.md) in a venv of its own (pip install pitch-rl[rllib]): its suite,
# rllib_tests/, trains a few iterations on 2 env runners, exports, loads and plays the export against
# the heuristic, resumes, and refuses crafted run directories. `make test` never imports Ray.
RLLIB := .venv-rllib
$(RLLIB)/bin/.installed: pyproject.toml
	test -x $(RLLIB)/bin/python || $(PYTHON) -m venv $(RLLIB) || python3 -m venv $(RLLIB)
	$(RLLIB)/bin/pip install --disable-pip-version-check -q torch==2.13.0
	$(RLLIB)/bin/pip install --disable-pip-version-check -q -e ".[rllib,dev]"
	touch $@

rllib-test: $(RLLIB)/bin/.installed
	$(RLLIB)/bin/python -m pytest rllib_tests -p no:cacheprovider

# The game page (pitch replay --html) in a real headless browser: Debian's chromium and chromium-driver
# (apt-get, as root; Selenium drives that chromedriver and downloads nothing), selenium in .venv.
$(BIN)/.browser-installed: $(BIN)/.installed
	command -v chromium >/dev/null && command -v chromedriver >/dev/null || \
		{ apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver; }
	$(BIN)/pip install --disable-pip-version-check -q -e ".[browser]"
	touch $@

browser-test: $(BIN)/.browser-installed
	$(BIN)/python -m pytest browser_tests -p no:cacheprovider

# run: trains configs/quick.yaml and prints its table: 52 s quiet, 1 min 31 s with both cores busy
# (docs/benchmarks.md)
run: install
	$(BIN)/python -m pitch_cli run

test: install
	$(BIN)/python -m pytest -n 2 -p no:cacheprovider

bench: install
	$(BIN)/python -m bench.speed

# The engine's referee soak, the batched engine checked move for move against the reference over 100,000
# games of random rule mixes, then two minutes of hostile records, checkpoints, configs and run directories each.
soak: install
	$(BIN)/python -m bench.soak
	$(BIN)/python -m bench.batch_check --games 100000
	$(BIN)/python -m bench.fuzz --seconds 120

clean:
	rm -rf $(VENV) $(INTEROP) $(RLLIB) runs .pytest_cache .hypothesis
