"""A marker column of thousands of distinct strings is no dead end: it is annotated by form (its strings with their
numbers as ``#``), each form a level the lab is asked about once, and every question on the page can be answered or
dismissed where it is asked: no 404, no error page pasted into the list, no "answered" on a question left open."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annotations.datasets import inventory_edits, services
from annotations.datasets.errors import DatasetRequestError
from annotations.datasets.questions import project_questions
from annotations.datasets.results import refresh_project
from annotations.models import AnnotationSession, DatasetColumn, DatasetLevel, SessionStatus
from bidsdata.archive import read_folder, read_uploads
from bidsdata.patterns import marker_pattern, pattern_counts
from tests.support.made_up import PATTERNS, marker_dataset, marker_strings

pytestmark = pytest.mark.django_db
DUMMY_TASKS = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}
DISTINCT = 2400


@pytest.fixture
def markers(user, tmp_path, settings):
    settings.TASKS = DUMMY_TASKS
    files = read_folder(str(marker_dataset(tmp_path / "glow", distinct=DISTINCT, hed_version="8.4.0")))
    return services.import_dataset(user=user, files=files, name="glow")


def test_thousands_of_marker_strings_are_a_few_forms_each_a_level(markers):
    column = DatasetColumn.objects.get(task__project=markers, name="stim_mark")
    assert column.kind == "categorical" and column.by_pattern and column.distinct_values >= DISTINCT - 1
    forms = sorted(column.levels.values_list("value", flat=True))
    assert forms == sorted(marker_pattern(p.format(a=1, b=2)) for p in PATTERNS)
    assert sum(column.levels.values_list("count", flat=True)) > DISTINCT  # every row of the column
    asked = [q for q in project_questions(markers) if q.column.pk == column.pk and q.level is not None]
    assert len(asked) == len(PATTERNS)  # one question per form, not one per string


def test_the_sidecar_gives_every_string_its_form_hed_and_its_numbers(markers, user):
    levels = list(DatasetLevel.objects.filter(column__task__project=markers))
    for level, session in zip(levels, services.create_level_sessions(markers, levels, user=user), strict=True):
        hed = "Sensory-event, Experimental-stimulus, Visual-presentation, (Image, Circle)" \
            if level.column.name == "stim_mark" else "Experiment-structure, (Time-block, Label/part)"
        AnnotationSession.objects.filter(pk=session.pk).update(status=SessionStatus.SUCCEEDED, is_valid=True,
                                                               final_annotation=hed, machine_annotation=hed)
    [result] = refresh_project(markers)
    entry = result.sidecar["stim_mark"]
    assert len(entry["HED"]) >= DISTINCT - 1 and not result.missing, result.missing[:3]
    glow = next(v for v in entry["HED"] if v.startswith("Lantern glow: cell "))
    numbers = re.findall(r"\d+", glow)
    assert all(n in entry["HED"][glow] for n in numbers)  # told apart by their own numbers
    assert not result.errors, result.errors[:3]


def test_make_it_categorical_over_200_values_takes_the_forms_rather_than_refusing(markers):
    column = DatasetColumn.objects.get(task__project=markers, name="stim_mark")
    inventory_edits.set_column_kind(column, "value")
    DatasetLevel.objects.filter(column=column).delete()
    column.refresh_from_db()
    inventory_edits.set_column_kind(column, "categorical")
    assert column.by_pattern and column.levels.count() == len(PATTERNS)


def test_over_200_values_of_no_few_forms_is_refused_naming_the_way_out(user, settings):
    settings.TASKS = DUMMY_TASKS
    rows = "".join(f"{n}\t0\tnote {chr(65 + n % 26)}{chr(65 + n // 26 % 26)}{chr(97 + n // 676)} here\n"
                   for n in range(1, 400))
    files = read_uploads([("sub-01_task-n_events.tsv", ("onset\tduration\tremark\n" + rows).encode())])
    project = services.import_dataset(user=user, files=files, name="n")
    column = DatasetColumn.objects.get(task__project=project, name="remark")
    assert column.kind == "value" and not column.by_pattern
    with pytest.raises(DatasetRequestError, match="skip it, or give it a # template"):
        inventory_edits.set_column_kind(column, "categorical")


def test_every_question_on_the_page_is_answerable_where_it_is_asked(client, user, markers):
    client.force_login(user)
    page = client.get(markers.get_absolute_url()).content.decode()
    questions = re.findall(r'<li class="ds-question[^"]*" id="(q-[\d-]+)"', page)
    assert questions
    for key in questions:
        block = page[page.index(f'id="{key}"'):]
        block = block[:block.index("</li>")]
        assert 'name="answer"' in block or 'name="kind" value="skip"' in block, block
    one = DatasetLevel.objects.filter(column__name="stim_mark").first()
    answered = client.post(f"/datasets/{markers.pk}/questions/", {
        "level_id": one.pk, "answer": "A lantern lights up in a grid cell, in a tint the number gives."},
        HTTP_HX_REQUEST="true")
    assert answered.status_code == 200 and 'data-answered="true"' in answered.content.decode()
    assert f'id="q-{one.column_id}-{one.pk}"' not in client.get(markers.get_absolute_url()).content.decode()


def test_a_value_column_question_is_no_404_and_never_says_answered(client, user, settings):
    settings.TASKS = DUMMY_TASKS
    rows = "".join(f"{n}\t0\tsaw {chr(65 + n % 26)}{chr(97 + n // 26)}, then more\n" for n in range(1, 30))
    files = read_uploads([("sub-01_task-n_events.tsv", ("onset\tduration\tremark\n" + rows).encode())])
    project = services.import_dataset(user=user, files=files, name="n")
    column = DatasetColumn.objects.get(task__project=project, name="remark")
    client.force_login(user)
    response = client.post(f"/datasets/{project.pk}/questions/", {"column_id": column.pk, "answer": "Notes."},
                           HTTP_HX_REQUEST="true")
    body = response.content.decode()
    assert column.kind == "value" and response.status_code == 400 and "value column" in body
    assert 'data-answered="true"' not in body and "<html" not in body
    gone = client.post(f"/datasets/{project.pk}/questions/", {"column_id": 999_999, "answer": "Notes."},
                       HTTP_HX_REQUEST="true")
    assert gone.status_code == 409 and "no longer asked" in gone.content.decode()
    assert "<html" not in gone.content.decode()
    skipped = client.post(f"/datasets/{project.pk}/columns/{column.pk}/", {"kind": "skip"})
    assert skipped.status_code == 302
    assert not [q for q in project_questions(project) if q.column.pk == column.pk]


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=30, max_value=400), st.integers(min_value=0, max_value=10_000))
def test_forms_count_every_row_once_and_take_any_number(distinct: int, seed: int) -> None:
    counts = {value: 1 + n % 3 for n, value in enumerate(marker_strings(distinct, seed))}
    forms = pattern_counts(counts)
    assert forms is not None and set(forms) <= {marker_pattern(p.format(a=1, b=2)) for p in PATTERNS}
    assert sum(forms.values()) == sum(counts.values())


def test_two_strings_of_one_form_at_one_onset_keep_their_hed_and_validate(user, settings):
    """hedtools makes rows of one onset one event: the form's HED written for both would repeat; each string's
    HED is its own group, told apart by its numbers, so nothing is left out with a reason that is not true."""
    settings.TASKS = DUMMY_TASKS
    strings = [f"Pebble drop - lane {n}" for n in range(1, 61)]
    rows = "".join(f"{1 + n // 2}\t0\t{value}\n" for n, value in enumerate(strings))  # two per onset
    files = read_uploads([("dataset_description.json", b'{"Name": "p", "BIDSVersion": "1.8.0", "HEDVersion": "8.4.0"}'),
                          ("sub-01_task-p_events.tsv", ("onset\tduration\tmark\n" + rows).encode())])
    project = services.import_dataset(user=user, files=files, name="p")
    [form] = DatasetLevel.objects.filter(column__task__project=project, column__name="mark")
    assert form.value == "Pebble drop - lane #" and form.count == 60
    [session] = services.create_level_sessions(project, [form], user=user)
    hed = "Sensory-event, Experimental-stimulus, Visual-presentation, (Image, Circle)"
    AnnotationSession.objects.filter(pk=session.pk).update(status=SessionStatus.SUCCEEDED, is_valid=True,
                                                           final_annotation=hed, machine_annotation=hed)
    [result] = refresh_project(project)
    assert not result.errors and not result.missing, (result.errors[:2], result.missing)
    assert not [d for d in result.dropped if d.column == "mark"], result.dropped
    assert len(result.sidecar["mark"]["HED"]) == 60

