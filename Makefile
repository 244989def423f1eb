# One command to set up and run, one to test. Both create .venv on first use.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run setup test test-postgres lint evaluate bench clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]"
	touch $@

setup: $(VENV)/.installed

# Local development: DEBUG on unless DJANGO_DEBUG says otherwise (the settings default to off).
run: export DJANGO_DEBUG ?= true
run: setup
	$(PY) manage.py migrate --noinput
	$(PY) manage.py bootstrap_local --url http://$(HOST):$(PORT)/
	$(VENV)/bin/daphne -b $(HOST) -p $(PORT) hedit_site.asgi:application

test: setup
	bash scripts/install-test-deps $(PY)
	$(PY) -m pytest

test-postgres: setup
	bash scripts/install-test-deps $(PY)
	DATABASE_URL=postgres://postgres@127.0.0.1:5432/test $(PY) -m pytest

lint: setup
	$(VENV)/bin/ruff check .

evaluate: setup
	$(PY) manage.py evaluate ../shared/data/hed_gold_dev.csv --out pred.csv
	$(PY) ../shared/eval/score_hed.py ../shared/data/hed_gold_dev.csv pred.csv

# var/ is kept: it holds this install's generated secret key and key encryption key.
clean:
	rm -rf $(VENV) staticfiles
