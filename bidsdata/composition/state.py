"""What composing a task's sidecar works on (:class:`Draft`) and what it gives (:class:`Composition`).

Each pass of :mod:`.passes` reads the draft and changes it where its convention says; the draft holds what
they all read (the task, its events rows, the schema's names) and what they decide on the way (the columns'
roles, the definitions, the nested columns, the labelled levels, the notes).
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from agents.schema import HedVersion
from bidsdata.assembly import DroppedTags
from bidsdata.composition import cues
from bidsdata.composition.definitions import ENTRY, Definitions, defined_names, free_entry
from bidsdata.composition.roles import EVENT
from bidsdata.composition.rows import EventRows
from bidsdata.composition.spans import DURATION, TEMPLATE, references_duration
from bidsdata.composition.tags import Names, names
from bidsdata.glossary import Glossary, readme_description
from bidsdata.inventory import TaskInventory
from bidsdata.types import ComposedHed, LevelAnnotations

MEDIA_VOTES = 3
"""Weight of each distinct stimulus file in the task's sense, against one per level's words."""


@dataclass
class Composition:
    """The sidecar's HED per column, its definitions entry, and what was decided on the way."""

    annotations: ComposedHed
    definitions: dict[str, object] | None = None
    roles: dict[str, str] = field(default_factory=dict)
    factors: list[str] = field(default_factory=list)
    labelled: list[tuple[str, str]] = field(default_factory=list)
    notes: list[DroppedTags] = field(default_factory=list)
    fallback: str = ""
    """Why the levels' own HED is used instead (a composition hedtools found errors in); empty when composed."""
    entry: str = ENTRY
    """The sidecar key of :attr:`definitions`: one no column or key of the lab's is named."""

    @property
    def spans(self) -> bool:
        """Whether levels are headed by their rows' duration (:mod:`.spans`): the duration column needs HED."""
        return references_duration(self.annotations)

    def apply(self, sidecar: dict[str, Any]) -> dict[str, Any]:
        """*sidecar* (built from :attr:`annotations`) with the definitions entry added, and the duration
        column's template where levels refer to it."""
        if self.definitions:
            sidecar[self.entry] = self.definitions
        if self.spans:
            entry = sidecar.get(DURATION)
            if not isinstance(entry, dict):
                entry = sidecar[DURATION] = {"Description": "The duration of the event, in seconds."}
            entry["HED"] = TEMPLATE
        return sidecar


def lab_names(task: TaskInventory, events: Mapping[str, str]) -> list[str]:
    """Every name the lab uses for a column or sidecar key: the composed entry must be none of them."""
    headers = [name for text in events.values() for name in text.partition("\n")[0].rstrip("\r").split("\t")]
    return [c.name for c in task.columns] + list(task.original_sidecar) + headers


@dataclass
class Draft:
    """A task's sidecar HED while the passes compose it.

    ``chosen`` is the one thing the passes rewrite (column -> level -> HED, or a template); the rest is what
    they read (the task, its rows, the schema's names) or record (roles, definitions, notes...).
    """

    task: TaskInventory
    events: Mapping[str, str]
    version: HedVersion | None
    chosen: ComposedHed
    known: Names
    rows: EventRows
    defs: Definitions
    notes: list[DroppedTags] = field(default_factory=list)
    roles: dict[str, str] = field(default_factory=dict)
    lasting: set[tuple[str, str]] = field(default_factory=set)
    factors: list[str] = field(default_factory=list)
    nested: list[str] = field(default_factory=list)
    labelled: list[tuple[str, str]] = field(default_factory=list)
    waiting: dict[str, DroppedTags] = field(default_factory=dict)
    """Templates kept only if nesting takes them, with the note they leave otherwise."""

    @classmethod
    def start(cls, task: TaskInventory, annotations: LevelAnnotations,
              events: Mapping[str, str], version: HedVersion | None) -> Draft:
        """The draft before any pass: the levels' own annotations, the events rows read once."""
        return cls(task=task, events=events, version=version, chosen=annotations,  # type: ignore[arg-type]
                   known=names(version), rows=EventRows.read(events),
                   defs=Definitions(taken=defined_names(task.original_sidecar)))

    def composition(self) -> Composition:
        """What the passes decided, as the sidecar's composition."""
        return Composition(annotations=self.chosen, definitions=self.defs.entry() if self.defs.strings else None,
                           roles=self.roles, factors=self.factors, labelled=self.labelled, notes=self.notes,
                           entry=free_entry(lab_names(self.task, self.events)))

    def columns(self, *roles: str) -> list[str]:
        """The columns with one of *roles*, in role order (the order the passes treat them in)."""
        return [c for c, r in self.roles.items() if r in roles]

    @property
    def main(self) -> str | None:
        """The main event column: the first with the event role."""
        return next(iter(self.columns(EVENT)), None)

    def describe(self, column: str) -> dict[str, str]:
        """level -> the level's own description, where the lab gave one."""
        col = self.task.column(column)
        if col is None:
            return {}
        return {lv.value: lv.description for lv in col.levels if lv.description and not lv.needs_description}

    @functools.cached_property
    def modality(self) -> str:
        """The sense most of the task's levels are presented to: the default for a sensory event that says none."""
        said: Counter[str] = Counter()
        for column in self.task.columns:
            for level in column.levels:
                said[cues.modality(cues.words(level.description, level.value), "")] += 1
        context = getattr(self.task, "context", None)
        if context is not None:
            for text in (getattr(context, "task_description", ""), getattr(context, "readme", "")):
                said[cues.modality(cues.words(text or ""), "")] += 1
        said[cues.modality(cues.label_words(self.task.task), "")] += 1
        # What the stimulus files are (sounds, pictures) outweighs what their names happen to say.
        said.update({sense: MEDIA_VOTES * count for sense, count in cues.media_senses(self.rows.all()).items()})
        said.pop("", None)
        return said.most_common(1)[0][0] if said else "Visual-presentation"

    @functools.cached_property
    def glossary(self) -> Glossary:
        """The task's own words, most specific first, for reading what its level codes abbreviate."""
        context = self.task.context
        return Glossary.of([
            [context.task_name, context.task_description],
            [readme_description(context.readme), context.instructions],
            [c.description for c in self.task.columns if c.description and not c.needs_description]])
