"""A task's verdict says no more than is true: validity beside the rows with HED, the rows passing and the levels that
need a description, on the task card, the sidecar page, the level page and the API. A sidecar hedtools accepts while
no row gets HED, or whose levels differ only by a name or carry only generic tags, is never "Valid" in green."""

from __future__ import annotations

import json
import re

import pytest
from rest_framework.test import APIClient

from annotations.datasets import services
from annotations.datasets.results import refresh_project
from annotations.models import AnnotationSession, DatasetLevel, SessionStatus
from bidsdata.archive import read_uploads
from bidsdata.quality import quality

pytestmark = pytest.mark.django_db
DUMMY_TASKS = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}
DESCRIBED = {"Levels": {"hop": "A frog jumps across the screen from left to right.",
                        "stay": "A frog sits still in the centre of the screen."}}
# Two levels one name apart, and (with a third) one of generic tags only: valid HED that says little.
BY_NAME = {"hop": "Sensory-event, Experimental-stimulus, Visual-presentation, Label/hop",
           "stay": "Sensory-event, Experimental-stimulus, Visual-presentation, Label/stay"}
MEANT = {"hop": "Sensory-event, Experimental-stimulus, Visual-presentation, (Animal, Move)",
         "stay": "Sensory-event, Experimental-stimulus, Visual-presentation, (Animal, Jump)"}


def _project(user, rows: str, sidecar: dict):
    files = read_uploads([
        ("dataset_description.json", json.dumps({"Name": "frogs", "BIDSVersion": "1.8.0", "HEDVersion": "8.4.0"})
         .encode()),
        ("sub-01_task-frogs_events.tsv", ("onset\tduration\tfrog\n" + rows).encode()),
        ("task-frogs_events.json", json.dumps({"frog": sidecar}).encode())])
    return services.import_dataset(user=user, files=files, name="frogs")


def _annotate(project, user, hed: dict[str, str]) -> None:
    levels = list(DatasetLevel.objects.filter(column__task__project=project).order_by("value"))
    for level, session in zip(levels, services.create_level_sessions(project, levels, user=user), strict=True):
        text = hed[level.value]
        AnnotationSession.objects.filter(pk=session.pk).update(status=SessionStatus.SUCCEEDED, is_valid=True,
                                                               final_annotation=text, machine_annotation=text)


def _verdicts(client, project) -> tuple[re.Match, str, dict]:
    panel = client.get(f"/datasets/{project.pk}/tasks/frogs/quality/").content.decode()
    badge = re.search(r'id="verdict-frogs" data-verdict="(\w+)" data-label="([^"]*)">([^<]*)<', panel)
    assert badge, panel[:2000]
    page = client.get(f"/datasets/{project.pk}/tasks/frogs/sidecar/").content.decode()
    api = APIClient()
    api.force_authenticate(project.user)
    verdict = api.get(f"/api/datasets/{project.pk}/?quality=1").json()["tasks"][0]["quality"]["verdict"]
    return badge, page, verdict


def test_a_valid_sidecar_whose_rows_get_no_hed_says_0_rows_annotated(client, user, settings):
    settings.TASKS = DUMMY_TASKS
    rows = "".join(f"{n}\t0\tn/a\n" for n in range(1, 7))  # the column's levels are declared, never in a row
    project = _project(user, rows, DESCRIBED)
    _annotate(project, user, MEANT)
    [result] = refresh_project(project)
    assert result.is_valid  # hedtools accepts it: validity alone would say "Valid"
    client.force_login(user)
    badge, page, verdict = _verdicts(client, project)
    assert badge.group(1) == "needs_work" and badge.group(3) == "Valid"
    assert badge.group(2).startswith("Valid - 0 of 6 rows annotated - 0 of 6 rows pass the event checks")
    assert 'id="sidecar-valid"' not in page and "result--ok" not in page
    assert "Valid</strong> - 0 of 6 rows annotated" in page
    assert verdict["state"] == "needs_work" and verdict["done"] is False
    assert (verdict["rows"], verdict["rows_hed"], verdict["rows_ok"]) == (6, 0, 0)


def test_levels_told_apart_only_by_names_need_a_description(client, user, settings):
    settings.TASKS = DUMMY_TASKS
    project = _project(user, "1\t0\thop\n2\t0\tstay\n3\t0\thop\n", DESCRIBED)
    _annotate(project, user, BY_NAME)
    refresh_project(project)
    client.force_login(user)
    badge, page, verdict = _verdicts(client, project)
    assert badge.group(1) == "needs_work"
    assert "2 of 2 levels need a description" in badge.group(2) and "3 of 3 rows annotated" in badge.group(2)
    assert "2 of 2 levels need a description" in page and "result--ok" not in page
    assert verdict["levels_need_description"] == 2 and verdict["levels"] == 2


def test_levels_that_say_what_happens_read_valid_in_green(client, user, settings):
    settings.TASKS = DUMMY_TASKS
    project = _project(user, "1\t0\thop\n2\t0\tstay\n3\t0\thop\n", DESCRIBED)
    _annotate(project, user, MEANT)
    refresh_project(project)
    client.force_login(user)
    badge, page, verdict = _verdicts(client, project)
    assert badge.group(1) == "valid" and badge.group(2).startswith("Valid - 3 of 3 rows annotated")
    assert "need a description" not in badge.group(2)
    assert 'id="sidecar-valid"' in page and verdict["done"] is True


def test_vague_levels_are_those_of_generic_tags_or_names_only():
    sidecar = {"frog": {"HED": {"hop": BY_NAME["hop"], "stay": BY_NAME["stay"], "sit": "Event, Task-activity",
                                "swim": "Sensory-event, Visual-presentation, (Animal, Move)"}}}
    rows = "onset\tduration\tfrog\n1\t0\thop\n2\t0\tsit\n3\t0\tswim\n4\t0\tstay\n"
    found = quality(sidecar, {"sub-01_task-frogs_events.tsv": rows}, "8.4.0")
    assert sorted(found.vague) == [("frog", "hop"), ("frog", "sit"), ("frog", "stay")]
