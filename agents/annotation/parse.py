"""Read a HED string out of a model's free-text answer.

Models wrap the annotation in chatter ("Sure! Here is..."), code fences, quotes, markdown,
JSON objects or arrays, and trailing explanations.  The reader prefers, in order: a JSON
value under a known key, a labelled line ("HED annotation: ..."), then the line that looks
most like a list of tags.  An answer with nothing tag-like yields "" (fed back as PARSE_ERROR).
"""

from __future__ import annotations

import re

from agents.annotation.structure import load_structure, render_structure

# The longest annotation kept (the documented limit of a HED string, as the validate page and corrections hold it):
# a longer reply is no annotation a reviewer could read, and each copy of it would cost its size again.
MAX_ANNOTATION_CHARS = 20_000

_FENCE = re.compile(r"```[ \t]*([a-zA-Z]*)[ \t]*\n?(.*?)```", re.DOTALL)
_LABEL = re.compile(r"^\s*(?:(?:the|final|corrected|my)\s+)?(?:hed(?:\s+annotation|\s+string|\s+tags)?|annotation|"
                    r"answer|output|result)\s*(?:is)?\s*[:=\-]\s*", re.IGNORECASE)
_TAG_TOKEN = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*(?:/[^,()\s][^,()]*)?$")
_JSON_KEYS = ("annotation", "hed", "hed_string", "HED", "tags", "answer")
_QUOTES = "\"'`\u201c\u201d\u2018\u2019"  # straight, back and typographic quotes
_MIN_TAG_SHARE = 0.6  # of a line's comma-separated parts that must look like tags
_MARKDOWN = re.compile(r"^\s*(?:[-*•]\s+|\d+[.)]\s+|>\s*)")


def _from_json(text: str) -> str | None:
    """The annotation inside a JSON object or array, rendered to a HED string."""
    data = load_structure(text)
    if isinstance(data, str):
        return data
    if isinstance(data, list) and data:
        return render_structure(data) or None
    return None


def _clean(line: str) -> str:
    line = _MARKDOWN.sub("", line).replace("**", "").replace("__", "")
    line = line.strip().strip("`").strip()
    if len(line) >= 2 and line[0] == line[-1] and line[0] in "'\"":
        line = line[1:-1]
    line = line.strip().strip(_QUOTES).strip()
    # A sentence-final full stop is chatter, not part of the last tag (values never end in ".").
    return line[:-1].rstrip() if line.endswith(".") else line


def _tag_share(line: str) -> float:
    tokens = [t.strip() for t in re.split(r"[(),]", line) if t.strip()]
    if not tokens:
        return 0.0
    return sum(bool(_TAG_TOKEN.match(t)) for t in tokens) / len(tokens)


def _candidates(line: str) -> list[str]:
    """The line, and what follows a label or a colon on it ("Here it is: Red, Circle")."""
    out = [line]
    labelled = _LABEL.match(line)
    if labelled:
        out.insert(0, line[labelled.end():])
    if ": " in line:
        out.append(line.rsplit(": ", 1)[1])
    return [_clean(c) for c in out if c.strip()]


def parse_annotation(reply: str) -> str:
    """The HED string in *reply*, or "" when there is none to be found."""
    text = (reply or "").strip()
    if not text:
        return ""
    fenced = _FENCE.search(text)
    if fenced:
        text = fenced.group(2).strip()
    if text[:1] in "{[" or (fenced and fenced.group(1).lower() == "json"):
        found = _from_json(text)
        if found is not None:
            return _clean(found)
    elif "{" in text:
        found = _from_json(text)
        if found is not None and _tag_share(found) >= _MIN_TAG_SHARE:
            return _clean(found)
    best, best_score = "", 0.0
    for raw in (_MARKDOWN.sub("", ln).replace("**", "") for ln in text.splitlines() if ln.strip()):
        labelled = _LABEL.match(raw) is not None
        for candidate in _candidates(raw):
            share = _tag_share(candidate)
            if share < _MIN_TAG_SHARE:
                continue
            # Labelled lines win among tag-like ones; longer lists beat a stray word ("Okay").
            tokens = len([t for t in re.split(r"[(),]", candidate) if t.strip()])
            score = share + (0.5 if labelled else 0.0) + 0.01 * min(tokens, 20)
            if score > best_score:
                best, best_score = candidate, score
    return best if re.search(r"[A-Za-z]", best) else ""
