"""Uploads built to hurt the server: each is refused with a 400 naming the limit, and nothing is stored.

One test per finding of the attack pass on the upload path (declared levels, a bomb of small entries,
thousands of columns, hostile names, malformed files), through the API as a user would send them.
"""

from __future__ import annotations

import csv
import io
import json
import tracemalloc
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils.http import content_disposition_header
from rest_framework.test import APIClient

from annotations.checks import check_upload_limits
from annotations.datasets import services
from annotations.datasets.uploads import upload_limits
from annotations.models import DatasetColumn, DatasetFile, DatasetLevel, DatasetProject, DatasetTask
from bidsdata.archive import read_uploads
from bidsdata.inventory import build_inventory
from bidsdata.limits import UploadLimits
from tests.datasets.conftest import EVENTS, SIDECAR

pytestmark = pytest.mark.django_db

DESCRIPTION = b'{"Name": "x", "BIDSVersion": "1.8.0", "HEDVersion": "8.3.0"}'


@pytest.fixture
def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def _zip(entries: dict[str, bytes]) -> SimpleUploadedFile:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries.items():
            info = zipfile.ZipInfo("placeholder")
            info.filename = name  # stored raw: ZipInfo would tidy some hostile names itself
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
    return SimpleUploadedFile("ds.zip", buffer.getvalue(), content_type="application/zip")


def _post(api: APIClient, files: list[SimpleUploadedFile]):
    return api.post("/api/datasets/", {"files": files}, format="multipart")


def _refused(response, *words: str) -> str:
    assert response.status_code == 400, response.content
    message = json.dumps(response.json())
    for word in words:
        assert word in message, message
    for model in (DatasetProject, DatasetTask, DatasetColumn, DatasetLevel, DatasetFile):
        assert not model.objects.exists(), f"a refused upload stored {model.__name__} rows"
    return message


def test_a_sidecar_declaring_100000_levels_is_refused(api):
    levels = {f"c{i}": f"code {i}" for i in range(100_000)}
    sidecar = json.dumps({"code": {"Description": "A code.", "Levels": levels}}).encode()
    events = b"onset\tduration\tcode\n1.0\tn/a\tc1\n"
    response = _post(api, [_zip({"dataset_description.json": DESCRIPTION,
                                 "sub-01/sub-01_task-x_events.tsv": events,
                                 "task-x_events.json": sidecar})])
    # The 2.5 MB sidecar passes the sidecar size limit only when that is raised; either limit names itself.
    _refused(response, "HEDIT_UPLOAD_MAX_")


def test_declared_levels_per_column_are_capped(api, settings):
    settings.HEDIT_UPLOAD_LIMITS = {"HEDIT_UPLOAD_MAX_LEVELS_PER_COLUMN": 50}
    sidecar = json.dumps({"code": {"Levels": {f"c{i}": f"code {i}" for i in range(51)}}}).encode()
    response = _post(api, [SimpleUploadedFile("sub-01_task-x_events.tsv", b"onset\tcode\n1\tc1\n"),
                           SimpleUploadedFile("task-x_events.json", sidecar)])
    _refused(response, "column 'code' declares 51 levels", "HEDIT_UPLOAD_MAX_LEVELS_PER_COLUMN")


def test_levels_per_task_are_capped(api, settings):
    settings.HEDIT_UPLOAD_LIMITS = {"HEDIT_UPLOAD_MAX_LEVELS_PER_TASK": 60}
    sidecar = json.dumps({f"col{k}": {"Levels": {f"c{i}": "x" for i in range(40)}} for k in range(2)}).encode()
    response = _post(api, [SimpleUploadedFile("sub-01_task-x_events.tsv", b"onset\tcol0\tcol1\n1\tc1\tc2\n"),
                           SimpleUploadedFile("task-x_events.json", sidecar)])
    _refused(response, "task x has over 60 levels", "HEDIT_UPLOAD_MAX_LEVELS_PER_TASK")


def test_a_bomb_of_small_entries_is_refused_by_the_whole_archive_ratio(api):
    # Each entry stays under the per-entry check (1 MiB); together they expand hundreds of times.
    line = b"1.0\tn/a\tgo\n"
    body = b"onset\tduration\tcue\n" + line * ((1024 * 1024 - 32) // len(line))
    entries = {f"sub-{i:03d}/sub-{i:03d}_task-a_events.tsv": body for i in range(30)}
    message = _refused(_post(api, [_zip(entries)]), "possible zip bomb", "HEDIT_UPLOAD_MAX_RATIO")
    assert "ds.zip" in message


def test_ten_thousand_columns_are_refused_before_any_row_is_read(api):
    header = "onset\tduration\t" + "\t".join(f"c{i}" for i in range(9_998))
    row = "\t".join(["1.0", "n/a", *("x" for _ in range(9_998))])
    text = f"{header}\n{row}\n{row}\n"
    _refused(_post(api, [SimpleUploadedFile("sub-01_task-wide_events.tsv", text.encode())]),
             "10,000 columns", "HEDIT_UPLOAD_MAX_COLUMNS")


def test_rows_read_for_the_inventory_are_capped(api, settings):
    settings.HEDIT_UPLOAD_LIMITS = {"HEDIT_UPLOAD_MAX_ROWS": 100}
    text = "onset\tcue\n" + "".join(f"{i}\tgo\n" for i in range(101))
    _refused(_post(api, [SimpleUploadedFile("sub-01_task-a_events.tsv", text.encode())]),
             "over 100 events rows", "HEDIT_UPLOAD_MAX_ROWS")


@pytest.mark.parametrize("name", ['sub-01_task-a"; filename*=x_events.tsv', "sub-01_task-a\r\n_events.tsv",
                                  "task-a\x1b_events.json"])
def test_member_names_with_quotes_or_control_characters_are_refused(api, name):
    _refused(_post(api, [_zip({"sub-01_task-a_events.tsv": EVENTS.encode(), name: b"{}"})]),
             "control character or quote in file name")


def test_two_zip_entries_with_one_name_are_refused(api):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf, pytest.warns(UserWarning, match="Duplicate name"):
        zf.writestr("sub-01_task-a_events.tsv", EVENTS)
        zf.writestr("sub-01_task-a_events.tsv", "onset\tduration\n1\t2\n")
    upload = SimpleUploadedFile("ds.zip", buffer.getvalue(), content_type="application/zip")
    _refused(_post(api, [upload]), "sub-01_task-a_events.tsv: the archive holds two entries with this name")


def test_a_sidecar_nested_ten_thousand_deep_is_refused(api):
    deep = b'{"a": ' * 10_000 + b"1" + b"}" * 10_000
    _refused(_post(api, [SimpleUploadedFile("sub-01_task-a_events.tsv", EVENTS.encode()),
                         SimpleUploadedFile("task-a_events.json", deep)]),
             "JSON nested over 32 levels deep", "HEDIT_UPLOAD_MAX_JSON_DEPTH")


@pytest.mark.parametrize("version", [8.3, True, {"base": "8.3.0"}])
def test_a_hed_version_that_is_not_text_is_refused(api, version):
    description = json.dumps({"Name": "x", "HEDVersion": version}).encode()
    _refused(_post(api, [SimpleUploadedFile("dataset_description.json", description),
                         SimpleUploadedFile("sub-01_task-a_events.tsv", EVENTS.encode())]),
             "HEDVersion must be a version string or a list of them")


def test_a_whitespace_row_with_an_extra_field_is_refused_by_line(api):
    text = "onset\tcue\n1\tgo\n \t \t \n2\tstop\n"
    _refused(_post(api, [SimpleUploadedFile("sub-01_task-a_events.tsv", text.encode())]),
             "line 3 has 3 fields, the header has 2")


def test_bare_carriage_returns_read_as_line_ends(api):
    text = EVENTS.replace("\n", "\r")
    response = _post(api, [SimpleUploadedFile("sub-01_task-faces_events.tsv", text.encode()),
                           SimpleUploadedFile("task-faces_events.json", json.dumps(SIDECAR).encode())])
    assert response.status_code == 201, response.content
    columns = {c["name"]: c for c in response.json()["tasks"][0]["columns"]}
    assert {lv["value"]: lv["count"] for lv in columns["event_type"]["levels"]} == {
        "show_star": 2, "show_house": 1, "press": 2}
    assert "\r" not in DatasetFile.objects.get(path="sub-01_task-faces_events.tsv").text


@pytest.mark.parametrize(("body", "content_type"), [("", "application/json"), ("{}", "application/json"),
                                                     ("[1, 2]", "application/json"), ("", "multipart/form-data")])
def test_an_upload_without_files_is_a_400(api, body, content_type):
    response = api.generic("POST", "/api/datasets/", body, content_type=content_type)
    assert response.status_code in (400, 415), response.content
    assert not DatasetProject.objects.exists()


def test_a_header_without_onset_is_not_called_a_missing_header(api):
    text = "trial\tcue\n1\tgo\n"
    _refused(_post(api, [SimpleUploadedFile("sub-01_task-a_events.tsv", text.encode())]),
             "no 'onset' column (line 1 names trial, cue)")


def test_reading_and_inventorying_an_events_file_holds_under_three_times_its_size():
    rows = "".join(f"{i * 0.5:.3f}\t0.5\t{('go', 'stop', 'catch')[i % 3]}\t{i % 997 / 1000:.4f}\timg_{i % 300}.png\n"
                   for i in range(80_000))
    data = ("onset\tduration\ttrial_type\tresponse_time\tstim_file\n" + rows).encode()
    size = len(data)
    tracemalloc.start()
    try:
        files = read_uploads(iter([("sub-01_task-a_events.tsv", data)]))
        del data  # the caller's copy: the reader must not need it past decoding
        inventory = build_inventory(files)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert inventory.tasks[0].column("trial_type").kind == "categorical"
    assert peak < 3 * size, f"peak {peak:,} bytes for a {size:,}-byte events file"


@pytest.mark.parametrize(("limits", "problem"), [({"HEDIT_UPLOAD_MAX_COLUMNS": "lots"}, "must be a positive whole"),
                                                 ({"HEDIT_UPLOAD_MAX_ROWS": "0"}, "must be a positive whole"),
                                                 ({"HEDIT_UPLOAD_MAX_COLUMS": "5"}, "is not an upload limit")])
def test_a_bad_upload_limit_setting_is_reported_by_the_system_checks(settings, limits, problem):
    settings.HEDIT_UPLOAD_LIMITS = limits
    (error,) = check_upload_limits()
    assert error.id == "annotations.E001" and problem in error.msg


def test_upload_limits_come_from_the_environment_settings(settings):
    settings.HEDIT_UPLOAD_LIMITS = {"HEDIT_UPLOAD_MAX_COLUMNS": "7"}
    assert upload_limits().max_columns == 7 and upload_limits().max_rows == UploadLimits().max_rows


def test_the_sidecar_spreadsheet_neutralises_formula_cells(client, user):
    events = "onset\tduration\t@SUM(1+1)\n1.0\tn/a\t=cmd|' /C calc'!A0\n2.0\tn/a\t-1\n3.0\tn/a\t+HYPERLINK(\"x\")\n"
    sidecar = {"@SUM(1+1)": {"Description": "=HYPERLINK(\"http://x\")", "Levels": {
        "=cmd|' /C calc'!A0": "A command.", "-1": "Minus one.", "+HYPERLINK(\"x\")": "A link."},
        "HED": {"=cmd|' /C calc'!A0": "Sensory-event", "-1": "Agent-action", "+HYPERLINK(\"x\")": "Data-feature"}}}
    files = read_uploads([("sub-01_task-x_events.tsv", events.encode()),
                          ("task-x_events.json", json.dumps(sidecar).encode())])
    project = services.import_dataset(user=user, files=files, name="formulas")
    client.force_login(user)
    response = client.get(reverse("annotations:dataset-sidecar", args=[project.pk, "x"]) + "?format=tsv")
    assert response.status_code == 200
    # Read as a spreadsheet program reads it (pandas quotes cells holding a quote character).
    cells = [cell for row in list(csv.reader(io.StringIO(response.content.decode()), delimiter="\t"))[1:]
             for cell in row]
    assert "'@SUM(1+1)" in cells and "'=cmd|' /C calc'!A0" in cells and "'+HYPERLINK(\"x\")" in cells
    assert "-1" in cells  # a number is no formula
    assert not [c for c in cells if c[:1] in ("=", "+", "@") or (c[:1] == "-" and c != "-1")]


def test_download_names_are_built_as_a_header_parameter_should_be(client, user):
    files = read_uploads([("sub-01_task-x_events.tsv", EVENTS.encode()),
                          ("task-x_desc-épreuve;x_events.json", json.dumps(SIDECAR).encode())])
    project = services.import_dataset(user=user, files=files, name="names")
    client.force_login(user)
    response = client.get(reverse("annotations:dataset-sidecar", args=[project.pk, "x"]) + "?format=json")
    assert response["Content-Disposition"] == content_disposition_header(True, "task-x_desc-épreuve;x_events.json")
    assert response["Content-Disposition"].startswith("attachment; filename*=utf-8''task-x_desc-%C3%A9preuve%3Bx")
