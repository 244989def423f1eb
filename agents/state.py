"""Typed workflow state: the only channel through which agents exchange data."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from agents.schema import DEFAULT_SCHEMA_VERSION

AgentName = Literal["annotation", "validation", "feedback", "evaluation", "assessment", "vision", "memory"]
RunStatus = Literal["succeeded", "invalid", "failed", "cancelled"]

MAX_DESCRIPTION_CHARS = 5000


@dataclass(frozen=True)
class WorkflowOptions:
    schema_version: str = DEFAULT_SCHEMA_VERSION
    max_validation_attempts: int = 3
    max_total_iterations: int = 5
    run_assessment: bool = False
    no_extend: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> WorkflowOptions:
        known = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        return cls(**known)


@dataclass(frozen=True)
class ValidationIssue:
    code: str
    message: str
    severity: Literal["error", "warning"] = "error"
    hint: str = ""
    tag: str = ""

    @property
    def is_error(self) -> bool:
        return self.severity == "error"


@dataclass(frozen=True)
class LLMCall:
    """One request to a language model, as the provider answered it."""

    agent: str
    model: str
    request: str
    response: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    latency_ms: float = 0.0
    cache_hit: bool = False
    error: str = ""
    error_kind: str = ""  # LLMError.kind of a failed call: error, timeout or refused


@dataclass(frozen=True)
class Evaluation:
    is_faithful: bool
    feedback: str = ""
    # Terms a known tag would express but the annotation leaves out.
    uncovered_terms: tuple[str, ...] = ()
    suggestions: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Content words of the description that neither the lexicon nor the schema knows: nothing expresses them.
    unknown_terms: tuple[str, ...] = ()
    # Share (0..1) of the description's content words the checker understood and found expressed.
    confidence: float = 1.0
    # True when most of the description was not understood: the verdict then rests on little.
    low_confidence: bool = False


@dataclass(frozen=True)
class MemoryExample:
    """An annotation offered to later runs of similar descriptions: one a reviewer stood by (any user's runs may
    have it), or the run's owner's own correction (only her runs get it). *origin* says which."""

    description: str
    annotation: str
    source_id: str
    origin: str = "reviewed"  # "reviewed" (a reviewer wrote or accepted it) or "own" (the run's owner corrected it)


@dataclass(frozen=True)
class Draft:
    """An annotation written before the run (with its column's siblings, in one request): the first attempt.

    The run takes it instead of asking the annotator, then validates and evaluates it as usual; *note*
    tells the reader where it came from (and any question the model had for the lab).
    """

    annotation: str
    note: str = ""


@dataclass(frozen=True)
class Assessment:
    is_complete: bool
    feedback: str = ""
    missing: tuple[str, ...] = ()


@dataclass
class Iteration:
    """One annotation attempt and what the other agents said of it."""

    number: int
    annotation: str = ""
    issues: list[ValidationIssue] = field(default_factory=list)
    feedback: str = ""
    evaluation: Evaluation | None = None
    # What the annotator wants a reader to know about this attempt (events split, memory reused).
    notes: list[str] = field(default_factory=list)

    @property
    def errors(self) -> list[ValidationIssue]:
        return [i for i in self.issues if i.is_error]

    @property
    def is_valid(self) -> bool:
        return bool(self.annotation.strip()) and not self.errors


@dataclass(frozen=True)
class AgentStep:
    """What one agent did; sent to the observer as it happens."""

    seq: int
    agent: AgentName
    iteration: int
    action: str
    input_summary: str = ""
    output: str = ""
    duration_ms: float = 0.0
    issues: tuple[ValidationIssue, ...] = ()
    feedback: str = ""
    ok: bool = True


@dataclass
class AnnotationState:
    description: str
    options: WorkflowOptions = field(default_factory=WorkflowOptions)
    image_description: str = ""
    iterations: list[Iteration] = field(default_factory=list)
    pending_feedback: str = ""
    evaluation: Evaluation | None = None
    assessment: Assessment | None = None
    llm_calls: list[LLMCall] = field(default_factory=list)
    steps: list[AgentStep] = field(default_factory=list)
    status: RunStatus | None = None
    error: str = ""
    # Set when a later refinement failed validation: the run keeps its last valid attempt.
    selected: int | None = None
    # Accepted annotations of similar descriptions (chosen by the caller, see agents.memory).
    examples: list[MemoryExample] = field(default_factory=list)
    # Source ids of the examples this run actually used (in the prompt, or reused outright).
    examples_used: list[str] = field(default_factory=list)
    # The separate events found in the description (one text each) when it tells of more than one.
    events: list[str] = field(default_factory=list)
    # Run-level messages for the reader: multi-event splits, reused annotations.
    notes: list[str] = field(default_factory=list)
    # The first attempt, when one was written before the run (a dataset column's draft).
    draft: Draft | None = None

    @property
    def current(self) -> Iteration | None:
        return self.iterations[-1] if self.iterations else None

    @property
    def final(self) -> Iteration | None:
        """The attempt the run stands by: the selected one, else the latest."""
        if self.selected is not None:
            return self.iterations[self.selected - 1]
        return self.current

    @property
    def annotation(self) -> str:
        return self.final.annotation if self.final else ""

    @property
    def is_valid(self) -> bool:
        return bool(self.final and self.final.is_valid)

    @property
    def is_faithful(self) -> bool | None:
        return self.evaluation.is_faithful if self.evaluation else None

    def usage(self) -> dict[str, Any]:
        return {
            "llm_calls": len(self.llm_calls),
            "prompt_tokens": sum(c.prompt_tokens for c in self.llm_calls),
            "completion_tokens": sum(c.completion_tokens for c in self.llm_calls),
            "cost_usd": round(sum(c.cost_usd for c in self.llm_calls), 6),
        }
