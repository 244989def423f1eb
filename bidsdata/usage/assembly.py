"""An events file's rows assembled as hedtools assembles them for analysis, once per key and options.

hedtools' ``TabularInput`` joins each row's HED from the sidecar; its ``EventManager`` orders the events in
time (a ``Delay`` group becomes an event of its own at its delayed onset; rows of one onset are one event,
its first row), takes the events of temporal extent apart (``Onset``/``Offset``/``Duration``) and its
``HedTagManager`` gives one HED object per event: with the ongoing events as ``(Event-context, (...))``
unless context is left out, definitions kept as ``Def/...`` unless replaced, and the tags of the removed
types (``Condition-variable``, ``Task``...) taken out. :func:`assemble` is exactly that loop; an
:class:`Assembled` keeps its objects with each event's row in the file and its onset, so any number of
queries search them without assembling again.

A file hedtools refuses (onsets out of order, an unmatched ``Offset``, a bad column name, a ``Delay`` it
cannot convert) is an :class:`Assembled` with ``refused`` saying why, in one line, and no events.

Pure: no Django.
"""

from __future__ import annotations

import functools
import io
import json
import logging
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from agents.schema import HedVersion
from bidsdata import delays
from bidsdata.schemas import load_schema

logger = logging.getLogger(__name__)

TYPE_TAGS = ("Condition-variable", "Task", "Time-block")
"""The type tags hedtools' ``HedTypeManager`` manages (and a search may remove)."""


@dataclass(frozen=True)
class Options:
    """How rows are assembled: hedtools' defaults are context in, definitions as ``Def/...``, no type removed."""

    include_context: bool = True
    replace_defs: bool = False
    remove_types: tuple[str, ...] = ()

    @classmethod
    def of(cls, *, include_context: bool = True, replace_defs: bool = False,
           remove_types: Any = ()) -> Options:
        """Options from loose input: *remove_types* a comma-separated string or a list (order and case kept)."""
        if isinstance(remove_types, str):
            remove_types = remove_types.split(",")
        kept = tuple(dict.fromkeys(t.strip() for t in remove_types or () if t and t.strip()))
        return cls(include_context=bool(include_context), replace_defs=bool(replace_defs), remove_types=kept)

    def key(self) -> tuple[Any, ...]:
        return (self.include_context, self.replace_defs, tuple(t.casefold() for t in self.remove_types))

    def to_dict(self) -> dict[str, Any]:
        return {"include_context": self.include_context, "replace_defs": self.replace_defs,
                "remove_types": list(self.remove_types)}


DEFAULTS = Options()
"""hedtools' own assembly: context in, definitions as ``Def/...``, no type removed."""


@dataclass
class Assembled:
    """One events file's events as hedtools assembles them: per event its row in the file (0-based, hedtools'
    ``original_index``), its onset and its HED object (None where the event has no HED)."""

    path: str
    rows: list[int] = field(default_factory=list)
    onsets: list[float | None] = field(default_factory=list)
    objects: list[Any] = field(default_factory=list)
    refused: str | None = None
    """Why hedtools could not assemble the file (then there are no events)."""

    def __len__(self) -> int:
        return len(self.objects)

    def hed(self, index: int) -> str:
        found = self.objects[index]
        return str(found) if found else ""


def refusal(exc: BaseException) -> str:
    """Why hedtools refused a file, in one line (its own code and message, else the error's name)."""
    message = getattr(exc, "message", None)  # hedtools' HedFileError: code, message, filename
    text = " ".join(str(message if isinstance(message, str) else exc).split())
    code = getattr(exc, "code", None)
    if code and code not in text:
        text = f"{code}: {text}" if text else str(code)
    return text or type(exc).__name__


def hed_sidecar(sidecar: Mapping[str, Any], version: HedVersion | None) -> Any:
    """hedtools' ``Sidecar`` of a sidecar dict, parsed once per content and schema (the files of a task share
    one, as a script's loop shares it: hedtools keeps the definitions it reads with a schema on it)."""
    return _parsed_sidecar(json.dumps(sidecar, sort_keys=True), json.dumps(version))


@functools.lru_cache(maxsize=32)
def _parsed_sidecar(text: str, version: str) -> Any:
    from hed.models import Sidecar

    return Sidecar(io.StringIO(text), name="events.json")


def event_manager(text: str, sidecar: Any, schema: Any, name: str) -> Any:
    """hedtools' ``EventManager`` of one events text read with *sidecar* (a hedtools ``Sidecar``)."""
    from hed.models import TabularInput
    from hed.tools.analysis.event_manager import EventManager

    return EventManager(TabularInput(io.StringIO(text), sidecar=sidecar, name=name), schema)


def _onset(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return None if number != number else number  # NaN: no onset


def assemble(path: str, text: str, sidecar: Mapping[str, Any] | Any, version: HedVersion | None,
             options: Options = DEFAULTS) -> Assembled:
    """*path*'s events (its *text* read with *sidecar*, a dict or hedtools ``Sidecar``) as hedtools assembles
    them with *options*: ``EventManager``, ``HedTagManager(remove_types)``, ``get_hed_objs``."""
    from hed.tools.analysis.hed_tag_manager import HedTagManager

    delays.install()  # hedtools' own Delay split, without its row-by-row frame growth (same frames)
    schema = load_schema(version)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            side = hed_sidecar(sidecar, version) if isinstance(sidecar, Mapping) else sidecar
            manager = event_manager(text, side, schema, path)
            tags = HedTagManager(manager, remove_types=list(options.remove_types))
            objects = tags.get_hed_objs(include_context=options.include_context, replace_defs=options.replace_defs)
        except Exception as exc:  # hedtools refuses the file: named with its reason, the rest searched
            logger.info("hedtools cannot assemble %s: %s", path, exc)
            return Assembled(path=path, refused=refusal(exc))
    rows = [int(i) for i in manager.original_index] if manager.original_index is not None else []
    onsets = [_onset(v) for v in manager.onsets] if manager.onsets is not None else []
    return Assembled(path=path, rows=rows, onsets=onsets, objects=list(objects))


__all__ = ["DEFAULTS", "TYPE_TAGS", "Assembled", "Options", "assemble", "event_manager", "hed_sidecar", "refusal"]
