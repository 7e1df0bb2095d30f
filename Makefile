# Two commands do all the set-up:  make lab  (open the course)  and  make test  (run every test).
# Both create .venv with the first Python >= 3.11 they find, and install the project into it.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
PYTHON ?= $(shell for p in python3.13 python3.12 python3.11 python3; do \
	command -v $$p >/dev/null 2>&1 && $$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null \
	&& { echo $$p; break; }; done)

.PHONY: lab test test-conformance bench bench-grading bench-spark site clean

$(STAMP): pyproject.toml
	@if [ -z "$(PYTHON)" ]; then echo "error: Python 3.11 or newer is needed (python3 --version); install it and retry." >&2; exit 1; fi
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --disable-pip-version-check --quiet --upgrade pip
	$(PY) -m pip install --disable-pip-version-check --quiet -e .
	@touch $(STAMP)

lab: $(STAMP)
	$(VENV)/bin/jupyter lab notebooks/00-start-here.ipynb

test: $(STAMP)
	TOPK_COURSE_PROGRESS=off OPENBLAS_NUM_THREADS=1 $(PY) -m pytest

# Opt-in: torchmetrics, Microsoft Recommenders and PySpark (needs Java 17) in their own venv,
# because recommenders pins pandas 2; re-records helpers/library_results/conformance.json.
CONF := .venv-conformance
test-conformance:
	test -x $(CONF)/bin/python || $(PYTHON) -m venv $(CONF)
	$(CONF)/bin/pip install --quiet torch==2.13.0
	$(CONF)/bin/pip install --quiet torchmetrics recommenders pyspark pytrec-eval-terrier ranx ir-measures scikit-learn pytest nbval hypothesis pyarrow
	PYTHONPATH=$(CURDIR) $(CONF)/bin/python -m pytest -m conformance -o addopts="--import-mode=importlib -p no:cacheprovider" tests/conformance
	PYTHONPATH=$(CURDIR) $(CONF)/bin/python -m helpers.libraries record

site: $(STAMP)
	$(PY) tools/build_site.py --out _site

bench: $(STAMP)
	$(PY) -m benchmarks.run

bench-grading: $(STAMP)
	$(PY) benchmarks/grading.py

# issue 16: helpers.spark vs Spark's own RankingEvaluator/RankingMetrics on local[2] (needs Java 17; about 25 min)
bench-spark: $(STAMP)
	$(PY) -m pip install --disable-pip-version-check --quiet -e ".[spark]"
	set -o pipefail; $(PY) -m benchmarks.spark | tee benchmarks/last_run_spark.txt

clean:
	rm -rf $(VENV) build *.egg-info
