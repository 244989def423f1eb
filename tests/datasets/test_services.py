"""Dataset projects in the database: import, edits, level states, the annotation job, sidecars."""

from __future__ import annotations

import json

import pytest

from annotations.datasets import inventory_edits, services
from annotations.datasets.jobs import run_dataset_job
from annotations.datasets.selectors import level_states, progress, validation_version
from annotations.datasets.sidecars import project_sidecars, spreadsheet, task_sidecar
from annotations.errors import QuotaExceeded as RunQuotaExceeded
from annotations.models import (
    AnnotationSession,
    DatasetColumn,
    DatasetLevel,
    DatasetProject,
    Review,
    Revision,
    SessionStatus,
)
from bidsdata.archive import DatasetError, read_uploads
from tests.datasets.conftest import EVENTS, SIDECAR

pytestmark = pytest.mark.django_db(transaction=True)


def _import(user, files, **kw):
    return services.import_dataset(user=user, files=files, name="tiny", **kw)


def _finish(session: AnnotationSession, hed: str, *, valid: bool = True) -> None:
    AnnotationSession.objects.filter(pk=session.pk).update(
        status=SessionStatus.SUCCEEDED if valid else SessionStatus.INVALID, machine_annotation=hed,
        final_annotation=hed, is_valid=valid)


def test_import_stores_tasks_columns_levels_and_files(user, small_files):
    project = _import(user, small_files)
    assert project.schema_version == "8.2.0" and project.hed_version == "8.2.0"
    task = project.tasks.get()
    assert task.name == "faces" and task.sidecar_name == "task-faces_events.json"
    kinds = dict(DatasetColumn.objects.filter(task=task).values_list("name", "kind"))
    assert kinds == {"onset": "skip", "duration": "skip", "event_type": "categorical", "hand": "categorical",
                     "response_time": "value"}
    counts = dict(DatasetLevel.objects.filter(column__name="event_type").values_list("value", "count"))
    assert counts == {"show_star": 4, "show_house": 2, "press": 4}
    press = DatasetLevel.objects.get(value="press")
    assert press.description == "The participant presses a button." and not press.needs_description
    assert "#" in DatasetColumn.objects.get(name="response_time").template
    assert project.files.count() == 4


def test_import_refuses_bad_input_and_stores_nothing(user):
    # The reader refuses before anything reaches the database.
    with pytest.raises(DatasetError, match=r"sub-01_task-x_events\.tsv"):
        read_uploads([("sub-01_task-x_events.tsv", b"onset\tduration\n1\t2\t3\n")])
    files = read_uploads([("events.tsv", b"onset\tduration\n1\t2\n")])
    with pytest.raises(DatasetError):
        _import(user, files)
    assert not DatasetProject.objects.exists() and not DatasetLevel.objects.exists()


def test_an_unknown_schema_is_refused_by_name(user, small_files):
    with pytest.raises(services.DatasetRequestError, match=r"9\.9\.9"):
        _import(user, small_files, schema_version="9.9.9")
    assert not DatasetProject.objects.exists()


def test_existing_hed_is_the_starting_annotation_unless_ignored(user):
    sidecar = {**SIDECAR, "hand": {**SIDECAR["hand"], "HED": {"left": "(Left-side-of, Hand)", "right": "Blorp"}}}
    files = read_uploads([("sub-01_task-faces_events.tsv", EVENTS.encode()),
                          ("task-faces_events.json", json.dumps(sidecar).encode())])
    project = _import(user, files)
    states = {s.level.value: s for s in level_states(project)}
    assert states["left"].status == "valid" and states["left"].source == "existing"
    assert states["right"].status == "invalid"  # the uploaded HED does not validate
    assert states["show_star"].status == "pending"
    # Annotate all leaves the lab's own valid HED alone and redoes the broken one.
    todo = {lv.value for lv in services.levels_to_annotate(project)}
    assert "left" not in todo and {"right", "show_star"} <= todo

    ignored = _import(user, files, ignore_existing_hed=True)
    assert {s.level.value: s.status for s in level_states(ignored)}["left"] == "pending"


def test_level_state_prefers_review_then_valid_run(user, reviewer, small_files):
    project = _import(user, small_files)
    level = DatasetLevel.objects.get(value="show_star")
    first, second = services.create_level_sessions(project, [level, level], user=user)
    _finish(first, "Sensory-event, Visual-presentation, Face")
    _finish(second, "Sensory-event, Face")
    state = next(s for s in level_states(project) if s.level == level)
    assert (state.status, state.annotation, state.session_id) == ("valid", "Sensory-event, Face", second.pk)

    Review.objects.create(session=first, reviewer=reviewer, rating=5, verdict="accept")
    state = next(s for s in level_states(project) if s.level == level)
    assert (state.status, state.annotation, state.source) == ("reviewed", "Sensory-event, Visual-presentation, Face",
                                                              "review")
    Revision.objects.create(session=second, author=reviewer, before="Sensory-event, Face",
                            after="Sensory-event, (Star, Image)", is_valid=True)
    AnnotationSession.objects.filter(pk=second.pk).update(final_annotation="Sensory-event, (Star, Image)")
    state = next(s for s in level_states(project) if s.level == level)
    assert (state.annotation, state.source) == ("Sensory-event, (Star, Image)", "correction")
    assert progress(level_states(project))["reviewed"] == 1


def test_annotation_job_runs_every_level_offline_and_skips_accepted(user, reviewer, small_files, settings):
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}
    project = _import(user, small_files)
    sessions = services.start_annotation(project, user=user, enqueue=False)
    assert len(sessions) == 5 and DatasetProject.objects.get(pk=project.pk).status == "annotating"
    import asyncio

    outcomes = asyncio.run(run_dataset_job(project.pk, [str(s.pk) for s in sessions], 2,
                                           use_configured_llm=False))
    assert sum(outcomes.values()) == 5
    project.refresh_from_db()
    assert project.status == "done"
    states = level_states(project)
    assert all(s.status == "valid" and s.annotation for s in states), [(s.level.value, s.status) for s in states]
    # Nothing left to do: a second "annotate all" queues nothing, and an accepted level is never redone.
    assert services.start_annotation(project, user=user, enqueue=False) == []
    with pytest.raises(services.DatasetRequestError, match="already being annotated"):
        DatasetProject.objects.filter(pk=project.pk).update(status="annotating")
        services.start_annotation(project, user=user, enqueue=False)


def test_the_dataset_quota_counts_levels(user, small_files, settings):
    settings.HEDIT_DATASET_RATE = "3/hour"
    project = _import(user, small_files)
    with pytest.raises(RunQuotaExceeded, match="HEDIT_DATASET_RATE"):
        services.start_annotation(project, user=user, enqueue=False)
    assert not AnnotationSession.objects.exists()


def test_sidecar_holds_levels_templates_units_and_validates(user, reviewer, small_files):
    project = _import(user, small_files)
    levels = list(DatasetLevel.objects.all())
    sessions = services.create_level_sessions(project, levels, user=user)
    hed = {"show_star": "Sensory-event, Visual-presentation, (Star, Image)",
           "show_house": "Sensory-event, Visual-presentation, (Building, Image)",
           "press": "Agent-action, Participant-response, (Press, Push-button)",
           "left": "(Left-side-of, Hand)", "right": "(Right-side-of, Hand)"}
    for session in sessions:
        _finish(session, hed[session.dataset_level.value])
    result = task_sidecar(project, project.tasks.get())
    assert result.is_valid, result.issue_rows()
    sidecar = result.sidecar
    # Each event is one group, and the column that describes it (`hand`) is nested into it.
    assert sidecar["event_type"]["HED"]["press"] == "(Agent-action, Participant-response, (Press, Push-button), {hand})"
    assert sidecar["event_type"]["Levels"]["press"] == "The participant presses a button."
    assert sidecar["response_time"]["Units"] == "s" and "#" in sidecar["response_time"]["HED"]
    assert "show_star" in spreadsheet(result) and "HED" in spreadsheet(result).splitlines()[0]


def test_a_level_without_annotation_is_listed_never_dropped(user, small_files):
    project = _import(user, small_files)
    result = project_sidecars(project)[0]
    assert not result.is_valid
    missing = {(m.column, m.level) for m in result.missing}
    assert ("event_type", "press") in missing
    assert result.sidecar["event_type"]["Levels"]["press"]  # still described, only its HED is missing
    assert any(r["code"] == "MISSING_HED" and r["level"] == "press" for r in result.issue_rows())


def test_repeated_tags_across_columns_are_grouped_so_events_validate(user, small_files):
    project = _import(user, small_files)
    sessions = services.create_level_sessions(project, list(DatasetLevel.objects.all()), user=user)
    for session in sessions:  # every level repeats the event basics, as levels annotated alone do
        extra = {"left": ", Leftward", "right": ", Rightward"}.get(session.dataset_level.value, "")
        _finish(session, "Agent-action, Participant-response, Experiment-participant" + extra)
    result = task_sidecar(project, project.tasks.get())
    assert result.is_valid, [r["message"] for r in result.issue_rows()]
    hand = result.sidecar["hand"]["HED"]
    # Nested into the event that already says all of it, each hand level keeps only what sets it apart.
    assert "Agent-action" not in hand["left"] and hand["left"] != hand["right"]
    assert "{hand}" in result.sidecar["event_type"]["HED"]["press"]


def test_column_kind_and_descriptions_can_change(user, small_files):
    project = _import(user, small_files)
    hand = DatasetColumn.objects.get(name="hand")
    inventory_edits.set_column_kind(hand, "value")
    assert "#" in DatasetColumn.objects.get(name="hand").template
    assert all(s.level.column.name != "hand" for s in level_states(project))
    rt = DatasetColumn.objects.get(name="response_time")
    inventory_edits.set_column_kind(rt, "categorical")  # two distinct values: fine as levels
    assert set(rt.levels.values_list("value", flat=True)) == {"0.43", "0.51"}
    with pytest.raises(services.DatasetRequestError, match="kind must be one of"):
        inventory_edits.set_column_kind(hand, "colour")
    level = DatasetLevel.objects.get(value="show_house")
    inventory_edits.set_level_description(level, "  A house  photo. ")
    assert DatasetLevel.objects.get(pk=level.pk).description == "A house photo."
    with pytest.raises(services.DatasetRequestError, match="must not be empty"):
        inventory_edits.set_level_description(level, "   ")
    with pytest.raises(services.DatasetRequestError, match="exactly one #"):
        inventory_edits.set_column_template(DatasetColumn.objects.get(name="hand"), "Label/x")
    with pytest.raises(services.DatasetRequestError, match="does not validate"):
        inventory_edits.set_column_template(DatasetColumn.objects.get(name="hand"), "Blorpish/#")


def test_a_column_with_thousands_of_values_never_becomes_thousands_of_levels(user):
    rows = "".join(f"{i}.0\tn/a\tword{i}\n" for i in range(3000))
    files = read_uploads([("sub-01_task-big_events.tsv", f"onset\tduration\tstim\n{rows}".encode())])
    project = _import(user, files)
    stim = DatasetColumn.objects.get(name="stim")
    assert stim.kind == "value" and not DatasetLevel.objects.exists()
    with pytest.raises(services.DatasetRequestError, match="more than 200 distinct values"):
        inventory_edits.set_column_kind(stim, "categorical")
    assert project.tasks.count() == 1


def test_dataset_levels_do_not_use_up_the_single_run_quota(user, small_files, settings):
    from django.db import transaction

    from annotations.limits import check_run_quota

    settings.HEDIT_RUN_RATE = "2/hour"
    project = _import(user, small_files)
    services.create_level_sessions(project, list(DatasetLevel.objects.all()), user=user)
    with transaction.atomic():  # a quota is checked in the transaction that would store the runs
        check_run_quota(user, 2)  # five level runs stored, yet two single runs may still start
        with pytest.raises(RunQuotaExceeded):
            check_run_quota(user, 3)


def test_reading_the_status_never_writes_it(user, small_files):
    from annotations.datasets.selectors import current_status

    project = _import(user, small_files)
    sessions = services.start_annotation(project, user=user, enqueue=False)
    assert current_status(project) == "annotating"
    # The runs ended but no job has validated the sidecars yet: not done (tests/datasets/test_job_phases.py).
    AnnotationSession.objects.filter(pk__in=[s.pk for s in sessions]).update(status=SessionStatus.SUCCEEDED)
    assert current_status(DatasetProject.objects.get(pk=project.pk)) == "annotating"
    assert DatasetProject.objects.get(pk=project.pk).status == "annotating"


def test_a_library_schema_beside_the_standard_one_annotates_with_both(user):
    description = json.dumps({"Name": "x", "HEDVersion": ["8.2.0", "sc:score_1.0.0"]}).encode()
    files = read_uploads([("dataset_description.json", description),
                          ("sub-01_task-faces_events.tsv", EVENTS.encode())])
    project = _import(user, files)
    # The levels are annotated with the library too, so its tags are within reach (issue 28).
    assert project.schema_version == "8.2.0,sc:score_1.0.0" and project.hed_version == ["8.2.0", "sc:score_1.0.0"]
    assert validation_version(project) == ["8.2.0", "sc:score_1.0.0"]


def test_a_queued_level_waits_as_pending_and_is_not_queued_twice(user, small_files):
    project = _import(user, small_files)
    level = DatasetLevel.objects.get(value="press")
    services.create_level_sessions(project, [level], user=user)
    state = next(s for s in level_states(project) if s.level == level)
    assert (state.status, state.queued) == ("pending", True)
    assert level not in services.levels_to_annotate(project)
