"""The new lab's path, page by page (issue 35, item 9): the upload says Annotate all is next; the upload form and the
empty list say the same about the files read; the zip carries the HEDVersion and says so; the Annotation column
shows what the sidecar puts on the rows; a refused correction keeps the description, offers no draft it has no
button for, and is checked as it is typed; "Fix this level" opens the level; the job's message is tagged to go when
it ends; the job has an estimate before its first run ends."""

from __future__ import annotations

import io
import json
import re
import zipfile
from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from annotations.datasets import services
from annotations.datasets.job_progress import job_progress
from annotations.datasets.results import refresh_project
from annotations.datasets.uploads import FILES_READ
from annotations.models import AnnotationSession, DatasetLevel, JobStatus, SessionStatus
from bidsdata.archive import read_uploads
from tests.datasets.lab import EVENTS, GOOD, NO_ROLE, SIDECAR, annotate, lab_project, level

pytestmark = pytest.mark.django_db
DUMMY_TASKS = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}


def _uploads(description: dict | None):
    files = [("sub-01_task-stars_events.tsv", EVENTS.encode()), ("task-stars_events.json", json.dumps(SIDECAR)
                                                                    .encode())]
    if description is not None:
        files.append(("dataset_description.json", json.dumps(description).encode()))
    return read_uploads(files)


def test_the_upload_says_annotate_all_is_next_until_a_job_starts(client, user, settings):
    settings.TASKS = DUMMY_TASKS
    client.force_login(user)
    response = client.post("/datasets/", {"files": [SimpleUploadedFile("sub-01_task-stars_events.tsv",
                                                                       EVENTS.encode())],
                                          "name": "stars", "concurrency": 2}, follow=True)
    page = response.content.decode()
    assert "Next, press Annotate all" in page and 'id="next-step-title">Next: Annotate all' in page
    project = response.context["project"]
    page = client.post(f"/datasets/{project.pk}/annotate/", follow=True).content.decode()
    assert "Next: Annotate all" not in page
    assert re.search(r'class="message message--success message--job">Annotating \d+ level', page)


def test_the_upload_form_and_the_empty_list_say_the_same_files_are_read(client, user):
    client.force_login(user)
    page = client.get("/datasets/").content.decode()
    assert page.count(FILES_READ) == 2  # the form's help text and the empty list, one wording
    assert "README" in FILES_READ and "*_events.tsv" in FILES_READ


def test_the_zip_adds_the_hed_version_the_dataset_lacks_and_says_so(client, user, settings):
    settings.TASKS = DUMMY_TASKS
    project = services.import_dataset(user=user, files=_uploads({"Name": "stars", "BIDSVersion": "1.8.0"}),
                                      name="stars")
    client.force_login(user)
    archive = zipfile.ZipFile(io.BytesIO(b"".join(client.get(f"/datasets/{project.pk}/download/").streaming_content)))
    described = json.loads(archive.read("dataset_description.json"))
    assert described == {"Name": "stars", "BIDSVersion": "1.8.0", "HEDVersion": project.schema_version}
    note = archive.read("README_HED.md").decode()
    assert "HEDVersion" in note and "task-stars_events.json" in note and "had none" in note

    declared = services.import_dataset(user=user, files=_uploads({"Name": "s", "BIDSVersion": "1.8.0",
                                                                  "HEDVersion": "8.3.0"}), name="declared")
    archive = zipfile.ZipFile(io.BytesIO(b"".join(client.get(f"/datasets/{declared.pk}/download/")
                                                  .streaming_content)))
    assert json.loads(archive.read("dataset_description.json"))["HEDVersion"] == "8.3.0"
    assert "unchanged" in archive.read("README_HED.md").decode()

    bare = services.import_dataset(user=user, files=_uploads(None), name="bare")
    archive = zipfile.ZipFile(io.BytesIO(b"".join(client.get(f"/datasets/{bare.pk}/download/").streaming_content)))
    assert json.loads(archive.read("dataset_description.json"))["HEDVersion"] == bare.schema_version


def test_the_annotation_column_shows_what_the_sidecar_puts_on_the_rows(client, user, settings):
    settings.TASKS = DUMMY_TASKS
    project = lab_project(user)
    annotate(project, user, {("trial_type", "show_star"): GOOD["show_star"], ("trial_type", "press"): GOOD["press"]})
    client.force_login(user)
    star = level(project, "trial_type", "show_star")
    before = client.get(project.get_absolute_url()).content.decode()
    row = before[before.index(f'id="level-{star.pk}"'):]
    assert 'data-source="level"' in row[:row.index("</tr>")]  # no sidecar stored yet: said so
    [result] = refresh_project(project)
    page = client.get(project.get_absolute_url()).content.decode()
    row = page[page.index(f'id="level-{star.pk}"'):]
    row = row[:row.index("</tr>")]
    assert 'data-source="sidecar"' in row
    shown = re.sub(r"<[^>]+>", "", row[row.index('data-source="sidecar"'):]).split("\n")[0]
    written = result.sidecar["trial_type"]["HED"]["show_star"]
    assert all(part.strip() in shown for part in re.split(r"[,()]", written) if part.strip())


def test_a_refused_correction_keeps_the_description_and_offers_no_draft(client, user, settings):
    settings.TASKS = DUMMY_TASKS
    project = lab_project(user)
    annotate(project, user, {("trial_type", "show_star"): NO_ROLE})
    star = level(project, "trial_type", "show_star")
    client.force_login(user)
    response = client.post(f"/datasets/{project.pk}/levels/{star.pk}/correct/", {"hed": "Sensory-event, Nonsensetag"})
    page = response.content.decode()
    assert response.status_code == 400 and "does not validate" in page
    assert "draft" not in page.lower()  # this page has no draft button
    box = re.search(r'<textarea name="description" id="level-description"[^>]*>([^<]*)</textarea>', page)
    assert box and box.group(1) == star.description
    assert 'hx-post="/validate/check/"' in page and 'id="level-hed-preview"' in page
    preview = client.post("/validate/check/", {"hed": "Sensory-event, Nonsensetag", "schema_version": "8.4.0"})
    assert preview.status_code == 200 and 'data-valid="false"' in preview.content.decode()


def test_fix_this_level_on_the_sidecar_page_opens_the_level(client, user, settings):
    settings.TASKS = DUMMY_TASKS
    project = lab_project(user)
    refresh_project(project)
    client.force_login(user)
    page = client.get(f"/datasets/{project.pk}/tasks/stars/sidecar/").content.decode()
    links = re.findall(r'<a class="ds-fix-level" href="([^"]+)">Fix this level</a>', page)
    assert links and all(re.fullmatch(rf"/datasets/{project.pk}/levels/\d+/", link) for link in links)
    assert "/sessions/" not in "".join(links)


def test_a_job_has_an_estimate_before_its_first_run_ends(user, other_user):
    now = timezone.now()
    for seconds in (10, 30):  # runs the server finished before: the first estimate's measure
        done = AnnotationSession.objects.create(user=other_user, description="A tone.", schema_version="8.4.0")
        AnnotationSession.objects.filter(pk=done.pk).update(status=SessionStatus.SUCCEEDED, started_at=now,
                                                            finished_at=now + timedelta(seconds=seconds))
    project = lab_project(user)
    project.status, project.concurrency = JobStatus.ANNOTATING, 2
    project.save(update_fields=["status", "concurrency"])
    runs = services.create_level_sessions(project, list(DatasetLevel.objects.filter(column__task__project=project)),
                                          user=user)
    AnnotationSession.objects.filter(pk=runs[0].pk).update(status=SessionStatus.RUNNING, started_at=now)
    job = job_progress(project)
    assert job.phase == "annotating" and job.estimate_seconds == 20 * len(runs) // 2
    assert "left" in job.label and "an estimate once" not in job.label
