"""Queries are hedtools' own: the same parse, or hedtools' own message with the character it fails at."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bidsdata.usage.queries import MAX_QUERY_CHARS, QueryError, check_query, compile_queries, parse_query

TAGS = ["Event", "Sensory-event", "Red", "Def/Thing", "Def/Th*", "Item", "Agent-action", "Label/x", "?", "??", "???"]
PIECES = [*TAGS, "&&", "||", ",", "~", "@", "(", ")", "[", "]", "{", "}", ":", " "]


def _hedtools(text: str):
    from hed import QueryHandler

    try:
        return QueryHandler(text), None
    except Exception as exc:
        return None, exc


@pytest.mark.parametrize(("query", "message", "position"), [
    ("Event &&", "Parse error in get next token", 8),
    ("(Red || Blue", "Parse error: Missing closing paren", 12),
    ("[Event", "Parse error: Missing closing square bracket", 6),
    ("{Event", "Parse error: Missing closing curly bracket", 6),
    ("Event Action", "Parse error in search string", 6),
    ("Event)", "Parse error in search string", 5),
])
def test_a_malformed_query_names_hedtools_message_and_the_character(query, message, position):
    check = check_query(query)
    assert not check.ok
    assert check.error.message == message
    assert check.error.position == position
    assert f"at character {position + 1}: {message}" in str(check.error)


def test_characters_hedtools_skips_are_warned_of():
    check = check_query("Event && Red!")
    assert check.ok
    assert check.warnings == ["'!' at character 13 is not part of the query syntax; hedtools ignores it"]


def test_length_empty_and_none_at_all():
    assert "at most 2,000 characters" in check_query("Event," * (MAX_QUERY_CHARS // 6 + 1)).error.message
    assert check_query("   ").error.message == "the query is empty"
    with pytest.raises(QueryError, match="at least one query"):
        compile_queries([])
    with pytest.raises(QueryError, match="query 2 'Red &&'"):
        compile_queries(["Event", "Red &&"])


def test_the_error_crosses_processes_whole():
    error = check_query("Event &&", index=3).error
    again = pickle.loads(pickle.dumps(error))
    assert (again.query, again.message, again.position, again.index) == ("Event &&", error.message, 8, 3)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=12).map(" ".join))
def test_any_query_parses_as_hedtools_parses_it_or_fails_where_hedtools_fails(text):
    theirs, error = _hedtools(text)
    check = check_query(text)
    if error is not None or not text.strip():
        assert not check.ok
        assert 0 <= check.error.position <= len(text)
        if not text.strip():
            assert check.error.message == "the query is empty"
        else:
            assert check.error.message == " ".join(str(error).split())
    else:
        assert check.ok
        assert str(parse_query(text)) == str(theirs)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60))
def test_any_text_gives_a_verdict_never_an_exception(text):
    check = check_query(text)
    assert check.ok or check.error.message
