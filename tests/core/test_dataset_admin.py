"""The admin lists and opens the dataset models without reading their large fields."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotations.models import DatasetColumn, DatasetFile, DatasetLevel, DatasetProject, DatasetTask

pytestmark = pytest.mark.django_db

FILE_TEXT = "onset\tduration\tcue\n" + "1.0\tn/a\tleft-cue-marker\n" * 50


@pytest.fixture
def dataset(user):
    project = DatasetProject.objects.create(user=user, name="Attention", schema_version="8.4.0")
    DatasetFile.objects.create(project=project, path="sub-01_task-a_events.tsv", text=FILE_TEXT)
    task = DatasetTask.objects.create(project=project, name="a", sidecar_name="task-a_events.json")
    column = DatasetColumn.objects.create(task=task, name="cue", kind="categorical", detected_kind="categorical")
    DatasetLevel.objects.create(column=column, value="left", count=50)
    return project


@pytest.mark.parametrize("model", [DatasetProject, DatasetTask, DatasetColumn, DatasetLevel, DatasetFile])
def test_each_dataset_model_has_a_changelist_and_a_change_page(admin_client, dataset, model):
    name = model._meta.model_name
    listed = admin_client.get(reverse(f"admin:annotations_{name}_changelist"))
    assert listed.status_code == 200 and listed.context["cl"].result_count == 1
    change = admin_client.get(reverse(f"admin:annotations_{name}_change", args=[model.objects.get().pk]))
    assert change.status_code == 200


def test_a_dataset_file_text_is_neither_listed_nor_shown(admin_client, dataset):
    listed = admin_client.get(reverse("admin:annotations_datasetfile_changelist"))
    change = admin_client.get(reverse("admin:annotations_datasetfile_change", args=[DatasetFile.objects.get().pk]))
    assert "left-cue-marker" not in listed.content.decode() + change.content.decode()
    assert "text" in listed.context["cl"].queryset.query.deferred_loading[0]
    assert admin_client.get(reverse("admin:annotations_datasetfile_add")).status_code == 403
