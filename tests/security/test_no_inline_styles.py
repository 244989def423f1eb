"""Content-Security-Policy (style-src 'self'): no page, fragment or script of ours applies an inline style, and an
htmx answer that is a whole error page (403, 404, 405, 5xx) is never pasted into a page (its styles with it)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from annotations.datasets.results import refresh_project
from tests.datasets.lab import GOOD, annotate, lab_project, level

ROOT = Path(__file__).resolve().parents[2]
INLINE_STYLE = re.compile(r"""<style\b|\sstyle\s*=|\.style\.|\.style\s*=|setAttribute\(\s*["']style|cssText""")


def test_no_template_or_script_of_ours_sets_an_inline_style() -> None:
    found = [f"{path.relative_to(ROOT)}:{n}" for folder, pattern in (("templates", "*.html"), ("static/js", "*.js"),
                                                                     ("annotations", "*.py"))
             for path in sorted((ROOT / folder).rglob(pattern))
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
             if INLINE_STYLE.search(line) and "noqa: inline-style" not in line]
    assert not found, found


def test_htmx_never_swaps_an_error_page_into_the_page() -> None:
    base = (ROOT / "templates" / "base.html").read_text(encoding="utf-8")
    config = json.loads(re.search(r"""name="htmx-config" content='([^']*)'""", base).group(1))
    rules = config["responseHandling"]

    def rule(status: int) -> dict:
        return next(r for r in rules if re.search(r["code"], str(status)))

    for status in (403, 404, 405, 500, 502):
        assert rule(status)["swap"] is False and rule(status)["error"] is True, status
    for status in (400, 409, 429):  # fragments naming bad input, shown in place
        assert rule(status)["swap"] is True, status


@pytest.mark.django_db
def test_the_project_level_and_sidecar_pages_carry_no_inline_style(client, user, settings) -> None:
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}
    project = lab_project(user)
    annotate(project, user, {("trial_type", "show_star"): GOOD["show_star"]})
    refresh_project(project)
    client.force_login(user)
    star = level(project, "trial_type", "show_star")
    urls = [project.get_absolute_url(), f"/datasets/{project.pk}/levels/{star.pk}/",
            f"/datasets/{project.pk}/tasks/stars/sidecar/", f"/datasets/{project.pk}/tasks/stars/quality/",
            f"/datasets/{project.pk}/tasks/stars/levels/", "/datasets/"]
    for url in urls:
        page = client.get(url).content.decode()
        assert not INLINE_STYLE.search(page), (url, INLINE_STYLE.search(page))
    answered = client.post(f"/datasets/{project.pk}/questions/", {"level_id": level(project, "value", "6").pk,
                                                                  "answer": "A red circle appears."},
                           HTTP_HX_REQUEST="true").content.decode()
    assert not INLINE_STYLE.search(answered)
