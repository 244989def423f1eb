"""Evaluation sets: a CSV of descriptions with their gold HED, or the reviewed annotations themselves.

Every set is bounded (``HEDIT_EVALUATION_MAX_ITEMS`` items, each description within the runs' own limit)
and checked whole before anything is stored. The same items make the same set (a digest of them): a file
evaluated again, or a project's reviewed annotations while no review changed, line up with their earlier
evaluations for the regression watch.
"""

from __future__ import annotations

import csv
import hashlib
import io
import logging
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q, QuerySet

from agents.workflow import InvalidInput, check_description
from annotations.access import REVIEWABLE_STATUSES, can_see_all
from annotations.errors import FieldError, NotFound, sentence
from annotations.models import AnnotationSession, DatasetProject, EvaluationItem, EvaluationSet, SetSource
from annotations.review_rules import accepted_by_reviews
from annotations.selectors import visible_sessions

logger = logging.getLogger(__name__)

MAX_GOLD_CHARS = 20000
MAX_KEY_CHARS = 200
MAX_CSV_BYTES = 2 * 1024 * 1024
REQUIRED_COLUMNS = ("description", "hed")


def setting_count(name: str, default: int) -> int:
    """A whole-number setting of at least 1; *default* when it is not one (``manage.py check`` reports that)."""
    value = str(getattr(settings, name, default)).strip()
    return int(value) if value.isdigit() and int(value) >= 1 else default


def max_items() -> int:
    """``HEDIT_EVALUATION_MAX_ITEMS``: the most items one set holds."""
    return setting_count("HEDIT_EVALUATION_MAX_ITEMS", 500)


@dataclass(frozen=True)
class Item:
    key: str
    description: str
    gold: str = ""
    source: AnnotationSession | None = None
    dataset: str = ""


def visible_sets(user: Any) -> QuerySet[EvaluationSet]:
    """Sets *user* may see and evaluate: their own; reviewers and staff see every set (as they see every run)."""
    if user is None or not user.is_authenticated:
        return EvaluationSet.objects.none()
    return EvaluationSet.objects.all() if can_see_all(user) else EvaluationSet.objects.filter(owner=user)


def visible_set(user: Any, pk: Any) -> EvaluationSet:
    """The set *pk* if *user* may see it, else :class:`NotFound` (someone else's set is as good as none)."""
    try:
        found = visible_sets(user).filter(pk=uuid.UUID(str(pk))).first()
    except ValueError:  # a malformed id is no set either
        found = None
    if found is None:
        raise NotFound("There is no such evaluation set.", field="set")
    return found


# --- a CSV of description and HED ------------------------------------------------------------------


def read_gold(text: str, *, field: str = "file") -> list[Item]:
    """The rows of a gold CSV (columns description and hed; id and dataset if present), every one checked.

    Raises :class:`FieldError` on *field* naming the first problem (a missing column, an empty or overlong
    description, too many rows), so nothing half-read is stored.
    """
    if len(text.encode("utf-8", "replace")) > MAX_CSV_BYTES:
        raise FieldError(field, f"The file is larger than {MAX_CSV_BYTES // (1024 * 1024)} MiB.")
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    columns = [c.strip().lower() for c in reader.fieldnames or []]
    missing = [c for c in REQUIRED_COLUMNS if c not in columns]
    if missing:
        raise FieldError(field, f"The CSV needs the columns description and hed; it has no {' or '.join(missing)} "
                                f"column (it has: {', '.join(columns) or 'none'}).")
    limit = max_items()
    items: list[Item] = []
    for number, raw in enumerate(reader, start=1):
        row = {(k or "").strip().lower(): (v or "") for k, v in raw.items() if isinstance(v, str)}
        if not any(value.strip() for value in row.values()):
            continue  # a blank line
        if len(items) == limit:
            raise FieldError(field, f"The CSV has more than {limit} rows (HEDIT_EVALUATION_MAX_ITEMS).")
        try:
            description = check_description(row.get("description", ""))
        except InvalidInput as exc:
            raise FieldError(field, sentence(f"row {number}: {exc}")) from exc
        gold = " ".join(row.get("hed", "").split())
        if len(gold) > MAX_GOLD_CHARS:
            raise FieldError(field, f"Row {number}: the HED is {len(gold)} characters; the limit is {MAX_GOLD_CHARS}.")
        key = (row.get("id") or "").strip() or str(number)
        if len(key) > MAX_KEY_CHARS:
            raise FieldError(field, f"Row {number}: the id is longer than {MAX_KEY_CHARS} characters.")
        items.append(Item(key=key, description=description, gold=gold, dataset=row.get("dataset", "").strip()[:200]))
    if not items:
        raise FieldError(field, "The CSV has no rows.")
    return items


# --- the reviewed annotations ----------------------------------------------------------------------


def reviewed_runs(user: Any, project: DatasetProject | None = None) -> QuerySet[AnnotationSession]:
    """Runs *user* may see whose annotation reviewers stand by (accepted as is, or corrected), oldest first;
    a project's level runs only with *project*. Evaluation runs are never gold."""
    runs = AnnotationSession.objects.all() if user is None else visible_sessions(user)  # None: the command line
    qs = (runs.filter(status__in=REVIEWABLE_STATUSES, evaluation_batch__isnull=True)
          .exclude(final_annotation="").exclude(description="")
          .filter(accepted_by_reviews() | ~Q(final_annotation=F("machine_annotation"))))
    if project is not None:
        qs = qs.filter(dataset_level__column__task__project=project)
    return qs.order_by("created_at", "pk")


def reviewed_items(user: Any, project: DatasetProject | None = None) -> tuple[list[Item], int]:
    """The newest reviewed runs as items (at most ``max_items()``, oldest first), and how many there are in all."""
    qs = reviewed_runs(user, project)
    total = qs.count()
    newest = list(qs.order_by("-created_at", "-pk")[: max_items()])
    newest.reverse()
    return [Item(key=str(s.pk), description=s.description, source=s) for s in newest], total


# --- storing a set ---------------------------------------------------------------------------------


def _digest(source: str, project: DatasetProject | None, items: Sequence[Item]) -> str:
    digest = hashlib.sha256(f"{source}\0{project.pk if project else ''}\0".encode())
    for item in items:
        for part in (item.key, item.description, item.gold, str(item.source.pk) if item.source else "", item.dataset):
            digest.update(part.encode())
            digest.update(b"\0")
    return digest.hexdigest()


def save_set(*, owner: Any, name: str, source: str, items: Sequence[Item],
             project: DatasetProject | None = None) -> EvaluationSet:
    """The stored set of *items*: the one already saved with the same owner and items, or a new one."""
    if not items:
        raise FieldError("set", "An evaluation set needs at least one description.")
    if source == SetSource.REVIEWED and not all(item.source is not None for item in items):
        raise FieldError("set", "Every item of a reviewed set is a reviewed run.")
    owner = owner if owner is not None and owner.is_authenticated else None
    digest = _digest(source, project, items)
    with transaction.atomic():
        found = EvaluationSet.objects.filter(owner=owner, digest=digest).first()
        if found is not None:
            return found
        saved = EvaluationSet.objects.create(owner=owner, project=project, name=name[:200], source=source,
                                             digest=digest)
        EvaluationItem.objects.bulk_create(
            EvaluationItem(set=saved, position=n, key=item.key[:MAX_KEY_CHARS], description=item.description,
                           gold=item.gold, source=item.source, dataset=item.dataset)
            for n, item in enumerate(items, start=1))
    logger.info("evaluation set %s saved: %s (%d items)", saved.pk, saved.name, len(items))
    return saved


def gold_set(owner: Any, name: str, text: str, *, project: DatasetProject | None = None,
             field: str = "file") -> EvaluationSet:
    """The set of a gold CSV's rows (:func:`read_gold`)."""
    return save_set(owner=owner, name=name, source=SetSource.GOLD, items=read_gold(text, field=field), project=project)


def reviewed_set(owner: Any, project: DatasetProject | None = None) -> EvaluationSet:
    """The set of the reviewed annotations *owner* may see (of *project*'s levels, with one)."""
    items, total = reviewed_items(owner, project)
    if not items:
        where = f"project {project.name}" if project is not None else "the runs you may see"
        raise FieldError("set", f"No reviewed annotation in {where} yet: reviewers accept or correct runs first.")
    name = f"Reviewed annotations of {project.name}" if project is not None else "Reviewed annotations"
    if total > len(items):
        name += f" (newest {len(items)} of {total})"
    return save_set(owner=owner, name=name, source=SetSource.REVIEWED, items=items, project=project)
