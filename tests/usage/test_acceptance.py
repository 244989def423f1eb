"""Acceptance rules: the defaults offered, every new sidecar revision checked (the results' hook), a failing rule
on the task's card and sidecar page, and a download that asks to confirm while one fails."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from django.urls import reverse

from annotations.datasets import inventory_edits, results
from annotations.models import AcceptanceCheck, DatasetLevel, SidecarResult
from annotations.usage import acceptance

pytestmark = pytest.mark.django_db


@pytest.fixture
def checked_at_once(monkeypatch):
    """The background check runs when it is enqueued (as the thread backend would, later)."""
    ran: list[tuple] = []
    task = acceptance.check_acceptance_task

    class Now:
        def enqueue(self, *args):
            ran.append(args)
            return task.call(*args)

    monkeypatch.setattr(acceptance, "check_acceptance_task", Now())
    return ran


def test_the_default_rules_hold_on_a_sound_sidecar(project):
    made = acceptance.add_default_rules(project)
    assert [(r.query, r.expect, r.task) for r in made] == [
        ("@Event", "none", ""), ("Def/go-cond", "some", "demo"), ("Def/halt-cond", "some", "demo")]
    assert acceptance.add_default_rules(project) == []  # offered once
    checks = acceptance.check_now(project, project.tasks.get())
    assert [c.passed for c in checks] == [True, True, True]
    assert checks[0].matches == 0


def test_every_new_revision_is_checked(project, django_capture_on_commit_callbacks, checked_at_once):
    acceptance.create_rule(project, name="Some blue", query="Blue", expect="some")
    level = DatasetLevel.objects.get(column__name="trial_kind", value="halt")
    inventory_edits.set_level_description(level, "A red triangle tells the participant to hold still.")
    with django_capture_on_commit_callbacks(execute=True):
        results.refresh_project(project)  # the job stores the task's new sidecar
    newest = SidecarResult.objects.filter(task__project=project).order_by("-created_at", "-id").first()
    assert checked_at_once == [(project.tasks.get().pk, newest.digest)]
    check = AcceptanceCheck.objects.get(digest=newest.digest)
    assert (check.passed, check.matches, check.message) == (False, 0, "no row matches; some should")


def test_no_rules_no_checks(project, django_capture_on_commit_callbacks, checked_at_once):
    level = DatasetLevel.objects.get(column__name="trial_kind", value="go")
    inventory_edits.set_level_description(level, "A green square asks for a press.")
    with django_capture_on_commit_callbacks(execute=True):
        results.refresh_project(project)
    assert checked_at_once == []


def test_a_failing_rule_shows_on_the_task_card_and_a_download_asks_to_confirm(client, user, project):
    acceptance.create_rule(project, name="Some blue", query="Blue", expect="some")
    acceptance.check_now(project, project.tasks.get())
    client.force_login(user)
    card = client.get(reverse("annotations:usage-task-acceptance", args=[project.pk, "demo"])).content.decode()
    assert 'data-failing="1"' in card and "Some blue" in card and "no row matches; some should" in card
    detail = client.get(project.get_absolute_url()).content.decode()
    assert reverse("annotations:usage-task-acceptance", args=[project.pk, "demo"]) in detail
    sidecar = client.get(reverse("annotations:dataset-sidecar", args=[project.pk, "demo"])).content.decode()
    assert reverse("annotations:usage-task-acceptance", args=[project.pk, "demo"]) in sidecar
    download = reverse("annotations:dataset-download", args=[project.pk])
    export = reverse("annotations:usage-export", args=[project.pk])
    assert f'{export}?next={quote(download, safe="")}' in detail
    confirm = client.get(export, {"next": download})
    assert confirm.status_code == 200
    assert 'id="download-anyway"' in confirm.content.decode() and f'href="{download}"' in confirm.content.decode()
    assert client.get(export, {"next": "https://elsewhere.example/x"}).status_code == 200  # the project page, never
    assert client.get(export, {"next": "https://elsewhere.example/x"}).context["target"] == project.get_absolute_url()
    project.acceptance_rules.all().delete()
    straight = client.get(export, {"next": download})
    assert straight.status_code == 302 and straight["Location"] == download


def test_the_acceptance_page_adds_rules_for_the_owner_only(client, user, reviewer, project):
    client.force_login(user)
    page = reverse("annotations:usage-acceptance", args=[project.pk])
    assert client.post(reverse("annotations:usage-rule-defaults", args=[project.pk])).status_code == 302
    made = client.post(reverse("annotations:usage-rule-create", args=[project.pk]),
                       {"name": "", "query": "Participant-response && ~Press", "expect": "none", "replace_defs": "on"})
    assert made.status_code == 302
    assert project.acceptance_rules.count() == 4
    bad = client.post(reverse("annotations:usage-rule-create", args=[project.pk]), {"query": "Red &&",
                                                                                    "expect": "none"}, follow=True)
    assert "cannot be parsed" in bad.content.decode()
    html = client.get(page).content.decode()
    assert html.count("check--ok") == 4 and "Participant-response &amp;&amp; ~Press" in html
    client.force_login(reviewer)
    assert client.get(page).status_code == 200
    assert client.post(reverse("annotations:usage-rule-defaults", args=[project.pk])).status_code == 403
    rule = project.acceptance_rules.first()
    assert client.post(reverse("annotations:usage-rule-delete", args=[project.pk, rule.pk])).status_code == 403
