"""The project page of a long project (issue 27: 8 tasks, 1,000 levels, 42,405 px and 5.7 s): a jump list to
its tasks, each task's first page of levels, a task's next page by its own URL, and queries that do not grow
with the number of levels or tasks."""

from __future__ import annotations

import json
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotations.datasets import services
from annotations.datasets.fragments import LEVELS_PER_TASK_PAGE
from annotations.models import DatasetLevel
from bidsdata.archive import read_uploads

pytestmark = pytest.mark.django_db

ROW = re.compile(r'<tr id="level-(\d+)"')


def _project(user, tasks: int, levels: int, *, name: str = "many"):
    """*tasks* made-up tasks of *levels* levels each (one categorical column, every level described)."""
    files = []
    for t in range(tasks):
        values = [f"v{i:03d}" for i in range(levels)]
        sidecar = {"shape": {"Description": "The shape shown.", "Levels": {v: f"A {v} is shown." for v in values}}}
        events = "onset\tduration\tshape\n" + "".join(f"{i}.0\tn/a\t{v}\n" for i, v in enumerate(values))
        files += [(f"sub-01_task-t{t}_events.tsv", events.encode()),
                  (f"task-t{t}_events.json", json.dumps(sidecar).encode())]
    return services.import_dataset(user=user, files=read_uploads(files), name=name)


def _rows(page: str) -> list[int]:
    return [int(pk) for pk in ROW.findall(page)]


def _task_of(pks: list[int]) -> set[str]:
    return set(DatasetLevel.objects.filter(pk__in=pks).values_list("column__task__name", flat=True))


def test_a_long_project_shows_a_jump_list_and_each_tasks_first_page(client, user):
    client.force_login(user)
    project = _project(user, 4, 60)
    page = client.get(project.get_absolute_url()).content.decode()
    jump = page[page.index('id="task-jump"'):page.index("</nav>", page.index('id="task-jump"'))]
    assert re.findall(r'href="#task-(t\d)"', jump) == ["t0", "t1", "t2", "t3"]
    for t in range(4):  # every task is on the page, each with its first page of levels and its own pager
        section = page[page.index(f'id="task-t{t}"'):]
        section = section[:section.index("</section>")]
        assert len(_rows(section)) == LEVELS_PER_TASK_PAGE
        assert _task_of(_rows(section)) == {f"t{t}"}
        assert "Levels 1\u201350 of 60" in section
        assert reverse("annotations:dataset-task-levels", args=[project.pk, f"t{t}"]) + "?page=2" in section
    folds = re.findall(r'<details class="ds-task__fold" data-task-fold( open)?>', page)
    assert folds == [" open", "", "", ""]  # more than a few tasks: the first open, the rest folded


def test_a_tasks_next_page_loads_by_its_own_url(client, user):
    client.force_login(user)
    project = _project(user, 2, 60)
    url = reverse("annotations:dataset-task-levels", args=[project.pk, "t1"])
    first, second = client.get(url).content.decode(), client.get(f"{url}?page=2").content.decode()
    assert len(_rows(first)) == 50 and len(_rows(second)) == 10
    assert not set(_rows(first)) & set(_rows(second))
    assert _task_of(_rows(second)) == {"t1"}
    assert "Levels 51\u201360 of 60" in second and 'rel="prev"' in second and "<html" not in second
    # Without JavaScript the pager's link is the project page with that task at that page.
    whole = client.get(f"{project.get_absolute_url()}?task=t1&page=2").content.decode()
    assert set(_rows(second)) <= set(_rows(whole)) and "Levels 51\u201360 of 60" in whole
    assert client.get(reverse("annotations:dataset-task-levels", args=[project.pk, "nope"])).status_code == 404


def test_a_task_page_keeps_the_status_filter(client, user):
    client.force_login(user)
    project = _project(user, 1, 60)
    page = client.get(reverse("annotations:dataset-task-levels", args=[project.pk, "t0"]) + "?status=valid")
    assert _rows(page.content.decode()) == []
    assert "No valid levels in this task." in page.content.decode()


def _count(client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured.captured_queries)


def test_the_queries_do_not_grow_with_levels_or_tasks(client, user, django_assert_max_num_queries):
    client.force_login(user)
    small = _project(user, 1, 5, name="small")
    small_page = _count(client, small.get_absolute_url())
    small_task = _count(client, reverse("annotations:dataset-task-levels", args=[small.pk, "t0"]))
    big = _project(user, 6, 120, name="big")
    with django_assert_max_num_queries(small_page):
        client.get(big.get_absolute_url())
    with django_assert_max_num_queries(small_task):
        client.get(reverse("annotations:dataset-task-levels", args=[big.pk, "t3"]) + "?page=3")


def test_row_url_is_reverse(user):
    from annotations.templatetags.row_links import row_url

    project = _project(user, 1, 2)
    level = DatasetLevel.objects.filter(column__task__project=project).first()
    for name in ("annotations:dataset-level", "annotations:dataset-level-annotate"):
        assert row_url(name, project.pk, level.pk) == reverse(name, args=[project.pk, level.pk])
    assert row_url("annotations:session-detail", project.pk) == reverse("annotations:session-detail",
                                                                        args=[project.pk])
