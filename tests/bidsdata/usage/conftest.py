"""Fixtures of the search, design and summary tests: the shared curated datasets, a made-up one, and hedtools' own
loop to compare with (no Django)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bidsdata.usage.workers import configure_search
from tests.bidsdata.usage.hedtools_loop import SHARED, made_up_dataset


@pytest.fixture(autouse=True)
def _searches_here():
    """Searches run in the test's own process unless a test asks for the search processes."""
    configure_search(-1)
    yield
    configure_search(-1)


@pytest.fixture(params=sorted(p.name for p in SHARED.iterdir() if p.is_dir()) if SHARED.is_dir() else [])
def shared_dataset(request) -> Path:
    """Each shared curated dataset (its sidecars are the curators' own, read here at test time)."""
    return SHARED / request.param


@pytest.fixture
def made_up(tmp_path) -> Path:
    return made_up_dataset(tmp_path / "made_up")


@pytest.fixture
def sidecar_of():
    def read(folder: Path, task: str) -> dict:
        return json.loads((folder / f"task-{task}_events.json").read_text())

    return read
