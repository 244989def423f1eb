"""/api/sessions/: create, list with the history filters, detail; visibility and throttling."""

from __future__ import annotations

import json

import pytest
from django.core.cache import cache
from django.test import override_settings
from django.urls import reverse
from django_tasks import default_task_backend
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotations.datasets.services import import_dataset
from annotations.models import AnnotationSession, DatasetLevel, SessionStatus
from annotations.review import services as reviews
from bidsdata.archive import read_uploads
from tests.support.reviews import add_run_details, make_session

pytestmark = pytest.mark.django_db

DUMMY_TASKS = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}
LIST = reverse("api:session-list")


@pytest.fixture
def api():
    return APIClient()


@pytest.fixture(autouse=True)
def _fresh_throttle():
    cache.clear()
    yield
    cache.clear()


def as_user(api, user):
    api.force_authenticate(user)
    return api


def detail(session):
    return reverse("api:session-detail", args=[session.pk])


def test_anonymous_is_refused(api, user):
    session = make_session(user)
    assert api.get(LIST).status_code == 401
    assert api.post(LIST, {"description": "x"}, format="json").status_code == 401
    assert api.get(detail(session)).status_code == 401


@override_settings(TASKS=DUMMY_TASKS)
def test_create_answers_201_and_starts_the_run(api, user, django_capture_on_commit_callbacks):
    default_task_backend.clear()
    with django_capture_on_commit_callbacks(execute=True):
        response = as_user(api, user).post(
            LIST, {"description": "A red circle appears", "schema_version": "8.3.0",
                   "options": {"max_validation_attempts": 2, "no_extend": True}}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    session = AnnotationSession.objects.get(pk=body["id"])
    assert (session.user, session.description, session.schema_version) == (user, "A red circle appears", "8.3.0")
    assert session.options["max_validation_attempts"] == 2 and session.options["no_extend"] is True
    assert body["status"] == "queued" and body["status_display"] == "Queued"
    assert response["Location"].endswith(session.get_absolute_url())
    assert [r.args for r in default_task_backend.results] == [[str(session.pk)]]


@override_settings(TASKS=DUMMY_TASKS)
def test_create_answers_in_the_detail_shape_without_reading_the_session_back(
        api, user, django_assert_max_num_queries):
    client = as_user(api, user)
    # Token, quota, the insert and the task row; reading the record back took six more.
    with django_assert_max_num_queries(7):
        created = client.post(LIST, {"description": "A beep sounds."}, format="json").json()
    shown = client.get(detail(AnnotationSession.objects.get(pk=created["id"]))).json()
    assert created.keys() == shown.keys()
    assert {k: created[k] for k in ("iterations", "steps", "reviews", "revisions")} == {
        "iterations": [], "steps": [], "reviews": [], "revisions": []}
    assert created == shown


def test_detail_does_not_load_the_llm_calls_it_does_not_show(api, user) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    session = AnnotationSession.objects.create(user=user, description="A beep.", schema_version="8.4.0")
    with CaptureQueriesContext(connection) as queries:
        body = as_user(api, user).get(detail(session)).json()
    assert body["id"] == str(session.pk) and "llm_calls" not in body
    assert not [q for q in queries.captured_queries if "llmcallrecord" in q["sql"]]


@pytest.mark.parametrize(("payload", "field"), [
    ({"description": ""}, "description"),
    ({"description": "   "}, "description"),
    ({}, "description"),
    ({"description": "x" * 5001}, "description"),
    ({"description": "ok", "schema_version": "0.0.1"}, "schema_version"),
    ({"description": "ok", "options": {"max_validation_attempts": 99}}, "options"),
    ({"description": "ok", "options": "fast"}, "options"),
])
@override_settings(TASKS=DUMMY_TASKS)
def test_bad_create_payload_names_the_field(api, user, payload, field):
    response = as_user(api, user).post(LIST, payload, format="json")
    assert response.status_code == 400
    assert field in response.json(), response.json()
    assert not AnnotationSession.objects.exists()


@override_settings(TASKS=DUMMY_TASKS, HEDIT_RUN_RATE="2/minute")
def test_session_creation_is_throttled_per_user(api, user, other_user):
    as_user(api, user)
    codes = [api.post(LIST, {"description": f"event {i}"}, format="json").status_code for i in range(3)]
    assert codes == [201, 201, 429]
    assert api.get(LIST).status_code == 200  # reading is not throttled
    assert as_user(APIClient(), other_user).post(LIST, {"description": "mine"}, format="json").status_code == 201


def test_token_authentication(api, user):
    make_session(user, description="token visible")
    token = Token.objects.create(user=user)
    api.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    response = api.get(LIST)
    assert response.status_code == 200
    assert [r["description"] for r in response.json()["results"]] == ["token visible"]


def test_list_shows_what_history_shows(api, user, other_user, reviewer):
    make_session(user, description="mine")
    make_session(other_user, description="theirs")
    mine = as_user(api, user).get(LIST).json()
    assert mine["count"] == 1 and mine["results"][0]["description"] == "mine"
    everyone = as_user(APIClient(), reviewer).get(LIST).json()
    assert {r["description"] for r in everyone["results"]} == {"mine", "theirs"}


def test_list_applies_the_history_filters(api, user, reviewer):
    rated = make_session(user, description="rated well")
    make_session(user, description="not rated")
    make_session(user, description="broken", status=SessionStatus.INVALID, is_valid=False)
    reviews.submit_review(rated, reviewer, rating=5, verdict="accept")
    as_user(api, user)

    def names(**params):
        response = api.get(LIST, params)
        assert response.status_code == 200, response.content
        return {r["description"] for r in response.json()["results"]}

    assert names(status="invalid") == {"broken"}
    assert names(reviewed="unrated") == {"not rated", "broken"}
    assert names(verdict="accept") == {"rated well"}
    assert names(min_rating="4") == {"rated well"}
    assert names(q="rated") == {"rated well", "not rated"}
    bad = api.get(LIST, {"status": "nonsense"})
    assert bad.status_code == 400 and "status" in bad.json()


def test_list_is_paginated(api, user):
    for i in range(3):
        make_session(user, description=f"run {i}")
    body = as_user(api, user).get(LIST, {"page_size": 2}).json()
    assert body["count"] == 3 and len(body["results"]) == 2 and body["next"]
    assert len(api.get(body["next"]).json()["results"]) == 1


def test_detail_has_iterations_issues_steps_usage_and_reviews(api, user, reviewer):
    session = add_run_details(make_session(user))
    reviews.submit_review(session, reviewer, rating=4, verdict="accept", comment="fine")
    body = as_user(api, user).get(detail(session)).json()
    assert body["id"] == str(session.pk) and body["status"] == "succeeded"
    assert [it["number"] for it in body["iterations"]] == [1, 2]
    assert body["iterations"][0]["issues"][0]["code"] == "TAG_INVALID"
    assert body["steps"][0]["agent"] == "annotation"
    assert set(body["usage"]) == {"llm_calls", "prompt_tokens", "completion_tokens", "cost_usd"}
    assert (body["reviews"][0]["reviewer"], body["reviews"][0]["rating"]) == ("rev", 4)
    assert body["review_summary"]["mean_rating"] == 4.0 and body["review_summary"]["agreement"] is None


def test_another_users_session_is_404(api, user, other_user, reviewer, staff):
    session = make_session(user)
    assert as_user(api, other_user).get(detail(session)).status_code == 404
    assert as_user(APIClient(), reviewer).get(detail(session)).status_code == 200
    assert as_user(APIClient(), staff).get(detail(session)).status_code == 200


def test_add_a_run_to_a_dataset_level_through_the_api(api, user, other_user):
    files = read_uploads([("sub-01_task-a_events.tsv", b"onset\ttrial_type\n1\tgo\n2\tstop\n"),
                          ("task-a_events.json", json.dumps({"trial_type": {"Levels": {"go": "Go.",
                                                                                        "stop": "Stop."}}}).encode())])
    project = import_dataset(user=user, files=files, name="p")
    level = DatasetLevel.objects.get(value="go")
    session = make_session(user)
    url = reverse("api:session-dataset-level", args=[session.pk])
    response = as_user(api, user).put(url, {"level": level.pk}, format="json")
    assert response.status_code == 200
    assert response.json()["dataset_level"] == {"project": str(project.pk), "task": "a", "column": "trial_type",
                                                "level": "go", "level_id": level.pk}
    moved = api.put(url, {"level": DatasetLevel.objects.get(value="stop").pk}, format="json")
    assert moved.status_code == 400 and "already annotates" in json.dumps(moved.json())
    assert api.put(url, {"level": "x"}, format="json").status_code == 400
    assert as_user(APIClient(), other_user).put(url, {"level": level.pk}, format="json").status_code == 404
    assert APIClient().put(url, {"level": level.pk}, format="json").status_code == 401
