"""Library schemas (every one hedtools ships) as vocabularies: versions read as HED writes them, library tags
indexed with their prefix, reached from plain words and offered in the prompts' vocabulary slice."""

from __future__ import annotations

import pytest

from agents.annotation.constrained import tag_lines
from agents.columns.context import ColumnContext, ColumnLevel
from agents.columns.prompt import vocabulary_slice
from agents.offline.annotator import annotate_offline
from agents.schema import (
    UnknownSchemaVersion,
    as_hed_version,
    canonical,
    check_version,
    get_schema,
    library_versions,
)
from agents.validation.agent import validate_hed
from agents.vocabulary import TagInfo, Vocabulary, get_vocabulary, name_words
from bidsdata.columns import detected_kind, is_channel_column
from bidsdata.schemas import load_schema


def _unpartnered(version: str) -> bool:
    return not get_schema(version).with_standard


def _prefixed(version: str) -> str:
    return f"8.4.0,lx:{version}"


def _reachable_library_tag(vocab: Vocabulary) -> TagInfo:
    """A library tag whose name's words name no other tag: a made-up description can use just those words."""
    seen: dict[tuple[str, ...], int] = {}
    for info in vocab.all():
        seen[name_words(info.bare_name)] = seen.get(name_words(info.bare_name), 0) + 1
    return next(i for i in sorted(vocab.all(), key=lambda i: i.name)
                if i.library and not i.takes_value and not vocab.is_deprecated(i.name)
                and len(name_words(i.bare_name)) >= 3 and seen[name_words(i.bare_name)] == 1
                and all(w.isalpha() for w in name_words(i.bare_name)))


def test_versions_are_read_as_a_string_a_list_or_comma_joined():
    assert canonical(["8.4.0", " sc:score_1.0.0"]) == canonical("8.4.0, sc:score_1.0.0") == "8.4.0,sc:score_1.0.0"
    assert as_hed_version("8.4.0,sc:score_1.0.0") == ["8.4.0", "sc:score_1.0.0"]
    assert as_hed_version(["score_2.1.0"]) == "score_2.1.0"
    assert check_version(["8.4.0", "sc:score_1.0.0"]) == "8.4.0,sc:score_1.0.0"
    # The one loader: the dataset side gets the very same parsed schema group as the agents.
    assert load_schema(["8.4.0", "sc:score_1.0.0"]) is get_schema("8.4.0,sc:score_1.0.0")


@pytest.mark.parametrize("version", ["score_9.9.9", "8.4.0,xx:madeup_1.0.0", "8.4.0,score_1.0.0", "", "banana"])
def test_an_unknown_or_impossible_version_is_one_clear_line(version):
    with pytest.raises(UnknownSchemaVersion) as raised:
        check_version(version)
    assert "\n" not in str(raised.value) and str(raised.value)


def test_hedtools_ships_score_and_lang_libraries():
    names = {v.partition("_")[0] for v in library_versions()}
    assert {"score", "lang"} <= names


@pytest.mark.parametrize("library", library_versions())
@pytest.mark.parametrize("prefixed", [False, True])
def test_every_library_is_reached_by_its_words_and_validates(library, prefixed):
    if not prefixed and _unpartnered(library):
        pytest.skip("an unpartnered library stands alone only with a prefix beside a standard schema")
    version = _prefixed(library) if prefixed else library
    vocab = get_vocabulary(version)
    tag = _reachable_library_tag(vocab)
    assert tag.library == library.partition("_")[0]
    assert tag.name.startswith("lx:") is prefixed
    assert vocab.get(tag.name) is tag and vocab.get(tag.long_name) is tag

    result = annotate_offline(f"a {' '.join(name_words(tag.bare_name))} occurs", schema_version=version)

    assert tag.name in result.annotation
    assert validate_hed(result.annotation, version) == []


def test_the_schemas_own_description_reaches_a_library_tag():
    vocab = get_vocabulary("score_2.1.0")
    short = next(i for i in vocab.all() if i.library and i.description.lower().startswith("sudden desync"))

    result = annotate_offline("sudden desynchronization of electrical activity", schema_version="score_2.1.0")

    assert short.name in result.annotation
    # The standard schema has no such tag: without the library the same words reach none of it.
    assert short.name not in annotate_offline("sudden desynchronization of electrical activity").annotation


def test_a_library_phrase_wins_over_the_standard_reading():
    # Under the standard schema a partial phrase is read word by word; the library names the whole thing.
    assert annotate_offline("tonic-clonic seizure", schema_version="score_2.1.0").annotation == "Tonic-clonic-seizure"
    assert "Tonic-clonic-seizure" not in annotate_offline("tonic-clonic seizure").annotation


def test_the_column_prompt_offers_the_library_tags_that_fit_the_column():
    levels = (ColumnLevel("zz", "the patient had a generalized convulsive seizure"),)
    context = ColumnContext(column="note", levels=levels, description="what the technician noted")
    forms, infos = vocabulary_slice(context, levels, "8.4.0,sc:score_1.0.0")
    library = [i for i in infos.values() if i.library == "score"]
    assert any("seizure" in i.name.lower() and i.name.startswith("sc:") for i in library)
    assert "(score library)" in tag_lines(forms, infos, lambda text: text)
    standard_forms, standard = vocabulary_slice(context, levels, "8.4.0")
    assert not any(i.library for i in standard.values())
    assert "library)" not in tag_lines(standard_forms, standard, lambda text: text)


@pytest.mark.parametrize(("name", "values"), [
    ("recorded", ["Xx1-F3 C3-C4"]),  # not electrodes: an invented letter pair
    ("cond", ["A1", "A2"]),  # codes that look like electrode names, under a name that says nothing of channels
    ("word", ["go", "stop"]),
])
def test_columns_that_are_not_channel_lists(name, values):
    assert not is_channel_column(name, values)


@pytest.mark.parametrize(("name", "values"), [
    ("spread", ["Fp1-F3 C3-C4", "O1", "T7-P7 P7-O1", "Cz-Pz"]),  # bipolar pairs and lists
    ("electrodes", ["O1", "Cz", "Fpz"]),  # single names under a name that says channels
    ("eeg_chans", ["F3,F4", "C3 C4 Cz"]),
])
def test_a_column_of_channel_names_is_a_value_column(name, values):
    assert is_channel_column(name, values)
    assert detected_kind(name, values) == "value"  # never levels to define one by one
