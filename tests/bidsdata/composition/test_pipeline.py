"""One call gives a task's sidecar: composed, built, validated, the floor kept, its quality figures (issue 29)."""

from __future__ import annotations

import pickle

from bidsdata.composition.passes import PASSES
from bidsdata.pipeline import TaskResult, sidecar_for_task
from tests.bidsdata.composition.conftest import VERSION, composed_sidecar, task_of

EVENTS = (
    "onset\tduration\tkind\tside\n"
    "1.0\t0\tglow\tleft\n"
    "2.0\t0\ttap\tright\n"
    "3.0\t0\tglow\tright\n"
    "4.0\t0\ttap\tleft\n"
)
SIDECAR = {"kind": {"Levels": {"glow": "A green circle shows on the screen.", "tap": "The participant taps a key."}}}
ANNOTATIONS = {
    "kind": {"glow": "Sensory-event, (Circle, Green)", "tap": "Agent-action, (Press, Keyboard-key)"},
    "side": {"left": "Left-side-of", "right": "Right-side-of"},
}


class Memo:
    """Keeps every step's answer, as the web app's cache does; counts the computations."""

    def __init__(self) -> None:
        self.kept: dict[tuple[str, str], object] = {}
        self.computed: list[str] = []

    def remember(self, step, digest, compute):
        if (step, digest) not in self.kept:
            self.computed.append(step)
            self.kept[(step, digest)] = compute()
        return self.kept[(step, digest)]


def test_one_call_gives_the_composed_sidecar_its_verdict_and_its_figures() -> None:
    task = task_of(EVENTS, SIDECAR)
    events = {"sub-01_events.tsv": EVENTS}
    result = sidecar_for_task(task, ANNOTATIONS, events, VERSION,
                              quality_limits={"max_files": 5, "max_rows": 100})
    composed, _ = composed_sidecar(task, ANNOTATIONS, EVENTS)
    assert result.sidecar == composed  # no errors: the composition is kept as composed
    assert not result.issues and not result.missing and not result.composition.fallback
    assert result.checked["figures"]["rows"] == 4 and len(result.checked["preview"]) == 4
    assert isinstance(pickle.loads(pickle.dumps(result)), TaskResult)  # plain data: a process pool can return it


def test_the_same_inputs_are_composed_and_validated_once_with_a_memo() -> None:
    task = task_of(EVENTS, SIDECAR)
    events = {"sub-01_events.tsv": EVENTS}
    memo = Memo()
    first = sidecar_for_task(task, ANNOTATIONS, events, VERSION, memo=memo)
    again = sidecar_for_task(task, ANNOTATIONS, events, VERSION, memo=memo)
    assert memo.computed == ["composed", "issues"]  # the final sidecar's issues are the last candidate's
    assert first.sidecar == again.sidecar and first.issues == again.issues and not again.checked


def test_a_level_hedtools_refuses_is_left_out_and_listed_as_missing() -> None:
    task = task_of(EVENTS, SIDECAR)
    broken = {**ANNOTATIONS, "side": {"left": "Left-side-of", "right": "Not-a-tag-at-all-xyz"}}
    result = sidecar_for_task(task, broken, {"sub-01_events.tsv": EVENTS}, VERSION)
    assert "Not-a-tag-at-all-xyz" not in str(result.sidecar) and not result.issues
    assert ("side", "right") in {(m.column, m.level) for m in result.missing}


def test_the_conventions_are_declared_once_in_order() -> None:
    names = [convention.__name__ for convention in PASSES]
    assert len(names) == len(set(names)) and all(convention.__doc__ for convention in PASSES)
    assert names.index("roles") < names.index("distinct_levels") < names.index("shared_definitions")
