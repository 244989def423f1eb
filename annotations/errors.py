"""Errors that name the input at fault, so pages, the API and commands can say which field."""

from __future__ import annotations


class FieldError(ValueError):
    """A request that cannot be carried out because of *field*; *message* is shown as is."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message

    def as_dict(self) -> dict[str, list[str]]:
        return {self.field: [self.message]}


class RequestError(ValueError):
    """A request that cannot be carried out; the message is shown to the user as is."""


def sentence(text: str) -> str:
    """*text* as users read every message: a capital letter first, a full stop last.

    The agents and commands keep their lower-case one-liners (CLI style); the pages and the API
    pass them through here.
    """
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?", "…")) else text + "."
