# Two commands do all the set-up:  make lab  (open the course)  and  make test  (run every test).
# Both create .venv with the first Python >= 3.11 they find (or PYTHON=/path/to/python3.12), and install
# the library (topkeval/) and the course package (helpers/, this folder) into it, editable, with the extras
# they need: lab the `course` extra, test `all`.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
LAB_STAMP := $(VENV)/.course-stamp
STAMP := $(VENV)/.all-stamp
# The library's second leg: its tests (not the notebooks) on the oldest pandas it supports.
P2 := .venv-pandas2
P2_STAMP := $(P2)/.stamp
PYTHON ?= $(shell for p in python3.13 python3.12 python3.11 python3; do \
	command -v $$p >/dev/null 2>&1 && $$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null \
	&& { echo $$p; break; }; done)

.PHONY: lab learner-release test ml100k-wheel test-summation-order test-pandas2 lint test-conformance bench bench-shapes bench-grading bench-spark site docs clean

define make_venv
	@if [ -z "$(PYTHON)" ]; then echo "error: Python 3.11 or newer is needed (python3 --version); install it and retry." >&2; exit 1; fi
	@test -x $(1)/bin/python || $(PYTHON) -m venv $(1)
	$(1)/bin/python -m pip install --disable-pip-version-check --quiet --upgrade pip
endef

$(LAB_STAMP): pyproject.toml topkeval/pyproject.toml
	$(call make_venv,$(VENV))
	$(PY) -m pip install --disable-pip-version-check --quiet -e ./topkeval -e ".[course]"
	@touch $(LAB_STAMP)

$(STAMP): pyproject.toml topkeval/pyproject.toml
	$(call make_venv,$(VENV))
	$(PY) -m pip install --disable-pip-version-check --quiet -e ./topkeval -e ".[all]"
	@touch $(STAMP) $(LAB_STAMP)

$(P2_STAMP): topkeval/pyproject.toml Makefile
	$(call make_venv,$(P2))
	$(P2)/bin/python -m pip install --disable-pip-version-check --quiet "pandas==2.2.*" "pytest>=8" "hypothesis>=6" \
		"polars>=1" -e "./topkeval[arrow]"
	@touch $(P2_STAMP)

# Serves the repository root (notebooks/ and exercises/), opens notebook 00, with Binder's settings;
# --allow-root only as root. More jupyter lab options: make lab LAB_ARGS="--no-browser --port=8890".
lab: $(LAB_STAMP)
	$(PY) tools/lab.py $(LAB_ARGS)

# What an instructor publishes to learners: the course, the library, the learner versions of the assignments,
# no answer key (tools/learner_release.py). DEST must be a new folder; RELEASE_ARGS="--scan" also grades every
# notebook and .py file of the release against every assignment and fails if one scores above the blank one.
learner-release: $(LAB_STAMP)
	$(if $(DEST),,$(error usage: make learner-release DEST=new-folder [RELEASE_ARGS=--scan]))
	$(PY) tools/learner_release.py "$(DEST)" $(RELEASE_ARGS)

# pytest runs on $(TEST_WORKERS) workers (pytest-xdist): a test goes to whichever is free, except the units
# tests/conftest.py's xdist_scope keeps whole on one worker (a notebook, the browser test, Spark, a module with
# a shared fixture). TEST_WORKERS=1 runs everything in one process, in order. The tests marked `serial` run
# after, alone (the grading corpus: two sandboxes at a time under 4-second wall-clock limits).
TEST_WORKERS ?= 2
XDIST = $(if $(filter-out 1,$(TEST_WORKERS)),-n $(TEST_WORKERS) --dist loadscope)

test: $(STAMP) $(P2_STAMP) ml100k-wheel trec-eval-suite
	$(PY) -m ruff check .
	TOPK_COURSE_PROGRESS=off OPENBLAS_NUM_THREADS=1 $(PY) -m pytest $(XDIST) -m "not conformance and not serial"
	TOPK_COURSE_PROGRESS=off OPENBLAS_NUM_THREADS=1 $(PY) -m pytest -m "serial and not conformance"
	$(MAKE) --no-print-directory test-summation-order
	$(MAKE) --no-print-directory test-pandas2

# The notebooks again, with floating-point sums taken in another order than the first run's (NumPy's vector
# extensions narrower, another OpenBLAS kernel): a committed output whose digits depend on the
# machine fails here, not on a newcomer's CPU (tools/summation_order.py; tests/test_notebook_numbers_stable.py).
test-summation-order: $(STAMP)
	TOPK_COURSE_PROGRESS=off $(PY) tools/summation_order.py -- $(PY) -m pytest -q $(XDIST) --nbval-cell-timeout=300 \
		notebooks

# The real MovieLens 100K ratings the tests and the capstone notebook's nbval run use, without the internet at
# test time: the RecBole 1.2.1 wheel ships them (recbole/dataset_example/ml-100k/ml-100k.inter). It is downloaded
# here, never installed; tests/movielens_wheel.py reads it. Offline, the real-data tests are SKIPPED loudly
# (and FAIL under CI=true, .ci/run's setting).
ML100K_WHEEL := .cache/wheels/recbole-1.2.1-py3-none-any.whl
ml100k-wheel: $(STAMP)
	@test -f $(ML100K_WHEEL) || $(PY) -m pip download --disable-pip-version-check --quiet --no-deps \
		recbole==1.2.1 -d .cache/wheels || echo "make: WARNING: could not download the RecBole 1.2.1 wheel;" \
		"the real MovieLens 100K tests will be SKIPPED (and FAIL under CI=true)." >&2

# The library's tests and doctests on pandas 2.2 (with pyarrow; no notebooks, no peer libraries): seconds.
# The static gates (mypy, numpydoc, radon: tests/library/test_gates.py) and the doctests of the dask and spark
# modules (their extras are not installed here) run in the main leg.
test-pandas2: $(P2_STAMP)
	OPENBLAS_NUM_THREADS=1 $(P2)/bin/python -m pytest -c /dev/null --rootdir=. -q -p no:cacheprovider \
		--import-mode=importlib --doctest-modules -o doctest_optionflags="NORMALIZE_WHITESPACE NUMBER" \
		-o markers="compare: needs a peer library" -rs -m "not compare" --ignore=tests/library/test_agreement.py --ignore=tests/library/test_gates.py tests/library \
		$(filter-out %/dask.py %/spark.py,$(wildcard topkeval/src/topkeval/*.py))

lint: $(STAMP)
	$(PY) -m ruff check .

# Opt-in: torchmetrics, Microsoft Recommenders and PySpark (needs Java 17) in their own venv,
# because recommenders pins pandas 2; re-records helpers/experiments/results/conformance.json.
CONF := .venv-conformance
test-conformance:
	test -x $(CONF)/bin/python || $(PYTHON) -m venv $(CONF)
	$(CONF)/bin/pip install --quiet torch==2.13.0
	$(CONF)/bin/pip install --quiet torchmetrics recommenders pyspark pytrec-eval-terrier ranx ir-measures scikit-learn pytest nbval hypothesis pyarrow
	PYTHONPATH=$(CURDIR):$(CURDIR)/topkeval/src $(CONF)/bin/python -m pytest -m conformance -o addopts="--import-mode=importlib -p no:cacheprovider" tests/conformance
	PYTHONPATH=$(CURDIR):$(CURDIR)/topkeval/src $(CONF)/bin/python tools/record_peer_results.py

site: $(STAMP)
	$(PY) tools/build_site.py --out _site

# the API reference and user guide of topkeval (Sphinx + numpydoc), into docs/_build/html; tests/test_docs.py
# builds it the same way inside make test
docs: $(STAMP)
	$(PY) -m sphinx -W --keep-going -E -b html docs docs/_build/html

bench: $(STAMP)
	$(PY) -m benchmarks.run
	set -o pipefail; $(PY) -m benchmarks.trec | tee benchmarks/last_run_trec.txt

# the leave-one-out and 10-relevant shapes (README's speed table quotes this file; about 15 min quiet)
bench-shapes: $(STAMP)
	set -o pipefail; for r in 1 10; do $(PY) -m benchmarks.run --relevant $$r --users 200000 --k 10 100 \
		--repeats 1 --libraries str --peers pytrec_eval --memory inline; done | tee benchmarks/last_run_shapes.txt

bench-grading: $(STAMP)
	$(PY) benchmarks/grading.py

# helpers.spark vs Spark's own RankingEvaluator/RankingMetrics on local[2] (needs Java 17; about 25 min)
bench-spark: $(STAMP)
	$(PY) -m pip install --disable-pip-version-check --quiet -e "./topkeval[spark]"
	set -o pipefail; $(PY) -m benchmarks.spark | tee benchmarks/last_run_spark.txt

clean:
	rm -rf $(VENV) $(P2) build dist *.egg-info topkeval/build topkeval/dist topkeval/src/*.egg-info

# trec_eval's own test suite (tests/library/test_treceval.py): the quicktest commands of trec_eval's Makefile and
# the expected outputs in its test/ folder. No package registry ships them (pytrec_eval's sdists download trec_eval
# while they build), so this downloads (never installs, never commits) trec_eval 10.0's Makefile and test/ from
# GitHub into .cache/trec_eval, checked file by file (tools/trec_eval_suite.py). Offline, or where GitHub is
# unreachable, the test is SKIPPED loudly.
.PHONY: trec-eval-suite
trec-eval-suite: $(STAMP)
	@$(PY) tools/trec_eval_suite.py
