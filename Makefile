# cogforge: the two commands people need are `make build-carv` and `make test`.
# Each bootstraps what it needs on first use (Debian packages, .venv, Python
# packages) and is a quick no-op for set-up afterwards.

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# Debian packages the toolkit loads at run time (cairo for CARV's renderer; WordNet
# 3.0 and the colour emoji font for CONSTRUCTURE and the symbols' emoji rebuses; DejaVu for
# the circuit labels that cairosvg draws; AR PL UKai, a Kai-style Chinese font, for the
# punctuation of the symbols' handwritten sentences), and those the tests drive:
# a real browser for the annotation UI test and a real PostgreSQL server.
APT_PACKAGES := libcairo2 wordnet-base wordnet-sense-index fonts-noto-color-emoji fonts-dejavu-core fonts-arphic-ukai
TEST_APT_PACKAGES := chromium postgresql
LS_VENV := .venv-ls
LS_STAMP := $(LS_VENV)/.installed
TEST_STAMP := $(VENV)/.test-installed
REFINE_STAMP := $(VENV)/.refine-installed
VERIFIERS_STAMP := $(VENV)/.verifiers-installed
INSPECT_VENV := .venv-inspect
INSPECT_STAMP := $(INSPECT_VENV)/.installed
LMMS_VENV := .venv-lmms
LMMS_STAMP := $(LMMS_VENV)/.installed
DATASETS3_VENV := .venv-datasets3
DATASETS3_STAMP := $(DATASETS3_VENV)/.installed
WHEEL := dist/cogforge-$(shell sed -n 's/^version = "\(.*\)"/\1/p' pyproject.toml)-py3-none-any.whl
# CogEvolve's core drawings: Twemoji SVGs (graphics CC-BY 4.0) from the npm registry,
# pinned by version and checked by hash.
TWEMOJI_VERSION := 15.0.0
TWEMOJI_SHA256 := 1d2907557a422c7c4e3feca50ef915c39da1db3d76b4a4d7e73fb59bce4403c3
TWEMOJI_DIR := .cache/twemoji
TWEMOJI_STAMP := $(TWEMOJI_DIR)/.installed
# The symbols' handwritten Chinese: per-character stroke data (Make Me a Hanzi, from Arphic's
# fonts; Arphic Public License) from the npm registry, pinned by version and checked by hash.
HANZI_VERSION := 2.0.1
HANZI_SHA256 := 72baf3d82b114e60d6e40ea05f24d2262a05cd39d544e2f322ba2fceb7beff15
HANZI_DIR := .cache/hanzi-writer-data
HANZI_STAMP := $(HANZI_DIR)/.installed

# the same, as one shell command (inside a recipe line)
apt_install_inline = { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(1) >/dev/null; }

define apt_install
	@missing=$$(for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages: $$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi
endef

.PHONY: setup setup-refine setup-verifiers setup-inspect setup-label-studio setup-twemoji setup-hanzi setup-lmms-eval wheel build-carv build-constructure build-cogevolve build-symbols build-corecognition qc release annotate test bench clean

BENCH ?= carv

setup: $(STAMP)

$(STAMP): pyproject.toml requirements.lock
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
	  { echo "cogforge needs Python >= 3.11 as $(PYTHON) (set PYTHON=...)"; exit 1; }
	$(call apt_install,$(APT_PACKAGES))
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -r requirements.lock
	$(PY) -m pip install -q --disable-pip-version-check --no-deps -e .
	@touch $@

# cogforge[refine]: torch (the CPU build from the machine's wheel cache), diffusers and
# transformers, for the diffusers refinement backend (`--renderer refine`). `make test` installs
# it; `make build-carv` stays light without it. The lock pins every distribution it adds.
$(REFINE_STAMP): $(STAMP) requirements-refine.lock
	$(PY) -m pip install -q --disable-pip-version-check --no-deps --no-compile -r requirements-refine.lock
	@touch $@

setup-refine: $(REFINE_STAMP)

# verifiers 0.4.0 for the training environments' verifiers adapter, on top of the refine stamp
# (it needs transformers); the lock pins every distribution it adds ("Train with cogforge").
$(VERIFIERS_STAMP): $(STAMP) $(REFINE_STAMP) requirements-verifiers.lock
	$(PY) -m pip install -q --disable-pip-version-check --no-deps --no-compile -r requirements-verifiers.lock
	@touch $@

setup-verifiers: $(VERIFIERS_STAMP)

# inspect_ai 0.3.285 for the inspect adapter: it asks fsspec <= 2026.6.0 and openai >= 3.4 (the
# main lock has fsspec 2026.9.0, verifiers openai < 3), so it has an environment of its own with
# cogforge's runtime pins (two deviations, noted in the lock). cogforge goes in as a wheel, as
# in .venv-lmms: `make wheel`, or the tests' own build of it.
$(INSPECT_STAMP): requirements-inspect.lock
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
	  { echo "cogforge needs Python >= 3.11 as $(PYTHON) (set PYTHON=...)"; exit 1; }
	rm -rf $(INSPECT_VENV) && $(PYTHON) -m venv $(INSPECT_VENV)
	$(INSPECT_VENV)/bin/python -m pip install -q --disable-pip-version-check --no-deps --no-compile \
	  -r requirements-inspect.lock
	@touch $@

setup-inspect: $(INSPECT_STAMP)

# The Label Studio server pins its own SDK, so it lives in a virtual environment of its own.
$(LS_STAMP): annotation/requirements-label-studio.lock
	@test -x $(LS_VENV)/bin/python || $(PYTHON) -m venv $(LS_VENV)
	$(LS_VENV)/bin/python -m pip install -q --disable-pip-version-check -r annotation/requirements-label-studio.lock
	@touch $@

setup-label-studio: $(LS_STAMP)

# The tests' Label Studio database, migrated once: a new SQLite database takes Label Studio's
# start a minute or more on two cores, all of it migrations (`label-studio version` applies them
# and exits, creating no user). The session's server starts from a copy in seconds
# (tests/conftest.py); a stale copy is migrated the rest of the way by the start itself.
LS_DB_TEMPLATE := .cache/label-studio-db/label_studio.sqlite3
$(LS_DB_TEMPLATE): $(LS_STAMP)
	@rm -rf $(@D).tmp && mkdir -p $(@D).tmp
	LABEL_STUDIO_BASE_DATA_DIR="$(CURDIR)/$(@D).tmp" DJANGO_DB=sqlite SENTRY_DSN= \
	  COLLECT_ANALYTICS=false LATEST_VERSION_CHECK=false \
	  "$(CURDIR)/$(LS_VENV)/bin/label-studio" version --data-dir "$(CURDIR)/$(@D).tmp" \
	  >$(@D).tmp/migrate.log 2>&1 || { cat $(@D).tmp/migrate.log; exit 1; }
	@mkdir -p $(@D) && mv $(@D).tmp/label_studio.sqlite3 $@ && rm -rf $(@D).tmp

# The same on PostgreSQL, as a dump the team-option test loads (tests/postgres.py).
LS_PG_DUMP := .cache/label-studio-db/postgres.sql
$(LS_PG_DUMP): $(LS_STAMP) $(TEST_STAMP) tests/postgres.py
	$(PY) tests/postgres.py dump $@

# cogforge beside the field's tools: cogforge's pins, lmms-eval 0.7.3 with its own dependencies
# and Hugging Face's evaluate and datasets, in one environment (the lock says what it leaves
# out and why). cogforge goes in as a wheel: `make wheel`, or the tests' own build of it. The
# lock pins every distribution, so it installs with --no-deps into a new environment each time
# it changes (the stamp depends on it): nothing of an older lock stays behind. --no-compile:
# Python compiles what is imported on first use; compiling all of torch and transformers at
# install time tripled the time from scratch (2 min 17 s against 6 min 30 s on two cores).
$(LMMS_STAMP): exports/requirements-lmms-eval.lock
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
	  { echo "cogforge needs Python >= 3.11 as $(PYTHON) (set PYTHON=...)"; exit 1; }
	rm -rf $(LMMS_VENV) && $(PYTHON) -m venv $(LMMS_VENV)
	$(LMMS_VENV)/bin/python -m pip install -q --disable-pip-version-check --no-deps --no-compile \
	  -r exports/requirements-lmms-eval.lock
	@touch $@

setup-lmms-eval: $(LMMS_STAMP)

# datasets 3.6 alone, for the test that loads every release on the 3.x line (see the lock).
$(DATASETS3_STAMP): exports/requirements-datasets3.lock
	rm -rf $(DATASETS3_VENV) && $(PYTHON) -m venv $(DATASETS3_VENV)
	$(DATASETS3_VENV)/bin/python -m pip install -q --disable-pip-version-check --no-deps --no-compile \
	  -r exports/requirements-datasets3.lock
	@touch $@

# cogforge's wheel, built by `python -m build` (an sdist, then the wheel from it) with the
# setuptools that requirements.lock pins, and installed into .venv-lmms beside lmms-eval and
# into .venv-inspect beside inspect_ai.
wheel: $(STAMP) $(LMMS_STAMP) $(INSPECT_STAMP)
	$(PY) -m build --no-isolation --outdir dist .
	$(LMMS_VENV)/bin/python -m pip install -q --disable-pip-version-check --no-deps --force-reinstall $(WHEEL)
	$(INSPECT_VENV)/bin/python -m pip install -q --disable-pip-version-check --no-deps --force-reinstall $(WHEEL)

$(TWEMOJI_STAMP):
	@command -v npm >/dev/null || $(call apt_install_inline,npm)
	@rm -rf $(TWEMOJI_DIR).tmp && mkdir -p $(TWEMOJI_DIR).tmp
	cd $(TWEMOJI_DIR).tmp && npm pack --silent @twemoji/svg@$(TWEMOJI_VERSION) >/dev/null
	@echo "$(TWEMOJI_SHA256)  $(TWEMOJI_DIR).tmp/twemoji-svg-$(TWEMOJI_VERSION).tgz" | sha256sum -c --quiet
	tar -xzf $(TWEMOJI_DIR).tmp/twemoji-svg-$(TWEMOJI_VERSION).tgz -C $(TWEMOJI_DIR).tmp
	@rm -rf $(TWEMOJI_DIR) && mv $(TWEMOJI_DIR).tmp/package $(TWEMOJI_DIR) && rm -rf $(TWEMOJI_DIR).tmp
	@touch $@

setup-twemoji: $(TWEMOJI_STAMP)

$(HANZI_STAMP):
	@command -v npm >/dev/null || $(call apt_install_inline,npm)
	@rm -rf $(HANZI_DIR).tmp && mkdir -p $(HANZI_DIR).tmp
	cd $(HANZI_DIR).tmp && npm pack --silent hanzi-writer-data@$(HANZI_VERSION) >/dev/null
	@echo "$(HANZI_SHA256)  $(HANZI_DIR).tmp/hanzi-writer-data-$(HANZI_VERSION).tgz" | sha256sum -c --quiet
	tar -xzf $(HANZI_DIR).tmp/hanzi-writer-data-$(HANZI_VERSION).tgz -C $(HANZI_DIR).tmp
	@rm -rf $(HANZI_DIR) && mv $(HANZI_DIR).tmp/package $(HANZI_DIR) && rm -rf $(HANZI_DIR).tmp
	@touch $@

setup-hanzi: $(HANZI_STAMP)

$(TEST_STAMP): $(STAMP)
	$(call apt_install,$(TEST_APT_PACKAGES))
	@touch $@

build-carv: $(STAMP)
	$(VENV)/bin/cogforge build carv

build-constructure: $(STAMP)
	$(VENV)/bin/cogforge build constructure

build-cogevolve: $(STAMP) $(TWEMOJI_STAMP)
	$(VENV)/bin/cogforge build cogevolve

# DOMAINS=chemistry,... builds some domains only
build-symbols: $(STAMP) $(HANZI_STAMP)
	$(VENV)/bin/cogforge build symbols $(if $(DOMAINS),--domains $(DOMAINS))

build-corecognition: $(STAMP)
	$(VENV)/bin/cogforge build corecognition

qc: $(STAMP)
	$(VENV)/bin/cogforge qc build/$(BENCH)

# make release BENCH=carv VERSION=1.0.0
release: $(STAMP)
	@test -n "$(VERSION)" || { echo "usage: make release BENCH=carv VERSION=X.Y.Z"; exit 2; }
	$(VENV)/bin/cogforge release build/$(BENCH) --version $(VERSION)

# Starts Label Studio on http://127.0.0.1:8080 (PORT=..., HOST=0.0.0.0 to open it to a
# network on purpose) and prints how to log in.
annotate: $(STAMP) $(LS_STAMP)
	$(VENV)/bin/cogforge annotate serve --port $(or $(PORT),8080) --host $(or $(HOST),127.0.0.1)

# The suite runs in TEST_WORKERS pytest-xdist workers (2: this project's CI machine has two
# cores); tests/conftest.py says how the workers share the full builds. TEST_WORKERS=0: one process.
TEST_WORKERS ?= 2
test: $(STAMP) $(REFINE_STAMP) $(LS_STAMP) $(LS_DB_TEMPLATE) $(LS_PG_DUMP) $(LMMS_STAMP) $(INSPECT_STAMP) $(VERIFIERS_STAMP) $(DATASETS3_STAMP) $(TEST_STAMP) $(TWEMOJI_STAMP) $(HANZI_STAMP)
	$(PY) -m pytest $(if $(filter-out 0,$(TEST_WORKERS)),-n $(TEST_WORKERS) --dist loadscope)

bench: $(STAMP) $(REFINE_STAMP) $(TWEMOJI_STAMP) $(HANZI_STAMP)
	$(PY) -m cogforge.bench

clean:
	rm -rf build dist .pytest_cache .cache  # releases/ are kept: they are immutable
