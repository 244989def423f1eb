"""One rule each (issue 29): what "accepted" means, the made-up description, rows grouped by onset, the event
column's name. Where two places used to disagree, these pin the behaviour they now share."""

from __future__ import annotations

import pytest

from annotations.datasets import services
from annotations.datasets.selectors import level_states, level_text
from annotations.models import AnnotationSession, DatasetColumn, DatasetLevel, Review, SessionStatus
from annotations.review import services as reviews
from annotations.review_rules import accepted
from annotations.runs.memory import remembered_sessions
from bidsdata.columns import names_event_type
from bidsdata.quality import event_starts
from bidsdata.tsv import by_onset, onset_groups


def _finish(session: AnnotationSession, hed: str) -> None:
    AnnotationSession.objects.filter(pk=session.pk).update(
        status=SessionStatus.SUCCEEDED, machine_annotation=hed, final_annotation=hed, is_valid=True)


@pytest.mark.django_db
def test_a_disputed_run_is_neither_the_levels_reviewed_annotation_nor_memory(user, reviewer, staff, small_files):
    # Behaviour change: a level's status once took any accepting review as acceptance, while the memory asked
    # for more accepts than rejects. Both now ask the latter (annotations.review_rules.accepted).
    project = services.import_dataset(user=user, files=small_files, name="tiny")
    level = DatasetLevel.objects.get(value="show_star")
    first, second = services.create_level_sessions(project, [level, level], user=user)
    _finish(first, "Sensory-event, Visual-presentation, Face")
    _finish(second, "Sensory-event, Face")
    first.refresh_from_db()
    reviews.submit_review(first, reviewer, rating=4, verdict="accept")
    reviews.submit_review(first, staff, rating=1, verdict="reject")
    state = next(s for s in level_states(project) if s.level == level)
    assert (state.status, state.session_id, state.source) == ("valid", second.pk, "run")
    assert first.pk not in set(remembered_sessions().values_list("pk", flat=True))

    Review.objects.filter(session=first, reviewer=staff).update(verdict="needs-fix")  # the dissent withdrawn
    reviews.recompute_summary(first)
    state = next(s for s in level_states(project) if s.level == level)
    assert (state.status, state.session_id, state.source) == ("reviewed", first.pk, "review")
    assert first.pk in set(remembered_sessions().values_list("pk", flat=True))


def test_accepted_needs_more_accepts_than_rejects():
    assert accepted(1, 0) and accepted(2, 1)
    assert not accepted(1, 1) and not accepted(0, 0) and not accepted(0, 2)


def test_the_annotators_text_of_an_undescribed_code_keeps_its_sign():
    # Behaviour change: level_text once humanized the code too, so "-1" reached the annotator as "1".
    column = DatasetColumn(name="reply_code")
    assert level_text(DatasetLevel(column=column, value="-1", description="")) == "reply code: -1"
    assert level_text(DatasetLevel(column=column, value="go_left", description="")) == "reply code: go left"
    assert level_text(DatasetLevel(column=column, value="-1", description=" Said no. ")) == "Said no."


def test_rows_grouped_by_onset_are_one_rule_for_the_composer_and_the_quality_figures():
    # As hedtools merges them: by value, within its tolerance of the onset before, a text onset alone.
    onsets = ["1", "1.000", "n/a", "2", "2.0000000000001", "1", "x"]
    assert onset_groups(onsets) == [[0, 1, 5], [2], [3, 4], [6]]
    assert event_starts(onsets) == [0, 0, 2, 3, 3, 0, 6]
    rows = [{"onset": cell, "n": str(i)} for i, cell in enumerate(onsets)]
    assert [[row["n"] for row in group] for group in by_onset(rows)] == [["0", "1", "5"], ["2"], ["3", "4"], ["6"]]


@pytest.mark.parametrize(("name", "expected"), [
    ("trial_type", True), ("event_type", True), ("type", True), ("stim_type", True), ("stimulus_type", True),
    ("Trial", True), ("reply_code", False), ("typed_word", False),
])
def test_the_event_columns_name(name, expected):
    assert names_event_type(name) is expected
