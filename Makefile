# tablehw: two commands for a new machine — `make run` and `make test`.
# Everything they need is installed here (venv from PyPI, Mosquitto/socat from apt), so a
# clean clone on Debian / Raspberry Pi OS works with no step done by hand.

SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
TABLEHW := $(VENV)/bin/tablehw
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
APT_PACKAGES := mosquitto socat chromium fonts-noto-cjk postgresql
GAME ?= craps
ROUNDS ?=

.PHONY: run test bench board venv system-packages clean

# The venv is rebuilt when pyproject.toml changes (the stamp records what was installed).
$(VENV)/.stamp: pyproject.toml
	@$(PYTHON) -m venv $(VENV) 2>/dev/null || { \
	  echo "python3-venv missing: installing it with apt"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq python3-venv python3-pip; \
	  rm -rf $(VENV); $(PYTHON) -m venv $(VENV); }
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	@touch $@

venv: $(VENV)/.stamp

# Mosquitto (the broker the tests run on loopback) and socat (pty pairs) come from Debian; so do
# Chromium and a Chinese font for the board page (a package without a command: dpkg knows it) and
# PostgreSQL (the ledger's tests start throw-away clusters with its initdb/pg_ctl).
system-packages:
	@missing=""; for p in $(APT_PACKAGES); do command -v $$p >/dev/null || [ -x /usr/sbin/$$p ] || dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing with apt:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing </dev/null; \
	fi

# A simulated table end to end (tablehw run --simulate: devices, dealer, betting terminals over MQTT),
# one line per round. A loopback Mosquitto is started for the run if none answers on MQTT_PORT. A ledger
# books the rounds beside it (SQLite, LEDGER_DB) and its report of the session is printed at the end.
# GAME=craps|cussec|roulette|baccarat|banca_francesa, ROUNDS=N stops after N rounds.
MQTT_PORT ?= 1883
LEDGER_DB ?= sqlite:///var/ledger.sqlite
PORT_OPEN = $(PY) -c "import socket; socket.create_connection(('127.0.0.1', $(MQTT_PORT)), 1)" 2>/dev/null
run: venv system-packages
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

test: venv system-packages
	$(PY) -m pytest

# The reference result board (firmware_host/board/) in a browser, against a simulated table on a
# loopback Mosquitto with a websockets listener: GAME=craps|cussec|banca_francesa|roulette|baccarat.
board: venv system-packages
	$(PY) -m firmware_host.boards.serve --game $(GAME)

bench: venv system-packages
	$(PY) -m pytest tests/bench -q -s -p no:cacheprovider --timeout=1800 -o addopts=""

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
