"""Who sees what: the rule is asked several times per page and answered from one query."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from annotations.access import can_see_all, may_see
from annotations.models import AnnotationSession
from annotations.selectors import visible_sessions

pytestmark = pytest.mark.django_db


def test_can_see_all_asks_the_database_once_per_user_object(reviewer, django_assert_num_queries) -> None:
    with django_assert_num_queries(1):
        assert can_see_all(reviewer) and can_see_all(reviewer)
        visible_sessions(reviewer)
    fresh = get_user_model().objects.get(pk=reviewer.pk)  # a new request's user asks again
    with django_assert_num_queries(1):
        assert can_see_all(fresh)


def test_may_see_follows_visible_sessions(user, other_user, reviewer) -> None:
    session = AnnotationSession.objects.create(user=user, description="A beep.", schema_version="8.4.0")
    for viewer in (user, other_user, reviewer):
        assert may_see(viewer, session) == visible_sessions(viewer).filter(pk=session.pk).exists()
    assert may_see(user, session) and not may_see(other_user, session) and may_see(reviewer, session)
