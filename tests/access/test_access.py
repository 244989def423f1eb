"""Every access rule, asked through annotations.access: who may see or act on what.

Reviewers are the members of the reviewers group, whose rights are Django permissions (migration 0009);
staff and superusers hold every right; the owner of a run holds the rights over it that need no group.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser, Group, Permission
from django.template import Context, Template
from django.test import RequestFactory

from annotations import access
from annotations.api.permissions import IsReviewerToWrite
from annotations.datasets.selectors import visible_projects
from annotations.models import AnnotationSession, DatasetProject, SessionStatus
from annotations.runs.fragments import session_flags
from annotations.selectors import visible_sessions

pytestmark = pytest.mark.django_db


@pytest.fixture
def superuser(django_user_model):
    return django_user_model.objects.create_superuser("root", password="pw-root-12345")


def run(owner, status=SessionStatus.SUCCEEDED) -> AnnotationSession:
    return AnnotationSession.objects.create(user=owner, description="A beep.", schema_version="8.4.0", status=status)


def perm(name: str) -> Permission:
    app_label, codename = name.split(".")
    return Permission.objects.get(content_type__app_label=app_label, codename=codename)


# --- where the rights come from ------------------------------------------------------------------


def test_the_reviewers_group_holds_every_reviewer_permission() -> None:
    group = Group.objects.get(name=access.REVIEWER_GROUP)
    granted = {f"{p.content_type.app_label}.{p.codename}" for p in group.permissions.select_related("content_type")}
    assert granted == set(access.REVIEWER_PERMISSIONS)


def test_a_flushed_database_gets_the_group_back_with_its_permissions() -> None:
    Group.objects.filter(name=access.REVIEWER_GROUP).delete()
    access.ensure_reviewers_group()
    assert Group.objects.get(name=access.REVIEWER_GROUP).permissions.count() == len(access.REVIEWER_PERMISSIONS)


def test_an_existing_group_is_left_as_its_administrators_made_it(reviewer) -> None:
    group = Group.objects.get(name=access.REVIEWER_GROUP)
    group.permissions.remove(perm(access.REVIEW_SESSION))
    access.ensure_reviewers_group()
    assert not group.permissions.filter(codename="review_session").exists()


def test_rights_are_the_permissions_not_the_group_name(django_user_model, user, reviewer) -> None:
    """A permission taken from the group is taken from its members; one given to a user alone counts."""
    Group.objects.get(name=access.REVIEWER_GROUP).permissions.remove(perm(access.REVIEW_SESSION))
    reviewer = django_user_model.objects.get(pk=reviewer.pk)
    assert access.can_see_all(reviewer) and not access.can_review(reviewer)
    user.user_permissions.add(perm(access.REVIEW_SESSION))
    assert access.can_review(django_user_model.objects.get(pk=user.pk))


def test_permissions_are_read_in_one_query_per_user_object(django_user_model, reviewer, user,
                                                          django_assert_num_queries) -> None:
    with django_assert_num_queries(1):
        assert access.can_review(reviewer) and access.can_see_all(reviewer) and access.can_see_all_projects(reviewer)
    with django_assert_num_queries(1):  # a refusal is not asked again by ModelBackend either
        assert not access.can_review(user) and not user.has_perm(access.REVIEW_SESSION)


def test_an_inactive_member_holds_no_right(reviewer) -> None:
    reviewer.is_active = False
    assert not access.can_review(reviewer) and not access.can_see_all(reviewer)


# --- seeing ---------------------------------------------------------------------------------------


def test_can_see_all_is_for_reviewers_staff_and_superusers(user, reviewer, staff, superuser) -> None:
    assert [access.can_see_all(u) for u in (user, reviewer, staff, superuser, AnonymousUser(), None)] == [
        False, True, True, True, False, False]


def test_may_see_a_run_its_owner_and_those_who_see_all(user, other_user, reviewer, staff) -> None:
    session = run(user)
    assert [access.may_see(u, session) for u in (user, other_user, reviewer, staff, AnonymousUser())] == [
        True, False, True, True, False]
    for viewer in (user, other_user, reviewer, staff, AnonymousUser()):
        assert access.may_see(viewer, session) == visible_sessions(viewer).filter(pk=session.pk).exists()


def test_a_run_without_an_owner_is_seen_only_by_those_who_see_all(user, reviewer) -> None:
    session = run(None)
    assert not access.owns(user, session) and not access.may_see(user, session) and access.may_see(reviewer, session)
    assert not access.may_see(AnonymousUser(), session)


def test_can_see_all_projects_is_for_reviewers_staff_and_superusers(user, other_user, reviewer, staff,
                                                                    superuser) -> None:
    project = DatasetProject.objects.create(user=other_user, name="faces", schema_version="8.4.0")
    viewers = (user, other_user, reviewer, staff, superuser, AnonymousUser())
    assert [access.can_see_all_projects(u) for u in viewers] == [False, False, True, True, True, False]
    assert [visible_projects(u).filter(pk=project.pk).exists() for u in viewers] == [
        False, True, True, True, True, False]


# --- acting ---------------------------------------------------------------------------------------


def test_can_review_is_for_reviewers_staff_and_superusers(user, reviewer, staff, superuser) -> None:
    assert [access.can_review(u) for u in (user, reviewer, staff, superuser, AnonymousUser(), None)] == [
        False, True, True, True, False, False]


def test_can_place_in_dataset_the_owner_and_reviewers(user, other_user, reviewer, staff) -> None:
    session = run(user)
    assert [access.can_place_in_dataset(u, session) for u in (user, other_user, reviewer, staff, AnonymousUser())] == [
        True, False, True, True, False]
    assert not access.can_place_in_dataset(user, run(None))


@pytest.mark.parametrize(("status", "allowed"), [
    (SessionStatus.SUCCEEDED, True), (SessionStatus.INVALID, True), (SessionStatus.FAILED, False),
    (SessionStatus.RUNNING, False), (SessionStatus.QUEUED, False), (SessionStatus.CANCELLED, False)])
def test_may_request_review_the_owner_of_a_run_with_an_annotation(user, status, allowed) -> None:
    assert access.may_request_review(user, run(user, status)) is allowed


def test_may_request_review_no_one_but_the_owner(user, other_user, reviewer, staff) -> None:
    session = run(user)
    assert [access.may_request_review(u, session) for u in (other_user, reviewer, staff, AnonymousUser())] == [
        False, False, False, False]


def test_may_cancel_a_running_run_its_owner_and_staff(user, other_user, reviewer, staff) -> None:
    running = run(user, SessionStatus.RUNNING)
    assert [access.may_cancel(u, running) for u in (user, other_user, reviewer, staff)] == [True, False, False, True]
    finished = run(user, SessionStatus.SUCCEEDED)
    assert not access.may_cancel(user, finished) and not access.may_cancel(staff, finished)


# --- the adapters ask the rules -------------------------------------------------------------------


@pytest.mark.parametrize("method", ["get", "post"])
def test_the_api_permission_class_asks_can_review(method, user, reviewer) -> None:
    def allowed(u):
        request = getattr(RequestFactory(), method)("/api/sessions/")
        request.user = u
        return IsReviewerToWrite().has_permission(request, None)

    assert allowed(reviewer) and allowed(user) is (method == "get")


def test_the_template_filters_ask_the_rules(user, reviewer, staff) -> None:
    template = Template("{% load nav_tags review_tags %}{{ u|sees_all }} {{ u|can_review }}")
    assert [template.render(Context({"u": u})) for u in (user, reviewer, staff, AnonymousUser())] == [
        "False False", "True True", "True True", "False False"]


def test_the_run_page_offers_cancel_as_may_cancel_says(user, reviewer) -> None:
    running = run(user, SessionStatus.RUNNING)
    assert session_flags(running, user)["can_cancel"] and not session_flags(running, reviewer)["can_cancel"]
