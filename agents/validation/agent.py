"""Validate HED strings with hedtools and attach a remediation hint to each issue."""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING

from agents.hedstring import MAX_GROUP_DEPTH, group_depth
from agents.schema import get_schema
from agents.state import AnnotationState, ValidationIssue
from agents.validation.hints import hint_for

if TYPE_CHECKING:
    from hed.validator import HedValidator

logger = logging.getLogger(__name__)

_validator_lock = threading.Lock()
_validators: dict[str, HedValidator] = {}
# Bounds on the work one string can cause: real annotations have tens of tags, not thousands.
MAX_TAGS = 1000
MAX_ISSUES = 100
# Closest-tag suggestions cost a fuzzy search of the vocabulary each (~10 ms): only the first few get one.
MAX_SUGGESTIONS = 10


def hed_validator(version: str) -> HedValidator:
    """hedtools' validator for *version*: one per schema version and process, built once even when threads ask
    at the same moment (building one costs far more than a validation)."""
    from hed.validator import HedValidator

    schema = get_schema(version)
    with _validator_lock:
        validator = _validators.get(version)
        if validator is None:
            validator = _validators[version] = HedValidator(schema)
        return validator


def clear_validators() -> None:
    """Forget the validators built: the next validation of each version builds its own (tests count builds)."""
    with _validator_lock:
        _validators.clear()


def _suggest(tag: str, version: str) -> str:
    # The vocabulary is optional here: suggestions improve a hint but never block validation.
    try:
        from agents.vocabulary import get_vocabulary

        names = get_vocabulary(version).closest(tag.split("/")[0], limit=3)
    except Exception:  # pragma: no cover - defensive, suggestions are best effort
        logger.debug("no suggestions for %s", tag, exc_info=True)
        return ""
    return f" Closest tags: {', '.join(names)}." if names else ""


def validate_hed(hed: str, schema_version: str, *, no_extend: bool = False) -> list[ValidationIssue]:
    """All issues hedtools finds in *hed*, errors first.

    With *no_extend*, tag extensions (normally a warning) count as errors.
    """
    from hed.errors import ErrorSeverity
    from hed.models import HedString

    text = hed.strip()
    if not text:
        return [ValidationIssue(code="EMPTY_ANNOTATION", message="The annotation is empty.",
                                hint=hint_for("EMPTY_ANNOTATION"))]
    if group_depth(text) > MAX_GROUP_DEPTH:
        return [ValidationIssue(code="GROUP_TOO_DEEP", message=f"Groups nest more than {MAX_GROUP_DEPTH} deep.",
                                hint=hint_for("GROUP_TOO_DEEP"))]
    tags = text.count(",") + 1
    if tags > MAX_TAGS:
        return [ValidationIssue(code="TOO_MANY_TAGS", message=f"The annotation has about {tags} tags; the limit is "
                                f"{MAX_TAGS}.", hint=hint_for("TOO_MANY_TAGS"))]
    schema = get_schema(schema_version)
    validator = hed_validator(schema_version)
    with _validator_lock:  # hedtools validators keep per-call state
        raw = validator.validate(HedString(text, schema), allow_placeholders=False)
    issues: list[ValidationIssue] = []
    suggestions = 0
    for item in raw[:MAX_ISSUES]:
        code = str(item.get("code", "UNKNOWN"))
        error = item.get("severity", ErrorSeverity.ERROR) == ErrorSeverity.ERROR
        if code == "TAG_EXTENDED" and no_extend:
            error = True
        source = item.get("source_tag")
        tag = str(source) if source is not None else ""
        hint = hint_for(code)
        if code in {"TAG_INVALID", "TAG_EXTENDED", "TAG_EXTENSION_INVALID"} and tag and suggestions < MAX_SUGGESTIONS:
            suggestions += 1
            hint += _suggest(tag, schema_version)
        issues.append(ValidationIssue(code=code, message=str(item.get("message", "")).strip(),
                                      severity="error" if error else "warning", hint=hint, tag=tag))
    issues.sort(key=lambda i: not i.is_error)
    if len(raw) > MAX_ISSUES:
        issues.append(ValidationIssue(code="TOO_MANY_ISSUES", severity="warning", hint=hint_for("TOO_MANY_ISSUES"),
                                      message=f"{len(raw) - MAX_ISSUES} more issues are not listed."))
    return issues


def validate_annotation(state: AnnotationState) -> list[ValidationIssue]:
    """Agent entry point: validate the state's current annotation in place."""
    current = state.current
    assert current is not None, "validation runs after an annotation"
    current.issues = validate_hed(current.annotation, state.options.schema_version,
                                  no_extend=state.options.no_extend)
    return current.issues
