"""What the offline annotator's convention tests share: annotate (asserting validity), the tags it gave,
and hedtools' EventChecker verdict on an annotation."""

from __future__ import annotations

from hed.models import HedString
from hed.tools.analysis.event_checker import EventChecker

from agents.hedstring import parse_groups
from agents.offline import annotate_offline
from agents.schema import get_schema
from agents.validation import validate_hed


def flat(node: object) -> list[str]:
    return [node] if isinstance(node, str) else [t for child in node for t in flat(child)]  # type: ignore[union-attr]


def annotate(description: str) -> str:
    annotation = annotate_offline(description).annotation
    assert not [i for i in validate_hed(annotation, "8.4.0") if i.is_error], annotation
    return annotation


def tags(description: str) -> list[str]:
    return [t.split("/")[0] for t in flat(parse_groups(annotate(description)))]


def event_checker_issues(annotation: str) -> list[str]:
    return [i["code"] for i in EventChecker(HedString(annotation, get_schema("8.4.0")), 0).issues]
