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

.PHONY: setup build-carv qc release test bench clean

BENCH ?= carv

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

qc: $(STAMP)
	$(VENV)/bin/cogforge qc build/$(BENCH)

# make release BENCH=carv VERSION=1.0.0
release: $(STAMP)
	@test -n "$(VERSION)" || { echo "usage: make release BENCH=carv VERSION=X.Y.Z"; exit 2; }
	$(VENV)/bin/cogforge release build/$(BENCH) --version $(VERSION)

test: $(STAMP)
	$(PY) -m pytest

bench: $(STAMP)
	$(PY) -m cogforge.bench

clean:
	rm -rf build .pytest_cache  # releases/ are kept: they are immutable
