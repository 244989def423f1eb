"""Every name an upload stores, and every HED it carries, within its bound: generated past it, each is a 400
naming the field, and nothing of the upload is stored, the same on SQLite (which would store an over-long
name) and PostgreSQL (which would raise DataError, a 500). The bounds have one home each: the stored lengths
in ``bidsdata.limits`` (the models' ``max_length``), the group depth in ``agents.hedstring``, a HEDVersion
entry's length in ``agents.schema``."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from agents.hedstring import MAX_GROUP_DEPTH
from agents.schema import MAX_ENTRY_CHARS
from annotations.models import DatasetColumn, DatasetFile, DatasetLevel, DatasetProject, DatasetTask
from bidsdata.limits import MAX_NAME_CHARS, MAX_PATH_CHARS, MAX_TASK_CHARS, MAX_UNITS_CHARS

pytestmark = pytest.mark.django_db

Files = dict[str, str]


@dataclass(frozen=True)
class Upload:
    """A small valid dataset, one part of it replaced by *text*."""

    task: str = "faces"
    folder: str = ""
    column: str = "event_type"
    level: str = "show_star"
    declared_level: str = "show_house"
    units: str = "s"
    acquisition: str = ""
    hed_version: str = "8.4.0"
    level_hed: str = "Sensory-event, (Visual-presentation, Red)"
    template: str = "(Delay/# s, Agent-action)"
    hed_cell: str = "Agent-action"

    def files(self) -> Files:
        events = (f"onset\tduration\t{self.column}\tresponse_time\tHED\n"
                  f"1.0\t0.5\t{self.level}\t0.4\t{self.hed_cell}\n2.0\t0.5\tpress\t0.5\tn/a\n")
        sidecar = {self.column: {"Description": "What happened", "Levels": {
                       self.level: "A star appears.", self.declared_level: "A house appears.", "press": "A press."},
                       "HED": {self.level: self.level_hed, "press": "Agent-action"}},
                   "response_time": {"Description": "Time to the press", "Units": self.units, "HED": self.template}}
        acq = f"_acq-{self.acquisition}" if self.acquisition else ""
        return {"dataset_description.json": json.dumps({"Name": "x", "BIDSVersion": "1.8.0",
                                                        "HEDVersion": self.hed_version}),
                f"{self.folder}sub-01_task-{self.task}{acq}_events.tsv": events,
                f"task-{self.task}{acq}_events.json": json.dumps(sidecar)}


def _nested(depth: int) -> str:
    return "(" * depth + "Red" + ")" * depth


# field -> (what the message names, an upload with that field *extra* past its bound)
FIELDS: dict[str, tuple[str, Callable[[int], Upload]]] = {
    "task label": ("task label", lambda n: Upload(task="t" * (MAX_TASK_CHARS + n))),
    "path": ("path", lambda n: Upload(folder="sub-01/" + "d" * (MAX_PATH_CHARS + n) + "/")),
    "column name": ("column name", lambda n: Upload(column="c" * (MAX_NAME_CHARS + n))),
    "level in the events": ("level of column", lambda n: Upload(level="l" * (MAX_NAME_CHARS + n))),
    "level the sidecar declares": ("level of column", lambda n: Upload(declared_level="l" * (MAX_NAME_CHARS + n))),
    "Units": ("Units of column", lambda n: Upload(units="u" * (MAX_UNITS_CHARS + n))),
    "sidecar file name": ("sidecar file name", lambda n: Upload(acquisition="a" * (MAX_NAME_CHARS + n))),
    "HEDVersion": ("HEDVersion", lambda n: Upload(hed_version="s" * (MAX_ENTRY_CHARS + n) + "_1.0.0")),
    "a level's HED": ("HED groups nest", lambda n: Upload(level_hed=_nested(MAX_GROUP_DEPTH + n))),
    "a value column's HED": ("HED groups nest", lambda n: Upload(template=_nested(MAX_GROUP_DEPTH + n) + ", #")),
    "the HED column": ("HED groups nest", lambda n: Upload(hed_cell=_nested(MAX_GROUP_DEPTH + n))),
}


@pytest.fixture
def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def _post(api: APIClient, files: Files):
    """The files as one zip (a path's folders survive in a zip, not in a form's file names)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, text in files.items():
            zf.writestr(name, text)
    upload = SimpleUploadedFile("ds.zip", buffer.getvalue(), content_type="application/zip")
    return api.post("/api/datasets/", {"files": [upload]}, format="multipart")


def _nothing_stored() -> bool:
    return not any(model.objects.exists() for model in (DatasetProject, DatasetFile, DatasetTask, DatasetColumn,
                                                        DatasetLevel))


def test_the_upload_each_case_starts_from_is_stored(api: APIClient) -> None:
    response = _post(api, Upload().files())
    assert response.status_code == 201, response.content
    assert DatasetLevel.objects.filter(value="show_house").exists()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(field=st.sampled_from(sorted(FIELDS)), extra=st.integers(min_value=1, max_value=400))
def test_a_field_past_its_bound_is_a_400_naming_it_and_nothing_is_stored(api: APIClient, field: str,
                                                                        extra: int) -> None:
    named, upload = FIELDS[field]
    response = _post(api, upload(extra).files())
    assert response.status_code == 400, (field, response.content[:300])
    message = " ".join(response.json()["files"])
    assert named in message, (field, message)
    assert _nothing_stored()


def test_a_template_edited_later_nested_too_deep_is_a_400_and_not_stored(api: APIClient) -> None:
    assert _post(api, Upload().files()).status_code == 201
    column = DatasetColumn.objects.get(name="response_time")
    before = column.template
    response = api.patch(f"/api/datasets/{column.task.project_id}/columns/{column.pk}/",
                         {"template": _nested(200) + ", Delay/# s"}, format="json")
    assert response.status_code == 400
    assert f"more than the {MAX_GROUP_DEPTH} allowed" in json.dumps(response.json())
    column.refresh_from_db()
    assert column.template == before


def test_the_command_line_refuses_an_overlong_name_in_one_line(tmp_path) -> None:
    folder = tmp_path / "dataset"
    folder.mkdir()
    for name, text in Upload(column="c" * (MAX_NAME_CHARS + 1)).files().items():
        (folder / name).write_text(text)
    with pytest.raises(CommandError) as refused:
        call_command("annotate_dataset", str(folder), "--out", str(tmp_path / "out"))
    message = str(refused.value)
    assert "\n" not in message and "column name" in message and f"more than the {MAX_NAME_CHARS}" in message
    assert _nothing_stored()


def test_a_value_column_made_categorical_with_an_overlong_value_is_a_400(api: APIClient) -> None:
    files = Upload().files()
    events = "sub-01_task-faces_events.tsv"
    files[events] = files[events].replace("\t0.4\t", f"\t{'r' * (MAX_NAME_CHARS + 1)}\t")
    assert _post(api, files).status_code == 201
    column = DatasetColumn.objects.get(name="response_time")
    response = api.patch(f"/api/datasets/{column.task.project_id}/columns/{column.pk}/", {"kind": "categorical"},
                         format="json")
    assert response.status_code == 400
    assert f"more than the {MAX_NAME_CHARS} a level may have" in json.dumps(response.json())
    assert not DatasetLevel.objects.filter(column=column).exists()
