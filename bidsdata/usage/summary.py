"""What a task contains: hedtools' tag counts over its events, grouped as the HED summary guide groups them.

hedtools' ``HedTagCounts`` counts, per tag, the events and files it occurs in; ``organize_tags`` sorts the
counts under titles by the first listed tag each one descends from (:data:`TAG_GROUPS`: the template of the
HED summary guide and of hedtools' ``summarize_hed_tags`` examples), the rest under "Other tags". The
events are assembled as ``summarize_hed_tags`` assembles them by default (:data:`SUMMARY_OPTIONS`: context
in, definitions replaced by their content, ``Condition-variable`` and ``Task`` taken out), from the same
store a search reads (:mod:`.search`).

Pure: no Django.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from agents.schema import HedVersion
from bidsdata.usage.assembly import Options
from bidsdata.usage.search import Store, store
from bidsdata.usage.sources import EventsSource, NeedTexts

logger = logging.getLogger(__name__)

TAG_GROUPS: dict[str, list[str]] = {
    "Sensory events": ["Sensory-event", "Sensory-presentation", "Task-stimulus-role", "Experimental-stimulus"],
    "Agent actions": ["Agent-action", "Agent", "Action", "Agent-task-role", "Task-action-type",
                      "Participant-response"],
    "Task properties": ["Task-property"],
    "Objects": ["Item"],
    "Properties": ["Property"],
}
"""Titles and the tags whose descendants they gather (hedtools' ``organize_tags`` template)."""
OTHER = "Other tags"
SUMMARY_OPTIONS = Options(include_context=True, replace_defs=True, remove_types=("Condition-variable", "Task"))


def _counts(found: Any, total: int) -> dict[str, Any]:
    info = found.get_info()
    return {"tag": info["tag"], "events": info["events"], "files": info["files"],
            "share": round(info["events"] / total, 4) if total else 0.0}


def tag_summary(task: str, sources: Sequence[EventsSource], version: HedVersion | None,
                options: Options = SUMMARY_OPTIONS, store_: Store | None = None) -> dict[str, Any]:
    """hedtools' tag counts of the task's events (``HedTagCounts``), grouped under :data:`TAG_GROUPS`.

    Answers ``{task, files, total_events, groups: [{title, tags: [{tag, events, files, share}]}], refused}``,
    the tags of each group by events, most first.
    """
    from hed.tools.analysis.hed_tag_counts import HedTagCounts

    store_ = store_ or store()
    need = [s.key for s in sources if not s.complete and store_.held(s.key, options) is None]
    if need:
        raise NeedTexts(need)
    counts = HedTagCounts(task, total_events=0)
    refused: dict[str, str] = {}
    for source in sources:
        events = store_.assembled_file(source, version, options)
        if events.refused:
            refused[source.path] = events.refused
            continue
        counts.total_events += len(events)
        for obj in events.objects:
            counts.update_tag_counts(obj, source.path)
    template, others = counts.organize_tags(TAG_GROUPS)
    groups = []
    for title, tags in TAG_GROUPS.items():
        found = [c for tag in tags for c in template.get(tag.casefold(), [])]
        groups.append({"title": title, "tags": sorted((_counts(c, counts.total_events) for c in found),
                                                      key=lambda t: (-t["events"], t["tag"]))})
    groups.append({"title": OTHER, "tags": sorted((_counts(c, counts.total_events) for c in others),
                                                  key=lambda t: (-t["events"], t["tag"]))})
    return {"task": task, "files": len(counts.files), "total_events": counts.total_events, "groups": groups,
            "refused": refused, "options": options.to_dict()}


__all__ = ["OTHER", "SUMMARY_OPTIONS", "TAG_GROUPS", "tag_summary"]
