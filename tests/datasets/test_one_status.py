"""One status: the header, the filters, the task cards and the API count the same states; a task's verdict shows
validity and the rows passing side by side and never reads as done while most rows fail."""

from __future__ import annotations

import json
import re

import pytest

from annotations.datasets import services
from annotations.datasets.results import refresh_sidecar
from annotations.datasets.selectors import task_verdict, without_hed
from annotations.models import AnnotationSession, DatasetLevel, SessionStatus, SidecarResult
from bidsdata.archive import read_uploads

pytestmark = pytest.mark.django_db

DUMMY_TASKS = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}
EVENTS = "onset\tduration\tcue\n1\tn/a\tgo\n2\tn/a\tstop\n3\tn/a\tgo\n"
HED = "Sensory-event, Visual-presentation, Experimental-stimulus, (Green, Circle)"


def _project(user, *, described: bool):
    """One task with one column ``cue`` (go, stop); *described*: the upload says what each level means."""
    sidecar = {"cue": {"Levels": {"go": "A green circle tells the participant to move.",
                                  "stop": "A red square tells the participant to stay still."}}} if described else {}
    files = read_uploads([("sub-01_task-t_events.tsv", EVENTS.encode()),
                          ("task-t_events.json", json.dumps(sidecar).encode())])
    return services.import_dataset(user=user, files=files, name="p")


def _annotate_all(project, user, hed: str = HED) -> None:
    levels = list(DatasetLevel.objects.filter(column__task__project=project))
    for session in services.create_level_sessions(project, levels, user=user):
        AnnotationSession.objects.filter(pk=session.pk).update(status=SessionStatus.SUCCEEDED, is_valid=True,
                                                               final_annotation=hed, machine_annotation=hed)


def _filters(page: str) -> dict[str, int]:
    return {name: int(n) for name, n in re.findall(r'id="count-(\w+)"[^>]*>[^<]*<span class="ds-count">(\d+)', page)}


def test_header_filters_and_api_agree_on_levels_nobody_described(client, user, settings):
    settings.TASKS = DUMMY_TASKS
    project = _project(user, described=False)
    _annotate_all(project, user)  # every run valid, but nobody said what go and stop mean
    client.force_login(user)
    page = client.get(project.get_absolute_url()).content.decode()
    header = re.search(r'id="summary-valid">(\d+) valid', page)
    assert header and header.group(1) == "0"  # it said "2 valid" beside a filter "Valid 0"
    assert 'id="summary-needs_description">2 need a description' in page
    filters = _filters(page)
    assert filters["valid"] == 0 and filters["needs_description"] == 2
    detail = client.get(f"/api/datasets/{project.pk}/").json()["progress"]
    listed = client.get("/api/datasets/").json()["results"][0]["progress"]
    for figures in (detail, listed):
        assert figures["valid"] == 0 and figures["done"] == 2
        assert figures["states"] == {"pending": 0, "running": 0, "valid": 0, "invalid": 0, "reviewed": 0,
                                     "needs_description": 2}


def test_described_levels_count_valid_everywhere(client, user, settings):
    settings.TASKS = DUMMY_TASKS
    project = _project(user, described=True)
    _annotate_all(project, user)
    client.force_login(user)
    page = client.get(project.get_absolute_url()).content.decode()
    assert 'id="summary-valid">2 valid' in page and _filters(page)["valid"] == 2
    assert client.get("/api/datasets/").json()["results"][0]["progress"]["states"]["valid"] == 2


def test_a_valid_task_whose_rows_mostly_fail_reads_as_needing_work(client, user, settings):
    settings.TASKS = DUMMY_TASKS
    project = _project(user, described=True)
    _annotate_all(project, user)
    task = project.tasks.get()
    assert refresh_sidecar(project, task).is_valid
    row = SidecarResult.objects.get(task=task)
    row.quality = {**row.quality, "figures": {**row.quality["figures"], "rows": 100, "rows_hed": 100, "rows_ok": 19}}
    row.save()
    client.force_login(user)
    panel = client.get(f"/datasets/{project.pk}/tasks/t/quality/").content.decode()
    verdict = re.search(r'id="verdict-t" data-verdict="(\w+)" data-label="([^"]*)">([^<]*)<', panel)
    assert verdict and verdict.groups() == (
        "needs_work", "Valid - 100 of 100 rows annotated - 19 of 100 rows pass the event checks", "Valid")
    assert "19 of 100 rows pass the event checks" in panel  # beside the badge, not in a tooltip only
    assert 'id="task-states-t">2 valid' in panel  # the task card counts the filters' states
    quality = client.get(f"/api/datasets/{project.pk}/?quality=1").json()["tasks"][0]["quality"]
    assert quality["verdict"]["state"] == "needs_work" and quality["verdict"]["done"] is False
    assert quality["states"]["valid"] == 2


def test_the_verdict_puts_validity_and_rows_side_by_side():
    assert task_verdict(valid=True, pending=False, rows=100, rows_ok=19, rows_hed=100).label == (
        "Valid - 100 of 100 rows annotated - 19 of 100 rows pass the event checks")
    mostly_passing = task_verdict(valid=True, pending=False, rows=10, rows_ok=9, rows_hed=10)
    assert mostly_passing.label == "Valid - 10 of 10 rows annotated - 9 of 10 rows pass the event checks"
    assert mostly_passing.done
    assert task_verdict(valid=False, pending=False, rows=10, rows_ok=10).state == "invalid"
    assert task_verdict(valid=True, pending=True).state == "validating"


def test_a_valid_sidecar_with_levels_left_without_hed_says_so_and_is_not_done():
    # hedtools accepts the sidecar, but two levels wait for the lab: neither "not valid" nor plainly "valid".
    verdict = task_verdict(valid=True, pending=False, rows=10, rows_ok=10, unanswered=2)
    assert verdict.state == "awaiting_answers" and verdict.done is False
    assert verdict.label == "Valid - 2 levels without HED yet - 10 of 10 rows pass the event checks"
    assert task_verdict(valid=True, pending=False, rows=10, rows_ok=10, rows_hed=10).state == "valid"


def test_the_verdict_counts_levels_and_columns_apart():
    """A value column left without a template is no level: the verdict says what is left, in words."""
    verdict = task_verdict(valid=True, pending=False, rows=10, rows_ok=10, unanswered=5, unanswered_columns=3)
    assert verdict.label.startswith("Valid - 2 levels and 3 columns without HED yet")
    assert without_hed(0, 1) == "1 column" and without_hed(1, 0) == "1 level"
