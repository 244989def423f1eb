"""Issue 25, finding 3: seeing a dataset project is not editing it.

Reviewers see every project and review its annotations; only the owner (and staff) change its descriptions and
column kinds, answer its questions and start its runs. Every run of a project is its owner's, whoever started it,
so a run linked from her page never answers her with a 404.
"""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotations import access
from annotations.datasets import services
from annotations.datasets.question_answers import answer_everywhere
from annotations.errors import Forbidden
from annotations.models import AnnotationSession, ColumnKind, DatasetColumn, DatasetLevel, SessionStatus
from tests.datasets.lab import lab_project, level

pytestmark = pytest.mark.django_db
DUMMY_TASKS = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}


@pytest.fixture
def project(user, settings):
    settings.TASKS = DUMMY_TASKS
    return lab_project(user)


@pytest.fixture
def described(project):
    """A categorical level whose description the tests try to change."""
    return level(project, "trial_type", "press")


def api_for(someone) -> APIClient:
    api = APIClient()
    api.force_authenticate(someone)
    return api


def test_the_rights_follow_the_roles(project, user, other_user, reviewer, staff):
    assert [access.can_edit_project(u, project) for u in (user, other_user, reviewer, staff)] == [
        True, False, False, True]
    assert access.can_see_all_projects(reviewer)  # sees it, may not edit it


def test_a_reviewer_may_not_change_another_users_project_through_the_api(project, described, reviewer):
    api = api_for(reviewer)
    before = described.description
    column = DatasetColumn.objects.get(task__project=project, name="value")
    answers = [
        api.patch(reverse("api:dataset-level", args=[project.pk, described.pk]), {"description": "Changed."},
                  format="json"),
        api.patch(reverse("api:dataset-column", args=[project.pk, column.pk]), {"kind": "value"}, format="json"),
        api.post(reverse("api:dataset-questions", args=[project.pk]), {"level_id": described.pk, "answer": "Mine."},
                 format="json"),
        api.post(reverse("api:dataset-annotate", args=[project.pk]), {}, format="json"),
    ]
    assert [a.status_code for a in answers] == [403, 403, 403, 403]
    assert all("Only the owner of this dataset project" in a.json()["detail"] for a in answers)
    described.refresh_from_db()
    column.refresh_from_db()
    assert described.description == before and column.kind == ColumnKind.CATEGORICAL
    assert not AnnotationSession.objects.exists()
    # Reading stays open to reviewers.
    assert api.get(reverse("api:dataset-detail", args=[project.pk])).status_code == 200
    assert api.get(reverse("api:dataset-questions", args=[project.pk])).status_code == 200


def test_a_reviewer_may_not_change_another_users_project_on_the_pages(client, project, described, reviewer):
    client.force_login(reviewer)
    before = described.description
    column = DatasetColumn.objects.get(task__project=project, name="value")
    answers = [
        client.post(reverse("annotations:dataset-level", args=[project.pk, described.pk]),
                    {"description": "Changed.", "from": "level"}),
        client.post(reverse("annotations:dataset-column", args=[project.pk, column.pk]), {"kind": "value"}),
        client.post(reverse("annotations:dataset-question", args=[project.pk]),
                    {"level_id": described.pk, "answer": "Mine."}),
        client.post(reverse("annotations:dataset-annotate", args=[project.pk])),
        client.post(reverse("annotations:dataset-level-annotate", args=[project.pk, described.pk])),
    ]
    assert [a.status_code for a in answers] == [403] * 5
    assert "Only the owner of this dataset project" in answers[0].content.decode()
    described.refresh_from_db()
    column.refresh_from_db()
    assert described.description == before and column.kind == ColumnKind.CATEGORICAL
    assert not AnnotationSession.objects.exists()
    # The level's page is still theirs to read (and review from), without the forms they may not use.
    page = client.get(reverse("annotations:dataset-level", args=[project.pk, described.pk]))
    assert page.status_code == 200 and 'id="level-form"' not in page.content.decode()
    assert f"/levels/{described.pk}/annotate/" not in page.content.decode()


def test_the_owner_sees_the_level_forms(client, project, described, user):
    client.force_login(user)
    page = client.get(reverse("annotations:dataset-level", args=[project.pk, described.pk])).content.decode()
    assert 'id="level-form"' in page and f"/levels/{described.pk}/annotate/" in page


def test_someone_who_may_not_see_the_project_gets_404(project, described, other_user):
    answer = api_for(other_user).patch(reverse("api:dataset-level", args=[project.pk, described.pk]),
                                       {"description": "Changed."}, format="json")
    assert answer.status_code == 404


def test_the_owner_edits_and_answers(project, described, user):
    api = api_for(user)
    assert api.patch(reverse("api:dataset-level", args=[project.pk, described.pk]), {"description": "Hers."},
                     format="json").status_code == 200
    answered = api.post(reverse("api:dataset-questions", args=[project.pk]),
                        {"level_id": described.pk, "answer": "Her answer."}, format="json")
    assert answered.status_code == 202
    assert AnnotationSession.objects.get(pk=answered.json()["session"]).user == user


def test_runs_staff_start_on_a_project_are_its_owners(client, project, user, staff):
    response = api_for(staff).post(reverse("api:dataset-annotate", args=[project.pk]), {}, format="json")
    assert response.status_code == 202 and response.json()["queued"] > 0
    runs = AnnotationSession.objects.filter(pk__in=response.json()["sessions"])
    assert set(runs.values_list("user", flat=True)) == {user.pk}
    client.force_login(user)  # linked from her project's page, every one opens for her
    assert client.get(reverse("annotations:session-detail", args=[runs.first().pk])).status_code == 200


def test_the_services_refuse_too(project, described, reviewer):
    with pytest.raises(Forbidden):
        answer_everywhere(project, user=reviewer, answer="Mine.", level=described)
    with pytest.raises(Forbidden):
        services.start_annotation(project, user=reviewer, enqueue=False)
    assert DatasetLevel.objects.get(pk=described.pk).description == described.description


def test_a_level_run_is_rerun_only_by_the_projects_owner(client, project, described, user, reviewer):
    [run] = services.create_level_sessions(project, [described], user=user)
    AnnotationSession.objects.filter(pk=run.pk).update(status=SessionStatus.SUCCEEDED)
    rerun = reverse("annotations:session-rerun", args=[run.pk])
    client.force_login(reviewer)
    assert 'id="rerun-button"' not in client.get(run.get_absolute_url()).content.decode()
    refused = client.post(rerun)
    assert refused.status_code == 403 and "Only the owner of this dataset project" in refused.content.decode()
    assert AnnotationSession.objects.count() == 1
    client.force_login(user)
    assert 'id="rerun-button"' in client.get(run.get_absolute_url()).content.decode()
    assert client.post(rerun).status_code == 302
    new = AnnotationSession.objects.exclude(pk=run.pk).get()
    assert new.user == user and new.dataset_level_id == described.pk


def test_a_reviewer_still_reruns_an_ordinary_run_as_their_own(client, user, reviewer, settings):
    settings.TASKS = DUMMY_TASKS
    run = AnnotationSession.objects.create(user=user, description="A tone plays.", status=SessionStatus.SUCCEEDED)
    client.force_login(reviewer)
    assert client.post(reverse("annotations:session-rerun", args=[run.pk])).status_code == 302
    assert AnnotationSession.objects.exclude(pk=run.pk).get().user == reviewer
