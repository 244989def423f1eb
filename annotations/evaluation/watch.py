"""The regression watch: a saved set's evaluations compared, and the set run again when its model changes.

For each set, its newest finished evaluation is compared with the newest before it of another configuration (of
the same model named, where there is one):
the F1 change over the items both scored, with the 95% interval of that change (the items resampled in pairs),
and a flag when F1 fell by more than the interval allows (the whole interval below zero). A watched set is run
again (:func:`rerun_changed`) when the configuration its last evaluation's model would have now (the model, the
prompts or the default schema changed) is not the one it ran with.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest

from agents.llm.configuration import ModelConfiguration
from agents.scoring import Counts, Interval, f1_change
from annotations.errors import caught
from annotations.evaluation.batches import configuration_now, start_evaluation
from annotations.evaluation.selectors import run_facts
from annotations.evaluation.sets import visible_sets
from annotations.evaluation.table import TagFigures, tag_counts, tag_figures
from annotations.models import AnnotationSession, EvaluationBatch, EvaluationSet

logger = logging.getLogger(__name__)


def configuration_of_batch(batch: EvaluationBatch) -> ModelConfiguration:
    return ModelConfiguration(batch.provider, batch.model, batch.constraint, batch.prompt_version,
                              batch.schema_version)


def default_schema() -> str:
    return str(getattr(settings, "HEDIT_DEFAULT_SCHEMA", "8.4.0"))


@dataclass(frozen=True)
class Evaluated:
    """One finished evaluation's F1 over its scored items, and each item's counts (for pairing)."""

    batch: EvaluationBatch
    figures: TagFigures
    by_item: dict[int, Counts]

    @property
    def configuration(self) -> ModelConfiguration:
        return configuration_of_batch(self.batch)


def evaluated(batch: EvaluationBatch) -> Evaluated:
    scored = [f for f in run_facts(AnnotationSession.objects.filter(evaluation_batch=batch))
              if f.gold is not None and f.item_id is not None]
    by_item = {f.item_id: tag_counts(f) for f in scored if f.item_id is not None}
    return Evaluated(batch, tag_figures(list(by_item.values())), by_item)


@dataclass(frozen=True)
class SetWatch:
    evaluation_set: EvaluationSet
    latest: Evaluated | None
    previous: Evaluated | None
    change: float | None
    interval: Interval | None
    paired: int  # items both evaluations scored
    now: ModelConfiguration | None  # what a re-run would run with, when that differs from the latest
    running: int  # evaluations of the set still running

    @property
    def fell(self) -> bool:
        """F1 fell by more than its interval: the whole 95% interval of the change is below zero."""
        return self.interval is not None and self.interval.high < 0

    @property
    def changed(self) -> bool:
        return self.now is not None

    @property
    def change_text(self) -> str:
        return "" if self.change is None else f"{self.change:+.3f}"


def _rerun_choice(evaluation_set: EvaluationSet, latest: EvaluationBatch) -> tuple[str, ModelConfiguration | None]:
    """The model a re-run uses (the last evaluation's, else the owner's current one) and its configuration now,
    None when it cannot run."""
    for choice in dict.fromkeys((latest.model_choice, "")):
        found, reason = configuration_now(evaluation_set.owner, choice, default_schema())
        if not reason:
            return choice, found
    return latest.model_choice, None


def watch_of(evaluation_set: EvaluationSet) -> SetWatch:
    batches = list(evaluation_set.batches.order_by("-created_at"))
    running = sum(b.status == "running" for b in batches)
    finished = [b for b in batches if b.status == "done"]
    if not finished:
        return SetWatch(evaluation_set, None, None, None, None, 0, None, running)
    latest = evaluated(finished[0])
    # The same model named before, else any: a prompt or schema change of one model is what the watch is for.
    others = [b for b in finished[1:] if configuration_of_batch(b) != latest.configuration]
    earlier = next((b for b in others if b.model_choice == finished[0].model_choice), others[0] if others else None)
    previous = evaluated(earlier) if earlier is not None else None
    change, interval, paired = None, None, 0
    if previous is not None:
        common = sorted(set(latest.by_item) & set(previous.by_item))
        paired = len(common)
        if common:
            change, interval = f1_change([previous.by_item[i] for i in common], [latest.by_item[i] for i in common])
    _, now = _rerun_choice(evaluation_set, finished[0])
    now = now if now is not None and now != latest.configuration else None
    return SetWatch(evaluation_set, latest, previous, change, interval, paired, now, running)


def watches(user: Any, limit: int = 20) -> list[SetWatch]:
    """The watch of the newest sets *user* may see (a set's figures read its evaluations' runs)."""
    return [watch_of(s) for s in visible_sets(user).select_related("owner", "project")[:limit]]


def _changed(sets: Iterable[EvaluationSet]) -> list[tuple[EvaluationSet, str]]:
    """Watched sets idle and evaluated before, whose re-run would now run with another configuration."""
    found = []
    for evaluation_set in sets:
        batches = list(evaluation_set.batches.order_by("-created_at")[:1])
        if not batches or batches[0].status == "running":
            continue
        choice, now = _rerun_choice(evaluation_set, batches[0])
        if now is not None and now != configuration_of_batch(batches[0]):
            found.append((evaluation_set, choice))
    return found


def rerun_changed(user: Any = None) -> list[EvaluationBatch]:
    """Start an evaluation of each watched set (of *user*, or every owner's from the command line) whose model,
    prompts or schema changed since its last evaluation. A quota or model refusal raises and starts no more."""
    sets = EvaluationSet.objects.filter(watch=True).select_related("owner")
    if user is not None:
        sets = sets.filter(owner=user)
    started = []
    for evaluation_set, choice in _changed(sets):
        started.append(start_evaluation(evaluation_set, user=evaluation_set.owner, model=choice,
                                        schema_version=default_schema()))
        logger.info("watched set %s evaluated again: its configuration changed", evaluation_set.pk)
    return started


def rerun_watched(request: HttpRequest) -> None:
    """The model-changed hook (:data:`annotations.hooks.MODEL_CHANGED`): the user's watched evaluation sets run
    again with their new model (the regression watch), said in a message either way."""
    with caught() as outcome:
        started = rerun_changed(request.user)
    if outcome.failed:
        messages.warning(request, f"Your watched evaluation sets were not run again: {outcome.message}")
    elif started:
        count = len(started)
        messages.info(request, f"Your model changed: {count} watched evaluation set{'s' if count != 1 else ''} "
                               f"{'are' if count != 1 else 'is'} being evaluated again (Evaluation page).")
