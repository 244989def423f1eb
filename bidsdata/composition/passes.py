"""The conventions a curator follows composing a sidecar, one pass each, in the order :data:`PASSES` gives.

Each pass takes the :class:`~.state.Draft` and applies one convention to it (its docstring says which).
Adding a convention is a function here and its place in :data:`PASSES`; a pass that applies to columns of
one role asks the draft for them (:meth:`~.state.Draft.columns`), so a new role is decided in
:func:`.roles.column_roles` and taken up by the passes that name it. The levels' own annotations are never
changed; what the sidecar does differently is reported in the draft's notes.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Callable, Mapping

from agents import conventions
from bidsdata.assembly import REPEATS_AT_ONSET, DroppedTags, drop_repeated, usable_templates, without_event_types
from bidsdata.composition import clock, cues, encoded, reading
from bidsdata.composition.definitions import conditions, lasting, repeated_content
from bidsdata.composition.displays import screen_displays
from bidsdata.composition.distinct import distinguish, level_texts
from bidsdata.composition.events import complete_event, event_groups, one_event, untimed
from bidsdata.composition.factorial import cross_factors
from bidsdata.composition.labels import implied_conditions, named_only
from bidsdata.composition.markers import with_marker_numbers
from bidsdata.composition.nesting import nested_columns, nested_items, reference, unreferenced
from bidsdata.composition.responses import into_response
from bidsdata.composition.roles import EVENT, MODIFIER, VALUE, column_roles
from bidsdata.composition.rows import NA
from bidsdata.composition.spans import with_spans
from bidsdata.composition.state import Draft
from bidsdata.composition.tags import has_event

logger = logging.getLogger(__name__)

Pass = Callable[[Draft], None]


def time_groups(draft: Draft) -> None:
    """An annotated level's ``(Duration/...)`` and ``(Delay/...)`` groups give their content to the level: inside
    an event group hedtools refuses them, and onsets and durations are the events file's
    (:func:`.events.untimed`). HED the lab uploaded stays as written."""
    for column, given in draft.chosen.items():
        info = draft.task.column(column)
        if not isinstance(given, Mapping) or info is None:
            continue
        uploaded = {lv.value: lv.existing_hed for lv in info.levels}
        # The lab's own HED is kept as written: a curator's (Delay/0.5 s, (event)) is a later event of its own.
        draft.chosen[column] = {level: hed if hed == uploaded.get(level) else untimed(hed)
                                for level, hed in given.items()}


def marker_numbers(draft: Draft) -> None:
    """Marker strings' numbers tag values (:mod:`.markers`); one-level columns beside a marker column that two
    events at one onset share are left out."""
    draft.chosen, marked = with_marker_numbers(draft.task, draft.chosen, draft.events, draft.version,
                                               rows=draft.rows)
    draft.notes += marked


def carried_templates(draft: Draft) -> None:
    """A ``#`` template no row can carry (values HED cannot hold) is left out; these notes come first. One whose
    value two rows at one onset share waits for :func:`nesting`: inside each row's event it is said once."""
    chosen, notes = usable_templates(draft.chosen, draft.events)
    waiting = {n.column: n for n in notes if n.reason.startswith("no template: " + REPEATS_AT_ONSET)}
    draft.notes[:0] = [n for n in notes if n.column not in waiting]
    draft.chosen = {c: dict(v) if isinstance(v, Mapping) else v for c, v in chosen.items()}
    draft.chosen.update({c: n.items[0] for c, n in waiting.items()})
    draft.waiting = waiting


def _padded(column: str, given: Mapping[str, str] | str, draft: Draft) -> str | None:
    """A value of *column* that begins or ends with whitespace, if any: a level key or a cell."""
    values = list(given) if isinstance(given, Mapping) else []
    values += [row[column] for row in draft.rows.all() if isinstance(row.get(column), str)]
    return next((v for v in values if v != v.strip() and v.strip() not in NA), None)


def padded_values(draft: Draft) -> None:
    """Columns whose values begin or end with spaces lose their HED, each with the fix as a note.

    hedtools uses a value exactly as written and refuses HED for a column holding a padded one (a tabular
    error for the whole file), so no annotation of the column can be kept: the lab must fix the data, and
    one such column must not send the whole task back to the levels' plain HED."""
    for column in list(draft.chosen):
        value = _padded(column, draft.chosen[column], draft)
        if value is None:
            continue
        del draft.chosen[column]
        draft.notes.append(DroppedTags(column, None, (), reason=(
            f"its values begin or end with spaces (such as {value!r}), and hedtools uses values exactly as "
            f"written: remove the spaces from column {column!r} in the events files, then annotate it again")))
        logger.info("column %s left without HED: padded value %r", column, value)


def clock_times(draft: Draft) -> None:
    """Value columns holding times on the recording's clock (when other parts of the trial happened) are left
    out, each with a note saying how to annotate those moments (:mod:`.clock`)."""
    for column in [c for c, given in draft.chosen.items() if isinstance(given, str) and c not in ("onset", "duration")]:
        if clock.on_the_clock(draft.rows.files.values(), column):
            del draft.chosen[column]
            draft.notes.append(DroppedTags(column, None, (), reason=clock.REASON, fix=clock.fix(column)))
            logger.info("column %s left without HED: times on the recording's clock", column)


def encodings(draft: Draft) -> None:
    """A code column that only encodes what word columns say on its rows gets no HED of its own (:mod:`.encoded`)."""
    for column, words in encoded.encoded_columns(draft.task, draft.chosen, draft.rows).items():
        draft.notes += encoded.notes(column, draft.chosen.pop(column), words)
        logger.info("column %s left without HED: its codes encode %s", column, words)


def roles(draft: Draft) -> None:
    """Each column gets its role: event, condition, modifier or value (:mod:`.roles`)."""
    draft.roles = column_roles(draft.task, draft.chosen, draft.rows, draft.known)


def lasting_events(draft: Draft) -> None:
    """Start/end codes of an event column become the Onset and Offset of one definition (:mod:`.definitions`)."""
    draft.lasting = lasting(draft.task, draft.chosen, draft.roles, draft.known, draft.defs, draft.modality,
                            functools.partial(reading.read, version=draft.version))


def condition_definitions(draft: Draft) -> None:
    """A condition column's levels become Condition-variable definitions, used as ``Def/...``."""
    draft.factors = conditions(draft.task, draft.chosen, draft.roles, draft.known, draft.defs)


def modifiers_without_event_types(draft: Draft) -> None:
    """Modifier columns add to their row's event: they lose event types of their own."""
    for column in draft.columns(MODIFIER):
        for level, hed in list(draft.chosen[column].items()):
            draft.chosen[column][level] = without_event_types(hed, draft.version)[0]


_INNERMOST = re.compile(r"\([^()]*\)")


def _completed_template(template: str, draft: Draft, column: str) -> str:
    """*template* with each innermost group that holds an event completed like a level's."""
    col = draft.task.column(column)
    said = cues.words(column, col.description if col else "")

    def complete(match: re.Match[str]) -> str:
        group = match.group(0)
        return complete_event(group[1:-1], said, draft.known, draft.modality) if has_event(group, draft.known) \
            else group

    return _INNERMOST.sub(complete, template)


def completed_templates(draft: Draft) -> None:
    """A value column's template that holds an event (inside a Delay group, say) has it completed like a
    level's: event type, task role, modality."""
    for column in draft.columns(VALUE):
        if has_event(draft.chosen[column], draft.known):
            draft.chosen[column] = _completed_template(draft.chosen[column], draft, column)


def completed_events(draft: Draft) -> None:
    """Each event level is one completed event: an event type, a task role and a modality, read from the
    level's description (or its name); lasting levels are their definitions' Onset/Offset already."""
    for column in draft.columns(EVENT):
        describe = draft.describe(column)
        for level, hed in draft.chosen[column].items():
            if (column, level) not in draft.lasting:
                text = cues.words(describe.get(level) or level.replace("_", " "))
                draft.chosen[column][level] = complete_event(hed, text, draft.known, draft.modality)


def displays(draft: Draft) -> None:
    """Screen displays that replace one another are the Onset of what each shows and the Offset of the one
    before (:mod:`.displays`)."""
    if draft.main is not None:
        screen_displays(draft.task, draft.chosen, draft.roles, draft.rows, draft.known, draft.defs,
                        draft.describe(draft.main))


def nesting(draft: Draft) -> None:
    """Which columns describe an event and go inside it (``{column}``) (:mod:`.nesting`); a template waiting to
    be nested (:func:`carried_templates`) that is not is left out now, with its note."""
    draft.nested = nested_columns(draft.chosen, draft.roles, draft.rows, draft.known)
    for column, note in draft.waiting.items():
        if column not in draft.nested:
            draft.chosen.pop(column, None)
            draft.notes.insert(0, note)
    draft.waiting = {}


def _beside_the_event(draft: Draft) -> bool:
    """Whether a modifier or value column that could not be nested puts a group of its own beside the event
    (a Delay group is an event of its own, and a condition's Def is no group)."""
    for column in draft.columns(MODIFIER, VALUE):
        given = draft.chosen.get(column)
        if column in draft.nested or not given:
            continue
        texts = [given] if isinstance(given, str) else list(given.values())
        if any("(" in t and "delay/" not in t.lower() and not has_event(t, draft.known) for t in texts):
            return True
    return False


def one_event_group(draft: Draft) -> None:
    """Where another column puts a group of its own beside the event, each event is one group."""
    if _beside_the_event(draft):
        for column in draft.columns(EVENT):
            draft.chosen[column] = {lv: one_event(h, draft.known) for lv, h in draft.chosen[column].items()}


def nested_references(draft: Draft) -> None:
    """The event column's levels name the nested columns (``{column}``) their rows fill, inside their event group."""
    if draft.nested:
        reference(draft.chosen, draft.columns(EVENT)[0], draft.nested, draft.known, draft.defs.strings,
                  rows=draft.rows)


_SHOWN = (("(Image,", "Visual-presentation"), ("(Movie,", "Visual-presentation"), ("(Sound,", "Auditory-presentation"))


def _presented(template: str) -> str | None:
    """The modality of a file column's template (``(Image, Pathname/#)`` is seen), None for any other column."""
    return next((modality for start, modality in _SHOWN if template.startswith(start)), None)


def responses(draft: Draft) -> None:
    """Columns telling of the response go into the response time's delayed action (:mod:`.responses`)."""
    draft.nested += [c for c in into_response(draft) if c not in draft.nested]


def shown_files(draft: Draft) -> None:
    """A picture or sound file named on a row whose event is an action (a response, say) was presented to the
    participant: a sensory event of its own beside the action, with its modality and the role the column's
    description gives it (feedback, a cue...), never a part of what the participant did."""
    events = draft.columns(EVENT)
    if not events:
        return
    files = {c: m for c in draft.nested if isinstance(draft.chosen.get(c), str)
             and (m := _presented(str(draft.chosen[c])))}
    levels = dict(draft.chosen[events[0]])
    for level, hed in levels.items():
        groups = event_groups(hed, draft.known)
        if not groups or any("Sensory-event" in g for g in groups):
            continue
        for column, modality in files.items():
            ref = "{" + column + "}"
            if ref not in groups[0]:
                continue
            info = draft.task.column(column)
            role = cues.stimulus_role(conventions.words(column.replace("_", " "), info.description if info else ""))
            hed = hed.replace(groups[0], re.sub(r",\s*" + re.escape(ref), "", groups[0], count=1), 1)
            hed = f"{hed}, (Sensory-event, {modality}, {role}, {ref})"
        levels[level] = hed
    draft.chosen[events[0]] = levels


def top_level_repeats(draft: Draft) -> None:
    """A tag two top-level columns give one event appears once (the nested ones are deduplicated inside their
    event) (:func:`.assembly.drop_repeated`)."""
    nested = draft.nested
    order = draft.columns(EVENT) + [c for c in draft.chosen if draft.roles.get(c) != EVENT]
    top, dropped = drop_repeated({c: v for c, v in draft.chosen.items() if c not in nested}, draft.events,
                                 [c for c in order if c not in nested], draft.version)
    draft.chosen = {**top, **{c: draft.chosen[c] for c in nested}}
    draft.notes += dropped


def crossed_factors(draft: Draft) -> None:
    """Levels named as crossed factors (``low_fast``) give each factor a definition (:mod:`.factorial`)."""
    draft.factors += cross_factors(draft.chosen, draft.roles, draft.glossary, draft.known, draft.version,
                                   draft.defs)


def distinct_levels(draft: Draft) -> None:
    """Levels of an event or modifier column are told apart by what their descriptions mean, else by a Label
    (:mod:`.distinct`)."""
    for column in draft.columns(EVENT, MODIFIER):
        levels = draft.chosen.get(column)
        if not isinstance(levels, Mapping) or len(levels) < 2:
            continue
        texts = level_texts(levels, draft.describe(column), draft.glossary)
        inner = column in draft.nested
        draft.chosen[column], named = distinguish(
            levels, texts, draft.known, draft.version, nested=draft.roles[column] == EVENT,
            hints=implied_conditions(column, draft) if inner else None,
            avoid=nested_items(draft.chosen, draft.roles, draft.nested, column, draft.known,
                               draft.defs.strings) if inner else None,
            # Only the main event column's Labels go without its name: two columns' "Label/0" in one
            # event would be a repeated tag.
            label_prefix=f"{column}-" if inner or column != draft.main else "")
        draft.labelled += [(column, lv) for lv in named]


def named_holes(draft: Draft) -> None:
    """A modifier level whose own HED only repeated its event's gets none, and a question.

    A ``Label`` in its place would add a name, not a meaning ("levels told apart only by a Label are not
    distinct"); with no HED of its own the level's rows still carry their event's, and the question asks what
    sets the level apart."""
    for column in [c for c in draft.columns(MODIFIER) if isinstance(draft.chosen.get(c), Mapping)]:
        for level in [lv for lv, h in draft.chosen[column].items() if not h.strip()]:
            del draft.chosen[column][level]
            draft.notes.append(DroppedTags(column, level, (), reason="its own HED only repeated what its event "
                                           "says; describe what sets it apart"))


def names_only(draft: Draft) -> None:
    """A column besides the main event column whose levels are told apart only by their names loses its HED
    (:func:`.labels.named_only`)."""
    draft.notes += named_only(draft)


def without_empty(draft: Draft) -> None:
    """Columns left with no HED leave the sidecar's HED; references to columns no longer there go too."""
    draft.chosen = {c: v for c, v in draft.chosen.items() if v}
    unreferenced(draft.chosen, draft.roles)


def covering_spans(draft: Draft) -> None:
    """Levels whose rows last over other events are headed by the row's duration (:mod:`.spans`)."""
    with_spans(draft.chosen, draft.columns(EVENT), list(draft.rows.files.values()), draft.known)


def shared_definitions(draft: Draft) -> None:
    """Content several levels repeat becomes one definition (:func:`.definitions.repeated_content`)."""
    repeated_content(draft.chosen, draft.roles, draft.known, draft.defs)


PASSES: tuple[Pass, ...] = (
    time_groups, marker_numbers, carried_templates, padded_values, clock_times, encodings, roles, lasting_events,
    condition_definitions, modifiers_without_event_types, completed_templates, completed_events, displays, nesting,
    one_event_group, nested_references, responses, shown_files, top_level_repeats, crossed_factors, distinct_levels,
    named_holes, names_only, without_empty, shared_definitions, covering_spans,
)
"""The conventions in the order they apply: each pass reads what the ones before it decided."""
