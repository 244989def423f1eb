"""annotations/limits.py: one rate parser, the database window for runs and dataset levels, the cache window
for validation; each rate read from its environment variable."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rest_framework.test import APIClient

from annotations.api import throttles
from annotations.datasets import services
from annotations.errors import QuotaExceeded
from annotations.limits import Rate, check_level_quota, parse_rate, rate_of, validation_wait
from annotations.models import AnnotationSession, DatasetLevel
from bidsdata.archive import read_uploads
from tests.datasets.conftest import EVENTS, SIDECAR

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def small_files():
    """One task with five categorical levels."""
    return read_uploads([("sub-01_task-faces_run-1_events.tsv", EVENTS.encode()),
                         ("task-faces_events.json", json.dumps(SIDECAR).encode())])


def _settings_from(env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    """The rate settings as hedit_site/settings.py reads them from *env* at import, in a fresh process."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "HEDIT_"))}
    clean.update({"DJANGO_SETTINGS_MODULE": "hedit_site.settings", "HEDIT_STATE_DIR": str(tmp_path), **env})
    code = ("import json; from django.conf import settings; print(json.dumps({k: getattr(settings, k) for k in "
            "('HEDIT_RUN_RATE', 'HEDIT_DATASET_RATE', 'HEDIT_VALIDATE_RATE')}))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=clean, capture_output=True, text=True,
                          timeout=120, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_hedit_dataset_rate_is_read_from_the_environment(tmp_path):
    assert _settings_from({"HEDIT_DATASET_RATE": "3/day"}, tmp_path)["HEDIT_DATASET_RATE"] == "3/day"


def test_the_documented_defaults_apply_without_the_environment(tmp_path):
    assert _settings_from({}, tmp_path) == {"HEDIT_RUN_RATE": "60/hour", "HEDIT_DATASET_RATE": "2000/day",
                                            "HEDIT_VALIDATE_RATE": "60/minute"}


def test_a_dataset_rate_of_3_a_day_refuses_a_4_level_job(user, small_files, settings):
    settings.HEDIT_DATASET_RATE = "3/day"
    project = services.import_dataset(user=user, files=small_files, name="tiny")
    levels = list(DatasetLevel.objects.filter(column__task__project=project))
    assert len(levels) >= 4
    with pytest.raises(QuotaExceeded, match=r"3 per day \(HEDIT_DATASET_RATE\)") as refused:
        services.start_annotation(project, user=user, levels=levels[:4], enqueue=False)
    assert refused.value.status == 429 and refused.value.retry_after == 86400
    assert not AnnotationSession.objects.exists()  # checked for the whole job before any run is stored
    assert len(services.start_annotation(project, user=user, levels=levels[:3], enqueue=False)) == 3
    with pytest.raises(QuotaExceeded):
        check_level_quota(user, 1)


def test_validation_falls_back_to_60_a_minute(settings):
    del settings.HEDIT_VALIDATE_RATE
    assert rate_of("HEDIT_VALIDATE_RATE") == Rate(limit=60, seconds=60)


def test_the_page_and_the_api_count_validations_apart(user, settings):
    settings.HEDIT_VALIDATE_RATE = "1/minute"
    assert validation_wait(user, scope="page") == 0
    assert validation_wait(user, scope="page") > 0
    api = APIClient()
    api.force_authenticate(user)
    assert api.post("/api/validate/", {"hed": "Red"}, format="json").status_code == 200
    refused = api.post("/api/validate/", {"hed": "Red"}, format="json")
    assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1


def test_rates_parse_in_one_way():
    assert parse_rate("10/5m") == Rate(limit=10, seconds=300)
    assert parse_rate("3/day").label == "3 per day"
    assert parse_rate("none") is None


def test_one_rate_parser_in_one_module():
    """No copy of the rate parser (or a throttle of DRF's with its own) outside annotations/limits.py."""
    found = set()
    for path in [*ROOT.joinpath("annotations").rglob("*.py"), *ROOT.joinpath("hedit_site").rglob("*.py")]:
        text = path.read_text(encoding="utf-8")
        if re.search(r"def parse_rate\b|_PERIODS\s*=|UserRateThrottle|SimpleRateThrottle|DEFAULT_THROTTLE_RATES", text):
            found.add(path.relative_to(ROOT).as_posix())
    assert found == {"annotations/limits.py"}


def test_the_dead_session_create_throttle_is_gone():
    assert not hasattr(throttles, "SessionCreateThrottle")
