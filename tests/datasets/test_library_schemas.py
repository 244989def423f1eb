"""Library schemas on the command line and in the dataset API: ``--schema`` naming a library for one description
and for a made-up clinical dataset, its HED using the library's tags and validating with the library."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from annotations.models import DatasetProject
from bidsdata.schemas import validate_hed_string

pytestmark = pytest.mark.django_db(transaction=True)

# A made-up clinical recording: technician notes in a marker column, and the channels each note is about.
EVENTS = (
    "onset\tduration\tnote\tleads\n"
    "1.0\t2.0\ttc\tFp1-F3 C3-C4\n"
    "9.0\t1.0\tps\tO1-O2\n"
    "15.0\t1.0\tdesync\tCz-Pz\n"
    "21.0\t2.0\ttc\tT7-P7 P7-O1\n"
)
SIDECAR = {"note": {"Description": "What the technician noted", "Levels": {
    "tc": "A tonic-clonic seizure.",
    "ps": "Intermittent photic stimulation starts.",
    "desync": "Sudden desynchronization of electrical activity."}}}


def _dataset(tmp_path, version: str | list[str] | None):
    root = tmp_path / "clinic"
    root.mkdir()
    description = {"Name": "clinic", "BIDSVersion": "1.8.0"}
    if version is not None:
        description["HEDVersion"] = version
    (root / "dataset_description.json").write_text(json.dumps(description))
    (root / "task-rest_events.json").write_text(json.dumps(SIDECAR))
    (root / "sub-01").mkdir()
    (root / "sub-01" / "sub-01_task-rest_events.tsv").write_text(EVENTS)
    return root


def _library_tags(hed: str, version: str) -> set[str]:
    from agents.vocabulary import get_vocabulary

    vocab = get_vocabulary(version)
    words = {w.strip(" ()") for w in hed.replace("(", ",").replace(")", ",").split(",") if w.strip(" ()")}
    return {w for w in words if (info := vocab.get(w)) is not None and info.library}


def test_annotate_names_a_partnered_library(capsys):
    call_command("annotate", "A tonic-clonic seizure.", "--schema", "score_2.1.0", "--json")
    record = json.loads(capsys.readouterr().out)
    assert record["is_valid"] and record["schema_version"] == "score_2.1.0"
    assert _library_tags(record["annotation"], "score_2.1.0") == {"Tonic-clonic-seizure"}


def test_annotate_eye_movement_artifact_under_score(capsys):
    call_command("annotate", "eye movement artifact", "--schema", "score_2.1.0", "--json")
    record = json.loads(capsys.readouterr().out)
    assert record["is_valid"] and "Eye-movement-artifact" in record["annotation"]
    assert not validate_hed_string(record["annotation"], "score_2.1.0")


def test_annotate_names_a_prefixed_library(capsys):
    call_command("annotate", "A chewing artifact.", "--schema", "sc:score_1.0.0", "--json")
    record = json.loads(capsys.readouterr().out)
    assert record["is_valid"] and "sc:Chewing-artifact" in record["annotation"]


def test_annotate_takes_a_list_repeated_or_comma_joined(capsys):
    from annotations.models import AnnotationSession

    wanted = "8.4.0,sc:score_1.0.0"
    if len(wanted) > AnnotationSession._meta.get_field("schema_version").max_length:
        # Until the column is widened a list this long is refused in one line, never a database error.
        with pytest.raises(CommandError, match="longer than the 16 characters"):
            call_command("annotate", "A chewing artifact.", "--schema", "8.4.0", "--schema", "sc:score_1.0.0")
        return
    call_command("annotate", "A chewing artifact.", "--schema", "8.4.0", "--schema", "sc:score_1.0.0", "--json")
    record = json.loads(capsys.readouterr().out)
    assert record["is_valid"] and "sc:Chewing-artifact" in record["annotation"] and record["schema_version"] == wanted


def test_annotate_refuses_an_unknown_library_in_one_line():
    with pytest.raises(CommandError) as raised:
        call_command("annotate", "A chewing artifact.", "--schema", "score_9.9.9", "--json", stdout=StringIO())
    assert "unknown hed schema version 'score_9.9.9'" in str(raised.value).lower() and "\n" not in str(raised.value)


@pytest.mark.parametrize(("declared", "asked"), [("score_2.1.0", []), (None, ["--schema", "score_2.1.0"])])
def test_a_dataset_is_annotated_with_the_library(tmp_path, capsys, declared, asked):
    root = _dataset(tmp_path, declared)
    out = tmp_path / "out"
    call_command("annotate_dataset", str(root), "--out", str(out), "--json", *asked)
    report = json.loads(capsys.readouterr().out)
    assert report["tasks"][0]["valid"], report["tasks"][0]["issues"]
    sidecar = json.loads((out / "task-rest_events.json").read_text())
    hed = sidecar["note"]["HED"]
    assert _library_tags(hed["tc"], "score_2.1.0") == {"Tonic-clonic-seizure"}
    assert _library_tags(hed["desync"], "score_2.1.0")
    assert _library_tags(hed["ps"], "score_2.1.0")
    # The channel list is a value column (a '#' template), never a set of definitions.
    assert isinstance(sidecar["leads"]["HED"], str) and "#" in sidecar["leads"]["HED"]
    assert not any("Definition" in v for v in hed.values())
    project = DatasetProject.objects.get()
    assert project.schema_version == "score_2.1.0" and project.hed_version == "score_2.1.0"


def test_a_dataset_upload_refuses_an_unknown_library(tmp_path):
    root = _dataset(tmp_path, None)
    with pytest.raises(CommandError, match=r"unknown HED schema version 'lang_9\.0\.0'"):
        call_command("annotate_dataset", str(root), "--out", str(tmp_path / "out"), "--schema", "lang_9.0.0")
    assert not DatasetProject.objects.exists()


def test_the_api_refuses_an_unknown_library(client, user):
    from django.core.files.uploadedfile import SimpleUploadedFile

    client.force_login(user)
    files = [SimpleUploadedFile("sub-01_task-rest_events.tsv", EVENTS.encode())]
    response = client.post("/api/datasets/", {"files": files, "schema_version": "8.4.0,zz:nothing_1.0.0"})
    assert response.status_code == 400, response.content
    assert "nothing_1.0.0" in response.content.decode()
    assert not DatasetProject.objects.exists()
