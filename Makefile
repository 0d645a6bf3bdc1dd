# Two commands do all set-up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: install test demo lint clean

# torch is installed first with exactly this spelling: it picks the local CPU wheel; anything else
# would pull a multi-GB CUDA build.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e ".[all,test]"
	touch $(STAMP)

install: $(STAMP)

test: install
	$(PY) -m pytest -q -p no:cacheprovider

demo: install
	$(PY) -m bertscore_plugins.cli score -c bertscore_plugins/examples/demo_candidates.txt \
		-r bertscore_plugins/examples/demo_references.txt --explain

lint: install
	$(PY) -m ruff check bertscore_plugins tests recipes benchmarks

clean:
	rm -rf $(VENV) .phoenix-venv build dist *.egg-info
