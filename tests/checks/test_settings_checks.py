"""Settings the environment gets wrong load anyway and are reported by Django's system checks."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from annotations.checks import check_llm_constraint, check_task_backend

ROOT = Path(__file__).resolve().parents[2]


def test_a_known_task_backend_passes(settings):
    settings.HEDIT_TASK_BACKEND = "database"
    assert check_task_backend() == []


def test_an_unknown_task_backend_is_reported(settings):
    settings.HEDIT_TASK_BACKEND = "celery"
    (error,) = check_task_backend()
    assert error.id == "annotations.E002" and "'celery'" in error.msg and "thread" in error.msg


@pytest.mark.parametrize("constraint", ["none", "json_schema", "JSON-SCHEMA", "llama_cpp", "llamacpp", "auto", ""])
def test_a_known_llm_constraint_passes(settings, constraint):
    settings.HEDIT_LLM = {**settings.HEDIT_LLM, "CONSTRAINT": constraint}
    assert check_llm_constraint() == []


def test_an_unknown_llm_constraint_is_reported(settings):
    settings.HEDIT_LLM = {**settings.HEDIT_LLM, "CONSTRAINT": "regex"}
    (error,) = check_llm_constraint()
    assert error.id == "annotations.E003" and "'regex'" in error.msg


def test_bad_values_load_and_manage_py_check_reports_each():
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "hedit_site.settings", "HEDIT_TASK_BACKEND": "celery",
           "HEDIT_LLM_CONSTRAINT": "regex", "HEDIT_UPLOAD_MAX_ROWS": "many"}
    done = subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 1
    for check_id in ("annotations.E001", "annotations.E002", "annotations.E003"):
        assert check_id in done.stderr
    assert "Traceback" not in done.stderr


def test_an_unknown_task_backend_falls_back_to_the_thread_pool():
    code = "from django.conf import settings; print(settings.TASKS['default']['BACKEND'])"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "hedit_site.settings", "HEDIT_TASK_BACKEND": "celery"}
    done = subprocess.run([sys.executable, "-c", f"import django; django.setup(); {code}"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.strip() == "annotations.runs.backends.ThreadPoolBackend"


def test_evaluation_set_size_and_concurrency_must_be_whole_numbers(settings):
    from annotations.checks import check_evaluation_settings
    from annotations.evaluation.batches import concurrency
    from annotations.evaluation.sets import max_items

    settings.HEDIT_EVALUATION_MAX_ITEMS, settings.HEDIT_EVALUATION_CONCURRENCY = "300", "3"
    assert check_evaluation_settings() == [] and (max_items(), concurrency()) == (300, 3)
    settings.HEDIT_EVALUATION_MAX_ITEMS, settings.HEDIT_EVALUATION_CONCURRENCY = "lots", "0"
    errors = check_evaluation_settings()
    assert [e.id for e in errors] == ["annotations.E005"] * 2 and "'lots'" in errors[0].msg
    assert (max_items(), concurrency()) == (500, 2)  # the defaults meanwhile: the settings still load


@pytest.mark.parametrize(("variable", "value"), [("DATABASE_POOL_SIZE", "abc"), ("HEDIT_RUN_WORKERS", "2.5"),
                                                 ("HEDIT_RUN_LEASE_SECONDS", "soon"), ("HEDIT_LLM_TIMEOUT", "inf")])
def test_a_variable_that_holds_no_number_is_a_check_error_not_a_traceback(variable, value):
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "hedit_site.settings",
           "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/unused", variable: value}
    done = subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 1
    assert "annotations.E006" in done.stderr and f"{variable} must be" in done.stderr and repr(value) in done.stderr
    assert "Traceback" not in done.stderr


def test_the_numeric_check_reports_each_noted_variable(settings):
    from annotations.checks import check_numeric_settings

    settings.HEDIT_SETTINGS_ERRORS = ["DATABASE_POOL_SIZE must be a whole number, not 'abc'"]
    (error,) = check_numeric_settings()
    assert error.id == "annotations.E006" and "DATABASE_POOL_SIZE" in error.msg
    settings.HEDIT_SETTINGS_ERRORS = []
    assert check_numeric_settings() == []
