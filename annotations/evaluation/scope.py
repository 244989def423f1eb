"""Which runs the evaluation table covers: every run the user may see, narrowed by a project, an evaluation
set, a date range, an owner, or the kind of run.

The date, owner and kind filters are the history's own (:mod:`annotations.history.filters`: one declaration,
one set of messages). A project or set the user may not see is a 404, as if it did not exist; a value a
filter cannot use is a 400 naming it. Another user's runs never enter a user's table: everything starts from
``selectors.visible_sessions``.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Q, QuerySet
from django.utils.http import urlencode

from annotations.datasets.selectors import visible_projects
from annotations.errors import NotFound, RequestError
from annotations.evaluation.sets import visible_set
from annotations.history.filters import BY_NAME, filter_sessions
from annotations.models import AnnotationSession, DatasetProject, EvaluationSet
from annotations.selectors import visible_sessions

HISTORY_FILTERS = ("date_from", "date_to", "user", "evaluations")
"""The history filters a scope takes (the table counts finished runs, so the others say little here)."""
PARAMETERS = ("project", "set", *HISTORY_FILTERS)


@dataclass(frozen=True)
class Scope:
    project: DatasetProject | None = None
    evaluation_set: EvaluationSet | None = None
    filters: Mapping[str, str] = field(default_factory=dict)
    batches: tuple[Any, ...] = ()  # the command line's own evaluations

    @property
    def query(self) -> dict[str, str]:
        """The scope as query parameters (links keep it)."""
        found = dict(self.filters)
        if self.project is not None:
            found["project"] = str(self.project.pk)
        if self.evaluation_set is not None:
            found["set"] = str(self.evaluation_set.pk)
        return found

    @property
    def query_string(self) -> str:
        return urlencode(self.query)

    @property
    def label(self) -> str:
        parts = []
        if self.evaluation_set is not None:
            parts.append(f"evaluations of the set {self.evaluation_set.name}")
        if self.project is not None:
            parts.append(f"runs of the project {self.project.name}")
        kind = self.filters.get("evaluations")
        if kind == "hide":
            parts.append("the lab's own runs (no evaluation runs)")
        elif kind == "only":
            parts.append("evaluation runs only")
        if self.filters.get("user"):
            parts.append(f"runs of {self.filters['user']}")
        if self.filters.get("date_from") or self.filters.get("date_to"):
            start, end = self.filters.get("date_from") or "the first", self.filters.get("date_to") or "today"
            parts.append(f"from {start} to {end}")
        return "; ".join(parts) or "every run you may see"


def _uuid(value: str, what: str) -> uuid.UUID:
    try:
        return uuid.UUID(value)
    except ValueError:
        raise NotFound(f"There is no such {what}.", field=what) from None


def read_scope(user: Any, params: Mapping[str, Any]) -> Scope:
    """The scope *params* ask for. Raises :class:`NotFound` for a project or set *user* may not see, and
    :class:`RequestError` naming each filter value that cannot be used."""
    project = None
    text = str(params.get("project") or "").strip()
    if text:
        project = visible_projects(user).filter(pk=_uuid(text, "project")).first()
        if project is None:
            raise NotFound("There is no such project.", field="project")
    text = str(params.get("set") or "").strip()
    evaluation_set = visible_set(user, text) if text else None
    filters = {name: value for name in HISTORY_FILTERS if (value := BY_NAME[name].value(params))}
    _, errors = filter_sessions(AnnotationSession.objects.none(), filters)
    if errors:
        name, message = next(iter(errors.items()))
        raise RequestError(message, field=name)
    return Scope(project=project, evaluation_set=evaluation_set, filters=filters)


def runs_in(scope: Scope, user: Any) -> QuerySet[AnnotationSession]:
    """The runs of *scope* that *user* may see (the command line, *user* None, sees every run)."""
    qs = AnnotationSession.objects.all() if user is None else visible_sessions(user)
    qs, _ = filter_sessions(qs, scope.filters)
    if scope.project is not None:
        qs = qs.filter(Q(dataset_level__column__task__project=scope.project)
                       | Q(evaluation_batch__set__project=scope.project))
    if scope.evaluation_set is not None:
        qs = qs.filter(evaluation_batch__set=scope.evaluation_set)
    if scope.batches:
        qs = qs.filter(evaluation_batch__in=scope.batches)
    return qs
