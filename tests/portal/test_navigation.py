"""Narrow screens fold the navigation behind a details toggle."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


def test_narrow_screens_fold_the_navigation_behind_a_details_toggle(client, user) -> None:
    client.force_login(user)
    page = client.get(reverse("annotations:annotate")).content.decode()
    assert re.search(r'<details class="nav-toggle"><summary[^>]*>.*?Menu</summary></details>\s*<nav class="site-nav"',
                     page, re.S)
    css = (ROOT / "static/css/app.css").read_text()
    assert ".nav-toggle + .site-nav { display: none; }" in css
    assert ".site-header__inner:has(.nav-toggle[open]) .site-nav" in css
