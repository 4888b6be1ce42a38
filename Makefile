# tablehw: two commands for a new machine — `make run` and `make test`.
# Everything they need is installed here (venv from PyPI, Debian packages with apt), so a clean
# clone on Debian / Raspberry Pi OS works with no step done by hand. Python packages come from the
# lock files (exact versions, checked against their hashes); `make lock` re-pins them.
#
#   make run      a simulated table: the production packages and Mosquitto, nothing for tests
#   make test     adds the test and browser extras (pytest, Playwright) and socat, Chromium
#   make install  the production venv only (docs/deploy.md §1)

SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
TABLEHW := $(VENV)/bin/tablehw
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
LOCK := requirements.lock
TEST_LOCK := requirements-test.lock
PIP_TOOLS := pip-tools==7.6.2
# Debian packages: what a simulated table needs, and what the tests add (ptys; the board page's browser
# and a Chinese font for its labels; PostgreSQL, whose initdb/pg_ctl the ledger's tests start throw-away
# clusters with).
RUN_APT := mosquitto
TEST_APT := $(RUN_APT) socat chromium fonts-noto-cjk postgresql
GAME ?= craps
ROUNDS ?=

.PHONY: run test bench board venv install lock schemas apt-run apt-test clean

# The production venv: the lock's exact versions (hash-checked), then tablehw itself, editable.
$(VENV)/.stamp-production: pyproject.toml $(LOCK)
	@$(PYTHON) -m venv $(VENV) 2>/dev/null || { \
	  echo "python3-venv missing: installing it with apt"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq python3-venv python3-pip </dev/null; \
	  rm -rf $(VENV); $(PYTHON) -m venv $(VENV); }
	$(PY) -m pip install -q --require-hashes -r $(LOCK)
	$(PY) -m pip install -q --no-deps --no-build-isolation -e .
	@rm -f $(VENV)/.stamp-test
	@touch $@

# The test venv: the production one plus the test and browser extras, from their own lock.
$(VENV)/.stamp-test: $(VENV)/.stamp-production $(TEST_LOCK)
	$(PY) -m pip install -q --require-hashes -r $(TEST_LOCK)
	@touch $@

install: $(VENV)/.stamp-production
	@echo "$(VENV): tablehw $$($(TABLEHW) --version | cut -d' ' -f2) with the packages of $(LOCK) (no test or browser extras)"

venv: $(VENV)/.stamp-test

# Re-pin both locks from pyproject.toml's ranges: `make lock` keeps every pin that still fits and
# resolves only what changed (a dependency added); `make lock UPGRADE=1` moves every pin to the
# newest release in range. Then `make test` and commit both locks. pip-tools runs from a venv of
# its own, so the locks never pin it.
LOCK_FLAGS = -q --generate-hashes --allow-unsafe --all-build-deps --strip-extras --no-emit-index-url \
	--no-emit-find-links $(if $(UPGRADE),--upgrade)
lock:
	@[ -x .venv-tools/bin/pip-compile ] || { $(PYTHON) -m venv .venv-tools && .venv-tools/bin/pip install -q $(PIP_TOOLS); }
	.venv-tools/bin/pip-compile $(LOCK_FLAGS) -o $(LOCK) pyproject.toml
	.venv-tools/bin/pip-compile $(LOCK_FLAGS) --extra test --extra browser -c $(LOCK) -o $(TEST_LOCK) pyproject.toml

# docs/schema/: JSON Schemas of the config and every MQTT payload, from the msgspec types
# (tests/schema fails while they are stale).
schemas: $(VENV)/.stamp-production
	$(PY) -m firmware_host.schemas docs/schema

# Debian packages, installed with apt only when missing (a package without a command: dpkg knows it).
APT_MISSING = missing=""; for p in $(1); do command -v $$p >/dev/null || [ -x /usr/sbin/$$p ] || \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing with apt:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing </dev/null; \
	fi
apt-run:
	@$(call APT_MISSING,$(RUN_APT))
apt-test:
	@$(call APT_MISSING,$(TEST_APT))

# A simulated table end to end (tablehw run --simulate: devices, dealer, betting terminals over MQTT),
# one line per round and a summary. A loopback Mosquitto is started for the run if none answers on
# MQTT_PORT. A ledger books the rounds beside it (SQLite, LEDGER_DB) and its report of the session is
# printed at the end. GAME=craps|cussec|roulette|roulette_american|baccarat|banca_francesa|paikao|
#   blackjack|chemin_de_fer,
# ROUNDS=N stops after N rounds.
MQTT_PORT ?= 1883
LEDGER_DB ?= sqlite:///var/ledger.sqlite
PORT_OPEN = $(PY) -c "import socket; socket.create_connection(('127.0.0.1', $(MQTT_PORT)), 1)" 2>/dev/null
run: $(VENV)/.stamp-production apt-run
	@started=""; \
	if ! $(PORT_OPEN); then \
	  mkdir -p var; printf 'listener $(MQTT_PORT) 127.0.0.1\nallow_anonymous true\n' > var/mosquitto-run.conf; \
	  $$(command -v mosquitto || echo /usr/sbin/mosquitto) -c var/mosquitto-run.conf >var/mosquitto-run.log 2>&1 & started=$$!; \
	  for i in $$(seq 50); do $(PORT_OPEN) && break; sleep 0.1; done; \
	  echo "started a loopback Mosquitto on port $(MQTT_PORT) for this run (pid $$started)"; \
	fi; \
	since=$$(date -u +%Y-%m-%dT%H:%M:%S); mkdir -p var; \
	setsid $(TABLEHW) ledger --db $(LEDGER_DB) --mqtt mqtt://127.0.0.1:$(MQTT_PORT) --user backoffice \
	  --log-level WARNING 2>>var/ledger-run.log & ledger=$$!; \
	trap '[ -z "$$started" ] || { kill $$started; wait $$started; }' EXIT; trap : INT; \
	$(TABLEHW) run --config config/sim-$(GAME).toml --simulate --mqtt mqtt://127.0.0.1:$(MQTT_PORT) \
	  $(if $(ROUNDS),--rounds $(ROUNDS)) --log-level WARNING; \
	sleep 3; kill $$ledger; wait $$ledger; \
	echo; echo "the back office's books for this session (tablehw ledger report --db $(LEDGER_DB) --from $$since):"; \
	$(TABLEHW) ledger report --db $(LEDGER_DB) --from $$since

test: $(VENV)/.stamp-test apt-test
	$(PY) -m pytest -n 2 --dist loadfile --durations=25

# The reference result board (firmware_host/board/) in a browser, against a simulated table on a
# loopback Mosquitto with a websockets listener: GAME=craps|cussec|banca_francesa|roulette|baccarat|blackjack|chemin_de_fer.
board: $(VENV)/.stamp-production apt-run
	$(PY) -m firmware_host.boards.serve --game $(GAME)

bench: $(VENV)/.stamp-test apt-test
	$(PY) -m pytest tests/bench -q -s -p no:cacheprovider --timeout=1800 -o addopts=""

clean:
	rm -rf $(VENV) .venv-tools .pytest_cache .hypothesis
