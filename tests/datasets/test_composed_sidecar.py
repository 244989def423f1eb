"""The project's sidecar is composed from the levels' runs; where hedtools finds errors in the composition,
the levels' own HED is used instead, and the page says so."""

from __future__ import annotations

import pytest

from annotations.datasets import services, sidecars
from annotations.models import AnnotationSession, DatasetLevel, SessionStatus
from bidsdata.composition import Composition
from tests.datasets.test_services import _finish, _import

pytestmark = pytest.mark.django_db
HED = {"show_star": "Sensory-event, Visual-presentation, (Star, Image)",
       "show_house": "Sensory-event, Visual-presentation, (Building, Image)",
       "press": "Agent-action, Participant-response, (Press, Push-button)",
       "left": "(Left-side-of, Hand)", "right": "(Right-side-of, Hand)"}


def _annotated(user, small_files):
    project = _import(user, small_files)
    for session in services.create_level_sessions(project, list(DatasetLevel.objects.all()), user=user):
        _finish(session, HED[session.dataset_level.value])
    assert AnnotationSession.objects.filter(status=SessionStatus.SUCCEEDED).count() == len(HED)
    return project


def test_the_composed_sidecar_groups_each_event_and_stays_valid(user, small_files):
    project = _annotated(user, small_files)
    result = sidecars.task_sidecar(project, project.tasks.get())
    assert result.is_valid, result.issue_rows()
    assert result.composition is not None and not result.composition.fallback
    assert result.composition.roles["event_type"] == "event"
    assert result.sidecar["event_type"]["HED"]["show_star"].startswith("(Sensory-event")
    assert not any(r["code"] == "NOT_COMPOSED" for r in result.issue_rows())


def test_a_composition_with_errors_gives_way_to_the_levels_own_hed(user, small_files, monkeypatch):
    project = _annotated(user, small_files)

    def broken(task, annotations, events, version):  # a dataset shaped as the composer did not foresee
        return Composition(annotations={**annotations, "event_type": {**annotations["event_type"],
                                                                       "show_star": "Sensory-event, Bogus-tag-xyz"}})

    monkeypatch.setattr("bidsdata.composition.valid.compose_task", broken)
    result = sidecars.task_sidecar(project, project.tasks.get())
    assert result.composition.fallback and "Bogus" not in str(result.sidecar)
    assert result.sidecar["event_type"]["HED"]["press"] == HED["press"]  # the level's own HED
    assert not result.errors
    warning = next(r for r in result.issue_rows() if r["code"] == "NOT_COMPOSED")
    assert warning["severity"] == "warning" and "composing them gave" in warning["message"]
