"""Progress that says where it is: the queue position, the phase and an estimate, on the page and in the API."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from annotations.datasets import services
from annotations.datasets.job_progress import job_progress
from annotations.models import AnnotationSession, DatasetLevel, JobStatus, SessionStatus
from bidsdata.archive import read_uploads

pytestmark = pytest.mark.django_db

EVENTS = "onset\tduration\tcue\n1\tn/a\tgo\n2\tn/a\tstop\n3\tn/a\twait\n4\tn/a\thold\n"


def _queued_job(user, name: str, *, at, concurrency: int = 2):
    """A project annotating, its four level runs queued at *at*."""
    files = read_uploads([("sub-01_task-t_events.tsv", EVENTS.encode())])
    project = services.import_dataset(user=user, files=files, name=name, concurrency=concurrency)
    project.status = JobStatus.ANNOTATING
    project.save(update_fields=["status"])
    runs = services.create_level_sessions(project, list(DatasetLevel.objects.filter(column__task__project=project)),
                                          user=user)
    AnnotationSession.objects.filter(pk__in=[r.pk for r in runs]).update(created_at=at)
    return project, runs


def test_a_job_behind_another_says_how_many_are_ahead_then_its_phase_and_an_estimate(client, user, other_user):
    now = timezone.now()
    _queued_job(other_user, "earlier", at=now - timedelta(minutes=5))
    single = AnnotationSession.objects.create(user=other_user, description="A tone.", schema_version="8.3.0")
    AnnotationSession.objects.filter(pk=single.pk).update(created_at=now - timedelta(minutes=4))
    project, runs = _queued_job(user, "mine", at=now - timedelta(minutes=1))

    job = job_progress(project)
    assert (job.phase, job.jobs_ahead, job.runs_ahead, job.remaining) == ("queued", 1, 1, 4)
    client.force_login(user)
    page = client.get(project.get_absolute_url()).content.decode()
    assert 'id="job-progress"' in page and "1 job and 1 run ahead in the queue" in page
    api = client.get(f"/api/datasets/{project.pk}/").json()["progress"]["job"]
    assert api["phase"] == "queued" and api["queue"] == {"jobs_ahead": 1, "runs_ahead": 1}

    # Two runs of this job ended, 20 s each; one runs; one waits: 2 left, 2 at a time, 20 s on average.
    for run in runs[:2]:
        AnnotationSession.objects.filter(pk=run.pk).update(status=SessionStatus.SUCCEEDED, started_at=now,
                                                           finished_at=now + timedelta(seconds=20))
    AnnotationSession.objects.filter(pk=runs[2].pk).update(status=SessionStatus.RUNNING, started_at=now)
    job = job_progress(project)
    assert (job.phase, job.remaining, job.average_seconds, job.estimate_seconds) == ("annotating", 2, 20.0, 20)
    page = client.get(project.get_absolute_url()).content.decode()
    assert "Annotating: 2 levels to go, 2 at a time, about 20 s left" in page
    api = client.get("/api/datasets/").json()["results"]
    mine = next(p for p in api if p["name"] == "mine")["progress"]["job"]
    assert mine["estimate_seconds"] == 20 and mine["phase"] == "annotating"


def test_a_job_with_nothing_ahead_is_drafting_and_a_validating_one_says_so(user):
    project, _ = _queued_job(user, "alone", at=timezone.now())
    assert job_progress(project).phase == "drafting"
    project.status = JobStatus.VALIDATING
    assert job_progress(project).phase == "validating" and "Validating" in job_progress(project).label


def test_the_queue_counts_only_what_is_still_waiting_or_running(user, other_user):
    now = timezone.now()
    _, earlier = _queued_job(other_user, "earlier", at=now - timedelta(minutes=5))
    AnnotationSession.objects.filter(pk__in=[r.pk for r in earlier]).update(status=SessionStatus.SUCCEEDED)
    project, _ = _queued_job(user, "mine", at=now)
    assert (job_progress(project).jobs_ahead, job_progress(project).runs_ahead) == (0, 0)
    assert json.dumps(job_progress(project).to_dict())  # what the API answers is plain JSON
