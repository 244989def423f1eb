"""Fixtures of the portal's search, design, summary, acceptance and compare: a project made from the made-up
dataset, its stored sidecar validated, and searches in the test's own process."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from annotations.datasets import results, services
from bidsdata.archive import read_folder
from bidsdata.usage.search import store
from tests.bidsdata.usage.hedtools_loop import made_up_dataset


@pytest.fixture(autouse=True)
def _searches_here(settings):
    settings.HEDIT_SEARCH_PROCESSES = -1
    store().clear()


@pytest.fixture
def made_up(tmp_path):
    return made_up_dataset(tmp_path / "made_up")


@pytest.fixture
def project(user, made_up):
    """The made-up dataset as *user*'s project, its sidecar composed, validated and stored (the job's last step)."""
    project = services.import_dataset(user=user, files=read_folder(made_up), name="made up")
    results.refresh_project(project)
    return project


@pytest.fixture
def api():
    def make(user):
        client = APIClient()
        client.force_authenticate(user)
        return client

    return make


def stored_sidecar(project):
    from annotations.models import SidecarResult

    return SidecarResult.objects.filter(task__project=project).order_by("-created_at").first().sidecar


def newer_revision(project, level, old, new):
    """A newer stored sidecar of the project's task, *old* replaced by *new* in *level*'s HED (as if the job had
    stored it after a correction)."""
    import copy

    from annotations.models import SidecarResult

    task = project.tasks.get()
    sidecar = copy.deepcopy(stored_sidecar(project))
    for entry in sidecar.values():
        if isinstance(entry, dict) and isinstance(entry.get("HED"), dict) and level in entry["HED"]:
            entry["HED"][level] = entry["HED"][level].replace(old, new)
    return SidecarResult.objects.create(task=task, digest=f"{len(SidecarResult.objects.all()) + 1:064d}",
                                        sidecar=sidecar)
