"""The pieces the composer works with: a *unit* per matched phrase or quantity, and HED groups of them."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Group:
    items: list[str | Group] = field(default_factory=list)
    keep: bool = False  # keep the parentheses even around a single tag


@dataclass
class Unit:
    tag: str
    kind: str
    first: int
    last: int
    term: str = ""  # the description's words this unit stands for
    used: bool = False
    extras: list[str | Group] = field(default_factory=list)  # bound attributes, relations, values

    def content(self) -> str | Group:
        return self.tag if not self.extras else Group([self.tag, *self.extras])
