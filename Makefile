# Two commands on a fresh machine:
#   make demo   install what the demo needs (extras DEMO_EXTRAS), then run the main job
#               (compliance check, tournament, trained agent)
#   make test   install everything (extras EXTRAS), then run the test suite
#   (make test-quick: a smaller install, the core suite, the rest skipped: a quicker first run)
# and, for one part alone:
#   make serve      the browser table (the demo's extras and web)
#   make notebooks  jupyter lab on notebooks/ (the extras the notebooks use)
#   make docs       the documentation site into site/ (open site/index.html)
#   make dist       the sdist and the wheel built from it, into dist/
VENV ?= .venv
PYTHON ?= python3
PY := $(VENV)/bin/python
EXTRAS ?= dev,train,arena,openspiel,web
# canasta demo plays the shipped agents with numpy; the arena extra draws and rates
DEMO_EXTRAS ?= arena
comma := ,
# one stamp per set of extras: `make test EXTRAS=...,scale` installs the extra set too
STAMP := $(VENV)/.installed-$(subst $(comma),-,$(EXTRAS))

.PHONY: install demo serve notebooks docs test test-quick soak check bench lint format dist clean

install: $(STAMP)

# the compiled core (csrc/, CMakeLists.txt) is built by the install: a change there rebuilds it.
# Its build tools go into the venv first (csrc/build_requires.py) and pip builds without its
# isolation, so the compile commands name the same paths every time and a reinstall of an
# unchanged checkout compiles nothing (the objects stay in build/{wheel_tag}).
PIP := $(PY) -m pip install --disable-pip-version-check --progress-bar on -c constraints.txt
$(STAMP): pyproject.toml constraints.txt CMakeLists.txt $(wildcard csrc/*)
	$(PYTHON) -m venv $(VENV)
	@echo "== the core's build tools"
	$(PIP) --quiet $$($(PY) csrc/build_requires.py)
	$(PIP) --quiet $$($(PY) csrc/build_requires.py --dynamic) pip
	@echo "== the package and its extras [$(EXTRAS)], then the compiled core (csrc/: a few"
	@echo "   minutes on 2 cores the first time, seconds on a reinstall)"
	$(PIP) --no-build-isolation -e ".[$(EXTRAS)]"
	@$(PY) -c "import importlib.util as u, sys; torch = u.find_spec('torch') and __import__('torch'); \
		sys.exit('torch must be a CPU build' if torch and torch.version.cuda else 0)"
	touch $@

demo:
	$(MAKE) install EXTRAS=$(DEMO_EXTRAS)
	$(VENV)/bin/canasta demo

serve:
	$(MAKE) install EXTRAS=$(DEMO_EXTRAS),web
	$(VENV)/bin/canasta serve

notebooks:
	$(MAKE) install EXTRAS=train,arena,notebooks
	$(VENV)/bin/jupyter lab notebooks/

# the documentation site (docs/conf.py: Sphinx, MyST, furo) into site/, warnings as errors.
# The docs extra's pinned tools go in beside the install that is there, read from
# pyproject.toml: asking pip for ".[docs]" would build and install the package again.
DOCS_TOOLS := $(VENV)/.installed-docs-tools
$(DOCS_TOOLS): pyproject.toml constraints.txt | $(STAMP)
	$(PY) -c "import tomllib; print(*tomllib.load(open('pyproject.toml', 'rb'))['project']['optional-dependencies']['docs'], sep='\n')" > $(VENV)/docs-requirements.txt
	$(PY) -m pip install --quiet --disable-pip-version-check -c constraints.txt -r $(VENV)/docs-requirements.txt
	touch $@

# from scratch: Sphinx reports a page's warnings only when it reads the page, so a rebuild
# over an old site/ would pass a page that failed before
docs: install $(DOCS_TOOLS)
	rm -rf site
	$(PY) -m sphinx -W --keep-going -q -b html -c docs . site
	@echo "the site: site/index.html"

test: install
	$(PY) -m pytest -q

# a quicker first run: the base, the arena extra and the test runner only (no torch,
# OpenSpiel, web, notebooks or Ray), then the suite; the parts not installed skip their tests
test-quick:
	$(MAKE) install EXTRAS=test,arena
	$(PY) -m pytest -q

soak: install
	$(PY) -m pytest -q -m slow

check: install
	$(VENV)/bin/canasta check

bench: install
	$(PY) benchmarks/bench.py
	$(PY) benchmarks/bench_core.py
	$(PY) benchmarks/bench_train.py
	$(PY) benchmarks/bench_turn_search.py
	$(PY) benchmarks/bench_bots.py
	$(PY) benchmarks/bench_vector_faces.py

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: install
	$(VENV)/bin/ruff format .

# the sdist, and the wheel built from it (python -m build): both into dist/
dist: install
	rm -rf dist
	$(PY) -m build --outdir dist .

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache arena_out site
