"""The column agent's messages: the rules (stable per configuration), the column in its context, feedback.

Everything taken from a dataset is bounded here: a README's opening, the task's texts, a few other
columns with a few values each, and the levels listed (the ones asked for always, their siblings up to a
limit), so a large column or a long README cannot blow up the prompt.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path

from agents.annotation.constrained import TagForm, tag_forms, tag_lines
from agents.columns.context import ColumnContext, ColumnLevel
from agents.llm.base import Message
from agents.offline.lexicon import candidate_tags
from agents.state import ValidationIssue
from agents.vocabulary import TagInfo, get_vocabulary

_PROMPTS = Path(__file__).parent / "prompts"
README_CHARS = 1500
TASK_CHARS = 600
LEVEL_CHARS = 200
MAX_OTHER_COLUMNS = 15
OTHER_COLUMN_LEVELS = 6
MAX_LISTED_LEVELS = 60
SLICE_PER_LEVEL = 12
SLICE_SIZE = 90
_MEANING_CHARS = 110
# Always offered: the event types and roles most levels of an events file need.
BASIC_TAGS = ("Sensory-event", "Agent-action", "Experiment-control", "Experiment-structure", "Data-feature",
              "Visual-presentation", "Auditory-presentation", "Participant-response", "Experimental-stimulus",
              "Cue", "Instructional", "Feedback", "Experiment-participant", "Label")


@functools.cache
def _template(name: str) -> str:
    return (_PROMPTS / name).read_text(encoding="utf-8")


def clip(text: str, limit: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


@functools.cache
def system_prompt(schema_version: str, no_extend: bool, structured: bool) -> str:
    extension_rule = ("Never extend tags with new terms; use existing tags only." if no_extend or structured
                      else "Extend a tag (Parent/New-term) only when no listed tag fits.")
    answer = _template("answer_structured.txt" if structured else "answer_text.txt").strip().format()
    return _template("system.txt").format(schema_version=schema_version, extension_rule=extension_rule,
                                          answer_format=answer).strip()


def vocabulary_slice(context: ColumnContext, targets: Sequence[ColumnLevel],
                     schema_version: str) -> tuple[list[TagForm], dict[str, TagInfo]]:
    """Tags for each level asked for (its own retrieval, so no level is crowded out), then the basics."""
    vocabulary = get_vocabulary(schema_version)
    about = " ".join(p for p in (context.long_name, context.description) if p)
    infos: dict[str, TagInfo] = {}
    for level in targets:
        for info in candidate_tags(f"{level.text} {about}".strip(), vocabulary, limit=SLICE_PER_LEVEL):
            infos.setdefault(info.name, info)
    for name in BASIC_TAGS:
        info = vocabulary.get(name)
        if info is not None:
            infos.setdefault(info.name, info)
    chosen = list(infos.values())[:SLICE_SIZE]
    return tag_forms(chosen, vocabulary), {i.name: i for i in chosen}


def _meaning(description: str) -> str:
    return clip(description, _MEANING_CHARS)


def _study(context: ColumnContext) -> str:
    return f"The study (its README):\n{clip(context.readme, README_CHARS)}\n\n" if context.readme.strip() else ""


def _labelled(fields: Sequence[tuple[str, str, int]], end: str) -> str:
    """``Label: text`` lines for the fields that say something, each clipped to its limit."""
    lines = [f"{label}: {clip(text, limit)}" for label, text, limit in fields if text.strip()]
    return "\n".join(lines) + end if lines else ""


def _task(context: ColumnContext) -> str:
    return _labelled([("Task", context.task_name, 200), ("Task description", context.task_description, TASK_CHARS),
                      ("Instructions to the participants", context.instructions, TASK_CHARS)], "\n\n")


def _other_columns(context: ColumnContext) -> str:
    lines = []
    for other in context.other_columns[:MAX_OTHER_COLUMNS]:
        line = f"- {other.name} ({other.kind})"
        if other.description.strip():
            line += f": {clip(other.description, 160)}"
        if other.levels:
            shown = ", ".join(clip(v, 40) for v in other.levels[:OTHER_COLUMN_LEVELS])
            more = ", …" if len(other.levels) > OTHER_COLUMN_LEVELS else ""
            line += f" (values: {shown}{more})"
        lines.append(line)
    if len(context.other_columns) > MAX_OTHER_COLUMNS:
        lines.append(f"- and {len(context.other_columns) - MAX_OTHER_COLUMNS} more")
    return "\n".join(lines) or "(none)"


def _column_details(context: ColumnContext) -> str:
    return _labelled([("Long name", context.long_name, 200), ("Description", context.description, 400),
                      ("Units", context.units, 40)], "\n")


def _level_line(level: ColumnLevel) -> str:
    made_up = " (made up from the names)" if level.made_up else ""
    rows = f" [{level.count}]" if level.count else ""
    return f"- {level.value}: {clip(level.text, LEVEL_CHARS)}{made_up}{rows}"


def _levels(context: ColumnContext, targets: Sequence[ColumnLevel]) -> str:
    asked = {level.value for level in targets}
    siblings = [level.value for level in context.levels if level.value not in asked]
    room = max(0, MAX_LISTED_LEVELS - len(targets))
    shown = asked | set(siblings[:room])
    listed = [level for level in context.levels if level.value in shown]
    lines = [_level_line(level) for level in listed]
    if len(siblings) > room:
        lines.append(f"- and {len(siblings) - room} more levels")
    return "\n".join(lines)


def _annotated(context: ColumnContext) -> str:
    done = [level for level in context.levels if level.annotation.strip()][:MAX_LISTED_LEVELS // 2]
    if not done:
        return ""
    lines = [f"- {level.value}: {clip(level.annotation, 300)}" for level in done]
    return "Levels already annotated (keep to their style):\n" + "\n".join(lines) + "\n"


def build_messages(context: ColumnContext, targets: Sequence[ColumnLevel], *, schema_version: str,
                   no_extend: bool, structured: bool, forms: list[TagForm],
                   infos: dict[str, TagInfo]) -> list[Message]:
    """System rules first (the same for every column of a configuration), then the column in its context."""
    user = _template("user.txt").format(
        study=_study(context), task=_task(context), other_columns=_other_columns(context),
        column=context.column, column_details=_column_details(context), levels=_levels(context, targets),
        annotated=_annotated(context), vocabulary=tag_lines(forms, infos, _meaning), count=len(targets),
        targets=", ".join(level.value for level in targets))
    return [{"role": "system", "content": system_prompt(schema_version, no_extend, structured)},
            {"role": "user", "content": user.strip()}]


def _issue_line(issue: ValidationIssue) -> str:
    where = f" ({issue.tag})" if issue.tag else ""
    hint = f" Hint: {issue.hint}" if issue.hint else ""
    return f"  - {issue.code}{where}: {clip(issue.message, 200)}{hint}"


def feedback_message(attempt: int, problem: str, bad: dict[str, tuple[str, list[ValidationIssue]]],
                     missing: Sequence[str], targets: Sequence[str]) -> Message:
    """One follow-up naming every level that needs another answer: its HED and errors, or that none came."""
    lines = []
    for value, (hed, issues) in bad.items():
        lines.append(f"- {value}: your HED {hed!r} failed validation:")
        seen: set[tuple[str, str]] = set()
        for issue in issues:
            if (issue.code, issue.tag) not in seen:
                seen.add((issue.code, issue.tag))
                lines.append(_issue_line(issue))
    lines += [f"- {value}: no HED was given." for value in missing]
    text = _template("feedback.txt").format(attempt=attempt, problem=problem, lines="\n".join(lines),
                                            targets=", ".join(targets))
    return {"role": "user", "content": "\n".join(line for line in text.splitlines() if line.strip())}
