"""What the column agent reads (a column of a task's events files, with the task's context) and returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from agents.state import LLMCall, ValidationIssue

ColumnRole = Literal["event", "condition", "modifier", ""]
ROLES: tuple[str, ...] = ("event", "condition", "modifier")


@dataclass(frozen=True)
class ColumnLevel:
    """One value of the column, as the events files hold it."""

    value: str
    description: str = ""
    count: int = 0
    # True when the description was made up from the column and level names (nobody described it).
    made_up: bool = False
    # An accepted annotation the level has already: shown for consistency, never asked for again.
    annotation: str = ""
    # False for a sibling shown for context only (say, a level another run is annotating).
    wanted: bool = True

    @property
    def text(self) -> str:
        """What the level means, as far as anyone said."""
        return self.description.strip() or self.value


@dataclass(frozen=True)
class OtherColumn:
    """Another column of the same events files, for context."""

    name: str
    kind: str  # categorical | value | skip
    description: str = ""
    levels: tuple[str, ...] = ()  # a few of its values


@dataclass(frozen=True)
class ColumnContext:
    """A categorical column to annotate, level by level, and everything known around it."""

    column: str
    levels: tuple[ColumnLevel, ...]
    description: str = ""
    long_name: str = ""
    units: str = ""
    sample_values: tuple[str, ...] = ()
    readme: str = ""
    task_name: str = ""
    task_description: str = ""
    instructions: str = ""
    other_columns: tuple[OtherColumn, ...] = ()

    @property
    def targets(self) -> tuple[ColumnLevel, ...]:
        """The levels to annotate: those wanted that have no accepted annotation."""
        return tuple(level for level in self.levels if level.wanted and not level.annotation.strip())


@dataclass(frozen=True)
class LevelDraft:
    """The annotation written for one level, valid HED whatever the model answered."""

    value: str
    annotation: str
    # "model": the model's answer validated; "offline": the offline annotator's, after the model's stayed
    # invalid (its last errors in *issues*) or the model could not be reached.
    source: Literal["model", "offline"]
    # The model's replies that asked for this level (0 when the model was never reached).
    attempts: int = 0
    issues: tuple[ValidationIssue, ...] = ()
    question: str = ""  # what the model would ask the lab about this level


@dataclass
class ColumnResult:
    """Every target level's draft, what the model said of the column, and each request it cost."""

    column: str
    drafts: dict[str, LevelDraft] = field(default_factory=dict)
    role: ColumnRole = ""
    definitions: dict[str, str] = field(default_factory=dict)
    questions: list[tuple[str, str]] = field(default_factory=list)  # (level, question)
    calls: list[LLMCall] = field(default_factory=list)
    # Set when the model could not be reached: the levels it had not answered validly are the offline annotator's.
    error: str = ""

    @property
    def requests(self) -> int:
        return len(self.calls)
