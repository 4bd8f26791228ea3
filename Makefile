# cogforge: the two commands people need are `make build-carv` and `make test`.
# Each bootstraps what it needs on first use (Debian packages, .venv, Python
# packages) and is a quick no-op for set-up afterwards.

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# Debian packages the toolkit loads at run time.
APT_PACKAGES := libcairo2

.PHONY: setup build-carv test bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml requirements.lock
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
	  { echo "cogforge needs Python >= 3.11 as $(PYTHON) (set PYTHON=...)"; exit 1; }
	@missing=$$(for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages: $$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -r requirements.lock
	$(PY) -m pip install -q --disable-pip-version-check --no-deps -e .
	@touch $@

build-carv: $(STAMP)
	$(VENV)/bin/cogforge build carv

test: $(STAMP)
	$(PY) -m pytest

bench: $(STAMP)
	$(PY) -m cogforge.bench

clean:
	rm -rf build .pytest_cache
