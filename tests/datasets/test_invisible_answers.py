"""An answer or description of only invisible characters (zero-width spaces, joiners, controls, direction marks)
is refused by one rule (``inventory_edits.clean_text``) wherever a lab writes one: the project page's answer box,
the level page, the API and the command line's ``--descriptions`` table. Nothing is stored then."""

from __future__ import annotations

import unicodedata

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from annotations.datasets.errors import DatasetRequestError
from annotations.datasets.inventory_edits import clean_text
from annotations.models import AnnotationSession, DatasetLevel, DatasetProject
from tests.datasets.lab import lab_folder, lab_project, level

INVISIBLE_CATEGORIES = ("Cc", "Cf", "Zs", "Zl", "Zp", "Mn")
# Characters that show nothing: controls, formats (U+200B, U+200D, U+FEFF, U+202E...), spaces and lone marks.
invisible = st.characters(categories=INVISIBLE_CATEGORIES, exclude_characters="\x00")
INVISIBLE_ANSWERS = ["\u200b\u200b\u200b", "\u200d\u2060\ufeff", "\x01\x02\x7f", "\u202e\u200e \u200f", "\u0301\u0301"]


@settings(max_examples=200, deadline=None)
@given(st.text(invisible, min_size=1, max_size=40))
def test_a_text_of_only_invisible_characters_is_refused_naming_the_problem(text: str) -> None:
    with pytest.raises(DatasetRequestError, match=r"no visible character|must not be empty") as refused:
        clean_text(text, "answer")
    assert refused.value.field == "answer"


@settings(max_examples=100, deadline=None)
@given(st.text(invisible, max_size=10), st.text(st.characters(categories=("L", "N", "P")), min_size=1, max_size=20),
       st.text(invisible, max_size=10))
def test_a_visible_character_among_invisible_ones_is_text(before: str, middle: str, after: str) -> None:
    assert any(unicodedata.category(ch)[0] in "LNP" for ch in clean_text(before + middle + after, "answer"))


@pytest.fixture
def project(user) -> DatasetProject:
    return lab_project(user)


@pytest.mark.django_db
@pytest.mark.parametrize("answer", INVISIBLE_ANSWERS)
def test_the_page_answer_box_refuses_it_in_place(client, user, project, answer: str) -> None:
    client.force_login(user)
    six = level(project, "value", "6")
    response = client.post(f"/datasets/{project.pk}/questions/", {"level_id": six.pk, "answer": answer},
                           HTTP_HX_REQUEST="true")
    assert response.status_code == 400
    assert "no visible character" in response.content.decode()
    six.refresh_from_db()
    assert six.description == "Trigger 6" and not AnnotationSession.objects.exists()


@pytest.mark.django_db
def test_the_level_page_refuses_it_beside_the_field(client, user, project) -> None:
    client.force_login(user)
    six = level(project, "value", "6")
    response = client.post(f"/datasets/{project.pk}/levels/{six.pk}/", {"description": "\u200b\u200c\u200d",
                                                                       "from": "level"})
    assert response.status_code == 400 and "no visible character" in response.content.decode()
    assert DatasetLevel.objects.get(pk=six.pk).description == "Trigger 6"


@pytest.mark.django_db
@pytest.mark.parametrize("answer", INVISIBLE_ANSWERS[:3])
def test_the_api_refuses_it_with_a_400_naming_the_field(user, project, answer: str) -> None:
    api = APIClient()
    api.force_authenticate(user)
    six = level(project, "value", "6")
    response = api.post(f"/api/datasets/{project.pk}/questions/", {"level_id": six.pk, "answer": answer},
                        format="json")
    assert response.status_code == 400, response.content
    assert "no visible character" in str(response.json())
    patched = api.patch(f"/api/datasets/{project.pk}/levels/{six.pk}/", {"description": answer}, format="json")
    assert patched.status_code == 400 and "no visible character" in str(patched.json())
    assert DatasetLevel.objects.get(pk=six.pk).description == "Trigger 6"
    assert not AnnotationSession.objects.exists()


@pytest.mark.django_db
def test_the_command_line_table_refuses_it_and_stores_nothing(tmp_path) -> None:
    folder = lab_folder(tmp_path)
    table = tmp_path / "answers.tsv"
    table.write_text("column\tlevel\tdescription\nvalue\t6\t\u200b\u2060\x01\n", encoding="utf-8")
    with pytest.raises(CommandError, match="no visible character"):
        call_command("annotate_dataset", str(folder), "--descriptions", str(table), "--out", str(tmp_path / "out"))
    assert not DatasetProject.objects.exists()

