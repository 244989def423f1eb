"""A task's whole pipeline (composing, validating, the quality figures) runs in one worker of the shared
validation pool, never in the server's own process (issue 25: with it there, another user's page waited up to
2 s on the server's GIL during a burst of downloads)."""

from __future__ import annotations

import json
import logging
import os
from concurrent.futures.process import BrokenProcessPool

import pytest

from annotations.datasets import results, services, sidecars
from annotations.datasets.selectors import validation_version
from annotations.models import AnnotationSession, DatasetLevel, SessionStatus, SidecarResult
from bidsdata.pipeline import quality_figures
from bidsdata.pool import shared_pool
from bidsdata.sidecar import validate_sidecar
from tests.datasets.test_parallel_validation import NAME, SIDECAR_HED, VERSION, _events, validated_in_a_worker

HED = "Sensory-event, Experimental-stimulus, Visual-presentation"


@pytest.fixture
def annotated(user, small_files):
    project = services.import_dataset(user=user, files=small_files, name="tiny")
    for session in services.create_level_sessions(project, list(DatasetLevel.objects.all()), user=user):
        AnnotationSession.objects.filter(pk=session.pk).update(
            status=SessionStatus.SUCCEEDED, is_valid=True, final_annotation=HED, machine_annotation=HED)
    return project


def _validations(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "bidsdata.validation" and r.getMessage().startswith("validating")]


@pytest.mark.django_db
def test_the_sidecar_is_composed_validated_and_checked_in_a_pool_worker(annotated, caplog, fresh_pool):
    caplog.set_level(logging.INFO, logger="bidsdata")
    task = annotated.tasks.get()
    result = results.refresh_sidecar(annotated, task)

    [validated] = _validations(caplog)  # the worker's log record, logged here as the server's own
    assert validated.process != os.getpid(), "the pipeline ran in the caller's process"
    here = sidecars.task_sidecar(annotated, task, quality_limits=results.quality_limits())  # in this process
    assert not _validations(caplog)[1:], "the worker's answers are kept in the cache for this process's steps"
    stored = SidecarResult.objects.get(task=task)
    assert result.sidecar == here.sidecar == stored.sidecar and result.issues == here.issues
    figures = quality_figures(here.sidecar, sidecars.task_events(annotated, task), validation_version(annotated),
                              results.quality_limits())  # the pipeline's last step on that sidecar
    assert result.checked == here.checked == figures  # figures + preview
    assert stored.quality == json.loads(json.dumps(here.checked)) and stored.quality["preview"]


@pytest.mark.django_db
def test_a_broken_pool_leaves_the_sidecar_computed_here(annotated, caplog, monkeypatch, fresh_pool):
    class Broken:
        def submit(self, *args: object, **kwargs: object) -> None:
            raise BrokenProcessPool("a worker was killed")

    monkeypatch.setattr(sidecars, "shared_pool", lambda: (Broken(), 2))
    caplog.set_level(logging.INFO, logger="bidsdata")
    task = annotated.tasks.get()
    result = results.refresh_sidecar(annotated, task)
    assert [r.process for r in _validations(caplog)] == [os.getpid()]
    assert result.checked and SidecarResult.objects.get(task=task).quality == json.loads(json.dumps(result.checked))


def test_a_pool_worker_validates_its_files_itself(fresh_pool):
    alone = validate_sidecar(SIDECAR_HED, _events(), VERSION, name=NAME, workers=1)
    workers, _ = shared_pool()
    found, validated, worker = workers.submit(validated_in_a_worker, 2).result(timeout=120)
    assert worker != os.getpid()
    assert found == alone
    assert [m.endswith("in 1 process(es)") for m in validated] == [True], "a pool worker asked for a pool"
