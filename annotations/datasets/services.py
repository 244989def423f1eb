"""Dataset projects: import an upload, start annotating its levels (their answers: :mod:`.question_answers`).

Everything that writes is here but the inventory edits (a column's kind, descriptions, a template), which
are :mod:`.inventory_edits`' and which an answer's description goes through. Reading upload bytes safely is
:mod:`bidsdata.archive`'s job and the inventory itself :mod:`bidsdata.inventory`'s. Each import is one
transaction: an upload that fails any check stores nothing.
"""

from __future__ import annotations

import logging
from dataclasses import asdict, replace
from typing import Any

from django.db import transaction

from agents.schema import DEFAULT_SCHEMA_VERSION, UnknownSchemaVersion, as_hed_version, check_version
from agents.state import WorkflowOptions
from annotations.access import check_edit_project, level_run_owner, signed_in
from annotations.datasets.errors import DatasetRequestError
from annotations.datasets.jobs import run_dataset_task
from annotations.datasets.selectors import level_state, level_states, level_text
from annotations.datasets.uploads import upload_limits
from annotations.limits import check_level_quota
from annotations.models import (
    AnnotationSession,
    DatasetColumn,
    DatasetFile,
    DatasetLevel,
    DatasetProject,
    DatasetTask,
    JobStatus,
    SessionStatus,
)
from bidsdata.archive import DatasetError, DatasetFiles
from bidsdata.inventory import ColumnInventory, LevelInventory, TaskInventory, build_inventory
from bidsdata.markers import is_marker_text
from bidsdata.patterns import column_values, pattern_counts, pattern_description
from bidsdata.sidecar import SIDECAR, validate_sidecar
from bidsdata.value_templates import propose_value_template

logger = logging.getLogger(__name__)

MAX_CONCURRENCY = 16
MAX_NAME_CHARS = 200


def _schema_for(files_version: str | list[str] | None, requested: str | None) -> str:
    """The schema the levels are annotated with: the one asked for, else the dataset's HEDVersion (its
    libraries included: the agents annotate with their tags), else the default; as one comma-joined string."""
    try:
        chosen = check_version(requested or files_version or DEFAULT_SCHEMA_VERSION)
    except UnknownSchemaVersion as exc:
        raise DatasetRequestError("schema_version", str(exc)) from exc
    limit = DatasetProject._meta.get_field("schema_version").max_length
    if limit and len(chosen) > limit:  # a long list of libraries; PostgreSQL would refuse to store it
        standard = next((v for v in chosen.split(",") if ":" not in v and "_" not in v), None)
        if requested or standard is None:
            raise DatasetRequestError("schema_version", f"the schema list {chosen!r} is longer than the {limit} "
                                                        "characters a project can store")
        # The declared list still validates the sidecars (hed_version); the levels get its standard schema.
        logger.warning("HEDVersion %s is too long to store; annotating with %s", chosen, standard)
        return standard
    return chosen


def _existing_validity(task: TaskInventory, version: str | list[str] | None) -> set[tuple[str, str | None]]:
    """(column, level) pairs whose uploaded HED hedtools reports errors for; validated with the definitions."""
    if not task.original_sidecar:
        return set()
    issues = validate_sidecar(task.original_sidecar, {}, version, name=task.sidecar_name)
    return {(i.column, i.level) for i in issues if i.source == SIDECAR and i.severity == "error" and i.column}


def _forms(column: ColumnInventory, texts: list[str]) -> dict[str, int] | None:
    """The forms of a value column of marker strings that the lab gave no template (:mod:`bidsdata.patterns`):
    thousands of strings, a few forms, each a level; None for any other column."""
    if column.kind != "value" or column.existing_hed or not any(is_marker_text(v) for v in column.samples):
        return None
    return pattern_counts(column_values(texts, column.name))


def _store_task(project: DatasetProject, task: TaskInventory, version: str | list[str] | None,
                texts: list[str] | None = None) -> None:
    row = DatasetTask.objects.create(project=project, name=task.task, sidecar_name=task.sidecar_name,
                                     events_files=task.events_files, original_sidecar=task.original_sidecar,
                                     definition_keys=task.definition_keys, context=asdict(task.context),
                                     notes=[asdict(note) for note in task.notes])
    broken = _existing_validity(task, version)
    for position, column in enumerate(task.columns):
        existing_template = column.existing_hed if isinstance(column.existing_hed, str) else ""
        template = ""
        samples = column.samples if column.kind != "skip" else []
        forms = _forms(column, texts or [])
        if forms is not None:  # annotated by form, each a level (the sidecar gives every string its form's HED)
            column = replace(column, kind="categorical", levels=[
                LevelInventory(value=form, count=count, description=pattern_description(form), needs_description=True)
                for form, count in sorted(forms.items())])
        if column.kind == "value":
            template = existing_template or propose_value_template(
                column.name, description=column.description, units=column.units, sample_values=samples,
                hed_version=version)
        stored = DatasetColumn.objects.create(
            task=row, position=position, name=column.name, kind=column.kind, detected_kind=column.kind,
            description=column.description, needs_description=column.needs_description, units=column.units or "",
            distinct_values=column.distinct_values, sample_values=samples,
            existing_template=existing_template, template=template, by_pattern=forms is not None)
        DatasetLevel.objects.bulk_create([
            DatasetLevel(column=stored, value=level.value, count=level.count, description=level.description,
                         needs_description=level.needs_description, existing_hed=level.existing_hed or "",
                         existing_is_valid=None if not level.existing_hed else
                         (column.name, level.value) not in broken and (column.name, None) not in broken)
            for level in column.levels])


def import_dataset(*, user: Any, files: DatasetFiles, name: str = "", schema_version: str | None = None,
                   ignore_existing_hed: bool = False, concurrency: int = 4) -> DatasetProject:
    """Inventory *files* and store the project with its tasks, columns and levels, all or nothing.

    Raises :class:`DatasetError` for a dataset we refuse and :class:`DatasetRequestError` for a bad option.
    """
    name = (name or "").strip()[:MAX_NAME_CHARS] or "Untitled dataset"
    concurrency = check_concurrency(concurrency)
    inventory = build_inventory(files, ignore_existing_hed=ignore_existing_hed, limits=upload_limits())
    version = _schema_for(inventory.hed_version, schema_version)
    with transaction.atomic():
        project = DatasetProject.objects.create(
            user=user if user is not None and user.is_authenticated else None, name=name,
            # A schema asked for replaces the declared one: the sidecars are written for it and checked with it.
            hed_version=as_hed_version(version) if schema_version else inventory.hed_version, schema_version=version,
            ignore_existing_hed=ignore_existing_hed,
            concurrency=concurrency)
        DatasetFile.objects.bulk_create([DatasetFile(project=project, path=path, text=files.texts[path])
                                         for path in files.paths()])
        for task in inventory.tasks:
            _store_task(project, task, project.hed_version or version,
                        [files.texts[path] for path in task.events_files if path in files.texts])
    logger.info("dataset %s imported: %d task(s), %d file(s)", project.pk, len(inventory.tasks), len(files.texts))
    return project


def check_concurrency(value: Any) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise DatasetRequestError("concurrency", f"concurrency must be a whole number, not {value!r}") from None
    if not 1 <= number <= MAX_CONCURRENCY:
        raise DatasetRequestError("concurrency", f"concurrency must be between 1 and {MAX_CONCURRENCY}")
    return number


# --- annotating ---------------------------------------------------------------------------------


def levels_to_annotate(project: DatasetProject, *, include_valid: bool = False) -> list[DatasetLevel]:
    """Levels without an annotation yet (or whose runs are all invalid); accepted ones are never redone."""
    wanted = {"pending", "invalid"} | ({"valid"} if include_valid else set())
    return [s.level for s in level_states(project)
            if s.outcome in wanted and s.source != "existing" and not s.queued]


def create_level_sessions(project: DatasetProject, levels: list[DatasetLevel], *, user: Any) -> list[AnnotationSession]:
    options = WorkflowOptions(schema_version=project.schema_version)
    owner = level_run_owner(user, project)  # the project owner's, so every run linked from her page is hers
    return AnnotationSession.objects.bulk_create([
        AnnotationSession(user=owner, description=level_text(level), options=options.to_dict(),
                          schema_version=project.schema_version, dataset_level=level)
        for level in levels])


def quota_user(user: Any, project: DatasetProject) -> Any:
    """Whose ``HEDIT_DATASET_RATE`` a request uses: the runs' owner's (the window counts her rows); the
    command line (no user) is not counted."""
    return level_run_owner(user, project) if signed_in(user) else None


def start_annotation(project: DatasetProject, *, user: Any, concurrency: int | None = None,
                     levels: list[DatasetLevel] | None = None, enqueue: bool = True) -> list[AnnotationSession]:
    """Queue one run per level that needs one and (with *enqueue*) start the project's job.

    Returns the queued sessions. Without *enqueue* the caller runs :func:`.jobs.run_dataset_job` itself
    (the command line does, in its own event loop).
    """
    check_edit_project(user, project)
    if concurrency is not None:
        project.concurrency = check_concurrency(concurrency)
    with transaction.atomic():
        locked = DatasetProject.objects.select_for_update().get(pk=project.pk)
        if locked.status == JobStatus.ANNOTATING:
            raise DatasetRequestError("status", "this dataset is already being annotated", status=409)
        todo = levels_to_annotate(project) if levels is None else levels
        check_level_quota(quota_user(user, project), len(todo))
        sessions = create_level_sessions(project, todo, user=user)
        # Nothing to run: done once the sidecars are stored, so a job still ends it (validating, then done).
        project.status = JobStatus.ANNOTATING if sessions else (JobStatus.VALIDATING if enqueue else JobStatus.DONE)
        project.error = ""
        project.save(update_fields=["status", "error", "concurrency", "updated_at"])
        ids = [str(s.pk) for s in sessions]
        if enqueue:
            transaction.on_commit(lambda: run_dataset_task.enqueue(str(project.pk), ids, project.concurrency))
    logger.info("dataset %s: %d level run(s) queued with concurrency %d", project.pk, len(ids), project.concurrency)
    return sessions


def queue_level_run(project: DatasetProject, level: DatasetLevel, *, user: Any) -> AnnotationSession:
    """Annotate one level again now, as a job of its own, even while the project's job runs.

    The newest run of a level is the one that counts, so a run the project's job still has queued for
    the level (with its old description) cannot undo this one; each job settles the project's status
    from every run when it ends. (An answered level's run goes to the answers' own queue instead:
    :func:`.question_answers.answer_everywhere`.)
    """
    check_edit_project(user, project)
    with transaction.atomic():
        locked = DatasetProject.objects.select_for_update().get(pk=project.pk)
        check_level_quota(quota_user(user, project), 1)
        [session] = create_level_sessions(project, [level], user=user)
        if locked.status != JobStatus.ANNOTATING or locked.error:
            DatasetProject.objects.filter(pk=project.pk).update(status=JobStatus.ANNOTATING, error="")
            project.status, project.error = JobStatus.ANNOTATING, ""
        transaction.on_commit(lambda: run_dataset_task.enqueue(str(project.pk), [str(session.pk)], 1))
    logger.info("dataset %s: level %s queued for a run of its own", project.pk, level.pk)
    return session


# --- a single run as a level's annotation ------------------------------------------------------


def add_session_to_level(session: AnnotationSession, level: DatasetLevel) -> AnnotationSession:
    """Make a finished, valid run one of *level*'s runs: the shortcut from a single run into a project.

    Refused, never resolved silently, when the level already has an accepted annotation that differs:
    review or correct that run instead. A run annotates at most one level.
    """
    if session.status not in (SessionStatus.SUCCEEDED, SessionStatus.INVALID) or not session.is_valid:
        raise DatasetRequestError("level", "only a finished run with a valid annotation can annotate a level")
    if session.dataset_level_id == level.pk:
        return session
    if session.dataset_level_id is not None:
        current = session.dataset_level
        raise DatasetRequestError("level", f"this run already annotates level {current.value!r} of column "
                                  f"{current.column.name!r}")
    state = level_state(level)
    if state.outcome == "reviewed" and state.annotation.strip() != session.final_annotation.strip():
        raise DatasetRequestError("level", f"conflict: level {level.value!r} of column {level.column.name!r} already "
                                  f"has the accepted annotation {state.annotation!r}; review or correct that run "
                                  "instead")
    AnnotationSession.objects.filter(pk=session.pk).update(dataset_level=level)
    session.dataset_level = level
    return session


__all__ = ["DatasetError", "DatasetRequestError", "import_dataset", "queue_level_run", "start_annotation"]
