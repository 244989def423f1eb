"""The definitions entry (bidsdata/composition/definitions.py): the same definitions give the same file."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from bidsdata.composition.definitions import Definitions

NAMES = st.lists(st.sampled_from(["Glow", "hum", "Wobble", "Tilt-left", "tilt-right", "Buzz"]), min_size=1,
                 max_size=6, unique=True)


@given(NAMES, st.randoms())
def test_the_entry_is_the_same_whatever_order_the_definitions_came_in(names, rng) -> None:
    first, second = Definitions(), Definitions()
    for name in names:
        first.add(name, "Sensory-event, Visual-presentation")
    shuffled = list(names)
    rng.shuffle(shuffled)
    for name in shuffled:
        second.add(name, "Sensory-event, Visual-presentation")
    assert json.dumps(first.entry()) == json.dumps(second.entry())
    assert list(first.entry()["HED"]) == sorted(n.lower() for n in names)
