"""Dataset-level runs are hidden from the history page unless asked for, with a toggle and a count; runs
from the command line show their owner."""

from __future__ import annotations

import contextlib
import json
import re

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection, reset_queries
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.test import APIClient

from annotations.datasets import services
from annotations.history.filters import filter_fields
from annotations.models import AnnotationSession, DatasetLevel, DatasetProject
from bidsdata.archive import DatasetFiles, read_uploads
from tests.datasets.conftest import EVENTS, SIDECAR
from tests.support.runs import make_session

pytestmark = pytest.mark.django_db

HISTORY = reverse("annotations:history")


def rows(page: str) -> list[str]:
    return re.findall(r'<tr data-session="([0-9a-f-]+)"', page)


@pytest.fixture
def small_files() -> DatasetFiles:
    return read_uploads([("sub-01_task-faces_events.tsv", EVENTS.encode()),
                         ("task-faces_events.json", json.dumps(SIDECAR).encode())])


@pytest.fixture
def level_runs(user, small_files) -> list[AnnotationSession]:
    project = services.import_dataset(user=user, files=small_files, name="tiny")
    return services.create_level_sessions(project, list(DatasetLevel.objects.filter(column__task__project=project)),
                                          user=user)


def test_the_page_hides_level_runs_by_default_with_a_count_and_a_toggle(client, user, level_runs):
    single = make_session(user, description="a single run")
    client.force_login(user)
    page = client.get(HISTORY).content.decode()
    assert rows(page) == [str(single.pk)]
    assert re.search(r'id="hidden-level-runs">5 dataset-level runs hidden</span>', page)
    assert 'href="?levels=show" id="show-level-runs">Show them</a>' in page
    assert re.search(r'<select name="levels" id="f-levels"><option value="hide" selected>Hidden</option>', page)
    # The export gets what is shown (evaluation runs are hidden too).
    assert re.search(r'href="/export/\?levels=hide&amp;evaluations=hide">Export these<', page)
    shown = client.get(HISTORY, {"levels": "show"}).content.decode()
    assert len(rows(shown)) == 6 and 'id="hide-level-runs">Hide them</a>' in shown
    assert "dataset-level runs hidden" not in shown
    only = client.get(HISTORY, {"levels": "only"}).content.decode()
    assert sorted(rows(only)) == sorted(str(s.pk) for s in level_runs)
    assert client.get(HISTORY, {"levels": "all"}).status_code == 400


def test_a_history_of_level_runs_only_says_so(client, user, level_runs):
    client.force_login(user)
    page = client.get(HISTORY).content.decode()
    assert rows(page) == [] and "Every run here annotates a dataset level" in page


def test_no_toggle_without_level_runs(client, user):
    make_session(user)
    client.force_login(user)
    assert 'id="level-runs"' not in client.get(HISTORY).content.decode()


def test_the_api_and_the_export_keep_level_runs_unless_asked(user, level_runs):
    make_session(user, description="a single run")
    api = APIClient()
    api.force_authenticate(user)
    assert api.get("/api/sessions/").json()["count"] == 6
    assert api.get("/api/sessions/", {"levels": "hide"}).json()["count"] == 1
    assert api.get("/api/sessions/", {"levels": "only"}).json()["count"] == 5
    # The export page's bar starts where the history page does.
    field = next(f for f in filter_fields({}, show_user=False) if f["name"] == "levels")
    assert field["value"] == "hide" and field["choices"][0] == ("hide", "Hidden")


def test_runs_without_a_user_show_their_project_owner_or_the_command_line(client, reviewer, user, small_files):
    project = services.import_dataset(user=user, files=small_files, name="tiny")
    level = DatasetLevel.objects.filter(column__task__project=project).first()
    from_the_cli = services.create_level_sessions(project, [level], user=None)[0]
    AnnotationSession.objects.filter(pk=from_the_cli.pk).update(user=None)  # as the project's owner was deleted
    orphan = make_session(None, description="from manage.py annotate")
    client.force_login(reviewer)
    page = client.get(HISTORY, {"levels": "show"}).content.decode()
    cells = dict(re.findall(r'<tr data-session="([0-9a-f-]+)">.*?<td data-label="User">([^<]*)</td>', page, re.S))
    assert cells[str(from_the_cli.pk)] == "ann" and cells[str(orphan.pk)] == "command line"
    assert "—</td>" not in page.split('id="history-table"')[1]


@pytest.mark.django_db(transaction=True)
def test_annotate_dataset_runs_belong_to_the_user_named(tmp_path, user, capsys):
    events = tmp_path / "sub-01_task-a_events.tsv"
    events.write_bytes(b"onset\tduration\tcue\n1\tn/a\tleft\n2\tn/a\tright\n")
    with pytest.raises(CommandError, match="--user nobody: no such user"):
        call_command("annotate_dataset", str(events), "--user", "nobody", "--out", str(tmp_path / "out"))
    with contextlib.suppress(SystemExit):  # exit 1 if a sidecar does not validate: the owner is what is tested
        call_command("annotate_dataset", str(events), "--user", "ann", "--out", str(tmp_path / "out"), "--json")
    project = DatasetProject.objects.get()
    runs = AnnotationSession.objects.filter(dataset_level__column__task__project=project)
    assert project.user == user and runs.count() == 2 and set(runs.values_list("user", flat=True)) == {user.pk}


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL only")
def test_a_large_history_estimates_the_runs_it_shows_without_counting(client, reviewer, user, level_runs,
                                                                     monkeypatch):
    from tests.portal.test_history import bulk_sessions, unbounded_counts

    monkeypatch.setattr("annotations.history.views.ESTIMATE_ABOVE", 30)
    bulk_sessions(user, 75)
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {AnnotationSession._meta.db_table}")
    client.force_login(reviewer)
    reset_queries()
    with CaptureQueriesContext(connection) as ctx:
        page = client.get(HISTORY).content.decode()
    assert "1\u201350 of about 75" in page  # 80 runs, 5 of them dataset-level runs
    assert 'id="hidden-level-runs">5 dataset-level runs hidden' in page
    assert not unbounded_counts([q["sql"] for q in ctx.captured_queries])
