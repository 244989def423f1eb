"""The Search, Design, Summary and Compare tabs of a project: hedtools' answers, the query checked as typed,
rows paged and downloaded, saved queries; another user's project is a 404, a reviewer searches but saves
nothing."""

from __future__ import annotations

import csv
import io
import zipfile

import pytest
from django.urls import reverse

from tests.bidsdata.usage.hedtools_loop import bare_search
from tests.usage.conftest import newer_revision
from tests.usage.test_commands import QUERIES

pytestmark = pytest.mark.django_db


def _url(name, project, *args):
    return reverse(f"annotations:{name}", args=[project.pk, *args])


def _expected(made_up, queries):
    found = bare_search(made_up, "demo", queries)
    return [sum(row[i] for rows in found.values() for row in rows) for i in range(len(queries))]


def test_the_search_page_counts_and_pages_the_rows(client, user, project, made_up):
    client.force_login(user)
    answer = client.get(_url("usage-search", project), {"q": "\n".join(QUERIES), "task": "demo"})
    assert answer.status_code == 200
    shown = answer.context["shown"]
    assert shown.counts.matches == _expected(made_up, QUERIES)
    assert len(answer.context["rows"]) == min(50, shown.counts.any_matches)
    html = answer.content.decode()
    assert 'id="rows-table"' in html and "Download all as TSV" in html
    for match in shown.counts.matches:
        assert f'data-matches="{match}"' in html


def test_the_rows_download_is_every_matching_row(client, user, project):
    client.force_login(user)
    answer = client.get(_url("usage-search-tsv", project), {"q": "Sensory-event\nParticipant-response",
                                                           "task": "demo"})
    assert answer.status_code == 200
    assert answer["Content-Disposition"].startswith('attachment; filename="task-demo_search.tsv"')
    rows = list(csv.reader(io.StringIO(b"".join(answer.streaming_content).decode()), delimiter="\t"))
    assert rows[0] == ["file", "row", "onset", "Sensory-event", "Participant-response", "hed"]
    page = client.get(_url("usage-search", project), {"q": "Sensory-event\nParticipant-response", "task": "demo"})
    assert len(rows) - 1 == page.context["shown"].counts.any_matches
    assert all(row[5] for row in rows[1:])


def test_a_malformed_query_is_shown_beside_the_box_with_its_position(client, user, project):
    client.force_login(user)
    answer = client.get(_url("usage-search", project), {"q": "Event\n(Red || Blue"})
    assert answer.status_code == 400
    assert "query 2 &#x27;(Red || Blue&#x27; cannot be parsed at character 13: Parse error: Missing closing paren" \
        in answer.content.decode()
    check = client.get(_url("usage-query-check", project), {"q": "Event\n(Red || Blue\nRed!"})
    html = check.content.decode()
    assert html.count('data-ok="true"') == 2 and html.count('data-ok="false"') == 1
    assert "at character 13: Parse error: Missing closing paren" in html
    assert "hedtools ignores it" in html


def test_another_users_project_is_a_404_everywhere(client, other_user, project):
    client.force_login(other_user)
    for name, args, params in [("usage-search", [], {"q": "Event"}), ("usage-query-check", [], {"q": "Event"}),
                               ("usage-search-tsv", [], {"q": "Event", "task": "demo"}),
                               ("usage-design", ["demo"], {}), ("usage-design-zip", ["demo"], {}),
                               ("usage-summary", ["demo"], {}), ("usage-acceptance", [], {}),
                               ("usage-compare", [], {}), ("usage-task-acceptance", ["demo"], {}),
                               ("usage-export", [], {})]:
        assert client.get(_url(name, project, *args), params).status_code == 404, name
    assert client.post(_url("usage-saved-create", project), {"name": "x", "query": "Event"}).status_code == 404


def test_saved_queries_are_the_owners_and_a_reviewer_searches_without_saving(client, user, reviewer, project):
    client.force_login(user)
    assert client.post(_url("usage-saved-create", project), {"name": "Responses", "query": "Participant-response"}
                       ).status_code == 302
    assert client.post(_url("usage-saved-create", project), {"name": "Bad", "query": "Red &&"}).status_code == 302
    assert list(project.saved_queries.values_list("name", flat=True)) == ["Responses"]
    page = client.get(_url("usage-search", project)).content.decode()
    assert "Participant-response" in page and "Delete" in page
    client.force_login(reviewer)
    assert client.get(_url("usage-search", project), {"q": "Event"}).status_code == 200
    assert client.post(_url("usage-saved-create", project), {"name": "Mine", "query": "Event"}).status_code == 403
    saved = project.saved_queries.get()
    assert client.post(_url("usage-saved-delete", project, saved.pk)).status_code == 403


def test_design_and_summary_pages_and_the_zip(client, user, project):
    client.force_login(user)
    design = client.get(_url("usage-design", project, "demo"))
    assert design.status_code == 200
    assert {(f["factor"], f["level"]) for f in design.context["design"]["factors"]} == {
        ("trial-kind", "go-cond"), ("trial-kind", "halt-cond")}
    packed = client.get(_url("usage-design-zip", project, "demo"), {"type": "Condition-variable",
                                                                     "encoding": "categorical"})
    assert packed.status_code == 200
    with zipfile.ZipFile(io.BytesIO(b"".join(packed.streaming_content))) as archive:
        names = set(archive.namelist())
        assert {"sub-01_task-demo_run-1_design.tsv", "task-demo_condition-variable_summary.json",
                "task-demo_condition-variable_factors.tsv"} <= names
        assert archive.read("sub-01_task-demo_run-1_design.tsv").decode().splitlines()[0] == "row\tonset\ttrial-kind"
    assert client.get(_url("usage-design", project, "demo"), {"type": "Nothing"}).status_code == 400
    summary = client.get(_url("usage-summary", project, "demo"))
    assert summary.status_code == 200
    assert summary.context["summary"]["total_events"] > 0
    assert 'class="us-chart"' in summary.content.decode()


def test_compare_the_upload_with_a_newer_sidecar(client, user, project):
    client.force_login(user)
    answer = client.get(_url("usage-compare", project), {"task": "demo", "a": "uploaded", "q": "Sensory-event"})
    assert answer.status_code == 200
    result = answer.context["comparison"].result
    assert result.matches_a == result.matches_b and result.changed == 0  # stored = uploaded HED here
    newer = newer_revision(project, "halt", "Red", "Blue")
    answer = client.get(_url("usage-compare", project), {"task": "demo", "a": "uploaded", "b": newer.digest[:12],
                                                         "q": "Red\nBlue"})
    comparison = answer.context["comparison"]
    assert comparison.b.name == newer.digest
    halts = comparison.result.matches_a[0]
    assert halts > 0 and comparison.result.per_query()[1] == {"query": "Blue", "a": 0, "b": halts, "gained": halts,
                                                              "lost": 0}
    assert comparison.result.changed == halts
    html = answer.content.decode()
    assert 'id="compare-rows"' in html and "Blue" in html
    assert client.get(_url("usage-compare", project), {"task": "demo", "a": "abcdef12", "q": "Event"}
                      ).status_code == 404
