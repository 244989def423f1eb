"""Column drafts for a dataset job: one model request per categorical column, each level's run starts from its draft.

With a language model configured, the job asks :func:`agents.columns.annotate_column` for each column that has
levels to run, with the task's context (README, task description, instructions), the column's levels and the
other columns, and hands each level's run its draft (:class:`agents.state.Draft`): the run's first attempt,
so the run makes no annotate request of its own, and is validated and evaluated as usual. The column's
requests are stored as LLM calls of the run of its first level (shown on that run's page and counted in its
usage); every other level's run names that level in its note. Offline (no model) nothing is drafted. A model
that fails drafts nothing: each level's run asks it again, and falls back to the offline annotator
(:func:`annotations.runs.execution.execute_session`) if it fails there too.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any

from asgiref.sync import sync_to_async

from agents.columns import ColumnContext, ColumnLevel, ColumnResult, OtherColumn, annotate_column
from agents.llm.base import ChatModel
from agents.state import Draft, WorkflowOptions
from annotations.datasets.selectors import level_states, level_text
from annotations.llm.client import chat_model_for
from annotations.models import AnnotationSession, ColumnKind, DatasetColumn, DatasetTask, SessionStatus
from annotations.runs.broadcasts import broadcast
from annotations.runs.recorder import store_llm_call

logger = logging.getLogger(__name__)

OTHER_COLUMN_LEVELS = 8
ANNOTATED = ("valid", "reviewed")


@dataclass
class ColumnPlan:
    """A column with levels to run in this job: its context, and the runs of each level asked for."""

    column: str
    context: ColumnContext
    schema_version: str
    no_extend: bool
    sessions: dict[str, list[str]] = field(default_factory=dict)  # level value -> session ids
    drafts: dict[str, Draft] = field(default_factory=dict)  # session id -> its draft, once asked

    @property
    def carrier(self) -> tuple[str, str]:
        """(level, session id) of the run that keeps the column's requests: its first level's first run."""
        value = next(level.value for level in self.context.targets if level.value in self.sessions)
        return value, self.sessions[value][0]


def _task_context(task: DatasetTask) -> dict[str, str]:
    stored = getattr(task, "context", None)
    stored = stored if isinstance(stored, dict) else {}
    return {key: str(stored.get(key) or "") for key in ("readme", "task_name", "task_description", "instructions")}


def _long_name(task: DatasetTask, column: DatasetColumn) -> str:
    entry = (task.original_sidecar or {}).get(column.name) if isinstance(task.original_sidecar, dict) else None
    value = entry.get("LongName") if isinstance(entry, dict) else None
    return value if isinstance(value, str) else ""


def _other_columns(task: DatasetTask, column: DatasetColumn) -> tuple[OtherColumn, ...]:
    out = []
    for other in task.columns.exclude(pk=column.pk).exclude(kind=ColumnKind.SKIP).prefetch_related("levels"):
        if other.kind == ColumnKind.CATEGORICAL:
            values = tuple(level.value for level in list(other.levels.all())[:OTHER_COLUMN_LEVELS])
        else:
            values = tuple(str(v) for v in (other.sample_values or [])[:OTHER_COLUMN_LEVELS])
        out.append(OtherColumn(name=other.name, kind=other.kind, description=other.description, levels=values))
    return tuple(out)


def _plans(session_ids: list[str]) -> list[ColumnPlan]:
    """The columns of the job's queued level runs, each with its context read from the database."""

    sessions = (AnnotationSession.objects.filter(pk__in=session_ids, status=SessionStatus.QUEUED,
                                                 dataset_level__column__kind=ColumnKind.CATEGORICAL)
                .select_related("dataset_level__column__task__project").order_by("created_at"))
    by_column: dict[int, list[AnnotationSession]] = {}
    for session in sessions:
        by_column.setdefault(session.dataset_level.column_id, []).append(session)
    annotated: dict[int, dict[int, str]] = {}  # task id -> level id -> accepted or valid annotation
    plans = []
    for runs in by_column.values():
        column = runs[0].dataset_level.column
        task, project = column.task, column.task.project
        if task.pk not in annotated:
            annotated[task.pk] = {s.level.pk: s.annotation for s in level_states(project, task=task.name)
                                  if s.outcome in ANNOTATED and s.annotation}
        asked = {run.dataset_level_id: run for run in runs}
        levels = tuple(
            ColumnLevel(value=level.value, count=level.count, made_up=level.needs_description,
                        description=asked[level.pk].description if level.pk in asked else level_text(level),
                        annotation="" if level.pk in asked else annotated[task.pk].get(level.pk, ""),
                        wanted=level.pk in asked)
            for level in column.levels.all())
        context = ColumnContext(
            column=column.name, levels=levels, description=column.description, long_name=_long_name(task, column),
            units=column.units, sample_values=tuple(str(v) for v in (column.sample_values or [])),
            other_columns=_other_columns(task, column), **_task_context(task))
        options = WorkflowOptions.from_dict(runs[0].options)
        plan = ColumnPlan(column=column.name, context=context, schema_version=options.schema_version,
                          no_extend=options.no_extend)
        for run in runs:
            plan.sessions.setdefault(run.dataset_level.value, []).append(str(run.pk))
        plans.append(plan)
    return plans


def _store_calls(session_id: str, result: ColumnResult) -> list[int]:
    return [store_llm_call(session_id, call, 0) for call in result.calls]


def _notes(plan: ColumnPlan, result: ColumnResult) -> dict[str, str]:
    """What each level's run tells its reader of its draft."""
    carrier_value, _ = plan.carrier
    requests = f"{result.requests} request{'s' if result.requests != 1 else ''}"
    role = f" The model reads the column as {'an' if result.role == 'event' else 'a'} {result.role} column." \
        if result.role else ""
    notes = {}
    for value, draft in result.drafts.items():
        where = "stored with this run" if value == carrier_value else f"stored with the run of level `{carrier_value}`"
        note = (f"Drafted with the {len(result.drafts)} level(s) of column `{plan.column}` in {requests} ({where}), "
                f"knowing the task and the other columns.{role}")
        if draft.source == "offline":
            codes = ", ".join(dict.fromkeys(i.code for i in draft.issues)) or "no usable answer"
            note += (f" The model's HED for this level was still invalid after {draft.attempts} attempt(s) ({codes}): "
                     "the draft is the offline annotator's.")
        if draft.question:
            note += f" The model asks the lab: {draft.question}"
        notes[value] = note
    return notes


async def _draft_column(plan: ColumnPlan, model: ChatModel) -> ColumnResult:
    """Ask for the column, store its requests with the carrier run, and put each run's draft in *plan*."""
    result = await annotate_column(plan.context, model, schema_version=plan.schema_version, no_extend=plan.no_extend)
    _, carrier = plan.carrier
    for pk in await sync_to_async(_store_calls)(carrier, result):
        await broadcast(carrier, "usage", llm_call_id=pk)
    notes = _notes(plan, result)
    for value, draft in result.drafts.items():
        if result.error and draft.source == "offline":
            continue  # the model was not reached: the level's own run tries it again
        for session_id in plan.sessions.get(value, []):
            plan.drafts[session_id] = Draft(annotation=draft.annotation, note=notes[value])
    return result


def _owner(session_ids: list[str]) -> Any:
    session = AnnotationSession.objects.filter(pk__in=session_ids).select_related("user").first()
    return session.user if session is not None else None


async def column_drafts(session_ids: list[str], *, concurrency: int = 4, llm: ChatModel | None = None,
                        use_configured_llm: bool = True, **_: Any) -> dict[str, Draft]:
    """Each queued level run's draft, by session id: one :func:`annotate_column` per column, *concurrency* at a time.

    Takes the job's run options: the model given, else the configured one for the runs' owner; offline
    (no model) it asks nothing and returns no draft. A column that cannot be drafted leaves its levels'
    runs to annotate on their own, as without drafts.
    """
    if not session_ids:
        return {}
    owned: ChatModel | None = None
    if llm is None and use_configured_llm:
        llm = owned = await sync_to_async(chat_model_for)(await sync_to_async(_owner)(session_ids))
    if llm is None:
        return {}
    gate = asyncio.Semaphore(max(1, concurrency))
    drafts: dict[str, Draft] = {}
    unreachable = asyncio.Event()

    async def one(plan: ColumnPlan) -> None:
        async with gate:
            if unreachable.is_set():
                return
            try:
                result = await _draft_column(plan, llm)
            except Exception:
                logger.exception("column %s could not be drafted; its levels are annotated one by one", plan.column)
                return
            if result.error:
                unreachable.set()  # the next column would wait for the same endpoint to fail again
            drafts.update(plan.drafts)

    try:
        plans = await sync_to_async(_plans)(session_ids)
        await asyncio.gather(*(one(plan) for plan in plans))
    except Exception:
        logger.exception("the job's columns could not be drafted; their levels are annotated one by one")
    finally:
        if owned is not None:
            close = getattr(owned, "aclose", None)
            if close is not None:
                await close()
    logger.info("%d level run(s) of %d start from a column draft", len(drafts), len(session_ids))
    return drafts
