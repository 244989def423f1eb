"""Shared fixtures: a scripted stand-in for the LLM, and (with pytest-django) users in each role.

The Django fixtures live in :mod:`tests.django_fixtures`, registered only when pytest-django is active: the
pure packages' tests run without Django (``pytest -p no:django tests/bidsdata``), and this file must not
import it for them.
"""

from __future__ import annotations

import pytest

from tests.support.llm import ScriptedLLM

DJANGO_FIXTURES = "tests.django_fixtures"


def pytest_configure(config: pytest.Config) -> None:
    """Register the Django fixtures where pytest-django runs (its plugin is named ``django``)."""
    if config.pluginmanager.has_plugin("django"):
        config.pluginmanager.import_plugin(DJANGO_FIXTURES)


@pytest.fixture
def scripted_llm():
    """Factory: ``scripted_llm(["reply 1", "reply 2"])`` answers in order, recording every request."""
    return ScriptedLLM
